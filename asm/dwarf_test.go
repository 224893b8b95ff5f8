package asm

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/objfile"
)

// relocTarget names where a relocation points: the defining section and
// offset (symbol value plus addend), or an undefined symbol's name. llvm-mc
// relocates against temporary symbols where we use section symbols; the
// place is the same.
func relocTarget(r objfile.Reloc) string {
	s := r.Sym
	if s.Section != nil {
		return fmt.Sprintf("%#x %v %s%+d", r.Offset, r.Type, s.Section.Name, int64(s.Value)+int64(r.Addend))
	}
	return fmt.Sprintf("%#x %v undefined %s%+d", r.Offset, r.Type, s.Name, r.Addend)
}

// The C corpus compiled by clang -g (fixtures/c/g, remade by
// fixtures/c/gen-g.sh) assembles to llvm-mc's object: every section,
// .debug_* included (clang's own and the line table and call frames the
// assembler writes), the same bytes, flags and relocation places (all
// but .comment and .llvm_addrsig, which the assembler does not keep).
func TestDebugMatchesLLVM(t *testing.T) {
	srcs, _ := filepath.Glob("../fixtures/c/g/*.s")
	if len(srcs) == 0 {
		t.Skip("no fixtures/c/g")
	}
	for _, src := range srcs {
		base := strings.TrimSuffix(filepath.Base(src), ".s")
		res, err := AssembleFile(src, Options{})
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		data, err := os.ReadFile(strings.TrimSuffix(src, ".s") + ".o")
		require.NoError(t, err)
		want, err := objfile.ReadELF(data)
		require.NoError(t, err)
		debug := 0
		for _, ws := range want.Sections {
			// .comment (.ident) and .llvm_addrsig are not kept (docs/asm.md).
			if ws.Name == ".comment" || ws.Name == ".llvm_addrsig" || ws.Name == "" || ws.Type == objfile.SHT_SYMTAB || ws.Type == objfile.SHT_STRTAB || ws.Type == objfile.SHT_RELA || ws.Type == objfile.SHT_REL {
				continue
			}
			gs := res.Object.Section(ws.Name)
			if gs == nil {
				t.Errorf("%s: missing section %s", base, ws.Name)
				continue
			}
			if strings.HasPrefix(ws.Name, ".debug") {
				debug++
			}
			if gs.Type != ws.Type || gs.Flags != ws.Flags || gs.Size != ws.Size || gs.Align != ws.Align || gs.EntSize != ws.EntSize {
				t.Errorf("%s: section %s: type %d flags %#x size %d align %d entsize %d, want %d %#x %d %d %d", base,
					ws.Name, gs.Type, gs.Flags, gs.Size, gs.Align, gs.EntSize, ws.Type, ws.Flags, ws.Size, ws.Align, ws.EntSize)
				continue
			}
			if !bytes.Equal(ws.Data, gs.Data) { // cmp.Diff only to describe: it is slow on equal bytes
				t.Errorf("%s: %s differs (-llvm-mc +ours):\n%s", base, ws.Name, cmp.Diff(ws.Data, gs.Data))
			}
			if d := cmp.Diff(relocKeys(ws.Relocs, relocTarget), relocKeys(gs.Relocs, relocTarget)); d != "" {
				t.Errorf("%s: relocations of %s differ (-llvm-mc +ours):\n%s", base, ws.Name, d)
			}
		}
		if debug < 8 {
			t.Errorf("%s: only %d .debug sections compared", base, debug)
		}
	}
	t.Logf("%d files of clang -g output: every section and relocation as llvm-mc's", len(srcs))
}

// Bad DWARF directives are refused with a message.
func TestDwarfDirectiveErrors(t *testing.T) {
	for src, want := range map[string]string{
		".file 0 \"g.c\"\n":                                       "needs the compilation directory",
		".file 1 \"d\" \"g.c\" md5 0x1234 extra\n":                "expected md5 or the end",
		".file 1 \"g.c\" md5 zz\n":                                "expected the MD5 sum",
		".file 1 \"g.c\" md5 0x" + strings.Repeat("1", 33) + "\n": "too large",
		".loc 3 1\n": "which no .file names",
		".file 0 \"d\" \"g.c\"\n.loc 0 1 0 frob\n":      "unknown .loc option",
		".file 0 \"d\" \"g.c\"\n.loc 0 1 0 is_stmt 2\n": "is_stmt is 0 or 1",
		".file 1 \"g.c\"\n.loc 1 1\nnop\n":              "needs DWARF 5's .file 0",
		".cfi_startproc\nnop\n":                         "without .cfi_endproc",
		".cfi_endproc\n":                                "without .cfi_startproc",
		".cfi_def_cfa_offset 8\n":                       "not supported",
		".uleb128 -1\n":                                 "negative",
		".uleb128 undefined_sym\n":                      "not defined",
		"mov 0x" + strings.Repeat("f", 20) + ", %r3\n":  "too large",
	} {
		_, err := Assemble([]Source{{"t.s", []byte(src)}}, Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}

// LEB128 against the DWARF standard's examples (DWARF 5, section 7.6).
func TestLEB128(t *testing.T) {
	for v, want := range map[uint64]string{2: "02", 127: "7f", 128: "8001", 129: "8101", 130: "8201", 12857: "b964"} {
		if got := fmt.Sprintf("%x", uleb(nil, v)); got != want {
			t.Errorf("uleb(%d) = %s, want %s", v, got, want)
		}
	}
	for v, want := range map[int64]string{2: "02", -2: "7e", 127: "ff00", -127: "817f", 128: "8001", -128: "807f", 129: "8101", -129: "ff7e"} {
		if got := fmt.Sprintf("%x", sleb(nil, v)); got != want {
			t.Errorf("sleb(%d) = %s, want %s", v, got, want)
		}
	}
}
