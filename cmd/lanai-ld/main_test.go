package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/internal/cofftest"
	"lanaiemu/objfile"
)

// The objects of isa.md §6.4, shared with package link's tests.
var (
	crt0 = filepath.Join("..", "..", "asm", "link", "testdata", "crt0.o")
	ex   = filepath.Join("..", "..", "asm", "link", "testdata", "ex.o")
)

func runLD(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestLinkOK(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "prog")
	mapPath := filepath.Join(dir, "prog.map")
	// Flags after files, and GNU-style -Map=file.
	code, stdout, stderr := runLD(crt0, "-o", out, ex, "-Map="+mapPath, "-Ttext", "0x0", "-Tdata", "4096")
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	f, err := objfile.ReadELF(b)
	require.NoError(t, err)
	text := f.Section(".text")
	if f.Kind != objfile.EXEC || text == nil || binary.BigEndian.Uint32(text.Data[0x10:]) != 0xe0000040 {
		t.Errorf("output: %+v", f)
	}
	if s := f.Symbol("__bss_start"); s == nil || s.Value != 4096 {
		t.Errorf("__bss_start = %+v, want 4096 (-Tdata with empty .data)", s)
	}
	m, err := os.ReadFile(mapPath)
	if err != nil || !strings.Contains(string(m), "0x00000040            main") {
		t.Errorf("map file: %v\n%s", err, m)
	}
}

func TestDefaultOutput(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	abs := func(p string) string { return filepath.Join(wd, p) }
	t.Chdir(dir)
	if code, _, stderr := runLD(abs(crt0), abs(ex), "-e", "main"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "a.out"))
	require.NoError(t, err)
	f, err := objfile.ReadELF(b)
	if err != nil || f.Entry != 0x40 {
		t.Errorf("a.out entry: %v, %v", f, err)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.o")
	require.NoError(t, os.WriteFile(junk, []byte("not an object"), 0o644))
	out := filepath.Join(dir, "out")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"no inputs", nil, 2, []string{"lanai-ld: error: no input files"}},
		{"unknown flag", []string{"-x", crt0}, 2, []string{"lanai-ld: error: flag provided but not defined: -x"}},
		{"bad number", []string{"-Ttext", "12z", crt0}, 2, []string{"lanai-ld: error: ", "12z"}},
		{"missing value", []string{crt0, "-o"}, 2, []string{"flag needs an argument"}},
		{"missing file", []string{"-o", out, filepath.Join(dir, "nope.o")}, 1, []string{"lanai-ld: error: open "}},
		{"file after --", []string{"-o", out, "--", crt0, "-x"}, 1, []string{"lanai-ld: error: open -x"}},
		{"bad object", []string{"-o", out, junk}, 1, []string{"lanai-ld: error: " + junk + ": unrecognised object file format"}},
		{"undefined", []string{"-o", out, crt0}, 1, []string{"lanai-ld: error: undefined symbol: main\n>>> referenced by " + crt0 + ":(.text+0x10)"}},
		{"duplicate", []string{"-o", out, ex, ex}, 1, []string{"lanai-ld: error: duplicate symbol: add\n>>> defined in " + ex, "lanai-ld: error: duplicate symbol: main"}},
		{"bad entry", []string{"-o", out, "-e", "nope", crt0, ex}, 1, []string{"lanai-ld: error: entry symbol nope is not defined"}},
		{"too big", []string{"-o", out, "-sram-size", "16", crt0, ex}, 1, []string{"does not fit in the 0x10-byte SRAM"}},
		// SRAM sizes the emulator cannot have: 0 was the default 2 MiB.
		{"zero SRAM", []string{"-o", out, "-sram-size", "0", crt0, ex}, 2, []string{"-sram-size 0x0: want a non-zero multiple of 4 up to 0x2000000"}},
		{"odd SRAM", []string{"-o", out, "-sram-size", "0x10002", crt0, ex}, 2, []string{"-sram-size 0x10002: want a non-zero multiple of 4 up to 0x2000000"}},
		{"SRAM over 32 MiB", []string{"-o", out, "-sram-size", "0x2000004", crt0, ex}, 2, []string{"-sram-size 0x2000004: want a non-zero multiple of 4 up to 0x2000000"}},
		{"unaligned text", []string{"-o", out, "-Ttext", "2", crt0, ex}, 1, []string{"lanai-ld: error: address (0x2) of section .text is not a multiple of its alignment (4)"}},
		{"unwritable", []string{"-o", filepath.Join(dir, "no", "such", "dir"), crt0, ex}, 1, []string{"lanai-ld: error: -o: open "}},
		// Outputs are opened before the inputs are read and linked: the
		// unwritable one is the one error (the link's errors came first,
		// and a map that could not be written came after the executable).
		{"unwritable first", []string{"-o", filepath.Join(dir, "no", "x"), junk}, 1, []string{"lanai-ld: error: -o: open " + filepath.Join(dir, "no", "x") + ": no such file or directory\n"}},
		{"unwritable map", []string{"-o", out, "-Map", filepath.Join(dir, "no", "m"), crt0}, 1, []string{"lanai-ld: error: -Map: open " + filepath.Join(dir, "no", "m") + ": no such file or directory\n"}},
		// An output named as nothing: -Map "" wrote no map in silence.
		{"empty output", []string{"-o", "", crt0, ex}, 2, []string{"lanai-ld: error: -o: an empty file name"}},
		{"empty map", []string{"-o", out, "-Map=", crt0, ex}, 2, []string{"lanai-ld: error: -Map: an empty file name"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runLD(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if strings.HasPrefix(tc.name, "unwritable") && strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q: want the output's error alone", stderr)
			}
		})
	}
}

