package node

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"lanaiemu/sim"
)

// A crew runs the boards of an ordinary step on several goroutines
// (Config.Jobs), making the serial step's decisions: the calling goroutine
// takes the first share of the nodes, each worker one of the others
// (contiguous, so a node always runs on the same one), and each looks at
// the members of its share that do not lag, in node order, as the serial
// loop does (canLag, an owed run settled, runStep). What a look changes
// outside its node waits for the step's end: a board that may lag is
// marked (Member.lagNow), and every board defers its calls into shared
// models (board.SetDeferred). After all have finished, the caller goes
// through the members once more in node order, making each marked one lag
// (setLagging) and replaying each other one's calls, which is the order in
// which the serial loop makes them. Nothing a board does in its run reads what
// another board's call changes (the fabric, the queue, the host models and
// the trace recorders are only read and written between steps), so the
// world's results are those of the serial run, bit for bit
// (docs/timeline.md, "Both cores").
//
// The hand-over is a step number: the caller publishes it and runs its own
// share; a worker spins on it for a while and then sleeps on a channel.
// Whoever comes first claims the worker's share of the step (a
// compare-and-swap of the step number): the worker, or the caller once its
// own share is done, so a worker that the machine does not run at once
// (another process on the other core, a wake-up from its sleep) delays the
// step by nothing but the hand-over, and a step is never much slower than
// the serial one. The caller waits for a share the worker claimed the
// same way (spin, then sleep). The workers live from the first shared
// step of a World.Run to its end.
type crew struct {
	w       *World
	first   int // the caller's share: nodes [0, first)
	workers []*worker
	step    uint64
}

type worker struct {
	c      *crew
	lo, hi int
	// The step's orders, written before posted: its end, the share's
	// members that do not lag, whether its first looks for a wake
	// (runStep's quiet); quit: leave instead (stop).
	T     sim.Time
	awake []*Member
	quiet bool
	quit  bool
	// wokenAt is when the caller woke it from its sleep (or started it)
	// the first time after it last ran a share (ran: it has since).
	wokenAt time.Time
	ran     bool
	cyc     cyclesMemo // the share's, for whoever runs it (World.cyc is the caller's share's)
	// panicked: the worker's run of its share panicked (runShare); the
	// caller raises it again (run).
	panicked *workerPanic
	// posted is the step published, claim the last step whose share was
	// claimed, done the last step the worker ran its share of (on their
	// own cache lines: the other side polls them).
	_      [64]byte
	posted atomic.Uint64
	claim  atomic.Uint64
	_      [48]byte
	done   atomic.Uint64
	// asleep: the worker (or, for done, the caller) waits on the channel
	// and must be woken by whoever changes the counter.
	workerAsleep, callerAsleep atomic.Bool
	wake, finished             chan struct{}
}

// claimTest, set by tests, makes one side claim every worker's share:
// claimCaller the caller (before it posts the step), claimWorker the
// worker (the caller waits for its claim); else whoever comes first.
var claimTest int

const (
	claimFirst = iota
	claimCaller
	claimWorker
)

// spinFor is how long a waiting side polls its counter before it sleeps.
// Waking a sleeping worker costs tens of microseconds on the development
// machine (a virtual one), longer than a busy ring's step and the gaps
// between its shared steps, so the worker spins through those gaps; a
// world whose steps are not shared for longer (idle boards, proved jumps)
// lets it sleep after spinFor (docs/performance.md, "Both cores").
const spinFor = 50 * time.Microsecond

// newCrew starts jobs-1 workers for w's nodes (2 <= jobs <= nodes).
func newCrew(w *World, jobs int) *crew {
	n := len(w.Nodes)
	_, first := share(0, n, jobs)
	c := &crew{w: w, first: first}
	for k := 1; k < jobs; k++ {
		lo, hi := share(k, n, jobs)
		wk := &worker{c: c, lo: lo, hi: hi, wokenAt: time.Now(),
			wake: make(chan struct{}, 1), finished: make(chan struct{}, 1)}
		c.workers = append(c.workers, wk)
		go wk.loop()
	}
	return c
}

// DefaultParallelCycles is the least work for which a step is shared out
// (Config.ParallelCycles): the step's core cycles summed over the running
// boards that do not lag and are not in a proved polling loop, plus
// pollingWork for each that is. Measured on the development machine
// (docs/performance.md, "Both cores"): a hand-over and back costs
// 0.12-0.16 us, but a shared step costs the caller about 0.8 us more than
// a serial one (the deferred calls replayed, the workers' boards' state
// read from the other core's cache by the step's serial parts), so the
// 8-node busy ring's steps (about 1.7 us of boards' work, at most 160
// cycles) gain nothing shared (0.87-0.90 node-s per wall second against
// 0.91-0.93 serial), while the 64-node ring gains the more the more of
// its steps are shared (0.84-0.88 at 170, 0.78-0.82 at 250, 0.85-0.88 at
// 120, against 0.65-0.69 serial). At 170 the first are never shared
// (mayShare) and most of the second are.
const DefaultParallelCycles = 170

