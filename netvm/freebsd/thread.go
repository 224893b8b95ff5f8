package freebsd

import (
	"fmt"
	"runtime"
	"slices"

	"lanaiemu/sim"
)

// Kernel is one host: its CPU, threads and VM system.
type Kernel struct {
	// Q is the timeline the host shares with its board and the fabric.
	Q *sim.Queue
	// Node is the node id events are scheduled under (ties between nodes
	// at one time are broken by it).
	Node int
	// Timing holds the host's cost constants.
	Timing Timing

	cpuFree sim.Time // when the CPU is next free (FIFO, non-preemptive)
	cpuBusy sim.Time // total CPU time used
	threads []*Thread
	cur     *Thread
	err     error // the first invariant violation, which stops the run
	vm      vmState
	procs   []*Proc // not exited
	// procsMade counts the processes made (the last PID).
	procsMade int
	// Trace, if set, is told of every span a thread spends computing
	// ("cpu"), sleeping on a device or timer ("sleep") or waiting on a
	// wait queue ("wait"), when the span ends.
	Trace func(thread *Thread, what string, start, end sim.Time)
	ids   int
}

// NewKernel makes a host on q with the given timing and memory.
func NewKernel(q *sim.Queue, node int, tm Timing, mem Memory) *Kernel {
	k := &Kernel{Q: q, Node: node, Timing: tm}
	k.vm.init(k, mem)
	return k
}

// Now is the host's present time (the event being run).
func (k *Kernel) Now() sim.Time { return k.Q.Now() }

// Err is the first invariant violation found, or nil. A run must stop
// when it is set (the simulation loop checks it).
func (k *Kernel) Err() error { return k.err }

// Fail records an invariant violation (the first one is kept).
func (k *Kernel) Fail(format string, a ...any) {
	if k.err == nil {
		k.err = fmt.Errorf("host %d at %v: %s", k.Node, k.Now(), fmt.Sprintf(format, a...))
	}
}

// CPUBusy is the CPU time used so far.
func (k *Kernel) CPUBusy() sim.Time { return k.cpuBusy }

// Thread is a host thread: a coroutine that the kernel resumes from
// events of the timeline, one at a time. Its methods must be called from
// its own goroutine (inside the function given to Go).
type Thread struct {
	k    *Kernel
	Name string
	// ID numbers the host's threads in the order they were made (from 1).
	ID     int
	resume chan bool // true: go on, false: exit at once
	parked chan struct{}
	done   bool
	killed bool
	// Intr marks an interrupt thread: its CPU work does not queue behind
	// the running thread's (it preempts), see Compute.
	Intr bool
	// wake resumes the thread (the kernel's run), made once so that a
	// wake-up schedules without allocating.
	wake func()
}

// Go starts a thread running fn now (at the present time, after the
// event that calls it).
func (k *Kernel) Go(name string, fn func(t *Thread)) *Thread {
	k.ids++
	t := &Thread{k: k, Name: name, ID: k.ids, resume: make(chan bool), parked: make(chan struct{})}
	t.wake = func() { k.run(t) }
	if len(k.threads) == cap(k.threads) {
		k.dropFinished()
		// Room for as many new threads as there are live ones, so
		// that the next scan is that many threads away.
		k.threads = slices.Grow(k.threads, len(k.threads))
	}
	k.threads = append(k.threads, t)
	go func() {
		if !<-t.resume {
			t.exit()
			return
		}
		defer t.exit()
		fn(t)
	}()
	k.wakeAt(t, k.Now())
	return t
}

// dropFinished takes the threads that have ended out of k.threads (which
// Shutdown needs only to end the others), keeping the order of the rest:
// a long run makes threads all the time (handlers, forks' children), and
// the list held every one of them. Go calls it when the list is full and
// then leaves it half empty at least, so that it costs O(1) per thread.
func (k *Kernel) dropFinished() {
	live := k.threads[:0]
	for _, t := range k.threads {
		if !t.done {
			live = append(live, t)
		}
	}
	clear(k.threads[len(live):])
	k.threads = live
}

// exit ends the goroutine and gives control back to the kernel.
func (t *Thread) exit() {
	t.done = true
	t.parked <- struct{}{}
}

func (k *Kernel) wakeAt(t *Thread, at sim.Time) {
	k.Q.Schedule(at, k.Node, t.wake)
}

// run resumes t until it parks again.
func (k *Kernel) run(t *Thread) {
	if t.done {
		return
	}
	prev := k.cur
	k.cur = t
	t.resume <- true
	<-t.parked
	k.cur = prev
}

// park gives control back to the kernel until a wake-up resumes t.
func (t *Thread) park() {
	t.parked <- struct{}{}
	if !<-t.resume {
		t.killed = true
		runtime.Goexit()
	}
}

// Kernel is the host the thread runs on.
func (t *Thread) Kernel() *Kernel { return t.k }

// Now is the present time.
func (t *Thread) Now() sim.Time { return t.k.Now() }

// Sleep waits d without using the CPU (a device, a timer).
func (t *Thread) Sleep(d sim.Time) {
	start := t.k.Now()
	t.k.wakeAt(t, start+d)
	t.park()
	t.trace("sleep", start)
}

// trace reports a span that ends now.
func (t *Thread) trace(what string, start sim.Time) {
	if tr := t.k.Trace; tr != nil && t.k.Now() > start {
		tr(t, what, start, t.k.Now())
	}
}

// Compute uses the CPU for d. The CPU is one resource served in order:
// the work starts when the CPU is free. An interrupt thread's work
// starts at once and delays everybody else's (it preempts).
func (t *Thread) Compute(d sim.Time) {
	k := t.k
	now := k.Now()
	start := max(now, k.cpuFree)
	if t.Intr {
		start = now
		k.cpuFree = max(k.cpuFree, now) + d
	} else {
		k.cpuFree = start + d
	}
	k.cpuBusy += d
	t.k.wakeAt(t, start+d)
	t.park()
	if tr := k.Trace; tr != nil {
		if start > now {
			tr(t, "wait-cpu", now, start)
		}
		tr(t, "cpu", start, start+d)
	}
}

// Yield lets events scheduled for the present time run first.
func (t *Thread) Yield() { t.Sleep(0) }

// WaitQueue is a list of sleeping threads (a FreeBSD wait channel).
type WaitQueue struct {
	waiters []*Thread
}

// Wait sleeps on q until Wakeup.
func (t *Thread) Wait(q *WaitQueue) {
	start := t.k.Now()
	q.waiters = append(q.waiters, t)
	t.park()
	t.trace("wait", start)
}

// Wakeup makes every thread sleeping on q runnable after wake (the
// wake-up latency), in the order they went to sleep.
func (k *Kernel) Wakeup(q *WaitQueue, wake sim.Time) {
	ws := q.waiters
	q.waiters = nil
	for _, t := range ws {
		k.wakeAt(t, k.Now()+wake)
	}
}

// Waiting is the number of threads sleeping on q.
func (q *WaitQueue) Waiting() int { return len(q.waiters) }

// Shutdown ends every thread that has not finished (their goroutines
// exit); the kernel must not be used afterwards.
func (k *Kernel) Shutdown() {
	for _, t := range k.threads {
		if !t.done {
			t.resume <- false
			<-t.parked
		}
	}
	k.threads = nil
}
