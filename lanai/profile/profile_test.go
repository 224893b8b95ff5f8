package profile

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"

	"lanaiemu/asm"
	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
	"lanaiemu/memsys"
)

// loops: _start calls a (N iterations of a 3-instruction loop), then b
// (3N iterations of the same loop), then c, which calls a and b again,
// then exits. The NetVM firmware's CALL convention (rca set in the delay
// slot).
const loops = `
	.text
	.globl	_start
_start:
	mov	0x8000, %sp
	mov	1000, %r6
	bt	a
	add	%pc, 4, %rca
	mov	3000, %r6
	bt	b
	add	%pc, 4, %rca
	bt	c
	add	%pc, 4, %rca
	st	%r0, -4096[%r0]		! EXIT 0
	bt	.
	nop
a:
.La:	sub.f	%r6, 1, %r6
	bne	.La
	nop
	add	%rca, 0, %pc
	nop
b:
.Lb:	sub.f	%r6, 1, %r6
	bne	.Lb
	nop
	add	%rca, 0, %pc
	nop
c:
	st	%rca, [--%sp]
	mov	1000, %r6
	bt	a
	add	%pc, 4, %rca
	mov	3000, %r6
	bt	b
	add	%pc, 4, %rca
	ld	[%sp++], %rca
	add	%rca, 0, %pc
	nop
`

// build assembles and links src as loops.s.
func build(t *testing.T, src string) []byte {
	return lanaitest.Build(t, asm.Source{Name: "loops.s", Text: []byte(src)})
}

// load loads img on a default core.
func load(t *testing.T, img []byte) (*lanai.CPU, *memsys.Image) {
	return lanaitest.Load(t, img, lanai.Config{})
}

// byFunc sums a value by leaf function, and by function anywhere on the
// stack (cum).
func byFunc(pr *profile.Profile, value int) (flat, cum map[string]int64) {
	flat, cum = map[string]int64{}, map[string]int64{}
	for _, s := range pr.Sample {
		flat[s.Location[0].Line[0].Function.Name] += s.Value[value]
		seen := map[string]bool{}
		for _, l := range s.Location {
			if n := l.Line[0].Function.Name; !seen[n] {
				seen[n] = true
				cum[n] += s.Value[value]
			}
		}
	}
	return flat, cum
}

// The profile's total is the run's cycle count; each function gets the
// instructions its loops execute (3 per iteration, and the calls'
// overhead counted by hand) and cycles in the proportion of its
// iterations; c's cumulative share holds a's and b's second calls.
func TestExactAttribution(t *testing.T) {
	img := build(t, loops)
	plain, _ := load(t, img)
	if st := plain.Run(1 << 30); st.Kind != lanai.StopExit {
		t.Fatalf("plain run: %v", st.Kind)
	}
	c, im := load(t, img)
	p := New(im, nil)
	if st := p.Run(c, 1<<30); st.Kind != lanai.StopExit {
		t.Fatalf("profiled run: %v", st.Kind)
	}
	if c.Cycles != plain.Cycles || c.Instret != plain.Instret {
		t.Fatalf("profiled run: %d cycles %d instructions; plain: %d, %d", c.Cycles, c.Instret, plain.Cycles, plain.Instret)
	}
	pr := p.Profile(c.Config().ClockHz)
	require.NoError(t, pr.CheckValid())
	var total int64
	for _, s := range pr.Sample {
		total += s.Value[Cycles]
	}
	if total != int64(c.Cycles) || p.Total(Instructions) != int64(c.Instret) {
		t.Fatalf("profile total %d cycles %d instructions, run %d, %d", total, p.Total(Instructions), c.Cycles, c.Instret)
	}
	flat, cum := byFunc(pr, Instructions)
	// a: 2 calls x (1000 iterations x 3 + the return's 2); b: 2 x (3000 x 3 + 2).
	// c: push, mov, bt, slot, mov, bt, slot, pop, return, slot = 10.
	// _start: mov sp, mov, bt, slot, mov, bt, slot, bt, slot, st = 10 (the EXIT store stops the run).
	want := map[string]int64{"a": 2 * (1000*3 + 2), "b": 2 * (3000*3 + 2), "c": 10, "_start": 10}
	for f, n := range want {
		if flat[f] != n {
			t.Errorf("%s: %d instructions, want %d", f, flat[f], n)
		}
	}
	if cum["c"] != 10+1000*3+2+3000*3+2 {
		t.Errorf("c cum %d instructions", cum["c"])
	}
	fc, _ := byFunc(pr, Cycles)
	if r := float64(fc["b"]) / float64(fc["a"]); r < 2.99 || r > 3.01 {
		t.Errorf("b/a cycles %d/%d = %.4f, want 3", fc["b"], fc["a"], r)
	}
	t.Logf("cycles by function: %v (total %d)", fc, c.Cycles)
}

