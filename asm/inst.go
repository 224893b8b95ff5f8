package asm

import (
	"encoding/binary"
	"fmt"
	"strings"

	"lanaiemu/isa"
	"lanaiemu/objfile"
)

// immUse says how an instruction's expression operand is encoded.
type immUse uint8

const (
	useNone    immUse = iota
	useRI             // RI second operand (constant, hi() or lo())
	useMov            // mov K, %rd: RI from r0/r1, or SLI
	useShift          // RI shift amount
	useMemOff         // RM offset (constant or lo())
	useSplsOff        // SPLS offset (constant)
	useAbsMem         // [expr]: SLS, or RM/SPLS based on r0
	useBR             // absolute branch target
	useBRR            // relative branch offset (constant)
)

// instSpec is a parsed instruction waiting for its expression's value.
type instSpec struct {
	in    isa.Inst
	imm   *expr
	use   immUse
	pre   bool // memory: pre-modify requested
	post  bool // memory: post-modify requested
	regOf bool // memory: register offset (RRM)
}

type fixKind uint8

const (
	fixData fixKind = iota
	fixInst
)

// fixup is a value to patch into a section once every symbol is known.
type fixup struct {
	kind fixKind
	size uint8 // fixData
	col  int32
	off  uint32
	e    *expr // fixData
	line *srcLine
	inst instSpec
}

// pos is the position the fixup reports errors at.
func (f *fixup) pos() Pos {
	return Pos{File: f.line.pos.File, Line: f.line.pos.Line, Col: int(f.col)}
}

func (a *assembler) addFixup(f fixup) {
	f.off = a.cur.offset()
	f.line = a.linePtr
	a.cur.fixups = append(a.cur.fixups, f)
}

// operand is a parsed instruction operand.
type operand struct {
	kind  opKind
	reg   isa.Reg
	e     *expr
	mem   memOp
	col   int32   // column of the operand's first token
	reg2  isa.Reg // "%rA add %rB" branch form
	isAdd bool
}

type opKind uint8

const (
	opReg opKind = iota
	opImm
	opMem
)

type memOp struct {
	abs    bool // [expr]
	base   isa.Reg
	regOff bool
	offReg isa.Reg
	off    *expr // nil: zero
	incr   int   // ++ (+1) or -- (-1): offset is the access size
	alu    isa.ALU
	pre    bool
	post   bool
}

// parseReg reads "%name" or a bare register name.
func (p *parser) parseReg() (isa.Reg, bool, error) {
	t := p.peek()
	if t.is("%") {
		p.next()
		n := p.next()
		r, ok := isa.RegByName(n.text)
		if n.kind != tIdent || !ok {
			return 0, false, p.errAt(n, "unknown register %%%s", n.text)
		}
		return r, true, nil
	}
	if t.kind == tIdent {
		if r, ok := isa.RegByName(t.text); ok {
			p.next()
			return r, true, nil
		}
	}
	return 0, false, nil
}

