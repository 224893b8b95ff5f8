package debugger

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"lanaiemu/asm"
	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
)

// fibStop is a stop at fib: its argument and when.
type fibStop struct {
	r6     uint32
	cycles uint64
}

// fibStops runs the program with a plain breakpoint at fib to its end and
// gives every stop (the oracle the qualified breakpoints are held to),
// and the end's cycle and instruction counts.
func fibStops(t *testing.T, p *program) (stops []fibStop, cycles, instret uint64) {
	s := newSession(t, p)
	s.do("break fib")
	for {
		s.do("continue")
		if s.d.Finished() != nil {
			return stops, s.cpu.Cycles, s.cpu.Instret
		}
		stops = append(stops, fibStop{s.cpu.R[6], s.cpu.Cycles})
	}
}

// nth gives the cycle of the nth (from 1) stop whose argument passes f.
func nth(t *testing.T, stops []fibStop, n int, f func(uint32) bool) uint64 {
	t.Helper()
	for _, s := range stops {
		if f(s.r6) {
			if n--; n == 0 {
				return s.cycles
			}
		}
	}
	t.Fatalf("fewer stops than needed")
	return 0
}

// A conditional breakpoint stops where a plain one stops with the
// condition true, no earlier or later; ignore passes its next N hits;
// condition changes and removes the condition; the hit count counts the
// arrivals where the condition held.
func TestConditionalBreakpoint(t *testing.T) {
	p := crtAnd(t, recursionS)
	stops, _, _ := fibStops(t, p)
	is3 := func(v uint32) bool { return v == 3 }
	if len(stops) < 20 {
		t.Fatalf("only %d calls of fib", len(stops))
	}
	s := newSession(t, p)
	got := s.do("break fib if %r6 == 3")
	contains(t, "break if", got, fmt.Sprintf("Breakpoint 1 at 0x%08x <fib> at recursion.O1.s:", p.addr(t, "fib")), "if %r6 == 3")
	got = s.do("continue")
	contains(t, "continue", got, "Breakpoint 1, ")
	if s.cpu.R[6] != 3 || s.cpu.Cycles != nth(t, stops, 1, is3) {
		t.Fatalf("stopped with r6 %d at cycle %d; want 3 at %d", s.cpu.R[6], s.cpu.Cycles, nth(t, stops, 1, is3))
	}
	got = s.do("ignore 1 4")
	contains(t, "ignore", got, "Will ignore next 4 crossings of breakpoint 1 (it stops from hit 6 on)")
	s.do("continue")
	if s.cpu.R[6] != 3 || s.cpu.Cycles != nth(t, stops, 6, is3) {
		t.Fatalf("after ignore 4: r6 %d at cycle %d; want 3 at %d (the 6th)", s.cpu.R[6], s.cpu.Cycles, nth(t, stops, 6, is3))
	}
	got = s.do("info breakpoints")
	contains(t, "info breakpoints", got, "1    breakpoint  0x", "     6  0x", "\tstop only if %r6 == 3\n", "\tonly when the hit count is > 5\n")
	s.do("continue") // hit 7 passes > 5 too
	if s.cpu.Cycles != nth(t, stops, 7, is3) {
		t.Fatalf("the 7th hit: cycle %d, want %d", s.cpu.Cycles, nth(t, stops, 7, is3))
	}
	got = s.do("condition 1 [%sp] != 0 && %r6 >= 0x10 || %r6 == 1 + 1 * 5 - 4")
	contains(t, "condition", got, "Breakpoint 1 stops only if")
	s.do("ignore 1 0")
	// The next stop is the next call with 16 or more or 2 after the
	// present one.
	now := s.cpu.Cycles
	want := uint64(0)
	for _, st := range stops {
		if st.cycles > now && (st.r6 >= 16 || st.r6 == 2) {
			want = st.cycles
			break
		}
	}
	s.do("continue")
	if s.cpu.Cycles != want {
		t.Fatalf("condition with && and ||: stopped at cycle %d (r6 %d), want %d", s.cpu.Cycles, s.cpu.R[6], want)
	}
	contains(t, "condition removed", s.do("condition 1"), "Breakpoint 1 now unconditional.")
	now = s.cpu.Cycles
	s.do("continue")
	for _, st := range stops {
		if st.cycles > now {
			if s.cpu.Cycles != st.cycles {
				t.Fatalf("unconditional again: cycle %d, want the next call's %d", s.cpu.Cycles, st.cycles)
			}
			break
		}
	}

	// Bad ones set nothing and say why.
	for _, cmd := range []string{"break fib if", "break fib if %r6 ==", "break fib if nosuch > 1", "break fib if (%r6", "break fib if [%r6",
		"break fib if %r6 = 3", "condition 9 %r6", "condition x", "condition", "ignore 1", "ignore 1 -2", "ignore 9 1", "ignore 1 x",
		"log fib", "log nosuch x", "log fib {", "log fib }", "log fib {nosuch}", "log fib {}", "log fib {%r6:q}"} {
		s.bad(cmd)
	}
	if got := s.bad("condition 1 nosuch == 1"); got != "error: condition: no symbol \"nosuch\"\n" {
		t.Errorf("condition with a bad expression: %q", got)
	}
	if n := strings.Count(s.do("info breakpoints"), "breakpoint  0x"); n != 1 {
		t.Errorf("%d breakpoints after the bad commands, want 1", n)
	}
	s.do("watch moves")
	if got := s.do("condition 2 [moves] == 1"); got != "Watchpoint 2 stops only if [moves] == 1.\n" {
		t.Errorf("condition on a watchpoint: %q", got)
	}
}

