// Package debugger is the LANai emulator's debugger: a line-oriented
// command interpreter over a lanai.CPU and the image loaded into it, with
// breakpoints (at addresses, symbols and file:line through the executable's
// line table), watchpoints, stepping over calls, running to the end of the
// current function, memory and register inspection, disassembly, source
// listing, a history of executed instructions and per-instruction tracing.
//
// The debugger needs no terminal: New makes one writing its transcript to an
// io.Writer, Exec runs one command, and Script and Interact read commands
// from a reader (cmd/lanai-emu's "debug" subcommand is a thin wrapper).
// docs/emulator.md describes the commands.
//
// How the program runs: when no watchpoint is set and tracing is off,
// "continue", "next", "until" and "finish" run the core on its fast path
// (lanai.CPU.Run) with temporary breakpoints at the places they wait for;
// otherwise, and for "step", the debugger executes one instruction at a
// time (lanai.CPU.Step), checking watchpoints after every store. The
// history of executed instructions is complete only for instructions
// executed one at a time; a fast run appears in it as one entry giving the
// number of instructions it executed.
package debugger

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"

	"lanaiemu/lanai"
	"lanaiemu/memsys"
	"lanaiemu/objfile"
)

// DefaultMaxCycles is the cycle budget of one command that runs the
// program when Debugger.MaxCycles is zero.
const DefaultMaxCycles = 10_000_000_000

// HistorySize is how many executed instructions "history" remembers.
const HistorySize = 64

// Prompt is what Interact and Script print before each command.
const Prompt = "(lanai) "

// Debugger debugs one program loaded into a core.
type Debugger struct {
	// MaxCycles bounds every command that runs the program: it stops once
	// this many cycles have passed (the program can be continued). Zero
	// means DefaultMaxCycles.
	MaxCycles uint64
	// SourceDirs are searched, in order, for source files of the line
	// table that cannot be opened under the name the table records (first
	// as that relative name, then by base name).
	SourceDirs []string

	cpu    *lanai.CPU
	img    *memsys.Image
	out    io.Writer
	syms   *lanai.Symbols
	named  []symbol            // defined, named symbols by address (no .L labels)
	labels []symbol            // one symbol per address, the best name, for labels
	funcs  []symbol            // function symbols by address
	lines  []objfile.LineEntry // the line table by address
	imgEnd uint32              // end of the loaded sections (symbol labels stop here)

	points []*point // breakpoints and watchpoints, by number
	nextID int

	hist    [HistorySize]histEntry
	histLen int
	histPos int

	tracer    *lanai.Tracer
	finished  *lanai.Stop // the exit or trap that ended the program
	interrupt atomic.Bool
	errs      int

	last     string // the last command, repeated by an empty line in Interact
	prevCmd  string // the name of the command before the one running
	lastCmd  string // the name of the command running (or last run)
	xNext    uint32 // where a bare "x" continues
	xSet     bool
	listFile string // where a bare "list" continues
	listNext int
	sources  map[string][]string
}

// symbol is a named address of the image.
type symbol struct {
	addr, size uint32
	name       string
	fn         bool
	rank       int // which name labels an address: functions, data objects, other globals, other locals
}

// point is a breakpoint or a watchpoint.
type point struct {
	id    int
	watch bool
	addr  uint32
	len   uint32 // watched bytes
	hits  int
	what  string // how the user wrote the location, resolved
	old   []byte // the watched bytes, to show what a store changed
}

// histEntry is an executed instruction, or (gap > 0) a stretch of gap
// instructions run at full speed and not recorded one by one.
type histEntry struct {
	pc  uint32
	gap uint64
}

// New makes a debugger for the program img loaded into cpu (img may be nil
// or lack symbols and a line table; commands that need them say so). The
// debugger's transcript (command results, stops, traces) goes to out.
func New(cpu *lanai.CPU, img *memsys.Image, out io.Writer) *Debugger {
	d := &Debugger{cpu: cpu, img: img, out: out, nextID: 1, sources: map[string][]string{}}
	if img == nil {
		img = &memsys.Image{Entry: cpu.PC}
		d.img = img
	}
	d.syms = lanai.NewSymbols(img.Symbols)
	for _, s := range img.Symbols {
		if s.Name == "" || s.Type == objfile.STT_SECTION || s.Type == objfile.STT_FILE || s.IsUndefined() || s.IsCommon() || strings.HasPrefix(s.Name, ".L") {
			continue
		}
		sym := symbol{addr: s.Value, size: s.Size, name: s.Name, fn: s.Type == objfile.STT_FUNC, rank: 3}
		switch {
		case sym.fn:
			sym.rank = 0
		case s.Type == objfile.STT_OBJECT:
			sym.rank = 1
		case s.Bind != objfile.STB_LOCAL:
			sym.rank = 2
		}
		d.named = append(d.named, sym)
		if sym.fn {
			d.funcs = append(d.funcs, sym)
		}
	}
	sort.SliceStable(d.named, func(i, j int) bool { return d.named[i].addr < d.named[j].addr })
	sort.SliceStable(d.funcs, func(i, j int) bool { return d.funcs[i].addr < d.funcs[j].addr })
	for _, s := range d.named {
		if n := len(d.labels); n > 0 && d.labels[n-1].addr == s.addr {
			if s.rank < d.labels[n-1].rank {
				d.labels[n-1] = s
			}
			continue
		}
		d.labels = append(d.labels, s)
	}
	if img.File != nil {
		if ls, err := img.File.Lines(); err == nil {
			d.lines = ls
		}
		for _, s := range img.File.Sections {
			if s.Flags&objfile.SHF_ALLOC != 0 || img.File.Format == objfile.FormatCOFF {
				if end := s.Addr + s.Size; end > d.imgEnd && end >= s.Addr {
					d.imgEnd = end
				}
			}
		}
	}
	sort.SliceStable(d.lines, func(i, j int) bool { return d.lines[i].Addr < d.lines[j].Addr })
	return d
}

// Errors is the number of commands that failed (bad syntax, unknown
// symbols, running a program that has ended, ...).
func (d *Debugger) Errors() int { return d.errs }

// Interrupt makes the command that is running the program stop soon (for
// a SIGINT handler); it is safe to call from another goroutine.
func (d *Debugger) Interrupt() { d.interrupt.Store(true) }

// Finished gives the exit or trap that ended the program, or nil while it
// can run.
func (d *Debugger) Finished() *lanai.Stop { return d.finished }

// Intro writes a line about the program being debugged.
func (d *Debugger) Intro(name string) {
	lt := "no line table"
	if len(d.lines) > 0 {
		lt = fmt.Sprintf("line table of %d entries", len(d.lines))
	}
	fmt.Fprintf(d.out, "lanai-emu debugger: %s, entry %s, %d symbols, %s. Type \"help\" for commands.\n",
		name, d.addrName(d.img.Entry), len(d.named), lt)
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
		if d.Exec(line) {
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
	count := ""
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name, count = name[:i], name[i+1:]
	}
	cmd, ok := lookupCommand(name)
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

// errorf reports a failed command.
func (d *Debugger) errorf(format string, args ...any) {
	d.errs++
	fmt.Fprintf(d.out, "error: "+format+"\n", args...)
}

// printf writes to the transcript.
func (d *Debugger) printf(format string, args ...any) {
	fmt.Fprintf(d.out, format, args...)
}
