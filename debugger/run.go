package debugger

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"lanaiemu/lanai"
	"lanaiemu/sim"
)

// fastChunk is how many cycles a fast run executes between checks for an
// interrupt.
const fastChunk = 1 << 24

// goal says where a command that runs the program wants to stop (besides
// breakpoints, watchpoints, the end of the program and the cycle budget).
type goal struct {
	thread int         // the thread the goal is about
	steps  int         // stop after it has executed this many instructions (0: no limit)
	show   bool        // show each of those instructions (a cluster's step)
	at     bool        // stop when its pc reaches addr ...
	addr   uint32      //
	cond   func() bool // ... and cond holds (nil: always)
}

// stopKind says why a command that ran the program stopped.
type stopKind int

const (
	stopGoal  stopKind = iota
	stopEnd            // the target can run no more (exit, trap, the scenario's end)
	stopEvent          // the target reported something (the workloads are done)
	stopBreak
	stopWatch
	stopBudget
	stopInterrupt
	stopFail // the target failed
)

// outcome is why a run stopped.
type outcome struct {
	kind    stopKind
	thread  int
	event   *Event
	err     error
	point   *point
	condErr error  // the breakpoint's condition could not be evaluated
	byStore bool   // a watchpoint hit by the core's own store ...
	storePC uint32 // ... at this pc
	stAddr  uint32
	stSize  uint8
	old     []byte
}

// budget is the cycle limit of one command.
func (d *Debugger) budget() uint64 {
	if d.MaxCycles != 0 {
		return d.MaxCycles
	}
	return DefaultMaxCycles
}

// running checks that the program can run, and says so if not.
func (d *Debugger) running() bool {
	if d.failed != nil {
		d.errorf("the run failed (%v); nothing to run", d.failed)
		return false
	}
	ev := d.finished
	if ev == nil {
		return true
	}
	switch {
	case ev.Exit != nil && ev.Exit.Kind == lanai.StopExit:
		d.errorf("the program has exited (code %#x); nothing to run", ev.Exit.Code)
	case ev.Exit != nil:
		d.errorf("the program has trapped; nothing to run")
	default:
		d.errorf("%s", ev.Why)
	}
	return false
}

// resume runs the target toward g and returns why it stopped. A lone core
// runs on its fast path unless watchpoints or tracing need every
// instruction, or g counts instructions; otherwise the target advances
// tick by tick, the points checked after each.
func (d *Debugger) resume(g goal) outcome {
	d.interrupt.Store(false)
	c := d.cpuOf(g.thread)
	limit := c.Cycles + d.budget()
	if limit < c.Cycles {
		limit = ^uint64(0)
	}
	if o, ok := d.takePending(); ok {
		return o
	}
	start := make([]uint64, len(d.threads))
	for i, t := range d.threads {
		start[i] = t.CPU.Instret
	}
	var o outcome
	if d.core != nil && g.steps == 0 && d.core.tracer == nil && !d.hasWatch() {
		o = d.runFast(g, limit, start)
	} else {
		o, _ = d.ticks(g, limit, start, 0)
	}
	o.thread = g.thread
	if o.point != nil {
		o.thread = o.point.thread
	}
	return o
}