// moveStop is a stop of a plain watchpoint on moves: its new value and
// when.
type moveStop struct {
	moves  uint32
	cycles uint64
}

// moveStops runs the program with a plain watchpoint on moves to its end
// and gives every stop (the oracle the qualified watchpoints are held
// to), and the end's cycle and instruction counts.
func moveStops(t *testing.T, p *program) (stops []moveStop, cycles, instret uint64) {
	s := newSession(t, p)
	s.do("watch moves")
	moves := p.addr(t, "moves")
	for {
		s.do("continue")
		if s.d.Finished() != nil {
			return stops, s.cpu.Cycles, s.cpu.Instret
		}
		v, _ := s.cpu.Mem.Read(moves, 4)
		stops = append(stops, moveStop{uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3]), s.cpu.Cycles})
	}
}

// A watchpoint's condition, looked at when its bytes change, and its hit
// condition (the one core of cond.go): it stops where a plain watchpoint
// stops with the condition true, no earlier or later; ignore and a hit
// condition pass hits; a bad condition sets nothing.
func TestWatchpointConditions(t *testing.T) {
	p := crtAnd(t, recursionS)
	stops, _, _ := moveStops(t, p)
	if len(stops) < 10 {
		t.Fatalf("only %d stores to moves", len(stops))
	}
	at := func(v uint32) uint64 {
		for _, st := range stops {
			if st.moves == v {
				return st.cycles
			}
		}
		t.Fatalf("moves never %d", v)
		return 0
	}
	s := newSession(t, p)
	got := s.do("watch moves if [moves] == 5")
	contains(t, "watch if", got, fmt.Sprintf("Watchpoint 1: 4 bytes at 0x%08x <moves> if [moves] == 5", p.addr(t, "moves")))
	got = s.do("continue")
	contains(t, "the conditional watch", got, "Watchpoint 1: 4-byte store to", "old: 00 00 00 04", "new: 00 00 00 05")
	if s.cpu.Cycles != at(5) {
		t.Errorf("stopped at cycle %d, the plain watchpoint saw 5 at %d", s.cpu.Cycles, at(5))
	}
	contains(t, "info watchpoints", s.do("info watchpoints"), "     1  4 bytes at", "\tstop only if [moves] == 5")
	// ignore on a watchpoint: the next two changes pass.
	s.do("condition 1")
	contains(t, "ignore", s.do("ignore 1 2"), "Will ignore next 2 crossings of watchpoint 1")
	s.do("continue")
	if s.cpu.Cycles != at(8) {
		t.Errorf("after ignore 2: stopped at cycle %d, want %d (moves 8)", s.cpu.Cycles, at(8))
	}
	// A hit condition through the API (DAP's hitCondition): every third.
	s = newSession(t, p)
	if _, err := s.d.SetWatchpoint(0, p.addr(t, "moves"), 4, BreakOptions{Condition: "[moves] != 0", HitCondition: "% 3"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []uint32{3, 6, 9} {
		s.do("continue")
		if s.cpu.Cycles != at(want) {
			t.Errorf("hit condition %% 3: stopped at cycle %d, want %d (moves %d)", s.cpu.Cycles, at(want), want)
		}
	}
	for _, o := range []BreakOptions{{Condition: "[moves"}, {HitCondition: "sometimes"}, {LogMessage: "x"}} {
		if _, err := s.d.SetWatchpoint(0, p.addr(t, "moves"), 4, o); err == nil {
			t.Errorf("watchpoint with %+v: no error", o)
		}
	}
	for _, cmd := range []string{"watch moves if", "watch moves if nosuch == 1", "watch moves 4 if (("} {
		s.bad(cmd)
	}
	if got := s.do("info watchpoints"); strings.Count(got, "watchpoint  0x") != 1 {
		t.Errorf("bad watches set one:\n%s", got)
	}
	// A condition that cannot be evaluated stops there and says why.
	s = newSession(t, p)
	s.do("watch moves if [%r6 + 0x40000000] == 1")
	s.out.Reset()
	s.d.Exec("continue")
	if got = s.out.String(); s.d.Errors() != 1 {
		t.Errorf("continue: %d errors, want 1", s.d.Errors())
	}
	contains(t, "a condition that cannot be evaluated", got, "Watchpoint 1:", "error: the condition of watchpoint 1 ([%r6 + 0x40000000] == 1) cannot be evaluated")
	t.Logf("%d stores to moves", len(stops))
}

// A watchpoint whose condition never holds does not stop and changes no
// cycle, instruction or trace line: the run ends as without it.
func TestWatchConditionDoesNotPerturb(t *testing.T) {
	p := crtAnd(t, recursionS)
	_, cycles, instret := fibStops(t, p)
	s := newSession(t, p)
	s.do("watch moves if [moves] == 0x7fffffff")
	s.do("watch moves")
	s.do("condition 2 %r6 == 12345")
	s.do("continue")
	if s.d.Finished() == nil || s.cpu.Cycles != cycles || s.cpu.Instret != instret {
		t.Errorf("with never-true watch conditions: finished %v, %d cycles, %d instructions; without: %d, %d", s.d.Finished(), s.cpu.Cycles, s.cpu.Instret, cycles, instret)
	}
	contains(t, "hit counts", s.do("info watchpoints"), "1    watchpoint", "     0  4 bytes")
	if plain, cond := traceAfter(t, p), traceAfter(t, p, "watch moves if [moves] == 0x7fffffff"); plain != cond {
		t.Errorf("traces differ")
	}
}

// Logpoints print their message with the values of the core that reached
// them and do not stop; breakpoints whose condition never holds do not
// stop: the run ends with the cycle and instruction counts of a run
// without any.
func TestLogpointsDoNotPerturb(t *testing.T) {
	p := crtAnd(t, recursionS)
	stops, cycles, instret := fibStops(t, p)
	s := newSession(t, p)
	got := s.do("log fib fib({%r6}) sp {%sp:x} {{braces}}")
	contains(t, "log", got, fmt.Sprintf("Logpoint 1 at 0x%08x <fib>", p.addr(t, "fib")), ": fib({%r6}) sp {%sp:x} {{braces}}")
	s.do("condition 1 %r6 >= 15")
	s.do("break fib if [%sp] == 0x7fffffff && %r6 == 99")
	s.do("break hanoi if %r6 > 1000")
	s.do("break fib")
	s.do("ignore 4 100000000")
	got = s.do("continue")
	var want []string
	for _, st := range stops {
		if st.r6 >= 15 {
			want = append(want, fmt.Sprintf("fib(%d) sp 0x", st.r6))
		}
	}
	var lines []string
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "fib(") {
			lines = append(lines, l[:len(want[0])])
			if !strings.HasSuffix(l, " {braces}") {
				t.Errorf("log line %q", l)
			}
		}
	}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("log lines:\n%s\nwant (prefixes):\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if s.d.Finished() == nil || s.cpu.Cycles != cycles || s.cpu.Instret != instret {
		t.Errorf("with never-stopping breakpoints: finished %v, %d cycles, %d instructions; without: %d, %d", s.d.Finished(), s.cpu.Cycles, s.cpu.Instret, cycles, instret)
	}
	got = s.do("info breakpoints")
	contains(t, "info breakpoints", got, fmt.Sprintf("1    logpoint    0x%08x  %4d", p.addr(t, "fib"), len(want)), "\tlog fib({%r6})",
		fmt.Sprintf("4    breakpoint  0x%08x  %4d", p.addr(t, "fib"), len(stops)))
	t.Logf("%d calls of fib, %d logged; %d cycles with and without the points", len(stops), len(want), cycles)
}

