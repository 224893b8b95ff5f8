package isa

// Decode decodes one instruction word. An invalid word gives an Inst whose
// Class is Invalid (and Valid reports false); Decode never fails otherwise.
func Decode(w uint32) Inst {
	for _, id := range byOp[w>>28] {
		f := &forms[id]
		if w&f.mask != f.match {
			continue
		}
		if f.class == Invalid {
			break
		}
		return fieldDecoders[f.class](Inst{Word: w, Form: id, Class: f.class}, w)
	}
	return Inst{Word: w}
}

// fieldDecoders fill an Inst from a word of a known class. They take and
// return the Inst by value, so decoding allocates nothing.
var fieldDecoders = [...]func(Inst, uint32) Inst{
	RI:      decodeRI,
	RR:      decodeRR,
	Special: decodeSpecial,
	RM:      decodeRM,
	RRM:     decodeRRM,
	SLS:     decodeSLS,
	SLI:     decodeSLS,
	SPLS:    decodeSPLS,
	BR:      decodeBR,
	BRR:     decodeBR,
	SCC:     decodeBR,
	Invalid: func(in Inst, _ uint32) Inst { return in },
}

// riConst expands the 16-bit RI constant to the 32-bit second operand.
func riConst(aaa, h, imm16 uint32) uint32 {
	switch {
	case aaa == 7: // shift amount, sign-extended
		return uint32(int32(int16(imm16)))
	case aaa == uint32(And) && h == 0:
		return 0xFFFF0000 | imm16
	case aaa == uint32(And):
		return imm16<<16 | 0xFFFF
	case h == 0:
		return imm16
	default:
		return imm16 << 16
	}
}

func decodeRI(in Inst, w uint32) Inst {
	aaa, h := fOp.get(w)&7, fH.get(w)
	in.ALU = ALU(aaa)
	if aaa == 7 {
		in.ALU = Sh + ALU(h)
	}
	in.Rd, in.Rs1, in.F = Reg(fRd.get(w)), Reg(fRs1.get(w)), fF.get(w) == 1
	in.Imm = riConst(aaa, h, fImm16.get(w))
	return in
}

// rrALU gives the RR/RRM operation of the BBB and J fields.
func rrALU(bbb, j uint32, memory bool) ALU {
	switch {
	case bbb != 7:
		return ALU(bbb)
	case memory: // LLVM reads only bit 3 of J here
		return Sh + ALU(j>>3&1)
	case j == 0:
		return Sel
	default:
		return Sh + ALU(j>>3&1)
	}
}

func decodeRR(in Inst, w uint32) Inst {
	in.ALU = rrALU(fBBB.get(w), fJ.get(w), false)
	in.Cond = Cond(fLow3.get(w)<<1 | fH.get(w))
	in.Rd, in.Rs1, in.Rs2, in.F = Reg(fRd.get(w)), Reg(fRs1.get(w)), Reg(fRs2.get(w)), fF.get(w) == 1
	return in
}

func decodeSpecial(in Inst, w uint32) Inst {
	in.ALU = Popc + ALU(fLow3.get(w)-1)
	in.Rd, in.Rs1, in.F = Reg(fRd.get(w)), Reg(fRs1.get(w)), fF.get(w) == 1
	return in
}

func decodeRM(in Inst, w uint32) Inst {
	in.Store = fOp.get(w)&1 == 1
	in.Rd, in.Rs1, in.Size = Reg(fRd.get(w)), Reg(fRs1.get(w)), Word
	in.Mode = Mode(fPQ.get(w))
	if in.Mode != ModeBase {
		in.Imm = uint32(int32(int16(fImm16.get(w))))
	}
	return in
}

// rrmSizes maps the Y, L bits of RRM to the access size.
var rrmSizes = [4]Size{Half, Word, Byte, 0}

func decodeRRM(in Inst, w uint32) Inst {
	in.Store = fOp.get(w)&1 == 1
	in.Rd, in.Rs1 = Reg(fRd.get(w)), Reg(fRs1.get(w))
	in.Mode = Mode(fPQ.get(w))
	if in.Mode != ModeBase {
		in.Rs2 = Reg(fRs2.get(w))
	}
	in.ALU = rrALU(fBBB.get(w), fJ.get(w), true)
	yle := fLow3.get(w)
	in.Size, in.Zext = rrmSizes[yle>>1], yle&1 == 1
	return in
}

func decodeSLS(in Inst, w uint32) Inst {
	in.Rd = Reg(fRd.get(w))
	if in.Class == SLS {
		in.Size, in.Store = Word, fSub.get(w) == 1
	}
	in.Imm = fRs1.get(w)<<16 | fImm16.get(w)
	return in
}

func decodeSPLS(in Inst, w uint32) Inst {
	yse := fYSE.get(w)
	in.Rd, in.Rs1 = Reg(fRd.get(w)), Reg(fRs1.get(w))
	in.Size, in.Store, in.Zext = Half, yse&2 != 0, yse&1 != 0
	if yse&4 != 0 {
		in.Size = Byte
	}
	in.Mode = Mode(fSplsPQ.get(w))
	if in.Mode != ModeBase {
		in.Imm = uint32(int32(fImm10.get(w)<<22) >> 22)
	}
	return in
}

func decodeBR(in Inst, w uint32) Inst {
	in.Cond = Cond(fBrCond.get(w)<<1 | fBit0.get(w))
	switch in.Class {
	case BR:
		in.Imm = fBrAddr.get(w) << 2
	case BRR:
		in.Imm = uint32(int32(int16(fBrOff.get(w) << 2)))
		in.Rs1 = Reg(fRs1.get(w))
	case SCC:
		in.Rd = Reg(fRs1.get(w))
	}
	return in
}
