package netvm_test

import (
	"bytes"
	"fmt"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/sim"
)

// Parameters of TestRandomWrites (variables: a longer run is one edit
// away; -short caps the count at 100).
var (
	randomWrites = 1000 // number of WRITEs
	randomBatch  = 8    // WRITEs posted before waiting (< abi.RingSlots)
	randomSeed   = uint64(0x5EED_0001)
)

const (
	rSrcVA     = 0x5000_0000 // node 0's source buffer
	rDstVA     = 0x9000_0000 // node 1's pages holding the exported region
	rPages     = 72          // pages of each (288 KiB > 256 KiB + offsets)
	rRegionOff = 0           // exported regions are page aligned (§2.3)
	rRegionEnd = 0x33        // the region ends this many bytes before the last page's end
	rRegionLen = rPages*abi.PageSize - rRegionOff - rRegionEnd
	rRegionKey = 3<<8 | 9
	rCtrKey    = 4<<8 | 10
	rCtrID     = 7
	rImpRegion = 20
	rImpCtr    = 21
	rMaxSize   = 256 << 10
)

// packets is the number of packets §5.1 cuts a WRITE into.
func packets(src, dst, size uint32) int {
	if size == 0 {
		return 1
	}
	n := 0
	for size > 0 {
		l := min(abi.PageSize-src%abi.PageSize, abi.PageSize-dst%abi.PageSize, size)
		src, dst, size = src+l, dst+l, size-l
		n++
	}
	return n
}

// randomSize picks a size from 0 to rMaxSize, biased toward small ones
// and toward page-sized edges.
func randomSize(r *sim.Rand) uint32 {
	switch r.Intn(10) {
	case 0:
		return 0
	case 1, 2:
		return uint32(1 + r.Intn(64))
	case 3, 4:
		return uint32(1 + r.Intn(2*abi.PageSize))
	case 5:
		return uint32(abi.PageSize*(1+r.Intn(4)) + r.Intn(3) - 1)
	case 6, 7:
		return uint32(1 + r.Intn(64<<10))
	case 8:
		return uint32(1 + r.Intn(rMaxSize))
	default:
		return rMaxSize - uint32(r.Intn(2))
	}
}

// randomOff picks an offset in [0, room], biased toward both ends and
// page boundaries (given base, the VA of offset 0).
func randomOff(r *sim.Rand, base, room uint32) uint32 {
	switch r.Intn(6) {
	case 0:
		return 0
	case 1:
		return room
	case 2: // near a page boundary
		p := (base + uint32(r.Intn(int(room)+1))) &^ (abi.PageSize - 1)
		o := int64(p) - int64(base) + int64(r.Intn(9)) - 4
		if o < 0 {
			o = 0
		}
		return min(uint32(o), room)
	default:
		return uint32(r.Intn(int(room) + 1))
	}
}

