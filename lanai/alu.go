package lanai

import (
	"math/bits"

	"lanaiemu/isa"
)

// alu computes an ALU operation and the flags it would set (docs/isa.md,
// "Semantics"). c is the carry flag going in. For and, or and xor the
// returned carry is cleared; callers that keep C (RR logic) ignore it.
func alu(a isa.ALU, x, y uint32, c bool) (r uint32, f isa.Flags) {
	var carry, overflow bool
	switch a {
	case isa.Add, isa.Addc, isa.Sub, isa.Subb:
		b := y
		if a == isa.Sub || a == isa.Subb {
			b = ^y // a - b = a + ~b + 1; C is "no borrow"
		}
		cin := uint32(0)
		switch {
		case a == isa.Sub, a == isa.Addc && c, a == isa.Subb && c:
			cin = 1
		}
		var co uint32
		r, co = bits.Add32(x, b, cin)
		carry = co != 0
		overflow = (x^r)&(b^r)>>31 != 0
	case isa.And:
		r = x & y
	case isa.Or:
		r = x | y
	case isa.Xor:
		r = x ^ y
	case isa.Sh, isa.Sha:
		r, carry = shift(x, int32(y), a == isa.Sha)
	}
	if r == 0 {
		f |= isa.FlagZ
	}
	if r>>31 != 0 {
		f |= isa.FlagN
	}
	if overflow {
		f |= isa.FlagV
	}
	if carry {
		f |= isa.FlagC
	}
	return r, f
}

// shift shifts x by n: left for n > 0, right for n < 0, arithmetic right
// when arith. Amounts of 32 or more (which clang's 64-bit shifts execute and
// then discard) give 0, or the sign fill for arithmetic right shifts. The
// carry is the last bit shifted out of a left shift, and clear otherwise.
func shift(x uint32, n int32, arith bool) (uint32, bool) {
	switch {
	case n == 0:
		return x, false
	case n > 0 && n < 32:
		return x << uint(n), x>>(32-uint(n))&1 != 0
	case n > 0:
		return 0, n == 32 && x&1 != 0
	case n > -32:
		if arith {
			return uint32(int32(x) >> uint(-n)), false
		}
		return x >> uint(-n), false
	case arith:
		return uint32(int32(x) >> 31), false
	}
	return 0, false
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

// subFlags is sub.f: x - y and its flags (C set when there is no borrow),
// the same as alu(isa.Sub, x, y, _) without the dispatch.
func subFlags(x, y uint32) (uint32, isa.Flags) {
	r, borrow := bits.Sub32(x, y, 0)
	f := isa.Flags(borrow^1) << 3 // FlagC
	if r == 0 {
		f |= isa.FlagZ
	}
	f |= isa.Flags(r>>31) << 1 // FlagN
	f |= isa.Flags(((x^y)&(x^r))>>31) << 2
	return r, f
}
