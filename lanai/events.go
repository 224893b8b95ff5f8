package lanai

import "container/heap"

// An event is a function the core runs when its cycle count reaches at.
// Events at the same cycle run in the order they were scheduled.
type event struct {
	at  uint64
	seq uint64
	fn  func()
}

type eventQueue struct {
	h   eventHeap
	seq uint64
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// Schedule runs fn when the cycle count reaches at (at once, at the next
// instruction boundary, if at has passed). Devices use it instead of being
// ticked every cycle.
func (c *CPU) Schedule(at uint64, fn func()) {
	q := &c.events
	q.seq++
	heap.Push(&q.h, event{at: at, seq: q.seq, fn: fn})
	if at < c.deadline {
		c.deadline = at
	}
	if at < c.skipLimit {
		c.skipLimit = at
	}
}

// NextEvent is the cycle of the core's earliest scheduled event (a device's
// next change), or ^0 when there is none. A runner that lets idle nodes
// advance in long steps bounds the steps by it.
func (c *CPU) NextEvent() uint64 { return c.nextEvent() }

// nextEvent is the cycle of the earliest event, or ^0 when there is none.
func (c *CPU) nextEvent() uint64 {
	if len(c.events.h) == 0 {
		return ^uint64(0)
	}
	return c.events.h[0].at
}

// runEvents runs every event that is due.
func (c *CPU) runEvents() {
	for len(c.events.h) > 0 && c.events.h[0].at <= c.Cycles && c.stop == nil {
		e := heap.Pop(&c.events.h).(event)
		e.fn()
		// An event may change what a polling loop reads between its load
		// and its branch: the iteration in flight is no evidence of a
		// fixed point any more.
		c.pollTrack.valid = false
	}
}
