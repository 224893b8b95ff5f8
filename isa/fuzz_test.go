package isa

import "testing"

// FuzzDecode decodes arbitrary words: printing never panics, and a valid
// word re-encodes to a word that decodes to the same instruction.
func FuzzDecode(f *testing.F) {
	for _, w := range []uint32{0, 1, 0x8116FFFC, 0xC3999706, 0xF39B4FFF, 0xE1000012, 0xA18C4FF8, 0xCEF4FD80, 0xFFFFFFFF, 0xD3980003} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w uint32) {
		in := Decode(w)
		text := in.String()
		if text == "" {
			t.Fatalf("%08x: empty text", w)
		}
		if !in.Valid() {
			return
		}
		w2, err := Encode(in)
		if err != nil {
			t.Fatalf("%08x (%s): re-encoding failed: %v", w, text, err)
		}
		in2 := Decode(w2)
		in2.Word, in2.Form = in.Word, in.Form
		if in2 != in {
			t.Fatalf("%08x (%s) re-encodes to %08x (%s)", w, text, w2, in2)
		}
	})
}