// pollingWork is what a running board that does not lag and is in a
// proved polling loop adds to a step's work (runShared), in cycles: its
// look and its run, which resumes the loop (about 0.1-0.3 us). Weighed so,
// the busy 64-node ring's steps (30-35 boards that do not lag, most of
// them polling) mostly reach DefaultParallelCycles and the 8-node ring's
// (at most 8 x 20 cycles) do not (docs/performance.md, "Both cores").
const pollingWork = 8

// runShared runs the ordinary step from S to T on the crew (started at the
// first step worth it) if its work is enough, and reports whether it did;
// quiet is the serial loop's at its start. Called only with the lagging
// set on (not SetLagSet(false)).
func (w *World) runShared(S, T sim.Time, quiet bool) bool {
	awake := w.awakeList()
	if len(awake) == 0 || T-S > w.cfg.Quantum {
		return false // (a grown step follows an idle one: its boards do little whatever its length)
	}
	c := awake[0].clk.Cycles(T - S) // an estimate: the clocks rarely differ
	if uint64(len(awake))*max(c, pollingWork) < w.cfg.ParallelCycles {
		return false // not even if every board were busy
	}
	work := uint64(0)
	for _, n := range awake {
		if n.Stop != nil {
			continue
		}
		if n.cpu.Polling() {
			work += pollingWork
		} else {
			work += c
		}
	}
	if work < w.cfg.ParallelCycles {
		return false
	}
	if w.hold > 0 {
		w.hold--
		return false
	}
	if w.crew == nil {
		w.crew = newCrew(w, min(w.cfg.Jobs, len(w.Nodes)))
	}
	w.crew.run(T, awake, quiet)
	return true
}

// mayShare reports whether a step of this World.Run may be shared: there
// are jobs and nodes for it, and a step of length Quantum (a longer one,
// grown, is not shared) in which every board were busy would be worth it.
// Else (the 2- to 8-node clusters at the default ParallelCycles) the Run
// takes the serial steps alone.
func (w *World) mayShare() bool {
	if min(w.cfg.Jobs, len(w.Nodes)) < 2 {
		return false
	}
	c := uint64(0)
	for _, n := range w.Nodes {
		c = max(c, n.clk.Cycles(w.cfg.Quantum))
	}
	return uint64(len(w.Nodes))*max(c, pollingWork) >= w.cfg.ParallelCycles
}

// stopCrew ends the crew's workers, if they were started.
func (w *World) stopCrew() {
	if w.crew != nil {
		w.crew.stop()
		w.crew = nil
	}
}

// run runs the ordinary step to T on the crew: awake is the members that
// do not lag (World.awakeList), quiet the serial loop's at its start.
func (c *crew) run(T sim.Time, awake []*Member, quiet bool) {
	w := c.w
	w.st.ParallelSteps++
	c.step++
	lo := len(awake) // where the workers' shares begin in awake
	for i, n := range awake {
		if n.ID >= c.first {
			lo = i
			break
		}
	}
	mine := awake[:lo]
	for _, wk := range c.workers {
		hi := lo
		for hi < len(awake) && awake[hi].ID < wk.hi {
			hi++
		}
		wk.T, wk.awake, wk.quiet = T, awake[lo:hi], quiet
		lo = hi
		if claimTest == claimCaller {
			wk.claim.Store(c.step) // before it is posted: the worker skips it
		}
		wk.posted.Store(c.step)
		if wk.workerAsleep.CompareAndSwap(true, false) {
			wk.wake <- struct{}{}
			if wk.ran {
				wk.wokenAt, wk.ran = time.Now(), false
			}
		}
	}
	w.look(mine, T, quiet, &w.cyc)
	late, woken := false, false
	for _, wk := range c.workers {
		for claimTest == claimWorker && wk.claim.Load() < c.step {
			runtime.Gosched()
		}
		if claimTest == claimCaller || wk.claim.CompareAndSwap(c.step-1, c.step) {
			w.look(wk.awake, T, quiet, &wk.cyc) // the worker has not begun: the caller runs its share
			waking := time.Since(wk.wokenAt) < wakeGrace
			late = late || !waking
			woken = woken || waking
		} else {
			wk.ran = true
			late = await(&wk.done, c.step, &wk.callerAsleep, wk.finished) || late
		}
		wk.awake = nil
	}
	for _, wk := range c.workers {
		if p := wk.panicked; p != nil {
			wk.panicked = nil
			panic(p)
		}
	}
	if late || !woken {
		w.backOff(late)
	}
	for _, n := range awake {
		if n.lagNow {
			n.lagNow = false
			w.setLagging(n, true)
		} else {
			n.Board.RunDeferred()
		}
	}
}

