package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/cluster"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// E9's workload: a key-value-like server per region, on one host of
// overcommitFrames pages whose kernel wires at most a third of them
// (FreeBSD 4.6's vm_page_max_wired). Each server exports a region of
// overcommitRegion pages and serves one client on the other node in a
// closed loop: the client WRITEs a 256-byte request to a random page of
// the region and the page's offset, with a counter, to a mailbox at its
// start; the server reads both, computes for
// overcommitCPU, waits overcommitIO for its storage (no CPU), and answers
// with a notify-only WRITE. These are the workload's parameters, not the
// hardware's: they set how far servers scale before the host's one CPU or
// the LANai saturates. The experiment runs a second workload with
// overcommitShortIO, where the sending LANai saturates with five servers
// and overcommit gains nothing, so that the figure's dependence on the
// workload is in the table (docs/reproduction.md).
const (
	overcommitFrames  = 2048 // 8 MiB: 682 pages may be wired
	overcommitRegion  = 128  // 512 KiB per server: five regions can be wired
	overcommitRequest = 256
	overcommitCPU     = 5 * sim.Microsecond
	overcommitIO      = 200 * sim.Microsecond
	overcommitShortIO = 40 * sim.Microsecond // the second, NIC-bound workload
)

// overcommit is E9: server processes whose exported regions together
// exceed what the host can wire. With static pinning a server's export
// wires its region, and once the wiring limit is reached further servers
// cannot export (mlock's EAGAIN): fewer servers run. NetVM and NIC page
// faults pin nothing: every server runs. Each server writes its region
// once when it starts (it loads its data), so the measured phase finds
// the pages resident in every design. The figure is the best throughput ratio of NetVM over
// pinning across the numbers of servers (up to 12: regions of 2.25 times
// what may be wired, 75 % of memory).
func (r *runner) overcommit() error {
	d := 20 * sim.Millisecond
	if r.c.Quick {
		d = 8 * sim.Millisecond
	}
	var series []Series
	speedup := map[sim.Time]float64{}
	for _, io := range []sim.Time{overcommitIO, overcommitShortIO} {
		var pinned []float64
		for _, m := range overcommitModes {
			if io == overcommitShortIO && m.mode == abi.ModeNPF {
				continue
			}
			s := Series{Name: m.name}
			if io == overcommitShortIO {
				s.Name += fmt.Sprintf(", %d us I/O", io/sim.Microsecond)
			}
			for i, n := range r.serverCounts() {
				tput, err := overcommitRun(r.c, m.mode, n, d, io)
				if err != nil {
					return fmt.Errorf("%s, %d servers: %w", m.name, n, err)
				}
				r.bar.step(fmt.Sprintf("%s, %d servers", m.name, n))
				s.X, s.Y = append(s.X, float64(n)), append(s.Y, tput/1000)
				if m.mode == abi.ModeDynamic {
					pinned = append(pinned, tput)
				} else if m.mode == abi.ModeNetVM {
					speedup[io] = max(speedup[io], tput/pinned[i])
				}
			}
			series = append(series, s)
		}
	}
	r.figure(Figure{ID: "E9.overcommit_speedup", Paper: 1.9, Measured: speedup[overcommitIO], Unit: "x"})
	r.figure(Figure{ID: "E9.overcommit_speedup_short_io", NoPaper: true, Measured: speedup[overcommitShortIO], Unit: "x"})
	r.figure(Figure{ID: "E9.pinned_servers_max", NoPaper: true, Measured: float64(overcommitFrames / 3 / overcommitRegion), Unit: "servers"})
	r.curve(Curve{ID: "e9-overcommit", Title: "E9: memory overcommit", XLabel: "server processes (512 KiB region each)",
		YLabel: "requests per ms", Series: series,
		Marks: []Mark{{Vertical: true, At: float64(overcommitFrames/3) / overcommitRegion, Label: "wiring limit"}}})
	return nil
}

// overcommitModes are E9's designs: pinning first (the others' ratios are
// taken against it).
var overcommitModes = []struct {
	name string
	mode uint32
}{{"static pinning (export wires)", abi.ModeDynamic}, {"NetVM", abi.ModeNetVM}, {"NIC page faults (drop and retry)", abi.ModeNPF}}

// serverCounts are E9's numbers of servers.
func (r *runner) serverCounts() []int {
	if r.c.Quick {
		return []int{2, 5, 8, 12}
	}
	return []int{1, 2, 3, 4, 5, 6, 8, 10, 12}
}

