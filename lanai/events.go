package lanai

// An event is a function the core runs when its cycle count reaches at.
// Events at the same cycle run in the order they were scheduled.
type event struct {
	at  uint64
	seq uint64
	fn  func()
}

// eventQueue holds the scheduled events in two binary min-heaps ordered
// by (at, seq), written out for the element type so that scheduling and
// running an event allocate nothing (container/heap boxes every element
// in an interface). Events due soon (device steps: a DMA burst's end, a
// packet's) go into near, those far ahead (timer expiries, among them the
// wrap 2^32 ticks after each expiry) into far; pop takes the earlier of
// the two heads, so the order is one heap's, while the device steps
// that come and go all the time sift through a heap of a few events.
type eventQueue struct {
	near, far eventHeap
	seq       uint64
	// first is the earliest event's at, ^0 when there is none
	// (newEventQueue): every run asks for it at its start and end, and
	// reads it here, beside the core's counters, instead of in the
	// heaps' arrays (a cache line more per run of a board that a
	// cluster's step visits).
	first uint64
}

// farEvent is how many cycles ahead an event goes into the far heap.
const farEvent = 1 << 12

// eventHeap is a binary min-heap of events ordered by (at, seq).
type eventHeap []event

// newEventQueue is an empty queue.
func newEventQueue() eventQueue { return eventQueue{first: ^uint64(0)} }

func (e *event) before(f *event) bool { return e.at < f.at || e.at == f.at && e.seq < f.seq }

// len is the number of events queued.
func (q *eventQueue) len() int { return len(q.near) + len(q.far) }

// push adds e, to the far heap if far.
func (q *eventQueue) push(e event, far bool) {
	if far {
		q.far.push(e)
	} else {
		q.near.push(e)
	}
	q.first = min(q.first, e.at)
}

// pop removes and returns the earliest event.
func (q *eventQueue) pop() event {
	var e event
	if len(q.far) == 0 || len(q.near) > 0 && q.near[0].before(&q.far[0]) {
		e = q.near.pop()
	} else {
		e = q.far.pop()
	}
	q.refirst()
	return e
}

// refirst sets first from the heads after a removal.
func (q *eventQueue) refirst() {
	q.first = ^uint64(0)
	if len(q.near) > 0 {
		q.first = q.near[0].at
	}
	if len(q.far) > 0 {
		q.first = min(q.first, q.far[0].at)
	}
}

// remove takes out the event r names, if it is queued.
func (q *eventQueue) remove(r EventRef) bool {
	if !q.near.remove(r) && !q.far.remove(r) {
		return false
	}
	q.refirst()
	return true
}

// push adds e.
func (hp *eventHeap) push(e event) {
	*hp = append(*hp, e)
	h := *hp
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// pop removes and returns the earliest event (the heap is not empty).
func (hp *eventHeap) pop() event {
	h := *hp
	e := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = event{} // drop the closure for the collector
	h = h[:n]
	*hp = h
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return e
}

// remove takes out the event r names, if it is in the heap: the event
// moves up to the root, as if it were due first (each parent it passes
// moves down into its place, still before everything under it), and
// pops. The order in which the others pop does not change: (at, seq)
// orders them all, whatever the heap's shape.
func (hp *eventHeap) remove(r EventRef) bool {
	h := *hp
	for i := range h {
		if h[i].seq != r.seq || h[i].at != r.at {
			continue
		}
		for i > 0 {
			p := (i - 1) / 2
			h[i], h[p] = h[p], h[i]
			i = p
		}
		hp.pop()
		return true
	}
	return false
}

// Schedule runs fn when the cycle count reaches at (at once, at the next
// instruction boundary, if at has passed). Devices use it instead of being
// ticked every cycle.
func (c *CPU) Schedule(at uint64, fn func()) {
	q := &c.events
	q.seq++
	q.push(event{at: at, seq: q.seq, fn: fn}, at > c.Cycles && at-c.Cycles >= farEvent)
	if at < c.deadline {
		c.deadline = at
	}
	if at < c.skipLimit {
		c.skipLimit = at
	}
	c.loopChanged()
}

// EventRef names a scheduled event, for Cancel. The zero EventRef names
// none.
type EventRef struct{ at, seq uint64 }

// ScheduleRef is Schedule, and returns a name of the event for Cancel.
func (c *CPU) ScheduleRef(at uint64, fn func()) EventRef {
	c.Schedule(at, fn)
	return EventRef{at: at, seq: c.events.seq}
}

// Cancel takes the event r names out of the queue if it has not run (nor
// been dropped by a Reset) and reports whether it did. A device whose
// scheduled step is superseded (a timer loaded again) cancels it rather
// than leave it queued until its cycle, perhaps 2^32 timer ticks away:
// the queue then holds only what can still happen, and its length does
// not grow with simulated time. The other events keep their order. It
// looks through the queue, so it is for events replaced now and then,
// not for every device step.
func (c *CPU) Cancel(r EventRef) bool {
	if r.seq == 0 {
		return false
	}
	return c.events.remove(r)
}

// PendingEvents is the number of events scheduled and not yet run.
func (c *CPU) PendingEvents() int { return c.events.len() }

// DeviceChanged tells the core that a device changed what the core may
// read, possibly outside the core's events (a device acting on a call from
// another model): a proved loop's proof is checked again (loopRecheck)
// before the core executes its next instruction.
func (c *CPU) DeviceChanged() { c.loopChanged() }

// NextEvent is the cycle of the core's earliest scheduled event (a device's
// next change), or ^0 when there is none. A runner that lets idle nodes
// advance in long steps bounds the steps by it.
func (c *CPU) NextEvent() uint64 { return c.nextEvent() }

// nextEvent is the cycle of the earliest event, or ^0 when there is none.
func (c *CPU) nextEvent() uint64 { return c.events.first }

// runEvents runs every event that is due.
func (c *CPU) runEvents() {
	for c.events.first <= c.Cycles && c.events.len() > 0 && c.stop == nil { // (first is ^0 when there is none)
		e := c.events.pop()
		e.fn()
		// An event may change what a polling loop reads between its load
		// and its branch: loopChanged ends poll.go's evidence of a fixed
		// point and any watch.
		c.loopChanged()
	}
	// A proved loop keeps its proof only if the change left what it reads
	// alone: checked before the core executes again (also after writes
	// from outside between runs, which the next run meets here first).
	if c.loop.proved && c.loopDirty() {
		c.loopRecheck()
	}
}