// backOff follows a shared step: if a worker was late (the caller ran the
// share of a worker that was awake, or slept waiting for one), the next
// w.backoff steps worth sharing (w.hold) run serially, twice as many as
// after the last late step if no step since was shared in time (at least
// minBackoff, at most maxBackoff); a step shared in time ends the
// backoff. (A worker woken from its sleep less than wakeGrace before is
// not late: it takes tens of microseconds to wake, and meanwhile the
// caller runs its share; such a step changes nothing here. Only its first
// wake after it ran a share counts: one that the machine does not run
// for long is late however often it is woken.) A machine whose other core is taken
// (the worker's thread time-sliced with the caller's or another
// process's) so shares a step now and then, and its worker mostly sleeps.
func (w *World) backOff(late bool) {
	if !late || w.noBackoff {
		w.backoff = 0
		return
	}
	w.backoff = min(max(2*w.backoff, minBackoff), maxBackoff)
	w.hold = w.backoff
}

// The least and the most steps a late worker makes the world run serially
// (backOff), and how long after its wake a worker is not late.
const (
	wakeGrace  = 500 * time.Microsecond
	minBackoff = 8
	maxBackoff = 4096
)

// look is the serial step's loop over the members that do not lag (in
// World.Run) for one share of them, on the goroutine that runs the share:
// a board that may lag is marked (lagNow), the others run deferring their
// calls.
func (w *World) look(awake []*Member, T sim.Time, quiet bool, cyc *cyclesMemo) {
	for _, n := range awake {
		if n.Stop != nil {
			continue
		}
		b := n.Board
		b.SetDeferred(true) // (canLag makes no call)
		lag := w.visit(n, T, cyc, quiet)
		b.SetDeferred(false)
		if lag {
			n.lagNow = true
			quiet = false
			continue
		}
		quiet = quiet && !n.busy
	}
}

// stop ends the workers (each claims its quit step: the caller does not).
// A worker's share of the last step that no side claimed (the caller's
// own share panicked first) is claimed here, so that the worker goes on
// to its quit step.
func (c *crew) stop() {
	for _, wk := range c.workers {
		wk.claim.CompareAndSwap(c.step-1, c.step)
	}
	c.step++
	for _, wk := range c.workers {
		wk.quit = true
		wk.posted.Store(c.step)
		if wk.workerAsleep.CompareAndSwap(true, false) {
			wk.wake <- struct{}{}
		}
		await(&wk.done, c.step, &wk.callerAsleep, wk.finished)
	}
}

// loop is a worker: it claims the last step posted, if the caller has not
// (it may have missed steps the caller claimed), and runs its share.
func (wk *worker) loop() {
	for seen := uint64(0); ; {
		await(&wk.posted, seen+1, &wk.workerAsleep, wk.wake)
		seen = wk.posted.Load()
		if !wk.claim.CompareAndSwap(seen-1, seen) {
			continue // the caller took the share
		}
		quit := wk.quit
		if !quit {
			wk.runShare()
		}
		wk.done.Store(seen)
		if wk.callerAsleep.CompareAndSwap(true, false) {
			wk.finished <- struct{}{}
		}
		if quit {
			return
		}
	}
}

// runShare runs the worker's share of the step posted. A panic in it is
// kept for the caller, which raises it again once every share of the step
// is done (run): so it reaches the goroutine that called World.Run, as
// with one job, and the crew still stops.
func (wk *worker) runShare() {
	defer func() {
		if r := recover(); r != nil {
			wk.panicked = &workerPanic{value: r, stack: debug.Stack()}
		}
	}()
	wk.c.w.look(wk.awake, wk.T, wk.quiet, &wk.cyc)
}

// workerPanic is a panic in a worker's share, raised again by the caller:
// the value and the worker's stack.
type workerPanic struct {
	value any
	stack []byte
}

func (p *workerPanic) Error() string {
	return fmt.Sprintf("%v\n\nin a worker of node.World's crew:\n%s", p.value, p.stack)
}

// await waits until *v reaches step: it spins (spinFor), then sleeps on ch after
// setting *asleep; the other side, after storing a step, clears *asleep
// and, if it was set, sends on ch. A token may come from the other side's
// previous step (it stored that step, then this side went on to wait for
// the next before the other side looked at *asleep), so a woken waiter
// checks again. Every token sent is received.
//
// It reports whether it slept.
func await(v *atomic.Uint64, step uint64, asleep *atomic.Bool, ch chan struct{}) bool {
	var t0 time.Time
	for i := 0; ; i++ {
		if v.Load() >= step {
			return false
		}
		if i%256 == 255 {
			if i == 255 {
				t0 = time.Now()
			} else if time.Since(t0) > spinFor {
				break
			}
			runtime.Gosched()
		}
	}
	for {
		asleep.Store(true)
		if v.Load() >= step {
			if !asleep.CompareAndSwap(true, false) {
				<-ch // the other side cleared it: its token is on the way
			}
			return true
		}
		<-ch
	}
}