// parseOperand reads one operand.
func (p *parser) parseOperand() (operand, error) {
	start := p.peek()
	op := operand{col: int32(start.col)}
	r, isReg, err := p.parseReg()
	if err != nil {
		return op, err
	}
	var off *expr
	if !isReg && !p.peek().is("[") {
		if off, err = p.parseExpr(); err != nil {
			return op, err
		}
	}
	if !p.peek().is("[") {
		if isReg {
			op.kind, op.reg = opReg, r
			// "b<cc> %rA add %rB"
			if t := p.peek(); t.kind == tIdent && t.text == "add" {
				p.next()
				r2, ok, err := p.parseReg()
				if err != nil {
					return op, err
				}
				if !ok {
					return op, p.errAt(p.peek(), "expected a register after 'add'")
				}
				op.reg2, op.isAdd = r2, true
			}
			return op, nil
		}
		op.kind, op.e = opImm, off
		return op, nil
	}
	p.next() // '['
	op.kind = opMem
	m := &op.mem
	if isReg {
		m.regOff, m.offReg = true, r
	}
	m.off = off
	m.alu = isa.Add
	m.pre = p.parsePrePost(m)
	base, ok, err := p.parseReg()
	if err != nil {
		return op, err
	}
	if !ok {
		if isReg || off != nil || m.pre {
			return op, p.errAt(p.peek(), "expected a base register, found %v", p.peek())
		}
		e, err := p.parseExpr()
		if err != nil {
			return op, err
		}
		m.abs, m.off = true, e
		return op, p.expect("]")
	}
	m.base = base
	if !m.pre {
		m.post = p.parsePrePost(m)
	}
	if p.accept("]") {
		return op, nil
	}
	// "[%rB op %rO]"
	if isReg || off != nil || m.incr != 0 {
		return op, p.errAt(p.peek(), "expected ']', found %v", p.peek())
	}
	t := p.next()
	alu, ok := isa.ALUByName(t.text)
	if t.text == "srl" {
		alu, ok = isa.Sh, true
	}
	if t.kind != tIdent || !ok || alu > isa.Sha {
		return op, p.errAt(t, "expected an address operation (add, addc, sub, subb, and, or, xor, sh, sha), found %v", t)
	}
	r2, ok, err := p.parseReg()
	if err != nil {
		return op, err
	}
	if !ok {
		return op, p.errAt(p.peek(), "expected an offset register, found %v", p.peek())
	}
	m.alu, m.regOff, m.offReg = alu, true, r2
	return op, p.expect("]")
}

// parsePrePost reads '*', '++' or '--' around a base register.
func (p *parser) parsePrePost(m *memOp) bool {
	t := p.peek()
	if t.is("*") {
		p.next()
		return true
	}
	if (t.is("+") || t.is("-")) && p.i+1 < len(p.toks) && p.toks[p.i+1].is(t.text) {
		p.next()
		p.next()
		m.incr = 1
		if t.text == "-" {
			m.incr = -1
		}
		return true
	}
	return false
}

// instruction parses an instruction and reserves its word.
func (a *assembler) instruction(p *parser, t token) error {
	mn := strings.ToLower(t.text)
	ops := make([]operand, 0, 4)
	if len(a.exprSlab) < 64 {
		a.exprSlab = make([]expr, 1024)
	}
	slab := a.exprSlab // to give back the expression nodes of constant operands
	for !p.atEnd() {
		o, err := p.parseOperand()
		if err != nil {
			return err
		}
		ops = append(ops, o)
		if !p.accept(",") {
			if !p.atEnd() {
				return p.errAt(p.peek(), "unexpected %v after operand", p.peek())
			}
			break
		}
	}
	spec, err := a.buildInst(p, t, mn, ops)
	if err != nil {
		return err
	}
	if a.cur.nobits() {
		return p.errAt(t, "instruction in section %s, which has no contents (nobits)", a.cur.name)
	}
	if a.cur.offset()%4 != 0 {
		// llvm-mc places it there too; the LANai cannot fetch it.
		a.warnf(p.at(t), "instruction at offset %#x of %s is not word-aligned; the LANai cannot execute it", a.cur.offset(), a.cur.name)
	}
	if a.opt.LineInfo {
		pos := a.line.pos
		if n := len(a.calls); n > 0 {
			pos = a.calls[0] // a macro's instructions belong to its invocation
		}
		a.lineInfo = append(a.lineInfo, lineEntry{a.cur, a.cur.offset(), pos})
	}
	a.lineRow()
	f := fixup{kind: fixInst, inst: spec, col: int32(t.col), off: a.cur.offset(), line: a.linePtr}
	// An instruction whose operand is already a constant is encoded now;
	// the others wait until every symbol is defined.
	if spec.imm == nil || spec.imm.isConstant() {
		a.emit(0, 0, 0, 0)
		a.resolveNow(a.cur, &f)
		a.exprSlab = slab // nothing refers to this instruction's expressions any more
		return nil
	}
	a.addFixup(f)
	a.emit(0, 0, 0, 0)
	return nil
}

