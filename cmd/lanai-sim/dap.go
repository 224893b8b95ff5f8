package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"lanaiemu/dap"
	"lanaiemu/debugger"
	"lanaiemu/lanai"
	"lanaiemu/scenario"
	"lanaiemu/sim"
)

// simTarget is a lanai-sim scenario's boards under the debugger: each
// node's core is a thread; a tick runs the world to the next cycle of the
// running board furthest behind (no board executes more than one
// instruction), as netvm/run's cluster debugger does.
type simTarget struct {
	w       *scenario.World
	until   sim.Time
	threads []*debugger.Thread
	said    []bool // a node's exit or trap was reported
}

func (t *simTarget) Threads() []*debugger.Thread { return t.threads }

// Halted reports whether node i has exited or trapped.
func (t *simTarget) Halted(i int) bool { return t.w.W.Nodes[i].Stop != nil }

func (t *simTarget) Now() sim.Time { return t.w.W.Now() }

func (t *simTarget) ThreadTime(i int, cycle uint64) sim.Time {
	return t.w.Boards[i].Clock().Time(cycle)
}

// Tick advances the world; it reports the nodes that exited or trapped in
// it, and the end: the time limit, every node stopped, or a host script's
// failure. The node that stops last and the end are one event, so that a
// normal end is reported as such, once.
func (t *simTarget) Tick() (*debugger.Event, error) {
	w := t.w
	T := w.W.NextCycle()
	now := w.W.Now()
	if T <= now {
		T = now + 1
	}
	err := w.W.Run(min(T, max(t.until, now+1)))
	w.FlushConsole(false)
	var said []string
	for i, n := range w.W.Nodes {
		if n.Stop != nil && !t.said[i] {
			t.said[i] = true
			what := fmt.Sprintf("exited with code %#x", n.Stop.Code)
			if n.Stop.Kind == lanai.StopTrap {
				what = "trapped: " + n.Stop.Trap.Reason
			}
			at := t.ThreadTime(i, n.Board.CPU().Cycles) // its own instant: the tick may end before its exit store does
			said = append(said, fmt.Sprintf("[node %d %s at %s]", i, what, debugger.FormatTime(at)))
		}
	}
	if err != nil && !w.W.Running() {
		err = nil // a trap stops the world with an error; it was reported above
	}
	if err != nil {
		return nil, err
	}
	var ev *debugger.Event
	switch {
	case w.HostErr() != nil:
		ev = t.end(fmt.Sprintf("a host script failed: %v", w.HostErr()))
	case w.HostsDone():
		ev = t.end("every host script done")
	case !w.W.Running():
		ev = t.end(t.stops())
	case w.W.Now() >= t.until:
		ev = t.end("the time limit")
	case len(said) > 0:
		ev = &debugger.Event{}
	default:
		return nil, nil
	}
	ev.Text = strings.Join(append(said, ev.Text), "\n")
	ev.Text = strings.TrimSuffix(ev.Text, "\n")
	return ev, nil
}

// stops says how every node stopped: "node 0 exited 100, node 1 exited 0".
func (t *simTarget) stops() string {
	var parts []string
	for i, n := range t.w.W.Nodes {
		switch {
		case n.Stop == nil:
			parts = append(parts, fmt.Sprintf("node %d running", i))
		case n.Stop.Kind == lanai.StopTrap:
			parts = append(parts, fmt.Sprintf("node %d trapped", i))
		default:
			parts = append(parts, fmt.Sprintf("node %d exited %d", i, n.Stop.Code))
		}
	}
	return strings.Join(parts, ", ")
}

// end is the event of the run's end; why says what ended it.
func (t *simTarget) end(why string) *debugger.Event {
	t.w.FlushConsole(true)
	return &debugger.Event{End: true, Text: fmt.Sprintf("[the run is over at %s: %s]", debugger.FormatTime(t.w.W.Now()), why),
		Why: "the run is over (" + why + ")"}
}

// simArgs are the launch request's arguments.
type simArgs struct {
	Scenario string `json:"scenario"`
	Cwd      string `json:"cwd"`
	// ABI is the firmware's frame convention: "clang" (default) or "netvm".
	ABI string `json:"abi"`
}

