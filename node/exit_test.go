package node

import (
	"testing"

	"lanaiemu/sim"
)

// A node stops where its EXIT store completes, however the world cuts
// its run into steps, and a world whose nodes have all stopped stops at the
// instant the last one did (docs/timeline.md, "The end of a run"). The
// lead steps and proved jumps must give what the steps of length Q give:
// a leader that exited inside a watched run was run on past its exit (the
// pinger to cycle 11966 instead of 10938), and the world's time then
// went on to that run's end. The second case leaves the echoer polling
// for a ping that never comes after the pinger exited: the world goes on
// to its limit, every board where the steps of length Q leave it.
func TestExitEndsTheRun(t *testing.T) {
	img := build(t, "pingpong.s")
	for _, c := range []struct {
		name       string
		iters      [2]uint32
		allStopped bool
	}{
		{"both exit", [2]uint32{100, 100}, true},
		{"the echoer waits on", [2]uint32{100, 101}, false},
	} {
		var want []NodeStats
		var wantNow sim.Time
		for _, mode := range []string{"steps of length Q", "proved jumps", "lead steps"} {
			s := world(t, img, []map[string]uint32{{"role": 0, "iters": c.iters[0], "len": 32}, {"role": 1, "iters": c.iters[1], "len": 32}})
			s.w.SetProvedJumps(mode != "steps of length Q")
			s.w.SetLeadSteps(mode == "lead steps")
			st := run(t, s, 200*sim.Microsecond)
			var last sim.Time
			for i, n := range st.Nodes {
				if i == 0 || c.allStopped {
					if !n.Exited {
						t.Fatalf("%s, %s: node %d did not exit", c.name, mode, i)
					}
					last = max(last, s.w.Nodes[i].clk.Time(n.Cycles))
				}
			}
			if c.allStopped && st.Time != last {
				t.Errorf("%s, %s: the world ends at %v, the last exit was at %v", c.name, mode, st.Time, last)
			}
			if !c.allStopped && st.Time != 200*sim.Microsecond {
				t.Errorf("%s, %s: the world ends at %v, not at its limit", c.name, mode, st.Time)
			}
			if want == nil {
				want, wantNow = st.Nodes, st.Time
				continue
			}
			for i, n := range st.Nodes {
				w := want[i]
				if n.Cycles != w.Cycles || n.Instructions != w.Instructions || n.Exited != w.Exited || n.ExitCode != w.ExitCode {
					t.Errorf("%s, %s: node %d: %d cycles, %d instructions, exited %v (%d); with steps of length Q %d, %d, %v (%d)",
						c.name, mode, i, n.Cycles, n.Instructions, n.Exited, n.ExitCode, w.Cycles, w.Instructions, w.Exited, w.ExitCode)
				}
			}
			if st.Time != wantNow {
				t.Errorf("%s, %s: the world ends at %v; with steps of length Q at %v", c.name, mode, st.Time, wantNow)
			}
		}
	}
}
