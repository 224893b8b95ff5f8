// Package node runs several LANai boards on one Myrinet fabric on one
// deterministic timeline (docs/timeline.md, docs/links.md).
//
// A World advances in steps. Every step starts with all running nodes and
// the shared sim.Queue at the same time S and ends at
//
//	T = min(S + step, next shared-queue event, every link's NextSync, until)
//
// where step is the quantum Q <= fabric.MinLatency(). Each node's core runs
// up to the first cycle at or after T (Clock.Cycles(T)), in node-id order;
// then the shared queue runs every fabric event up to T. Deliveries and
// send completions become node-local cycle events. Because the queue's
// events mark step ends, a fabric event at time t is handled with every
// node stopped at t: packet timing is exact. While every node is idle in a
// skipped polling loop (few instructions, no link activity) the step grows
// geometrically up to Config.MaxIdleStep; a node that sends during such a
// grown step more than Q after its start is counted in Stats.LateRisk
// (its packet may reach a node that already ran past its arrival).
//
// With Config.Jobs > 1 the boards of an ordinary step with work enough run
// on several goroutines, with the serial step's decisions and results
// (crew.go).
package node

import (
	"errors"
	"fmt"
	"math/bits"

	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/lanai"
	"lanaiemu/sim"
)

// Config configures a World.
type Config struct {
	// Quantum is the base step Q (0: the fabric's MinLatency). It must not
	// exceed MinLatency.
	Quantum sim.Time
	// MaxIdleStep bounds the grown step while all nodes idle (0:
	// DefaultMaxIdleStep; Quantum or less disables growth).
	MaxIdleStep sim.Time
	// IdleInstructions is the most instructions a node may execute in a
	// step and still count as idle (0: DefaultIdleInstructions).
	IdleInstructions uint64
	// Jobs is the number of goroutines that run the boards of a step (0
	// or 1: the calling one alone). The results do not depend on it
	// (docs/timeline.md, "Both cores").
	Jobs int
	// ParallelCycles is the least work for which an ordinary step's
	// boards are shared out among the Jobs (0: DefaultParallelCycles): the
	// step's core cycles for each running board that does not lag and is
	// outside a proved polling loop, plus pollingWork for each that is in
	// one.
	ParallelCycles uint64
}

// Defaults.
const (
	DefaultMaxIdleStep      = 100 * sim.Microsecond
	DefaultIdleInstructions = 64
)

// MaxStep bounds the quantum (so the fabric's least latency) and
// Config.MaxIdleStep: one simulated day. The world adds a step to the time
// of a step's start; with steps this short that sum cannot wrap sim.Time
// (2^64 ps is about 213 simulated days) before a run ends.
const MaxStep = 24 * 3600 * sim.Second

// Member is one board of a World: its number, the board, and why it
// stopped.
type Member struct {
	ID    int
	Board *board.Board
	Stop  *lanai.Stop // why the node stopped (exit or trap), nil while running

	// The board's core, link and clock, kept here: the per-step loops
	// read them without a look into the board.
	cpu  *lanai.CPU
	link *board.Link
	clk  sim.Clock
	// notes is where the board's link notes its fabric interactions and
	// send-record changes (board.Link.SetNotes); sync is the link's
	// NextSync as of the last change (nextSync). A step reads them here,
	// with the member, instead of in the link.
	notes board.LinkNotes
	sync  sim.Time

	lastInstret, lastSkipped, lastCycles, lastSkippedInstret uint64

	// What the node's run in the last step tells the step's end (runStep).
	ran, wake, busy, late bool
	// lagging: the node skipped steps in a proved loop (World.canLag) and
	// is behind the world's time until caught up; it may lag to lagUntil
	// (0 while it does not lag).
	lagging bool
	// direct is the board's Direct (kept by its run hook): the board's
	// Run is the core's, which runCycles then calls without reading the
	// board (two cache lines per run of a board that a step visits).
	direct bool
	// lagNow: in a step run on the crew, canLag said yes; the world
	// makes it lag after the step, in node order (crew.run).
	lagNow   bool
	lagUntil sim.Time
	// (128 bytes: a member is two cache lines, which every step reads.)
}

// Link is the node's link port.
func (n *Member) Link() *board.Link { return n.link }

// NodeStats are one node's counters.
type NodeStats struct {
	Instructions, Cycles, SkippedCycles uint64
	Link                                board.LinkStats
	ISR                                 uint32
	Exited                              bool
	ExitCode                            uint32
}

