package debugger

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
	"lanaiemu/objfile"
)

func mustLines(t *testing.T, f *objfile.File) []objfile.LineEntry {
	t.Helper()
	b, err := f.WriteELF()
	require.NoError(t, err)
	g, err := objfile.Read(b)
	require.NoError(t, err)
	ls, err := g.Lines()
	require.NoError(t, err)
	return ls
}

// cRow is a C line row.
type cRow struct {
	addr uint32
	line int
}

// cRows derives the statement rows of a clang -g file without DWARF: each
// ".loc 0 LINE" (is_stmt, as it carries over) applies to the next
// instruction of the .s file, whose address lanai-as's own line table
// gives.
func cRows(t *testing.T, src string, asmLines []objfile.LineEntry) []cRow {
	t.Helper()
	text, err := os.ReadFile(src)
	require.NoError(t, err)
	addrOf := map[int]uint32{}
	for _, e := range asmLines {
		if strings.HasSuffix(e.File, filepath.Base(src)) {
			addrOf[e.Line] = e.Addr
		}
	}
	var rows []cRow
	pending, stmt := 0, true
	for i, l := range strings.Split(string(text), "\n") {
		f := strings.Fields(strings.SplitN(l, "!", 2)[0])
		switch {
		case len(f) == 0 || strings.HasSuffix(f[0], ":"):
		case f[0] == ".loc" && f[1] == "0":
			pending, _ = strconv.Atoi(f[2])
			for k := 3; k+1 < len(f); k++ {
				if f[k] == "is_stmt" {
					stmt = f[k+1] == "1"
				}
			}
			if !stmt {
				pending = 0
			}
		case strings.HasPrefix(f[0], "."):
		default:
			if a, ok := addrOf[i+1]; ok && pending > 0 {
				rows = append(rows, cRow{a, pending})
			}
			pending = 0
		}
	}
	return rows
}

// A C program built from clang -g output (fixtures/c/g) is debugged by C
// line: a breakpoint at recursion.c:LINE stops at the line's first
// statement row, positions are C lines, lnext moves to another line, and
// the stack is hanoi's callers.
func TestCLines(t *testing.T) {
	crt, _ := filepath.Glob("../firmware/crt/src/*.s")
	files := append(crt, "../fixtures/c/g/recursion.O1.s")
	image := build(t, files...)
	exe, err := objfile.Read(image)
	require.NoError(t, err)
	rows := cRows(t, files[len(files)-1], mustLines(t, exe))
	var hanoi uint32
	for _, s := range exe.Symbols {
		if s.Name == "hanoi" {
			hanoi = s.Value
		}
	}
	// In hanoi, the first row of a line other than the declaration's (the
	// first row's): the first instruction of that line.
	var at cRow
	decl := 0
	for _, r := range rows {
		if r.addr >= hanoi {
			if decl == 0 {
				decl = r.line
			} else if r.line != decl {
				at = r
				break
			}
		}
	}
	if at.line == 0 {
		t.Fatalf("no row in hanoi (%d rows)", len(rows))
	}
	var out bytes.Buffer
	c, img := lanaitest.Load(t, image, lanai.Config{})
	d := New(c, img, &out)
	s := &session{t: t, cpu: c, d: d, out: &out}
	got := s.do(fmt.Sprintf("break recursion.c:%d", at.line))
	contains(t, "break", got, fmt.Sprintf("Breakpoint 1 at 0x%08x <hanoi", at.addr), fmt.Sprintf("at recursion.c:%d", at.line))
	got = s.wantPC("continue", at.addr)
	contains(t, "continue", got, fmt.Sprintf("recursion.c:%d", at.line))
	got = s.do("bt")
	contains(t, "bt", got, "#0  0x", "<hanoi+", "#1  0x", "<main+", "<_start")
	s.do("delete")
	got = s.do("lnext")
	line := 0
	for _, r := range rows {
		if r.addr == c.PC {
			line = r.line
		}
	}
	if line == 0 || line == at.line {
		t.Errorf("lnext stopped at %#x (line %d), want the start of another line than %d:\n%s", c.PC, line, at.line, got)
	}
	contains(t, "lnext", got, fmt.Sprintf("recursion.c:%d", line))
	got = s.do("info line")
	contains(t, "info line", got, fmt.Sprintf("recursion.c:%d", line))
	got = s.do("lstep 3")
	if !strings.Contains(got, "recursion.c:") {
		t.Errorf("lstep 3:\n%s", got)
	}
}