// ticks advances the target tick by tick (at most maxTicks; 0: no
// limit), checking after each the end of the program, the watchpoints
// (a store by the core, or any change of the bytes, by DMA or the host),
// the breakpoints of the threads that have executed an instruction since
// the command began (start), and the goal. It reports whether to stop.
func (d *Debugger) ticks(g goal, limit uint64, start []uint64, maxTicks int) (outcome, bool) {
	n := len(d.threads)
	pcs, instr, stores := make([]uint32, n), make([]uint64, n), make([]uint64, n)
	c := d.cpuOf(g.thread)
	done := 0
	for k := 1; maxTicks == 0 || k <= maxTicks; k++ {
		if c.Cycles >= limit {
			return outcome{kind: stopBudget}, true
		}
		if k&1023 == 0 && d.interrupt.Load() {
			return outcome{kind: stopInterrupt}, true
		}
		ev, err := d.tick(g, pcs, instr, stores)
		if err != nil {
			return outcome{kind: stopFail, err: err}, true
		}
		if ev != nil && ev.End {
			return outcome{kind: stopEnd, event: ev}, true
		}
		if o, hit := d.hit(start, instr, stores, pcs); hit {
			if ev != nil { // it happened in this tick too: said before the stop, or never
				d.printf("%s\n", ev.Text)
			}
			pinned := o.point.thread // its core stopped at the breakpoint or made the store
			if o.kind == stopWatch && !o.byStore {
				pinned = -1 // a DMA or host write: no core must stay where it is
			}
			d.align(pinned, start)
			return o, true
		}
		if c.Instret != instr[g.thread] {
			done++
		}
		if g.steps > 0 && done >= g.steps || g.at && c.PC == g.addr && c.Instret != start[g.thread] && (g.cond == nil || g.cond()) {
			d.align(g.thread, start)
			return outcome{kind: stopGoal}, true
		}
		if ev != nil {
			d.align(-1, start)
			return outcome{kind: stopEvent, event: ev}, true
		}
	}
	return outcome{}, false
}

// tick advances the target by one tick, remembering each thread's pc,
// instruction count and store count before it, recording the history,
// and showing the goal thread's instruction when the goal asks.
func (d *Debugger) tick(g goal, pcs []uint32, instr, stores []uint64) (*Event, error) {
	for i, t := range d.threads {
		pcs[i], instr[i] = t.CPU.PC, t.CPU.Instret
		_, _, stores[i] = t.CPU.LastStore()
	}
	c := d.cpuOf(g.thread)
	began := c.Cycles
	ev, err := d.target.Tick()
	if err != nil {
		return nil, err
	}
	for i, t := range d.threads {
		if t.CPU.Instret != instr[i] {
			d.record(i, histEntry{pc: pcs[i]})
		}
	}
	if g.show && c.Instret != instr[g.thread] {
		d.printf("  [%s] %s %s\n", FormatTime(d.timed.ThreadTime(g.thread, began)), d.threads[g.thread].Name,
			strings.TrimSpace(d.instLineOf(g.thread, pcs[g.thread], "")))
	}
	return ev, nil
}

// maxAlign bounds the ticks run to align the boards after a stop.
const maxAlign = 16

// align runs a cluster on after a stop until every board is at one
// cycle, when that can be done without moving the pinned thread's core
// (the one at a breakpoint, that made a watched store or that a step was
// about; -1: none): a tick advances only the boards furthest behind, so
// the pinned core stays while some other is behind it. (Boards differ by
// a cycle or two when a tick ends inside one board's multi-cycle
// instruction.) It gives up when another point is reached (that board is
// left there), when the target reports something, or after maxAlign
// ticks.
func (d *Debugger) align(pinned int, start []uint64) {
	if d.timed == nil {
		return
	}
	n := len(d.threads)
	pcs, instr, stores := make([]uint32, n), make([]uint64, n), make([]uint64, n)
	for i := 0; i < maxAlign && !d.aligned(); i++ {
		if pinned >= 0 {
			low := d.cpuOf(pinned).Cycles
			for j, t := range d.threads {
				if !d.halted(j) {
					low = min(low, t.CPU.Cycles)
				}
			}
			if d.cpuOf(pinned).Cycles == low {
				return // the pinned core is furthest behind of those that run: it would move
			}
			for j := range d.threads {
				if d.pended(j) && d.cpuOf(j).Cycles == low {
					return // as would a core at a pending stop
				}
			}
		}
		ev, err := d.tick(goal{thread: max(pinned, 0)}, pcs, instr, stores)
		if err != nil {
			d.failed = err
			return
		}
		if ev != nil { // said now, before the stop it follows
			d.printf("%s\n", ev.Text)
			if ev.End {
				d.finished = ev
			}
			return
		}
		if o, hit := d.hit(start, instr, stores, pcs); hit {
			d.pend(o)
			return
		}
	}
}

