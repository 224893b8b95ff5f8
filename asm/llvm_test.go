package asm

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/isa"
	"lanaiemu/objfile"
)

// normText normalises instruction text as the golden files do: no comment,
// runs of white space collapsed.
func normText(s string) string {
	if i := strings.Index(s, "!"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

var fixupRelocs = map[string]objfile.RelocType{
	"FIXUP_LANAI_21": objfile.R_LANAI_21, "FIXUP_LANAI_25": objfile.R_LANAI_25,
	"FIXUP_LANAI_HI16": objfile.R_LANAI_HI16, "FIXUP_LANAI_LO16": objfile.R_LANAI_LO16,
	"FIXUP_LANAI_32": objfile.R_LANAI_32,
}

// Every instruction of LLVM's own Lanai MC tests (fixtures/llvm/mc,
// made by llvm-mc -show-encoding) assembles to llvm-mc's bytes, and our
// disassembly of those bytes is llvm-mc's disassembly (mc/asm-dis.golden).
func TestLLVMMCEncodings(t *testing.T) {
	disText := map[uint32]string{}
	if dis, err := os.ReadFile("../fixtures/llvm/mc/asm-dis.golden"); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(dis)), "\n") {
			var w uint32
			h, txt, _ := strings.Cut(l, "\t")
			if _, err := fmt.Sscanf(h, "%x", &w); err == nil {
				disText[w] = txt
			}
		}
	}
	src, err := os.ReadFile("../fixtures/llvm/mc/asm-inputs.s")
	if err != nil {
		t.Skip("no fixtures/llvm/mc")
	}
	res, err := Assemble([]Source{{"asm-inputs.s", src}}, Options{})
	require.NoError(t, err)
	text := res.Object.Section(".text")
	relocAt := map[uint32]objfile.Reloc{}
	for _, r := range text.Relocs {
		relocAt[r.Offset] = r
	}
	f, err := os.Open("../fixtures/llvm/mc/asm.golden")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	off, n := uint32(0), 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 {
			t.Fatalf("bad golden line %q", sc.Text())
		}
		stmt, enc, fix := cols[0], cols[1], cols[2]
		if enc == "error" {
			continue
		}
		if int(off)+4 > len(text.Data) {
			t.Fatalf("ran out of words at %q", stmt)
		}
		got := binary.BigEndian.Uint32(text.Data[off:])
		for i := 0; i < 8; i++ {
			nib := got >> (28 - 4*i) & 15
			if enc[i] == 'A' {
				continue
			}
			if strings.IndexByte("0123456789abcdef", enc[i]) != int(nib) {
				t.Errorf("%q: got %08x, want %s", stmt, got, enc)
				break
			}
		}
		r, hasReloc := relocAt[off]
		if fix != "-" {
			if !hasReloc || r.Type != fixupRelocs[fix] {
				t.Errorf("%q: relocation %v (present %v), want %s", stmt, r.Type, hasReloc, fix)
			}
		} else {
			if hasReloc {
				t.Errorf("%q: unexpected relocation %v", stmt, r.Type)
			}
			want, ok := disText[got]
			if !ok {
				t.Errorf("%08x: not in asm-dis.golden", got)
			} else if dis, _ := isa.Disassemble(got); normText(dis) != want {
				t.Errorf("%08x: disassembles to %q, llvm-mc prints %q", got, normText(dis), want)
			}
		}
		off += 4
		n++
	}
	if int(off) != len(text.Data) {
		t.Errorf("assembled %d bytes, golden covers %d", len(text.Data), off)
	}
	t.Logf("%d statements match llvm-mc", n)
}
