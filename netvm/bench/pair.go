package bench

import (
	"fmt"

	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/cluster"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// openPair builds two nodes on the configuration's clock, link and PCI,
// in translation mode mode, with fabric faults, and a pair of processes
// on them exchanging n-byte buffers (newPair). The caller shuts p.c down.
func openPair(c Config, mode uint32, faults fabric.Faults, n uint32, handlers bool) (*pair, error) {
	cl, err := cluster.New(cluster.Config{Nodes: 2, Frames: 2048, Board: c.Board, BackToBack: c.BackToBack, ClockHz: c.ClockHz, LinkRate: c.LinkRate,
		Mode: mode, Faults: faults, Seed: 1, PCI: c.pci(), Timing: c.hostTiming()})
	if err != nil {
		return nil, err
	}
	if err := c.Profiles.attach(cl); err != nil {
		cl.Shutdown()
		return nil, err
	}
	p, err := newPair(cl, n, cluster.ProcessOptions{Resident: true, SeparateSource: true, NoInline: c.NoInline, Handler: handlers})
	if err != nil {
		cl.Shutdown()
		return nil, err
	}
	return p, nil
}

// pair is a process on each of two nodes, each exporting a buffer of n
// bytes and counter 0 to the other (cluster.OpenProcess). Its arrays,
// indexed by node, are the two processes' fields as the experiments use
// them.
type pair struct {
	side [2]*cluster.Process
	ep   [2]*lib.EP
	proc [2]*freebsd.Proc
	buf  [2]uint32 // exported: the other side writes here
	src  [2]uint32 // what this side sends from
	imp  [2]int    // ep[i]'s import of the other's buffer
	ctr  [2]int    // ... and of its counter
	n    uint32
	c    *cluster.Cluster
}

// newPair opens the two processes with options o, one node after the
// other, then makes each import the other's buffer and counter.
func newPair(c *cluster.Cluster, n uint32, o cluster.ProcessOptions) (*pair, error) {
	p := &pair{c: c, n: n}
	if err := c.RunOnEach("bench", func(t *freebsd.Thread, m *cluster.Machine) error {
		var err error
		p.side[m.ID], err = cluster.OpenProcess(t, m, m.Kernel.NewProc(fmt.Sprintf("bench%d", m.ID)), n, o)
		return err
	}); err != nil {
		return nil, err
	}
	if err := c.RunOnEach("bench", func(t *freebsd.Thread, m *cluster.Machine) error {
		return p.side[m.ID].Import(t, p.side[1-m.ID])
	}); err != nil {
		return nil, err
	}
	for i, s := range p.side {
		p.ep[i], p.proc[i], p.buf[i], p.src[i], p.imp[i], p.ctr[i] = s.EP, s.Proc, s.Region, s.Src, s.PeerRegion, s.PeerCounter
	}
	return p, nil
}

// await waits, on node i, for round r's message from the other node:
// detected by polling its last data byte (data), or the counter by a busy
// wait, a block wait or a handler (cluster.Process.WaitCounter).
func (p *pair) await(t *freebsd.Thread, i int, r int, mode string) error {
	ep := p.ep[i]
	switch mode {
	case "data":
		last := p.buf[i] + max(p.n, 1) - 1
		m, _ := p.proc[i].Mapped(last)
		a := uint64(m.PFN)*freebsd.PageSize + uint64(last%freebsd.PageSize)
		want := byte(r + 1)
		mem := ep.Driver().Mem
		ep.Driver().Spin(t, a, a+1, func() bool {
			v, _ := mem.Uint8(a)
			return v == want
		})
		return nil
	default:
		return p.side[i].WaitCounter(t, uint64(r+1), mode)
	}
}

// pingpong returns the one-way latency (half the mean round trip) of
// n-byte WRITEs detected by detect: "data" is a WRITE with no counter
// whose last data byte the receiver polls (the thesis' plain write);
// "busy", "block" and "handler" are the same WRITE with a counter,
// detected through it.
func pingpong(c Config, mode uint32, n uint32, rounds int, detect string) (float64, error) {
	p, err := openPair(c, mode, faultsNone, n, detect == "handler")
	if err != nil {
		return 0, err
	}
	defer p.c.Shutdown()
	cl := p.c
	var el sim.Time
	size := max(n, 1)
	ctr := p.ctr
	if detect == "data" {
		if n == 0 {
			return 0, fmt.Errorf("bench: a 0-byte WRITE without a counter has nothing to poll")
		}
		ctr = [2]int{lib.NoCounter, lib.NoCounter}
	}
	// send sends round r's message from node i: the last byte of its
	// source set to r+1, then the WRITE.
	send := func(t *freebsd.Thread, i, r int) error {
		if err := p.proc[i].Write(t, p.src[i]+size-1, []byte{byte(r + 1)}); err != nil {
			return err
		}
		_, err := p.ep[i].Write(t, p.src[i], p.imp[i], 0, n, ctr[i])
		return err
	}
	var pongErr error
	cl.Nodes[1].Kernel.Go("pong", func(t *freebsd.Thread) {
		for r := range rounds {
			if pongErr = p.await(t, 1, r, detect); pongErr == nil {
				pongErr = send(t, 1, r)
			}
			if pongErr != nil {
				return
			}
		}
	})
	err = cl.RunThread(0, "bench", func(t *freebsd.Thread) error {
		t.Sleep(50 * sim.Microsecond)
		t0 := t.Now()
		for r := range rounds {
			if err := send(t, 0, r); err != nil {
				return err
			}
			if err := p.await(t, 0, r, detect); err != nil {
				return err
			}
		}
		el = t.Now() - t0
		return nil
	})
	if err == nil && pongErr != nil {
		err = fmt.Errorf("node 1: %w", pongErr)
	}
	if err != nil {
		return 0, err
	}
	return float64(el) / float64(sim.Microsecond) / float64(2*rounds), nil
}

// stream returns the payload rate of count n-byte WRITEs posted back to
// back (the ring is the flow control), each with a counter, from the
// first post to the last counter seen by a busy-waiting receiver. The
// WRITEs go one after another through a destination region of up to 2
// MiB (as a stream of 1-4 MB would), so that they do not rewrite a page
// an earlier one may still be writing.
func stream(c Config, n uint32, count int) (float64, error) {
	region := uint32(min(uint64(n)*uint64(count), 2<<20))
	region = max(region/n*n, n)
	p, err := openPair(c, abi.ModeNetVM, faultsNone, region, false)
	if err != nil {
		return 0, err
	}
	defer p.c.Shutdown()
	cl := p.c
	var t0 sim.Time
	var sendErr error
	cl.Nodes[0].Kernel.Go("stream", func(t *freebsd.Thread) {
		t0 = t.Now()
		off := uint32(0)
		for range count {
			if _, sendErr = p.ep[0].Write(t, p.src[0], p.imp[0], off, n, p.ctr[0]); sendErr != nil {
				return
			}
			if off += n; off+n > region {
				off = 0
			}
		}
	})
	var el sim.Time
	err = cl.RunThread(1, "bench", func(t *freebsd.Thread) error {
		p.ep[1].WaitBusy(t, 0, uint64(count))
		el = t.Now() - t0
		return nil
	})
	if sendErr != nil {
		err = fmt.Errorf("node 0: %w", sendErr)
	}
	if err != nil {
		return 0, err
	}
	return float64(n) * float64(count) / (float64(el) / float64(sim.Second)) / 1e6, nil
}

// faultsNone is a clean fabric.
var faultsNone fabric.Faults

// hostTiming is the hosts' cost table (cluster.Config.Timing: zero for
// the default).
func (c Config) hostTiming() freebsd.Timing {
	if c.HostTiming == nil {
		return freebsd.Timing{}
	}
	return *c.HostTiming
}

// pci is the boards' PCI model: the default, with the burst overridden.
func (c Config) pci() board.PCI {
	if c.PCIBurst == 0 {
		return board.PCI{}
	}
	p := board.DefaultPCI()
	p.BurstBytes = c.PCIBurst
	return p
}
