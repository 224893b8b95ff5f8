package isa

import "strings"

// Operands names the operand forms of an assembler mnemonic. The mnemonic
// fixes some fields (Mnemonic.Inst); the assembler reads the operands and
// picks the encoding (RI or RR, RM, RRM, SPLS or SLS, BR or a register
// jump) from them.
type Operands uint8

// The operand forms, one for each family of rows in the form table.
const (
	OpsNone      Operands = iota // nop, log_0..log_4: the mnemonic is the whole instruction
	OpsALU                       // op[.f][.cc] %rs1, %rs2 or K, %rd
	OpsSpecial                   // popc %rs1, %rd
	OpsMov                       // mov %rs1 or K, %rd
	OpsSel                       // sel.cc %rs1, %rs2, %rd
	OpsLoad                      // ld <mem>, %rd
	OpsStore                     // st %rd, <mem>
	OpsBranch                    // b<cc> target, %rs1 or %rs1 add %rs2
	OpsBranchRel                 // b<cc>.r offset
	OpsSetCC                     // s<cc> %rd
)

// opsCount is the number of operands of each form.
var opsCount = [...]int{
	OpsNone: 0, OpsALU: 3, OpsSpecial: 2, OpsMov: 2, OpsSel: 3,
	OpsLoad: 2, OpsStore: 2, OpsBranch: 1, OpsBranchRel: 1, OpsSetCC: 1,
}

// Count is the number of operands the form takes.
func (o Operands) Count() int { return opsCount[o] }

// Mnemonic is one meaning of an assembler mnemonic: its operand form and
// the fields the mnemonic fixes. These are ALU, F and Cond for OpsALU; Class
// and ALU for OpsSpecial; Class, ALU and Cond for OpsSel; Store, Size and
// Zext for loads and stores; Cond for branches; Class and Cond for OpsSetCC;
// the whole instruction for OpsNone.
type Mnemonic struct {
	Operands Operands
	Inst     Inst
}

// LookupMnemonic returns the meanings of a lower-case mnemonic in table
// order, or nil for an unknown one. Only "st" has two: the word store and
// "set if true" (s<cc> with cc = t); the number of operands tells them
// apart.
func LookupMnemonic(name string) []Mnemonic {
	h := mnemonicHash(name)
	for {
		e := &mnemonicSlots[h&uint32(len(mnemonicSlots)-1)]
		if e.name == name || e.meanings == nil {
			return e.meanings
		}
		h++
	}
}

// mnemonicSlots holds every spelling the assembler accepts, made from the
// form table: a row's name, or the name of its operation, with the flag and
// condition suffixes its syntax allows. It is an open-addressed hash table,
// a power of two at least four times the number of spellings in size: a
// map[string] of them made the assembler benchmark 1-2% slower than the
// hand-written mnemonic switch it replaced.
var mnemonicSlots = func() []mnemonicSlot {
	m := buildMnemonics()
	n := 1
	for n < 4*len(m) {
		n *= 2
	}
	t := make([]mnemonicSlot, n)
	for name, ms := range m {
		h := mnemonicHash(name)
		for t[h&uint32(n-1)].meanings != nil {
			h++
		}
		t[h&uint32(n-1)] = mnemonicSlot{name, ms}
	}
	return t
}()

type mnemonicSlot struct {
	name     string
	meanings []Mnemonic
}

// mnemonicHash is FNV-1a.
func mnemonicHash(s string) uint32 {
	h := uint32(2166136261)
	for i := range len(s) {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// condSpellings are the condition names with the assembler's aliases.
func condSpellings() map[string]Cond {
	m := map[string]Cond{}
	for i, n := range condNames {
		m[n] = Cond(i)
	}
	for n, c := range condAliases {
		m[n] = c
	}
	return m
}

func buildMnemonics() map[string][]Mnemonic {
	t := map[string][]Mnemonic{}
	add := func(name string, m Mnemonic) {
		for _, old := range t[name] {
			if old.Operands == m.Operands {
				if old != m {
					panic("isa: rows disagree on mnemonic " + name)
				}
				return
			}
		}
		t[name] = append(t[name], m)
	}
	conds := condSpellings()
	// rowInst is the instruction of a row's match word, without the word.
	rowInst := func(id int) Inst {
		in := Decode(forms[id].match)
		in.Word, in.Form = 0, 0
		return in
	}
	alus := map[ALU]bool{}
	for id := 1; id < len(forms); id++ {
		f := &forms[id]
		switch f.syntax {
		case synFixed:
			if !strings.Contains(f.name, "\t") { // not the commented return, which is an ld
				add(f.name, Mnemonic{OpsNone, rowInst(id)})
			}
		case synMovImm, synMovRR, synSLI:
			add(f.name, Mnemonic{Operands: OpsMov})
		case synRI, synRR, synShiftImm:
			// The RI shift row holds sh and sha, told apart by H.
			alus[rowInst(id).ALU] = true
			alus[Decode(f.match|fH.mask()).ALU] = true
		case synSpecial:
			in := rowInst(id)
			add(f.name, Mnemonic{OpsSpecial, Inst{Class: in.Class, ALU: in.ALU}})
		case synLoad, synStore:
			ops := OpsLoad
			if f.syntax == synStore {
				ops = OpsStore
			}
			in := rowInst(id)
			add(f.name, Mnemonic{ops, Inst{Store: in.Store, Size: in.Size, Zext: in.Zext}})
		case synSel:
			for n, c := range conds {
				add(f.name+"."+n, Mnemonic{OpsSel, Inst{Class: f.class, ALU: Sel, Cond: c}})
			}
		case synBR, synJR, synBrInd, synBrIndAdd:
			for n, c := range conds {
				add("b"+n, Mnemonic{OpsBranch, Inst{Cond: c}})
			}
		case synBRR:
			for n, c := range conds {
				add(f.name+n+".r", Mnemonic{OpsBranchRel, Inst{Cond: c}})
			}
		case synSCC:
			for n, c := range conds {
				add(f.name+n, Mnemonic{OpsSetCC, Inst{Class: f.class, Cond: c}})
			}
		}
	}
	// op[.f][.cc]: ".f" sets the flags, so the condition f is written
	// op.f.f.
	for alu := range alus {
		name := alu.String()
		add(name, Mnemonic{OpsALU, Inst{ALU: alu}})
		add(name+".f", Mnemonic{OpsALU, Inst{ALU: alu, F: true}})
		for n, c := range conds {
			if n != "f" {
				add(name+"."+n, Mnemonic{OpsALU, Inst{ALU: alu, Cond: c}})
			}
			add(name+".f."+n, Mnemonic{OpsALU, Inst{ALU: alu, F: true, Cond: c}})
		}
	}
	return t
}
