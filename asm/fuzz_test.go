package asm

import (
	"os"
	"testing"
)

// FuzzAssemble feeds arbitrary text to the assembler: it must return an
// object or errors, never panic or hang, and any object it returns must
// encode as ELF.
func FuzzAssemble(f *testing.F) {
	for _, name := range []string{"testdata/encodings.s", "testdata/errors.s"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{
		"\tadd %r1, 0x1234, %r2\n", "l: bt l\n nop\n", ".macro m a\n.long \\a\n.endm\nm 5\n",
		".if 1\n.else\n.endif\n", "ld [--%r6], %r7 ; st.b %r1, 3[*%r2]\n", "mov hi(x+4), %r3\n.data\nx: .long x\n",
		".section .rodata.str1.1,\"aMS\",@progbits,1\n.asciz \"hi\"\n", "1: bt 1b\n bt 1f\n1:\n",
	} {
		f.Add(s)
	}
	noFiles := func(string) ([]byte, error) { return nil, os.ErrNotExist }
	f.Fuzz(func(t *testing.T, src string) {
		res, err := Assemble([]Source{{"fuzz.s", []byte(src)}}, Options{ReadFile: noFiles})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if _, err := res.Object.WriteELF(); err != nil {
			t.Fatalf("assembled, but the object does not encode: %v", err)
		}
		_ = res.Listing()
	})
}
