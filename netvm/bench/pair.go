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
	p, err := newPair(cl, n, handlers)
	if err != nil {
		cl.Shutdown()
		return nil, err
	}
	for _, ep := range p.ep {
		ep.NoInline = c.NoInline
	}
	return p, nil
}

// pair is a process on each of two nodes, each exporting a buffer of n
// bytes and counter 0 to the other.
type pair struct {
	ep    [2]*lib.EP
	proc  [2]*freebsd.Proc
	buf   [2]uint32 // exported: the other side writes here
	src   [2]uint32 // what this side sends from
	imp   [2]int    // ep[i]'s import of the other's buffer
	ctr   [2]int    // ... and of its counter
	n     uint32
	hwq   [2]freebsd.WaitQueue
	c     *cluster.Cluster
	ready bool
}

func newPair(c *cluster.Cluster, n uint32, handlers bool) (*pair, error) {
	p := &pair{c: c, n: n}
	var keys, ckeys [2]uint32
	size := max(n, freebsd.PageSize)
	for i := range 2 {
		k := c.Nodes[i].Kernel
		p.proc[i] = k.NewProc(fmt.Sprintf("bench%d", i))
		if err := runOn(c, i, func(t *freebsd.Thread) error {
			var err error
			if p.ep[i], err = lib.Open(t, c.Nodes[i].Driver, p.proc[i]); err != nil {
				return err
			}
			p.buf[i], _ = p.proc[i].Mmap(t, size, freebsd.ProtRW)
			p.proc[i].Write(t, p.buf[i], make([]byte, size)) // resident
			p.src[i], _ = p.proc[i].Mmap(t, size, freebsd.ProtRW)
			p.proc[i].Write(t, p.src[i], make([]byte, size))
			if keys[i], err = p.ep[i].Export(t, p.buf[i], size, true); err != nil {
				return err
			}
			ckeys[i], err = p.ep[i].ExportCounter(t, 0)
			if handlers && err == nil {
				kk, hq := k, &p.hwq[i]
				err = p.ep[i].SetHandler(t, 0, func(*freebsd.Thread, int, uint64) { kk.Wakeup(hq, 0) })
			}
			return err
		}); err != nil {
			return nil, err
		}
	}
	for i := range 2 {
		o := 1 - i
		if err := runOn(c, i, func(t *freebsd.Thread) error {
			var err error
			if p.imp[i], err = p.ep[i].Import(t, o, p.ep[o].Index, keys[o], size, abi.ExpKindRegion); err != nil {
				return err
			}
			p.ctr[i], err = p.ep[i].Import(t, o, p.ep[o].Index, ckeys[o], 0, abi.ExpKindCounter)
			return err
		}); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// runOn runs fn as a thread of node i to its end.
func runOn(c *cluster.Cluster, i int, fn func(t *freebsd.Thread) error) error {
	var err error
	done := false
	c.Nodes[i].Kernel.Go("bench", func(t *freebsd.Thread) { err = fn(t); done = true })
	for !done {
		if e := c.Run(c.Now() + 100*sim.Microsecond); e != nil {
			return e
		}
		if c.Now() > 100*sim.Second {
			return fmt.Errorf("bench: a thread did not finish")
		}
	}
	return err
}

// await waits, on node i, for round r's message from the other node:
// detected by polling its last data byte (data), or the counter by a busy
// wait, a block wait or a handler.
func (p *pair) await(t *freebsd.Thread, i int, r int, mode string) {
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
	case "block":
		ep.WaitBlock(t, 0, uint64(r+1))
	case "handler":
		for ep.Counter(0) < uint64(r+1) {
			t.Wait(&p.hwq[i])
		}
	default:
		ep.WaitBusy(t, 0, uint64(r+1))
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
	cl.Nodes[1].Kernel.Go("pong", func(t *freebsd.Thread) {
		for r := range rounds {
			p.await(t, 1, r, detect)
			p.proc[1].Write(t, p.src[1]+size-1, []byte{byte(r + 1)})
			p.ep[1].Write(t, p.src[1], p.imp[1], 0, n, ctr[1])
		}
	})
	err = runOn(cl, 0, func(t *freebsd.Thread) error {
		t.Sleep(50 * sim.Microsecond)
		t0 := t.Now()
		for r := range rounds {
			p.proc[0].Write(t, p.src[0]+size-1, []byte{byte(r + 1)})
			p.ep[0].Write(t, p.src[0], p.imp[0], 0, n, ctr[0])
			p.await(t, 0, r, detect)
		}
		el = t.Now() - t0
		return nil
	})
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
	cl.Nodes[0].Kernel.Go("stream", func(t *freebsd.Thread) {
		t0 = t.Now()
		off := uint32(0)
		for range count {
			p.ep[0].Write(t, p.src[0], p.imp[0], off, n, p.ctr[0])
			if off += n; off+n > region {
				off = 0
			}
		}
	})
	var el sim.Time
	err = runOn(cl, 1, func(t *freebsd.Thread) error {
		p.ep[1].WaitBusy(t, 0, uint64(count))
		el = t.Now() - t0
		return nil
	})
	if err != nil {
		return 0, err
	}
	return float64(n) * float64(count) / (float64(el) / float64(sim.Second)) / 1e6, nil
}

// faultsNone is a clean fabric.
var faultsNone fabric.Faults

// pci is the boards' PCI model: the default, with the burst overridden.
// hostTiming is the hosts' cost table (cluster.Config.Timing: zero for
// the default).
func (c Config) hostTiming() freebsd.Timing {
	if c.HostTiming == nil {
		return freebsd.Timing{}
	}
	return *c.HostTiming
}

func (c Config) pci() board.PCI {
	if c.PCIBurst == 0 {
		return board.PCI{}
	}
	p := board.DefaultPCI()
	p.BurstBytes = c.PCIBurst
	return p
}
