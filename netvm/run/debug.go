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
// The inspection commands of package debugger (regs, print, x, disas,
// list, info, backtrace, cycles) work on the selected node's core; the
// commands that would run a core by itself are replaced by the ones
// below (finish follows the firmware's convention, CALL and RET through
// rca, not clang's frames).

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/board"
	"lanaiemu/debugger"
	"lanaiemu/freebsd"
	"lanaiemu/isa"
	"lanaiemu/memsys"
	"lanaiemu/netvm/cluster"
	"lanaiemu/objfile"
	"lanaiemu/sim"
	"lanaiemu/timeline"
)

// DebugConfig configures Debug.
type DebugConfig struct {
	// Root is the module's root directory. The firmware is assembled again
	// from Root/firmware/netvm with a line table (the image the boards
	// run has none; the two must have the same code), and list reads the
	// sources from there.
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
	s := &session{sc: sc, out: out}
	trace := s.boardEvent
	if cfg.Trace != nil {
		trace = func(node int, e board.Event) {
			cfg.Trace(node, e)
			s.boardEvent(node, e)
		}
	}
	c, res, t0, err := begin(sc, cfg.Timeline, trace)
	if err != nil {
		return nil, 0, err
	}
	defer c.Shutdown()
	s.c, s.res, s.t0, s.end = c, res, t0, t0+sim.Time(sc.UntilUS)*sim.Microsecond
	for _, n := range c.Nodes {
		id, prev := n.ID, n.Kernel.Trace
		n.Kernel.Trace = func(t *freebsd.Thread, what string, start, end sim.Time) {
			if prev != nil {
				prev(t, what, start, end)
			}
			s.hostSpan(id, t, what, start, end)
		}
	}
	img, err := debugImage(cfg.Root, c)
	if err != nil {
		return nil, 0, err
	}
	for _, n := range c.Nodes {
		d := debugger.New(n.Board.CPU(), img, out)
		d.SourceDirs = []string{cfg.Root, filepath.Join(cfg.Root, "firmware", "netvm")}
		s.dbg = append(s.dbg, d)
	}
	fmt.Fprintf(out, "netvm debugger: %s, %d nodes; the workloads started at %s; node 0 selected. Type \"help\" for commands.\n",
		sc.name, sc.Nodes, us(t0))
	sc2 := bufio.NewScanner(script)
	sc2.Buffer(make([]byte, 64<<10), debugger.MaxLine)
	for sc2.Scan() {
		line := strings.TrimSpace(sc2.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fmt.Fprintf(out, "%s%s\n", debugger.Prompt, line)
		if s.exec(line) {
			break
		}
		if s.err != nil {
			return nil, s.errors(), s.err
		}
	}
	if err := sc2.Err(); err != nil {
		return nil, s.errors(), err
	}
	s.events = false
	r, err := finish(sc, c, res, t0, nil)
	return r, s.errors(), err
}

// debugImage assembles the firmware from root with a line table (what
// `lanai-as -I firmware/netvm firmware/netvm/netvm.s` does) and checks
// that its code is what the boards of c run.
func debugImage(root string, c *cluster.Cluster) (*memsys.Image, error) {
	const main = "firmware/netvm/netvm.s"
	read := func(name string) ([]byte, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(root, name)
		}
		return os.ReadFile(name)
	}
	src, err := read(main)
	if err != nil {
		return nil, fmt.Errorf("debugger: the firmware sources: %w", err)
	}
	res, err := asm.Assemble([]asm.Source{{Name: main, Text: src}}, asm.Options{ReadFile: read, LineInfo: true})
	if err != nil {
		return nil, fmt.Errorf("debugger: %w", err)
	}
	exe, err := asm.LinkWithLines([]*asm.Result{res}, []string{main}, link.Options{})
	if err != nil {
		return nil, fmt.Errorf("debugger: %w", err)
	}
	elf, err := exe.WriteELF()
	if err != nil {
		return nil, err
	}
	f, err := objfile.Read(elf)
	if err != nil {
		return nil, err
	}
	for _, sec := range f.Sections {
		if sec.Flags&objfile.SHF_EXECINSTR == 0 || len(sec.Data) == 0 {
			continue
		}
		for _, n := range c.Nodes {
			b, err := n.Board.CPU().Mem.Read(sec.Addr, uint32(len(sec.Data)))
			if err != nil || string(b) != string(sec.Data) {
				return nil, fmt.Errorf("debugger: the firmware in %s is not the one node %d runs (section %s)", root, n.ID, sec.Name)
			}
		}
	}
	// The .set constants are absolute symbols; those whose value falls
	// inside the image (offsets, bits, sizes: BUF_TAIL = 0x1030) would name
	// code and data addresses, so they are left out. The larger ones
	// (NVM_EP_RING_BASE, NVM_SPT_BASE, ...) stay, for x and print.
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
	return &memsys.Image{Entry: f.Entry, Symbols: syms, File: f}, nil
}