// pendingStop is a stop that was not reported when it happened: a
// breakpoint another thread reached in the instant the run stopped, or a
// point reached while the boards were aligned after it.
type pendingStop struct {
	o       outcome
	instret uint64 // its thread's instruction count then
}

// pend keeps a stop for the next command that runs the target.
func (d *Debugger) pend(o outcome) {
	o.thread = o.point.thread
	d.pending = append(d.pending, pendingStop{o, d.cpuOf(o.thread).Instret})
}

// pended reports whether thread th has a pending stop.
func (d *Debugger) pended(th int) bool {
	for _, ps := range d.pending {
		if ps.o.thread == th {
			return true
		}
	}
	return false
}

// takePending gives the first pending stop that still holds: its point is
// still set and its thread has not run since (gdb's pending events: two
// boards that reach breakpoints in one instant stop twice, the second
// time without running). The others are dropped once the target runs.
func (d *Debugger) takePending() (outcome, bool) {
	for len(d.pending) > 0 {
		ps := d.pending[0]
		d.pending = d.pending[1:]
		if d.cpuOf(ps.o.thread).Instret == ps.instret && slices.Contains(d.points, ps.o.point) {
			return ps.o, true
		}
	}
	return outcome{}, false
}

// aligned reports whether every running thread's core is at the same
// cycle.
func (d *Debugger) aligned() bool {
	at, some := uint64(0), false
	for i, t := range d.threads {
		switch {
		case d.halted(i):
		case !some:
			at, some = t.CPU.Cycles, true
		case t.CPU.Cycles != at:
			return false
		}
	}
	return true
}

// halted reports whether thread i's core has stopped for good (Haltable).
func (d *Debugger) halted(i int) bool {
	h, ok := d.target.(Haltable)
	return ok && h.Halted(i)
}

// hit finds the first point (in the order they were set) that stops the
// run in the last tick: a watchpoint whose bytes a store of its core
// touched or that changed (every watchpoint's bytes are refreshed), or a
// breakpoint whose core has arrived at its address in the tick (it
// executed an instruction, or its pc moved) and has executed one since
// the command began, and that its qualifiers let stop (reach). Every
// logpoint reached prints. The breakpoints other threads reached in the
// tick are looked at too, and the first that stops each is kept pending
// (takePending); a thread's breakpoints after the one that stops it are
// not looked at.
func (d *Debugger) hit(start, instr, stores []uint64, pcs []uint32) (outcome, bool) {
	var o outcome
	found := false
	for _, p := range d.points {
		c := d.cpuOf(p.thread)
		if !p.watch {
			arrived := c.PC == p.addr && c.Instret != start[p.thread] && (c.Instret != instr[p.thread] || c.PC != pcs[p.thread])
			stopped := found && o.point.thread == p.thread || d.pended(p.thread)
			if arrived && (!stopped || p.log != nil) {
				if stop, err := d.reach(p); stop && !found {
					o, found = outcome{kind: stopBreak, point: p, condErr: err}, true
				} else if stop {
					d.pend(outcome{kind: stopBreak, point: p, condErr: err})
				}
			}
			continue
		}
		a, size, cnt := c.LastStore()
		byStore := cnt != stores[p.thread] && uint64(a) < uint64(p.addr)+uint64(p.len) && uint64(p.addr) < uint64(a)+uint64(size)
		// A lone core's SRAM changes only by its stores; in a cluster DMA
		// and the host write too, so the bytes are compared (in place).
		// Its qualifiers are looked at after the change (reach), as a
		// breakpoint's are on arrival.
		if byStore || d.core == nil && !bytes.Equal(d.watched(p), p.old) {
			old := p.old
			p.old = d.snapshot(p)
			if !found {
				if stop, err := d.reach(p); stop {
					o, found = outcome{kind: stopWatch, point: p, byStore: byStore, storePC: pcs[p.thread], stAddr: a, stSize: size, old: old, condErr: err}, true
				}
			}
		}
	}
	return o, found
}

