package isa

// field is a bit field of an instruction word.
type field struct{ lo, width uint8 }

func (f field) mask() uint32          { return (1<<f.width - 1) << f.lo }
func (f field) get(w uint32) uint32   { return w >> f.lo & (1<<f.width - 1) }
func (f field) put(v uint32) uint32   { return v << f.lo & f.mask() }
func (f field) is(v uint32) constrain { return constrain{f, v} }

// The fields of every format (docs/isa.md draws them).
var (
	fOp     = field{28, 4} // opcode class
	fRd     = field{23, 5} // destination / store data
	fRs1    = field{18, 5} // first source / base
	fF      = field{17, 1} // set flags (ALU); P (memory)
	fH      = field{16, 1} // high half (RI); I (RR condition); Q (memory)
	fImm16  = field{0, 16} // RI constant, RM offset, SLS/SLI low bits
	fRs2    = field{11, 5} // second source
	fBBB    = field{8, 3}  // RR/RRM operation
	fJ      = field{3, 5}  // RR/RRM special operation
	fJ2     = field{5, 1}  // bit 2 of J
	fLow3   = field{0, 3}  // RR condition DDD; RRM size YLE; SPECIAL op
	fPQ     = field{16, 2} // memory addressing mode
	fSpMid  = field{3, 14} // SPECIAL: must be zero
	fSub    = field{16, 2} // op 1111: 00 SLS load, 01 SLS store, 10 SLI, 11 SPLS
	fSpls   = field{15, 3} // SPLS: 110
	fYSE    = field{12, 3} // SPLS size, store, zero-extend
	fSplsPQ = field{10, 2} // SPLS addressing mode
	fImm10  = field{0, 10} // SPLS offset
	fBrCond = field{25, 3} // BR/BRR/SCC condition DDD
	fBit24  = field{24, 1} // BRR (1) or SCC (0)
	fBit23  = field{23, 1} // BRR/SCC: must be zero
	fBrAddr = field{2, 23} // BR target bits 24..2
	fBrOff  = field{2, 14} // BRR offset bits 15..2
	fSccMid = field{2, 16} // SCC: must be zero
	fBit1   = field{1, 1}  // BR (0) or BRR/SCC (1)
	fBit0   = field{0, 1}  // BR/BRR/SCC condition I
	fWhole  = field{0, 32} // the whole word
)

// constrain fixes a field to a value in a form's encoding.
type constrain struct {
	f field
	v uint32
}

// syntax says how a form is printed and parsed.
type syntax uint8

const (
	synReserved syntax = iota // a reserved encoding: the word is invalid
	synFixed                  // the whole text is the form's name
	synMovImm                 // mov K, %rd
	synRI                     // op[.f] %rs1, K, %rd
	synShiftImm               // sh[.f] %rs1, ±n, %rd
	synRR                     // op[.f][.cc] %rs1, %rs2, %rd
	synMovRR                  // mov %rs1, %rd
	synJR                     // bt %rs2
	synBrInd                  // b<cc> %rs1
	synBrIndAdd               // b<cc> %rs1 add %rs2
	synSel                    // sel.<cc> %rs1, %rs2, %rd
	synSpecial                // op %rs1, %rd
	synLoad                   // op <mem>, %rd
	synStore                  // op %rd, <mem>
	synSLI                    // mov K, %rd
	synBR                     // b<cc> target
	synBRR                    // b<cc>.r offset
	synSCC                    // s<cc> %rd
)

// FormID indexes the form table.
type FormID uint8

// form is one row of the instruction table: a set of encodings (the words w
// with w&mask == match) that share a class, a mnemonic and a syntax.
type form struct {
	name   string
	class  Class
	syntax syntax
	mask   uint32
	match  uint32
}

func mk(class Class, syn syntax, name string, cs ...constrain) form {
	f := form{name: name, class: class, syntax: syn}
	for _, c := range cs {
		f.mask |= c.f.mask()
		f.match |= c.f.put(c.v)
	}
	return f
}

// yle is the RRM size/extension field (Y, L, E bits) for each access kind.
var rrmLoads = []struct {
	name string
	yle  uint32
}{{"ld", 0b010}, {"uld", 0b011}, {"ld.h", 0b000}, {"uld.h", 0b001}, {"ld.b", 0b100}, {"uld.b", 0b101}}

var rrmStores = []struct {
	name string
	yle  uint32
}{{"st", 0b010}, {"st.h", 0b000}, {"st.b", 0b100}}

// splsOps are the SPLS rows, by the Y, S, E bits.
var splsOps = []struct {
	name string
	yse  uint32
	syn  syntax
}{
	{"ld.h", 0b000, synLoad}, {"uld.h", 0b001, synLoad}, {"st.h", 0b010, synStore},
	{"ld.b", 0b100, synLoad}, {"uld.b", 0b101, synLoad}, {"st.b", 0b110, synStore},
}

// retWord is "ld -4[%fp], %pc", the function return, which LLVM prints with a
// comment.
const retWord = 0x8116FFFC

// forms is the instruction table. Within one opcode class the first row that
// matches a word decides it, so specific rows (aliases) come before general
// ones. Row 0 stands for invalid words.
var forms = buildForms()

// byOp lists, for each value of the opcode field, the rows to try in order.
var byOp = func() (t [16][]FormID) {
	for i := 1; i < len(forms); i++ {
		f := forms[i]
		for op := uint32(0); op < 16; op++ {
			if f.mask&fOp.mask() == fOp.mask() && fOp.get(f.match) != op {
				continue
			}
			t[op] = append(t[op], FormID(i))
		}
	}
	return
}()

