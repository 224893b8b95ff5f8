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