// shape checks operand kinds.
func shape(p *parser, t token, ops []operand, kinds ...opKind) error {
	if len(ops) != len(kinds) {
		return p.errAt(t, "%s takes %d operands, got %d", t.text, len(kinds), len(ops))
	}
	names := [...]string{"a register", "an immediate", "a memory operand"}
	for i, k := range kinds {
		if ops[i].kind != k {
			return p.errCol(ops[i].col, "operand %d of %s must be %s", i+1, t.text, names[k])
		}
		if ops[i].isAdd {
			return p.errCol(ops[i].col, "'add' register form is only valid in a register branch")
		}
	}
	return nil
}

// pickMnemonic chooses among a mnemonic's meanings the first whose
// operand count fits ("st %r3" is "set if true", "st %r3, [%r4]" a store),
// or the first meaning, whose check then reports the operands.
func pickMnemonic(ms []isa.Mnemonic, nops int) (isa.Mnemonic, bool) {
	for _, m := range ms {
		if m.Operands.Count() == nops {
			return m, true
		}
	}
	if len(ms) == 0 {
		return isa.Mnemonic{}, false
	}
	return ms[0], true
}

// buildInst turns a mnemonic and operands into an instruction spec. The
// mnemonic's meaning comes from package isa's table; this function reads
// the operands and picks the encoding.
func (a *assembler) buildInst(p *parser, t token, mn string, ops []operand) (instSpec, error) {
	var s instSpec
	in := &s.in
	m, ok := pickMnemonic(isa.LookupMnemonic(mn), len(ops))
	if !ok {
		if c, sel := strings.CutPrefix(mn, "sel."); sel {
			return s, p.errAt(t, "unknown condition %q in %s", c, t.text)
		}
		return s, p.errAt(t, "unknown instruction %q", t.text)
	}
	switch m.Operands {
	case isa.OpsNone:
		*in = m.Inst
		return s, shape(p, t, ops)
	case isa.OpsSpecial:
		if err := shape(p, t, ops, opReg, opReg); err != nil {
			return s, err
		}
		*in = m.Inst
		in.Rs1, in.Rd = ops[0].reg, ops[1].reg
		return s, nil
	case isa.OpsMov:
		if len(ops) == 2 && ops[0].kind == opReg {
			if err := shape(p, t, ops, opReg, opReg); err != nil {
				return s, err
			}
			*in = isa.Inst{Class: isa.RR, ALU: isa.Add, Rs1: ops[0].reg, Rd: ops[1].reg}
			return s, nil
		}
		if err := shape(p, t, ops, opImm, opReg); err != nil {
			return s, err
		}
		*in = isa.Inst{Rd: ops[1].reg}
		s.imm, s.use = ops[0].e, useMov
		return s, nil
	case isa.OpsSel:
		if err := shape(p, t, ops, opReg, opReg, opReg); err != nil {
			return s, err
		}
		*in = m.Inst
		in.Rs1, in.Rs2, in.Rd = ops[0].reg, ops[1].reg, ops[2].reg
		return s, nil
	case isa.OpsLoad, isa.OpsStore:
		return a.buildMem(p, t, m.Inst, ops)
	case isa.OpsALU:
		return a.buildALU(p, t, m.Inst, ops)
	case isa.OpsBranch, isa.OpsBranchRel:
		return a.buildBranch(p, t, m.Inst.Cond, m.Operands == isa.OpsBranchRel, ops)
	case isa.OpsSetCC:
		return a.buildSCC(p, t, m.Inst.Cond, ops)
	}
	return s, p.errAt(t, "internal error: mnemonic %q has operand form %d", t.text, m.Operands)
}

