package node

import (
	"runtime"
	"sync/atomic"

	"lanaiemu/sim"
)

// A crew runs the boards of a step on several goroutines (Config.Jobs):
// the calling goroutine runs the first share of the nodes, each worker
// one of the others (contiguous, so a node always runs on the same one).
// While they run, every board defers its calls into shared models
// (board.SetDeferred); after all have finished, the calls are replayed
// node by node, in node order, which is the order in which the serial
// loop makes them. Nothing a board does in its run reads what another
// board's call changes (the fabric, the queue, the host models and the
// trace recorders are only read and written between steps), so the
// world's results are those of the serial run, bit for bit.
//
// The hand-over is a step number: the caller publishes it, a worker spins
// on it for a while (a step is a fraction of a microsecond of work) and
// then sleeps on a channel; the same the other way for the end of a
// share. The workers live from the first shared step of a World.Run to
// its end.
type crew struct {
	w       *World
	first   int // the caller's share: nodes [0, first)
	workers []*worker
	step    uint64
}

type worker struct {
	c      *crew
	lo, hi int
	T      sim.Time // the step's end, written before posted
	quit   bool     // leave instead (stop)
	posted atomic.Uint64
	done   atomic.Uint64
	// asleep: the worker (or, for done, the caller) waits on the channel
	// and must be woken by whoever changes the counter.
	workerAsleep, callerAsleep atomic.Bool
	wake, finished             chan struct{}
}

// spins is how many times a waiting side polls its counter before it
// sleeps.
const spins = 4000

// newCrew starts jobs-1 workers for w's nodes (2 <= jobs <= nodes).
func newCrew(w *World, jobs int) *crew {
	n := len(w.Nodes)
	_, first := share(0, n, jobs)
	c := &crew{w: w, first: first}
	for k := 1; k < jobs; k++ {
		lo, hi := share(k, n, jobs)
		wk := &worker{c: c, lo: lo, hi: hi,
			wake: make(chan struct{}, 1), finished: make(chan struct{}, 1)}
		c.workers = append(c.workers, wk)
		go wk.loop()
	}
	return c
}

// DefaultParallelCycles is the least work, in core cycles summed over the
// running nodes that are not in a proved polling loop (whose cycles cost
// next to nothing), for which a step is shared out
// (Config.ParallelCycles). A hand-over costs about a microsecond on the
// loaded development machine, a busy board's cycle 15-45 ns of host time;
// sharing out 8 busy boards' steps (100-160 cycles) there was slower than
// running them serially (docs/performance.md).
const DefaultParallelCycles = 1000

// runShared runs every running node from S to T: on the crew (started at
// the first step worth it) when the step has work enough, else on the
// calling goroutine.
func (w *World) runShared(S, T sim.Time) {
	busy, clk := uint64(0), sim.Clock{}
	for _, n := range w.Nodes {
		if n.Stop == nil && !n.cpu.Polling() {
			busy++
			clk = n.clk // an estimate: the clocks rarely differ
		}
	}
	if busy*clk.Cycles(T-S) < w.cfg.ParallelCycles {
		for _, n := range w.Nodes {
			if n.Stop == nil {
				w.runStep(n, T, n.clk.Cycles(T), true)
			}
		}
		return
	}
	if w.crew == nil {
		w.crew = newCrew(w, min(w.cfg.Jobs, len(w.Nodes)))
	}
	w.crew.run(T)
}

// stopCrew ends the crew's workers, if they were started.
func (w *World) stopCrew() {
	if w.crew != nil {
		w.crew.stop()
		w.crew = nil
	}
}

// run runs every running node to T on the crew and replays their
// deferred calls.
func (c *crew) run(T sim.Time) {
	w := c.w
	for _, n := range w.Nodes {
		n.Board.SetDeferred(true)
	}
	w.st.ParallelSteps++
	c.step++
	for _, wk := range c.workers {
		wk.T = T
		wk.posted.Store(c.step)
		if wk.workerAsleep.CompareAndSwap(true, false) {
			wk.wake <- struct{}{}
		}
	}
	for _, n := range w.Nodes[:c.first] {
		if n.Stop == nil {
			w.runStep(n, T, n.clk.Cycles(T), true)
		}
	}
	for _, wk := range c.workers {
		await(&wk.done, c.step, &wk.callerAsleep, wk.finished)
	}
	for _, n := range w.Nodes {
		n.Board.SetDeferred(false)
		n.Board.RunDeferred()
	}
}

// stop ends the workers.
func (c *crew) stop() {
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

func (wk *worker) loop() {
	w := wk.c.w
	for step := uint64(1); ; step++ {
		await(&wk.posted, step, &wk.workerAsleep, wk.wake)
		T, quit := wk.T, wk.quit
		if !quit {
			for _, n := range w.Nodes[wk.lo:wk.hi] {
				if n.Stop == nil {
					w.runStep(n, T, n.clk.Cycles(T), true)
				}
			}
		}
		wk.done.Store(step)
		if wk.callerAsleep.CompareAndSwap(true, false) {
			wk.finished <- struct{}{}
		}
		if quit {
			return
		}
	}
}

// await waits until *v reaches step: it spins, then sleeps on ch after
// setting *asleep; the other side, after storing a step, clears *asleep
// and, if it was set, sends on ch. A token may come from the other side's
// previous step (it stored that step, then this side went on to wait for
// the next before the other side looked at *asleep), so a woken waiter
// checks again. Every token sent is received.
func await(v *atomic.Uint64, step uint64, asleep *atomic.Bool, ch chan struct{}) {
	for i := 0; i < spins; i++ {
		if v.Load() >= step {
			return
		}
		if i%256 == 255 {
			runtime.Gosched()
		}
	}
	for {
		asleep.Store(true)
		if v.Load() >= step {
			if !asleep.CompareAndSwap(true, false) {
				<-ch // the other side cleared it: its token is on the way
			}
			return
		}
		<-ch
	}
}
