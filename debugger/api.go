package debugger

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"lanaiemu/isa"
	"lanaiemu/lanai"
	"lanaiemu/memsys"
)

// The programmatic interface, for a front end other than the prompt (the
// Debug Adapter Protocol server, package dap): it runs the target and
// manages points as the commands do, and says why the target stopped.

// Stop says why a command that ran the target stopped.
type Stop struct {
	// Reason is one of "breakpoint", "data breakpoint", "step", "pause",
	// "exited", "end", "event", "budget", "failed".
	Reason string
	// Thread is the thread that stopped (the point's, or the one the
	// command was about).
	Thread int
	// Point is the breakpoint's or watchpoint's number (0: none).
	Point int
	// Exit is the program's exit code when Reason is "exited".
	Exit uint32
	// Text is the event's or the failure's text.
	Text string
	// Cycle is the thread's cycle count at the stop, and Time (for a
	// cluster) the simulated time, in the form FormatTime gives.
	Cycle uint64
	Time  string
}

// stopOf describes an outcome.
func (d *Debugger) stopOf(o outcome) Stop {
	s := Stop{Thread: o.thread, Cycle: d.cpuOf(o.thread).Cycles}
	if d.timed != nil {
		s.Time = FormatTime(d.timed.Now())
	} else {
		c := d.cpuOf(o.thread)
		s.Time = FormatSeconds(c.Seconds(c.Cycles))
	}
	if o.point != nil {
		s.Point = o.point.id
	}
	switch o.kind {
	case stopGoal:
		s.Reason = "step"
	case stopBreak:
		s.Reason = "breakpoint"
		if o.condErr != nil {
			s.Text = o.condErr.Error()
		}
	case stopWatch:
		s.Reason = "data breakpoint"
		if o.condErr != nil {
			s.Text = o.condErr.Error()
		}
	case stopInterrupt:
		s.Reason = "pause"
	case stopBudget:
		s.Reason = "budget"
	case stopFail:
		s.Reason, s.Text = "failed", o.err.Error()
	case stopEvent:
		s.Reason, s.Text = "event", o.event.Text
	case stopEnd:
		s.Reason, s.Text = "end", o.event.Text
		if st := o.event.Exit; st != nil {
			s.Reason, s.Exit = "exited", st.Code
			if st.Kind != 0 && st.Trap != nil {
				s.Reason, s.Text = "end", st.Trap.Report()
			}
		}
	}
	return s
}

// Threads gives the target's threads.
func (d *Debugger) Threads() []*Thread { return d.threads }

// Continue runs the target until a point, an end or an interrupt; the
// stop is written to the transcript and returned.
func (d *Debugger) Continue(th int) (Stop, error) {
	return d.runAPI(func() outcome { return d.resume(goal{thread: th}) })
}

// StepInstruction runs thread th for one instruction (the others advance
// with it).
func (d *Debugger) StepInstruction(th int) (Stop, error) {
	return d.runAPI(func() outcome { return d.resume(goal{thread: th, steps: 1}) })
}

// NextInstruction is StepInstruction with a call run as one step.
func (d *Debugger) NextInstruction(th int) (Stop, error) {
	return d.runAPI(func() outcome {
		cur := d.cur
		d.cur = th
		defer func() { d.cur = cur }()
		return d.next(1)
	})
}

// StepLine runs thread th until its pc reaches the first instruction of a
// different source line (over calls when over is set; into them
// otherwise), or a point stops it.
func (d *Debugger) StepLine(th int, over bool) (Stop, error) {
	return d.runAPI(func() outcome { return d.stepLine(th, over) })
}

// stepLine runs thread th to the next source line.
func (d *Debugger) stepLine(th int, over bool) outcome {
	cur := d.cur
	d.cur = th
	defer func() { d.cur = cur }()
	p, c := d.threads[th].Program, d.cpuOf(th)
	start, ok := p.lineBefore(c.PC)
	for i := 0; ; i++ {
		var o outcome
		if over {
			o = d.next(1)
		} else {
			o = d.resume(goal{thread: th, steps: 1})
		}
		if o.kind != stopGoal || !ok || i >= 1<<20 {
			return o
		}
		if d.interrupt.Load() {
			return outcome{kind: stopInterrupt, thread: th}
		}
		if e, at := p.lineAt(c.PC); at && (e.Line != start.Line || e.File != start.File) {
			return o
		}
	}
}

// StepOut runs thread th until its function returns to its caller.
func (d *Debugger) StepOut(th int) (Stop, error) {
	c, p := d.cpuOf(th), d.threads[th].Program
	f := Frame{PC: c.PC, SP: c.Reg(isa.SP), FP: c.Reg(isa.FP), Func: p.funcName(c.PC)}
	caller, ok, err := p.caller(c, f, true)
	if err == nil && !ok {
		err = fmt.Errorf("%s has no caller", f.Func)
	}
	if err != nil {
		return Stop{}, err
	}
	return d.runAPI(func() outcome {
		return d.resume(goal{thread: th, at: true, addr: caller.PC, cond: func() bool { return c.Reg(isa.SP) >= caller.SP }})
	})
}

