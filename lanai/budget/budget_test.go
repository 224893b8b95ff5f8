package budget

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/asm"
	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
	"lanaiemu/lanai/profile"
	"lanaiemu/memsys"
)

// prog: _start calls work twice; work runs n iterations of a 3-cycle loop,
// then calls helper, which runs m; then the program exits.
func prog(n, m int) string {
	return strings.NewReplacer("$N", strconv.Itoa(n), "$M", strconv.Itoa(m)).Replace(`
	.text
	.globl	_start
_start:
	mov	0x8000, %sp
	bt	work
	add	%pc, 4, %rca
	bt	work
	add	%pc, 4, %rca
done:
	st	%r0, -4096[%r0]
	bt	.
	nop
work:
	st	%rca, [--%sp]
	mov	$N, %r6
.Lw:	sub.f	%r6, 1, %r6
	bne	.Lw
	nop
	bt	helper
	add	%pc, 4, %rca
	ld	[%sp++], %rca
	add	%rca, 0, %pc
	nop
helper:
	mov	$M, %r6
.Lh:	sub.f	%r6, 1, %r6
	bne	.Lh
	nop
	add	%rca, 0, %pc
	nop
`)
}

// load assembles src and loads it into a new core.
func load(t *testing.T, src string) (*lanai.CPU, *memsys.Image) {
	t.Helper()
	return lanaitest.Load(t, lanaitest.Build(t, asm.Source{Name: "p.s", Text: []byte(src)}), lanai.Config{})
}

// measure runs src with a meter of f and returns its results.
func measure(t *testing.T, f *File, src string) []Result {
	t.Helper()
	c, im := load(t, src)
	m, err := NewMeter(f, im)
	require.NoError(t, err)
	if st := profile.Run(c, 1<<30, []profile.Observer{m}); st.Kind != lanai.StopExit {
		t.Fatalf("run: %v", st.Kind)
	}
	return m.Results()
}

const budgets = `# test budgets
work        work     ret     0  0
helper      helper   ret     0  +5%
whole       _start   done    0  +10
`