// Stats are the counters of a World.
type Stats struct {
	Time      sim.Time // simulated time reached
	Steps     uint64   // steps run
	IdleSteps uint64   // steps longer than Q (all nodes idle)
	LateRisk  uint64   // fabric interactions more than Q into a grown step
	Nodes     []NodeStats
	Fabric    fabric.Totals
	Endpoints []fabric.EndpointStats

	// ProvedSteps are steps over many quanta while every core was in a
	// loop proved side-effect free (exact: see World.provedJump).
	ProvedSteps uint64
	// LeadSteps are proved steps in which the board with the first event
	// ran through its events (World.leadStep); LeadBreaks those that
	// ended early, where the leader might act outside itself.
	LeadSteps, LeadBreaks uint64
	// Lagged counts the steps boards sat out in a proved loop
	// (World.canLag), one per board and step.
	Lagged uint64
	// SatOut counts the lead steps boards sat out (World.sitOut), one per
	// board and step; Through the leaders' runs that went through the
	// step of their next event (World.through).
	SatOut, Through uint64
	// ParallelSteps are steps whose boards ran on several goroutines
	// (Config.Jobs): the one count that depends on the jobs.
	ParallelSteps uint64
}

// World is N boards and one fabric on one queue.
type World struct {
	Q      *sim.Queue
	Fabric *fabric.Fabric
	Nodes  []*Member

	cfg     Config
	stepEnd sim.Time // the end of the step whose shared-queue events run
	// The lagging members (n.lagging) by id, how many, and a time no
	// lagging member's lagUntil is below (setLagging); awake lists the
	// others in node order (remade when stale), which alone the serial
	// steps visit.
	lagMask []uint64
	lagN    int
	// owed is, for each member that sat out a lead step (sitOut), the
	// step's end: its run there is still owed (0: none).
	owed       []sim.Time
	lagMin     sim.Time
	awake      []*Member
	awakeStale bool
	// cyc memoises Clock.Cycles for one clock and one time (cycles).
	cyc      cyclesMemo
	now      sim.Time
	step     sim.Time
	st       Stats
	noJump   bool // SetProvedJumps(false)
	noLead   bool // SetLeadSteps(false)
	lookAll  bool // SetLagSet(false)
	noSitOut bool // SetSitOut(false)
	// sitOK: boards may sit out the lead steps of this Run, which ends
	// at until (sitOut); led: the proved step being taken is a lead step.
	sitOK, led bool
	until      sim.Time
	noThrough  bool // SetRunThrough(false)
	crew       *crew
	// hold is the steps worth sharing that run serially after a late
	// worker, backoff how many the last late one asked (crew.backOff).
	hold, backoff int
	noBackoff     bool // SetBackoff(false)
	// codeShared: ShareCode was called (SetJobs regroups the cores).
	codeShared bool
}

// ErrBadConfig reports an unusable configuration.
var ErrBadConfig = errors.New("node: bad configuration")

// New connects boards[i] to f as node i. f must have been made with q and
// have endpoints 0..len(boards)-1. It sets q.BeforeEvent (to catch a
// lagging board up before an event of its node), calling the function
// that was there first.
func New(q *sim.Queue, f *fabric.Fabric, boards []*board.Board, cfg Config) (*World, error) {
	if q == nil || f == nil {
		return nil, fmt.Errorf("%w: nil queue or fabric", ErrBadConfig)
	}
	L := f.MinLatency()
	if cfg.Quantum == 0 {
		cfg.Quantum = L
	}
	if cfg.Quantum == 0 || cfg.Quantum > L || cfg.Quantum > MaxStep {
		return nil, fmt.Errorf("%w: quantum %v, min latency %v (at most %v)", ErrBadConfig, cfg.Quantum, L, MaxStep)
	}
	if cfg.MaxIdleStep == 0 {
		cfg.MaxIdleStep = DefaultMaxIdleStep
	}
	if cfg.MaxIdleStep > MaxStep {
		return nil, fmt.Errorf("%w: max idle step %v over %v", ErrBadConfig, cfg.MaxIdleStep, MaxStep)
	}
	if cfg.IdleInstructions == 0 {
		cfg.IdleInstructions = DefaultIdleInstructions
	}
	if cfg.ParallelCycles == 0 {
		cfg.ParallelCycles = DefaultParallelCycles
	}
	w := &World{Q: q, Fabric: f, cfg: cfg, step: cfg.Quantum, now: q.Now(),
		lagMask: make([]uint64, (len(boards)+63)/64), lagMin: sim.Never, awakeStale: true,
		owed: make([]sim.Time, len(boards))}
	members := make([]Member, len(boards)) // one block: the per-step loops walk them in order
	for i, b := range boards {
		if err := b.Link().Connect(f, q, i); err != nil {
			return nil, err
		}
		n := &members[i]
		n.ID, n.Board, n.cpu, n.link, n.clk = i, b, b.CPU(), b.Link(), b.Clock()
		b.Link().SetFabricHook(func() { w.catchUpNode(n) })
		n.direct = b.Direct()
		b.Link().SetNotes(&n.notes)
		b.SetRunHook(func() { n.direct = b.Direct() })
		w.Nodes = append(w.Nodes, n)
	}
	before := q.BeforeEvent
	q.BeforeEvent = func(node int) {
		if before != nil {
			before(node)
		}
		if node >= 0 && node < len(w.Nodes) {
			w.catchUpNode(w.Nodes[node])
		}
	}
	return w, nil
}