// simLauncher builds the launch request's scenario for the debugger.
func simLauncher(raw json.RawMessage, console, transcript io.Writer) (*dap.Session, error) {
	var a simArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("launch arguments: %v", err)
	}
	if a.Scenario == "" {
		return nil, fmt.Errorf("launch: \"scenario\" must name a lanai-sim scenario file")
	}
	path := a.Scenario
	if !filepath.IsAbs(path) && a.Cwd != "" {
		path = filepath.Join(a.Cwd, path)
	}
	d, w, err := newSimDebugger(path, a.ABI, console, transcript)
	if err != nil {
		return nil, err
	}
	if a.Cwd != "" {
		d.SourceDirs = append(d.SourceDirs, a.Cwd)
	}
	return &dap.Session{
		Debugger: d,
		Devices:  func(th int) []dap.Var { return dap.BoardVars(w.Boards[th]) },
		Finish:   func() (int, string) { return w.Status(), finishLine(w) },
	}, nil
}

// newSimDebugger loads and builds the scenario at path and makes the
// debugger over its boards (each node's core a thread, node 0 selected),
// writing its transcript to transcript and the nodes' consoles to
// console. abi is the firmware's frame convention: "clang" (or "") or
// "netvm". The scenario's directory is searched for source files.
func newSimDebugger(path, abi string, console, transcript io.Writer) (*debugger.Debugger, *scenario.World, error) {
	frames := debugger.ABIClang
	switch abi {
	case "", "clang":
	case "netvm":
		frames = debugger.ABINetVM
	default:
		return nil, nil, fmt.Errorf("abi %q: clang or netvm", abi)
	}
	s, err := scenario.Load(path)
	if err != nil {
		return nil, nil, err
	}
	w, err := s.Build()
	if err != nil {
		return nil, nil, err
	}
	w.SetConsole(console)
	t := &simTarget{w: w, until: sim.Time(s.Time), said: make([]bool, len(w.Boards))}
	for i, b := range w.Boards {
		p := debugger.NewProgram(w.Images[i])
		p.ABI = frames
		t.threads = append(t.threads, &debugger.Thread{Name: fmt.Sprintf("node %d", i), CPU: b.CPU(), Program: p})
	}
	d := debugger.NewTarget(t, transcript)
	d.SourceDirs = []string{filepath.Dir(path)}
	return d, w, nil
}

// finishLine is the line that ends a debugged run: how it ended and when.
func finishLine(w *scenario.World) string {
	what := statusName(w.Status())
	switch {
	case w.Status() != scenario.StatusOK:
	case w.HostsDone():
		what = "every host script done"
	case w.W.Running(): // stop: time
		what = "the time limit, no trap"
	}
	return fmt.Sprintf("lanai-sim: %s at %s\n", what, debugger.FormatTime(w.W.Now()))
}

// statusName names an exit status of the run.
func statusName(st int) string {
	switch st {
	case scenario.StatusOK:
		return "every node done"
	case scenario.StatusNonZero:
		return "a node exited with a non-zero code"
	case scenario.StatusTrap:
		return "a node trapped"
	case scenario.StatusTimeLimit:
		return "the time limit, with a node still running"
	}
	return fmt.Sprintf("status %d", st)
}

// dapUsage is lanai-sim dap's synopsis, for -h and a stray argument.
const dapUsage = "usage: lanai-sim dap [--listen ADDR]   (the scenario is the launch request's \"scenario\"; docs/debugging.md)\n"

// dapCmd serves the Debug Adapter Protocol for lanai-sim scenarios.
func dapCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lanai-sim dap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, dapUsage+"\nFlags of dap:\n"); fs.PrintDefaults() }
	listen := fs.String("listen", "", "serve one client on this TCP `address` (host:port) instead of standard input and output")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return scenario.StatusUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprint(stderr, dapUsage)
		return scenario.StatusUsage
	}
	var err error
	if *listen != "" {
		err = dap.ListenAndServe(*listen, simLauncher, func(addr string) { fmt.Fprintf(stderr, "lanai-sim dap: listening on %s\n", addr) })
	} else {
		err = dap.Serve(stdin, stdout, simLauncher)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lanai-sim dap: %v\n", err)
		return 1
	}
	return 0
}
