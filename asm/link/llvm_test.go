package link

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/objfile"
)

func readObj(t *testing.T, path string) *objfile.File {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := objfile.Read(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// TestWorkedExample links the LLVM-made objects of isa.md §6.4 (crt0.o
// from the §6.2 stub, ex.o from clang -O2) and compares the image with the
// golden trace there: every (address, word) pair the trace executes.
func TestWorkedExample(t *testing.T) {
	objs := []*objfile.File{readObj(t, "testdata/crt0.o"), readObj(t, "testdata/ex.o")}
	out, err := Link(objs, []string{"crt0.o", "ex.o"}, Options{})
	require.NoError(t, err)
	if out.Entry != 0 {
		t.Errorf("entry %#x", out.Entry)
	}
	for name, addr := range map[string]uint32{"_start": 0, "_halt": 0x1c, "add": 0x24, "main": 0x40} {
		if got := symbolAddr(t, out, name); got != addr {
			t.Errorf("%s = %#x, want %#x", name, got, addr)
		}
	}
	trace := `
0000 02010010 0004 52900000 0008 07880010 000c 9793fffc 0010 e0000040 0014 00000001
0040 9293fffc 0044 02900008 0048 22100008 004c f3020028 0050 07880010 0054 9793fffc
0058 e0000024 005c f3820002 0024 9293fffc 0028 02900008 002c 22100008 0030 c41c3000
0034 8116fffc 0038 02140000 003c 8296fff8 0060 8116fffc 0064 02140000 0068 8296fff8
0018 f47dfffc 001c e000001c`
	f := strings.Fields(trace)
	for i := 0; i+1 < len(f); i += 2 {
		addr, _ := strconv.ParseUint(f[i], 16, 32)
		want, _ := strconv.ParseUint(f[i+1], 16, 32)
		if got := word(t, out, uint32(addr)); got != uint32(want) {
			t.Errorf("word at %#04x = %08x, want %08x (isa.md §6.4 trace)", addr, got, want)
		}
	}
	if s := out.Section(".text"); s == nil || s.Size != 0x6c {
		t.Errorf(".text = %+v, want size 0x6c", s)
	}
}

func lookTool(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s not on PATH", n)
		}
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("%s %s wrote to stderr:\n%s", name, strings.Join(args, " "), stderr.String())
	}
	return stdout.String()
}

const liveMain = `
extern int sum(const int *v, int n);
extern int scale(int x);
extern int table[];
static int twice(int x) { return x + x; }
int counter;
const char *greeting = "hello";
int main(void) {
	counter = sum(table, 4);
	return scale(counter) + twice(greeting[1]);
}
`

const liveLib = `
int table[4] = {1, 2, 3, 4};
int factor = 3;
int sum(const int *v, int n) {
	int s = 0;
	for (int i = 0; i < n; i++) s += v[i];
	return s;
}
int scale(int x) {
	switch (x & 7) {
	case 0: return x + factor;
	case 1: return x - 1;
	case 2: return x << factor;
	case 3: return x ^ 0x55;
	case 4: return x | 0x100;
	default: return x;
	}
}
`

