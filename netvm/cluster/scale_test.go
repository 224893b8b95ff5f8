package cluster

import (
	"runtime"
	"testing"
	"time"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// 64 nodes on one switch in one process: every node's driver attaches,
// each node writes to its neighbour once, and the heap stays under 4 GiB.
func TestScale64(t *testing.T) {
	if testing.Short() {
		t.Skip("64 boards take a few seconds")
	}
	const nodes = 64
	c, err := New(Config{Nodes: nodes, Frames: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	eps := make([]*lib.EP, nodes)
	keys := make([]uint32, nodes)
	ctrs := make([]uint32, nodes)
	vas := make([]uint32, nodes)
	for i := range nodes {
		p := c.Nodes[i].Kernel.NewProc("app")
		runThread(t, c, i, sim.Second, func(th *freebsd.Thread) {
			eps[i], _ = lib.Open(th, c.Nodes[i].Driver, p)
			vas[i], _ = p.Mmap(th, freebsd.PageSize, freebsd.ProtRW)
			p.Write(th, vas[i], []byte{byte(i)})
			keys[i], _ = eps[i].Export(th, vas[i], freebsd.PageSize, true)
			ctrs[i], _ = eps[i].ExportCounter(th, 0)
		})
	}
	done := 0
	for i := range nodes {
		j := (i + 1) % nodes
		c.Nodes[i].Kernel.Go("writer", func(th *freebsd.Thread) {
			imp, _ := eps[i].Import(th, j, eps[j].Index, keys[j], freebsd.PageSize, abi.ExpKindRegion)
			ic, _ := eps[i].Import(th, j, eps[j].Index, ctrs[j], 0, abi.ExpKindCounter)
			eps[i].Write(th, vas[i], imp, 100, 1, ic)
			done++
		})
	}
	for k := 0; done < nodes || k < 100; k++ {
		if err := c.Run(c.Now() + 100*sim.Microsecond); err != nil {
			t.Fatal(err)
		}
	}
	for i := range nodes {
		if eps[i].Counter(0) != 1 {
			t.Fatalf("node %d: counter %d", i, eps[i].Counter(0))
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("64 nodes: heap %.0f MiB, sys %.0f MiB", float64(ms.HeapAlloc)/(1<<20), float64(ms.Sys)/(1<<20))
	if ms.HeapAlloc > 4<<30 {
		t.Fatalf("heap %d bytes", ms.HeapAlloc)
	}
}

// Two nodes streaming 64 KiB WRITEs (16 outstanding, a counter on each):
// simulated seconds per host second, at the default 133 MHz and at a
// PCI64C board's 200 MHz, and at 200 MHz with the boards on two
// goroutines (Config.Jobs).
func BenchmarkStream(b *testing.B) {
	b.Run("133MHz", func(b *testing.B) { benchStream(b, 0, 1) })
	b.Run("200MHz", func(b *testing.B) { benchStream(b, 200_000_000, 1) })
	b.Run("200MHz/jobs=2", func(b *testing.B) { benchStream(b, 200_000_000, 2) })
}

func benchStream(b *testing.B, clockHz uint64, jobs int) {
	c, err := New(Config{Nodes: 2, Frames: 1024, ClockHz: clockHz, Jobs: jobs})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Shutdown()
	a, r := c.Nodes[0].Kernel.NewProc("a"), c.Nodes[1].Kernel.NewProc("r")
	var epA, epB *lib.EP
	var key, ck, dst, src uint32
	var imp, ic int
	t := &testing.T{}
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB, _ = lib.Open(th, c.Nodes[1].Driver, r)
		dst, _ = r.Mmap(th, 64<<10, freebsd.ProtRW)
		r.Write(th, dst, make([]byte, 64<<10))
		key, _ = epB.Export(th, dst, 64<<10, true)
		ck, _ = epB.ExportCounter(th, 0)
	})
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		epA, _ = lib.Open(th, c.Nodes[0].Driver, a)
		src, _ = a.Mmap(th, 64<<10, freebsd.ProtRW)
		a.Write(th, src, make([]byte, 64<<10))
		imp, _ = epA.Import(th, 1, epB.Index, key, 64<<10, abi.ExpKindRegion)
		ic, _ = epA.Import(th, 1, epB.Index, ck, 0, abi.ExpKindCounter)
	})
	c.Nodes[0].Kernel.Go("stream", func(th *freebsd.Thread) {
		for { // the ring's 64 slots are the flow control
			epA.Write(th, src, imp, 0, 64<<10, ic)
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	t0 := c.Now()
	for range b.N {
		if err := c.Run(c.Now() + sim.Millisecond); err != nil {
			b.Fatal(err)
		}
	}
	simS := float64(c.Now()-t0) / float64(sim.Second)
	b.ReportMetric(simS/time.Since(start).Seconds(), "sim-s/s")
	b.ReportMetric(simS/(cpuTime()-cpu0), "sim-s/cpu-s")
	b.ReportMetric(float64(epB.Counter(0))*65536/simS/1e6, "MB/s")
}
