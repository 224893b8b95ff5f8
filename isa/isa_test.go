package isa

import "testing"

func TestRegByName(t *testing.T) {
	for name, want := range map[string]Reg{"r0": 0, "r9": 9, "r10": 10, "r31": 31, "pc": 2, "sp": 4, "fp": 5, "rv": 8, "rr1": 10, "rr2": 11, "rca": 15} {
		if r, ok := RegByName(name); !ok || r != want {
			t.Errorf("RegByName(%q) = %v, %v; want %v", name, r, ok, want)
		}
	}
	for _, name := range []string{"r32", "r05", "R5", "r", "x1", "r1a", "sw", "r99", ""} {
		if r, ok := RegByName(name); ok {
			t.Errorf("RegByName(%q) = %v, want no register", name, r)
		}
	}
}

func TestCondHolds(t *testing.T) {
	// Each odd condition is the negation of the even one below it.
	for c := Cond(0); c < 16; c += 2 {
		for f := Flags(0); f < 16; f++ {
			if c.Holds(f) == (c + 1).Holds(f) {
				t.Errorf("%v and %v agree on flags %04b", c, c+1, f)
			}
		}
	}
	cases := []struct {
		c    Cond
		f    Flags
		want bool
	}{
		{CondT, 0, true}, {CondUGT, FlagC, true}, {CondUGT, FlagC | FlagZ, false},
		{CondULT, 0, true}, {CondULT, FlagC, false}, {CondEQ, FlagZ, true}, {CondNE, FlagZ, false},
		{CondGE, FlagN | FlagV, true}, {CondGE, FlagN, false}, {CondLT, FlagV, true},
		{CondGT, 0, true}, {CondGT, FlagZ, false}, {CondLE, FlagZ, true}, {CondMI, FlagN, true}, {CondVS, FlagV, true},
	}
	for _, tc := range cases {
		if got := tc.c.Holds(tc.f); got != tc.want {
			t.Errorf("%v.Holds(%04b) = %v, want %v", tc.c, tc.f, got, tc.want)
		}
	}
}

// Decoding and encoding allocate nothing: the emulator predecodes through them.
func TestDecodeAllocatesNothing(t *testing.T) {
	words := []uint32{0x03981234, 0xC3999706, 0x8116FFFC, 0xF39B4FFF, 0xE6001001, 0xA39A9002}
	n := testing.AllocsPerRun(100, func() {
		for _, w := range words {
			in := Decode(w)
			if _, err := Encode(in); err != nil {
				t.Fatal(err)
			}
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}