// TestLiveClang compiles a two-file C program with clang-14 and the §6.2
// crt0 with llvm-mc-14, links them, and checks the executable with
// llvm-readelf-14 and llvm-objdump-14: every direct branch in the
// disassembly must target the address of the symbol the object's
// relocation named, and every hi/lo pair must form that symbol's address.
func TestLiveClang(t *testing.T) {
	lookTool(t, "clang-14", "llvm-mc-14", "llvm-objdump-14", "llvm-readelf-14")
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	crt0 := filepath.Join(dir, "crt0.o")
	run(t, "llvm-mc-14", "-triple=lanai", "-filetype=obj", "testdata/crt0.s", "-o", crt0)
	var objPaths []string
	for _, n := range []string{"main", "lib"} {
		src := write(n+".c", map[string]string{"main": liveMain, "lib": liveLib}[n])
		o := filepath.Join(dir, n+".o")
		run(t, "clang-14", "--target=lanai", "-O2", "-ffreestanding", "-c", src, "-o", o)
		objPaths = append(objPaths, o)
	}
	paths := append([]string{crt0}, objPaths...)
	var objs []*objfile.File
	for _, p := range paths {
		objs = append(objs, readObj(t, p))
	}
	var mapBuf bytes.Buffer
	out, err := Link(objs, []string{"crt0.o", "main.o", "lib.o"}, Options{MapFile: &mapBuf})
	require.NoError(t, err)
	b, err := out.WriteELF()
	require.NoError(t, err)
	exe := filepath.Join(dir, "a.out")
	require.NoError(t, os.WriteFile(exe, b, 0o755))

	// llvm-readelf accepts the executable.
	re := run(t, "llvm-readelf-14", "-h", "-l", "-S", "-s", exe)
	for _, want := range []string{"EXEC (Executable file)", "EM_LANAI", "LOAD", " main", " sum", " scale", " table", " counter"} {
		if !strings.Contains(re, want) {
			t.Errorf("llvm-readelf output lacks %q:\n%s", want, re)
		}
	}
	if low := strings.ToLower(re); strings.Contains(low, "warning") || strings.Contains(low, "error") {
		t.Errorf("llvm-readelf complains:\n%s", re)
	}

	// Symbol addresses from llvm-readelf -s.
	addrOf := map[string]uint64{}
	symRE := regexp.MustCompile(`^\s*\d+: ([0-9a-f]{8})\s+\d+\s+\w+\s+\w+\s+\w+\s+\S+\s+(\S+)$`)
	for _, line := range strings.Split(re, "\n") {
		if m := symRE.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseUint(m[1], 16, 32)
			addrOf[m[2]] = v
		}
	}
	for _, n := range []string{"_start", "main", "sum", "scale", "table", "counter", "greeting", "__bss_start", "_end"} {
		if _, ok := addrOf[n]; !ok {
			t.Errorf("llvm-readelf lists no symbol %s", n)
		}
	}

	// Expected branch targets: for every R_LANAI_25 in the inputs, the
	// named symbol's final address (globals from llvm-readelf, locals as
	// input-section address + value, with input-section addresses taken
	// from the map file).
	secAddr := mapInputSections(t, mapBuf.String())
	names := []string{"crt0.o", "main.o", "lib.o"}
	wantBranch := map[uint64]uint64{} // instruction address → target
	wantHiLo := map[uint64]uint64{}   // instruction address → value
	for i, f := range objs {
		for _, s := range f.Sections {
			base, ok := secAddr[names[i]+":"+s.Name]
			if !ok {
				continue
			}
			for _, r := range s.Relocs {
				var target uint64
				switch {
				case r.Sym.Bind != objfile.STB_LOCAL:
					v, ok := addrOf[r.Sym.Name]
					if !ok {
						t.Fatalf("no address for %s", r.Sym.Name)
					}
					target = v
				default:
					sb, ok := secAddr[names[i]+":"+r.Sym.Section.Name]
					if !ok {
						t.Fatalf("no address for section %s of %s", r.Sym.Section.Name, names[i])
					}
					target = sb + uint64(r.Sym.Value)
				}
				target = uint64(uint32(target + uint64(int64(r.Addend))))
				switch r.Type {
				case objfile.R_LANAI_25:
					wantBranch[base+uint64(r.Offset)] = target
				case objfile.R_LANAI_HI16:
					wantHiLo[base+uint64(r.Offset)] = target >> 16
				case objfile.R_LANAI_LO16:
					wantHiLo[base+uint64(r.Offset)] = target & 0xffff
				}
			}
		}
	}
	if len(wantBranch) < 5 {
		t.Fatalf("only %d branches found in the inputs", len(wantBranch))
	}

	dis := run(t, "llvm-objdump-14", "-d", exe)
	insRE := regexp.MustCompile(`^\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} ){4}\s*(\S+)\s*(.*)$`)
	seenBranch, seenHiLo := 0, 0
	for _, line := range strings.Split(dis, "\n") {
		m := insRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		addr, _ := strconv.ParseUint(m[1], 16, 32)
		ops := m[3]
		if want, ok := wantBranch[addr]; ok {
			seenBranch++
			// e.g. "bt	0x40 <main>" or "bne 0x1c4 <sum+0x20>"
			fields := strings.Fields(ops)
			if len(fields) == 0 {
				t.Errorf("%#x: branch without operand: %s", addr, line)
				continue
			}
			got, err := strconv.ParseUint(strings.TrimPrefix(fields[0], "0x"), 16, 32)
			if err != nil || got != want {
				t.Errorf("%#x: %s %s targets %s, want %#x", addr, m[2], ops, fields[0], want)
			}
		}
		if want, ok := wantHiLo[addr]; ok {
			seenHiLo++
			if !strings.Contains(ops, fmt.Sprintf("0x%x,", want)) {
				t.Errorf("%#x: %s %s, want immediate %#x", addr, m[2], ops, want)
			}
		}
	}
	if seenBranch != len(wantBranch) || seenHiLo != len(wantHiLo) {
		t.Errorf("checked %d/%d branches and %d/%d hi/lo immediates in the disassembly", seenBranch, len(wantBranch), seenHiLo, len(wantHiLo))
	}
	t.Logf("checked %d branch targets and %d hi/lo immediates", seenBranch, seenHiLo)
	// Spot checks: crt0's call to main and its halt loop.
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^\s+10:.*\bbt\s+0x%x <main>`, addrOf["main"])).MatchString(dis) {
		t.Errorf("crt0 does not branch to main at %#x:\n%s", addrOf["main"], dis)
	}
	if !regexp.MustCompile(`(?m)^\s+1c:.*\bbt\s+0x1c <_halt>`).MatchString(dis) {
		t.Errorf("crt0 halt loop is not bt 0x1c:\n%s", dis)
	}
}

// mapInputSections parses the map file's input-section lines into
// "object:section" → address.
func mapInputSections(t *testing.T, m string) map[string]uint64 {
	t.Helper()
	res := map[string]uint64{}
	lineRE := regexp.MustCompile(`^ (\.\S+)\s+0x([0-9a-f]{8}) 0x[0-9a-f]{8} (\S+)$`)
	for _, line := range strings.Split(m, "\n") {
		if mm := lineRE.FindStringSubmatch(line); mm != nil {
			v, _ := strconv.ParseUint(mm[2], 16, 32)
			res[mm[3]+":"+mm[1]] = v
		}
	}
	if len(res) == 0 {
		t.Fatalf("no input sections in the map:\n%s", m)
	}
	return res
}

// TestCorruptInputs links randomly corrupted copies of the LLVM objects:
// whatever objfile accepts, Link must reject with an error or link, never
// panic.
func TestCorruptInputs(t *testing.T) {
	crt0, err := os.ReadFile("testdata/crt0.o")
	require.NoError(t, err)
	exData, err := os.ReadFile("testdata/ex.o")
	require.NoError(t, err)
	rng := rand.New(rand.NewSource(2))
	linked := 0
	for i := 0; i < 3000; i++ {
		a, b := append([]byte{}, crt0...), append([]byte{}, exData...)
		for k := rng.Intn(3); k >= 0; k-- {
			c := a
			if rng.Intn(2) == 0 {
				c = b
			}
			c[rng.Intn(len(c))] = byte(rng.Intn(256))
		}
		fa, errA := objfile.Read(a)
		fb, errB := objfile.Read(b)
		if errA != nil || errB != nil {
			continue
		}
		out, err := Link([]*objfile.File{fa, fb}, []string{"crt0.o", "ex.o"}, Options{MapFile: io.Discard})
		if err == nil {
			linked++
			if _, err := out.WriteELF(); err != nil {
				t.Errorf("writing a linked image: %v", err)
			}
		}
	}
	t.Logf("%d of 3000 corrupted pairs linked", linked)
}
