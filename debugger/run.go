package debugger

import (
	"fmt"

	"lanaiemu/isa"
	"lanaiemu/lanai"
)

// fastChunk is how many cycles a fast run executes between checks for an
// interrupt.
const fastChunk = 1 << 24

// goal says where a command that runs the program wants to stop (besides
// breakpoints, watchpoints, the end of the program and the cycle budget).
type goal struct {
	steps int         // stop after this many instructions (0: no limit)
	at    bool        // stop when pc reaches addr ...
	addr  uint32      //
	cond  func() bool // ... and cond holds (nil: always)
}

// stopKind says why a command that ran the program stopped.
type stopKind int

const (
	stopGoal stopKind = iota
	stopEnd           // exit or trap
	stopBreak
	stopWatch
	stopBudget
	stopInterrupt
)

// outcome is why a run stopped.
type outcome struct {
	kind    stopKind
	end     *lanai.Stop
	point   *point
	storePC uint32 // the store that hit a watchpoint
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
	if st := d.finished; st != nil {
		if st.Kind == lanai.StopExit {
			d.errorf("the program has exited (code %#x); nothing to run", st.Code)
		} else {
			d.errorf("the program has trapped; nothing to run")
		}
		return false
	}
	return true
}

// resume runs the program toward g and returns why it stopped. It runs on
// the core's fast path unless watchpoints or tracing need every
// instruction, or g counts instructions.
func (d *Debugger) resume(g goal) outcome {
	d.interrupt.Store(false)
	c := d.cpu
	limit := c.Cycles + d.budget()
	if limit < c.Cycles {
		limit = ^uint64(0)
	}
	if g.steps > 0 || d.tracer != nil || d.hasWatch() {
		return d.runSlow(g, limit)
	}
	return d.runFast(g, limit)
}

// stepOne executes one instruction, recording it in the history and
// tracing it when tracing is on.
func (d *Debugger) stepOne() *lanai.Stop {
	d.record(histEntry{pc: d.cpu.PC})
	if d.tracer != nil {
		st := d.cpu.RunTraced(1, d.tracer)
		if st.Kind == lanai.StopCycleLimit {
			return &lanai.Stop{Kind: lanai.StopStep}
		}
		return st
	}
	return d.cpu.Step()
}

// after checks the state after one instruction executed (from pc, with
// the store count before it): the end of the program, watchpoints,
// breakpoints and the goal. It reports whether to stop.
func (d *Debugger) after(st *lanai.Stop, pc uint32, stores uint64, g goal, n int) (outcome, bool) {
	c := d.cpu
	if st.Kind == lanai.StopExit || st.Kind == lanai.StopTrap {
		return outcome{kind: stopEnd, end: st}, true
	}
	if a, size, cnt := c.LastStore(); cnt != stores {
		for _, p := range d.points {
			if p.watch && uint64(a) < uint64(p.addr)+uint64(p.len) && uint64(p.addr) < uint64(a)+uint64(size) {
				old := p.old
				p.old = d.snapshot(p)
				p.hits++
				return outcome{kind: stopWatch, point: p, storePC: pc, stAddr: a, stSize: size, old: old}, true
			}
		}
	}
	if p := d.breakAt(c.PC); p != nil {
		p.hits++
		return outcome{kind: stopBreak, point: p}, true
	}
	if g.steps > 0 && n >= g.steps {
		return outcome{kind: stopGoal}, true
	}
	if g.at && c.PC == g.addr && (g.cond == nil || g.cond()) {
		return outcome{kind: stopGoal}, true
	}
	return outcome{}, false
}

// runSlow executes one instruction at a time.
func (d *Debugger) runSlow(g goal, limit uint64) outcome {
	c := d.cpu
	for n := 1; ; n++ {
		if c.Cycles >= limit {
			return outcome{kind: stopBudget}
		}
		if n&1023 == 0 && d.interrupt.Load() {
			return outcome{kind: stopInterrupt}
		}
		pc := c.PC
		_, _, stores := c.LastStore()
		if o, stop := d.after(d.stepOne(), pc, stores, g, n); stop {
			return o
		}
	}
}

// runFast executes the first instruction alone (it may sit under a
// breakpoint), then runs the core's fast path with a temporary breakpoint
// at the goal, stepping past the goal's address when its condition does
// not hold yet.
func (d *Debugger) runFast(g goal, limit uint64) outcome {
	c := d.cpu
	if g.at && d.breakAt(g.addr) == nil {
		c.SetBreakpoint(g.addr, true)
		defer func() {
			if d.breakAt(g.addr) == nil {
				c.SetBreakpoint(g.addr, false)
			}
		}()
	}
	for {
		pc := c.PC
		_, _, stores := c.LastStore()
		if o, stop := d.after(d.stepOne(), pc, stores, g, 1); stop {
			return o
		}
		start := c.Instret
		for {
			if c.Cycles >= limit {
				d.recordGap(c.Instret - start)
				return outcome{kind: stopBudget}
			}
			st := c.Run(min(limit-c.Cycles, fastChunk))
			if st.Kind == lanai.StopCycleLimit {
				if d.interrupt.Load() {
					d.recordGap(c.Instret - start)
					return outcome{kind: stopInterrupt}
				}
				continue
			}
			d.recordGap(c.Instret - start)
			if st.Kind != lanai.StopBreakpoint {
				return outcome{kind: stopEnd, end: st}
			}
			if p := d.breakAt(c.PC); p != nil {
				p.hits++
				return outcome{kind: stopBreak, point: p}
			}
			if g.at && c.PC == g.addr && (g.cond == nil || g.cond()) {
				return outcome{kind: stopGoal}
			}
			break // the goal's address, but not its condition: step past it
		}
	}
}

