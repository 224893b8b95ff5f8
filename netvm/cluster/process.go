package cluster

import (
	"fmt"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// This file is the helper layer the NetVM tools share (netvm bench,
// stress and run): run a thread to its end, open a process with an
// endpoint that exports a region and a counter, import a peer's, wait
// for a counter in one of the library's three ways.

// ThreadStep is how far RunUntil (and RunThread) advances the cluster
// between looks at whether what it waits for has happened.
const ThreadStep = 100 * sim.Microsecond

// ThreadLimit is the cluster's time (from its start) by which a thread
// RunThread runs must have finished.
const ThreadLimit = 100 * sim.Second

// RunUntil runs the cluster in steps of ThreadStep until done holds. It
// returns false if the cluster's time has passed limit first; its error
// is the cluster's (Run).
func (c *Cluster) RunUntil(done func() bool, limit sim.Time) (bool, error) {
	for !done() {
		if err := c.Run(c.Now() + ThreadStep); err != nil {
			return false, err
		}
		if c.Now() > limit {
			return false, nil
		}
	}
	return true, nil
}

// RunThread runs fn as a thread called name on node i, and the cluster
// until fn returns (RunUntil). Its error is fn's or the cluster's, with
// the node's number before it; a thread still running at ThreadLimit is
// an error too.
func (c *Cluster) RunThread(i int, name string, fn func(t *freebsd.Thread) error) error {
	var err error
	done := false
	c.Nodes[i].Kernel.Go(name, func(t *freebsd.Thread) { err = fn(t); done = true })
	finished, runErr := c.RunUntil(func() bool { return done }, ThreadLimit)
	switch {
	case runErr != nil:
		return fmt.Errorf("node %d: %w", i, runErr)
	case !finished:
		return fmt.Errorf("node %d: thread %q did not finish in %v of simulated time", i, name, ThreadLimit)
	case err != nil:
		return fmt.Errorf("node %d: %w", i, err)
	}
	return nil
}

// RunOnEach runs fn as a thread called name on every node in turn, node
// 0 first, each to its end (RunThread); it stops at the first error.
func (c *Cluster) RunOnEach(name string, fn func(t *freebsd.Thread, m *Machine) error) error {
	for i, m := range c.Nodes {
		if err := c.RunThread(i, name, func(t *freebsd.Thread) error { return fn(t, m) }); err != nil {
			return err
		}
	}
	return nil
}

// Process is a process on one machine with an open endpoint, a region
// of Size bytes it exports (with counter 0, which a peer's WRITEs name),
// and, once Import has run, its imports of a peer's.
type Process struct {
	Machine *Machine
	Proc    *freebsd.Proc
	EP      *lib.EP
	// Region is the exported region's address, where a peer's WRITEs
	// land; Src is where the process's own WRITEs come from (Region
	// unless ProcessOptions.SeparateSource).
	Region, Src uint32
	Size        uint32
	// RegionKey and CounterKey are the keys of the region's and counter
	// 0's exports (what a peer imports).
	RegionKey, CounterKey uint32
	// PeerRegion and PeerCounter are the process's imports of its peer's
	// region and counter 0 (Import).
	PeerRegion, PeerCounter int
	// notified is woken by the handler ArmHandler installs.
	notified freebsd.WaitQueue
}

// ProcessOptions are the choices OpenProcess leaves to its caller.
type ProcessOptions struct {
	// Resident writes the whole region before it is exported, so that its
	// pages are resident and in the SPT (otherwise the first WRITE to a
	// page takes the redirect path).
	Resident bool
	// SeparateSource maps a second buffer of the region's size to send
	// from, and writes it (resident); otherwise the process sends from
	// its region.
	SeparateSource bool
	// NoInline makes the endpoint DMA even a payload of up to
	// abi.InlineMax bytes (lib.EP.NoInline).
	NoInline bool
	// Handler installs ArmHandler's handler once counter 0 is exported.
	Handler bool
}

// OpenProcess opens an endpoint for proc on machine m, maps a region of
// size bytes (at least a page), exports it, writable, and counter 0, as
// o says. Its errors name the step that failed ("mmap: ...").
func OpenProcess(t *freebsd.Thread, m *Machine, proc *freebsd.Proc, size uint32, o ProcessOptions) (*Process, error) {
	p := &Process{Machine: m, Proc: proc, Size: max(size, freebsd.PageSize)}
	var err error
	if p.EP, err = lib.Open(t, m.Driver, proc); err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	p.EP.NoInline = o.NoInline
	if p.Region, err = proc.Mmap(t, p.Size, freebsd.ProtRW); err != nil {
		return nil, fmt.Errorf("mmap: %w", err)
	}
	if o.Resident {
		if err := proc.Write(t, p.Region, make([]byte, p.Size)); err != nil {
			return nil, fmt.Errorf("touch: %w", err)
		}
	}
	p.Src = p.Region
	if o.SeparateSource {
		if p.Src, err = proc.Mmap(t, p.Size, freebsd.ProtRW); err != nil {
			return nil, fmt.Errorf("mmap: %w", err)
		}
		if err := proc.Write(t, p.Src, make([]byte, p.Size)); err != nil {
			return nil, fmt.Errorf("touch: %w", err)
		}
	}
	if p.RegionKey, err = p.EP.Export(t, p.Region, p.Size, true); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if p.CounterKey, err = p.EP.ExportCounter(t, 0); err != nil {
		return nil, fmt.Errorf("export counter: %w", err)
	}
	if o.Handler {
		if err := p.ArmHandler(t); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Import imports peer's region and counter 0 (PeerRegion, PeerCounter).
func (p *Process) Import(t *freebsd.Thread, peer *Process) error {
	var err error
	node := peer.Machine.ID
	if p.PeerRegion, err = p.EP.Import(t, node, peer.EP.Index, peer.RegionKey, peer.Size, abi.ExpKindRegion); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if p.PeerCounter, err = p.EP.Import(t, node, peer.EP.Index, peer.CounterKey, 0, abi.ExpKindCounter); err != nil {
		return fmt.Errorf("import counter: %w", err)
	}
	return nil
}

// ArmHandler installs a handler on counter 0 that wakes the process's
// threads waiting in WaitCounter with WaitHandler.
func (p *Process) ArmHandler(t *freebsd.Thread) error {
	k := p.Machine.Kernel
	if err := p.EP.SetHandler(t, 0, func(*freebsd.Thread, int, uint64) { k.Wakeup(&p.notified, 0) }); err != nil {
		return fmt.Errorf("handler: %w", err)
	}
	return nil
}

// The ways WaitCounter waits: the library's three (docs/netvm.md §9).
const (
	WaitBusy    = "busy"    // spin on the status page
	WaitBlock   = "block"   // sleep until the driver's wake-up
	WaitHandler = "handler" // sleep until ArmHandler's handler runs
)

// WaitCounter waits until counter 0 reaches v, the way mode names
// (WaitBusy if it names none of them). Its error is the driver's, when a
// block wait cannot arm the counter.
func (p *Process) WaitCounter(t *freebsd.Thread, v uint64, mode string) error {
	switch mode {
	case WaitBlock:
		if err := p.EP.WaitBlock(t, 0, v); err != nil {
			return fmt.Errorf("block wait: %w", err)
		}
	case WaitHandler:
		for p.EP.Counter(0) < v {
			t.Wait(&p.notified)
		}
	default:
		p.EP.WaitBusy(t, 0, v)
	}
	return nil
}
