package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lanaiemu/objfile"
)

func runAs(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := run(args, &out, &errb)
	return st, out.String() + errb.String()
}

func TestLanaiAs(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.s")
	os.WriteFile(good, []byte("\t.globl _start\n_start:\n\tmov 0x10, %r3\n\tbt _start\n\tnop\n"), 0o644)
	bad := filepath.Join(dir, "bad.s")
	os.WriteFile(bad, []byte("\tnop\n\tfrob %r1\n\tadd %r1, 0x12345, %r2\n"), 0o644)

	if st, msg := runAs(t, "--help"); st != 0 || !strings.Contains(msg, "usage: lanai-as") {
		t.Errorf("--help: status %d, %q", st, msg)
	}
	if st, _ := runAs(t); st != 2 {
		t.Errorf("no input: status %d, want 2", st)
	}
	if st, _ := runAs(t, "-bogus", good); st != 2 {
		t.Errorf("bad flag: status %d, want 2", st)
	}
	obj := filepath.Join(dir, "good.o")
	lst := filepath.Join(dir, "good.lst")
	if st, msg := runAs(t, "-c", "-o", obj, "-l", lst, good); st != 0 {
		t.Fatalf("-c: status %d: %s", st, msg)
	}
	data, _ := os.ReadFile(obj)
	f, err := objfile.ReadELF(data)
	if err != nil || f.Kind != objfile.REL || f.Section(".text") == nil || f.Section(".text").Size != 12 {
		t.Errorf("object: %v %+v", err, f)
	}
	if l, _ := os.ReadFile(lst); !strings.Contains(string(l), "01800010") {
		t.Errorf("listing lacks the mov word:\n%s", l)
	}
	// Flags may follow the file, as llvm-mc and gcc take them; after
	// "--" every argument is a file.
	late := filepath.Join(dir, "late.o")
	if st, msg := runAs(t, good, "-c", "-o", late); st != 0 {
		t.Fatalf("flags after the file: status %d: %s", st, msg)
	}
	if a, b := mustRead(t, late), mustRead(t, obj); !bytes.Equal(a, b) {
		t.Error("flags after the file: the object differs from the one with flags first")
	}
	if st, msg := runAs(t, "-c", "-o", late, "--", good, "-l"); st != 1 || !strings.Contains(msg, "open -l") {
		t.Errorf("a file named -l after --: status %d, %q", st, msg)
	}
	exe := filepath.Join(dir, "good.elf")
	if st, msg := runAs(t, "-o", exe, good); st != 0 {
		t.Fatalf("link: status %d: %s", st, msg)
	}
	data, _ = os.ReadFile(exe)
	f, err = objfile.ReadELF(data)
	if err != nil || f.Kind != objfile.EXEC {
		t.Fatalf("executable: %v", err)
	}
	// An executable it makes is executable, as lanai-ld's are (it was
	// 0644); an object is not.
	if st, err := os.Stat(exe); err != nil || st.Mode().Perm()&0o111 == 0 {
		t.Errorf("the executable's mode: %v %v", st.Mode(), err)
	}
	if st, err := os.Stat(obj); err != nil || st.Mode().Perm()&0o111 != 0 {
		t.Errorf("the object's mode: %v %v", st.Mode(), err)
	}
	// The line table maps each instruction to its source line.
	lines, err := f.Lines()
	if err != nil || len(lines) != 3 || lines[0].Addr != 0 || lines[0].Line != 3 || lines[2].Line != 5 || filepath.Base(lines[2].File) != "good.s" {
		t.Errorf("line table %+v, %v", lines, err)
	}
	st, msg := runAs(t, "-c", "-o", filepath.Join(dir, "bad.o"), bad)
	if st != 1 || !strings.Contains(msg, "bad.s:2:2: error: unknown instruction") || !strings.Contains(msg, "bad.s:3:11: error") {
		t.Errorf("bad input: status %d, %q", st, msg)
	}
	// The outputs are opened before anything is assembled: an unwritable
	// one is the one error (it came after the assembly's), and an existing
	// output keeps its contents when the assembly fails.
	for _, c := range []struct {
		flag string
		args []string
	}{
		{"-o", []string{"-c", "-o", filepath.Join(dir, "no", "x.o"), bad}},
		{"-o", []string{"-o", filepath.Join(dir, "no", "x.elf"), bad}},
		{"-l", []string{"-c", "-o", obj, "-l", filepath.Join(dir, "no", "x.lst"), bad}},
	} {
		st, msg := runAs(t, c.args...)
		if st != 1 || !strings.HasPrefix(msg, "lanai-as: error: "+c.flag+": open "+filepath.Join(dir, "no")) || strings.Count(msg, "\n") != 1 {
			t.Errorf("%q: status %d, %q; want 1 and the output's error alone", c.args, st, msg)
		}
	}
	before, _ := os.ReadFile(obj)
	if st, _ := runAs(t, "-c", "-o", obj, bad); st != 1 {
		t.Errorf("bad input over an object: status %d", st)
	}
	if after, _ := os.ReadFile(obj); string(after) != string(before) {
		t.Error("a failed assembly changed the existing object")
	}
	if st, msg := runAs(t, "-c", filepath.Join(dir, "missing.s")); st != 1 || !strings.Contains(msg, "missing.s") {
		t.Errorf("missing file: status %d, %q", st, msg)
	}
	// An output named as nothing is a usage error: -o "" silently wrote
	// a.out (or NAME.o), -l "" wrote no listing.
	for _, c := range []struct {
		flag string
		args []string
	}{{"-o", []string{"-o", "", good}}, {"-o", []string{"-c", "-o=", good}}, {"-l", []string{"-l", "", good}}} {
		if st, msg := runAs(t, c.args...); st != 2 || !strings.Contains(msg, "lanai-as: error: "+c.flag+": an empty file name") {
			t.Errorf("%q: status %d, %q; want 2 naming %s", c.args, st, msg, c.flag)
		}
	}
}

// A warning is printed and the assembly still succeeds.
func TestWarningPrinted(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ne.s")
	os.WriteFile(src, []byte("\t.if\t1 != 1\n\tnop\n\t.endif\n"), 0o644)
	st, msg := runAs(t, "-c", "-o", filepath.Join(dir, "ne.o"), src)
	if st != 0 || !strings.Contains(msg, "ne.s:1:8: warning: '!' starts a comment") {
		t.Errorf("status %d, output %q: want 0 and the warning", st, msg)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
