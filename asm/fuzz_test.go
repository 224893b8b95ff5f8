package asm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzAssemble feeds arbitrary text to the assembler: it must return an
// object or errors, never panic or hang, and any object it returns must
// encode as ELF.
func FuzzAssemble(f *testing.F) {
	mcobj, _ := filepath.Glob("testdata/mcobj/*.s")
	for _, name := range append([]string{"testdata/encodings.s", "testdata/errors.s"}, mcobj...) {
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
		if checkOutcome(t, res, err) {
			_ = res.Listing()
		}
	})
}

// checkOutcome checks what Assemble returned: an error that says
// something, or an object that encodes as ELF. It reports whether there
// is an object.
func checkOutcome(t *testing.T, res *Result, err error) bool {
	t.Helper()
	if err != nil {
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		return false
	}
	if _, err := res.Object.WriteELF(); err != nil {
		t.Fatalf("assembled, but the object does not encode: %v", err)
	}
	return true
}

// FuzzIncludesAndMacros feeds sources that include one another and expand
// macros: the input is split at '\x00' into files a.s, b.s and c.s (a.s is
// assembled), so cycles, deep nesting and macros defined in one file and
// expanded in another come up. The assembler must return an object or
// errors, never panic, hang or run out of memory.
func FuzzIncludesAndMacros(f *testing.F) {
	for _, s := range []string{
		".include \"b.s\"\n\x00.include \"c.s\"\n\x00.include \"a.s\"\n",
		".include \"a.s\"\n",
		".include \"b.s\"\nm 3\n\x00.macro m x\n.long \\x\n.include \"c.s\"\n.endm\n\x00nop\n",
		".macro r n\n.if \\n\nr \\n-1\n.endif\n.endm\nr 500\n",
		".macro m\nm\n.endm\nm\n",
		".include \"b.s\"\n.include \"b.s\"\n\x00.long 1\n",
		".include \"/dev/zero\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		parts := strings.SplitN(src, "\x00", 3)
		files := map[string][]byte{}
		for i, p := range parts {
			files[string(rune('a'+i))+".s"] = []byte(p)
		}
		read := func(name string) ([]byte, error) {
			if b, ok := files[filepath.Base(name)]; ok && filepath.Dir(name) == "." {
				return b, nil
			}
			return nil, os.ErrNotExist
		}
		res, err := Assemble([]Source{{"a.s", files["a.s"]}}, Options{ReadFile: read})
		checkOutcome(t, res, err)
	})
}
