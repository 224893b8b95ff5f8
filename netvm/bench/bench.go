// Package bench is `netvm bench`: the thesis' experiments on the emulated
// cluster, each figure beside the value the NetVM thesis reports
// (systems.md §1.4), from one configuration. This first slice has E1
// (write latency), E2 (throughput), E3 (notification cost by detection
// mechanism) and E4 (NetVM against static pinning); the baselines of E5,
// E6 and E9 and the synchronisation of E8 come next (docs/reproduction.md).
package bench

import (
	"fmt"
	"io"
	"math"

	"lanaiemu/board"
	"lanaiemu/freebsd"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/cluster"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// Config is the one configuration every experiment runs on.
type Config struct {
	ClockHz  uint64 `json:"clock_hz"`         // the LANai's clock (133 MHz if 0)
	LinkRate uint64 `json:"link_bytes_per_s"` // bytes per second (160 MB/s if 0)
	Quick    bool   `json:"quick"`            // fewer repetitions
}

// Figure is one measured figure and the thesis' value.
type Figure struct {
	ID       string  `json:"id"`
	Paper    float64 `json:"paper"`
	Bound    string  `json:"bound,omitempty"` // "<": the thesis gives an upper bound
	Measured float64 `json:"measured"`
	Unit     string  `json:"unit"`
}

// Ratio is measured / paper.
func (f Figure) Ratio() float64 { return f.Measured / f.Paper }

// Verdict says whether the figure matches: within 10 % of the thesis'
// value, or on the right side of its bound.
func (f Figure) Verdict() string {
	if f.Paper == 0 {
		return "-"
	}
	if f.Bound == "<" {
		if f.Measured < f.Paper {
			return "below the bound"
		}
		return "MISSES the bound"
	}
	if math.Abs(f.Ratio()-1) <= 0.10 {
		return "within 10%"
	}
	return "MISSES by " + fmt.Sprintf("%+.0f%%", (f.Ratio()-1)*100)
}

// Run runs the experiments and returns the figures, in the order of the
// thesis' list.
func Run(c Config, progress io.Writer) ([]Figure, error) {
	if c.LinkRate == 0 {
		c.LinkRate = board.DefaultLinkRate
	}
	rounds, streamN := 200, 64
	if c.Quick {
		rounds, streamN = 40, 24
	}
	say := func(s string) {
		if progress != nil {
			fmt.Fprintf(progress, "%s\n", s)
		}
	}
	var figs []Figure
	say("E1: 4-byte ping-pong, busy wait")
	lat, err := pingpong(c, abi.ModeNetVM, 4, rounds, "busy")
	if err != nil {
		return nil, err
	}
	figs = append(figs, Figure{ID: "E1.min_latency_us", Paper: 5.56, Measured: lat, Unit: "us"})
	say("E2: streaming 64 KiB WRITEs")
	mbps, err := stream(c, 64<<10, streamN)
	if err != nil {
		return nil, err
	}
	figs = append(figs,
		Figure{ID: "E2.max_throughput_MBps", Paper: 155.46, Measured: mbps, Unit: "MB/s"},
		Figure{ID: "E2.link_pct", Paper: 97.2, Measured: 100 * mbps * 1e6 / float64(c.LinkRate), Unit: "%"})
	say("E3: notification cost by detection mechanism")
	base, err := pingpong(c, abi.ModeNetVM, 4, rounds, "data")
	if err != nil {
		return nil, err
	}
	for _, m := range []struct {
		mode  string
		paper float64
	}{{"busy", 2.96}, {"block", 0}, {"handler", 17.49}} {
		l := lat
		if m.mode != "busy" {
			if l, err = pingpong(c, abi.ModeNetVM, 4, rounds/2, m.mode); err != nil {
				return nil, err
			}
		}
		figs = append(figs, Figure{ID: "E3.notify_" + m.mode + "_us", Paper: m.paper, Measured: l - base, Unit: "us"})
	}
	say("E4: NetVM against static pinning")
	worst := 0.0
	for _, size := range []uint32{4, 1024, 4096, 16384} {
		n, err := pingpong(c, abi.ModeNetVM, size, rounds/2, "busy")
		if err != nil {
			return nil, err
		}
		s, err := pingpong(c, abi.ModeStatic, size, rounds/2, "busy")
		if err != nil {
			return nil, err
		}
		worst = max(worst, 100*(n-s)/s)
	}
	figs = append(figs, Figure{ID: "E4.max_overhead_vs_static_pct", Paper: 5.0, Bound: "<", Measured: worst, Unit: "%"})
	return figs, nil
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
// n-byte WRITEs with a counter, detected by mode.
func pingpong(c Config, mode uint32, n uint32, rounds int, detect string) (float64, error) {
	cl, err := cluster.New(cluster.Config{Nodes: 2, Frames: 1024, ClockHz: c.ClockHz, LinkRate: c.LinkRate, Mode: mode})
	if err != nil {
		return 0, err
	}
	defer cl.Shutdown()
	p, err := newPair(cl, n, detect == "handler")
	if err != nil {
		return 0, err
	}
	var el sim.Time
	size := max(n, 1)
	cl.Nodes[1].Kernel.Go("pong", func(t *freebsd.Thread) {
		for r := range rounds {
			p.await(t, 1, r, detect)
			p.proc[1].Write(t, p.src[1]+size-1, []byte{byte(r + 1)})
			p.ep[1].Write(t, p.src[1], p.imp[1], 0, n, p.ctr[1])
		}
	})
	err = runOn(cl, 0, func(t *freebsd.Thread) error {
		t.Sleep(50 * sim.Microsecond)
		t0 := t.Now()
		for r := range rounds {
			p.proc[0].Write(t, p.src[0]+size-1, []byte{byte(r + 1)})
			p.ep[0].Write(t, p.src[0], p.imp[0], 0, n, p.ctr[0])
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
// first post to the last counter seen by a busy-waiting receiver.
func stream(c Config, n uint32, count int) (float64, error) {
	cl, err := cluster.New(cluster.Config{Nodes: 2, Frames: 1024, ClockHz: c.ClockHz, LinkRate: c.LinkRate})
	if err != nil {
		return 0, err
	}
	defer cl.Shutdown()
	p, err := newPair(cl, n, false)
	if err != nil {
		return 0, err
	}
	var t0 sim.Time
	cl.Nodes[0].Kernel.Go("stream", func(t *freebsd.Thread) {
		t0 = t.Now()
		for range count {
			p.ep[0].Write(t, p.src[0], p.imp[0], 0, n, p.ctr[0])
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
