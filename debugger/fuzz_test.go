package debugger

import (
	"bytes"
	"strings"
	"testing"

	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
)

// FuzzExec feeds arbitrary command lines to the debugger, each on a fresh
// session of a small C program: a command either works or reports one
// error; it never panics, reports an internal error, or runs past its
// cycle budget.
func FuzzExec(f *testing.F) {
	p := crtAnd(f, recursionS)
	for _, s := range []string{
		"break main", "step 3", "next", "finish", "until 0x40", "watch moves 4", "x/4x %sp", "p main+4*2",
		"disas main", "list main", "backtrace", "info regs", "history 4", "trace on", "continue", "delete 1",
		"p 99999999999999999999999", "x/100000000x 0", "watch 0 4294967295", "break *0xfffffffc", "step 18446744073709551615",
		"break fib if %r6 == 3", "log fib fib({%r6:x}) {{}}", "condition 1 [%sp] != 0 && !(r6 < 2)", "ignore 1 3", "p [grid] + (1 << 3)",
		"break main if [0xffffffff]", "condition 1 [[[%sp]]]", "log main {ISR & ~0x10}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n\r") {
			return // one command a line
		}
		out := &bytes.Buffer{}
		c, img := lanaitest.Load(t, p.image, lanai.Config{Console: out})
		d := New(c, img, out)
		d.MaxCycles = 200_000
		d.Exec("break main")
		d.Exec(line)
		if strings.Contains(out.String(), "internal error") {
			t.Fatalf("%q: %s", line, out.String())
		}
		if out.Len() > 1<<20 {
			t.Fatalf("%q: %d bytes of output", line, out.Len())
		}
		if c.Cycles > 2*d.MaxCycles {
			t.Fatalf("%q: ran %d cycles, budget %d", line, c.Cycles, d.MaxCycles)
		}
	})
}

// FuzzExpr feeds arbitrary text to the expression compiler, the log
// message parser and the hit condition parser, and evaluates what
// compiles on a loaded core: an error or a value, never a panic.
func FuzzExpr(f *testing.F) {
	p := crtAnd(f, recursionS)
	for _, s := range []string{"main+4", "[%sp] == 3 && r6 != 0", "!(~ISR & 0x10) || [grid+4] >> 3", "((1))*-2", "[", "1 <<= 2",
		"fib({%r6}) {%sp:x} {{x}}", "% 3", ">= 10", "*main", "a || b", "[0xfffffe00] | [0x40000000]",
		"3 == 3 < 2 | 6 & 3 != $ISR ^ 1 << 2"} {
		f.Add(s)
	}
	c, img := lanaitest.Load(f, p.image, lanai.Config{})
	prog := NewProgram(img)
	f.Fuzz(func(t *testing.T, s string) {
		if v, _, err := compileKind(prog, s); err == nil {
			v(c)
		}
		parseLog(prog, s)
		parseHitCond(s)
	})
}
