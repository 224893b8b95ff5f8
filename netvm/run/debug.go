package run

// The cluster debugger: a scenario run under a script of debugger
// commands, with breakpoints and watchpoints in the firmware of any node.
//
// The boards of a cluster advance together with the hosts and the fabric
// (package node: every board runs to the end of a short step, then the
// shared queue runs the hosts' and the fabric's events up to it), so a
// core cannot be run alone as `lanai-emu debug` runs it. Here the cluster
// advances in ticks of one core cycle (each tick a cluster.Run to the
// next cycle of the board that is furthest behind, so that no board
// executes more than one instruction in it), and after each tick the
// breakpoints and watchpoints of every node are checked. Everything stops
// at a tick's end, with every board, host and link at the same time, so
// what the commands show is consistent, and the run goes on exactly as it
// would have without stopping (TestDebugDoesNotPerturb). A tick costs
// about 0.2 µs of host time on a 2-core machine (10 simulated ms of
// continue, 1.33 million ticks, take 0.25 s); "wait" advances at full
// speed.
//
// The cluster is a Target of package debugger (DebugSession): each
// node's core is a thread, a Tick is the step above, and the debugger's
// commands (break, watch, step, next, until, finish, continue, regs,
// print, x, disas, list, backtrace, ...) work on it as on one core; they
// look at the selected node (node N). The frames follow the firmware's
// convention (debugger.ABINetVM). The cluster adds wait, time, events,
// hostx and result.

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"lanaiemu/board"
	"lanaiemu/debugger"
	fwnetvm "lanaiemu/firmware/netvm"
	"lanaiemu/internal/timeline"
	"lanaiemu/memsys"
	"lanaiemu/netvm/cluster"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/objfile"
	"lanaiemu/sim"
)

// DebugConfig configures Debug.
type DebugConfig struct {
	// Root is the module's root directory: list reads the firmware's
	// sources from there (the line table names them relative to it).
	Root string
	// Timeline, if set, records the run (as netvm run --trace does).
	Timeline *timeline.Recorder
	// Trace, if set, also gets every board's device events.
	Trace func(node int, e board.Event)
}

// Debug runs the scenario under a script of debugger commands (one a
// line; blank lines and lines starting with # are skipped), writing the
// transcript to out. After the script the run goes on to its end as Run's
// does. It returns the result and the number of commands that failed.
func Debug(sc *Scenario, script io.Reader, out io.Writer, cfg DebugConfig) (*Result, int, error) {
	s, d, err := NewDebugSession(sc, out, cfg)
	if err != nil {
		return nil, 0, err
	}
	defer s.Close()
	d.Script(script)
	if err := d.Failed(); err != nil {
		return nil, d.Errors(), err
	}
	r, err := s.Finish()
	return r, d.Errors(), err
}

// DebugSession is a scenario's cluster under the debugger (the Target of
// package debugger: every node's core a thread, advancing on one
// timeline).
type DebugSession struct {
	sc       *Scenario
	c        *cluster.Cluster
	res      *Result
	t0, end  sim.Time
	out      io.Writer
	tl       *timeline.Recorder // the timeline recorded, or nil
	threads  []*debugger.Thread
	events   bool
	doneSaid bool // the workloads' end was reported
}

// NewDebugSession builds the scenario's cluster, runs it to the
// workloads' start and makes a debugger over it (node 0 selected), whose
// transcript goes to out. Close the session when done.
func NewDebugSession(sc *Scenario, out io.Writer, cfg DebugConfig) (*DebugSession, *debugger.Debugger, error) {
	s := &DebugSession{sc: sc, out: out, tl: cfg.Timeline}
	trace := s.boardEvent
	if cfg.Trace != nil {
		trace = func(node int, e board.Event) {
			cfg.Trace(node, e)
			s.boardEvent(node, e)
		}
	}
	c, res, t0, err := begin(sc, cfg.Timeline, trace)
	if err != nil {
		return nil, nil, err
	}
	s.c, s.res, s.t0, s.end = c, res, t0, t0+sim.Time(sc.Time)
	s.doneSaid = sc.done(res)
	for _, n := range c.Nodes {
		id, prev := n.ID, n.Kernel.Trace
		n.Kernel.Trace = func(t *freebsd.Thread, what string, start, end sim.Time) {
			if prev != nil {
				prev(t, what, start, end)
			}
			s.hostSpan(id, t, what, start, end)
		}
	}
	prog, err := FirmwareProgram()
	if err != nil {
		c.Shutdown()
		return nil, nil, err
	}
	for _, n := range c.Nodes {
		s.threads = append(s.threads, &debugger.Thread{Name: fmt.Sprintf("node %d", n.ID), CPU: n.Board.CPU(), Program: prog})
	}
	d := debugger.NewTarget(s, out)
	if cfg.Root != "" {
		d.SourceDirs = []string{cfg.Root, filepath.Join(cfg.Root, "firmware", "netvm")}
	}
	fmt.Fprintf(out, "netvm debugger: %s, %d nodes; the workloads started at %s; node 0 selected. Type \"help\" for commands.\n",
		sc.Path, sc.Count, us(t0))
	return s, d, nil
}

