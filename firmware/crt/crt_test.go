package crt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/isa"
	"lanaiemu/objfile"
)

// wantGlobals lists the global functions each runtime file must define.
var wantGlobals = map[string][]string{
	"crt0.s":   {"_start", "_exit"},
	"int32.s":  {"__mulsi3", "__udivsi3", "__umodsi3", "__divsi3", "__modsi3"},
	"int64.s":  {"__muldi3", "__udivdi3", "__umoddi3", "__divdi3", "__moddi3", "__ashldi3", "__lshrdi3", "__ashrdi3", "__negdi2", "__cmpdi2", "__ucmpdi2"},
	"string.s": {"memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp"},
}

// runtimeUndefined is what the runtime may leave undefined: the program's
// main and the linker-defined layout symbols.
var runtimeUndefined = map[string]bool{"main": true, "__stack_top": true, "__bss_start": true, "__bss_end": true}

const fixtures = "../../fixtures/c"

// runtimeFiles returns the runtime's .s files (src/*.s) in the order a
// shell glob gives them (crt0.s must come first so that _start is at
// address 0).
func runtimeFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("src", "*.s"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 || filepath.Base(files[0]) != "crt0.s" {
		t.Fatalf("runtime files %v: crt0.s must sort first", files)
	}
	return files
}

// assembleRuntime assembles every runtime file with package asm (a fresh
// set of objects per call, so links never share state).
func assembleRuntime(t *testing.T) ([]*objfile.File, []string) {
	t.Helper()
	var objs []*objfile.File
	var names []string
	for _, f := range runtimeFiles(t) {
		r, err := asm.AssembleFile(f, asm.Options{})
		if err != nil {
			t.Fatalf("assembling %s: %v", f, err)
		}
		objs = append(objs, r.Object)
		names = append(names, f)
	}
	return objs, names
}

// TestRuntimeSymbols assembles every .s file of src/ and checks that each
// defines its expected global functions, that every helper is defined
// exactly once across the runtime, that nothing but main and the
// linker-defined symbols is left undefined, and that no runtime code calls
// a runtime helper (a helper compiled into a call to itself would recurse
// forever; clang lowers a 64-bit '*' or signed '>>' to such calls).
func TestRuntimeSymbols(t *testing.T) {
	objs, names := assembleRuntime(t)
	defs := map[string][]string{}
	for i, obj := range objs {
		name := names[i]
		want, ok := wantGlobals[filepath.Base(name)]
		if !ok {
			t.Errorf("%s: unexpected runtime file (add it to wantGlobals)", name)
		}
		for _, g := range want {
			s := obj.Symbol(g)
			if s == nil || !s.IsDefined() || s.Bind != objfile.STB_GLOBAL || s.Section == nil {
				t.Errorf("%s: %s is not a defined global", name, g)
				continue
			}
			if s.Type != objfile.STT_FUNC || s.Size == 0 {
				t.Errorf("%s: %s: type %d size %d, want a sized function", name, g, s.Type, s.Size)
			}
			if s.Section.Flags&objfile.SHF_EXECINSTR == 0 {
				t.Errorf("%s: %s is in non-code section %s", name, g, s.Section.Name)
			}
		}
		for _, s := range obj.Symbols {
			switch {
			case s.Bind == objfile.STB_LOCAL:
			case s.IsDefined():
				defs[s.Name] = append(defs[s.Name], name)
			case !runtimeUndefined[s.Name]:
				t.Errorf("%s: undefined symbol %s", name, s.Name)
			}
		}
		for _, sec := range obj.Sections {
			for _, r := range sec.Relocs {
				if r.Sym != nil && isHelper(r.Sym.Name) {
					t.Errorf("%s: %s+%#x refers to runtime symbol %s", name, sec.Name, r.Offset, r.Sym.Name)
				}
			}
		}
	}
	for _, files := range wantGlobals {
		for _, g := range files {
			if len(defs[g]) != 1 {
				t.Errorf("%s defined %d times (%v), want once", g, len(defs[g]), defs[g])
			}
		}
	}
	for g, where := range defs {
		if len(where) > 1 {
			t.Errorf("global %s defined in %v", g, where)
		}
	}
}