// Now is the time the world has reached.
func (w *World) Now() sim.Time { return w.now }

// NextCycle is the time of the next cycle of the running board furthest
// behind (sim.Never when every board has stopped): running the world to
// it executes at most one instruction on each board (the debugger's tick).
func (w *World) NextCycle() sim.Time {
	t := sim.Never
	for _, n := range w.Nodes {
		if n.Stop == nil {
			t = min(t, n.clk.Time(n.cpu.Cycles+1))
		}
	}
	return t
}

// Running reports whether some node has not stopped.
func (w *World) Running() bool {
	for _, n := range w.Nodes {
		if n.Stop == nil {
			return true
		}
	}
	return false
}

// Run advances the world to until, or until every node has stopped (the
// world then stops at the instant the last one did: lastStop). It returns
// an error if a node trapped.
func (w *World) Run(until sim.Time) error {
	Q := w.cfg.Quantum
	shared := w.mayShare()
	if shared {
		defer w.stopCrew()
	}
	live := w.Running() // some node runs: kept by the steps' loops over the nodes
	w.sitOK, w.until = !w.noSitOut, until
	for w.now < until && live {
		S := w.now
		var J sim.Time
		ok := false
		w.led = false
		if !w.twoBusy() { // else neither applies
			J, ok = w.leadStep(S, until)
			if !ok {
				J, ok = w.provedJump(S, until)
			}
		}
		if ok {
			// Every core is in a loop proved side-effect free: the steps
			// of length Q up to T would change nothing but the cores'
			// counts, which each core's run reaches exactly in one go
			// (the leader of a lead step has run already). In a lead
			// step a board that may lag past J sits the step out, owing
			// the run to J (sitOut); not in a proved jump (the busy rings'
			// boards have their events close after one: their looks cost
			// more than the runs put off save) nor at until (where every
			// board is caught up at once).
			lag := w.led && w.sitOK && J < until
			for _, n := range w.Nodes {
				if lag && n.Stop == nil && w.sitOut(n, J) {
					continue
				}
				w.setLagging(n, false)
				w.owed[n.ID] = 0
				if n.Stop == nil {
					w.runTo(n, J)
				}
				n.notes.Take()
				n.noteCounts()
			}
			live = w.Running()
			if !live {
				J = w.lastStop()
			}
			w.stepEnd = J // the shared queue's events bring a lagging board there (catchUpNode)
			w.Q.RunUntil(J)
			w.now = J
			w.st.Steps++
			w.st.ProvedSteps++
			continue
		}
		T := min(S+w.step, until)
		if t := w.Q.Next(); t > S && t < T {
			T = t
		}
		// T only falls from here. A board whose lag ends before it is
		// looked at from now on (if T falls to its lagUntil or below it
		// lags again, canLag giving the same answer); a board that still
		// lags has its NextSync after its lagUntil, so after T
		// (setLagging).
		if T > w.lagMin && !w.lookAll {
			w.wakeLagging(T)
		}
		for _, n := range w.awakeList() {
			if n.Stop == nil {
				if t := n.nextSync(); t > S && t < T {
					T = t
				}
			}
		}
		wake := false
		if T-S > Q {
			// A grown step ends where a node may wake up: its link's next
			// event or any other device event on its core (a timer, a DMA
			// completion).
			for _, n := range w.Nodes {
				if n.Stop != nil {
					continue
				}
				if e := n.link.NextEvent(); e < T {
					T = max(S+Q, e)
				}
				if c := n.cpu.NextEvent(); c != ^uint64(0) {
					if e := n.clk.Time(c); e < T {
						T = max(S+Q, e)
					}
				}
			}
		}
		grown := T-S > Q
		idle := true
		// quiet: no board of the step was busy so far; once one is, the
		// step is not idle and the others' wake is not needed.
		quiet := w.lagN == 0 || w.lookAll
		if !shared || w.lookAll || !w.runShared(S, T, quiet) {
			for _, n := range w.awakeList() {
				if n.Stop != nil {
					continue
				}
				if n.lagging { // only with SetLagSet(false), as before the set
					if T <= n.lagUntil {
						quiet = false
						continue
					}
					w.setLagging(n, false)
				}
				if w.visit(n, T, &w.cyc, quiet) {
					// In a proved loop with no event before T: it runs
					// later, in one go (catchUp), and sits out the
					// steps up to its lagUntil without a look.
					w.setLagging(n, true)
					quiet = false
					continue
				}
				quiet = quiet && !n.busy
			}
		}
		w.st.Lagged += uint64(w.lagN)
		w.stepEnd = T     // the shared queue's events bring a lagging board there (catchUpNode)
		live = w.lagN > 0 // a lagging board runs and counts as busy
		if live {
			idle = false
		}
		for _, n := range w.awakeList() { // those that began to lag in the step did not run
			if !n.ran {
				continue // stopped or lagging
			}
			live = live || n.Stop == nil
			n.ran = false
			wake = wake || n.wake
			if n.busy {
				idle = false
			}
			if n.late {
				w.st.LateRisk++
			}
		}
		if !live {
			T = w.lastStop()
		}
		w.Q.RunUntil(T)
		w.now = T
		w.st.Steps++
		if grown {
			w.st.IdleSteps++
		}
		if idle && !wake && w.cfg.MaxIdleStep > Q {
			w.step = min(2*w.step, w.cfg.MaxIdleStep)
		} else {
			w.step = Q
		}
	}
	w.catchUp(w.now)
	if w.now < until && w.Running() {
		w.Q.RunUntil(until)
		w.now = until
	}
	for _, n := range w.Nodes {
		if n.Stop != nil && n.Stop.Kind == lanai.StopTrap {
			return fmt.Errorf("node %d: %w", n.ID, n.Stop.Trap)
		}
	}
	return nil
}