// Finish runs the scenario on to its end as Run does (without the
// debugger's stops) and gives the result.
func (s *DebugSession) Finish() (*Result, error) {
	s.events = false
	return finish(s.sc, s.c, s.res, s.t0, nil, s.tl)
}

// Close releases the cluster.
func (s *DebugSession) Close() { s.c.Shutdown() }

// Cluster gives the cluster being debugged.
func (s *DebugSession) Cluster() *cluster.Cluster { return s.c }

// FirmwareProgram reads the NetVM firmware's image (firmware/netvm.Image,
// which the boards load) for the debugger: its symbols, line table and
// the firmware's frame convention. The .set constants are absolute
// symbols; those whose value falls inside the image (offsets, bits,
// sizes: BUF_TAIL = 0x1030) would name code and data addresses, so they
// are left out. The larger ones (NVM_EP_RING_BASE, NVM_SPT_BASE, ...)
// stay, for x and print.
func FirmwareProgram() (*debugger.Program, error) {
	elf, err := fwnetvm.Image()
	if err != nil {
		return nil, err
	}
	f, err := objfile.Read(elf)
	if err != nil {
		return nil, err
	}
	var end uint32
	for _, sec := range f.Sections {
		if sec.Flags&objfile.SHF_ALLOC != 0 {
			end = max(end, sec.Addr+sec.Size)
		}
	}
	var syms []*objfile.Symbol
	for _, sym := range f.Symbols {
		if sym.Shndx == objfile.SHN_ABS && sym.Value < end {
			continue
		}
		syms = append(syms, sym)
	}
	p := debugger.NewProgram(&memsys.Image{Entry: f.Entry, Symbols: syms, File: f})
	p.ABI = debugger.ABINetVM
	return p, nil
}

// Threads gives every node's core.
func (s *DebugSession) Threads() []*debugger.Thread { return s.threads }

// Now is the cluster's time.
func (s *DebugSession) Now() sim.Time { return s.c.Now() }

// ThreadTime is the time of node i's cycle.
func (s *DebugSession) ThreadTime(i int, cycle uint64) sim.Time {
	return s.c.Nodes[i].Board.Clock().Time(cycle)
}

// Tick advances the cluster to the next cycle of the board furthest
// behind: no board executes more than one instruction. It reports the
// workloads' end (once) and the scenario's.
func (s *DebugSession) Tick() (*debugger.Event, error) {
	T := s.c.World.NextCycle()
	if T <= s.c.Now() {
		T = s.c.Now() + 1
	}
	if err := s.c.Run(min(T, max(s.end, s.c.Now()+1))); err != nil {
		return nil, err
	}
	if s.c.Now() >= s.end {
		return s.endEvent(), nil
	}
	if !s.doneSaid && s.sc.done(s.res) {
		s.doneSaid = true
		return &debugger.Event{Text: fmt.Sprintf("[the workloads are done at %s]", us(s.c.Now()))}, nil
	}
	return nil, nil
}

func (s *DebugSession) endEvent() *debugger.Event {
	return &debugger.Event{End: true, Text: fmt.Sprintf("[the scenario's end at %s]", us(s.c.Now())),
		Why: "the run is over (the scenario's end was reached)"}
}

// Commands are the cluster's own commands.
func (s *DebugSession) Commands() []debugger.Command {
	return []debugger.Command{
		{Name: "wait", Usage: "wait DURATION", Help: "run the cluster for DURATION (e.g. 10us, 2ms) at full speed, ignoring breakpoints", Run: s.cmdWait},
		{Name: "time", Usage: "time", Help: "the simulated time and every node's cycle count", Run: s.cmdTime},
		{Name: "events", Usage: "events on|off", Help: "show the boards' DMA, link and interrupt events and the host threads' spans as they happen", Run: s.cmdEvents},
		{Name: "hostx", Usage: "hostx ADDR [N]", Help: "N words (default 8) of the selected node's host memory at physical address ADDR (an expression, as for x)", Run: s.cmdHostX},
		{Name: "result", Usage: "result", Help: "the workloads' results so far", Run: s.cmdResult},
	}
}

// us formats a time as the debugger's stops do.
func us(t sim.Time) string { return debugger.FormatTime(t) }

