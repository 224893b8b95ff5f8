// Package debugger is the LANai emulator's debugger, one core for every
// front end: it runs a Target (one core by itself, Core; or several cores
// that advance with the rest of a cluster on one timeline, such as
// netvm/run's DebugSession) and stops it between two ticks, so that every
// thread is seen at one instant. It has breakpoints (at addresses, symbols
// and FILE:LINE through lanai-as's line table or clang's DWARF one),
// with conditions, hit counts and logpoints (cond.go) in one expression
// language (expr.go), watchpoints, stepping by instruction and by source line, over calls and
// out of functions by the program's frame convention (ABIClang,
// ABINetVM), memory and register inspection, disassembly, source listing,
// a history of executed instructions and (for a lone core) tracing.
//
// Two clients: the line-oriented commands (New or NewTarget make a
// debugger writing its transcript to an io.Writer, Exec runs one command,
// Script and Interact read them from a reader; cmd/lanai-emu's "debug" and
// netvm run --debug-script are thin wrappers; docs/emulator.md), and the
// programmatic interface of api.go (Continue, StepLine, SetBreakpoint,
// ...), which package dap serves to editors.
//
// Each thread has its program (a cluster's nodes can run different
// firmware): symbols, lines, stacks and disassembly of a thread come from
// its own, and a location is resolved per thread (Places), at each one's
// address, the qualifiers compiled against each one's program: break and
// log set a breakpoint in the selected thread, or, when its program lacks
// the location, in every thread whose program has it; package dap sets
// one in every thread whose program has it.
//
// How a lone core runs: when no watchpoint is set and tracing is off,
// "continue", "next", "until" and "finish" run it on its fast path
// (lanai.CPU.Run) with temporary breakpoints at the places they wait for;
// otherwise, and for "step", the debugger executes one instruction at a
// time (lanai.CPU.Step), checking watchpoints after every store. A cluster
// always advances tick by tick. The history of executed instructions is
// complete only for instructions executed one at a time; a fast run
// appears in it as one entry giving the number of instructions it
// executed.
package debugger

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"

	"lanaiemu/lanai"
	"lanaiemu/memsys"
)

// DefaultMaxCycles is the cycle budget of one command that runs the
// program when Debugger.MaxCycles is zero.
const DefaultMaxCycles = 10_000_000_000

// HistorySize is how many executed instructions "history" remembers.
const HistorySize = 64

// Prompt is what Interact and Script print before each command.
const Prompt = "(lanai) "

// Debugger debugs a Target: one core, or a cluster's cores on one
// timeline. One thread (core) is selected; the commands look at it.
type Debugger struct {
	// MaxCycles bounds every command that runs the program: it stops once
	// the selected core has run this many cycles (the program can be
	// continued). Zero means DefaultMaxCycles.
	MaxCycles uint64
	// SourceDirs are searched, in order, for source files of the line
	// table that cannot be opened under the name the table records (first
	// as that relative name, then by base name).
	SourceDirs []string

	target  Target
	threads []*Thread
	core    *Core // the target when it is one core by itself (fast path, trace)
	timed   Timed // the target when its threads share a time (a cluster)
	extra   []Command
	cur     int // the selected thread
	hist    []history

	points []*point // breakpoints and watchpoints, by number
	nextID int
	// pending are the breakpoints other threads reached in the instant a
	// run stopped (run.go), reported by the next commands that run.
	pending []pendingStop

	finished  *Event // the event that ended the run
	failed    error  // the target failed: nothing more can run
	interrupt atomic.Bool
	errs      int

	// OnStop, if set, is called after every command that ran the target,
	// with why it stopped (for a front end such as the DAP adapter).
	OnStop func(Stop)

	out      io.Writer
	last     string // the last command, repeated by an empty line in Interact
	rest     string // the running command's arguments as written (log's message)
	prevCmd  string // the name of the command before the one running
	lastCmd  string // the name of the command running (or last run)
	xNext    uint32 // where a bare "x" continues
	xSet     bool
	listFile string // where a bare "list" continues
	listNext int
	sources  map[string][]string
}

