package cluster

import (
	"bytes"
	"errors"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/driver"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// Several processes on one node open endpoints at the same time, each
// writes its own page of a peer's region with the peer's counter, closes,
// and opens again: every open gets its own slot (none is handed out
// twice while its EP_OPEN is in flight), every byte lands, and a
// seventeenth open while sixteen are held fails with ErrNoEndpoint
// rather than reusing a slot. Run it under the race detector too
// (go test -race): the host threads are goroutines handing over to each
// other.
func TestSharedNodeEndpoints(t *testing.T) {
	const senders, rounds = 6, 2
	c, err := New(Config{Nodes: 2, Frames: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	b := c.Nodes[1].Kernel.NewProc("sink")
	var epB *lib.EP
	var dst, region, ctr uint32
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		var err error
		if epB, err = lib.Open(th, c.Nodes[1].Driver, b); err != nil {
			t.Fatal(err)
		}
		dst, _ = b.Mmap(th, senders*freebsd.PageSize, freebsd.ProtRW)
		b.Write(th, dst, make([]byte, senders*freebsd.PageSize))
		if region, err = epB.Export(th, dst, senders*freebsd.PageSize, true); err != nil {
			t.Fatal(err)
		}
		if ctr, err = epB.ExportCounter(th, 0); err != nil {
			t.Fatal(err)
		}
	})
	k := c.Nodes[0].Kernel
	for round := range rounds {
		finished := 0
		held := map[int]int{} // endpoint slot -> sender holding it
		for s := range senders {
			p := k.NewProc("sender")
			msg := pattern(freebsd.PageSize, byte(16*round+s))
			k.Go("sender", func(th *freebsd.Thread) {
				defer func() { finished++ }()
				ep, err := lib.Open(th, c.Nodes[0].Driver, p)
				if err != nil {
					t.Errorf("round %d sender %d: open: %v", round, s, err)
					return
				}
				if other, ok := held[ep.Index]; ok {
					t.Errorf("round %d: senders %d and %d both hold endpoint %d", round, other, s, ep.Index)
				}
				held[ep.Index] = s
				src, _ := p.Mmap(th, freebsd.PageSize, freebsd.ProtRW)
				p.Write(th, src, msg)
				imp, err1 := ep.Import(th, 1, epB.Index, region, senders*freebsd.PageSize, abi.ExpKindRegion)
				impCtr, err2 := ep.Import(th, 1, epB.Index, ctr, 0, abi.ExpKindCounter)
				if err := errors.Join(err1, err2); err != nil {
					t.Errorf("round %d sender %d: import: %v", round, s, err)
					return
				}
				tk, err := ep.Write(th, src, imp, uint32(s)*freebsd.PageSize, freebsd.PageSize, impCtr)
				if err != nil {
					t.Errorf("round %d sender %d: write: %v", round, s, err)
					return
				}
				ep.Quiet(th)
				if done, st := ep.Test(tk); !done || st != abi.StatusOK {
					t.Errorf("round %d sender %d: write done %v status %d", round, s, done, st)
				}
				delete(held, ep.Index)
				ep.Close(th)
			})
		}
		runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
			epB.WaitBusy(th, 0, uint64((round+1)*senders))
			for s := range senders {
				got := make([]byte, freebsd.PageSize)
				b.Read(th, dst+uint32(s)*freebsd.PageSize, got)
				if !bytes.Equal(got, pattern(freebsd.PageSize, byte(16*round+s))) {
					t.Errorf("round %d: sender %d's page differs", round, s)
				}
			}
		})
		for finished < senders && !t.Failed() {
			if err := c.Run(c.Now() + 100*sim.Microsecond); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Sixteen endpoints held at once: the next open is refused cleanly.
	var eps []*lib.EP
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		for i := range abi.MaxEndpoints + 1 {
			ep, err := lib.Open(th, c.Nodes[0].Driver, k.NewProc("holder"))
			if i < abi.MaxEndpoints && err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			if i == abi.MaxEndpoints && !errors.Is(err, driver.ErrNoEndpoint) {
				t.Fatalf("open %d of %d: %v, want ErrNoEndpoint", i+1, abi.MaxEndpoints, err)
			}
			if err == nil {
				eps = append(eps, ep)
			}
		}
		for _, ep := range eps {
			ep.Close(th)
		}
	})
}