// An idle wait shows as an [idle] frame under its loop, with the skipped
// cycles, and the total is still exact.
func TestIdleFrame(t *testing.T) {
	img := build(t, `
	.text
	.globl _start
_start:
	mov	0x4000, %r7
	st	%r0, 0[%r7]
	bt	wait
	add	%pc, 4, %rca
	st	%r0, -4096[%r0]
	bt	.
	nop
wait:
.Lw:	ld	0[%r7], %r8
	sub.f	%r8, 0, %r0
	beq	.Lw
	nop
	add	%rca, 0, %pc
	nop
`)
	plain, _ := load(t, img)
	plain.Schedule(50_000, func() { plain.Mem.Write(0x4000, []byte{0, 0, 0, 1}) })
	plain.Run(1 << 30)
	c, im := load(t, img)
	p := New(im, nil)
	c.Schedule(50_000, func() { c.Mem.Write(0x4000, []byte{0, 0, 0, 1}) })
	if st := p.Run(c, 1<<30); st.Kind != lanai.StopExit {
		t.Fatalf("run: %v", st.Kind)
	}
	if c.SkippedCycles == 0 || c.SkippedCycles != plain.SkippedCycles || c.Cycles != plain.Cycles {
		t.Fatalf("profiled: %d cycles, %d skipped; plain: %d, %d", c.Cycles, c.SkippedCycles, plain.Cycles, plain.SkippedCycles)
	}
	pr := p.Profile(c.Config().ClockHz)
	var idle, total int64
	for _, s := range pr.Sample {
		total += s.Value[Cycles]
		if s.Location[0].Line[0].Function.Name == "[idle: polling loop skipped]" {
			idle += s.Value[Cycles]
			if s.Location[1].Line[0].Function.Name != "wait" {
				t.Errorf("idle under %s", s.Location[1].Line[0].Function.Name)
			}
		}
	}
	if total != int64(c.Cycles) || idle != int64(c.SkippedCycles) {
		t.Fatalf("total %d (run %d), idle %d (skipped %d)", total, c.Cycles, idle, c.SkippedCycles)
	}
}

// go tool pprof reads the file with no flags: -top lists the functions,
// -list shows the source lines.
func TestPprofReadsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool pprof")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	img := build(t, loops)
	c, im := load(t, img)
	p := New(im, nil)
	p.Run(c, 1<<30)
	dir := t.TempDir()
	file := filepath.Join(dir, "loops.pb.gz")
	var buf bytes.Buffer
	require.NoError(t, p.Write(&buf, c.Config().ClockHz))
	os.WriteFile(file, buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "loops.s"), []byte(loops), 0o644)
	out, err := exec.Command(gobin, "tool", "pprof", "-top", file).CombinedOutput()
	if err != nil || !strings.Contains(string(out), " b\n") || !strings.Contains(string(out), "100% of") {
		t.Fatalf("pprof -top: %v\n%s", err, out)
	}
	cmd := exec.Command(gobin, "tool", "pprof", "-list", "^a$", file)
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "sub.f") {
		t.Fatalf("pprof -list: %v\n%s", err, out)
	}
}

// The flame graph is well-formed SVG with a frame for each function,
// titled with its value, the root holding the total.
func TestWriteFlame(t *testing.T) {
	c, im := load(t, build(t, loops))
	p := New(im, nil)
	p.Run(c, 1<<30)
	var buf bytes.Buffer
	require.NoError(t, WriteFlame(&buf, p.Profile(c.Config().ClockHz), Cycles, "loops"))
	d := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
	}
	out := buf.String()
	for _, want := range []string{"<title>all: " + strconv.FormatUint(c.Cycles, 10) + " (100.0%)</title>", "<title>a: ", "<title>b: ", "<title>c: ", "<title>_start: "} {
		if !strings.Contains(out, want) {
			t.Errorf("flame graph lacks %q", want)
		}
	}
	if err := WriteFlame(&buf, p.Profile(1), 9, ""); err == nil {
		t.Error("value 9 accepted")
	}
}

// An event due at the cycle where a run stops runs before the run
// returns, in a profiled run as in a plain one (a cluster's host events
// come after it: the order was different once, and netvm bench's figures
// with it).
func TestEventsAtTheLimit(t *testing.T) {
	img := build(t, loops)
	for _, profiled := range []bool{false, true} {
		c, im := load(t, img)
		fired := uint64(0)
		c.Schedule(1000, func() { fired = c.Cycles })
		var st *lanai.Stop
		if profiled {
			st = New(im, nil).Run(c, 1000)
		} else {
			st = c.Run(1000)
		}
		if st.Kind != lanai.StopCycleLimit || fired == 0 {
			t.Errorf("profiled %v: stopped %v at %d, the event at 1000 fired at %d", profiled, st.Kind, c.Cycles, fired)
		}
	}
}

// A C program built with clang -g is profiled by C line: its functions'
// locations carry the .c file and line from the DWARF line table, as the
// debugger reads it.
func TestCLines(t *testing.T) {
	files, _ := filepath.Glob("../../firmware/crt/src/*.s")
	img := lanaitest.BuildFiles(t, append(files, "../../fixtures/c/g/recursion.O0.s")...)
	c, im := load(t, img)
	p := New(im, nil)
	if st := p.Run(c, 1<<32); st.Kind != lanai.StopExit {
		t.Fatalf("run: %v", st.Kind)
	}
	pr := p.Profile(c.Config().ClockHz)
	cLines := map[string]bool{}
	for _, l := range pr.Location {
		for _, ln := range l.Line {
			if strings.HasSuffix(ln.Function.Filename, ".c") && ln.Line > 0 {
				cLines[ln.Function.Name] = true
			}
		}
	}
	if !cLines["main"] || !cLines["hanoi"] {
		t.Fatalf("functions with C lines: %v", cLines)
	}
}