// runAPI checks that the target can run, runs it and reports the stop.
func (d *Debugger) runAPI(run func() outcome) (Stop, error) {
	if over, why := d.Over(); over {
		if why == "" {
			why = "the program has ended"
		}
		return Stop{}, fmt.Errorf("%s", why)
	}
	o := run()
	d.writeReport(o)
	return d.stopOf(o), nil
}

// Location resolves LOC as break does (FILE:LINE through the line table,
// or an address expression) in the selected thread, and describes it.
func (d *Debugger) Location(loc string) (addr uint32, what string, err error) {
	return d.location(loc)
}

// Eval evaluates an address expression in the selected thread.
func (d *Debugger) Eval(expr string) (uint32, error) { return d.eval(expr) }

// Value evaluates an expression in the selected thread and says whether
// it is a value ([ ], comparisons, ...) rather than an address (terms, +
// and -), whose word a front end shows.
func (d *Debugger) Value(expr string) (v uint32, isValue bool, err error) { return d.evalKind(expr) }

// Describe gives an address of the selected thread's program with its
// symbol and source position: "0x00001234 <name+0x4> at file.s:12".
func (d *Debugger) Describe(a uint32) string { return d.p().describe(a) }

// InstLine shows the instruction at pc of the selected thread as disas
// does, after mark.
func (d *Debugger) InstLine(pc uint32, mark string) string { return d.instLine(pc, mark) }

// Describe gives an address with its symbol and source position.
func (p *Program) Describe(a uint32) string { return p.describe(a) }

// Label gives "name+0xoff" for an address inside the image, or "".
func (p *Program) Label(a uint32) string { return p.label(a) }

// LineAt gives the source line of the instruction at pc.
func (p *Program) LineAt(pc uint32) (file string, line int, ok bool) {
	e, ok := p.lineAt(pc)
	if !ok {
		e, ok = p.lineBefore(pc)
	}
	return e.File, e.Line, ok
}

// LineAddr gives the first instruction of FILE:LINE (or of the first line
// after it with code).
func (p *Program) LineAddr(file string, line int) (uint32, int, error) {
	e, err := p.lineAddr(file, line)
	return e.Addr, e.Line, err
}

// FuncName names the function or routine holding pc.
func (p *Program) FuncName(pc uint32) string { return p.funcName(pc) }

// Symbols is the image's symbol index (the nearest label of an address),
// which names routines and labels addresses here.
func (p *Program) Symbols() *lanai.Symbols { return p.syms }

// Disassemble gives the instruction text of the word w at pc.
func (p *Program) Disassemble(pc, w uint32) string { return asmText(p, pc, w) }

// Files gives the source files the line table names, in order of first
// appearance.
func (p *Program) Files() []string {
	seen := map[string]bool{}
	var files []string
	for _, table := range p.lineTables() {
		for _, e := range table {
			if e.File != "" && !seen[e.File] {
				seen[e.File] = true
				files = append(files, e.File)
			}
		}
	}
	return files
}

// SourcePath gives the path under which a source file of the line table
// can be opened (as list finds it: as recorded, else under SourceDirs), or
// "" when it cannot be found.
func (d *Debugger) SourcePath(name string) string {
	for _, p := range d.sourceTries(name) {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
			return p
		}
	}
	return ""
}

// IsCommand reports whether name is a command (or an alias) of this
// debugger.
func (d *Debugger) IsCommand(name string) bool {
	name, _, _ = strings.Cut(name, "/")
	_, ok := d.lookup(name)
	return ok
}

// ReadRegister gives a register (r0..r31 or a name: sp, rca, pc), npc,
// flags, or a special register (ISR) of thread th by name.
func (d *Debugger) ReadRegister(th int, name string) (uint32, bool) {
	c := d.cpuOf(th)
	name = strings.TrimLeft(name, "%$")
	switch strings.ToLower(name) {
	case "npc":
		return c.NPC, true
	case "flags":
		return uint32(c.Flags), true
	}
	if r, ok := regByName(name); ok {
		return c.Reg(r), true
	}
	if sr, ok := memsys.SpecialByName(strings.ToUpper(name)); ok {
		v, err := c.Mem.Specials.Peek(sr.Off)
		return v, err == nil
	}
	return 0, false
}

// WriteRegister sets a register of thread th (r1..r31 by name or number;
// pc moves the core to the address: pc and npc together).
func (d *Debugger) WriteRegister(th int, name string, v uint32) error {
	c := d.cpuOf(th)
	r, ok := regByName(strings.TrimLeft(name, "%$"))
	switch {
	case !ok:
		return fmt.Errorf("no register %q", name)
	case r == isa.PC:
		c.Jump(v)
	case r == isa.R0 || r == isa.R1:
		return fmt.Errorf("%s is a constant", r)
	default:
		c.SetReg(r, v)
	}
	return nil
}

// Interrupted reports whether Interrupt was called since the last
// command began.
func (d *Debugger) Interrupted() bool { return d.interrupt.Load() }