// buildALU builds op[.f][.cc] with a register (RR) or a constant (RI)
// second operand.
func (a *assembler) buildALU(p *parser, t token, op isa.Inst, ops []operand) (instSpec, error) {
	var s instSpec
	alu, f, cc := op.ALU, op.F, op.Cond
	// clang -O0 sometimes prints r0 as the constant 0x0 in the first
	// operand ("add 0x0, 0x222, %r9"); read it as r0.
	if len(ops) == 3 && ops[0].kind == opImm && ops[0].e.op == eNum && ops[0].e.val == 0 {
		ops[0].kind, ops[0].reg = opReg, isa.R0
	}
	if len(ops) == 3 && ops[1].kind == opReg {
		if err := shape(p, t, ops, opReg, opReg, opReg); err != nil {
			return s, err
		}
		s.in = isa.Inst{Class: isa.RR, ALU: alu, F: f, Cond: cc, Rs1: ops[0].reg, Rs2: ops[1].reg, Rd: ops[2].reg}
		return s, nil
	}
	if err := shape(p, t, ops, opReg, opImm, opReg); err != nil {
		return s, err
	}
	if cc != isa.CondT {
		return s, p.errAt(t, "a conditional %s needs a register second operand", t.text)
	}
	s.in = isa.Inst{Class: isa.RI, ALU: alu, F: f, Rs1: ops[0].reg, Rd: ops[2].reg}
	s.imm, s.use = ops[1].e, useRI
	if alu == isa.Sh || alu == isa.Sha {
		s.use = useShift
	}
	return s, nil
}

func (a *assembler) buildSCC(p *parser, t token, cc isa.Cond, ops []operand) (instSpec, error) {
	if err := shape(p, t, ops, opReg); err != nil {
		return instSpec{}, err
	}
	return instSpec{in: isa.Inst{Class: isa.SCC, Cond: cc, Rd: ops[0].reg}}, nil
}

func (a *assembler) buildBranch(p *parser, t token, cc isa.Cond, rel bool, ops []operand) (instSpec, error) {
	var s instSpec
	if len(ops) != 1 {
		return s, p.errAt(t, "%s takes 1 operand, got %d", t.text, len(ops))
	}
	o := ops[0]
	switch {
	case rel:
		if o.kind != opImm {
			return s, p.errCol(o.col, "a relative branch takes a constant offset")
		}
		s.in = isa.Inst{Class: isa.BRR, Cond: cc}
		s.imm, s.use = o.e, useBRR
	case o.kind == opReg && o.isAdd:
		s.in = isa.Inst{Class: isa.RR, ALU: isa.Or, Cond: cc, Rs1: o.reg, Rs2: o.reg2, Rd: isa.PC}
	case o.kind == opReg && cc == isa.CondT:
		s.in = isa.Inst{Class: isa.RR, ALU: isa.Or, Rs2: o.reg, Rd: isa.PC}
	case o.kind == opReg:
		s.in = isa.Inst{Class: isa.RR, ALU: isa.Or, Cond: cc, Rs1: o.reg, Rd: isa.PC}
	case o.kind == opImm:
		s.in = isa.Inst{Class: isa.BR, Cond: cc}
		s.imm, s.use = o.e, useBR
	default:
		return s, p.errCol(o.col, "a branch target must be a label, an address or a register")
	}
	return s, nil
}

// buildMem builds a load or store; acc gives Store, Size and Zext.
func (a *assembler) buildMem(p *parser, t token, acc isa.Inst, ops []operand) (instSpec, error) {
	var s instSpec
	var m memOp
	var rd isa.Reg
	if acc.Store {
		if err := shape(p, t, ops, opReg, opMem); err != nil {
			return s, err
		}
		rd, m = ops[0].reg, ops[1].mem
	} else {
		if err := shape(p, t, ops, opMem, opReg); err != nil {
			return s, err
		}
		m, rd = ops[0].mem, ops[1].reg
	}
	s.in = isa.Inst{Rd: rd, Store: acc.Store, Size: acc.Size, Zext: acc.Zext}
	s.pre, s.post = m.pre, m.post
	switch {
	case m.abs:
		s.imm, s.use = m.off, useAbsMem
	case m.regOff:
		s.in.Class, s.in.Rs1, s.in.Rs2, s.in.ALU = isa.RRM, m.base, m.offReg, m.alu
		s.regOf = true
		nonzero := m.offReg != isa.R0
		s.in.Mode = pqMode(m.pre, m.post, nonzero, false)
		if s.in.Mode == isa.ModeBase {
			s.in.Rs2 = 0
		}
	default:
		s.in.Rs1 = m.base
		s.in.Class, s.use = isa.RM, useMemOff
		s.in.Zext = false // RM "uld" is "ld"
		if acc.Size != isa.Word {
			s.in.Class, s.use, s.in.Zext = isa.SPLS, useSplsOff, acc.Zext
		}
		s.imm = m.off
		if m.incr != 0 {
			s.imm = a.newExpr(expr{op: eNum, val: int64(m.incr) * int64(acc.Size), pos: p.at(t)})
		}
		if s.imm == nil {
			s.imm = a.newExpr(expr{op: eNum, pos: p.at(t)})
		}
	}
	return s, nil
}

