package lanai

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"lanaiemu/asm"
)

// A garbage collection must not wait for a long run: Go cannot preempt
// the threaded loop's assembly, so exec has to give the runtime a place
// to stop the goroutine between the loop's slices (threadedSlice). Here a
// core spins in a loop the threaded loop runs alone (no event, no
// hand-over to Go) in runs of about half a second each, while this
// goroutine asks for collections: they must finish well within a run (the
// median of five, against a load spike; with two Ps at least, as with one
// the collector shares the spinning core's P and takes about 160 ms in
// either loop). Before exec gave the runtime that place, every collection
// waited for the run to end: 3.4 s for one run of 2e9 cycles.
func TestThreadedLetsGCRun(t *testing.T) {
	if testing.Short() {
		t.Skip("spins a core for a second")
	}
	src := "\t.text\n\t.globl _start\n_start:\n.Lspin:\n\tadd %r3, 1, %r3\n\tbt .Lspin\n\tnop\n"
	c, _ := load(t, linkSources(t, asm.Source{Name: "spin.s", Text: []byte(src)}), Config{})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	const budget = 300_000_000 // cycles per run: about half a second threaded
	var stop atomic.Bool
	done := make(chan *Stop)
	go func() {
		var st *Stop
		for !stop.Load() {
			if st = c.Run(budget); st.Kind != StopCycleLimit {
				break
			}
		}
		done <- st
	}()
	time.Sleep(20 * time.Millisecond) // into a run
	var took []time.Duration
	for range 5 {
		start := time.Now()
		runtime.GC()
		took = append(took, time.Since(start))
	}
	stop.Store(true)
	if st := <-done; st.Kind != StopCycleLimit {
		t.Fatalf("the spinning core stopped: %s", stopMessage(st))
	}
	slices.Sort(took)
	t.Logf("5 collections took %v (threaded loop: %v)", took, useThreaded)
	if took[2] > 200*time.Millisecond {
		t.Errorf("the median collection took %v while a core ran: it waited for the run", took[2])
	}
}
