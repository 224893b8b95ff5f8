package debugger

import (
	"lanaiemu/lanai"
	"lanaiemu/sim"
)

// Target is what a Debugger runs and looks at: one core by itself (Core),
// or several cores that advance on one timeline with whatever else shares
// it (a cluster of boards and hosts: netvm/run's clusterTarget). The
// debugger stops a target only between two Ticks, so every thread is seen
// at one instant.
type Target interface {
	// Threads gives the cores, one per thread, in a fixed order.
	Threads() []*Thread
	// Tick advances the target by its smallest step, in which no core
	// executes more than one instruction. It returns an event when
	// something the user must hear of happened (the program's exit, the
	// scenario's end), nil otherwise; an error ends the session.
	Tick() (*Event, error)
}

// Timed is a Target whose threads share a simulated time (a cluster):
// the debugger names the thread and the time in every stop.
type Timed interface {
	Target
	// Now is the simulated time.
	Now() sim.Time
	// ThreadTime is the time of a thread's cycle count.
	ThreadTime(thread int, cycle uint64) sim.Time
}

// Haltable is a Timed target whose cores can stop for good while the
// others run on (a lanai-sim node's exit or trap): a stopped core's cycle
// count no longer moves, so the debugger does not wait for it to catch up
// after a stop.
type Haltable interface {
	// Halted reports whether thread i's core has stopped for good.
	Halted(i int) bool
}

// Extender is a Target with commands of its own (the cluster's wait,
// time, hostx, ...), listed by help after the debugger's.
type Extender interface {
	Commands() []Command
}

// Command is a command a Target adds.
type Command struct {
	Name    string
	Aliases []string
	Usage   string
	Help    string
	Run     func(d *Debugger, args []string)
}

// Thread is one core of a target and the program it runs.
type Thread struct {
	// Name names the thread in stops ("node 1"); "" for a lone core.
	Name string
	CPU  *lanai.CPU
	// Program is the image the core runs: symbols, line table, frames.
	Program *Program
}

// Event is something that happened during a Tick.
type Event struct {
	// Text is what the transcript says ("[the scenario's end at ...]").
	Text string
	// End is set when the target can run no further: Exit is the core's
	// exit or trap (a lone core), Why the reason a command to run is
	// refused from now on.
	End  bool
	Exit *lanai.Stop
	Why  string
}

// Core is the Target of one core running by itself: a Tick is one
// instruction, and the debugger runs it on its fast path (lanai.CPU.Run)
// when nothing needs every instruction.
type Core struct {
	thread  [1]*Thread
	tracer  *lanai.Tracer
	restart func() (*lanai.CPU, error)
	quiet   func(bool)
}

// NewCore makes the target of one core running the program img (img may
// be nil or lack symbols and a line table).
func NewCore(cpu *lanai.CPU, img *Program) *Core {
	return &Core{thread: [1]*Thread{{Name: "core", CPU: cpu, Program: img}}}
}

// Threads gives the one core.
func (c *Core) Threads() []*Thread { return c.thread[:] }

// Tick executes one instruction (traced when tracing is on).
func (c *Core) Tick() (*Event, error) {
	cpu := c.thread[0].CPU
	var st *lanai.Stop
	if c.tracer != nil {
		st = cpu.RunTraced(1, c.tracer)
	} else {
		st = cpu.Step()
	}
	if st != nil && (st.Kind == lanai.StopExit || st.Kind == lanai.StopTrap) {
		return &Event{End: true, Exit: st}, nil
	}
	return nil, nil
}

// Restartable lets a lone core run backwards: Restart makes a fresh core
// with the program loaded, as at the start (the emulator is deterministic,
// so running it forward again reproduces every state), and Quiet, if set,
// silences the program's console while the debugger replays.
func (c *Core) Restartable(restart func() (*lanai.CPU, error), quiet func(bool)) {
	c.restart, c.quiet = restart, quiet
}
