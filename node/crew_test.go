package node

import (
	"sync/atomic"
	"testing"

	"lanaiemu/sim"
)

// The hand-over (await): 100,000 steps posted to a worker and waited for;
// after each wait the worker has done exactly that step's work, never
// less (a token left from the step before once woke the waiter early; the
// race detector also checks the ordering).
func TestAwaitHandOver(t *testing.T) {
	var posted, done atomic.Uint64
	var wa, ca atomic.Bool
	wake, fin := make(chan struct{}, 1), make(chan struct{}, 1)
	shared := 0
	go func() {
		for step := uint64(1); step <= 100000; step++ {
			await(&posted, step, &wa, wake)
			shared++
			done.Store(step)
			if ca.CompareAndSwap(true, false) {
				fin <- struct{}{}
			}
		}
	}()
	for step := uint64(1); step <= 100000; step++ {
		posted.Store(step)
		if wa.CompareAndSwap(true, false) {
			wake <- struct{}{}
		}
		await(&done, step, &ca, fin)
		if shared != int(step) {
			t.Fatalf("step %d: worker at %d", step, shared)
		}
	}
}

// A late worker makes the next steps worth sharing run serially: 8, then
// twice as many for each late step that follows without one shared in
// time, at most 4,096; a step shared in time ends the backoff, and
// SetBackoff(false) forgets one in progress.
func TestBackOff(t *testing.T) {
	w := &World{}
	want := []int{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 4096}
	for i, h := range want {
		w.backOff(true)
		if w.hold != h {
			t.Fatalf("late step %d: hold %d, want %d", i+1, w.hold, h)
		}
	}
	w.hold = 0
	w.backOff(false)
	w.backOff(true)
	if w.hold != 8 {
		t.Fatalf("late after one in time: hold %d, want 8", w.hold)
	}
	w.SetBackoff(false)
	if w.hold != 0 {
		t.Fatalf("SetBackoff(false): hold %d", w.hold)
	}
	w.backOff(true)
	if w.hold != 0 {
		t.Fatalf("backoff off: hold %d", w.hold)
	}
}

// Only a World.Run whose steps could reach ParallelCycles takes the crew:
// at the default, the 8-node clusters never (8 boards x 20 cycles of a
// 100 ns step at 200 MHz) and the 64-node ones may; with threshold 1
// every cluster of two nodes or more may, with one job none.
func TestMayShare(t *testing.T) {
	world := func(nodes, jobs int, parallel uint64) *World {
		w := &World{cfg: Config{Jobs: jobs, Quantum: 100 * sim.Nanosecond, ParallelCycles: parallel}}
		for range nodes {
			w.Nodes = append(w.Nodes, &Member{clk: sim.Clock{Hz: 200_000_000}})
		}
		return w
	}
	for _, tc := range []struct {
		nodes, jobs int
		parallel    uint64
		want        bool
	}{
		{8, 2, DefaultParallelCycles, false},
		{64, 2, DefaultParallelCycles, true},
		{64, 1, DefaultParallelCycles, false},
		{2, 2, 1, true},
		{1, 2, 1, false},
	} {
		if got := world(tc.nodes, tc.jobs, tc.parallel).mayShare(); got != tc.want {
			t.Errorf("%d nodes, %d jobs, threshold %d: mayShare %v", tc.nodes, tc.jobs, tc.parallel, got)
		}
	}
}