func buildForms() []form {
	t := []form{{name: "<unknown>", class: Invalid}}
	add := func(f ...form) { t = append(t, f...) }

	// RI: opcode 0AAA.
	add(mk(RI, synFixed, "nop", fWhole.is(0x00000001)))
	for i := uint32(0); i < 5; i++ {
		add(mk(RI, synFixed, "log_"+string(rune('0'+i)), fWhole.is(0x00000002+i)))
	}
	add(mk(RI, synMovImm, "mov", fOp.is(uint32(Add)), fRs1.is(uint32(R0)), fF.is(0)))
	add(mk(RI, synMovImm, "mov", fOp.is(uint32(And)), fRs1.is(uint32(R1)), fF.is(0)))
	add(mk(RI, synShiftImm, "", fOp.is(7)))
	for a := Add; a <= Xor; a++ {
		add(mk(RI, synRI, "", fOp.is(uint32(a))))
	}

	// RR: opcode 1100. Register jumps are "or" into pc; LLVM prints them as
	// branches.
	rr := fOp.is(0xC)
	toPC := []constrain{rr, fRd.is(uint32(PC)), fF.is(0), fBBB.is(uint32(Or)), fJ.is(0)}
	add(mk(RR, synJR, "bt", append(toPC, fRs1.is(0), fH.is(0), fLow3.is(0))...))
	add(mk(RR, synBrInd, "b", append(toPC, fRs2.is(0))...))
	add(mk(RR, synBrIndAdd, "b", toPC...))
	add(mk(RR, synMovRR, "mov", rr, fBBB.is(uint32(Add)), fJ.is(0), fF.is(0), fRs2.is(0), fH.is(0), fLow3.is(0)))
	add(mk(RR, synSel, "sel", rr, fBBB.is(7), fJ.is(0b00000), fF.is(0)))
	add(mk(RR, synRR, "sh", rr, fBBB.is(7), fJ.is(0b10000)))
	add(mk(RR, synRR, "sha", rr, fBBB.is(7), fJ.is(0b11000)))
	// Myricom's compilers set J = 10000 on register "or" (lanai9-hw.md
	// section 9) and "addc" (lanai-gcc 2.95's libgcc.a, docs/isa.md); LLVM
	// rejects these words, we accept them.
	add(mk(RR, synRR, "or", rr, fBBB.is(uint32(Or)), fJ.is(0b10000)))
	add(mk(RR, synRR, "addc", rr, fBBB.is(uint32(Addc)), fJ.is(0b10000)))
	for a := Add; a <= Xor; a++ {
		add(mk(RR, synRR, "", rr, fBBB.is(uint32(a)), fJ.is(0)))
	}

	// SPECIAL: opcode 1101.
	for a, name := range []string{"popc", "leadz", "trailz"} {
		add(mk(Special, synSpecial, name, fOp.is(0xD), fF.is(0), fSpMid.is(0), fLow3.is(uint32(a+1))))
	}

	// RM: opcode 100S.
	add(mk(RM, synFixed, "ld\t-4[%fp], %pc ! return", fWhole.is(retWord)))
	add(mk(RM, synLoad, "ld", fOp.is(0x8)))
	add(mk(RM, synStore, "st", fOp.is(0x9)))

	// RRM: opcode 101S.
	add(rrmRows()...)

	// op 1111: SLS, SLI, SPLS.
	add(mk(SLS, synLoad, "ld", fOp.is(0xF), fSub.is(0)))
	add(mk(SLS, synStore, "st", fOp.is(0xF), fSub.is(1)))
	add(mk(SLI, synSLI, "mov", fOp.is(0xF), fSub.is(2)))
	for _, s := range splsOps {
		add(mk(SPLS, s.syn, s.name, fOp.is(0xF), fSpls.is(0b110), fYSE.is(s.yse)))
	}

	// op 1110: BR, BRR, SCC.
	add(mk(BR, synBR, "b", fOp.is(0xE), fBit1.is(0)))
	add(mk(BRR, synBRR, "b", fOp.is(0xE), fBit1.is(1), fBit24.is(1), fBit23.is(0), fRs1.is(0), fSub.is(0)))
	add(mk(SCC, synSCC, "s", fOp.is(0xE), fBit1.is(1), fBit24.is(0), fBit23.is(0), fSccMid.is(0)))
	return t
}

// rrmRows are the RRM rows. With BBB = 111 (a shift address operation) LLVM
// reads bit 3 of J as "arithmetic" and requires bit 2 of J to be clear (it
// crashes otherwise); we treat those words as reserved. With any other
// operation J is ignored.
func rrmRows() []form {
	var t []form
	kinds := func(each func(op uint32, name string, yle uint32, syn syntax)) {
		for _, k := range rrmLoads {
			each(0xA, k.name, k.yle, synLoad)
		}
		for _, k := range rrmStores {
			each(0xB, k.name, k.yle, synStore)
		}
	}
	kinds(func(op uint32, name string, yle uint32, syn syntax) {
		t = append(t, mk(RRM, syn, name, fOp.is(op), fLow3.is(yle), fBBB.is(7), fJ2.is(0)))
	})
	for _, op := range []uint32{0xA, 0xB} {
		t = append(t, mk(Invalid, synReserved, "", fOp.is(op), fBBB.is(7)))
	}
	kinds(func(op uint32, name string, yle uint32, syn syntax) {
		t = append(t, mk(RRM, syn, name, fOp.is(op), fLow3.is(yle)))
	})
	return t
}
