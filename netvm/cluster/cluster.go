// Package cluster wires NetVM nodes together on one deterministic
// timeline: for each node a LANai 9.2 board running the NetVM firmware,
// its host memory and PCI window, a FreeBSD 4.6 kernel (package
// freebsd) and the NetVM driver; the boards on a Myrinet fabric (two back
// to back, up to 16 on one switch, more on a Clos of 8-node leaves).
package cluster

import (
	"fmt"
	"strconv"

	"lanaiemu/board"
	"lanaiemu/fabric"
	fwnetvm "lanaiemu/firmware/netvm"
	"lanaiemu/hostbus"
	"lanaiemu/internal/timeline"
	"lanaiemu/lanai"
	"lanaiemu/lanai/profile"
	"lanaiemu/memsys"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/driver"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/node"
	"lanaiemu/objfile"
	"lanaiemu/sim"
)

// Config describes a cluster.
type Config struct {
	// Nodes is the number of nodes: up to 16 hang from one switch (two
	// nodes too, unless BackToBack), more form a Clos of 8-node leaves.
	Nodes int
	// BackToBack connects two nodes by one cable, without the switch a
	// cluster is wired through (docs/fabric.md, "The thesis' cluster").
	BackToBack bool
	// Frames is the physical memory the VM system of each host manages,
	// in 4 KiB pages (what the processes' working sets compete for).
	Frames int
	// Timing is the hosts' cost table (freebsd.DefaultTiming if zero).
	Timing freebsd.Timing
	// Credits per pair (abi.DefaultCredits if 0); Mode abi.ModeNetVM or
	// abi.ModeStatic.
	Credits int
	Mode    uint32
	// Seed seeds the fabric's fault draws; Faults are applied to every
	// packet.
	Seed   uint64
	Faults fabric.Faults
	// Fabric is the fabric's configuration (fabric.DefaultConfig if
	// zero).
	Fabric *fabric.Config
	// Trace, if set, receives every board's device events.
	Trace func(node int, e board.Event)
	// Board is every node's board, a product of hostbus.BoardFor
	// (hostbus.DefaultPart, the thesis' M2L-PCI64C-2, if empty): its
	// EEPROM identity and its rated clock.
	Board string
	// ClockHz overrides the board's clock if not 0; LinkRate is the links'
	// rate in bytes per second (board.DefaultLinkRate, 160 MB/s, if 0).
	ClockHz, LinkRate uint64
	// PCI is the boards' host DMA timing model (board.DefaultPCI if zero).
	PCI board.PCI
	// Jobs is the number of goroutines that run the boards (node.Config.Jobs;
	// 0 or 1: one). The results do not depend on it.
	Jobs int
	// Timeline, if set, records the run for Perfetto: a process per node,
	// a track per host thread, the LANai core, each DMA channel and the
	// link's two directions (see timeline.go).
	Timeline *timeline.Recorder
}

// Machine is one node of the cluster: a host (its memory, PCI window,
// FreeBSD kernel and NetVM driver) and its LANai board.
type Machine struct {
	ID     int
	Board  *board.Board
	Window *hostbus.Window
	Mem    *hostbus.HostMemory
	Kernel *freebsd.Kernel
	Driver *driver.Driver
}

// Stat is one of the firmware's statistics words (abi.Stat*), read from
// the board's SRAM.
func (n *Machine) Stat(off uint32) int {
	v, err := n.Board.CPU().Mem.Word(abi.GlobBase + abi.GlobStats + off)
	if err != nil {
		return 0
	}
	return int(v)
}

// Cluster is the nodes on their fabric and timeline.
type Cluster struct {
	Q      *sim.Queue
	Fabric *fabric.Fabric
	World  *node.World
	Nodes  []*Machine
	// firmware is the image every board runs.
	firmware []byte
}

