package cluster

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/board"
	"lanaiemu/node"
	"lanaiemu/sim"
)

// Boards run in parallel (Config.Jobs) give the serial run's results bit
// for bit (every step shared out, however short): four nodes streaming 16 KiB WRITEs round a ring for 3 ms, with
// every board's device trace recorded, give the same trace (same events,
// same order), the same counts of every node, the same fabric and
// endpoint totals and the same WRITE counters with 1, 2 and 3 jobs.
func TestJobsChangeNothing(t *testing.T) {
	type result struct {
		Stats    node.Stats
		Counters []uint64
		Trace    []string
	}
	run := func(jobs int) result {
		var r result
		c, err := New(Config{Nodes: 4, Frames: 256, Jobs: jobs, Trace: func(n int, e board.Event) {
			r.Trace = append(r.Trace, fmt.Sprintf("%d %v", n, e))
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Shutdown()
		c.World.SetParallelCycles(1) // every step in parallel, however short
		c.World.SetLeadSteps(false)  // (a lead step runs its boards one by one)
		eps := ringStream(t, c)
		if err := c.Run(c.Now() + 3*sim.Millisecond); err != nil {
			t.Fatal(err)
		}
		r.Stats = c.World.Stats()
		// The boot ran at the default threshold, and a step in which every
		// board is in a proved loop has no work to share out.
		if jobs > 1 && r.Stats.ParallelSteps < r.Stats.Steps/8 {
			t.Fatalf("jobs %d: %d of %d steps in parallel", jobs, r.Stats.ParallelSteps, r.Stats.Steps)
		}
		r.Stats.ParallelSteps = 0
		for _, ep := range eps {
			r.Counters = append(r.Counters, ep.Counter(0))
		}
		return r
	}
	serial := run(1)
	if serial.Counters[0] == 0 || len(serial.Trace) < 1000 {
		t.Fatalf("the ring did not run: counters %v, %d trace events", serial.Counters, len(serial.Trace))
	}
	for _, jobs := range []int{2, 3} {
		if d := cmp.Diff(serial, run(jobs)); d != "" {
			t.Fatalf("jobs %d differ from the serial run (-serial +parallel):\n%s", jobs, d)
		}
	}
	t.Logf("%d steps, %d trace events, counters %v", serial.Stats.Steps, len(serial.Trace), serial.Counters)
}
