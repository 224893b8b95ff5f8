package isa

import (
	"strconv"
	"strings"
)

// Disassemble returns the text LLVM prints for a word (with a tab between
// mnemonic and operands), and whether the word is a valid instruction.
func Disassemble(w uint32) (string, bool) {
	in := Decode(w)
	return in.String(), in.Valid()
}

// String prints the instruction as LLVM's Lanai instruction printer does.
func (i Inst) String() string {
	var b strings.Builder
	i.Format(&b)
	return b.String()
}

// formatHex formats a value as LLVM's formatHex does: "0x1f", "-0x1f".
func formatHex(v int64) string {
	if v < 0 {
		return "-0x" + strconv.FormatUint(uint64(-v), 16)
	}
	return "0x" + strconv.FormatUint(uint64(v), 16)
}

// Format writes the instruction's text to b.
func (i Inst) Format(b *strings.Builder) {
	f := &forms[i.Form]
	reg := func(r Reg) { b.WriteByte('%'); b.WriteString(r.String()) }
	name := f.name
	if name == "" {
		name = i.ALU.String()
	}
	flag := ""
	if i.F {
		flag = ".f"
	}
	cc := i.Cond.String()
	switch f.syntax {
	case synFixed, synReserved:
		b.WriteString(name)
	case synMovImm, synSLI:
		b.WriteString("mov\t" + formatHex(int64(i.Imm)) + ", ")
		reg(i.Rd)
	case synRI:
		b.WriteString(name + flag + "\t")
		reg(i.Rs1)
		b.WriteString(", " + formatHex(int64(i.Imm)) + ", ")
		reg(i.Rd)
	case synShiftImm:
		b.WriteString(name + flag + "\t")
		reg(i.Rs1)
		b.WriteString(", " + formatHex(int64(int32(i.Imm))) + ", ")
		reg(i.Rd)
	case synRR:
		b.WriteString(name + flag)
		if i.Cond != CondT {
			b.WriteString("." + cc)
		}
		b.WriteByte('\t')
		reg(i.Rs1)
		b.WriteString(", ")
		reg(i.Rs2)
		b.WriteString(", ")
		reg(i.Rd)
	case synMovRR:
		b.WriteString("mov\t")
		reg(i.Rs1)
		b.WriteString(", ")
		reg(i.Rd)
	case synJR:
		b.WriteString("bt\t")
		reg(i.Rs2)
	case synBrInd, synBrIndAdd:
		b.WriteString("b" + cc + "\t")
		reg(i.Rs1)
		if f.syntax == synBrIndAdd {
			b.WriteString(" add ")
			reg(i.Rs2)
		}
	case synSel:
		b.WriteString("sel." + cc + " ")
		reg(i.Rs1)
		b.WriteString(", ")
		reg(i.Rs2)
		b.WriteString(", ")
		reg(i.Rd)
	case synSpecial:
		b.WriteString(name + "\t")
		reg(i.Rs1)
		b.WriteString(", ")
		reg(i.Rd)
	case synLoad:
		b.WriteString(name + "\t")
		i.formatMem(b)
		b.WriteString(", ")
		reg(i.Rd)
	case synStore:
		b.WriteString(name + "\t")
		reg(i.Rd)
		b.WriteString(", ")
		i.formatMem(b)
	case synBR:
		b.WriteString("b" + cc + "\t" + formatHex(int64(i.Imm)))
	case synBRR:
		b.WriteString("b" + cc + ".r\t" + formatHex(int64(uint16(i.Imm))))
	case synSCC:
		b.WriteString("s" + cc + "\t")
		reg(i.Rd)
	}
}

// formatMem writes a memory operand.
func (i Inst) formatMem(b *strings.Builder) {
	pre, post := i.Mode == ModePre, i.Mode == ModePost
	base := "%" + i.Rs1.String()
	switch i.Class {
	case SLS:
		b.WriteString("[" + formatHex(int64(i.Imm)) + "]")
	case RRM:
		b.WriteByte('[')
		if pre {
			b.WriteByte('*')
		}
		b.WriteString(base)
		if post {
			b.WriteByte('*')
		}
		b.WriteString(" " + i.ALU.String() + " %" + i.Rs2.String() + "]")
	default: // RM, SPLS
		off := int32(i.Imm)
		if (pre || post) && (off == int32(i.Size) || off == -int32(i.Size)) {
			op := "++"
			if off < 0 {
				op = "--"
			}
			if pre {
				b.WriteString("[" + op + base + "]")
			} else {
				b.WriteString("[" + base + op + "]")
			}
			return
		}
		b.WriteString(strconv.Itoa(int(off)) + "[")
		if pre {
			b.WriteByte('*')
		}
		b.WriteString(base)
		if post {
			b.WriteByte('*')
		}
		b.WriteByte(']')
	}
}