// -update writes each path's worst run and breakdown; the same program
// then passes; a helper that loops longer fails with the path, its old
// and new cycles and the routine that grew, while the path with room
// within its tolerance passes.
func TestUpdateThenCheck(t *testing.T) {
	name := filepath.Join(t.TempDir(), "budgets.txt")
	os.WriteFile(name, []byte(budgets), 0o644)
	f, err := Load(name)
	require.NoError(t, err)
	if err := Verify(f, measure(t, f, prog(100, 50)), true); err != nil {
		t.Fatalf("update: %v", err)
	}
	f, err = Load(name) // as written
	require.NoError(t, err)
	byName := map[string]*Path{}
	for _, p := range f.Paths {
		byName[p.Name] = p
	}
	// helper: mov + 50 x 3 + return 2 = 153 cycles; work: its own
	// push, mov, 100 x 3, call 2, pop, its use by the return 1 (an
	// interlock), return 2 = 308, plus helper's.
	if h := byName["helper"]; h.Cycles != 153 || len(h.Breakdown) != 1 || h.Breakdown[0] != (Share{"helper", 153}) {
		t.Fatalf("helper after update: %d %v", h.Cycles, h.Breakdown)
	}
	if w := byName["work"]; w.Cycles != 308+153 || len(w.Breakdown) != 2 || w.Breakdown[0].Routine != "work" {
		t.Fatalf("work after update: %d %v", w.Cycles, w.Breakdown)
	}
	if err := f.Check(measure(t, f, prog(100, 50))); err != nil {
		t.Fatalf("the same program: %v", err)
	}
	// helper 52 iterations: +6 cycles, within its 5% (160), not work's 0.
	err = f.Check(measure(t, f, prog(100, 52)))
	if !errors.Is(err, ErrOverBudget) {
		t.Fatalf("a longer helper: %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "work: 467 cycles, budget 461 0 (limit 461): 6 more; helper grew most: 153 -> 159 cycles") ||
		strings.Contains(msg, ": helper:") || !strings.Contains(msg, ": whole:") {
		t.Fatalf("message:\n%s", msg)
	}
}

// A path that never runs fails; bad files and unknown symbols are errors
// that name the file and line.
func TestNeverRanAndBadFiles(t *testing.T) {
	f, err := Parse("b.txt", []byte("never  helper  _start  10  0\n"))
	require.NoError(t, err)
	if err := f.Check(measure(t, f, prog(1, 1))); err == nil || !strings.Contains(err.Error(), "b.txt:1: never: never ran from helper to _start") {
		t.Fatalf("never ran: %v", err)
	}
	for src, want := range map[string]string{
		"a b c\n":                  "b.txt:1: want: name start end cycles tolerance",
		"a x y 10 0\na x y 10 0\n": "b.txt:2: path a given twice",
		"a x y ten 0\n":            "b.txt:1: cycles \"ten\"",
		"a x y 10 +5000%\n":        "b.txt:1: tolerance",
		"\tfoo 3\n":                "b.txt:1: a routine's cycles before any path",
		"a x y 10 0\n\tfoo\n":      "b.txt:2: want: routine cycles",
		"a x y 10 0\n\tfoo many\n": "b.txt:2: cycles \"many\"",
		// No path: check measured nothing and passed (exit 0), as it
		// would with the wrong file.
		"":                   "b.txt: no paths (a line: name start end cycles tolerance)",
		"# only a comment\n": "b.txt: no paths",
	} {
		if _, err := Parse("b.txt", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	f, _ = Parse("b.txt", []byte("# a path\nx  nosuch  ret  1  0\ny work nosuch+4 1 0\n"))
	c, im := load(t, prog(1, 1))
	_ = c
	if _, err := NewMeter(f, im); err == nil || !strings.Contains(err.Error(), `b.txt:2: x: start: no symbol "nosuch"`) {
		t.Fatalf("unknown symbol: %v", err)
	}
}

// Limits saturate instead of wrapping round.
func TestLimitSaturates(t *testing.T) {
	for _, p := range []Path{
		{Cycles: 1 << 63, Tolerance: 1 << 63},
		{Cycles: 1<<64 - 1, Tolerance: 1},
		{Cycles: 1 << 62, Tolerance: 1000, Percent: true},
	} {
		if p.Limit() < p.Cycles {
			t.Errorf("%+v: limit %d below the budget", p, p.Limit())
		}
	}
	if p := (Path{Cycles: 200, Tolerance: 5, Percent: true}); p.Limit() != 210 {
		t.Errorf("200 +5%%: %d", p.Limit())
	}
}

// recProg: _start calls rec(5); rec(n) returns at once for n = 0, else
// pushes %rca, calls rec(n-1), then runs a 3-cycle loop n*10 times and
// returns. _start then jumps (no call) into rec's tail, tail, twice.
const recProg = `
	.text
	.globl	_start
_start:
	mov	0x8000, %sp
	mov	5, %r6
	bt	rec
	add	%pc, 4, %rca
	mov	again, %rca
	bt	tail
	nop
again:
	mov	back, %rca
	bt	tail
	nop
back:
	st	%r0, -4096[%r0]
	bt	.
	nop
rec:
	sub.f	%r6, 0, %r0
	beq	.Lout
	nop
	st	%rca, [--%sp]
	st	%r6, [--%sp]
	sub	%r6, 1, %r6
	bt	rec
	add	%pc, 4, %rca
	ld	[%sp++], %r6
	ld	[%sp++], %rca
	mov	%r6, %r7
	sub	%r7, 0, %r7
	mov	10, %r8
.Lmul:	sub.f	%r8, 1, %r8
	bne	.Lmul
	nop
.Lout:	add	%rca, 0, %pc
	nop
tail:
	mov	3, %r8
.Lt:	sub.f	%r8, 1, %r8
	bne	.Lt
	nop
	add	%rca, 0, %pc
	nop
`

// A "ret" path of a recursive routine: each call is a run that ends at
// its own return, the outer ones including their nested calls; a start
// reached by a jump at the same stack level starts again.
func TestRetPathNests(t *testing.T) {
	f, err := Parse("b.txt", []byte("rec rec ret 0 0\ntail tail ret 0 0\n"))
	require.NoError(t, err)
	res := measure(t, f, recProg)
	rec, tail := res[0], res[1]
	// rec(5) .. rec(0): six calls, six runs; the outermost holds the
	// five below it, so it costs more than five times the innermost.
	if rec.Runs != 6 || rec.Max <= 5*rec.Min {
		t.Fatalf("rec: %d runs, min %d, max %d: want 6 runs, the outer call holding the inner ones", rec.Runs, rec.Min, rec.Max)
	}
	var sum uint64
	for _, s := range rec.Worst {
		sum += s.Cycles
	}
	if sum != rec.Max || len(rec.Worst) != 1 || rec.Worst[0].Routine != "rec" {
		t.Errorf("rec's worst run %d cycles, breakdown %v (sum %d)", rec.Max, rec.Worst, sum)
	}
	// tail is jumped to twice at the same level: two runs, each its own.
	if tail.Runs != 2 || tail.Min != tail.Max {
		t.Errorf("tail: %d runs, min %d, max %d: want 2 equal runs", tail.Runs, tail.Min, tail.Max)
	}
}