// history is a thread's executed instructions, a ring.
type history struct {
	ent      [HistorySize]histEntry
	len, pos int
}

// point is a breakpoint or a watchpoint of one thread.
type point struct {
	id     int
	thread int
	watch  bool
	addr   uint32
	len    uint32 // watched bytes
	hits   int
	what   string // how the user wrote the location, resolved
	old    []byte // the watched bytes, to show what a store changed

	// A breakpoint's qualifiers (cond.go): it stops only when cond is
	// non-zero and the hit count (the times it was reached with cond
	// holding) passes hitCond; a logpoint (log set) prints its message
	// there instead of stopping.
	cond     value
	condText string
	hitCond  hitCond
	log      []logPart
	logText  string
}

// histEntry is an executed instruction, or (gap > 0) a stretch of gap
// instructions run at full speed and not recorded one by one.
type histEntry struct {
	pc  uint32
	gap uint64
}

// New makes a debugger for the program img loaded into cpu, running by
// itself (img may be nil or lack symbols and a line table; commands that
// need them say so). The debugger's transcript (command results, stops,
// traces) goes to out.
func New(cpu *lanai.CPU, img *memsys.Image, out io.Writer) *Debugger {
	if img == nil {
		img = &memsys.Image{Entry: cpu.PC}
	}
	return NewTarget(NewCore(cpu, NewProgram(img)), out)
}

// NewTarget makes a debugger for a target, its first thread selected.
func NewTarget(t Target, out io.Writer) *Debugger {
	d := &Debugger{target: t, threads: t.Threads(), out: out, nextID: 1, sources: map[string][]string{}}
	d.hist = make([]history, len(d.threads))
	d.core, _ = t.(*Core)
	d.timed, _ = t.(Timed)
	if e, ok := t.(Extender); ok {
		d.extra = e.Commands()
	}
	return d
}

// th is the selected thread; cpu its core; p its program.
func (d *Debugger) th() *Thread            { return d.threads[d.cur] }
func (d *Debugger) cpu() *lanai.CPU        { return d.threads[d.cur].CPU }
func (d *Debugger) p() *Program            { return d.threads[d.cur].Program }
func (d *Debugger) cpuOf(i int) *lanai.CPU { return d.threads[i].CPU }

// Target gives the target being debugged.
func (d *Debugger) Target() Target { return d.target }

// Selected gives the selected thread's number.
func (d *Debugger) Selected() int { return d.cur }

// Select selects thread i.
func (d *Debugger) Select(i int) error {
	if i < 0 || i >= len(d.threads) {
		return fmt.Errorf("threads are 0..%d", len(d.threads)-1)
	}
	d.cur = i
	return nil
}

// Errors is the number of commands that failed (bad syntax, unknown
// symbols, running a program that has ended, ...).
func (d *Debugger) Errors() int { return d.errs }

// Interrupt makes the command that is running the program stop soon (for
// a SIGINT handler); it is safe to call from another goroutine.
func (d *Debugger) Interrupt() { d.interrupt.Store(true) }

// Finished gives the exit or trap that ended a lone core's program, or
// nil while it can run (or when the target is not a lone core).
func (d *Debugger) Finished() *lanai.Stop {
	if d.finished == nil {
		return nil
	}
	return d.finished.Exit
}

// Over reports whether the target can run no more, and why.
func (d *Debugger) Over() (bool, string) {
	switch {
	case d.failed != nil:
		return true, d.failed.Error()
	case d.finished != nil:
		return true, d.finished.Why
	}
	return false, ""
}

// Failed gives the error that ended the session (the target failed), or nil.
func (d *Debugger) Failed() error { return d.failed }

// Intro writes a line about the program being debugged.
func (d *Debugger) Intro(name string) {
	p := d.p()
	lt := "no line table"
	if len(p.lines) > 0 {
		lt = fmt.Sprintf("line table of %d entries", len(p.lines))
	}
	if len(p.clines) > 0 {
		lt += fmt.Sprintf(", DWARF line table of %d rows", len(p.clines))
	}
	fmt.Fprintf(d.out, "lanai-emu debugger: %s, entry %s, %d symbols, %s. Type \"help\" for commands.\n",
		name, p.addrName(p.img.Entry), len(p.named), lt)
}

