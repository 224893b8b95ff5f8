package harness

import (
	"bytes"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/sim"
)

// Throughput of one 256 KiB WRITE (64 source and 64 destination pages,
// each source page non-contiguous): post -> last byte in the peer host's
// memory, in simulated time. Reported, not asserted (beyond the data).
func TestWrite256KThroughput(t *testing.T) {
	const (
		pages = 64
		size  = pages * abi.PageSize
		key   = 1<<8 | 7
		imp   = 5
	)
	w := NewBackToBack(t, Build(t))
	n0, n1 := w.Nodes[0], w.Nodes[1]
	w.OpenEP(n0, 0, asid)
	w.OpenEP(n1, 0, asid)
	var src, dst [pages]uint64
	for i := range pages {
		src[i] = w.Map(n0, asid, srcVA+uint32(i)*abi.PageSize, abi.SPTV|abi.SPTW)
		n0.AllocPage()
		dst[i] = w.Map(n1, asid, dstVA+uint32(i)*abi.PageSize, abi.SPTV|abi.SPTW)
		n1.AllocPage()
	}
	w.MustKernel(n1, abi.KOpExport, Field{abi.KEp, 4, 0}, Field{abi.KExpKey, 4, key},
		Field{abi.KExpBase, 4, dstVA}, Field{abi.KExpLen, 4, size}, Field{abi.KExpKind, 4, abi.ExpKindRegion | abi.ExpPermW})
	w.MustKernel(n0, abi.KOpImport, Field{abi.KEp, 4, 0}, Field{abi.KImpIndex, 4, imp}, Field{abi.KImpNode, 4, 1},
		Field{abi.KImpEp, 4, 0}, Field{abi.KImpKey, 4, key}, Field{abi.KImpLen, 4, size}, Field{abi.KImpKind, 4, abi.ExpKindRegion})
	msg := pattern(size, 3)
	for i := range pages {
		copy(n0.HostBytes(src[i], abi.PageSize), msg[i*abi.PageSize:(i+1)*abi.PageSize])
	}
	got := func() bool {
		for i := pages - 1; i >= 0; i-- {
			if !bytes.Equal(n1.HostBytes(dst[i], abi.PageSize), msg[i*abi.PageSize:(i+1)*abi.PageSize]) {
				return false
			}
		}
		return true
	}
	t0 := w.Now()
	n0.Write(0, srcVA, size, 0, imp, abi.NoCounter)
	el := w.RunUntil("data", 100*sim.Nanosecond, 100*sim.Millisecond, got) - t0
	t.Logf("one %d B WRITE: post -> data in peer host %v: %.1f MB/s", size, el, float64(size)/(float64(el)/float64(sim.Second))/1e6)
}