// lastStop is the instant the last node stopped, once every node has: the
// end of its exit store, or the start of the instruction that trapped (its
// core's count, which stays there). The world stops there, not at the end
// of the step in which that node stopped: every front end (the debugger's
// ticks, the steps of any length) then reports the same end
// (docs/timeline.md, "The end of a run").
func (w *World) lastStop() sim.Time {
	var t sim.Time
	for _, n := range w.Nodes {
		t = max(t, n.clk.Time(n.cpu.Cycles))
	}
	return t
}

// visit is an ordinary step's look at member n, which does not lag, for
// the step to T (serial or on the crew): it reports whether n may lag
// instead (canLag), and else runs n's step (runStep). cyc is the memo of
// the goroutine that looks.
func (w *World) visit(n *Member, T sim.Time, cyc *cyclesMemo, quiet bool) (lag bool) {
	c := cyc.get(n.clk, T)
	if w.canLag(n, c) {
		return true
	}
	w.runStep(n, T, c, quiet)
	return false
}

// runStep runs node n to the first cycle at or after T in a step of the
// normal kind, after the run it owes if it sat out a lead step (settle),
// and notes what the step's end needs to know from it. It reads and writes
// nothing but the node's own board and fields (and its w.owed), so that
// nodes may run it in parallel (crew).
//
// c is clk.Cycles(T) for the node's clock. n.wake is found only when
// quiet (no board busy so far in the step): else the step is not idle
// and n.wake is not used.
func (w *World) runStep(n *Member, T sim.Time, c uint64, quiet bool) {
	n.lagUntil = 0
	if w.owed[n.ID] != 0 {
		w.settle(n)
	}
	cpu := n.cpu
	clk := n.clk
	n.ran = true
	n.wake = false
	if quiet {
		// Compared in cycles: the node runs to the first cycle at or
		// after T, so a link event later in that cycle still fires.
		e := n.link.NextEvent()
		n.wake = e <= T || e != sim.Never && clk.Cycles(e) <= c // a node may act right after T: back to Q
	}
	w.runCycles(n, c)
	k, first := n.notes.Take()
	skipped, ran := cpu.SkippedCycles-n.lastSkipped, cpu.Cycles-n.lastCycles
	executed := (cpu.Instret - n.lastInstret) - (cpu.SkippedInstret - n.lastSkippedInstret)
	n.busy = executed > w.cfg.IdleInstructions || k > 0 || 2*skipped < ran
	n.late = n.busy && k > 0 && first+w.cfg.Quantum < T
	n.noteCounts()
}

// nextSync is the link's NextSync, asked again only after its send records
// changed (board.LinkNotes.SyncStale).
func (n *Member) nextSync() sim.Time {
	if n.notes.SyncStale {
		n.notes.SyncStale = false
		n.sync = n.link.NextSync()
	}
	return n.sync
}

// noteCounts keeps n's core counts as its run in a step left them: the
// next runStep measures its own run from there.
func (n *Member) noteCounts() {
	cpu := n.cpu
	n.lastInstret, n.lastSkipped, n.lastCycles, n.lastSkippedInstret = cpu.Instret, cpu.SkippedCycles, cpu.Cycles, cpu.SkippedInstret
}