// session is one debugging session.
type session struct {
	sc       *Scenario
	c        *cluster.Cluster
	res      *Result
	t0, end  sim.Time
	out      io.Writer
	dbg      []*debugger.Debugger // one per node
	cur      int                  // the selected node
	points   []*dpoint
	nextID   int
	events   bool
	errs     int
	err      error // the cluster failed: the session ends
	finished bool  // the scenario's end was reached
}

// dpoint is a breakpoint or a watchpoint of one node.
type dpoint struct {
	id, node  int
	watch     bool
	addr, len uint32
	what      string
	old       []byte // a watchpoint's bytes after the last tick
	hits      int
}

func (s *session) errors() int {
	n := s.errs
	for _, d := range s.dbg {
		n += d.Errors()
	}
	return n
}

func (s *session) errorf(format string, a ...any) {
	s.errs++
	fmt.Fprintf(s.out, "error: "+format+"\n", a...)
}

func (s *session) printf(format string, a ...any) { fmt.Fprintf(s.out, format, a...) }

// us formats a time in microseconds with nanosecond digits.
func us(t sim.Time) string { return fmt.Sprintf("%.3f us", float64(t)/float64(sim.Microsecond)) }

// boardEvent prints a board's device event while events are on.
func (s *session) boardEvent(node int, e board.Event) {
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
	s.printf("  [%s] node %d (cycle %d) %s\n", us(at), node, e.Cycle, what)
}

// hostSpan prints a host thread's span (reported when it ends) while
// events are on.
func (s *session) hostSpan(node int, t *freebsd.Thread, what string, start, end sim.Time) {
	if !s.events {
		return
	}
	s.printf("  [%s] node %d host thread %q: %s for %s\n", us(start), node, t.Name, what, us(end-start))
}

// exec runs one command line; it reports whether it was quit.
func (s *session) exec(line string) bool {
	f := strings.Fields(line)
	name, args := f[0], f[1:]
	d := s.dbg[s.cur]
	switch name {
	case "node":
		s.cmdNode(args)
	case "break", "b", "br":
		s.cmdBreak(args)
	case "watch", "w":
		s.cmdWatch(args)
	case "delete", "d":
		s.cmdDelete(args)
	case "continue", "c", "cont":
		if s.noArgs(name, args) && s.running() {
			s.resume(0, nil)
		}
	case "until", "u", "advance":
		s.cmdUntil(args)
	case "finish", "fin":
		if s.noArgs(name, args) && s.running() {
			// The firmware's convention (firmware/netvm/netvm.s): CALL
			// leaves the return address in rca, RET jumps to it.
			ra := s.c.Nodes[s.cur].Board.CPU().Reg(isa.RCA)
			s.printf("Run till the return address in rca, %s\n", s.dbg[s.cur].Describe(ra))
			s.resume(0, &dpoint{node: s.cur, addr: ra})
		}
	case "step", "s", "stepi", "si":
		s.cmdStep(args)
	case "wait":
		s.cmdWait(args)
	case "time":
		if s.noArgs(name, args) {
			s.showTime()
		}
	case "events":
		switch strings.Join(args, " ") {
		case "on":
			s.events = true
		case "off":
			s.events = false
		default:
			s.errorf("usage: events on|off")
		}
	case "hostx":
		s.cmdHostX(args)
	case "result":
		if s.noArgs(name, args) {
			s.showResult()
		}
	case "help", "h", "?":
		s.help()
	case "quit", "q", "exit":
		return true
	case "info", "i":
		if len(args) > 0 && (strings.HasPrefix("breakpoints", args[0]) || strings.HasPrefix("watchpoints", args[0])) {
			s.showPoints()
			return false
		}
		d.Exec(line)
	default:
		cmd, ok := debugger.CommandName(strings.SplitN(name, "/", 2)[0])
		switch {
		case !ok:
			s.errorf("unknown command %q; type \"help\" for the list", name)
		case cmd == "next" || cmd == "trace" || cmd == "history":
			s.errorf("%s is not available in a cluster run (the cores advance together): use step, until, finish, break and continue", cmd)
		default:
			d.Exec(line) // regs, print, x, disas, list, backtrace, cycles
		}
	}
	return false
}

func (s *session) noArgs(name string, args []string) bool {
	if len(args) > 0 {
		s.errorf("%s takes no arguments", name)
		return false
	}
	return true
}

