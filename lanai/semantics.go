package lanai

import (
	"math/bits"

	"lanaiemu/isa"
)

// The semantics of the ALU operations, each said once, as a row of
// aluSemantics: Go expressions of the operands x and y and the carry flag
// cin (0 or 1) giving the result r, and of x, y, cin and r giving the flags
// the operation sets (docs/isa.md, "Semantics"). The generator (go
// generate; internal/opgen) reads this table and writes, for every row,
// the run loop's fast cases (RI and RR, with and without .f, conditional
// RR), the general dispatcher alu, the predecoder's tables (exec_gen.go),
// and the threaded loop's handlers on amd64 (run_gen_amd64.s, from the
// Asm columns): the expressions are pasted into the cases, so the fast
// path does not depend on what the compiler inlines. Select (RR only) and
// the SPECIAL counts are written in the loop's template
// (internal/opgen/exec.tmpl) and in special below.
var aluSemantics = []struct {
	Op       string // the isa.ALU constant
	Value    string // the result, from x, y and cin
	Flags    string // the flags, from x, y, cin and r
	ReadsC   bool   // the operation reads the carry flag
	RRKeepsC bool   // its RR form with .f keeps C (the RR logic operations)
	// The threaded run loop's handlers (amd64 assembly, run_amd64.h): Asm
	// is the x86 instruction computing r from x and y, "" leaving the
	// operation to Go; AsmFlags the macro setting the flags from x86's
	// after it, "" leaving the .f forms to Go; Shift marks a shift by a
	// signed amount, whose Asm is the right shift (amounts of 32 or more
	// are left to Go).
	Asm      string
	AsmFlags string
	Shift    bool
}{
	{Op: "Add", Value: "x + y", Flags: "addFlags(x, y, 0)", Asm: "ADDL", AsmFlags: "ARITHF(SETCS)"},
	{Op: "Addc", Value: "x + y + cin", Flags: "addFlags(x, y, cin)", ReadsC: true},
	{Op: "Sub", Value: "x - y", Flags: "addFlags(x, ^y, 1)", Asm: "SUBL", AsmFlags: "ARITHF(SETCC)"}, // C set when there is no borrow
	{Op: "Subb", Value: "x + ^y + cin", Flags: "addFlags(x, ^y, cin)", ReadsC: true},
	{Op: "And", Value: "x & y", Flags: "zn(r)", RRKeepsC: true, Asm: "ANDL", AsmFlags: "LOGICF"}, // C and V cleared (RI)
	{Op: "Or", Value: "x | y", Flags: "zn(r)", RRKeepsC: true, Asm: "ORL", AsmFlags: "LOGICF"},
	{Op: "Xor", Value: "x ^ y", Flags: "zn(r)", RRKeepsC: true, Asm: "XORL", AsmFlags: "LOGICF"},
	{Op: "Sh", Value: "shl(x, y)", Flags: "zn(r) | shiftCarry(x, y)", Asm: "SHRL", Shift: true},
	{Op: "Sha", Value: "sha(x, y)", Flags: "zn(r) | shiftCarry(x, y)", Asm: "SARL", Shift: true},
}

// addFlags gives the flags of x + y + cin: C the carry out, V a signed
// overflow.
func addFlags(x, y, cin uint32) isa.Flags {
	r, co := bits.Add32(x, y, cin)
	return isa.Flags(co<<3|((x^r)&(y^r))>>31<<2) | zn(r)
}

// shl is the logical shift of x by the signed amount y: left when
// positive, right when negative. Amounts of 32 or more (which clang's
// 64-bit shifts execute and then discard) give 0: Go's shifts do the same,
// and a negative amount converted to uint is huge.
func shl(x, y uint32) uint32 {
	if int32(y) < 0 {
		return x >> uint(-int32(y))
	}
	return x << y
}

// sha is the arithmetic shift: right shifts fill with the sign bit (all of
// it for amounts of 32 or more).
func sha(x, y uint32) uint32 {
	if int32(y) < 0 {
		return uint32(int32(x) >> uint(-int32(y)))
	}
	return x << y
}

// shiftCarry is C after a shift: the last bit shifted out of a left shift,
// and clear otherwise.
func shiftCarry(x, y uint32) isa.Flags {
	if int32(y) < 0 {
		return 0
	}
	return isa.Flags(x>>uint(32-int32(y))&1) << 3
}

// zn gives the Z and N flags of a result.
func zn(r uint32) isa.Flags { return isa.Flags(r>>31<<1) | z(r) }

// z gives the Z flag of a result.
func z(r uint32) isa.Flags {
	if r == 0 {
		return isa.FlagZ
	}
	return 0
}

// special computes popc, leadz and trailz (leadz 0 = trailz 0 = 32, as
// LLVM's mapping of ctlz/cttz requires).
func special(a isa.ALU, x uint32) uint32 {
	switch a {
	case isa.Popc:
		return uint32(bits.OnesCount32(x))
	case isa.Leadz:
		return uint32(bits.LeadingZeros32(x))
	default:
		return uint32(bits.TrailingZeros32(x))
	}
}
