package asm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Hostile sources get one clear error, quickly and in bounded memory: a
// file that includes itself, an include cycle through two files, a device
// as an include file, an expression nested a million deep, and includes
// nested past the limit.
func TestHostileSources(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	write("self.s", ".include \"self.s\"\n")
	write("a.s", ".include \"b.s\"\n")
	write("b.s", "\tnop\n.include \"a.s\"\n")
	write("zero.s", ".include \"/dev/zero\"\n")
	write("minus.s", ".long "+strings.Repeat("-", 1_000_000)+"1\n")
	write("paren.s", ".long "+strings.Repeat("(", 5000)+"1"+strings.Repeat(")", 5000)+"\n")
	for i := range 30 { // da.s includes db.s and so on, 30 deep: no cycle, too deep
		write(filepathName(i), ".include \""+filepathName(i+1)+"\"\n")
	}
	write(filepathName(30), "\tnop\n")
	// Each section under the cap, all of them far over it: a hundred such
	// sections once took 6.4 GB and crashed out of memory.
	write("align.s", "\tnop\n\t.p2align 30\n") // a GiB of code padding: a crash out of memory
	write("sections.s", ".section .d0,\"aw\"\n.space 0x3000000\n.section .d1,\"aw\"\n.space 0x3000000\n.section .d2,\"aw\"\n.space 0x3000000\n")
	for _, c := range []struct{ file, want string }{
		{"self.s", ".include cycle: " + filepath.Join(dir, "self.s") + " -> " + filepath.Join(dir, "self.s")},
		{"a.s", ".include cycle: " + filepath.Join(dir, "a.s") + " -> " + filepath.Join(dir, "b.s") + " -> " + filepath.Join(dir, "a.s")},
		{"zero.s", "/dev/zero: not a regular file"},
		{"minus.s", "expression nests more than 100 deep"},
		{"paren.s", "expression nests more than 100 deep"},
		{"da.s", ".include nests more than 20 deep"},
		{"align.s", "align.s:2:0: error: alignment 1073741824: 1073741820 bytes of padding out of range (the sections may hold at most 64 MiB)"},
		{"sections.s", "sections.s:4:0: error: fill size 50331648 out of range (the sections may hold at most 64 MiB in all)"},
	} {
		_, err := AssembleFile(filepath.Join(dir, c.file), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.file, err, c.want)
		}
		if err != nil && strings.Count(err.Error(), "\n") > 10 {
			t.Errorf("%s: a long error (%d lines): one statement, one error", c.file, strings.Count(err.Error(), "\n"))
		}
	}
}

func filepathName(i int) string { return "d" + string(rune('a'+i)) + ".s" }

// A long source line is shown as a window around the column, the caret
// still under it.
func TestLongLineErrorWindow(t *testing.T) {
	e := &Error{Pos: Pos{File: "f.s", Line: 1, Col: 5001}, Msg: "bad", Source: strings.Repeat("a", 5000) + "X" + strings.Repeat("b", 5000)}
	lines := strings.Split(e.Error(), "\n")
	if len(lines) != 3 || len(lines[1]) > maxShownLine+6 {
		t.Fatalf("error %q", e.Error())
	}
	if col := strings.Index(lines[2], "^"); lines[1][col] != 'X' {
		t.Fatalf("the caret is under %q, not X:\n%s\n%s", lines[1][col], lines[1], lines[2])
	}
}
