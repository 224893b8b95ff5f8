package cluster

import (
	"bytes"
	"encoding/binary"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// The page daemon takes a page while the NIC is DMAing into it: the
// driver's hook finds L set and waits (driver.Stats.LockWaits), the page
// goes out only after the DMA, and no byte is lost.
func TestEvictDuringDMA(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	a, b := c.Nodes[0].Kernel.NewProc("writer"), c.Nodes[1].Kernel.NewProc("reader")
	const size = 16 * freebsd.PageSize
	var epA, epB *lib.EP
	var key, ck, dst, src uint32
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB, _ = lib.Open(th, c.Nodes[1].Driver, b)
		dst, _ = b.Mmap(th, size, freebsd.ProtRW)
		b.Write(th, dst, make([]byte, size)) // resident: the NIC writes it directly
		key, _ = epB.Export(th, dst, size, true)
		ck, _ = epB.ExportCounter(th, 0)
	})
	msg := make([]byte, size)
	for i := range msg {
		msg[i] = byte(i*7 + 3)
	}
	var imp, ic int
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		epA, _ = lib.Open(th, c.Nodes[0].Driver, a)
		src, _ = a.Mmap(th, size, freebsd.ProtRW)
		a.Write(th, src, msg)
		imp, _ = epA.Import(th, 1, epB.Index, key, size, abi.ExpKindRegion)
		ic, _ = epA.Import(th, 1, epB.Index, ck, 0, abi.ExpKindCounter)
	})
	// An evictor that waits, on node 1, until the NIC holds L on page 8's
	// SPT entry, then evicts the page.
	mem := c.Nodes[1].Board.CPU().Mem
	target := dst + 8*freebsd.PageSize
	lockedSeen := false
	c.Nodes[1].Kernel.Go("evictor", func(th *freebsd.Thread) {
		for !lockedSeen {
			for i := uint32(0); i < abi.SPTEntries; i++ {
				e, _ := mem.Read(abi.SPTBase+i*abi.SPTEntrySize, 12)
				if binary.BigEndian.Uint32(e) == target|uint32(b.PID) && binary.BigEndian.Uint32(e[8:])&abi.SPTL != 0 {
					lockedSeen = true
				}
			}
			if !lockedSeen {
				th.Sleep(200 * sim.Nanosecond)
			}
		}
		if !b.Evict(th, target) {
			t.Error("the page was not evicted")
		}
	})
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) { epA.Write(th, src, imp, 0, size, ic) })
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB.WaitBusy(th, 0, 1)
		got := make([]byte, size)
		b.Read(th, dst, got)
		if !bytes.Equal(got, msg) {
			t.Error("bytes lost")
		}
	})
	ds := c.Nodes[1].Driver.Stats()
	if !lockedSeen || ds.LockWaits == 0 {
		t.Fatalf("locked seen %v, lock waits %d", lockedSeen, ds.LockWaits)
	}
	t.Logf("the host waited %v for the NIC's lock", ds.LockWaitTime)
}
