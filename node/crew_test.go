package node

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/lanai"
	"lanaiemu/lanai/profile"
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

// panicking is an observer that panics at its board's limit-th instruction.
type panicking struct{ left int }

func (p *panicking) Observe(*lanai.CPU, *profile.Step) {
	if p.left--; p.left == 0 {
		panic("board run panics")
	}
}

// A panic in a board's run inside a shared step is raised on the goroutine
// that called World.Run, as with one job, whichever goroutine ran the board
// (the caller's share, a worker's share claimed by either side), and the
// workers end: Run neither hangs (the caller's share once panicked before
// the worker claimed its share, and the crew's stop then waited for a
// worker that waited for the next step) nor takes the process down (a
// panic on a worker's goroutine). GOMAXPROCS 1 keeps the worker from
// claiming a share while the caller runs its own, as a busy machine does.
func TestPanicInShare(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer func() { claimTest = claimFirst }()
	img := build(t, "stream.s")
	for _, mode := range []int{claimFirst, claimCaller, claimWorker} {
		for id := range 2 {
			claimTest = mode
			base := runtime.NumGoroutine()
			p := map[string]uint32{"iters": 30, "len": 1000, "bufsize": 65536 + 8}
			q := map[string]uint32{"role": 1, "iters": 30, "len": 1000, "bufsize": 65536 + 8}
			s := world(t, img, []map[string]uint32{p, q})
			s.w.SetJobs(2)
			s.w.SetParallelCycles(1)
			s.w.SetBackoff(false)
			s.w.SetProvedJumps(false) // every step ordinary, and shared
			s.w.Nodes[id].Board.Observe(&panicking{left: 3000})
			got := make(chan any, 1)
			go func() {
				defer func() { got <- recover() }()
				if err := s.w.Run(sim.Second); err != nil {
					panic(err)
				}
			}()
			select {
			case r := <-got:
				if r == nil || !strings.Contains(fmt.Sprint(r), "board run panics") {
					t.Fatalf("claim mode %d, node %d: Run recovered %v", mode, id, r)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("claim mode %d, node %d: Run hangs after a panic", mode, id)
			}
			if s.w.Stats().ParallelSteps == 0 {
				t.Fatalf("claim mode %d, node %d: no step shared", mode, id)
			}
			waitGoroutines(t, base)
		}
	}
}

// waitGoroutines fails unless the goroutines are back to base within a
// second (a worker ends soon after the crew's stop has seen it quit).
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	for range 1000 {
		if runtime.NumGoroutine() <= base {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d goroutines, %d before the run", runtime.NumGoroutine(), base)
}

// A board that traps in a shared step right after a send (made in the
// same run, so deferred): Run reports the same trap, and the world the
// same counts, with 1, 2 and 3 jobs and each claim mode (the ponger of
// pingpong.s, node 1 in the worker's share, runs an invalid instruction
// right after its first reply). The send is replayed although the board
// has stopped: the pinger gets the reply. The workers end with the Run.
func TestJobsTrap(t *testing.T) {
	defer func() { claimTest = claimFirst }()
	src, err := os.ReadFile(filepath.Join("..", "fixtures", "firmware", "pingpong.s"))
	if err != nil {
		t.Fatal(err)
	}
	const reply = "st\t%r15, SMLT[%r0]\t\t! reply\n"
	if !bytes.Contains(src, []byte(reply)) {
		t.Fatal("pingpong.s changed")
	}
	// Named beside pingpong.s, so that its .include resolves.
	img := buildSource(t, filepath.Join("..", "fixtures", "firmware", "trap.s"), bytes.Replace(src, []byte(reply), []byte(reply+"\t.word\t0xd6b00772\n"), 1))
	type result struct {
		Err   string
		Stats Stats
	}
	run := func(jobs, mode int) result {
		claimTest = mode
		base := runtime.NumGoroutine()
		defer waitGoroutines(t, base) // the workers end with the Run
		p := map[string]uint32{"role": 0, "iters": 20, "len": 32}
		q := map[string]uint32{"role": 1, "iters": 20, "len": 32}
		s := world(t, img, []map[string]uint32{p, q})
		s.w.SetJobs(jobs)
		s.w.SetParallelCycles(1)
		s.w.SetBackoff(false)
		s.w.SetProvedJumps(false) // no lead step: the ponger traps in an ordinary step
		err := s.w.Run(10 * sim.Millisecond)
		if err == nil {
			t.Fatalf("jobs %d: no trap", jobs)
		}
		st := s.w.Stats()
		if jobs > 1 && st.ParallelSteps == 0 {
			t.Fatalf("jobs %d: no step shared", jobs)
		}
		st.ParallelSteps = 0
		return result{err.Error(), st}
	}
	serial := run(1, claimFirst)
	if a := serial.Stats.Nodes[0]; a.Link.PacketsRecv != 1 {
		t.Fatalf("the pinger did not get the reply: %+v", a)
	}
	for _, jobs := range []int{2, 3} {
		for _, mode := range []int{claimFirst, claimCaller, claimWorker} {
			if d := cmp.Diff(serial, run(jobs, mode)); d != "" {
				t.Fatalf("jobs %d, claim mode %d (-serial +parallel):\n%s", jobs, mode, d)
			}
		}
	}
	t.Logf("%s after %d steps", serial.Err, serial.Stats.Steps)
}
