package asm

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lanaiemu/objfile"
)

// objectsGolden lists, for every LANai assembly file of the repository,
// llvm-mc-14's object (SHA-256 and size) or that llvm-mc rejects it; made
// by fixtures/llvm/obj/gen.sh.
const objectsGolden = "../fixtures/llvm/obj/objects.golden"

// goldenObject is a line of objectsGolden; path is relative to the
// repository's root.
type goldenObject struct {
	path     string
	rejected bool
	sha256   string
	size     int
}

func readObjectsGolden(t *testing.T) []goldenObject {
	t.Helper()
	f, err := os.Open(objectsGolden)
	if err != nil {
		t.Fatalf("%v (make it with fixtures/llvm/obj/gen.sh)", err)
	}
	defer f.Close()
	var out []goldenObject
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Fields(sc.Text())
		if len(cols) != 3 {
			t.Fatalf("%s: bad line %q", objectsGolden, sc.Text())
		}
		g := goldenObject{path: cols[2], rejected: cols[0] == "rejected", sha256: cols[0]}
		if !g.rejected {
			if g.size, err = strconv.Atoi(cols[1]); err != nil || len(g.sha256) != 64 {
				t.Fatalf("%s: bad line %q", objectsGolden, sc.Text())
			}
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// assembleObject assembles a file (path relative to the repository's
// root) as "lanai-as -c" does, with its directory searched by .include as
// gen.sh gives it to llvm-mc with -I.
func assembleObject(path string) ([]byte, error) {
	src := filepath.Join("..", path)
	res, err := AssembleFile(src, Options{IncludeDirs: []string{filepath.Dir(src)}})
	if err != nil {
		return nil, err
	}
	return res.Object.WriteELF()
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestObjectsMatchLLVMGolden holds lanai-as -c to llvm-mc-14's objects,
// byte for byte, for every assembly file of the repository that llvm-mc
// accepts (their digests are in objectsGolden; no LLVM needed).
func TestObjectsMatchLLVMGolden(t *testing.T) {
	same, total := 0, 0
	for _, g := range readObjectsGolden(t) {
		if g.rejected {
			continue
		}
		total++
		b, err := assembleObject(g.path)
		if err != nil {
			t.Errorf("%s: %v", g.path, err)
			continue
		}
		if got := sha256Hex(b); got != g.sha256 || len(b) != g.size {
			if total-same > 10 {
				continue // enough said; the count below tells the rest
			}
			t.Errorf("%s: object of %d bytes, SHA-256 %s; llvm-mc's has %d bytes, %s (TestObjectsMatchLLVMLive shows the difference)", g.path, len(b), got, g.size, g.sha256)
			continue
		}
		same++
	}
	if same != total {
		t.Errorf("%d of %d objects identical to llvm-mc-14's", same, total)
	}
	t.Logf("%d of %d objects identical to llvm-mc-14's", same, total)
	if total < 150 {
		t.Errorf("only %d objects in %s", total, objectsGolden)
	}
}

// TestObjectsMatchLLVMLive assembles every LANai assembly file of the
// repository with llvm-mc-14 and with lanai-as -c and compares the
// objects byte for byte; on a difference it shows both section and symbol
// tables. It also checks that objectsGolden is up to date. Skipped without
// llvm-mc-14.
func TestObjectsMatchLLVMLive(t *testing.T) {
	mc, err := exec.LookPath("llvm-mc-14")
	if err != nil {
		t.Skip("llvm-mc-14 not installed")
	}
	golden := map[string]goldenObject{}
	for _, g := range readObjectsGolden(t) {
		golden[g.path] = g
	}
	var inputs []string
	err = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != ".." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".s") && !strings.HasSuffix(p, "_amd64.s") {
			inputs = append(inputs, filepath.ToSlash(strings.TrimPrefix(p, "../")))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	same, accepted := 0, 0
	for _, path := range inputs {
		src := filepath.Join("..", path)
		out := filepath.Join(tmp, "mc.o")
		g, listed := golden[path]
		if err := exec.Command(mc, "-triple=lanai", "-filetype=obj", "-I", filepath.Dir(src), "-o", out, src).Run(); err != nil {
			if listed && !g.rejected {
				t.Errorf("%s: llvm-mc rejects it, %s has its object (rerun fixtures/llvm/obj/gen.sh)", path, objectsGolden)
			}
			continue
		}
		accepted++
		want, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !listed || g.rejected || g.sha256 != sha256Hex(want) || g.size != len(want) {
			t.Errorf("%s: %s does not hold llvm-mc's object (rerun fixtures/llvm/obj/gen.sh)", path, objectsGolden)
		}
		got, err := assembleObject(path)
		if err != nil {
			t.Errorf("%s: llvm-mc accepts it, lanai-as -c fails: %v", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			if accepted-same > 5 {
				continue // enough said; the count below tells the rest
			}
			t.Errorf("%s: lanai-as -c differs from llvm-mc:\n%s", path, describeObjectDiff(got, want))
			continue
		}
		same++
	}
	if same != accepted {
		t.Errorf("%d of %d files that llvm-mc-14 accepts (of %d) assemble to its bytes", same, accepted, len(inputs))
	}
	t.Logf("%d of %d files that llvm-mc-14 accepts (of %d) assemble to its bytes", same, accepted, len(inputs))
}

// describeObjectDiff tells where two ELF objects first differ and shows
// their section and symbol tables (-llvm-mc +lanai-as).
func describeObjectDiff(got, want []byte) string {
	at := 0
	for at < len(got) && at < len(want) && got[at] == want[at] {
		at++
	}
	var d strings.Builder
	fmt.Fprintf(&d, "sizes %d (lanai-as) and %d (llvm-mc), first difference at byte %d; section table and differing symbols (-llvm-mc +lanai-as):\n", len(got), len(want), at)
	w, g := elfTables(want), elfTables(got)
	line := func(l []string, i int) string {
		if i < len(l) {
			return l[i]
		}
		return ""
	}
	for i := 0; i < max(len(w), len(g)); i++ {
		wl, gl := line(w, i), line(g, i)
		if wl == gl {
			if strings.HasPrefix(wl, "section") {
				fmt.Fprintf(&d, "  %s\n", wl)
			}
			continue
		}
		if wl != "" {
			fmt.Fprintf(&d, "- %s\n", wl)
		}
		if gl != "" {
			fmt.Fprintf(&d, "+ %s\n", gl)
		}
	}
	return d.String()
}

// elfTables lists an object's section headers and symbols, one per line.
func elfTables(b []byte) []string {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return []string{"unreadable: " + err.Error()}
	}
	var out []string
	for i, s := range f.Sections {
		out = append(out, fmt.Sprintf("section [%2d] %-20s %-14v flags %#x off %#x size %#x link %d info %d align %d entsize %d",
			i, s.Name, s.Type, uint64(s.Flags), s.Offset, s.Size, s.Link, s.Info, s.Addralign, s.Entsize))
	}
	syms, _ := f.Symbols()
	for i, s := range syms {
		out = append(out, fmt.Sprintf("symbol [%2d] %-20q value %#x size %d bind %v type %v other %d section %v",
			i+1, s.Name, s.Value, s.Size, elf.ST_BIND(s.Info), elf.ST_TYPE(s.Info), s.Other, s.Section))
	}
	return out
}

// TestSetBeforeLabel: a symbol .set to a label (or constant) defined later
// is defined in the object, as llvm-mc makes it (it was undefined).
func TestSetBeforeLabel(t *testing.T) {
	src := "\t.globl g, h, c\n\t.set g, f\n\t.set h, f+4\n\t.set c, k\n\t.set k, 12\n\tbt h\n\tnop\n\t.type f,@function\nf:\tnop\n\tnop\n\t.size f, 8\n"
	res, err := Assemble([]Source{{"t.s", []byte(src)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type sym struct {
		Section     string
		Shndx       uint16
		Value, Size uint32
		Type        uint8
	}
	got := map[string]sym{}
	for _, s := range res.Object.Symbols {
		e := sym{Shndx: s.Shndx, Value: s.Value, Size: s.Size, Type: s.Type}
		if s.Section != nil {
			e.Section = s.Section.Name
		}
		got[s.Name] = e
	}
	want := map[string]sym{
		"g": {Section: ".text", Value: 8, Size: 8, Type: objfile.STT_FUNC},
		"h": {Section: ".text", Value: 12, Size: 8, Type: objfile.STT_FUNC},
		"c": {Shndx: objfile.SHN_ABS, Value: 12},
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %+v, want %+v", name, got[name], w)
		}
	}
	if r := res.Object.Sections[0].Relocs; len(r) != 1 || r[0].Sym.Name != "h" {
		t.Errorf("relocations %+v, want one against h", r)
	}
}