// overcommitRun starts n servers on node 1 (as many as can export), each
// waiting io per request, and a client for each on node 0, runs for d after a warm-up of a tenth of it,
// and returns the requests completed per second.
func overcommitRun(c Config, mode uint32, n int, d, io sim.Time) (float64, error) {
	cl, err := cluster.New(cluster.Config{Nodes: 2, Frames: overcommitFrames, Board: c.Board, BackToBack: c.BackToBack, ClockHz: c.ClockHz, LinkRate: c.LinkRate, Mode: mode, Seed: 1, PCI: c.pci(), Timing: c.hostTiming()})
	if err != nil {
		return 0, err
	}
	defer cl.Shutdown()
	if err := c.Profiles.attach(cl); err != nil {
		return 0, err
	}
	type side struct {
		ep       *lib.EP
		proc     *freebsd.Proc
		region   uint32
		key, ctr uint32
		imp, cim int
	}
	servers := make([]*side, 0, n)
	for i := range n {
		s := &side{proc: cl.Nodes[1].Kernel.NewProc(fmt.Sprintf("server%d", i))}
		fits := true
		if err := runOn(cl, 1, func(t *freebsd.Thread) error {
			var err error
			if s.ep, err = lib.Open(t, cl.Nodes[1].Driver, s.proc); err != nil {
				return err
			}
			if s.region, err = s.proc.Mmap(t, overcommitRegion*freebsd.PageSize, freebsd.ProtRW); err != nil {
				return err
			}
			if err = s.proc.Write(t, s.region, make([]byte, overcommitRegion*freebsd.PageSize)); err != nil {
				return err // a server loads its data first
			}
			if s.key, err = s.ep.Export(t, s.region, overcommitRegion*freebsd.PageSize, true); errors.Is(err, freebsd.ErrNoMem) {
				fits = false
				return nil
			} else if err != nil {
				return err
			}
			s.ctr, err = s.ep.ExportCounter(t, 0)
			return err
		}); err != nil {
			return 0, err
		}
		if !fits {
			break
		}
		servers = append(servers, s)
	}
	clients := make([]*side, len(servers)) // a server that could not start has no client
	for i := range clients {
		cs := &side{proc: cl.Nodes[0].Kernel.NewProc(fmt.Sprintf("client%d", i))}
		clients[i] = cs
		if err := runOn(cl, 0, func(t *freebsd.Thread) error {
			var err error
			if cs.ep, err = lib.Open(t, cl.Nodes[0].Driver, cs.proc); err != nil {
				return err
			}
			if cs.region, err = cs.proc.Mmap(t, freebsd.PageSize, freebsd.ProtRW); err != nil {
				return err
			}
			if err = cs.proc.Write(t, cs.region, make([]byte, freebsd.PageSize)); err != nil {
				return err
			}
			if cs.key, err = cs.ep.Export(t, cs.region, freebsd.PageSize, true); err != nil {
				return err
			}
			if cs.ctr, err = cs.ep.ExportCounter(t, 0); err != nil {
				return err
			}
			s := servers[i]
			if cs.imp, err = cs.ep.Import(t, 1, s.ep.Index, s.key, overcommitRegion*freebsd.PageSize, abi.ExpKindRegion); err != nil {
				return err
			}
			cs.cim, err = cs.ep.Import(t, 1, s.ep.Index, s.ctr, 0, abi.ExpKindCounter)
			return err
		}); err != nil {
			return 0, err
		}
	}
	for i, s := range servers {
		cs := clients[i]
		if err := runOn(cl, 1, func(t *freebsd.Thread) error {
			var err error
			if s.imp, err = s.ep.Import(t, 0, cs.ep.Index, cs.key, freebsd.PageSize, abi.ExpKindRegion); err != nil {
				return err
			}
			s.cim, err = s.ep.Import(t, 0, cs.ep.Index, cs.ctr, 0, abi.ExpKindCounter)
			return err
		}); err != nil {
			return 0, err
		}
	}
	start := cl.Now() + d/10
	end := start + d
	done := make([]int, len(servers))
	for i, s := range servers {
		cs := clients[i]
		cl.Nodes[1].Kernel.Go(s.proc.Name, func(t *freebsd.Thread) {
			buf := make([]byte, overcommitRequest)
			for r := 1; ; r++ {
				s.ep.WaitBusy(t, 0, uint64(r))
				var box [4]byte // the mailbox names the request's page
				s.proc.Read(t, s.region, box[:])
				off := binary.BigEndian.Uint32(box[:]) % (overcommitRegion * freebsd.PageSize)
				s.proc.Read(t, s.region+off, buf)
				t.Compute(overcommitCPU)
				t.Sleep(io)
				s.ep.Post(t, s.imp, s.cim)
			}
		})
		cl.Nodes[0].Kernel.Go(cs.proc.Name, func(t *freebsd.Thread) {
			rng := rand.New(rand.NewPCG(uint64(i)+1, 9))
			src := make([]byte, overcommitRequest+4)
			for r := 1; ; r++ {
				off := uint32(1+rng.IntN(overcommitRegion-1)) * freebsd.PageSize
				binary.BigEndian.PutUint32(src[overcommitRequest:], off)
				cs.proc.Write(t, cs.region, src)
				// The request into a random page, then its page number into
				// the mailbox (page 0) with the counter, which covers both.
				cs.ep.Write(t, cs.region, cs.imp, off, overcommitRequest, lib.NoCounter)
				cs.ep.Write(t, cs.region+overcommitRequest, cs.imp, 0, 4, cs.cim)
				cs.ep.WaitBusy(t, 0, uint64(r))
				if now := t.Now(); now > start && now <= end {
					done[i]++
				}
			}
		})
	}
	for cl.Now() < end {
		if err := cl.Run(min(end, cl.Now()+sim.Millisecond)); err != nil {
			return 0, err
		}
	}
	total := 0
	for _, x := range done {
		total += x
	}
	return float64(total) / (float64(d) / float64(sim.Second)), nil
}