func isHelper(name string) bool {
	for f, gs := range wantGlobals {
		if f == "crt0.s" {
			continue
		}
		for _, g := range gs {
			if g == name {
				return true
			}
		}
	}
	return false
}

// TestCrt0Layout links crt0 with a minimal main and checks the symbols
// crt0 relies on.
func TestCrt0Layout(t *testing.T) {
	objs, names := assembleRuntime(t)
	r, err := asm.Assemble([]asm.Source{{Name: "main.s", Text: []byte(`
	.text
	.globl	main
main:
	ld	-4[%fp], %pc
	add	%fp, 0x0, %sp
	ld	-8[%fp], %fp
	.section .bss,"aw",@nobits
	.globl	zeroed
zeroed:
	.zero	7
`)}}, asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := link.Link(append(objs, r.Object), append(names, "main.s"), link.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sym := symbols(out)
	if sym["_start"] != 0 || out.Entry != 0 {
		t.Errorf("_start = %#x, entry = %#x; want both 0", sym["_start"], out.Entry)
	}
	if top := sym["__stack_top"]; top == 0 || top%8 != 0 {
		t.Errorf("__stack_top = %#x, want a non-zero multiple of 8", top)
	}
	if sym["__bss_end"]-sym["__bss_start"] < 7 {
		t.Errorf(".bss [%#x, %#x) does not hold the 7-byte object", sym["__bss_start"], sym["__bss_end"])
	}
	// the call sequence: add %pc, 0x10, %rca; st %rca, [--%sp]; bt main
	text := out.Sections[0].Data
	found := false
	for off := 0; off+12 <= len(text); off += 4 {
		w := func(i int) uint32 { return binary.BigEndian.Uint32(text[off+4*i:]) }
		if w(0) == 0x07880010 && w(1) == 0x9793fffc && w(2) == 0xe0000000|sym["main"] {
			found = true
			// the return address (pc+16) must be the instruction that
			// passes rv on to _exit, right before it
			ret := uint32(off) + 16
			if got := binary.BigEndian.Uint32(text[ret:]); got != 0x53200000 { // or %rv, 0x0, %r6
				t.Errorf("return point %#x holds %08x, want or %%rv, 0x0, %%r6", ret, got)
			}
			if sym["_exit"] != ret+4 {
				t.Errorf("_exit = %#x, want %#x (right after the return point)", sym["_exit"], ret+4)
			}
		}
	}
	if !found {
		t.Error("no clang-style call of main in crt0")
	}
	if got := binary.BigEndian.Uint32(text[sym["_exit"]:]); got != 0x9302f000 { // st %r6, -4096[%r0]
		t.Errorf("_exit starts with %08x, want st %%r6, -4096[%%r0] (93 02 f0 00)", got)
	}
}

func symbols(f *objfile.File) map[string]uint32 {
	m := map[string]uint32{}
	for _, s := range f.Symbols {
		if s.Bind != objfile.STB_LOCAL {
			m[s.Name] = s.Value
		}
	}
	return m
}

// TestLinkFixtures links every fixtures/c/s/*.s (clang -S output at
// several optimisation levels) with the runtime: every symbol must resolve.
func TestLinkFixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "s", "*.s"))
	if len(files) == 0 {
		t.Skip("no fixtures/c/s/*.s files")
	}
	for _, f := range files {
		r, err := asm.AssembleFile(f, asm.Options{})
		if err != nil {
			t.Errorf("assembling %s: %v", f, err)
			continue
		}
		objs, names := assembleRuntime(t)
		out, err := link.Link(append(objs, r.Object), append(names, filepath.Base(f)), link.Options{})
		if err != nil {
			t.Errorf("linking %s with the runtime: %v", f, err)
			continue
		}
		if out.Entry != 0 {
			t.Errorf("%s: entry %#x, want 0", f, out.Entry)
		}
	}
	t.Logf("linked %d fixture programs with the runtime", len(files))
}