// provedJump is where a step may jump to when every running core is in a
// loop proved side-effect free (lanai.CPU.Polling): the last point of the
// grid S + nQ (n >= 2) that the steps of length Q would reach before the
// next event anywhere (the shared queue, a link, a core's devices) or
// until. Nothing happens in between, so the jump gives exactly what those
// steps give. Only from a step of length Q, so that the growth of idle
// steps is not changed.
func (w *World) provedJump(S, until sim.Time) (sim.Time, bool) {
	Q := w.cfg.Quantum
	if w.step != Q || w.noJump {
		return 0, false
	}
	B := min(until, w.Q.Next())
	for _, n := range w.Nodes {
		if n.Stop != nil {
			continue
		}
		cpu := n.cpu
		if !cpu.Polling() {
			return 0, false
		}
		B = min(B, n.nextSync(), n.link.NextEvent())
		if c := cpu.NextEvent(); c != ^uint64(0) {
			B = min(B, n.clk.Time(c))
		}
	}
	if B <= S || (B-S)/Q < 2 {
		return 0, false
	}
	return S + (B-S)/Q*Q, true
}

// canLag reports whether node n may skip the step to T and run later
// (lagging): in a serial step, its core in a proved loop with its next
// event (its core's or its link's) and its next booked SRAM cycle at
// least leadMargin cycles after T's. Such a board acts on nothing before its
// next event, and nothing acts on it but the shared queue, before whose
// events it is caught up (catchUp): its run in one go gives what the runs
// of the steps give (docs/timeline.md, "Lagging boards"). It counts as busy
// in the step, as a proved loop too short to skip in a step of length Q
// is.
//
// While it lags nothing changes what this depends on (nothing runs it,
// and whatever acts on it catches it up first), so the last time it may
// lag to is kept in n.lagUntil and the test is not made again before.
//
// cT is the cycle of T on n's clock (Clock.Cycles).
func (w *World) canLag(n *Member, cT uint64) bool {
	if w.noJump || w.noLead {
		return false
	}
	cpu := n.cpu
	if !cpu.Polling() {
		return false
	}
	c := n.nextChange()
	if c < leadMargin || cT > c-leadMargin {
		return false
	}
	n.lagUntil = n.clk.Time(c - leadMargin)
	return true
}

// setLagging marks n lagging (to n.lagUntil) or not. The serial steps
// visit only the members that do not lag (awakeList); wakeLagging ends the
// lag of those whose lagUntil a step may pass. While n lags nothing runs it
// and whatever acts on it catches it up first, so nothing of what its
// look in a step reads changes: its NextSync (at or after its link's next
// event, so after lagUntil, which is at or after the step's end while it
// lags) cannot end a step, and it counts as busy in every step.
func (w *World) setLagging(n *Member, on bool) {
	if n.lagging == on {
		return
	}
	n.lagging = on
	w.awakeStale = true
	bit := uint64(1) << (n.ID % 64)
	if on {
		w.lagMask[n.ID/64] |= bit
		w.lagN++
		w.lagMin = min(w.lagMin, n.lagUntil)
		return
	}
	w.lagMask[n.ID/64] &^= bit
	w.lagN--
	n.lagUntil = 0
	if w.lagN == 0 {
		w.lagMin = sim.Never
	}
}

// wakeLagging ends the lag of every member whose lagUntil is before T (a
// step's first bound): it is looked at in the step as any other. canLag
// says no if the step's end passes its lagUntil, and lets it lag on to the
// same lagUntil if not: nothing it depends on changed while it lagged.
func (w *World) wakeLagging(T sim.Time) {
	w.lagMin = sim.Never
	for k, word := range w.lagMask {
		for word != 0 {
			i := k*64 + bits.TrailingZeros64(word)
			word &= word - 1
			n := w.Nodes[i]
			if T > n.lagUntil {
				w.setLagging(n, false)
			} else {
				w.lagMin = min(w.lagMin, n.lagUntil)
			}
		}
	}
}

// twoBusy reports whether two running boards that do not lag are outside a
// proved loop: then neither a lead step nor a proved jump applies, and
// their looks at every board are not made. A lagging board is in a proved
// loop (nothing changed since canLag found it there).
func (w *World) twoBusy() bool {
	busy := 0
	for _, n := range w.awakeList() {
		if n.Stop == nil && !n.cpu.Polling() {
			if busy++; busy == 2 {
				return true
			}
		}
	}
	return false
}