// TestRandomWrites posts randomWrites WRITEs from node 0 to a region
// exported by node 1 (sizes 0..256 KiB, random source and destination
// offsets, a counter on one write in four), randomBatch at a time, and
// checks node 1's host memory against a model (every byte of its user
// pages: the region, the guard bytes around it, the unmapped pages in
// between), every completion (StatusOK, its ticket), the counter and the
// statistics.
func TestRandomWrites(t *testing.T) {
	writes := randomWrites
	if testing.Short() {
		writes = min(writes, 100)
	}
	w := NewBackToBack(t, Build(t))
	n0, n1 := w.Nodes[0], w.Nodes[1]
	w.OpenEP(n0, 0, asid)
	w.OpenEP(n1, 0, asid)
	var src, dst [rPages]uint64
	for i := range rPages {
		src[i] = w.Map(n0, asid, rSrcVA+uint32(i)*abi.PageSize, abi.SPTV|abi.SPTW)
		n0.AllocPage() // unmapped pages in between: translation matters
		dst[i] = w.Map(n1, asid, rDstVA+uint32(i)*abi.PageSize, abi.SPTV|abi.SPTW)
		n1.AllocPage()
	}
	// A region whose base is not page aligned is refused (§2.3).
	if st := w.KernelSync(n1, abi.KOpExport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KExpKey, rRegionKey),
		abi.Field32(abi.KExpBase, rDstVA+0x75), abi.Field32(abi.KExpLen, 100), abi.Field32(abi.KExpKind, abi.ExpKindRegion|abi.ExpPermW)); st != abi.StatusBadCmd {
		t.Fatalf("EXPORT of an unaligned region: status %d, want BadCmd", st)
	}
	w.MustKernel(n1, abi.KOpExport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KExpKey, rRegionKey),
		abi.Field32(abi.KExpBase, rDstVA+rRegionOff), abi.Field32(abi.KExpLen, rRegionLen), abi.Field32(abi.KExpKind, abi.ExpKindRegion|abi.ExpPermW))
	w.MustKernel(n1, abi.KOpExport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KExpKey, rCtrKey),
		abi.Field32(abi.KExpBase, rCtrID), abi.Field32(abi.KExpLen, 0), abi.Field32(abi.KExpKind, abi.ExpKindCounter))
	w.MustKernel(n0, abi.KOpImport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KImpIndex, rImpRegion), abi.Field32(abi.KImpNode, 1),
		abi.Field32(abi.KImpEp, 0), abi.Field32(abi.KImpKey, rRegionKey), abi.Field32(abi.KImpLen, rRegionLen), abi.Field32(abi.KImpKind, abi.ExpKindRegion))
	w.MustKernel(n0, abi.KOpImport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KImpIndex, rImpCtr), abi.Field32(abi.KImpNode, 1),
		abi.Field32(abi.KImpEp, 0), abi.Field32(abi.KImpKey, rCtrKey), abi.Field32(abi.KImpKind, abi.ExpKindCounter))

	r := sim.NewRand(randomSeed)
	fill := func(b []byte) {
		for i := range b {
			b[i] = byte(r.Uint64())
		}
	}
	// Node 0: random source pages. Node 1: random bytes everywhere in the
	// user pages; the model is a copy.
	for _, p := range src {
		fill(n0.HostBytes(p, abi.PageSize))
	}
	user := n1.HostBytes(HostBase+UserPages, int(n1.next-UserPages))
	fill(user)
	model := append([]byte(nil), user...)
	// srcBytes reads the source buffer at an offset; applyModel writes the
	// model at an offset of the region.
	srcBytes := func(off, l uint32) []byte {
		out := make([]byte, 0, l)
		for l > 0 {
			pg, po := off/abi.PageSize, off%abi.PageSize
			k := min(l, abi.PageSize-po)
			out = append(out, n0.HostBytes(src[pg]+uint64(po), int(k))...)
			off, l = off+k, l-k
		}
		return out
	}
	applyModel := func(off uint32, b []byte) { // off: from the region's start
		off += rRegionOff
		for len(b) > 0 {
			pg, po := off/abi.PageSize, off%abi.PageSize
			k := min(uint32(len(b)), abi.PageSize-po)
			copy(model[dst[pg]-HostBase-UserPages+uint64(po):], b[:k])
			off, b = off+k, b[k:]
		}
	}

	type posted struct {
		slot     int
		ticket   uint32
		src, dst uint32
		size     uint32
		ctr      bool
	}
	var (
		wantPkts, wantCtr int
		totalBytes        uint64
		t0                = w.Now()
	)
	for done := 0; done < writes; {
		var batch []posted
		for len(batch) < randomBatch && done+len(batch) < writes {
			size := randomSize(r)
			so := randomOff(r, rSrcVA, rPages*abi.PageSize-size)
			do := randomOff(r, rDstVA+rRegionOff, rRegionLen-size)
			ctr := r.Intn(4) == 0
			ci := uint16(abi.NoCounter)
			if ctr {
				ci = rImpCtr
				wantCtr++
			}
			slot, tk := n0.Write(0, rSrcVA+so, size, do, rImpRegion, ci)
			batch = append(batch, posted{slot, tk, so, do, size, ctr})
			applyModel(do, srcBytes(so, size))
			wantPkts += packets(rSrcVA+so, rDstVA+rRegionOff+do, size)
			totalBytes += uint64(size)
		}
		last := batch[len(batch)-1]
		what := fmt.Sprintf("writes %d..%d", done, done+len(batch)-1)
		w.RunUntil(what+": completions", sim.Microsecond, 100*sim.Millisecond, func() bool {
			_, got := n0.Comp(0, last.slot)
			return got == last.ticket
		})
		for i, p := range batch {
			if st, tk := n0.Comp(0, p.slot); st != abi.StatusOK || tk != p.ticket {
				t.Fatalf("write %d %+v: completion status %d ticket %d, want OK %d", done+i, p, st, tk, p.ticket)
			}
		}
		w.RunUntil(what+": received", 100*sim.Nanosecond, 10*sim.Millisecond, func() bool {
			return int(n1.Stat(abi.StatRxData)) == wantPkts && int(n1.Counter(0, rCtrID)) == wantCtr
		})
		if !bytes.Equal(user, model) {
			for i := range user {
				if user[i] != model[i] {
					t.Fatalf("%s %+v: node 1 host byte %#x is %#x, want %#x", what, batch, HostBase+UserPages+i, user[i], model[i])
				}
			}
		}
		done += len(batch)
	}
	elapsed := w.Now() - t0
	if err := w.W.Run(w.Now() + 10*sim.Microsecond); err != nil { // nothing more may happen
		t.Fatal(err)
	}
	if !bytes.Equal(user, model) {
		t.Fatal("node 1 host memory changed after the last write")
	}
	if c := n1.Counter(0, rCtrID); c != uint64(wantCtr) {
		t.Fatalf("counter %d, want %d", c, wantCtr)
	}
	for c := range abi.MaxCounters {
		if c != rCtrID && n1.Counter(0, c) != 0 {
			t.Fatalf("counter %d is %d", c, n1.Counter(0, c))
		}
	}
	for _, s := range []struct {
		n    *ScriptedNode
		off  uint32
		want int
	}{
		{n0, abi.StatTxData, wantPkts}, {n1, abi.StatRxData, wantPkts}, {n1, abi.StatNotify, wantCtr},
		{n0, abi.StatRxData, 0}, {n1, abi.StatTxData, 0}, {n1, abi.StatCRC, 0}, {n1, abi.StatDup, 0},
	} {
		if got := s.n.Stat(s.off); int(got) != s.want {
			t.Errorf("node %d stat %#x = %d, want %d", s.n.ID, s.off, got, s.want)
		}
	}
	mbps := float64(totalBytes) / (float64(elapsed) / float64(sim.Second)) / 1e6
	t.Logf("%d writes (%d notifying), %d bytes, %d packets in %v simulated: %.1f MB/s", writes, wantCtr, totalBytes, wantPkts, elapsed, mbps)
}
