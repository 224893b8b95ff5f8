package cluster

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/board"
	"lanaiemu/netvm/lib"
	"lanaiemu/node"
)

// Boards run in parallel (Config.Jobs) give the serial run's results bit
// for bit, with the serial run's decisions: in every lead case (the
// 2-node stream and host activity, whose boards sit out lead steps and
// settle the runs they owe in ordinary steps; the busy 4-, 8- and 64-node
// rings, whose boards lag), untraced and traced, every ordinary step
// shared out however short, 2 and 3 jobs give the same counts of every
// node, fabric and endpoint totals, WRITE counters every 50 us, device
// events of all boards (in the order made, across the boards), and every
// world counter (steps, lead steps, boards
// lagged and sat out) but ParallelSteps as 1 job.
func TestJobsChangeNothing(t *testing.T) {
	for _, tc := range leadCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.name == "ring64" {
				t.Skip("-short")
			}
			for _, traced := range []bool{false, true} {
				run := func(jobs int) (leadResult, node.Stats) {
					cfg := tc.cfg
					cfg.Jobs = jobs
					var trace []string // every board's events in the order made
					if traced {
						cfg.Trace = func(n int, e board.Event) { trace = append(trace, fmt.Sprint(n, " ", e)) }
					}
					r, st := leadRun(t, cfg, true, false, tc.d, func(c *Cluster) []*lib.EP {
						c.World.SetParallelCycles(1) // every ordinary step in parallel, however short,
						c.World.SetBackoff(false)    // and however late the worker
						return tc.setup(c)
					})
					r.Trace = [][]string{trace}
					st.Time, st.Nodes, st.Endpoints = 0, nil, nil // (compared in the result)
					return r, st
				}
				serial, st1 := run(1)
				if st1.ParallelSteps != 0 {
					t.Fatalf("1 job: %d steps in parallel", st1.ParallelSteps)
				}
				if (tc.name == "stream" || tc.name == "host") && st1.SatOut == 0 || tc.name != "host" && st1.Lagged == 0 {
					t.Fatalf("the serial run tests little: boards sat out %d lead steps, lagged %d steps", st1.SatOut, st1.Lagged)
				}
				for _, jobs := range []int{2, 3} {
					par, st := run(jobs)
					if d := cmp.Diff(serial, par); d != "" {
						t.Fatalf("traced %v, jobs %d: the run differs from the serial one (-serial +parallel):\n%s", traced, jobs, d)
					}
					// Every ordinary step (not a lead step or proved jump)
					// of length Q (not grown) in which a board runs is
					// shared.
					ordinary := st.Steps - st.ProvedSteps - st.IdleSteps
					if st.ParallelSteps < ordinary*9/10 {
						t.Fatalf("traced %v, jobs %d: %d of %d ordinary steps in parallel", traced, jobs, st.ParallelSteps, ordinary)
					}
					par0 := st.ParallelSteps
					st.ParallelSteps = 0
					if d := cmp.Diff(st1, st); d != "" {
						t.Fatalf("traced %v, jobs %d: the world's counters differ (-serial +parallel):\n%s", traced, jobs, d)
					}
					if jobs == 2 {
						t.Logf("traced %v: %d steps (%d ordinary, %d of them in parallel), boards lagged %d steps, sat out %d lead steps",
							traced, st.Steps, ordinary, par0, st.Lagged, st.SatOut)
					}
				}
			}
		})
	}
}

// The jobs may change between runs (World.SetJobs, which regroups the
// boards' shared code to the new shares): the busy 8-node ring, its jobs
// set to 2, 3, 1, 3, 2, ... for each 50 us run, with every ordinary step
// shared or only those worth it (the default threshold) in turn, gives the
// run with one job bit for bit: every node's counts, the totals, the WRITE
// counters after each run, and every board's device events in order.
// Under -race it checks that no code-sharing set spans two goroutines
// after a change.
func TestJobsChangeBetweenRuns(t *testing.T) {
	type result struct {
		Stats    node.Stats
		Counters [][]uint64
		Trace    []string
	}
	run := func(change bool) result {
		var r result
		c, err := New(Config{Nodes: 8, Frames: 256, Trace: func(n int, e board.Event) { r.Trace = append(r.Trace, fmt.Sprint(n, " ", e)) }})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Shutdown()
		eps := ringStream(t, c)
		c.World.SetBackoff(false)
		for k := 0; k < 20; k++ {
			if change {
				c.World.SetJobs([]int{2, 3, 1, 3, 2}[k%5])
				c.World.SetParallelCycles(uint64(k % 2)) // 1: every step; 0: the default
			}
			r.Counters = append(r.Counters, runCounting(t, c, eps))
		}
		r.Stats = c.World.Stats()
		return r
	}
	serial := run(false)
	changed := run(true)
	if changed.Stats.ParallelSteps == 0 {
		t.Fatal("no step shared")
	}
	changed.Stats.ParallelSteps = 0
	if d := cmp.Diff(serial, changed); d != "" {
		t.Fatalf("the run differs from the serial one (-serial +jobs changed):\n%s", d)
	}
	t.Logf("%d steps, %d device events", serial.Stats.Steps, len(serial.Trace))
}
