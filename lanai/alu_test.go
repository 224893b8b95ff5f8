package lanai

import (
	"testing"

	"lanaiemu/isa"
)

// The flags of add and sub against their definitions in integer
// arithmetic: C is the carry out of add and "no borrow" for sub, V a signed
// result out of range.
func TestAddSubFlags(t *testing.T) {
	vals := []uint32{0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0x12345678}
	flags := func(r uint32, c bool, s int64) isa.Flags {
		f := zn(r)
		if c {
			f |= isa.FlagC
		}
		if s < -1<<31 || s >= 1<<31 {
			f |= isa.FlagV
		}
		return f
	}
	for _, x := range vals {
		for _, y := range vals {
			sx, sy := int64(int32(x)), int64(int32(y))
			if r, f := alu(isa.Add, x, y, false); r != x+y || f != flags(x+y, uint64(x)+uint64(y) > 0xffffffff, sx+sy) {
				t.Errorf("%#x + %#x: %#x %04b", x, y, r, f)
			}
			if r, f := alu(isa.Sub, x, y, false); r != x-y || f != flags(x-y, x >= y, sx-sy) {
				t.Errorf("%#x - %#x: %#x %04b", x, y, r, f)
			}
			if r, f := alu(isa.Addc, x, y, true); r != x+y+1 || f != flags(x+y+1, uint64(x)+uint64(y)+1 > 0xffffffff, sx+sy+1) {
				t.Errorf("%#x + %#x + 1: %#x %04b", x, y, r, f)
			}
			r1, f1 := alu(isa.Sub, x, y, false)
			if r, f := alu(isa.Subb, x, y, true); r != r1 || f != f1 {
				t.Errorf("subb %#x, %#x with carry: %#x %04b, sub gives %#x %04b", x, y, r, f, r1, f1)
			}
		}
	}
}