func (s *session) running() bool {
	if s.finished {
		s.errorf("the run is over (the scenario's end was reached)")
		return false
	}
	return true
}

func (s *session) help() {
	s.printf(`Cluster commands:
  node [N]                 select node N (the other commands look at its firmware)
  break LOC                a breakpoint in the selected node's firmware (LOC: symbol, address, FILE:LINE)
  watch ADDR [LEN]         stop when LEN bytes (default 4) of the selected node's SRAM change, whoever writes them
  delete [N...]            delete breakpoints/watchpoints (default: all)
  info breakpoints         the breakpoints and watchpoints of every node
  continue                 run the cluster until a breakpoint or watchpoint, the workloads' end or the scenario's
  until LOC                continue with a one-time breakpoint at LOC in the selected node
  finish                   until the address in rca: where the routine returns, when pc is at its first
                           instruction or in a routine that calls none (the firmware's CALL/RET convention)
  step [N]                 run the cluster until the selected node has executed N instructions (default 1), each shown
  wait DURATION            run the cluster for DURATION (e.g. 10us, 2ms) at full speed, ignoring breakpoints
  time                     the simulated time and every node's cycle count
  events on|off            show the boards' DMA, link and interrupt events and the host threads' spans as they happen
  hostx ADDR [N]           N words (default 8) of the selected node's host memory at physical address ADDR
                           (an expression, as for x: 0x1000+%%r7)
  result                   the workloads' results so far
  quit
Commands of lanai-emu debug that look at the selected node's core: regs, print, x, disas, list,
info registers|symbols|specials|line, backtrace, cycles (see docs/emulator.md).
`)
}

func (s *session) cmdNode(args []string) {
	if len(args) > 1 {
		s.errorf("usage: node [N]")
		return
	}
	if len(args) == 1 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 || n >= len(s.c.Nodes) {
			s.errorf("node: %q: nodes are 0..%d", args[0], len(s.c.Nodes)-1)
			return
		}
		s.cur = n
	}
	cpu := s.c.Nodes[s.cur].Board.CPU()
	s.printf("node %d: cycle %d, pc %s\n", s.cur, cpu.Cycles, s.dbg[s.cur].Describe(cpu.PC))
}

func (s *session) cmdBreak(args []string) {
	if len(args) == 0 {
		s.errorf("usage: break LOC")
		return
	}
	a, what, err := s.dbg[s.cur].Location(strings.Join(args, " "))
	if err != nil {
		s.errorf("break: %v", err)
		return
	}
	if a%4 != 0 || !s.c.Nodes[s.cur].Board.CPU().Mem.InSRAM(a, 4) {
		s.errorf("break: 0x%08x is not an instruction address (a word of SRAM)", a)
		return
	}
	s.nextID++
	p := &dpoint{id: s.nextID, node: s.cur, addr: a, what: what}
	s.points = append(s.points, p)
	s.printf("Breakpoint %d at node %d %s\n", p.id, p.node, p.what)
}

func (s *session) cmdWatch(args []string) {
	if len(args) < 1 || len(args) > 2 {
		s.errorf("usage: watch ADDR [LEN]")
		return
	}
	d := s.dbg[s.cur]
	a, err := d.Eval(args[0])
	if err != nil {
		s.errorf("watch: %v", err)
		return
	}
	n := uint64(4)
	if len(args) == 2 {
		if n, err = strconv.ParseUint(args[1], 0, 32); err != nil || n == 0 || n > 4096 {
			s.errorf("watch: length %q: 1..4096", args[1])
			return
		}
	}
	mem := s.c.Nodes[s.cur].Board.CPU().Mem
	if !mem.InSRAM(a, uint32(n)) {
		s.errorf("watch: [0x%08x, +%d) is not in SRAM", a, n)
		return
	}
	s.nextID++
	p := &dpoint{id: s.nextID, node: s.cur, watch: true, addr: a, len: uint32(n), what: d.Describe(a)}
	p.old, _ = mem.Read(a, p.len)
	s.points = append(s.points, p)
	s.printf("Watchpoint %d: node %d, %d bytes at %s\n", p.id, p.node, p.len, p.what)
}