// awakeList is the members that do not lag, in node order (every member
// with SetLagSet(false)).
func (w *World) awakeList() []*Member {
	if w.lookAll {
		return w.Nodes
	}
	if w.awakeStale {
		w.awake = w.awake[:0]
		for _, n := range w.Nodes {
			if !n.lagging {
				w.awake = append(w.awake, n)
			}
		}
		w.awakeStale = false
	}
	return w.awake
}

// cyclesMemo keeps the last Clock.Cycles result: the boards of a world
// mostly share one clock, and a step asks for the cycle of its end once
// per board.
type cyclesMemo struct {
	hz     uint64
	t      sim.Time
	cycles uint64
}

func (m *cyclesMemo) get(clk sim.Clock, t sim.Time) uint64 {
	if clk.Hz != m.hz || t != m.t {
		m.hz, m.t, m.cycles = clk.Hz, t, clk.Cycles(t)
	}
	return m.cycles
}

// nextChange is the first cycle at which node n's board may change
// anything by itself: its core's next event, its link's next event or the
// next SRAM cycle booked by its DMA engine (which may stall the core).
func (n *Member) nextChange() uint64 {
	cpu, clk := n.cpu, n.clk
	return min(cpu.NextEvent(), cpu.SRAMFree(), clk.Cycles(n.link.NextEvent()))
}

// catchUp runs every lagging node to T.
func (w *World) catchUp(T sim.Time) {
	for _, n := range w.Nodes {
		w.catchUpTo(n, T)
	}
}

// catchUpNode brings node n, if it lags, to the end of the step whose
// shared-queue events run: it is called before a host-model event of the
// node (sim.Queue.BeforeEvent) and whenever the fabric acts on its port
// (board.Link.SetFabricHook). Nothing else acts on a board from outside.
func (w *World) catchUpNode(n *Member) { w.catchUpTo(n, w.stepEnd) }

func (w *World) catchUpTo(n *Member, T sim.Time) {
	if !n.lagging {
		return
	}
	w.setLagging(n, false)
	w.owed[n.ID] = 0
	if n.Stop == nil {
		w.runTo(n, T)
		n.notes.Take()
		n.noteCounts()
	}
}

// sitOut makes node n, in a proved loop, lag past the end J of a lead step
// instead of running there, if canLag allows it at J: nothing but the
// shared queue can act on it before its lagUntil, and the queue's events
// catch it up first, as they catch up a board that lags in ordinary steps
// (docs/timeline.md, "Sitting out lead steps"). Its run to J is owed
// (w.owed): settle makes it before the board's next run in an ordinary
// step, whose measure of the run (busy, the idle steps' growth) starts
// where the run to J would have ended; any other run of the board (a
// catch-up, a proved step, its lead) goes through J in one go.
func (w *World) sitOut(n *Member, J sim.Time) bool {
	if !w.canLag(n, w.cyc.get(n.clk, J)) {
		return false
	}
	w.setLagging(n, true)
	w.owed[n.ID] = J
	w.st.SatOut++
	return true
}

// settle makes the run to the end of the lead step that node n sat out
// (it owes one) and notes its counts there, as that step would have.
func (w *World) settle(n *Member) {
	o := w.owed[n.ID]
	w.owed[n.ID] = 0
	w.runTo(n, o)
	n.notes.Take()
	n.noteCounts()
}

// runTo runs node n to the first cycle at or after T (nothing if it is
// there already) and notes an exit or a trap.
func (w *World) runTo(n *Member, T sim.Time) { w.runCycles(n, n.clk.Cycles(T)) }

// runCycles runs node n to cycle c (nothing if it is there already) and
// notes an exit or a trap.
func (w *World) runCycles(n *Member, c uint64) {
	cpu := n.cpu
	if c > cpu.Cycles {
		var st *lanai.Stop
		if n.direct {
			st = cpu.Run(c - cpu.Cycles) // the board's Run (board.Board.Direct)
		} else {
			st = n.Board.Run(c - cpu.Cycles)
		}
		if st.Kind == lanai.StopExit || st.Kind == lanai.StopTrap {
			n.Stop = st
		}
	}
}

