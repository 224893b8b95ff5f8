package cluster

import (
	"bytes"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// WRITEs of 1-32 bytes carry their payload in the command slot: every
// byte lands where a DMA-sourced WRITE puts it, one crossing a
// destination page boundary too (two packets, the second from the middle
// of the slot's copy), and each completes with StatusOK.
func TestInlineWrite(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	a := c.Nodes[0].Kernel.NewProc("sender")
	b := c.Nodes[1].Kernel.NewProc("receiver")
	var epA, epB *lib.EP
	var region, dst, key uint32
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB, _ = lib.Open(th, c.Nodes[1].Driver, b)
		dst, _ = b.Mmap(th, 2*freebsd.PageSize, freebsd.ProtRW)
		b.Write(th, dst, make([]byte, 2*freebsd.PageSize))
		region, _ = epB.Export(th, dst, 2*freebsd.PageSize, true)
		key, _ = epB.ExportCounter(th, 0)
	})
	var imp, ctr int
	var src uint32
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		epA, _ = lib.Open(th, c.Nodes[0].Driver, a)
		imp, _ = epA.Import(th, 1, epB.Index, region, 2*freebsd.PageSize, abi.ExpKindRegion)
		ctr, _ = epA.Import(th, 1, epB.Index, key, 0, abi.ExpKindCounter)
		src, _ = a.Mmap(th, freebsd.PageSize, freebsd.ProtRW)
	})
	cases := []struct{ off, n uint32 }{{0, 1}, {8, 4}, {100, 17}, {200, 32}, {freebsd.PageSize - 12, 32}, {3000, 33}}
	sent := uint64(0)
	for i, cs := range cases {
		for _, noInline := range []bool{false, true} {
			sent++
			data := make([]byte, cs.n)
			for j := range data {
				data[j] = byte(i*37 + j + 1)
				if noInline {
					data[j] ^= 0xFF
				}
			}
			runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
				epA.NoInline = noInline
				a.Write(th, src, data)
				tk, err := epA.Write(th, src, imp, cs.off, cs.n, ctr)
				if err != nil {
					t.Fatal(err)
				}
				epA.Quiet(th)
				if done, st := epA.Test(tk); !done || st != abi.StatusOK {
					t.Errorf("%+v no_inline %v: done %v, status %d", cs, noInline, done, st)
				}
			})
			runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
				epB.WaitBusy(th, 0, sent) // the counter covers the WRITE
				got := make([]byte, cs.n)
				b.Read(th, dst+cs.off, got)
				if !bytes.Equal(got, data) {
					t.Errorf("%+v no_inline %v: got % x, want % x", cs, noInline, got, data)
				}
			})
		}
	}
}
