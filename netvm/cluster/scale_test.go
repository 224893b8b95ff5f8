package cluster

import (
	"runtime"
	"testing"
	"time"

	"lanaiemu/internal/cputime"
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
	c, epB, err := startStream(clockHz, jobs)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Shutdown()
	c.World.SetParallelCycles(*benchParallel)
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cputime.Seconds()
	t0 := c.Now()
	for range b.N {
		if err := c.Run(c.Now() + sim.Millisecond); err != nil {
			b.Fatal(err)
		}
	}
	simS := float64(c.Now()-t0) / float64(sim.Second)
	b.ReportMetric(simS/time.Since(start).Seconds(), "sim-s/s")
	b.ReportMetric(simS/(cputime.Seconds()-cpu0), "sim-s/cpu-s")
	b.ReportMetric(float64(epB.Counter(0))*65536/simS/1e6, "MB/s")
}

// startStream makes two nodes and starts node 0 streaming 64 KiB WRITEs
// with a counter into a region node 1 exported, for ever; epB is node 1's
// endpoint (its counter 0 counts the WRITEs that arrived).
func startStream(clockHz uint64, jobs int) (c *Cluster, epB *lib.EP, err error) {
	c, err = New(Config{Nodes: 2, Frames: 1024, ClockHz: clockHz, Jobs: jobs})
	if err != nil {
		return nil, nil, err
	}
	return c, streamOn(&testing.T{}, c), nil
}

// streamOn sets up startStream's stream on c's first two nodes and returns
// node 1's endpoint.
func streamOn(t *testing.T, c *Cluster) (epB *lib.EP) {
	a, r := c.Nodes[0].Kernel.NewProc("a"), c.Nodes[1].Kernel.NewProc("r")
	var epA *lib.EP
	var key, ck, dst, src uint32
	var imp, ic int
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
	return epB
}

// TestStreamAllocs holds the hot path's allocations down: one simulated
// millisecond of a running 2-node 64 KiB WRITE stream at 200 MHz (about 48
// packets, 1,024 DMA bursts of 256 bytes, the host's wake-ups and the
// firmware's events) may allocate at most 100 objects. Before the pooled
// events of docs/performance.md ("Allocations") it allocated about 4,000:
// a closure per DMA burst, per fabric step and per packet; then 116, half
// of them the fabric's copies of the packets, which it now reuses once the
// receiving board has stored them (fabric.Recycle). It measures 67: the
// fabric's record of each packet (one per packet), fabric timeouts and
// host operations. 100 leaves room for noise and fails if the copies come
// back.
func TestStreamAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a few milliseconds of streaming")
	}
	c, epB, err := startStream(200_000_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	if err := c.Run(c.Now() + 2*sim.Millisecond); err != nil { // into the steady state
		t.Fatal(err)
	}
	n0 := epB.Counter(0)
	var runErr error
	allocs := testing.AllocsPerRun(5, func() {
		if err := c.Run(c.Now() + sim.Millisecond); err != nil {
			runErr = err
		}
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	if epB.Counter(0) == n0 {
		t.Fatal("no WRITE arrived while measuring: the stream is not running")
	}
	const limit = 100
	if allocs > limit {
		t.Errorf("a simulated millisecond of streaming allocates %.0f objects, more than %d", allocs, limit)
	}
	t.Logf("%.0f allocations per simulated millisecond of streaming", allocs)
}
