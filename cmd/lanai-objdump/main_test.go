package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/internal/cofftest"
)

const testdata = "../../internal/disasm/testdata"

// runCmd runs the command in-process and returns status, stdout, stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// golden returns a golden file of internal/disasm/testdata with its file name
// header rewritten to name the file as path.
func golden(t *testing.T, file, tag, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, file+"."+tag+".golden"))
	require.NoError(t, err)
	return strings.ReplaceAll(string(b), "\n"+file+":\tfile format", "\n"+path+":\tfile format")
}

func TestHelp(t *testing.T) {
	code, out, errs := runCmd(t, "--help")
	if code != 0 || !strings.Contains(out, "USAGE: lanai-objdump") || errs != "" {
		t.Errorf("--help: status %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestUsageErrors(t *testing.T) {
	mc := filepath.Join(testdata, "mc.o")
	for _, args := range [][]string{
		{},
		{mc},
		{"--bogus", mc},
		{"-dq", mc},
		{"-x", mc},
	} {
		code, out, errs := runCmd(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "USAGE: lanai-objdump") {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want 2 and the usage on stderr", args, code, out, errs)
		}
		if len(args) > 1 && !strings.Contains(errs, "lanai-objdump: error: unknown argument '"+args[0]+"'") {
			t.Errorf("%q: stderr %q does not name the unknown argument", args, errs)
		}
	}
}

// TestOutput checks that flags, grouped or not, in any order, give
// llvm-objdump's output (the goldens of package disasm).
func TestOutput(t *testing.T) {
	for _, file := range []string{"mc.o", "prog.o", "prog.elf"} {
		path := filepath.Join(testdata, file)
		for _, c := range []struct {
			tag  string
			args []string
		}{
			{"dr", []string{"-d", "-r"}},
			{"dr", []string{"-dr"}},
			{"dr", []string{"-rd"}},
			{"dr", []string{"--disassemble", "--reloc"}},
			{"d", []string{"-d"}},
			{"t", []string{"-t"}},
			{"t", []string{"--syms"}},
			{"h", []string{"-h"}},
			{"h", []string{"--section-headers"}},
			{"h", []string{"--headers"}},
			{"r", []string{"-r"}},
			{"s", []string{"-s"}},
			{"s", []string{"--full-contents"}},
			{"all", []string{"-dhrst"}},
			{"all", []string{"-s", "-d", "-t", "-r", "-h"}},
		} {
			code, out, errs := runCmd(t, append(c.args, path)...)
			if code != 0 || errs != "" {
				t.Errorf("%s %q: status %d, stderr %q", file, c.args, code, errs)
			}
			if d := cmp.Diff(golden(t, file, c.tag, path), out); d != "" {
				t.Errorf("%s %q: output differs from the %s golden (-golden +output):\n%s", file, c.args, c.tag, d)
			}
		}
	}
	// "--" ends the options.
	path := filepath.Join(testdata, "mc.o")
	code, out, _ := runCmd(t, "-t", "--", path)
	if code != 0 {
		t.Errorf("-t -- file: status %d", code)
	}
	if d := cmp.Diff(golden(t, "mc.o", "t", path), out); d != "" {
		t.Errorf("-t -- file (-golden +output):\n%s", d)
	}
}

func TestSeveralFiles(t *testing.T) {
	a, b := filepath.Join(testdata, "mc.o"), filepath.Join(testdata, "prog.elf")
	code, out, errs := runCmd(t, "-t", a, b)
	if code != 0 || errs != "" {
		t.Errorf("two files: status %d, stderr %q", code, errs)
	}
	if d := cmp.Diff(golden(t, "mc.o", "t", a)+golden(t, "prog.elf", "t", b), out); d != "" {
		t.Errorf("two files (-goldens +output):\n%s", d)
	}
}

// TestInputErrors checks unreadable and malformed inputs: status 1, one
// message naming the file, the output of the files before it, no panic.
func TestInputErrors(t *testing.T) {
	dir := t.TempDir()
	mc, err := os.ReadFile(filepath.Join(testdata, "mc.o"))
	require.NoError(t, err)
	files := map[string][]byte{
		"garbage.o":   []byte("not an object file at all"),
		"empty.o":     {},
		"truncated.o": mc[:len(mc)-100],
		"badshdr.o":   append(bytes.Clone(mc[:32]), append([]byte{0x7f, 0xff, 0xff, 0xff}, mc[36:]...)...),
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		code, out, errs := runCmd(t, "-d", "-r", "-t", "-h", "-s", path)
		if code != 1 || out != "" {
			t.Errorf("%s: status %d, stdout %q; want 1 and no output", name, code, out)
		}
		if !strings.HasPrefix(errs, "lanai-objdump: error: '"+path+"': ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: stderr %q", name, errs)
		}
	}

	missing := filepath.Join(dir, "missing.o")
	code, _, errs := runCmd(t, "-d", missing)
	if code != 1 || errs != "lanai-objdump: error: '"+missing+"': no such file or directory\n" {
		t.Errorf("missing file: status %d, stderr %q", code, errs)
	}

	// As llvm-objdump: files before the bad one are printed, none after.
	good := filepath.Join(testdata, "mc.o")
	code, out, errs := runCmd(t, "-t", good, filepath.Join(dir, "garbage.o"), good)
	if code != 1 || !strings.Contains(errs, "garbage.o") {
		t.Errorf("good, bad, good: status %d, stderr %q", code, errs)
	}
	if d := cmp.Diff(golden(t, "mc.o", "t", good), out); d != "" {
		t.Errorf("good, bad, good: the output is not the first file's (-golden +output):\n%s", d)
	}

	// No file: a.out, as llvm-objdump.
	code, _, errs = runCmd(t, "-d")
	if code != 1 || !strings.Contains(errs, "'a.out'") {
		t.Errorf("no file: status %d, stderr %q", code, errs)
	}
}

// -h on clang -g objects (fixtures/c/g, llvm-mc's) lists the DWARF
// sections as llvm-objdump-14 does (the goldens made by fixtures/c/gen-g.sh).
func TestDebugSectionHeaders(t *testing.T) {
	objs, _ := filepath.Glob("../../fixtures/c/g/*.o")
	if len(objs) == 0 {
		t.Skip("no fixtures/c/g")
	}
	for _, o := range objs {
		want, err := os.ReadFile(strings.TrimSuffix(o, ".o") + ".h.txt")
		require.NoError(t, err)
		st, got, errs := runCmd(t, "-h", o)
		w := strings.Replace(string(want), "\ng/", "\n../../fixtures/c/g/", 1)
		if st != 0 || got != w {
			t.Errorf("%s: status %d %s\n%s\nwant\n%s", o, st, errs, got, w)
		}
		if !strings.Contains(got, ".debug_line ") || !strings.Contains(got, " DEBUG\n") {
			t.Errorf("%s: no DWARF sections:\n%s", o, got)
		}
	}
}

// TestArchive prints an archive of a COFF object (in lanai-gcc's layout)
// and an ELF object member by member, each as it prints alone, named
// "archive(member)" as llvm-objdump names archive members; a malformed
// member is an error naming it.
func TestArchive(t *testing.T) {
	dir := t.TempDir()
	mc, err := os.ReadFile(filepath.Join(testdata, "mc.o"))
	require.NoError(t, err)
	lib := filepath.Join(dir, "lib.a")
	ar := cofftest.BuildArchive([]cofftest.Member{
		{Name: "coffobj.o", Data: cofftest.Build(cofftest.SampleObject(0))},
		{Name: "mc.o", Data: mc},
	})
	require.NoError(t, os.WriteFile(lib, ar, 0o644))
	code, out, errs := runCmd(t, "-d", "-r", lib)
	want := golden(t, "coffobj", "dr", lib+"(coffobj.o)") + golden(t, "mc.o", "dr", lib+"(mc.o)")
	if code != 0 || errs != "" || out != want {
		t.Errorf("status %d, stderr %q, output:\n%s\nwant:\n%s", code, errs, out, want)
	}

	bad := cofftest.BuildArchive([]cofftest.Member{{Name: "bad.o", Data: []byte("\x13\x00 not COFF")}})
	require.NoError(t, os.WriteFile(lib, bad, 0o644))
	code, _, errs = runCmd(t, "-d", lib)
	if code != 1 || !strings.Contains(errs, "'"+lib+"(bad.o)': coff:") {
		t.Errorf("bad member: status %d, stderr %q", code, errs)
	}
}
