package cluster

import (
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/node"
	"lanaiemu/sim"
)

// The proved jumps change nothing but the speed (and how many cycles were
// skipped rather than executed): two nodes idle for 5 ms,
// then one 16 KiB WRITE with a counter, then idle again, give the same
// cycle and instruction counts on both boards, the same fabric totals and
// the same counter at the same time as a run that takes every step of
// one link latency; the jumping run takes less than half the steps.
func TestProvedJumpsChangeNothing(t *testing.T) {
	run := func(jumps bool) (node.Stats, uint64, sim.Time) {
		c, err := New(Config{Nodes: 2, Frames: 256})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Shutdown()
		boot := c.World.Stats() // the boot ran with jumps on: counted apart
		c.World.SetProvedJumps(jumps)
		var epA, epB *lib.EP
		var key, ctr, src uint32
		pa, pb := c.Nodes[0].Kernel.NewProc("a"), c.Nodes[1].Kernel.NewProc("b")
		runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
			epB, _ = lib.Open(th, c.Nodes[1].Driver, pb)
			dst, _ := pb.Mmap(th, 16<<10, freebsd.ProtRW)
			pb.Write(th, dst, make([]byte, 16<<10))
			key, _ = epB.Export(th, dst, 16<<10, true)
			ctr, _ = epB.ExportCounter(th, 0)
		})
		if err := c.Run(c.Now() + 5*sim.Millisecond); err != nil {
			t.Fatal(err)
		}
		var at sim.Time
		runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
			epA, _ = lib.Open(th, c.Nodes[0].Driver, pa)
			src, _ = pa.Mmap(th, 16<<10, freebsd.ProtRW)
			pa.Write(th, src, make([]byte, 16<<10))
			imp, _ := epA.Import(th, 1, epB.Index, key, 16<<10, abi.ExpKindRegion)
			ic, _ := epA.Import(th, 1, epB.Index, ctr, 0, abi.ExpKindCounter)
			epA.Write(th, src, imp, 0, 16<<10, ic)
		})
		for epB.Counter(0) == 0 {
			if err := c.Run(c.Now() + sim.Microsecond); err != nil {
				t.Fatal(err)
			}
			if c.Now() > sim.Second {
				t.Fatal("the WRITE did not arrive")
			}
		}
		at = c.Now()
		if err := c.Run(c.Now() + 5*sim.Millisecond); err != nil {
			t.Fatal(err)
		}
		st := c.World.Stats()
		st.Steps -= boot.Steps
		st.ProvedSteps -= boot.ProvedSteps
		return st, epB.Counter(0), at
	}
	a, ca, ta := run(true)
	b, cb, tb := run(false)
	if ca != cb || ta != tb || a.Time != b.Time || a.Fabric != b.Fabric {
		t.Fatalf("counter %d at %v, fabric %+v; every step: counter %d at %v, fabric %+v", ca, ta, a.Fabric, cb, tb, b.Fabric)
	}
	for i := range a.Nodes {
		if a.Nodes[i].SkippedCycles <= b.Nodes[i].SkippedCycles {
			t.Errorf("node %d: %d cycles skipped, every step %d", i, a.Nodes[i].SkippedCycles, b.Nodes[i].SkippedCycles)
		}
		a.Nodes[i].SkippedCycles = b.Nodes[i].SkippedCycles // the one difference wanted
		if a.Nodes[i] != b.Nodes[i] {
			t.Fatalf("node %d: %+v\nevery step: %+v", i, a.Nodes[i], b.Nodes[i])
		}
	}
	if a.ProvedSteps == 0 || b.ProvedSteps != 0 || 2*a.Steps > b.Steps {
		t.Fatalf("steps %d (%d proved), every step %d (%d proved)", a.Steps, a.ProvedSteps, b.Steps, b.ProvedSteps)
	}
	t.Logf("%d steps (%d proved jumps) against %d; boards at %d and %d cycles", a.Steps, a.ProvedSteps, b.Steps, a.Nodes[0].Cycles, a.Nodes[1].Cycles)
}