// pqMode is LLVM's rule for the P and Q bits: P is set unless the access is
// post-modify or the offset is a constant zero (or r0); Q is set for pre- or
// post-modify with a non-zero offset. A symbolic offset sets P but not Q.
func pqMode(pre, post, nonzero, symbolic bool) isa.Mode {
	var m isa.Mode
	if !post && (nonzero || symbolic) {
		m |= 2
	}
	if (pre || post) && nonzero {
		m |= 1
	}
	return m
}

// resolve patches one fixup.
func (a *assembler) resolve(s *section, f *fixup) {
	saved := a.line
	a.line = *f.line
	a.resolveNow(s, f)
	a.line = saved
}

// resolveNow patches a fixup whose values can be computed.
func (a *assembler) resolveNow(s *section, f *fixup) {
	if f.kind == fixData {
		a.resolveData(s, f)
		return
	}
	in, rel, err := a.finishInst(f)
	if err != nil {
		a.report(err, f.pos())
		return
	}
	w, err := isa.Encode(in)
	if err != nil {
		pos := f.pos()
		if f.inst.imm != nil {
			pos = f.inst.imm.pos
		}
		a.errorf(pos, "%s", err.Error())
		return
	}
	if rel.typ != objfile.R_LANAI_NONE {
		w &^= relocFieldMask[rel.typ]
		rel.off = f.off
		a.addReloc(s, &rel, f.inst.imm.pos)
	}
	binary.BigEndian.PutUint32(s.data[f.off:], w)
}

// relocFieldMask is the part of an instruction word a relocation fills.
var relocFieldMask = map[objfile.RelocType]uint32{
	objfile.R_LANAI_21: 0x007CFFFF, objfile.R_LANAI_25: 0x01FFFFFC,
	objfile.R_LANAI_HI16: 0xFFFF, objfile.R_LANAI_LO16: 0xFFFF,
}

// addReloc records a relocation; pos is the place of the expression that
// needs it.
func (a *assembler) addReloc(s *section, r *reloc, pos Pos) {
	if sym := r.sym; !sym.defined && !sym.common && (sym.temp || strings.HasPrefix(sym.name, ".L")) {
		// As llvm-mc: an assembler-local label must be defined in this
		// file; left undefined it would become an external reference.
		if sym.temp {
			n, _, _ := strings.Cut(strings.TrimPrefix(sym.name, ".L"), "$")
			a.errorf(pos, "local label %sf is not defined: no %s: follows", n, n)
		} else {
			a.errorf(pos, "undefined temporary symbol %s (.L labels are local to the file)", sym.name)
		}
		return
	}
	r.sym.inReloc = true
	// Like LLVM's Lanai target, only LO16 relocations against local
	// symbols are made against the section.
	if r.typ == objfile.R_LANAI_LO16 && r.sym.defined && r.sym.sect != nil && r.sym.bind == objfile.STB_LOCAL && !r.sym.common {
		if !(r.sym.sect.flags&objfile.SHF_MERGE != 0 && r.addend != 0) {
			r.sect, r.addend = r.sym.sect, r.addend+int64(r.sym.off)
		}
	}
	s.relocs = append(s.relocs, *r)
}