// Tracing with a breakpoint whose condition never holds traces what it
// traces without it.
func TestConditionDoesNotPerturbTrace(t *testing.T) {
	p := crtAnd(t, recursionS)
	plain := traceAfter(t, p)
	cond := traceAfter(t, p, "break fib if %r6 == 1000", "break main if [%sp+4] == 1 && 0")
	if plain != cond {
		t.Errorf("traces differ")
	}
	if n := strings.Count(plain, "\n"); n < 3000 {
		t.Errorf("%d trace lines", n)
	}
}

// A condition that cannot be evaluated at run time (a word outside SRAM)
// stops the run at the breakpoint, once per hit, and says why.
func TestConditionRunTimeError(t *testing.T) {
	p := crtAnd(t, recursionS)
	s := newSession(t, p)
	s.do("break fib if [%r6 + 0x40000000] == 5")
	s.out.Reset()
	s.d.Exec("continue")
	got := s.out.String()
	contains(t, "continue", got, "Breakpoint 1, ", "error: the condition of breakpoint 1 ([%r6 + 0x40000000] == 5) cannot be evaluated: cannot read [0x40000012]", "stopped there")
	if s.d.Errors() != 1 || s.cpu.PC != p.addr(t, "fib") {
		t.Errorf("errors %d, pc %#x", s.d.Errors(), s.cpu.PC)
	}
	st, err := s.d.Continue(0)
	if err != nil || st.Reason != "breakpoint" || !strings.Contains(st.Text, "cannot be evaluated") {
		t.Errorf("API stop %+v, %v", st, err)
	}
}

