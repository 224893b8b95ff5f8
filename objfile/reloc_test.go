package objfile

import (
	"errors"
	"strings"
	"testing"
)

// Expected words are computed by hand from the isa.md §5.2 formulas; two
// are cross-checked against llvm-mc encodings (crt0.s: "st %rv, [0x1ffffc]"
// is 0xf47dfffc and its unrelocated form 0xf4010000; "bt 0x40" is
// 0xe0000040).
func TestApply(t *testing.T) {
	tests := []struct {
		typ   RelocType
		word  uint32
		value uint32
		want  uint32
	}{
		{R_LANAI_NONE, 0x12345678, 0xffffffff, 0x12345678},
		{R_LANAI_21, 0xf4010000, 0x1ffffc, 0xf47dfffc},
		{R_LANAI_21, 0xf2020000, 0, 0xf2020000},
		{R_LANAI_21, 0xf27dffff, 0x10002, 0xf2050002}, // old field bits cleared, bit 16 kept
		{R_LANAI_21, 0xf2020000, 0x1fffff, 0xf27effff},
		{R_LANAI_21_F, 0xf2020003, 0x12345, 0xf2062347},
		{R_LANAI_21_F, 0xf2020000, 0x1ffffc, 0xf27efffc},
		{R_LANAI_25, 0xe0000000, 0x40, 0xe0000040},
		{R_LANAI_25, 0xee000001, 0x44, 0xee000045}, // ble keeps its low bit
		{R_LANAI_25, 0xe1fffffc, 0x8, 0xe0000008},
		{R_LANAI_25, 0xe0000000, 0x1fffffc, 0xe1fffffc},
		{R_LANAI_32, 0xdeadbeef, 0x12345678, 0x12345678},
		{R_LANAI_HI16, 0x01810000, 0x12345678, 0x01811234},
		{R_LANAI_HI16, 0x0181ffff, 0xfffe0000, 0x0181fffe},
		{R_LANAI_LO16, 0x518c0000, 0x12345678, 0x518c5678},
		{R_LANAI_LO16, 0x518cffff, 0x00010000, 0x518c0000},
	}
	for _, tc := range tests {
		got, err := tc.typ.Apply(tc.word, tc.value)
		if err != nil {
			t.Errorf("%v.Apply(%#x, %#x): unexpected error %v", tc.typ, tc.word, tc.value, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%v.Apply(%#x, %#x) = %#08x, want %#08x", tc.typ, tc.word, tc.value, got, tc.want)
		}
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		typ   RelocType
		value uint32
		want  []string
		rng   bool
	}{
		{R_LANAI_21, 0x200000, []string{"R_LANAI_21", "0x200000"}, true},
		{R_LANAI_21, 0xfffffffc, []string{"R_LANAI_21", "0xfffffffc"}, true},
		{R_LANAI_21_F, 0x200000, []string{"R_LANAI_21_F", "0x200000"}, true},
		{R_LANAI_25, 0x2000000, []string{"R_LANAI_25", "0x2000000"}, true},
		{R_LANAI_25, 0x42, []string{"R_LANAI_25", "0x42", "aligned"}, true},
		{RelocType(7), 0, []string{"R_LANAI_(7)", "unknown"}, false},
	}
	for _, tc := range tests {
		_, err := tc.typ.Apply(0, tc.value)
		if err == nil {
			t.Errorf("%v.Apply(0, %#x): no error", tc.typ, tc.value)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v.Apply(0, %#x) error %q does not mention %q", tc.typ, tc.value, err, w)
			}
		}
		if errors.Is(err, ErrRelocRange) != tc.rng {
			t.Errorf("%v.Apply(0, %#x): errors.Is(err, ErrRelocRange) = %v, want %v", tc.typ, tc.value, !tc.rng, tc.rng)
		}
	}
}

func TestRelocTypeString(t *testing.T) {
	want := []string{"R_LANAI_NONE", "R_LANAI_21", "R_LANAI_21_F", "R_LANAI_25", "R_LANAI_32", "R_LANAI_HI16", "R_LANAI_LO16"}
	for i, w := range want {
		if got := RelocType(i).String(); got != w {
			t.Errorf("RelocType(%d).String() = %q, want %q", i, got, w)
		}
		if !RelocType(i).Known() {
			t.Errorf("RelocType(%d).Known() = false", i)
		}
	}
	if got := RelocType(200).String(); got != "R_LANAI_(200)" {
		t.Errorf("RelocType(200).String() = %q", got)
	}
	if RelocType(7).Known() {
		t.Error("RelocType(7).Known() = true")
	}
	if REL.String() != "REL" || EXEC.String() != "EXEC" {
		t.Errorf("Kind strings: %v %v", REL, EXEC)
	}
}