// leadStep is a proved step in which one board runs through its own
// events (docs/timeline.md, "Lead steps"). Every running core is in a loop
// proved side-effect free; the leader is the board whose next event (its
// core's or its link's) comes first, and the step may reach the last point
// of the grid S + nQ before the next event of any other board, the next
// shared-queue event, any link's NextSync, and until. The leader runs
// towards it in the steps of length Q the world would take (one run over
// the stretches in which no event of its falls, one per step where one
// does, or one through both: through) and stops at the end of the first
// step after which it may act on anything outside itself: it is not in a
// proved loop any more, it made a call into the fabric, a call-back
// scheduled a shared-queue event before the bound, it traced an event or it
// stopped. The step ends there; the other boards, which have no event
// before it, run to it in one go or sit it out (sitOut), as does the
// leader when no event of its own is left before the end. So
// every board is where the steps of length Q would leave it, and whatever
// the leader started is seen at the same step end. It reports false (and
// runs nothing) when the step would not reach 2Q, as provedJump.
func (w *World) leadStep(S, until sim.Time) (sim.Time, bool) {
	Q := w.cfg.Quantum
	if w.step != Q || w.noJump || w.noLead {
		return 0, false
	}
	B := min(until, w.Q.Next())
	var lead *Member
	first := sim.Never
	running := 0
	for _, n := range w.Nodes {
		if n.Stop != nil {
			continue
		}
		B = min(B, n.nextSync())
		e := S // a core not in a proved loop may act at once
		if cpu := n.cpu; cpu.Polling() {
			e = min(n.link.NextEvent(), n.clk.Time(cpu.NextEvent()))
		} else if running++; running > 1 {
			return 0, false
		}
		if lead == nil || e < first {
			lead, first = n, e
		}
	}
	if lead == nil {
		return 0, false
	}
	if first >= B {
		// Every core proved and no event before B: provedJump's case
		// (its bound is B), answered here without a second look at every
		// board.
		if (B-S)/Q < 2 {
			return 0, false
		}
		return S + (B-S)/Q*Q, true
	}
	// The others run to the step's end in one go and must not meet an
	// event there: their runs end leadMargin cycles before the first
	// (an instruction that straddles the end cannot reach it, nor stall on
	// SRAM the DMA engine booked, which could carry it past).
	lim := B
	for _, n := range w.Nodes {
		if n.Stop != nil || n == lead {
			continue
		}
		c := n.nextChange()
		if c < leadMargin {
			return 0, false
		}
		lim = min(lim, n.clk.Time(c-leadMargin))
	}
	if first >= lim || lim <= S || (lim-S)/Q < 2 {
		return 0, false
	}
	G := S + (lim-S)/Q*Q
	w.st.LeadSteps++
	w.led = true
	if w.noSitOut {
		w.catchUpTo(lead, S) // a leader that lagged starts at S, no longer lagging (its own fabric calls must not catch it up inside its run)
	} else if lead.lagging {
		// It stops lagging (its own fabric calls must not catch it up
		// inside its run) and its first run starts where it is: a run
		// through S gives what a run to S and one from S give, and a
		// leader's runs are not measured (its counts are noted at the
		// step's end). Interactions noted before it lagged (a host
		// write that re-armed its link) are not its run's: they are
		// taken, as the run to S would take them.
		w.setLagging(lead, false)
		w.owed[lead.ID] = 0
		lead.notes.Take()
	}
	return w.runLead(lead, S, G, B), true
}

// leadMargin is the cycles a board that is not a lead step's leader, or
// that lags (canLag), keeps between the step's end and its next event or
// booked SRAM cycle. A run to cycle cT ends at the first instruction
// boundary at or after cT, and the longest instruction takes three cycles
// (an SPLS access that reads the register loaded just before it), so the
// run ends at cT+2 at the latest and runs no event due at cT+3 or later;
// an SRAM cycle booked from cT+3 on cannot stall it either.
// TestLeadMarginCoversStraddle shows an event at cT+2 running in such a
// run.
const leadMargin = 3

// runLead runs the leader n of a lead step from S towards G (a point of the
// grid S + kQ) and returns the step's end: G, or the end of the step of
// length Q after which it may act outside itself (see leadStep). B bounds
// the shared queue's next event.
func (w *World) runLead(n *Member, S, G, B sim.Time) sim.Time {
	Q := w.cfg.Quantum
	cpu, clk := n.cpu, n.clk
	traced := n.Board.Traced()
	for t := S; t < G; {
		// Up to the last step end before the next event, one run: an event
		// due at its last cycle runs at the end of that run, in the last
		// step, as the steps of length Q run it. Else one step. A store to
		// a device register (through which alone the core acts on anything
		// but SRAM and its own registers, and schedules events) ends the
		// run after it: the run then goes on to the end of the step of
		// length Q that holds the cycle at which the store began, and no
		// further.
		next := t + Q
		if c := cpu.NextEvent(); c > cpu.Cycles+1 {
			if e := clk.Time(c - 1); e >= next && e != sim.Never {
				next = t + min(e-t, G-t)/Q*Q
				if next < G && w.through(n, c, clk.Cycles(next)) {
					next += Q
					w.st.Through++
				}
			}
		}
		if next == G && w.sitOK && G < w.until && w.canLag(n, clk.Cycles(G)) {
			// No event of its own up to G: it sits the rest out as the
			// others do (the step's loop finds the same canLag answer).
			// Interactions noted before its lead (a host write that
			// re-armed its link at S) end the step early, as its run to
			// G would have found them.
			if k, _ := n.notes.Take(); k > 0 {
				w.st.LeadBreaks++
			}
			return G
		}
		if next > t+Q {
			n.Board.WatchStores(true)
			w.runTo(n, next)
			n.Board.WatchStores(false)
			p, ok := n.Board.StoreSeen()
			if !ok && n.Stop != nil {
				// An exit or a trap ends the run too: the step of length
				// Q that holds it ends the lead, as a store's does.
				p, ok = n.Stop.Cycle, true
			}
			if ok {
				next = t + Q
				for clk.Cycles(next) <= p {
					next += Q
				}
			}
		}
		if n.Stop == nil { // a board that stopped runs no more: its count stays at its exit or trap
			w.runTo(n, next)
		}
		t = next
		k, _ := n.notes.Take()
		if n.Stop != nil || k > 0 || w.Q.Next() < B || n.Board.Traced() != traced {
			w.st.LeadBreaks++
			return t
		}
	}
	return G
}