func TestWarning(t *testing.T) {
	dir := t.TempDir()
	// ex.o alone has no _start: the entry falls back to .text with a warning.
	code, _, stderr := runLD("-o", filepath.Join(dir, "out"), ex)
	if code != 0 || !strings.Contains(stderr, "lanai-ld: warning: cannot find entry symbol _start") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "-help"} {
		code, stdout, stderr := runLD(arg)
		if code != 0 || !strings.HasPrefix(stdout, "usage: lanai-ld") || stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
		for _, f := range []string{"-o file", "-e sym", "-Ttext", "-Tdata", "-Map", "-sram-size"} {
			if !strings.Contains(stdout, f) {
				t.Errorf("usage lacks %s", f)
			}
		}
	}
}

// TestArchiveInput links a lanai-gcc-style COFF object against an archive
// that holds the _main it calls (as an ELF member) and an unneeded member;
// a malformed archive is an input error naming it.
func TestArchiveInput(t *testing.T) {
	dir := t.TempDir()
	obj := filepath.Join(dir, "sample.o")
	require.NoError(t, os.WriteFile(obj, cofftest.Build(cofftest.SampleObject(0)), 0o644))
	mainObj := &objfile.File{Kind: objfile.REL}
	tx := &objfile.Section{Name: ".text", Type: objfile.SHT_PROGBITS, Flags: objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, Align: 4, Data: make([]byte, 8), Size: 8}
	mainObj.Sections = []*objfile.Section{tx}
	mainObj.Symbols = []*objfile.Symbol{{Name: "_main", Bind: objfile.STB_GLOBAL, Section: tx}}
	mainELF, err := mainObj.WriteELF()
	require.NoError(t, err)
	lib := filepath.Join(dir, "lib.a")
	ar := cofftest.BuildArchive([]cofftest.Member{{Name: "unused.o", Data: cofftest.Build(cofftest.SampleObject(0))}, {Name: "main.o", Data: mainELF}})
	require.NoError(t, os.WriteFile(lib, ar, 0o644))
	out, mapPath := filepath.Join(dir, "prog"), filepath.Join(dir, "prog.map")
	code, _, stderr := runLD("-o", out, "-Map", mapPath, obj, lib)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	m, err := os.ReadFile(mapPath)
	require.NoError(t, err)
	if !strings.Contains(string(m), lib+"(main.o)") || strings.Contains(string(m), "unused.o") {
		t.Errorf("map does not show exactly the needed member:\n%s", m)
	}
	require.NoError(t, os.WriteFile(lib, ar[:len(ar)-3], 0o644))
	code, _, stderr = runLD("-o", out, obj, lib)
	if code != 1 || !strings.Contains(stderr, "lanai-ld: error: "+lib+": ar: member at") {
		t.Errorf("truncated archive: exit %d, stderr %q", code, stderr)
	}
}

// TestArchiveConventionHint: clang's __mulsi3 is undefined and libgcc.a
// holds lanai-gcc's ___mulsi3, in a member the link leaves out; the error
// names the member and why the two do not bind (docs/linker.md).
func TestArchiveConventionHint(t *testing.T) {
	dir := t.TempDir()
	elf := func(sym string, defined bool) []byte {
		f := &objfile.File{Kind: objfile.REL}
		tx := &objfile.Section{Name: ".text", Type: objfile.SHT_PROGBITS, Flags: objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, Align: 4, Data: make([]byte, 4), Size: 4}
		f.Sections = []*objfile.Section{tx}
		s := &objfile.Symbol{Name: sym, Bind: objfile.STB_GLOBAL}
		if defined {
			s.Section = tx
		} else {
			tx.Relocs = []objfile.Reloc{{Type: objfile.R_LANAI_32, Sym: s}} // .long sym
		}
		f.Symbols = []*objfile.Symbol{{Name: "_start", Bind: objfile.STB_GLOBAL, Section: tx}, s}
		b, err := f.WriteELF()
		require.NoError(t, err)
		return b
	}
	prog, lib := filepath.Join(dir, "prog.o"), filepath.Join(dir, "libgcc.a")
	require.NoError(t, os.WriteFile(prog, elf("__mulsi3", false), 0o644))
	require.NoError(t, os.WriteFile(lib, cofftest.BuildArchive([]cofftest.Member{{Name: "_mulsi3.o", Data: elf("___mulsi3", true)}}), 0o644))
	code, _, stderr := runLD("-o", filepath.Join(dir, "prog"), prog, lib)
	if code != 1 || !strings.Contains(stderr, "lanai-ld: error: undefined symbol: __mulsi3") ||
		!strings.Contains(stderr, ">>> "+lib+"(_mulsi3.o) defines ___mulsi3: lanai-gcc 2.95 (COFF) prefixes C names with '_'") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