func fitsInt(v int64, bits uint) bool { return v >= -1<<(bits-1) && v < 1<<(bits-1) }

// finishInst completes an instruction once its expression can be evaluated.
func (a *assembler) finishInst(f *fixup) (isa.Inst, reloc, error) {
	s := f.inst
	in := s.in
	if s.imm == nil {
		return in, reloc{}, nil
	}
	v, err := a.eval(s.imm)
	if err != nil {
		return in, reloc{}, err
	}
	e := s.imm
	symRel := func(t objfile.RelocType) reloc { return reloc{typ: t, sym: v.sym, addend: v.off} }
	if v.isConst() && (v.off < -1<<31 || v.off >= 1<<32) {
		return in, reloc{}, evalError(e, "value %#x does not fit in 32 bits", v.off)
	}
	k := uint32(v.off)
	switch s.use {
	case useRI, useMov:
		if s.use == useMov {
			in.Class, in.ALU, in.Rs1 = isa.RI, isa.Add, isa.R0
		}
		switch {
		case v.isConst() && s.use == useMov:
			return movConst(in, k, e)
		case v.isConst():
			in.Imm = k
			return in, reloc{}, nil
		case in.ALU == isa.And:
			return in, reloc{}, evalError(e, "and takes a constant immediate, not a relocation")
		case v.variant == eHi:
			in.Imm = 0xFFFF0000 // selects the high half; the relocation fills it
			return in, symRel(objfile.R_LANAI_HI16), nil
		case v.variant == eLo:
			in.Imm = 0
			return in, symRel(objfile.R_LANAI_LO16), nil
		case s.use == useMov:
			in = isa.Inst{Class: isa.SLI, Rd: in.Rd}
			return in, symRel(objfile.R_LANAI_21), nil
		}
		return in, reloc{}, evalError(e, "a symbolic immediate must be written hi(%s) or lo(%s)", v.sym.name, v.sym.name)
	case useShift:
		if !v.isConst() {
			return in, reloc{}, evalError(e, "shift amount must be a constant")
		}
		if int32(k) < -31 || int32(k) > 31 {
			return in, reloc{}, evalError(e, "shift amount %d out of range -31..31", int32(k))
		}
		in.Imm = k
		return in, reloc{}, nil
	case useMemOff, useSplsOff:
		bits := uint(16)
		if s.use == useSplsOff {
			bits = 10
		}
		if !v.isConst() {
			if v.variant != eLo || s.use == useSplsOff {
				return in, reloc{}, evalError(e, "memory offset must be a constant%s", map[bool]string{true: "", false: " or lo(symbol)"}[s.use == useSplsOff])
			}
			in.Mode, in.Imm = pqMode(s.pre, s.post, false, true), 0
			return in, symRel(objfile.R_LANAI_LO16), nil
		}
		if !fitsInt(int64(int32(k)), bits) {
			return in, reloc{}, evalError(e, "offset %d out of range %d..%d", int32(k), -1<<(bits-1), 1<<(bits-1)-1)
		}
		in.Mode = pqMode(s.pre, s.post, k != 0, false)
		if in.Mode != isa.ModeBase {
			in.Imm = k
		}
		return in, reloc{}, nil
	case useAbsMem:
		if in.Size != isa.Word {
			if !v.isConst() || !fitsInt(int64(int32(k)), 10) {
				return in, reloc{}, evalError(e, "a part-word access to an absolute address needs a constant in -512..511")
			}
			in.Class, in.Rs1, in.Mode, in.Imm = isa.SPLS, isa.R0, pqMode(false, false, k != 0, false), k
			if k == 0 {
				in.Imm = 0
			}
			return in, reloc{}, nil
		}
		switch {
		case v.isConst() && k%4 == 0 && k <= 0x1FFFFF:
			in.Class, in.Imm = isa.SLS, k
			return in, reloc{}, nil
		case v.isConst() && fitsInt(int64(int32(k)), 16):
			in.Class, in.Rs1, in.Mode, in.Imm = isa.RM, isa.R0, isa.ModeOffset, k
			return in, reloc{}, nil
		case v.isConst():
			return in, reloc{}, evalError(e, "memory address %#x is not word-aligned below 0x200000 and does not fit a 16-bit offset from r0", k)
		case v.variant == eNum:
			in.Class, in.Imm = isa.SLS, 0
			return in, symRel(objfile.R_LANAI_21), nil
		case v.variant == eLo:
			in.Class, in.Rs1, in.Mode, in.Imm = isa.RM, isa.R0, isa.ModeOffset, 0
			return in, symRel(objfile.R_LANAI_LO16), nil
		}
		return in, reloc{}, evalError(e, "hi() cannot address memory")
	case useBR:
		if v.variant != eNum {
			return in, reloc{}, evalError(e, "a branch target cannot use hi() or lo()")
		}
		if v.isConst() {
			if k%4 != 0 || k >= 1<<25 {
				return in, reloc{}, evalError(e, "branch target %#x must be word-aligned and below 0x2000000", k)
			}
			in.Imm = k
			return in, reloc{}, nil
		}
		return in, symRel(objfile.R_LANAI_25), nil
	case useBRR:
		if !v.isConst() {
			return in, reloc{}, evalError(e, "a relative branch takes a constant offset")
		}
		if v.off < -32768 || v.off > 0xFFFF {
			return in, reloc{}, evalError(e, "relative branch offset %d out of range -32768..65535", v.off)
		}
		// As llvm-mc does, the low two bits are dropped: the word holds the
		// offset in words.
		in.Imm = uint32(int32(int16(uint16(v.off)))) &^ 3
		return in, reloc{}, nil
	}
	return in, reloc{}, fmt.Errorf("internal error: unknown operand use %d", s.use)
}

