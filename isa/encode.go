package isa

import "fmt"

// Encode encodes an instruction from its semantic fields (Form and Word are
// ignored). It places the fields and then decodes the result, so a value is
// encodable exactly when the decoder would give it back: the table in
// table.go stays the one definition of what is valid.
func Encode(in Inst) (uint32, error) {
	if int(in.Class) >= len(fieldEncoders) || fieldEncoders[in.Class] == nil {
		return 0, fmt.Errorf("cannot encode an instruction of class %v", in.Class)
	}
	if in.Rd > 31 || in.Rs1 > 31 || in.Rs2 > 31 {
		return 0, fmt.Errorf("register number out of range")
	}
	w, err := fieldEncoders[in.Class](in)
	if err != nil {
		return 0, err
	}
	got := Decode(w)
	got.Word, got.Form = in.Word, in.Form
	if got != in {
		return 0, fmt.Errorf("%v instruction is not encodable (operands out of range or reserved)", in.Class)
	}
	return w, nil
}

var fieldEncoders = [...]func(Inst) (uint32, error){
	RI:      encodeRI,
	RR:      encodeRR,
	Special: encodeSpecial,
	RM:      encodeRM,
	RRM:     encodeRRM,
	SLS:     encodeSLS,
	SLI:     encodeSLS,
	SPLS:    encodeSPLS,
	BR:      encodeBR,
	BRR:     encodeBR,
	SCC:     encodeBR,
	Invalid: nil,
}

func bit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func regs(in Inst) uint32 { return fRd.put(uint32(in.Rd)) | fRs1.put(uint32(in.Rs1)) }

// SplitRI finds the H bit and 16-bit field that make the RI second operand k
// for operation a, preferring the half LLVM's assembler picks (the high half
// for and, the low half otherwise). For shifts k is the signed amount.
func SplitRI(a ALU, k uint32) (h, imm16 uint32, ok bool) {
	if a == Sh || a == Sha {
		if int32(k) < -32768 || int32(k) > 32767 {
			return 0, 0, false
		}
		return uint32(a - Sh), k & 0xFFFF, true
	}
	if a > Xor {
		return 0, 0, false
	}
	order := [2]uint32{0, 1}
	if a == And {
		order = [2]uint32{1, 0}
	}
	for _, h := range order {
		imm := k & 0xFFFF
		if h == 1 {
			imm = k >> 16
		}
		if riConst(uint32(a), h, imm) == k {
			return h, imm, true
		}
	}
	return 0, 0, false
}

func encodeRI(in Inst) (uint32, error) {
	h, imm, ok := SplitRI(in.ALU, in.Imm)
	if !ok {
		if in.ALU == Sh || in.ALU == Sha {
			return 0, fmt.Errorf("shift amount %d out of range", int32(in.Imm))
		}
		if in.ALU == And {
			return 0, fmt.Errorf("and immediate %#x cannot be encoded: it needs 0xffff in its upper or lower half", in.Imm)
		}
		return 0, fmt.Errorf("immediate %#x cannot be encoded: it must fit in the upper or lower 16 bits", in.Imm)
	}
	op := uint32(in.ALU)
	if in.ALU == Sh || in.ALU == Sha {
		op = 7
	}
	return fOp.put(op) | regs(in) | fF.put(bit(in.F)) | fH.put(h) | imm, nil
}

// rrOpJ gives the BBB and J fields of an RR or RRM operation.
func rrOpJ(a ALU) (bbb, j uint32, err error) {
	switch {
	case a <= Xor:
		return uint32(a), 0, nil
	case a == Sel:
		return 7, 0, nil
	case a == Sh || a == Sha:
		return 7, 0b10000 | uint32(a-Sh)<<3, nil
	}
	return 0, 0, fmt.Errorf("operation %v is not a register-register operation", a)
}

