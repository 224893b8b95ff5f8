package debugger

import (
	"bytes"
	"testing"
)

// BenchmarkWatchRun runs lz.O2 (750 thousand instructions) to its exit
// with a watchpoint set, so one instruction at a time: the debugger's
// slow path (guest MIPS).
func BenchmarkWatchRun(b *testing.B) {
	p := crtAnd(b, "../fixtures/c/s/lz.O2.s")
	var instret uint64
	for i := 0; i < b.N; i++ {
		s := newSessionTB(b, p)
		s.d.Exec("watch 0x100000 4")
		s.d.Exec("continue")
		if !bytes.Contains(s.out.Bytes(), []byte("exited")) {
			b.Fatal(s.out.String())
		}
		instret += s.cpu.Instret
	}
	b.ReportMetric(float64(instret)/b.Elapsed().Seconds()/1e6, "guest-MIPS")
}

// BenchmarkConditionRun runs recursion.O1 (219 thousand instructions,
// 8361 calls of fib) to its exit with a breakpoint at fib whose
// condition never holds: the fast path stops at every call, the
// condition is evaluated and the core steps past (guest MIPS, and the
// cost of one arrival).
func BenchmarkConditionRun(b *testing.B) {
	for _, cmd := range []string{"", "break fib if [%sp] == 0x7fffffff && %r6 == 1000"} {
		name := "plain"
		if cmd != "" {
			name = "condition"
		}
		b.Run(name, func(b *testing.B) {
			p := crtAnd(b, recursionS)
			var instret uint64
			for i := 0; i < b.N; i++ {
				s := newSessionTB(b, p)
				s.d.Exec(cmd)
				s.d.Exec("continue")
				if !bytes.Contains(s.out.Bytes(), []byte("exited")) {
					b.Fatal(s.out.String())
				}
				instret += s.cpu.Instret
			}
			b.ReportMetric(float64(instret)/b.Elapsed().Seconds()/1e6, "guest-MIPS")
		})
	}
}