// runFast runs a lone core: the first instruction alone (it may sit under
// a breakpoint), then the core's fast path with a temporary breakpoint at
// the goal, stepping past the goal's address when its condition does not
// hold yet.
func (d *Debugger) runFast(g goal, limit uint64, start []uint64) outcome {
	c := d.cpuOf(0)
	if g.at && d.breakAt(0, g.addr) == nil {
		c.SetBreakpoint(g.addr, true)
		defer func() {
			if d.breakAt(0, g.addr) == nil {
				c.SetBreakpoint(g.addr, false)
			}
		}()
	}
	for {
		if o, stop := d.ticks(g, limit, start, 1); stop {
			return o
		}
		if d.interrupt.Load() { // breakpoints that do not stop may keep the fast path from its interrupt checks
			return outcome{kind: stopInterrupt}
		}
		began := c.Instret
		for {
			if c.Cycles >= limit {
				d.recordGap(0, c.Instret-began)
				return outcome{kind: stopBudget}
			}
			st := c.Run(min(limit-c.Cycles, fastChunk))
			if st.Kind == lanai.StopCycleLimit {
				if d.interrupt.Load() {
					d.recordGap(0, c.Instret-began)
					return outcome{kind: stopInterrupt}
				}
				continue
			}
			d.recordGap(0, c.Instret-began)
			if st.Kind != lanai.StopBreakpoint {
				return outcome{kind: stopEnd, event: &Event{End: true, Exit: st}}
			}
			if c.Instret == began {
				break // where the tick before stopped: looked at there; step past it
			}
			if o, stop := d.reachAll(c.PC); stop {
				return o
			}
			if g.at && c.PC == g.addr && (g.cond == nil || g.cond()) {
				return outcome{kind: stopGoal}
			}
			break // the goal's address, but not its condition, or breakpoints that do not stop: step past them
		}
	}
}

// reachAll looks at a lone core's breakpoints at pc, which its fast path
// has stopped at, in the order they were set (reach): every logpoint
// prints, the first breakpoint that stops stops the run.
func (d *Debugger) reachAll(pc uint32) (outcome, bool) {
	var o outcome
	found := false
	for _, p := range d.points {
		if p.watch || p.thread != 0 || p.addr != pc || found && p.log == nil {
			continue
		}
		if stop, err := d.reach(p); stop {
			o, found = outcome{kind: stopBreak, point: p, condErr: err}, true
		}
	}
	return o, found
}

// record adds an executed instruction to a thread's history.
func (d *Debugger) record(th int, e histEntry) {
	h := &d.hist[th]
	h.ent[h.pos] = e
	h.pos = (h.pos + 1) % HistorySize
	if h.len < HistorySize {
		h.len++
	}
}

// recordGap notes n instructions run at full speed.
func (d *Debugger) recordGap(th int, n uint64) {
	if n > 0 {
		d.record(th, histEntry{gap: n})
	}
}

// FormatTime formats a simulated time in microseconds with nanosecond
// digits, as the cluster's stops show it.
func FormatTime(t sim.Time) string {
	return fmt.Sprintf("%.3f us", float64(t)/float64(sim.Microsecond))
}

// where names a thread at the present instant in a cluster's stop:
// "node 1, at 5624.940 us (cycle 748117)".
func (d *Debugger) where(th int, comma string) string {
	c := d.cpuOf(th)
	return fmt.Sprintf("%s%s at %s (cycle %d)", d.threads[th].Name, comma, FormatTime(d.timed.Now()), c.Cycles)
}

// report writes why a run stopped and where the program is, and tells
// OnStop. A breakpoint, watchpoint or goal (until in another node's
// program) of another thread than the selected one selects its thread
// first, saying so as gdb does ("[Switching to node 1]"), so that bt,
// list and print look at the node that stopped.
func (d *Debugger) report(o outcome) {
	if (o.kind == stopBreak || o.kind == stopWatch || o.kind == stopGoal) && o.thread != d.cur {
		d.cur = o.thread
		d.printf("[Switching to %s]\n", d.threads[o.thread].Name)
	}
	d.writeReport(o)
	if d.OnStop != nil {
		d.OnStop(d.stopOf(o))
	}
}