func encodeRR(in Inst) (uint32, error) {
	bbb, j, err := rrOpJ(in.ALU)
	if err != nil {
		return 0, err
	}
	return fOp.put(0xC) | regs(in) | fF.put(bit(in.F)) | fH.put(uint32(in.Cond&1)) |
		fRs2.put(uint32(in.Rs2)) | fBBB.put(bbb) | fJ.put(j) | fLow3.put(uint32(in.Cond>>1)), nil
}

func encodeSpecial(in Inst) (uint32, error) {
	if in.ALU < Popc || in.ALU > Trailz {
		return 0, fmt.Errorf("operation %v is not a SPECIAL operation", in.ALU)
	}
	return fOp.put(0xD) | regs(in) | fF.put(bit(in.F)) | uint32(in.ALU-Popc+1), nil
}

func fitsSigned(v uint32, bits uint) bool {
	s := int32(v)
	return s >= -1<<(bits-1) && s < 1<<(bits-1)
}

func encodeRM(in Inst) (uint32, error) {
	if !fitsSigned(in.Imm, 16) {
		return 0, fmt.Errorf("offset %d out of range -32768..32767", int32(in.Imm))
	}
	return fOp.put(0x8|bit(in.Store)) | regs(in) | fPQ.put(uint32(in.Mode)) | in.Imm&0xFFFF, nil
}

// rrmYL gives the Y, L bits of an RRM access size.
func rrmYL(s Size) uint32 {
	for yl, sz := range rrmSizes {
		if sz == s {
			return uint32(yl)
		}
	}
	return 3
}

func encodeRRM(in Inst) (uint32, error) {
	bbb, j, err := rrOpJ(in.ALU)
	if err != nil || in.ALU == Sel {
		return 0, fmt.Errorf("operation %v cannot form an address", in.ALU)
	}
	return fOp.put(0xA|bit(in.Store)) | regs(in) | fPQ.put(uint32(in.Mode)) | fRs2.put(uint32(in.Rs2)) |
		fBBB.put(bbb) | fJ.put(j) | fLow3.put(rrmYL(in.Size)<<1|bit(in.Zext)), nil
}

func encodeSLS(in Inst) (uint32, error) {
	if in.Imm >= 1<<21 {
		return 0, fmt.Errorf("value %#x out of range 0..0x1fffff", in.Imm)
	}
	sub := bit(in.Store)
	if in.Class == SLI {
		sub = 2
	}
	return fOp.put(0xF) | fRd.put(uint32(in.Rd)) | fRs1.put(in.Imm>>16) | fSub.put(sub) | in.Imm&0xFFFF, nil
}

func encodeSPLS(in Inst) (uint32, error) {
	if !fitsSigned(in.Imm, 10) {
		return 0, fmt.Errorf("offset %d out of range -512..511", int32(in.Imm))
	}
	yse := bit(in.Size == Byte)<<2 | bit(in.Store)<<1 | bit(in.Zext)
	return fOp.put(0xF) | regs(in) | fSpls.put(0b110) | fYSE.put(yse) | fSplsPQ.put(uint32(in.Mode)) | in.Imm&0x3FF, nil
}

func encodeBR(in Inst) (uint32, error) {
	w := fOp.put(0xE) | fBrCond.put(uint32(in.Cond>>1)) | fBit0.put(uint32(in.Cond&1))
	switch in.Class {
	case BR:
		if in.Imm&3 != 0 || in.Imm >= 1<<25 {
			return 0, fmt.Errorf("branch target %#x must be word-aligned and below 0x2000000", in.Imm)
		}
		return w | in.Imm, nil
	case BRR:
		if in.Imm&3 != 0 || !fitsSigned(in.Imm, 16) {
			return 0, fmt.Errorf("relative branch offset %d must be a multiple of 4 in -32768..32764", int32(in.Imm))
		}
		return w | fBit24.put(1) | fRs1.put(uint32(in.Rs1)) | in.Imm&0xFFFC | fBit1.put(1), nil
	default: // SCC
		return w | fRs1.put(uint32(in.Rd)) | fBit1.put(1), nil
	}
}
