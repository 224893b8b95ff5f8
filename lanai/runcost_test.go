package lanai

import (
	"fmt"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/internal/cputime"
)

// BenchmarkRunCost measures what a run costs beyond its instructions: cores
// running tightLoop (never proved: its counters change) with an event
// pending far ahead (as a board's timers are), taken round-robin in runs
// of a fixed budget, as a cluster's steps run busy boards. With 64 cores
// their states do not all fit in the cache, as in the 64-node ring. It
// reports the CPU time per run and per executed instruction; budget=0 runs
// only the entry and exit, and budget=20000 is the instructions' own cost.
func BenchmarkRunCost(b *testing.B) {
	img := linkSources(b, asm.Source{Name: "loop.s", Text: []byte(tightLoop)})
	for _, cores := range []int{1, 64} {
		for _, budget := range []uint64{0, 20, 20000} {
			b.Run(fmt.Sprintf("cores=%d/budget=%d", cores, budget), func(b *testing.B) {
				cs := make([]*CPU, cores)
				for i := range cs {
					cs[i], _ = load(b, img, Config{})
					cs[i].Schedule(1<<50, func() {})
					cs[i].Run(1000) // past the set-up
				}
				var runs, instr uint64
				var cpu float64
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					cpu0 := cputime.Seconds()
					for r := 0; r < 20000/int(max(budget, 20)); r++ {
						for _, c := range cs {
							i0 := c.Instret
							c.Run(budget)
							instr += c.Instret - i0
							runs++
						}
					}
					cpu += cputime.Seconds() - cpu0
				}
				b.ReportMetric(cpu*1e9/float64(runs), "ns-cpu/run")
				if instr > 0 {
					b.ReportMetric(cpu*1e9/float64(instr), "ns-cpu/instr")
					b.ReportMetric(float64(instr)/float64(runs), "instr/run")
				}
			})
		}
	}
}