// movConst picks the encoding llvm-mc picks for "mov K, %rd".
func movConst(in isa.Inst, k uint32, e *expr) (isa.Inst, reloc, error) {
	in.Class, in.Imm = isa.RI, k
	switch {
	case k&0xFFFF == 0xFFFF:
		in.ALU, in.Rs1 = isa.And, isa.R1
	case k != 0 && k&0xFFFF == 0, k < 0x10000:
		in.ALU, in.Rs1 = isa.Add, isa.R0
	case k >= 0xFFFF0000:
		in.ALU, in.Rs1 = isa.And, isa.R1
	case k < 0x200000:
		in = isa.Inst{Class: isa.SLI, Rd: in.Rd, Imm: k}
	default:
		return in, reloc{}, evalError(e, "constant %#x cannot be loaded by one mov: use mov hi(K) and or lo(K)", k)
	}
	return in, reloc{}, nil
}

// resolveData patches a data directive's value.
func (a *assembler) resolveData(s *section, f *fixup) {
	v, err := a.eval(f.e)
	if err != nil {
		a.report(err, f.pos())
		return
	}
	if !v.isConst() {
		if f.size != 4 || v.variant != eNum {
			a.errorf(f.pos(), "only a 4-byte value (.long) can hold a symbol's address")
			return
		}
		if s.nobits() {
			a.errorf(f.pos(), "the address of %s cannot be stored in section %s, which has no contents (nobits)", v.sym.name, s.name)
			return
		}
		a.addReloc(s, &reloc{off: f.off, typ: objfile.R_LANAI_32, sym: v.sym, addend: v.off}, f.pos())
		return
	}
	size := int(f.size)
	bits := uint(8 * size)
	if bits < 64 && (v.off < -1<<(bits-1) || v.off >= 1<<bits) {
		a.errorf(f.pos(), "value %d does not fit in %d bytes", v.off, size)
		return
	}
	if s.nobits() {
		if v.off != 0 {
			a.errorf(f.pos(), "non-zero data in section %s, which has no contents (nobits)", s.name)
		}
		return
	}
	for i := 0; i < size; i++ {
		s.data[int(f.off)+i] = byte(uint64(v.off) >> (8 * (size - 1 - i)))
	}
}
