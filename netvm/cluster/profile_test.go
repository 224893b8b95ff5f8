package cluster

import (
	"testing"

	"lanaiemu/lanai/profile"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// A profiled cluster runs cycle for cycle as a plain one, and each board's
// profile adds up to the cycles it ran while profiled. (A profiled run
// skips the polling loops, not the loops that only Run's loop watcher
// proves idle: it may skip fewer cycles, never count others.)
func TestProfiledClusterExact(t *testing.T) {
	var skipped [2][2]uint64 // plain, profiled; by node
	run := func(profiled bool) ([2]uint64, []*profile.Profiler, [2]uint64) {
		c, err := New(Config{Nodes: 2, Frames: 1024})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Shutdown()
		var ps []*profile.Profiler
		var before [2]uint64
		for i, n := range c.Nodes {
			before[i] = n.Board.CPU().Cycles
		}
		if profiled {
			if ps, err = c.Profile(); err != nil {
				t.Fatal(err)
			}
		}
		a, b := c.Nodes[0].Kernel.NewProc("a"), c.Nodes[1].Kernel.NewProc("b")
		var epA, epB *lib.EP
		var key, ctr, dst uint32
		runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
			epB, _ = lib.Open(th, c.Nodes[1].Driver, b)
			dst, _ = b.Mmap(th, 4*freebsd.PageSize, freebsd.ProtRW)
			key, _ = epB.Export(th, dst, 4*freebsd.PageSize, true)
			ctr, _ = epB.ExportCounter(th, 0)
		})
		runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
			epA, _ = lib.Open(th, c.Nodes[0].Driver, a)
			src, _ := a.Mmap(th, 4*freebsd.PageSize, freebsd.ProtRW)
			a.Write(th, src, pattern(4*freebsd.PageSize, 3))
			imp, _ := epA.Import(th, 1, epB.Index, key, 4*freebsd.PageSize, abi.ExpKindRegion)
			ic, _ := epA.Import(th, 1, epB.Index, ctr, 0, abi.ExpKindCounter)
			for range 4 {
				epA.Write(th, src, imp, 0, 4*freebsd.PageSize, ic)
			}
		})
		runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) { epB.WaitBusy(th, 0, 4) })
		var after [2]uint64
		for i, n := range c.Nodes {
			after[i] = n.Board.CPU().Cycles
			if profiled {
				skipped[1][i] = n.Board.CPU().SkippedCycles
			} else {
				skipped[0][i] = n.Board.CPU().SkippedCycles
			}
		}
		return before, ps, after
	}
	_, _, plain := run(false)
	before, ps, after := run(true)
	if after != plain || skipped[1][0] > skipped[0][0] || skipped[1][1] > skipped[0][1] {
		t.Fatalf("profiled run ended at cycles %v, %v skipped; plain at %v, %v skipped", after, skipped[1], plain, skipped[0])
	}
	for i, p := range ps {
		if got, want := p.Total(profile.Cycles), int64(after[i]-before[i]); got != want {
			t.Errorf("node %d: profile %d cycles, board ran %d", i, got, want)
		}
		if p.Total(profile.DMABusy) == 0 || p.Total(profile.LinkBusy) == 0 {
			t.Errorf("node %d: no DMA-busy (%d) or link-busy (%d) time", i, p.Total(profile.DMABusy), p.Total(profile.LinkBusy))
		}
	}
}
