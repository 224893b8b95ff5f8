package board

import (
	"testing"
	"time"

	"lanaiemu/lanai/lanaitest"
)

// A board polling ISR for a timer 10 simulated seconds away is skipped
// over by the core's polling-loop fast-forward: it finishes with the exact
// cycle count and in far less than real time.
func TestIdlePollingLoop(t *testing.T) {
	img := lanaitest.Build(t, testdata(t, "idle.s"))
	b, _ := boot(t, Config{}, img)
	start := time.Now()
	code := runExit(t, b, 1<<40)
	wall := time.Since(start)
	if code != 20_000_000 {
		t.Fatalf("exit %d, want 20000000", code)
	}
	cpu := b.CPU()
	fire := b.TickCycle(20_000_000) // 1,330,000,000 cycles: 10 s at 133 MHz
	if cpu.Cycles < fire || cpu.Cycles > fire+20 {
		t.Fatalf("ended at cycle %d, TIME0 at %d", cpu.Cycles, fire)
	}
	if cpu.SkippedCycles < fire-1000 {
		t.Fatalf("only %d of %d cycles skipped", cpu.SkippedCycles, cpu.Cycles)
	}
	if wall > time.Second {
		t.Fatalf("10 simulated seconds took %v", wall)
	}
	t.Logf("10 simulated seconds in %v (%d cycles, %d executed)", wall, cpu.Cycles, cpu.Cycles-cpu.SkippedCycles)
	// Stepping gives the same counts (the skip is exact), checked on a
	// shorter timer.
	short := func(step bool) (uint64, uint64) {
		b, _ := boot(t, Config{}, lanaitest.Build(t, testdata(t, "timer.s")))
		if !step {
			runExit(t, b, 1<<20)
		} else {
			for st := b.CPU().Step(); st.Kind.String() == "step"; st = b.CPU().Step() {
			}
		}
		return b.CPU().Cycles, b.CPU().Instret
	}
	c1, i1 := short(false)
	c2, i2 := short(true)
	if c1 != c2 || i1 != i2 {
		t.Fatalf("run: %d cycles %d instructions; stepped: %d cycles %d instructions", c1, i1, c2, i2)
	}
}

// BenchmarkIdlePolling reports simulated seconds per wall-clock second for
// a board idling in an ISR polling loop with a far timer.
func BenchmarkIdlePolling(bm *testing.B) {
	img := lanaitest.Build(bm, testdata(bm, "idle.s"))
	b, _ := boot(bm, Config{}, img)
	var sim float64
	var wall time.Duration
	for bm.Loop() {
		b.Reset(0)
		start := time.Now()
		runExit(bm, b, 1<<40)
		wall += time.Since(start)
		sim += b.CPU().Seconds(b.CPU().Cycles)
	}
	bm.ReportMetric(sim/wall.Seconds(), "sim-s/s")
}