// Profile attaches a cycle profiler to every board, labelled with its
// node (docs/profiling.md), and returns them in node order. A profiled run
// has the cycle counts of a plain one.
func (c *Cluster) Profile() ([]*profile.Profiler, error) {
	f, err := objfile.Read(c.firmware)
	if err != nil {
		return nil, err
	}
	im := &memsys.Image{Entry: f.Entry, Symbols: f.Symbols, File: f}
	var ps []*profile.Profiler
	for _, n := range c.Nodes {
		p := profile.New(im, n.Board.Busy)
		p.Label("node", strconv.Itoa(n.ID))
		p.Binary("firmware/netvm")
		n.Board.Observe(p)
		ps = append(ps, p)
	}
	return ps, nil
}

// New builds the cluster, loads the firmware into every board and
// attaches every driver (the boot handshake runs on the timeline).
func New(cfg Config) (*Cluster, error) {
	if cfg.Frames <= 0 {
		cfg.Frames = DefaultFrames
	}
	// Before anything is built: a count New cannot wire, frames past
	// the host's memory, or more memory than a run may take.
	if err := CheckSize(cfg.Nodes, cfg.Frames, 0); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if cfg.Timing == (freebsd.Timing{}) {
		cfg.Timing = freebsd.DefaultTiming()
	}
	if cfg.Credits == 0 {
		cfg.Credits = abi.DefaultCredits
	}
	fcfg := fabric.DefaultConfig()
	if cfg.Fabric != nil {
		fcfg = *cfg.Fabric
	}
	if cfg.LinkRate != 0 {
		fcfg.Link.Rate = cfg.LinkRate
	}
	if cfg.Board == "" {
		cfg.Board = hostbus.DefaultPart
	}
	hb, err := hostbus.BoardFor(cfg.Board, 1)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	hb.SRAMSize = 0 // follow the attached memory
	if cfg.ClockHz == 0 {
		cfg.ClockHz = hb.ClockHz
	}
	wp := hostbus.DefaultParams()
	wp.Board = hb
	img, err := fwnetvm.Image()
	if err != nil {
		return nil, err
	}
	q := &sim.Queue{}
	seed := cfg.Seed
	if seed == 0 {
		seed = 1
	}
	var f *fabric.Fabric
	switch {
	case cfg.Nodes == 2 && cfg.BackToBack:
		f, err = fabric.BackToBack(q, sim.NewRand(seed), fcfg)
	case cfg.Nodes <= MaxStarNodes:
		f, err = fabric.Star(q, sim.NewRand(seed), fcfg, cfg.Nodes)
	default: // a Clos network of 16-port switches: 8 nodes per leaf (CheckNodes)
		f, err = fabric.Clos(q, sim.NewRand(seed), fcfg, cfg.Nodes/8, 8, 8)
	}
	if err != nil {
		return nil, err
	}
	if err := f.SetFaults(cfg.Faults); err != nil {
		return nil, err
	}
	c := &Cluster{Q: q, Fabric: f, firmware: img}
	lay := driver.LayoutFor(cfg.Nodes, cfg.Credits)
	var boards []*board.Board
	for i := range cfg.Nodes {
		n := &Machine{ID: i}
		size := uint64(lay.Frames+uint32(cfg.Frames)) * freebsd.PageSize
		if n.Mem, err = hostbus.NewHostMemory(size); err != nil {
			return nil, err
		}
		bc := board.Config{Config: lanai.Config{ClockHz: cfg.ClockHz}, Host: n.Mem, OnIRQ: func(cycle uint64, level bool) {
			if level && n.Driver != nil {
				n.Driver.IRQ(n.Board.Clock().Time(cycle))
			}
		}, OnHostWrite: func(addr uint64, size int, cycle uint64) {
			// Host threads spinning on host memory wake when it changes.
			if n.Driver != nil {
				n.Driver.HostWritten(addr, size, n.Board.Clock().Time(cycle))
			}
		}, PCI: cfg.PCI}
		tr, tl := cfg.Trace, cfg.Timeline
		if tr != nil || tl != nil {
			id := i
			var rec *boardRecorder
			if tl != nil {
				rec = newBoardRecorder(tl, n)
			}
			bc.Trace = func(e board.Event) {
				if tr != nil {
					tr(id, e)
				}
				if rec != nil {
					rec.event(e)
				}
			}
		}
		n.Board, err = board.New(bc)
		if err != nil {
			return nil, err
		}
		b := n.Board
		b.Link().SetRate(fcfg.Link.Rate)
		b.SetReset(true) // power-on: the LANai is held in reset until the driver loads it
		n.Window, err = hostbus.NewWindow(b.CPU().Mem, wp, hostbus.Hooks{
			ReadSpecial: b.HostReadSpecial, WriteSpecial: b.HostWriteSpecial,
			ReadPointer: b.HostReadPointerBank, WritePointer: b.HostWritePointerBank,
			TriggerDMA: b.TriggerDMA, InterruptEnable: b.SetHostInterruptEnable,
			Reset: func(r hostbus.ResetLines) { b.SetReset(r.LANai) },
		})
		if err != nil {
			return nil, err
		}
		n.Kernel = freebsd.NewKernel(q, i, cfg.Timing, freebsd.Memory{Host: n.Mem, First: lay.Frames, Frames: cfg.Frames})
		if tl := cfg.Timeline; tl != nil {
			traceThreads(tl, n)
		}
		routes := make([][]byte, cfg.Nodes)
		for dst := range cfg.Nodes {
			if dst == i {
				continue
			}
			rs, err := f.Routes(i, dst, 1)
			if err != nil || len(rs) == 0 {
				return nil, fmt.Errorf("cluster: no route from %d to %d: %v", i, dst, err)
			}
			routes[dst] = rs[0]
		}
		n.Driver = driver.New(n.Kernel, n.Window, n.Mem, lay, driver.Config{Node: i, Nodes: cfg.Nodes,
			Credits: cfg.Credits, Mode: cfg.Mode, Routes: routes})
		n.Kernel.StartPageout()
		c.Nodes = append(c.Nodes, n)
		boards = append(boards, b)
	}
	// An interrupt raised inside a step is served InterruptEntry later;
	// the runner's steps are short (one link latency) whenever the boards
	// or the hosts are busy, and grow only while every board idles, which
	// a board leaves on a link event or a host's access (both cut the
	// step). Only an interrupt raised by a board's own timer could fall
	// in a grown step; the drivers count those served late
	// (driver.Stats.LateIRQs).
	c.World, err = node.New(q, f, boards, node.Config{Jobs: cfg.Jobs})
	if err != nil {
		return nil, err
	}
	attached := 0
	var attachErr error
	for _, n := range c.Nodes {
		n.Kernel.Go("attach", func(t *freebsd.Thread) {
			if err := n.Driver.Attach(t, img); err != nil && attachErr == nil {
				attachErr = fmt.Errorf("node %d: %w", n.ID, err)
			}
			attached++
		})
	}
	inTime, err := c.RunUntil(func() bool { return attached == len(c.Nodes) }, sim.Second)
	if err != nil {
		return nil, err
	}
	if !inTime {
		return nil, fmt.Errorf("cluster: drivers did not attach")
	}
	if attachErr != nil {
		return nil, attachErr
	}
	c.World.ShareCode() // every board runs the firmware loaded
	return c, nil
}

// Now is the simulated time.
func (c *Cluster) Now() sim.Time { return c.World.Now() }

// Run advances the cluster to until; it stops early with the first
// invariant violation of a host, and with an error when every board has
// stopped (the world's time then stays at the last stop: docs/timeline.md,
// "The end of a run"), which the NetVM firmware never does by itself.
func (c *Cluster) Run(until sim.Time) error {
	for c.World.Now() < until {
		step := min(until, c.World.Now()+sim.Millisecond)
		if err := c.World.Run(step); err != nil {
			return err
		}
		if !c.World.Running() && c.World.Now() < until {
			return fmt.Errorf("every board has stopped, at %v: the cluster cannot run to %v", c.World.Now(), until)
		}
		for _, n := range c.Nodes {
			if err := n.Kernel.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Shutdown ends every host thread.
func (c *Cluster) Shutdown() {
	for _, n := range c.Nodes {
		n.Kernel.Shutdown()
	}
}
