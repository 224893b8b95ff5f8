package cluster

import (
	"errors"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// Bad input through the user API gets an error, locally or as a remote
// error record, and everybody goes on: an unaligned export, an unmapped
// source, a withdrawn region, a wrong key, a counter that was never
// exported, an import index out of range; then a good write still lands.
func TestBadUserInput(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	a := c.Nodes[0].Kernel.NewProc("a")
	b := c.Nodes[1].Kernel.NewProc("b")
	var epA, epB *lib.EP
	var region, region2, ctrKey uint32
	var dst uint32
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB, _ = lib.Open(th, c.Nodes[1].Driver, b)
		dst, _ = b.Mmap(th, 4*freebsd.PageSize, freebsd.ProtRW)
		if _, err := epB.Export(th, dst+100, freebsd.PageSize, true); !errors.Is(err, freebsd.ErrInval) {
			t.Errorf("unaligned export: %v", err)
		}
		region, _ = epB.Export(th, dst, 2*freebsd.PageSize, true)
		region2, _ = epB.Export(th, dst+2*freebsd.PageSize, 2*freebsd.PageSize, true)
		ctrKey, _ = epB.ExportCounter(th, 1)
	})
	var impGood, impGone, impWrong, impCtr, impBadCtr int
	var src uint32
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		epA, _ = lib.Open(th, c.Nodes[0].Driver, a)
		src, _ = a.Mmap(th, freebsd.PageSize, freebsd.ProtRW)
		a.Write(th, src, []byte("hello, netvm"))
		var errs [5]error
		impGood, errs[0] = epA.Import(th, 1, epB.Index, region, 2*freebsd.PageSize, abi.ExpKindRegion)
		impGone, errs[1] = epA.Import(th, 1, epB.Index, region2, 2*freebsd.PageSize, abi.ExpKindRegion)
		impWrong, errs[2] = epA.Import(th, 1, epB.Index, region+0x5500, 2*freebsd.PageSize, abi.ExpKindRegion) // another generation
		impCtr, errs[3] = epA.Import(th, 1, epB.Index, ctrKey, 0, abi.ExpKindCounter)
		impBadCtr, errs[4] = epA.Import(th, 1, epB.Index, 77<<8|200, 0, abi.ExpKindCounter)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("import %d: %v", i, err)
			}
		}
		if _, err := epA.Import(th, 1, epB.Index, 0, 1, abi.ExpKindRegion); err == nil {
			t.Error("an import of key 0 was accepted")
		}
	})
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		if err := epB.Unexport(th, region2); err != nil {
			t.Error(err)
		}
	})
	runThread(t, c, 0, 10*sim.Millisecond, func(th *freebsd.Thread) {
		if _, err := epA.Write(th, src, 9999, 0, 4, lib.NoCounter); !errors.Is(err, lib.ErrBadArg) {
			t.Errorf("import out of range: %v", err)
		}
		tkUnmapped, _ := epA.Write(th, 0x7000_0000, impGood, 0, 16, lib.NoCounter)
		tkGone, _ := epA.Write(th, src, impGone, 0, 12, lib.NoCounter)
		tkWrong, _ := epA.Write(th, src, impWrong, 0, 12, lib.NoCounter)
		tkCtr, _ := epA.Write(th, src, impGood, 0, 12, impBadCtr)
		epA.Quiet(th)
		if done, st := epA.Test(tkUnmapped); !done || st != abi.StatusSrcFault {
			t.Errorf("unmapped source: done %v status %d", done, st)
		}
		th.Sleep(5 * sim.Millisecond) // the NACKs come back (one after a retransmission)
		want := map[uint32]uint32{tkGone: abi.StatusKey, tkWrong: abi.StatusKey, tkCtr: abi.StatusCounter}
		for _, e := range epA.Errors() {
			if want[e.Ticket] != e.Status || e.Node != 1 {
				t.Errorf("remote error %+v", e)
			}
			delete(want, e.Ticket)
		}
		if len(want) != 0 {
			t.Errorf("remote errors missing: %v", want)
		}
		// Everybody goes on.
		epA.Write(th, src, impGood, 40, 12, impCtr)
	})
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB.WaitBusy(th, 1, 1)
		got := make([]byte, 12)
		b.Read(th, dst+40, got)
		if string(got) != "hello, netvm" {
			t.Errorf("good write after the bad ones: %q", got)
		}
	})
}