func (d *Debugger) writeReport(o outcome) {
	c := d.cpuOf(o.thread)
	p := d.threads[o.thread].Program
	switch o.kind {
	case stopFail:
		d.failed = o.err
		d.printf("[the run failed: %v]\n", o.err)
		return
	case stopEvent:
		d.printf("%s\n", o.event.Text)
		return
	case stopEnd:
		d.finished = o.event
		st := o.event.Exit
		if st == nil {
			d.printf("%s\n", o.event.Text)
			return
		}
		switch st.Kind {
		case lanai.StopExit:
			d.printf("[program exited with code %#x (%d) after %d instructions, %d cycles]\n",
				st.Code, int32(st.Code), c.Instret, c.Cycles)
		case lanai.StopTrap:
			t := st.Trap
			d.printf("[program trapped at %s]\n%s", p.describe(t.PC), t.Report())
		default:
			d.printf("[program stopped: %s]\n", st.Kind)
			d.finished = nil
		}
		return
	case stopBreak:
		if d.timed != nil {
			d.printf("Breakpoint %d, %s\n", o.point.id, d.where(o.thread, ","))
		} else {
			d.printf("Breakpoint %d, %s\n", o.point.id, p.describe(c.PC))
		}
		if o.condErr != nil {
			d.errorf("%v", o.condErr)
		}
	case stopWatch:
		pt := o.point
		switch {
		case d.timed != nil:
			d.printf("Watchpoint %d, %s: %d bytes at %s\n  changed: % x -> % x\n", pt.id, d.where(o.thread, ","), pt.len, p.describe(pt.addr), o.old, pt.old)
		case o.byStore:
			d.printf("Watchpoint %d: %d-byte store to %s by %s\n", pt.id, o.stSize, p.addrName(o.stAddr), p.addrName(o.storePC))
			if o.old != nil && pt.old != nil {
				d.printf("  old: % x\n  new: % x\n", o.old, pt.old)
			}
		default:
			d.printf("Watchpoint %d: %d bytes at %s changed\n  old: % x\n  new: % x\n", pt.id, pt.len, p.addrName(pt.addr), o.old, pt.old)
		}
		if o.condErr != nil {
			d.errorf("%v", o.condErr)
		}
	case stopBudget:
		d.printf("[stopped: the command's cycle budget of %d cycles is used up; continue to go on]\n", d.budget())
	case stopInterrupt:
		d.printf("[interrupted]\n")
	case stopGoal:
		if d.timed != nil {
			d.printf("%s\n", d.where(o.thread, ""))
		}
	}
	d.printf("%s\n", d.instLineOf(o.thread, c.PC, "=>"))
}

// breakAt gives thread th's breakpoint at pc, or nil.
func (d *Debugger) breakAt(th int, pc uint32) *point {
	for _, p := range d.points {
		if !p.watch && p.thread == th && p.addr == pc {
			return p
		}
	}
	return nil
}

// hasWatch reports whether a watchpoint is set.
func (d *Debugger) hasWatch() bool {
	for _, p := range d.points {
		if p.watch {
			return true
		}
	}
	return false
}

// watched gives the watched bytes in place (nil outside SRAM).
func (d *Debugger) watched(p *point) []byte {
	m := d.cpuOf(p.thread).Mem
	if !m.InSRAM(p.addr, p.len) {
		return nil
	}
	return m.SRAM[p.addr : p.addr+p.len]
}

// snapshot copies the watched bytes (nil outside SRAM).
func (d *Debugger) snapshot(p *point) []byte {
	b, err := d.cpuOf(p.thread).Mem.Read(p.addr, p.len)
	if err != nil {
		return nil
	}
	return b
}

// RefreshWatches reads every watchpoint's bytes again, after the target
// ran without the debugger looking (a cluster's wait).
func (d *Debugger) RefreshWatches() {
	for _, p := range d.points {
		if p.watch {
			p.old = d.snapshot(p)
		}
	}
}

// End marks the run as over (a Target's command ran it to its end).
func (d *Debugger) End(ev *Event) { d.finished = ev }