// record adds an executed instruction to the history.
func (d *Debugger) record(e histEntry) {
	d.hist[d.histPos] = e
	d.histPos = (d.histPos + 1) % HistorySize
	if d.histLen < HistorySize {
		d.histLen++
	}
}

// recordGap notes n instructions run at full speed.
func (d *Debugger) recordGap(n uint64) {
	if n > 0 {
		d.record(histEntry{gap: n})
	}
}

// report writes why a run stopped and where the program is.
func (d *Debugger) report(o outcome) {
	c := d.cpu
	switch o.kind {
	case stopEnd:
		d.finished = o.end
		switch o.end.Kind {
		case lanai.StopExit:
			d.printf("[program exited with code %#x (%d) after %d instructions, %d cycles]\n",
				o.end.Code, int32(o.end.Code), c.Instret, c.Cycles)
		case lanai.StopTrap:
			t := o.end.Trap
			where := d.describe(t.PC)
			d.printf("[program trapped at %s]\n%s", where, t.Report())
		default:
			d.printf("[program stopped: %s]\n", o.end.Kind)
			d.finished = nil
		}
		return
	case stopBreak:
		d.printf("Breakpoint %d, %s\n", o.point.id, d.describe(c.PC))
	case stopWatch:
		p := o.point
		d.printf("Watchpoint %d: %d-byte store to %s by %s\n", p.id, o.stSize, d.addrName(o.stAddr), d.addrName(o.storePC))
		if o.old != nil && p.old != nil {
			d.printf("  old: % x\n  new: % x\n", o.old, p.old)
		}
	case stopBudget:
		d.printf("[stopped: the command's cycle budget of %d cycles is used up; continue to go on]\n", d.budget())
	case stopInterrupt:
		d.printf("[interrupted]\n")
	}
	d.printf("%s\n", d.instLine(c.PC, "=>"))
}

// breakAt gives the breakpoint at pc, or nil.
func (d *Debugger) breakAt(pc uint32) *point {
	for _, p := range d.points {
		if !p.watch && p.addr == pc {
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

// snapshot copies the watched bytes (nil outside SRAM).
func (d *Debugger) snapshot(p *point) []byte {
	b, err := d.cpu.Mem.Read(p.addr, p.len)
	if err != nil {
		return nil
	}
	return b
}

// callReturn recognises a call at pc and gives where it returns: at the
// first instruction of clang's call sequence, "add %pc, K, %rca", the
// return point is pc+K; at a control transfer (a branch or a write to pc)
// while rca holds pc+8 (which that add set), it is pc+8.
func (d *Debugger) callReturn(pc uint32) (uint32, bool) {
	w, err := d.cpu.Mem.Word(pc)
	if err != nil {
		return 0, false
	}
	in := isa.Decode(w)
	if in.Class == isa.RI && in.ALU == isa.Add && !in.F && in.Rs1 == isa.PC && in.Rd == isa.RCA {
		return pc + in.Imm, true
	}
	transfer := false
	switch in.Class {
	case isa.BR, isa.BRR:
		transfer = in.Cond != isa.CondF
	case isa.RI, isa.RR, isa.Special:
		transfer = in.Rd == isa.PC
	}
	if transfer && d.cpu.Reg(isa.RCA) == pc+8 {
		return pc + 8, true
	}
	return 0, false
}

// frame describes the function executing at pc, following the frame clang
// sets up: the caller pushes the return address ("st %rca, [--%sp]"), and
// the callee's prologue is "st %fp, [--%sp]; add %sp, 8, %fp", after which
// the return address is at -4[%fp], the caller's fp at -8[%fp], and the
// caller's sp after the return equals fp. Before the prologue has run (pc
// at the function's first or second instruction) the two words are found
// from sp instead. It gives the return address, the caller's sp after the
// return and the caller's fp.
func (d *Debugger) frame(pc, sp, fp uint32) (ra, callerSP, callerFP uint32, err error) {
	word := func(a uint32) (uint32, error) {
		v, err := d.cpu.Mem.Word(a)
		if err != nil {
			return 0, fmt.Errorf("cannot read the frame at %#08x: %v", a, err)
		}
		return v, nil
	}
	f, ok := d.funcAt(pc)
	if ok && f.name == "_start" {
		return 0, 0, 0, fmt.Errorf("%s is the program's entry: it has no caller", f.name)
	}
	switch {
	case ok && pc == f.addr:
		ra, err = word(sp)
		return ra, sp + 4, fp, err
	case ok && pc == f.addr+4 && d.isPushFP(f.addr):
		if ra, err = word(sp + 4); err != nil {
			return
		}
		callerFP, err = word(sp)
		return ra, sp + 8, callerFP, err
	}
	if ra, err = word(fp - 4); err != nil {
		return
	}
	callerFP, err = word(fp - 8)
	return ra, fp, callerFP, err
}

// isPushFP reports whether the instruction at a is "st %fp, [--%sp]".
func (d *Debugger) isPushFP(a uint32) bool {
	w, err := d.cpu.Mem.Word(a)
	if err != nil {
		return false
	}
	in := isa.Decode(w)
	return in.Class == isa.RM && in.Store && in.Rd == isa.FP && in.Rs1 == isa.SP && in.Mode == isa.ModePre && int32(in.Imm) == -4
}