func (s *session) cmdDelete(args []string) {
	if len(args) == 0 {
		s.points = nil
		s.printf("Deleted all breakpoints and watchpoints.\n")
		return
	}
	for _, a := range args {
		id, err := strconv.Atoi(a)
		found := false
		for i, p := range s.points {
			if err == nil && p.id == id {
				s.points = append(s.points[:i], s.points[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			s.errorf("delete: no breakpoint or watchpoint %q", a)
			continue
		}
		s.printf("Deleted %d.\n", id)
	}
}

func (s *session) showPoints() {
	if len(s.points) == 0 {
		s.printf("No breakpoints or watchpoints.\n")
		return
	}
	for _, p := range s.points {
		kind := "breakpoint"
		if p.watch {
			kind = fmt.Sprintf("watchpoint, %d bytes", p.len)
		}
		s.printf("%-3d node %d %s at %s, hit %d times\n", p.id, p.node, kind, p.what, p.hits)
	}
}

func (s *session) cmdUntil(args []string) {
	if len(args) == 0 {
		s.errorf("usage: until LOC")
		return
	}
	a, _, err := s.dbg[s.cur].Location(strings.Join(args, " "))
	if err != nil {
		s.errorf("until: %v", err)
		return
	}
	if s.running() {
		s.resume(0, &dpoint{node: s.cur, addr: a})
	}
}

func (s *session) cmdStep(args []string) {
	n := 1
	if len(args) > 1 {
		s.errorf("usage: step [N]")
		return
	}
	if len(args) == 1 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil || n < 1 || n > 100000 {
			s.errorf("step: count %q: 1..100000", args[0])
			return
		}
	}
	if s.running() {
		s.resume(n, nil)
	}
}

func (s *session) cmdWait(args []string) {
	if len(args) != 1 {
		s.errorf("usage: wait DURATION (ns, us or ms: 10us)")
		return
	}
	d, err := parseDuration(args[0])
	if err != nil {
		s.errorf("wait: %v", err)
		return
	}
	if !s.running() {
		return
	}
	until := min(s.c.Now()+d, s.end)
	if err := s.c.Run(until); err != nil {
		s.fail(err)
		return
	}
	s.settle()
	if s.c.Now() >= s.end {
		s.finished = true
	}
	s.showTime()
}

func parseDuration(a string) (sim.Time, error) {
	units := []struct {
		suffix string
		unit   sim.Time
	}{{"ns", sim.Nanosecond}, {"us", sim.Microsecond}, {"ms", sim.Millisecond}}
	for _, u := range units {
		if v, ok := strings.CutSuffix(a, u.suffix); ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x <= 0 || x > 1e9 {
				break
			}
			return sim.Time(x * float64(u.unit)), nil
		}
	}
	return 0, fmt.Errorf("duration %q: a positive number of ns, us or ms (10us)", a)
}

// settle refreshes the watchpoints' bytes after a run that did not check
// them.
func (s *session) settle() {
	for _, p := range s.points {
		if p.watch {
			p.old, _ = s.c.Nodes[p.node].Board.CPU().Mem.Read(p.addr, p.len)
		}
	}
}

func (s *session) fail(err error) {
	s.err = err
	s.printf("[the cluster stopped: %v]\n", err)
}

// tick advances the cluster to the next cycle of the board furthest
// behind: no board executes more than one instruction.
func (s *session) tick() error {
	T := sim.Never
	for _, n := range s.c.Nodes {
		if t := n.Board.Clock().Time(n.Board.CPU().Cycles + 1); t < T {
			T = t
		}
	}
	if T <= s.c.Now() {
		T = s.c.Now() + 1
	}
	return s.c.Run(min(T, max(s.end, s.c.Now()+1)))
}

// resume runs the cluster tick by tick until a breakpoint or watchpoint
// (or temp) is reached, the selected node has executed steps
// instructions (steps > 0, each shown), the workloads are done, or the
// scenario's end.
func (s *session) resume(steps int, temp *dpoint) {
	cpus := make([]uint64, len(s.c.Nodes)) // instructions executed when the command began
	for i, n := range s.c.Nodes {
		cpus[i] = n.Board.CPU().Instret
	}
	d := s.dbg[s.cur]
	cur := s.c.Nodes[s.cur].Board.CPU()
	done := 0
	wasDone := s.sc.done(s.res)
	for {
		pc, before, began := cur.PC, cur.Instret, cur.Cycles
		if err := s.tick(); err != nil {
			s.fail(err)
			return
		}
		if steps > 0 && cur.Instret != before {
			done++
			s.printf("  [%s] node %d %s\n", us(s.c.Nodes[s.cur].Board.Clock().Time(began)), s.cur, strings.TrimSpace(d.InstLine(pc, "")))
			if done >= steps {
				s.stopped("", nil)
				return
			}
		}
		// The workloads may end in the tick that reaches a point: say so
		// before the stop, or it is never said.
		justDone := !wasDone && s.sc.done(s.res)
		if p := s.hit(cpus, temp); p != nil {
			if justDone {
				s.printf("[the workloads are done at %s]\n", us(s.c.Now()))
			}
			p.hits++
			switch {
			case p == temp:
				s.stopped("", nil)
			case p.watch:
				s.stopped(fmt.Sprintf("Watchpoint %d", p.id), p)
			default:
				s.stopped(fmt.Sprintf("Breakpoint %d", p.id), p)
			}
			return
		}
		if justDone {
			s.printf("[the workloads are done at %s]\n", us(s.c.Now()))
			return
		}
		if s.c.Now() >= s.end {
			s.finished = true
			s.printf("[the scenario's end at %s]\n", us(s.c.Now()))
			return
		}
	}
}

// hit finds a point reached in the last tick: a breakpoint whose node is
// at its address (and has executed an instruction since the command
// began, so that continue leaves a breakpoint it stopped at), or a
// watchpoint whose bytes changed (the bytes of every watchpoint are
// refreshed).
func (s *session) hit(start []uint64, temp *dpoint) *dpoint {
	var found *dpoint
	for _, p := range s.points {
		cpu := s.c.Nodes[p.node].Board.CPU()
		if p.watch {
			b, _ := cpu.Mem.Read(p.addr, p.len)
			if string(b) != string(p.old) {
				if found == nil {
					found = p
					p.what = fmt.Sprintf("% x -> % x", p.old, b)
				}
				p.old = b
			}
			continue
		}
		if found == nil && cpu.PC == p.addr && cpu.Instret != start[p.node] {
			found = p
		}
	}
	if found == nil && temp != nil {
		cpu := s.c.Nodes[temp.node].Board.CPU()
		if cpu.PC == temp.addr && cpu.Instret != start[temp.node] {
			found = temp
		}
	}
	return found
}

// stopped reports a stop: the point (if any), the time, and the
// instruction about to execute on the point's node (or the selected one).
func (s *session) stopped(title string, p *dpoint) {
	node := s.cur
	if p != nil {
		node = p.node
	}
	n := s.c.Nodes[node]
	cpu := n.Board.CPU()
	d := s.dbg[node]
	if title != "" {
		s.printf("%s, node %d, at %s (cycle %d)", title, node, us(s.c.Now()), cpu.Cycles)
		if p.watch {
			s.printf(": %d bytes at %s", p.len, d.Describe(p.addr))
		}
		s.printf("\n")
		if p.watch {
			s.printf("  changed: %s\n", p.what)
			p.what = d.Describe(p.addr)
		}
	} else {
		s.printf("node %d at %s (cycle %d)\n", node, us(s.c.Now()), cpu.Cycles)
	}
	s.printf("%s\n", d.InstLine(cpu.PC, "=>"))
}

func (s *session) showTime() {
	s.printf("time %s (%s since the workloads started)", us(s.c.Now()), us(s.c.Now()-s.t0))
	for _, n := range s.c.Nodes {
		s.printf("; node %d cycle %d", n.ID, n.Board.CPU().Cycles)
	}
	s.printf("\n")
}

func (s *session) cmdHostX(args []string) {
	if len(args) < 1 || len(args) > 2 {
		s.errorf("usage: hostx ADDR [N]")
		return
	}
	a32, err := s.dbg[s.cur].Eval(args[0])
	if err != nil {
		s.errorf("hostx: %v", err)
		return
	}
	a := uint64(a32)
	n := uint64(8)
	if len(args) == 2 {
		if n, err = strconv.ParseUint(args[1], 0, 16); err != nil || n == 0 || n > 1024 {
			s.errorf("hostx: count %q: 1..1024", args[1])
			return
		}
	}
	buf := make([]byte, 4*n)
	if err := s.c.Nodes[s.cur].Mem.Read(a, buf); err != nil {
		s.errorf("hostx: %v", err)
		return
	}
	for i := uint64(0); i < n; i += 4 {
		s.printf("host 0x%08x:", a+4*i)
		for j := i; j < i+4 && j < n; j++ {
			s.printf(" %08x", uint32(buf[4*j])<<24|uint32(buf[4*j+1])<<16|uint32(buf[4*j+2])<<8|uint32(buf[4*j+3]))
		}
		s.printf("\n")
	}
}

func (s *session) showResult() {
	for i, w := range s.res.Workloads {
		s.printf("workloads[%d] %s: done %v", i, w.Kind, w.Done)
		if w.LatencyUS != 0 {
			s.printf(", one-way latency %.3f us", w.LatencyUS)
		}
		if w.MBps != 0 {
			s.printf(", %d bytes at %.3f MB/s", w.Bytes, w.MBps)
		}
		s.printf("\n")
	}
}