// The evaluator's operators, on a core with known registers and memory.
func TestEvalOperators(t *testing.T) {
	p := crtAnd(t, recursionS)
	s := newSession(t, p)
	s.cpu.R[6], s.cpu.R[7] = 3, 0xfffffffe
	grid := p.addr(t, "grid")
	for expr, want := range map[string]uint32{
		"%r6 == 3": 1, "%r6 != 3": 0, "r7 < 0": 1, "r7 > r6": 0, "%r6 <= 3 && r7 >= -2": 1, "0 || r6 == 4": 0,
		"!r6": 0, "!!r6": 1, "~0": 0xffffffff, "-r6": 0xfffffffd, "(1 + 2) * 3": 9, "1 + 2 * 3": 7, "1 << 4 | 1": 17,
		"0xf0 >> 4 ^ 1": 14, "6 & 3": 2, "1 < 2 == 1": 1, "3 == 3 < 2": 0, "1 != 2 > 3": 1, "6 & 3 == 2": 0, "(6 & 3) == 2": 1,
		"1 | 0 == 0": 1, "4 ^ 4 != 0": 5, "1 << 2 < 5": 1, "-1 < 0 == 1": 1, "[grid]": p.word(t, grid), "[grid + 4] & 0xff": p.word(t, grid+4) & 0xff,
		"[[%r6 - 3 + grid] - [grid] + grid]": p.word(t, grid), "*main": p.addr(t, "main"), "-8+%fp": s.cpu.R[5] - 8,
		"r0 == 1 && [0x40000000]": 0, "1 || [0x40000000]": 1, "main+-+4": p.addr(t, "main") - 4,
		// docs/emulator.md: shift counts modulo 32, numbers hex or decimal
		"1 << 32": 1, "1 << 33": 2, "-1 >> 32": 0xffffffff, "-8 >> 1": 0x7ffffffc, "010": 10, "0X10": 16,
	} {
		got, err := s.d.eval(expr)
		if err != nil || got != want {
			t.Errorf("eval(%q) = %#x, %v; want %#x", expr, got, err, want)
		}
	}
	// Addresses (print shows the word there) and values (print shows them).
	for expr, isValue := range map[string]bool{"main": false, "main+4-%r6": false, "-(main+4)": false, "*main": false,
		"[grid]": true, "r6 == 3": true, "main*1": true, "!r6": true, "~r6": true, "(grid)+[grid]": true} {
		if _, got, err := s.d.evalKind(expr); err != nil || got != isValue {
			t.Errorf("evalKind(%q): value %v, %v; want %v", expr, got, err, isValue)
		}
	}
	contains(t, "print a value", s.do("print [grid] == [grid]"), "[grid] == [grid] = 0x00000001 (1)\n")
	contains(t, "print a word", s.do("print grid"), fmt.Sprintf("[0x%08x <grid>] = 0x%08x", grid, p.word(t, grid)))
	contains(t, "print a word's value", s.do("print [grid]"), fmt.Sprintf("[grid] = 0x%08x (%d)", p.word(t, grid), int32(p.word(t, grid))))
	long := strings.Repeat("1+", 16<<20) + "1" // 32 MiB: its evaluation would overflow the stack
	if _, err := s.d.AddBreakpoint(0, p.addr(t, "fib"), BreakOptions{Condition: long}); err == nil || !strings.Contains(err.Error(), "at most 65536") {
		t.Errorf("a condition of %d bytes: %v", len(long), err)
	}
	for _, expr := range []string{strings.Repeat("-", maxExprLen+1) + "1", "", "1 +", "(1", "[1", "1)", "1]", "1 2", "%zz", "nosuch", "1 === 1", "[0x40000000]", "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))", "99999999999"} {
		if v, err := s.d.eval(expr); err == nil {
			t.Errorf("eval(%q) = %#x, want an error", expr, v)
		}
	}
}

