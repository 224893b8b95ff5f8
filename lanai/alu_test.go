package lanai

import (
	"testing"

	"lanaiemu/isa"
)

// subFlags is alu(Sub) without the dispatch: they must agree everywhere.
func TestSubFlagsAgreesWithALU(t *testing.T) {
	vals := []uint32{0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0x12345678}
	for _, x := range vals {
		for _, y := range vals {
			r1, f1 := alu(isa.Sub, x, y, false)
			r2, f2 := subFlags(x, y)
			if r1 != r2 || f1 != f2 {
				t.Errorf("%#x - %#x: alu %#x %04b, subFlags %#x %04b", x, y, r1, f1, r2, f2)
			}
		}
	}
}
