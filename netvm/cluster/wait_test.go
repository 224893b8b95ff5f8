package cluster

import (
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// Two threads block on one counter, the first for value 1, the second
// for 2, arming in that order: one Post wakes the first (the second's
// higher target must not replace the first's), a second Post the second.
func TestBlockWaitersShareACounter(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	a := c.Nodes[0].Kernel.NewProc("poster")
	b := c.Nodes[1].Kernel.NewProc("waiters")
	var epA, epB *lib.EP
	var region, key uint32
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB, _ = lib.Open(th, c.Nodes[1].Driver, b)
		va, _ := b.Mmap(th, freebsd.PageSize, freebsd.ProtRW)
		region, _ = epB.Export(th, va, freebsd.PageSize, true)
		key, _ = epB.ExportCounter(th, 2)
	})
	var imp, ctr int
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		epA, _ = lib.Open(th, c.Nodes[0].Driver, a)
		imp, _ = epA.Import(th, 1, epB.Index, region, freebsd.PageSize, abi.ExpKindRegion)
		ctr, _ = epA.Import(th, 1, epB.Index, key, 0, abi.ExpKindCounter)
	})
	woke := map[uint64]sim.Time{}
	for i, target := range []uint64{1, 2} {
		c.Nodes[1].Kernel.Go("waiter", func(th *freebsd.Thread) {
			th.Sleep(sim.Time(i+1) * 10 * sim.Microsecond)
			if err := epB.WaitBlock(th, 2, target); err != nil {
				t.Error(err)
			}
			woke[target] = th.Now()
		})
	}
	var posts [2]sim.Time
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		for i := range posts {
			th.Sleep(200 * sim.Microsecond)
			posts[i] = th.Now()
			epA.Post(th, imp, ctr)
		}
	})
	c.Run(c.Now() + sim.Millisecond)
	for i, target := range []uint64{1, 2} {
		at, ok := woke[target]
		if !ok {
			t.Fatalf("the waiter for %d never woke", target)
		}
		if at < posts[i] || (i == 0 && at > posts[1]) {
			t.Fatalf("the waiter for %d woke at %v; posts at %v", target, at, posts)
		}
	}
}