// TestRegenerated checks that the committed helper .s files are what
// gen.sh produces from src/*.c (needs clang-14).
func TestRegenerated(t *testing.T) {
	if _, err := exec.LookPath("clang-14"); err != nil {
		t.Skip("clang-14 not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("bash", "gen.sh", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen.sh: %v\n%s", err, out)
	}
	srcs, _ := filepath.Glob("src/*.c")
	if len(srcs) == 0 {
		t.Fatal("no src/*.c")
	}
	for _, c := range srcs {
		name := strings.TrimSuffix(filepath.Base(c), ".c") + ".s"
		got, err := os.ReadFile(filepath.Join("src", name))
		if err != nil {
			t.Errorf("%s: %v (run gen.sh)", name, err)
			continue
		}
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: run firmware/crt/gen.sh", name)
		}
	}
}

// TestClangObjects compiles each fixtures/c/*.c with clang-14 twice: -c
// (clang's integrated assembler) and -S (assembled by lanai-as), links
// both with the runtime, and compares the images word by word. The only
// accepted differences are equivalent encodings of `mov K, %rX`.
func TestClangObjects(t *testing.T) {
	if _, err := exec.LookPath("clang-14"); err != nil {
		t.Skip("clang-14 not installed")
	}
	progs, _ := filepath.Glob(filepath.Join(fixtures, "*.c"))
	if len(progs) == 0 {
		t.Skip("no fixtures/c/*.c programs")
	}
	dir := t.TempDir()
	var movs atomic.Int64
	t.Run("progs", func(t *testing.T) {
		for _, c := range progs {
			base := strings.TrimSuffix(filepath.Base(c), ".c")
			t.Run(base, func(t *testing.T) {
				t.Parallel()
				n, err := compareClangLanaiAs(t, c, filepath.Join(dir, base))
				if err != nil {
					t.Error(err)
				}
				movs.Add(int64(n))
			})
		}
	})
	t.Logf("%d programs: images identical except %d equivalent mov encodings", len(progs), movs.Load())
}

// compareClangLanaiAs builds the program c both ways (temporary files at
// stem.o and stem.s), links each with the runtime and compares the images.
func compareClangLanaiAs(t *testing.T, c, stem string) (int, error) {
	flags := []string{"--target=lanai", "-O2", "-ffreestanding"}
	obj, src := stem+".o", stem+".s"
	if out, err := exec.Command("clang-14", append(flags, "-c", c, "-o", obj)...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("clang -c %s: %v\n%s", c, err, out)
	}
	if out, err := exec.Command("clang-14", append(flags, "-S", c, "-o", src)...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("clang -S %s: %v\n%s", c, err, out)
	}
	data, err := os.ReadFile(obj)
	if err != nil {
		return 0, err
	}
	clangObj, err := objfile.Read(data)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", obj, err)
	}
	objs, names := assembleRuntime(t)
	exe1, err := link.Link(append(objs, clangObj), append(names, filepath.Base(obj)), link.Options{})
	if err != nil {
		return 0, fmt.Errorf("linking clang -c %s with the runtime: %v", c, err)
	}
	r, err := asm.AssembleFile(src, asm.Options{})
	if err != nil {
		return 0, fmt.Errorf("lanai-as %s: %v", src, err)
	}
	objs, names = assembleRuntime(t)
	exe2, err := link.Link(append(objs, r.Object), append(names, filepath.Base(src)), link.Options{})
	if err != nil {
		return 0, fmt.Errorf("linking lanai-as %s with the runtime: %v", src, err)
	}
	n, err := compareImages(exe1, exe2)
	if err != nil {
		return n, fmt.Errorf("clang -c and lanai-as images differ: %v", err)
	}
	if n > 0 {
		t.Logf("%d equivalent mov encodings", n)
	}
	return n, nil
}

