package cluster

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"lanaiemu/internal/cputime"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// ringStream starts on every node i a thread that streams 16 KiB WRITEs
// with a counter to node i+1 without end (the ring's slots are the flow
// control). It returns the receivers' endpoints, whose counter 0 counts
// the WRITEs that arrived.
func ringStream(tb testing.TB, c *Cluster) []*lib.EP {
	const size = 16 << 10
	n := len(c.Nodes)
	eps := make([]*lib.EP, n)
	procs := make([]*freebsd.Proc, n)
	bufs, keys, ctrs := make([]uint32, n), make([]uint32, n), make([]uint32, n)
	done := 0
	for i := range n {
		procs[i] = c.Nodes[i].Kernel.NewProc("ring")
		c.Nodes[i].Kernel.Go("setup", func(th *freebsd.Thread) {
			defer func() { done++ }()
			p := procs[i]
			eps[i], _ = lib.Open(th, c.Nodes[i].Driver, p)
			bufs[i], _ = p.Mmap(th, 2*size, freebsd.ProtRW)
			p.Write(th, bufs[i], make([]byte, 2*size))
			keys[i], _ = eps[i].Export(th, bufs[i]+size, size, true)
			ctrs[i], _ = eps[i].ExportCounter(th, 0)
		})
	}
	runUntil(tb, c, &done, n)
	done = 0
	for i := range n {
		j := (i + 1) % n
		c.Nodes[i].Kernel.Go("stream", func(th *freebsd.Thread) {
			imp, err1 := eps[i].Import(th, j, eps[j].Index, keys[j], size, abi.ExpKindRegion)
			ic, err2 := eps[i].Import(th, j, eps[j].Index, ctrs[j], 0, abi.ExpKindCounter)
			done++
			if err1 != nil || err2 != nil {
				return
			}
			for {
				eps[i].Write(th, bufs[i], imp, 0, size, ic)
			}
		})
	}
	runUntil(tb, c, &done, n)
	return eps
}

// runUntil runs c until *done reaches n (at most one simulated second).
func runUntil(tb testing.TB, c *Cluster, done *int, n int) {
	tb.Helper()
	end := c.Now() + sim.Second
	for *done < n {
		if c.Now() >= end {
			tb.Fatalf("set-up not done by %v", end)
		}
		if err := c.Run(c.Now() + 10*sim.Microsecond); err != nil {
			tb.Fatal(err)
		}
	}
}

// benchJobs is BenchmarkCluster's Config.Jobs.
var benchJobs = flag.Int("cluster.jobs", 1, "goroutines that run the boards in BenchmarkCluster")

// benchParallel is the benchmarks' node.Config.ParallelCycles (0: the
// default).
var benchParallel = flag.Uint64("cluster.parallel", 0, "least work of a step shared out in BenchmarkCluster, BenchmarkClusterRatio and BenchmarkStream (node.Config.ParallelCycles; 0: default)")

// BenchmarkCluster runs clusters of 2, 8 and 64 nodes for one simulated
// millisecond per iteration, idle (firmware polling, hosts asleep) and
// busy (every node streaming 16 KiB WRITEs to the next). It reports
// node-seconds simulated per host second (node-s/s: the efficiency that
// should not fall with the node count) and per second of the process's
// CPU time (node-s/cpu-s), simulated seconds per host second
// (sim-s/s) and, busy, the WRITEs delivered per simulated millisecond.
// -cluster.jobs N runs the boards on N goroutines, -cluster.parallel C
// shares out the steps with C cycles of work or more.
func BenchmarkCluster(b *testing.B) {
	for _, nodes := range []int{2, 8, 64} {
		for _, busy := range []bool{false, true} {
			name := fmt.Sprintf("nodes=%d/idle", nodes)
			if busy {
				name = fmt.Sprintf("nodes=%d/busy", nodes)
			}
			b.Run(name, func(b *testing.B) {
				c, err := New(Config{Nodes: nodes, Frames: 256, Jobs: *benchJobs})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Shutdown()
				c.World.SetParallelCycles(*benchParallel)
				var eps []*lib.EP
				if busy {
					eps = ringStream(b, c)
				}
				if err := c.Run(c.Now() + 2*sim.Millisecond); err != nil { // settle
					b.Fatal(err)
				}
				var before uint64
				for _, ep := range eps {
					before += ep.Counter(0)
				}
				b.ReportAllocs()
				b.ResetTimer()
				start, cpu0, t0 := time.Now(), cputime.Seconds(), c.Now()
				for range b.N {
					if err := c.Run(c.Now() + sim.Millisecond); err != nil {
						b.Fatal(err)
					}
				}
				wall, cpu := time.Since(start).Seconds(), cputime.Seconds()-cpu0
				simS := float64(c.Now()-t0) / float64(sim.Second)
				b.ReportMetric(simS/wall, "sim-s/s")
				b.ReportMetric(float64(nodes)*simS/wall, "node-s/s")
				b.ReportMetric(float64(nodes)*simS/cpu, "node-s/cpu-s")
				if busy {
					var after uint64
					for _, ep := range eps {
						after += ep.Counter(0)
					}
					b.ReportMetric(float64(after-before)/(simS*1e3), "writes/sim-ms")
				}
			})
		}
	}
}

// BenchmarkClusterRatio measures the busy ring of 8 and of 64 nodes in
// one process, alternating one simulated millisecond of each per
// iteration, so that both see the same machine: node-seconds per CPU
// second of each and their ratio (eff64/8, the issue's "64-node
// efficiency against 8-node in one run").
func BenchmarkClusterRatio(b *testing.B) {
	type ring struct {
		c   *Cluster
		cpu float64
		sim sim.Time
	}
	var rings [2]*ring
	for i, nodes := range []int{8, 64} {
		c, err := New(Config{Nodes: nodes, Frames: 256, Jobs: *benchJobs})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Shutdown()
		c.World.SetParallelCycles(*benchParallel)
		ringStream(b, c)
		if err := c.Run(c.Now() + 2*sim.Millisecond); err != nil { // settle
			b.Fatal(err)
		}
		rings[i] = &ring{c: c}
	}
	b.ResetTimer()
	for range b.N {
		for _, r := range rings {
			cpu0, t0 := cputime.Seconds(), r.c.Now()
			if err := r.c.Run(r.c.Now() + sim.Millisecond); err != nil {
				b.Fatal(err)
			}
			r.cpu += cputime.Seconds() - cpu0
			r.sim += r.c.Now() - t0
		}
	}
	eff := func(r *ring) float64 {
		return float64(len(r.c.Nodes)) * float64(r.sim) / float64(sim.Second) / r.cpu
	}
	b.ReportMetric(eff(rings[0]), "8:node-s/cpu-s")
	b.ReportMetric(eff(rings[1]), "64:node-s/cpu-s")
	b.ReportMetric(eff(rings[1])/eff(rings[0]), "eff64/8")
}