// Script executes the commands of a script, one a line, writing each after
// the prompt before running it, until "quit" or the end of the script.
// Blank lines and lines starting with '#' are skipped. It reports whether
// the script ended with "quit".
func (d *Debugger) Script(r io.Reader) (quit bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fmt.Fprintf(d.out, "%s%s\n", Prompt, line)
		if d.Exec(line) || d.failed != nil {
			return true
		}
	}
	if err := sc.Err(); err != nil { // a line over MaxLine, or a read error
		d.errorf("reading the script: %v (a line may hold at most %d bytes)", err, MaxLine)
	}
	return false
}

// MaxLine is the longest command line a script or the prompt may give.
const MaxLine = 1 << 20

// Interact reads commands from r, printing the prompt before each, until
// "quit" or the end of input. An empty line repeats the previous command
// when that was step, next, x or list. With echo, each command read is
// written after the prompt (for input that is not a terminal, which would
// have echoed it).
func (d *Debugger) Interact(r io.Reader, echo bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	for {
		fmt.Fprint(d.out, Prompt)
		if !sc.Scan() {
			fmt.Fprintln(d.out)
			if err := sc.Err(); err != nil {
				d.errorf("reading commands: %v (a line may hold at most %d bytes)", err, MaxLine)
			}
			return
		}
		line := strings.TrimSpace(sc.Text())
		if echo {
			fmt.Fprintln(d.out, line)
		}
		if line == "" {
			switch f := strings.Fields(d.last); {
			case len(f) == 0:
				continue
			case f[0] == "list" || f[0] == "l":
				line = "list"
			case f[0] == "x" || strings.HasPrefix(f[0], "x/"):
				line = "x"
			default:
				line = d.last
			}
		}
		if d.Exec(line) {
			return
		}
	}
}

// Exec executes one command line and reports whether it was "quit". Errors
// are written to the transcript as "error: ..." lines and counted.
func (d *Debugger) Exec(line string) (quit bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			d.errorf("internal error executing %q: %v", line, r)
		}
	}()
	fields := strings.Fields(line)
	name, args := fields[0], fields[1:]
	d.rest = strings.TrimSpace(line[len(name):])
	count := ""
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name, count = name[:i], name[i+1:]
	}
	cmd, ok := d.lookup(name)
	if !ok {
		d.errorf("unknown command %q; type \"help\" for the list", name)
		return false
	}
	if count != "" && cmd.name != "x" {
		d.errorf("%s takes no /N suffix", cmd.name)
		return false
	}
	d.prevCmd, d.lastCmd = d.lastCmd, cmd.name
	repeatable := cmd.name == "step" || cmd.name == "next" || cmd.name == "x" || cmd.name == "list"
	if repeatable {
		d.last = line
	} else {
		d.last = ""
	}
	if cmd.name == "quit" {
		return true
	}
	if cmd.name == "x" {
		d.cmdX(count, args)
		return false
	}
	cmd.run(d, args)
	return false
}

// Errorf reports a failed command (for a Target's commands).
func (d *Debugger) Errorf(format string, args ...any) { d.errorf(format, args...) }

// Printf writes to the transcript (for a Target's commands).
func (d *Debugger) Printf(format string, args ...any) { d.printf(format, args...) }

// errorf reports a failed command.
func (d *Debugger) errorf(format string, args ...any) {
	d.errs++
	fmt.Fprintf(d.out, "error: "+format+"\n", args...)
}

// printf writes to the transcript.
func (d *Debugger) printf(format string, args ...any) {
	fmt.Fprintf(d.out, format, args...)
}

// InterruptOnSignal makes SIGINT (Ctrl-C) interrupt the running command
// (Interrupt) instead of ending the process, until stop is called: for a
// front end at a terminal (lanai-emu debug, lanai-sim debug).
func (d *Debugger) InterruptOnSignal() (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sig:
				d.Interrupt()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}