// compareImages compares the allocated sections of two executables and
// returns the number of words that differ only as equivalent constant
// loads.
func compareImages(a, b *objfile.File) (int, error) {
	if a.Entry != b.Entry {
		return 0, fmt.Errorf("entry %#x vs %#x", a.Entry, b.Entry)
	}
	if len(a.Sections) != len(b.Sections) {
		return 0, fmt.Errorf("%d vs %d sections", len(a.Sections), len(b.Sections))
	}
	movs := 0
	var errs []string
	for i, sa := range a.Sections {
		sb := b.Sections[i]
		if sa.Name != sb.Name || sa.Addr != sb.Addr || sa.Size != sb.Size || sa.Type != sb.Type {
			return 0, fmt.Errorf("section %d: %s@%#x+%#x vs %s@%#x+%#x", i, sa.Name, sa.Addr, sa.Size, sb.Name, sb.Addr, sb.Size)
		}
		if sa.Type == objfile.SHT_NOBITS {
			continue
		}
		da, db := sa.Data, sb.Data
		for off := 0; off < len(da); off += 4 {
			end := min(off+4, len(da))
			if bytes.Equal(da[off:end], db[off:end]) {
				continue
			}
			addr := sa.Addr + uint32(off)
			if end-off == 4 && sa.Flags&objfile.SHF_EXECINSTR != 0 {
				wa, wb := binary.BigEndian.Uint32(da[off:]), binary.BigEndian.Uint32(db[off:])
				if sameConstLoad(wa, wb) {
					movs++
					continue
				}
			}
			if len(errs) < 10 {
				errs = append(errs, fmt.Sprintf("%s %#x: % x vs % x", sa.Name, addr, da[off:end], db[off:end]))
			}
		}
	}
	if errs != nil {
		return movs, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return movs, nil
}

// constLoad reports the register and value of an instruction that sets a
// register to a constant without touching flags: add from r0, and from r1
// (which reads as all ones), or SLI.
func constLoad(w uint32) (isa.Reg, uint32, bool) {
	in := isa.Decode(w)
	switch {
	case !in.Valid():
	case in.Class == isa.SLI:
		return in.Rd, in.Imm, true
	case in.Class == isa.RI && !in.F && in.ALU == isa.Add && in.Rs1 == 0:
		return in.Rd, in.Imm, true
	case in.Class == isa.RI && !in.F && in.ALU == isa.And && in.Rs1 == 1:
		return in.Rd, in.Imm, true
	}
	return 0, 0, false
}

func sameConstLoad(a, b uint32) bool {
	ra, va, oka := constLoad(a)
	rb, vb, okb := constLoad(b)
	return oka && okb && ra == rb && va == vb
}

// TestHostHelpers compiles the helpers' C sources for the host together
// with hosttest/driver.c and runs it: the C logic must agree with the
// host's native 32/64-bit operators (see driver.c for the cases).
func TestHostHelpers(t *testing.T) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("host C compiler %q not found", cc)
	}
	srcs, _ := filepath.Glob("hosttest/*.c")
	exe := filepath.Join(t.TempDir(), "hosttest")
	base := []string{"-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fno-builtin", "-o", exe}
	// Prefer UBSan, and keep gcc from turning the byte loops into libc
	// calls; fall back to plainer builds where the compiler lacks them.
	var log []string
	built := false
	for _, extra := range [][]string{
		{"-fno-tree-loop-distribute-patterns", "-fsanitize=undefined", "-fno-sanitize-recover=all"},
		{"-fsanitize=undefined", "-fno-sanitize-recover=all"},
		{"-fno-tree-loop-distribute-patterns"},
		nil,
	} {
		args := append(append(append([]string{}, base...), extra...), srcs...)
		out, err := exec.Command(cc, args...).CombinedOutput()
		if err == nil {
			t.Logf("built with %s %s", cc, strings.Join(extra, " "))
			built = true
			break
		}
		log = append(log, fmt.Sprintf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, out))
	}
	if !built {
		t.Fatalf("cannot build the host test:\n%s", strings.Join(log, "\n"))
	}
	out, err := exec.Command(exe).CombinedOutput()
	if err != nil {
		t.Fatalf("host test failed: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`crt hosttest: (\d+) checks, 0 failures`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("unexpected host test output:\n%s", out)
	}
	if n, _ := strconv.Atoi(string(m[1])); n < 1000000 {
		t.Errorf("only %d checks ran", n)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

// TestSameConstLoad pins down which encoding differences TestClangObjects
// accepts.
func TestSameConstLoad(t *testing.T) {
	for _, c := range []struct {
		a, b uint32
		want bool
	}{
		{0xf1820007, 0x01800007, true},  // mov 7, %r3: SLI vs add %r0, 7
		{0x01800007, 0xf1820007, true},  // either way round
		{0x41850000, 0x0180ffff, true},  // mov 0xffff, %r3: and %r1, 0xffff vs add %r0, 0xffff
		{0x4184fff9, 0xf1fefff9, false}, // mov 0xfffffff9 vs mov 0x1ffff9 (SLI)
		{0xf1820007, 0x02000007, false}, // different register
		{0xf1820007, 0x01800008, false}, // different value
		{0xf1820007, 0x01820007, false}, // add.f sets flags
		{0xf1820007, 0x518c0007, false}, // or %r3, 7, %r3 is not a constant load
		{0xf1820007, 0x01840007, false}, // add %r1, 7 is not 7
	} {
		if got := sameConstLoad(c.a, c.b); got != c.want {
			t.Errorf("sameConstLoad(%08x, %08x) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestCrt0LLVM assembles crt0.s with llvm-mc-14 too: it is written in the
// common dialect, so the code and relocations must be identical.
func TestCrt0LLVM(t *testing.T) {
	if _, err := exec.LookPath("llvm-mc-14"); err != nil {
		t.Skip("llvm-mc-14 not installed")
	}
	obj := filepath.Join(t.TempDir(), "crt0.o")
	if out, err := exec.Command("llvm-mc-14", "-triple=lanai", "-filetype=obj", "src/crt0.s", "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("llvm-mc-14: %v\n%s", err, out)
	}
	data, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	want, err := objfile.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := asm.AssembleFile("src/crt0.s", asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws, gs := want.Section(".text"), r.Object.Section(".text")
	if ws == nil || gs == nil {
		t.Fatal("no .text")
	}
	if !bytes.Equal(ws.Data, gs.Data) {
		t.Errorf(".text differs:\nllvm-mc  % x\nlanai-as % x", ws.Data, gs.Data)
	}
	rel := func(s *objfile.Section) []string {
		var l []string
		for _, r := range s.Relocs {
			// local targets by place: the assemblers name temporary
			// labels (bt .) differently
			target := r.Sym.Name
			if r.Sym.Bind == objfile.STB_LOCAL && r.Sym.Section != nil {
				target = fmt.Sprintf("%s+%#x", r.Sym.Section.Name, r.Sym.Value)
			}
			l = append(l, fmt.Sprintf("%#x %v %s%+d", r.Offset, r.Type, target, r.Addend))
		}
		sort.Strings(l)
		return l
	}
	if w, g := rel(ws), rel(gs); strings.Join(w, "\n") != strings.Join(g, "\n") {
		t.Errorf("relocations differ:\nllvm-mc:\n%s\nlanai-as:\n%s", strings.Join(w, "\n"), strings.Join(g, "\n"))
	}
}