func TestHitConditions(t *testing.T) {
	for text, want := range map[string][]int{ // the hits from 1 to 8 that pass
		"": {1, 2, 3, 4, 5, 6, 7, 8}, "3": {3}, "== 3": {3}, "=3": {3}, "===3": {3}, ">6": {7, 8}, ">= 6": {6, 7, 8},
		"<3": {1, 2}, "<=2": {1, 2}, "%3": {3, 6}, " % 4 ": {4, 8},
	} {
		h, err := parseHitCond(text)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		var got []int
		for i := 1; i <= 8; i++ {
			if h.passes(i) {
				got = append(got, i)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q passes %v, want %v", text, got, want)
		}
	}
	for _, bad := range []string{"x", ">", "% 0", "!= 3", "3 4", "99999999999", "-1", ">> 2"} {
		if _, err := parseHitCond(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A breakpoint whose condition never holds in a tight loop stops the
// fast path at every iteration; an interrupt still stops the run soon.
func TestConditionInterrupt(t *testing.T) {
	src := "\t.text\n\t.globl _start\n_start:\n\tadd %r3, 1, %r3\n\tbt _start\n\tnop\n"
	out := &bytes.Buffer{}
	c, img := lanaitest.Load(t, lanaitest.Build(t, asm.Source{Name: "loop.s", Text: []byte(src)}), lanai.Config{})
	d := New(c, img, out)
	d.MaxCycles = 300_000_000 // minutes of host time at one arrival every 3 cycles
	d.Exec("break _start if %r3 == 0")
	go func() {
		time.Sleep(100 * time.Millisecond)
		d.Interrupt()
	}()
	began := time.Now()
	d.Exec("continue")
	if !strings.Contains(out.String(), "[interrupted]") || time.Since(began) > 10*time.Second {
		t.Errorf("after %v:\n%s", time.Since(began), out)
	}
	t.Logf("interrupted after %v, %d iterations", time.Since(began), c.R[3])
}

// A special register's name in an expression: where the program has a
// symbol of that name (firmware that includes lanai9.inc names the
// registers' addresses), the bare name is the symbol's address, as every
// symbol is; $NAME and [NAME] are the register. Without such a symbol
// the bare name is the register too.
func TestSpecialRegisterNames(t *testing.T) {
	src := "\t.set ISR, -432\n\t.text\n\t.globl _start\n_start:\n\tnop\n"
	c, img := lanaitest.Load(t, lanaitest.Build(t, asm.Source{Name: "isr.s", Text: []byte(src)}), lanai.Config{})
	d := New(c, img, &bytes.Buffer{})
	c.Mem.Specials.Write32(0x050, 0x1234)
	for expr, want := range map[string]uint32{"ISR": 0xfffffe50, "$ISR": 0x1234, "%ISR": 0x1234, "[ISR]": 0x1234, "$ISR & 0x30 == 0x30": 0, "($ISR & 0x30) == 0x30": 1, "EIMR": 0} {
		if got, err := d.eval(expr); err != nil || got != want {
			t.Errorf("eval(%q) = %#x, %v; want %#x", expr, got, err, want)
		}
	}
}

// traceAfter runs cmds on a new debugger of p and gives the trace of the
// next 3000 instructions and the cycle count after them.
func traceAfter(t *testing.T, p *program, cmds ...string) string {
	out := &bytes.Buffer{}
	c, img := lanaitest.Load(t, p.image, lanai.Config{Console: out})
	d := New(c, img, out)
	for _, cmd := range cmds {
		d.Exec(cmd)
	}
	out.Reset()
	d.Exec("trace on")
	d.Exec("step 3000")
	if d.Errors() != 0 {
		t.Fatalf("errors: %s", out)
	}
	return fmt.Sprintf("%s\ncycles %d", out, c.Cycles)
}