// through reports whether the leader n, whose next event is due at cycle
// c, may run through the step after cycle cn (a step end before c) in the
// same run: its run to cn could not reach the event. It is in a proved
// loop (which stores nothing and cannot stop before its next event), and
// the event and the first SRAM cycle booked by another master come at
// least leadMargin cycles after cn, so a run to cn ends before either (as
// a lagging board's does). The event then runs in the step after cn both
// ways, and nothing else the leader does before it could end the lead
// step.
func (w *World) through(n *Member, c, cn uint64) bool {
	if w.noThrough || cn+leadMargin > c || n.notes.Inter > 0 {
		return false // (an interaction noted before the lead ends it at cn)
	}
	cpu := n.cpu
	return cpu.SRAMFree() >= cn+leadMargin && cpu.Polling()
}

// SetJobs sets the number of goroutines that run the boards of a step
// (Config.Jobs); the results do not depend on it.
func (w *World) SetJobs(n int) {
	w.cfg.Jobs = n
	if w.codeShared {
		w.ShareCode() // a SharedCode serves one goroutine's boards
	}
}

// SetParallelCycles sets Config.ParallelCycles (0: the default).
func (w *World) SetParallelCycles(c uint64) {
	if c == 0 {
		c = DefaultParallelCycles
	}
	w.cfg.ParallelCycles = c
}

// SetBackoff turns on or off the serial steps after a late worker
// (backOff); on by default. Off, every step worth sharing is shared,
// however the machine runs the workers: tests turn it off.
func (w *World) SetBackoff(on bool) {
	w.noBackoff = !on
	if !on {
		w.hold, w.backoff = 0, 0
	}
}

// Jobs is the number of goroutines that run the boards of a step.
func (w *World) Jobs() int { return max(w.cfg.Jobs, 1) }

// SetProvedJumps turns the proved jumps (provedJump) on or off; they are
// on by default. Off, the world takes every step of length Q: tests
// compare the two.
func (w *World) SetProvedJumps(on bool) { w.noJump = !on }

// SetLeadSteps turns the lead steps (leadStep) on or off; they are on by
// default (and off while the proved jumps are). Tests compare the two.
func (w *World) SetLeadSteps(on bool) { w.noLead = !on }

// SetLagSet turns the lagging set on or off; it is on by default. Off,
// every serial step looks at every board, lagging or not, as it did
// before the set (setLagging says why that changes nothing): tests compare
// the two.
func (w *World) SetLagSet(on bool) { w.lookAll = !on }

// SetSitOut turns on or off the boards that sit out lead steps
// (sitOut) and the leaders that start their lead where they lag; on by
// default. Tests compare the two.
func (w *World) SetSitOut(on bool) { w.noSitOut = !on }

// SetRunThrough turns on or off a leader's runs through the step of its
// next event (through); on by default. Tests compare the two.
func (w *World) SetRunThrough(on bool) { w.noThrough = !on }

// Stats returns the world's counters.
func (w *World) Stats() Stats {
	s := w.st
	s.Time = w.now
	s.Nodes = nil
	for _, n := range w.Nodes {
		cpu := n.cpu
		ns := NodeStats{Instructions: cpu.Instret, Cycles: cpu.Cycles, SkippedCycles: cpu.SkippedCycles,
			Link: n.link.Stats(), ISR: n.Board.ISR()}
		if n.Stop != nil && n.Stop.Kind == lanai.StopExit {
			ns.Exited, ns.ExitCode = true, n.Stop.Code
		}
		s.Nodes = append(s.Nodes, ns)
		es, _ := w.Fabric.EndpointStats(n.ID)
		s.Endpoints = append(s.Endpoints, es)
	}
	s.Fabric = w.Fabric.Totals()
	return s
}
