package lanai

import (
	"runtime"
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
// goroutine asks for collections. The test counts the runs that end
// while each collection is under way instead of timing it (no threshold
// to miss under load): a collection that waited for the run ends after
// it, so every one of the five sees a run end; one that stopped the
// goroutine inside the run sees none, unless a run happened to end in its
// millisecond. Before exec gave the runtime that place, every collection
// waited for the run (3.4 s for one run of 2e9 cycles). With two Ps at
// least: with one, the collector shares the spinning core's P.
func TestThreadedLetsGCRun(t *testing.T) {
	if testing.Short() {
		t.Skip("spins a core for a second")
	}
	src := "\t.text\n\t.globl _start\n_start:\n.Lspin:\n\tadd %r3, 1, %r3\n\tbt .Lspin\n\tnop\n"
	c, _ := load(t, linkSources(t, asm.Source{Name: "spin.s", Text: []byte(src)}), Config{})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	const budget = 300_000_000 // cycles per run: about half a second threaded
	var stop atomic.Bool
	var runsEnded atomic.Int64
	done := make(chan *Stop)
	go func() {
		var st *Stop
		for !stop.Load() {
			st = c.Run(budget)
			runsEnded.Add(1)
			if st.Kind != StopCycleLimit {
				break
			}
		}
		done <- st
	}()
	time.Sleep(20 * time.Millisecond) // into a run
	waited := 0
	for range 5 {
		before := runsEnded.Load()
		runtime.GC()
		if runsEnded.Load() != before {
			waited++
		}
	}
	stop.Store(true)
	if st := <-done; st.Kind != StopCycleLimit {
		t.Fatalf("the spinning core stopped: %s", stopMessage(st))
	}
	t.Logf("%d of 5 collections saw a run end (threaded loop: %v)", waited, useThreaded)
	if waited > 2 {
		t.Errorf("%d of 5 collections saw a run of %d cycles end: they waited for the run", waited, budget)
	}
}