// Truncated or corrupt line tables give errors, never a panic.
func TestDwarfLinesBad(t *testing.T) {
	good := []byte{0, 0, 0, 0x20, 0, 5, 4, 0, 0, 0, 0, 0x14}
	for i := 0; i <= len(good); i++ {
		f := &objfile.File{Sections: []*objfile.Section{{Name: ".debug_line", Data: good[:i]}}}
		if _, err := dwarfLines(f); err == nil && i > 0 {
			t.Errorf("%d bytes: no error", i)
		}
	}
}

// FuzzDwarfLines: any .debug_line is read without a panic.
func FuzzDwarfLines(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0x20, 0, 5, 4, 0, 0, 0, 0, 0x14})
	f.Fuzz(func(t *testing.T, b []byte) {
		dwarfLines(&objfile.File{Sections: []*objfile.Section{{Name: ".debug_line", Data: b}, {Name: ".debug_line_str", Data: b}}})
	})
}

// The line rows read from a linked clang -g program are llvm-dwarfdump's
// (its statement rows and sequence ends), when LLVM 14 is installed.
func TestDwarfLinesMatchLLVM(t *testing.T) {
	tool, err := exec.LookPath("llvm-dwarfdump-14")
	if err != nil {
		t.Skip("llvm-dwarfdump-14 not installed")
	}
	crt, _ := filepath.Glob("../firmware/crt/src/*.s")
	for _, src := range []string{"../fixtures/c/g/structs.O0.s", "../fixtures/c/g/crc32.O1.s"} {
		files := append(crt, src)
		var results []*asm.Result
		for _, f := range files {
			res, err := asm.AssembleFile(f, asm.Options{})
			require.NoError(t, err)
			results = append(results, res)
		}
		exe, err := asm.LinkWithLines(results, files, link.Options{})
		require.NoError(t, err)
		image, _ := exe.WriteELF()
		path := filepath.Join(t.TempDir(), "p.elf")
		os.WriteFile(path, image, 0o644)
		dump, err := exec.Command(tool, "--debug-line", path).Output()
		require.NoError(t, err)
		var want []string
		for _, l := range strings.Split(string(dump), "\n") {
			f := strings.Fields(l)
			if len(f) < 7 || !strings.HasPrefix(f[0], "0x") {
				continue
			}
			a, _ := strconv.ParseUint(f[0][2:], 16, 32)
			switch {
			case strings.Contains(l, "end_sequence"):
				want = append(want, fmt.Sprintf("%#x end", a))
			case strings.Contains(l, "is_stmt") && f[1] != "0":
				want = append(want, fmt.Sprintf("%#x %s", a, f[1]))
			}
		}
		f, _ := objfile.Read(image)
		rows, err := dwarfLines(f)
		require.NoError(t, err)
		var got []string
		for _, r := range rows {
			if r.Line == 0 {
				got = append(got, fmt.Sprintf("%#x end", r.Addr))
			} else {
				got = append(got, fmt.Sprintf("%#x %d", r.Addr, r.Line))
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: the rows differ from llvm-dwarfdump's (-llvm-dwarfdump +ours):\n%s", src, d)
		}
		if len(got) < 10 {
			t.Errorf("%s: only %d rows", src, len(got))
		}
		t.Logf("%s: %d rows as llvm-dwarfdump's", filepath.Base(src), len(got))
	}
}
