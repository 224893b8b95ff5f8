package asm

import (
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/objfile"
)

// TestEncodings checks testdata/encodings.s: the bytes (and relocation) of
// every line are those written beside it.
func TestEncodings(t *testing.T) {
	src, err := os.ReadFile("testdata/encodings.s")
	require.NoError(t, err)
	res, err := Assemble([]Source{{"encodings.s", src}}, Options{Listing: true})
	require.NoError(t, err)
	got := map[int]string{}
	for _, e := range res.listing {
		got[e.pos.Line] += hex.EncodeToString(e.sect.data[e.off : e.off+e.n])
	}
	relocs := map[string]string{} // "section:offset" -> "TYPE sym+addend"
	for _, s := range res.Object.Sections {
		for _, r := range s.Relocs {
			name := r.Sym.Name
			if r.Sym.Type == objfile.STT_SECTION {
				name = r.Sym.Section.Name
			}
			if name == "" {
				name = "(unnamed)"
			}
			relocs[fmt.Sprintf("%s:%d", s.Name, r.Offset)] = fmt.Sprintf("%v %s%+d", r.Type, name, r.Addend)
		}
	}
	mark := regexp.MustCompile(`! => ([0-9a-f ]+?)\s*(?:(R_LANAI_\w+) (\S+?)([+-]\d+)?)?$`)
	lines := strings.Split(string(src), "\n")
	checked := 0
	for i, line := range lines {
		n := i + 1
		m := mark.FindStringSubmatch(line)
		if m == nil {
			if got[n] != "" {
				t.Errorf("line %d emits %s but expects nothing", n, got[n])
			}
			continue
		}
		want := strings.ReplaceAll(m[1], " ", "")
		if got[n] != want {
			t.Errorf("line %d: got %s, want %s\n\t%s", n, got[n], want, line)
		}
		checked++
		if m[2] == "" {
			continue
		}
		found := false
		for _, e := range res.listing {
			if e.pos.Line != n {
				continue
			}
			for off := e.off; off < e.off+e.n; off += 4 {
				r := relocs[fmt.Sprintf("%s:%d", e.sect.name, off)]
				wantSym := m[3]
				if r != "" && strings.HasPrefix(r, m[2]+" "+wantSym) && (m[4] == "" || strings.HasSuffix(r, m[4])) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("line %d: want relocation %s %s%s", n, m[2], m[3], m[4])
		}
	}
	if checked < 40 {
		t.Errorf("only %d lines checked", checked)
	}
}
