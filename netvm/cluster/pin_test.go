package cluster

import (
	"bytes"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// Dynamic pinning (abi.ModeDynamic, the baseline of E5): the exported
// region is wired at export; the sender's pages are pinned by the
// library's LRU pin-down cache on a miss and unpinned on eviction; the
// data arrives intact; a WRITE from a page that was never pinned fails
// with StatusSrcFault instead of being paged in.
func TestDynamicPinning(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 1024, Mode: abi.ModeDynamic})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	const pages = 4
	a := c.Nodes[0].Kernel.NewProc("sender")
	b := c.Nodes[1].Kernel.NewProc("server")
	var (
		epA, epB       *lib.EP
		region, ctrKey uint32
		dst, src       uint32
		imp, impCtr    int
		cache          *lib.PinCache
	)
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		var err error
		if epB, err = lib.Open(th, c.Nodes[1].Driver, b); err != nil {
			t.Fatal(err)
		}
		dst, _ = b.Mmap(th, pages*freebsd.PageSize, freebsd.ProtRW)
		if region, err = epB.Export(th, dst, pages*freebsd.PageSize, true); err != nil {
			t.Fatal(err)
		}
		if ctrKey, err = epB.ExportCounter(th, 0); err != nil {
			t.Fatal(err)
		}
	})
	for i := range uint32(pages) {
		if m, _ := b.Mapped(dst + i*freebsd.PageSize); m == nil || m.Wire == 0 {
			t.Fatalf("exported page %d is not wired", i)
		}
	}
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		var err error
		if epA, err = lib.Open(th, c.Nodes[0].Driver, a); err != nil {
			t.Fatal(err)
		}
		src, _ = a.Mmap(th, 8*freebsd.PageSize, freebsd.ProtRW)
		for i := range 8 {
			a.Write(th, src+uint32(i)*freebsd.PageSize, pattern(freebsd.PageSize, byte(i)))
		}
		if imp, err = epA.Import(th, 1, epB.Index, region, pages*freebsd.PageSize, abi.ExpKindRegion); err != nil {
			t.Fatal(err)
		}
		if impCtr, err = epA.Import(th, 1, epB.Index, ctrKey, 0, abi.ExpKindCounter); err != nil {
			t.Fatal(err)
		}
		cache = lib.NewPinCache(epA, 2)
	})
	// K = 2: 0 miss, 1 miss, 0 hit, 2 miss (evicts 1), 3 miss (evicts 0), 1 miss (evicts 2).
	order := []int{0, 1, 0, 2, 3, 1}
	for n, pg := range order {
		runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
			off := uint32(n%pages) * freebsd.PageSize
			if _, err := cache.Write(th, src+uint32(pg)*freebsd.PageSize, imp, off, freebsd.PageSize, impCtr); err != nil {
				t.Fatal(err)
			}
		})
		runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
			epB.WaitBusy(th, 0, uint64(n+1))
			got := make([]byte, freebsd.PageSize)
			b.Read(th, dst+uint32(n%pages)*freebsd.PageSize, got)
			if !bytes.Equal(got, pattern(freebsd.PageSize, byte(pg))) {
				t.Fatalf("write %d (page %d) arrived wrong", n, pg)
			}
		})
	}
	if cache.Hits != 1 || cache.Misses != 5 || cache.Evictions != 3 {
		t.Fatalf("hits %d misses %d evictions %d, want 1 5 3", cache.Hits, cache.Misses, cache.Evictions)
	}
	ds := c.Nodes[0].Driver.Stats()
	if ds.Pins != 5 || ds.Unpins != 3 || ds.SPTMaps != 5 || ds.SPTUnmaps != 3 {
		t.Fatalf("sender's driver: pins %d unpins %d SPT maps %d unmaps %d, want 5 3 5 3", ds.Pins, ds.Unpins, ds.SPTMaps, ds.SPTUnmaps)
	}
	for pg, wired := range map[int]bool{0: false, 1: true, 2: false, 3: true, 7: false} {
		if m, _ := a.Mapped(src + uint32(pg)*freebsd.PageSize); m == nil || (m.Wire > 0) != wired {
			t.Fatalf("source page %d: wired %v, want %v", pg, m != nil && m.Wire > 0, wired)
		}
	}
	// Page 7 was never pinned: the NIC cannot translate it.
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		tk, _ := epA.Write(th, src+7*freebsd.PageSize, imp, 0, 64, lib.NoCounter)
		epA.Quiet(th)
		if done, st := epA.Test(tk); !done || st != abi.StatusSrcFault {
			t.Fatalf("a WRITE from an unpinned page: done %v status %d, want StatusSrcFault", done, st)
		}
	})
}
