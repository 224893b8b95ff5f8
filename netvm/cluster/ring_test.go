package cluster

import (
	"bytes"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// A process may post more WRITEs than its endpoint's ring holds
// (abi.RingSlots) without waiting in between, every one naming a counter:
// lib.EP.Write waits for the oldest slot's completion before it reuses
// the slot (Stats.RingWaits), no command is overwritten, every byte lands
// and the counter counts every WRITE (more notifications than the
// receiver's deferral queue holds too, abi.DeferMax).
func TestWritesBeyondRing(t *testing.T) {
	const n, size = 3 * abi.RingSlots, 48
	c, err := New(Config{Nodes: 2, Frames: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	a := c.Nodes[0].Kernel.NewProc("sender")
	b := c.Nodes[1].Kernel.NewProc("receiver")
	var epA, epB *lib.EP
	var region, dst, key uint32
	const regionLen = n * size
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB, _ = lib.Open(th, c.Nodes[1].Driver, b)
		dst, _ = b.Mmap(th, regionLen, freebsd.ProtRW)
		b.Write(th, dst, make([]byte, regionLen))
		region, _ = epB.Export(th, dst, regionLen, true)
		key, _ = epB.ExportCounter(th, 0)
	})
	want := make([]byte, regionLen)
	for i := range want {
		want[i] = byte(i*7 + i/251 + 1)
	}
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		epA, _ = lib.Open(th, c.Nodes[0].Driver, a)
		imp, _ := epA.Import(th, 1, epB.Index, region, regionLen, abi.ExpKindRegion)
		ctr, _ := epA.Import(th, 1, epB.Index, key, 0, abi.ExpKindCounter)
		src, _ := a.Mmap(th, regionLen, freebsd.ProtRW)
		a.Write(th, src, want)
		epA.NoInline = true // the source is read by DMA while the ring is full
		for i := range uint32(n) {
			if _, err := epA.Write(th, src+i*size, imp, i*size, size, ctr); err != nil {
				t.Fatal(err)
			}
		}
		epA.Quiet(th)
	})
	if epA.Stats.RingWaits == 0 {
		t.Fatalf("%d WRITEs never waited for a ring slot: %+v", n, epA.Stats)
	}
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB.WaitBusy(th, 0, n)
		got := make([]byte, regionLen)
		b.Read(th, dst, got)
		if !bytes.Equal(got, want) {
			t.Errorf("the region differs from what was written")
		}
	})
	if v := epB.Counter(0); v != n {
		t.Errorf("counter %d, want %d", v, n)
	}
	for _, m := range c.Nodes {
		if d := m.Stat(abi.StatPeerDead); d != 0 {
			t.Errorf("node %d: %d dead peers", m.ID, d)
		}
	}
}
