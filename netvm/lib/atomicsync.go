package lib

import "lanaiemu/netvm/freebsd"

// The standard synchronisation objects on remote atomics (E8's baseline,
// docs/reproduction.md): their state is words of a region exported with
// ExportAtomic on a home node, shared by threads of every other node. A
// thread waits by reading a word (a fetch-and-add of 0) until it passes
// its ticket: only atomics, no notification. Every thread uses its own
// endpoint (an EP serves one thread).

// AtomicSemaphore is a counting semaphore on three words at Off of
// import Imp: the count (negative: that many waiters), the waiters'
// ticket dispenser and the wakes given. P is a fetch-and-add of -1 that
// keeps a unit when the old count was positive; otherwise it takes a
// ticket and waits until the wakes pass it. V is a fetch-and-add of +1
// that gives a wake when the old count was negative. Its count starts at
// 0 (Add sets units).
type AtomicSemaphore struct {
	EP  *EP
	Imp int
	Off uint32
}

// Word offsets of an AtomicSemaphore, and its size.
const (
	semCount   = 0
	semTickets = 4
	semWakes   = 8
	// AtomicSemaphoreSize is the bytes an AtomicSemaphore's words take.
	AtomicSemaphoreSize = 12
)

// P takes one unit, waiting for a V if there is none.
func (s *AtomicSemaphore) P(t *freebsd.Thread) error {
	old, err := s.EP.FetchAdd(t, s.Imp, s.Off+semCount, ^uint32(0))
	if err != nil || int32(old) > 0 {
		return err
	}
	tk, err := s.EP.FetchAdd(t, s.Imp, s.Off+semTickets, 1)
	if err != nil {
		return err
	}
	return s.EP.pollUntil(t, s.Imp, s.Off+semWakes, tk+1)
}

// V gives one unit, waking the oldest waiter if there is one.
func (s *AtomicSemaphore) V(t *freebsd.Thread) error {
	old, err := s.EP.FetchAdd(t, s.Imp, s.Off+semCount, 1)
	if err != nil || int32(old) >= 0 {
		return err
	}
	_, err = s.EP.FetchAdd(t, s.Imp, s.Off+semWakes, 1)
	return err
}

// TicketQueue is a FIFO wait queue on two words at Off of import Imp:
// the ticket dispenser and the serving count. Wait takes a ticket with a
// fetch-and-add and waits until the serving count passes it; Wake adds
// one to the serving count. The n-th Wait returns after the n-th Wake; a
// Wake with nobody waiting is kept for the next waiter (as WaitQueue).
type TicketQueue struct {
	EP  *EP
	Imp int
	Off uint32
}

// TicketQueueSize is the bytes a TicketQueue's words take.
const TicketQueueSize = 8

// Wait waits for this waiter's wake and returns its ticket (0, 1, ...).
func (q *TicketQueue) Wait(t *freebsd.Thread) (uint32, error) {
	tk, err := q.EP.FetchAdd(t, q.Imp, q.Off, 1)
	if err != nil {
		return 0, err
	}
	return tk, q.EP.pollUntil(t, q.Imp, q.Off+4, tk+1)
}

// Wake lets the oldest waiter go (or the next one to come).
func (q *TicketQueue) Wake(t *freebsd.Thread) error {
	_, err := q.EP.FetchAdd(t, q.Imp, q.Off+4, 1)
	return err
}

// pollUntil reads the word at off of import imp (a fetch-and-add of 0)
// until it reaches target (serial arithmetic), counting the reads in
// Stats.AtomicPolls.
func (ep *EP) pollUntil(t *freebsd.Thread, imp int, off, target uint32) error {
	for {
		v, err := ep.FetchAdd(t, imp, off, 0)
		if err != nil || int32(v-target) >= 0 {
			return err
		}
		ep.Stats.AtomicPolls++
	}
}