// boardEvent prints a board's device event while events are on.
func (s *DebugSession) boardEvent(node int, e board.Event) {
	if !s.events || s.c == nil {
		return
	}
	b := s.c.Nodes[node].Board
	at := b.Clock().Time(e.Cycle)
	dir := func(ch int) string {
		switch ch {
		case 0:
			return "ch0 SRAM->host"
		case 2:
			return "ch2 host->SRAM"
		}
		return fmt.Sprintf("ch%d", ch)
	}
	var what string
	switch e.Kind {
	case board.EvDMAFetch:
		what = fmt.Sprintf("DMA %s: block of %d B begins", dir(e.Channel), e.Bytes)
	case board.EvDMADone:
		what = fmt.Sprintf("DMA %s: block done", dir(e.Channel))
	case board.EvDMAFault:
		what = fmt.Sprintf("DMA %s: fault %v", dir(e.Channel), e.Fault)
	case board.EvSend:
		what = fmt.Sprintf("link: packet of %d B starts on the wire", e.Bytes)
	case board.EvRecv:
		what = fmt.Sprintf("link: packet of %d B stored in SRAM", e.Bytes)
	case board.EvIRQ:
		if !e.Level {
			return
		}
		what = "host interrupt line raised"
	default:
		return
	}
	fmt.Fprintf(s.out, "  [%s] node %d (cycle %d) %s\n", us(at), node, e.Cycle, what)
}

// hostSpan prints a host thread's span (reported when it ends) while
// events are on.
func (s *DebugSession) hostSpan(node int, t *freebsd.Thread, what string, start, end sim.Time) {
	if !s.events {
		return
	}
	fmt.Fprintf(s.out, "  [%s] node %d host thread %q: %s for %s\n", us(start), node, t.Name, what, us(end-start))
}

func (s *DebugSession) cmdWait(d *debugger.Debugger, args []string) {
	if len(args) != 1 {
		d.Errorf("usage: wait DURATION (a number and ps, ns, us, ms or s: 10us)")
		return
	}
	dur, err := sim.ParseDuration(args[0])
	if err == nil && dur == 0 {
		err = fmt.Errorf("duration %q is not positive", args[0])
	}
	if err != nil {
		d.Errorf("wait: %v", err)
		return
	}
	if over, why := d.Over(); over {
		d.Errorf("%s", why)
		return
	}
	until := s.end // min(now+dur, end) without overflow
	if now := s.c.Now(); now < s.end && dur < s.end-now {
		until = now + dur
	}
	if err := s.c.Run(until); err != nil {
		d.Errorf("wait: the cluster failed: %v", err)
		return
	}
	d.RefreshWatches()
	if s.c.Now() >= s.end {
		d.End(s.endEvent())
	}
	s.cmdTime(d, nil)
}

func (s *DebugSession) cmdTime(d *debugger.Debugger, args []string) {
	if len(args) > 0 {
		d.Errorf("time takes no arguments")
		return
	}
	d.Printf("time %s (%s since the workloads started)", us(s.c.Now()), us(s.c.Now()-s.t0))
	for _, n := range s.c.Nodes {
		d.Printf("; node %d cycle %d", n.ID, n.Board.CPU().Cycles)
	}
	d.Printf("\n")
}

func (s *DebugSession) cmdEvents(d *debugger.Debugger, args []string) {
	switch strings.Join(args, " ") {
	case "on":
		s.events = true
	case "off":
		s.events = false
	default:
		d.Errorf("usage: events on|off")
	}
}

func (s *DebugSession) cmdHostX(d *debugger.Debugger, args []string) {
	if len(args) < 1 || len(args) > 2 {
		d.Errorf("usage: hostx ADDR [N]")
		return
	}
	a32, err := d.Eval(args[0])
	if err != nil {
		d.Errorf("hostx: %v", err)
		return
	}
	a := uint64(a32)
	n := uint64(8)
	if len(args) == 2 {
		if n, err = strconv.ParseUint(args[1], 0, 16); err != nil || n == 0 || n > 1024 {
			d.Errorf("hostx: count %q: 1..1024", args[1])
			return
		}
	}
	buf := make([]byte, 4*n)
	if err := s.c.Nodes[d.Selected()].Mem.Read(a, buf); err != nil {
		d.Errorf("hostx: %v", err)
		return
	}
	for i := uint64(0); i < n; i += 4 {
		d.Printf("host 0x%08x:", a+4*i)
		for j := i; j < i+4 && j < n; j++ {
			d.Printf(" %08x", uint32(buf[4*j])<<24|uint32(buf[4*j+1])<<16|uint32(buf[4*j+2])<<8|uint32(buf[4*j+3]))
		}
		d.Printf("\n")
	}
}

func (s *DebugSession) cmdResult(d *debugger.Debugger, args []string) {
	if len(args) > 0 {
		d.Errorf("result takes no arguments")
		return
	}
	for i, w := range s.res.Workloads {
		d.Printf("workloads[%d] %s: done %v", i, w.Kind, w.Done)
		if w.LatencyUS != 0 {
			d.Printf(", one-way latency %.3f us", w.LatencyUS)
		}
		if w.MBps != 0 {
			d.Printf(", %d bytes at %.3f MB/s", w.Bytes, w.MBps)
		}
		d.Printf("\n")
	}
}
