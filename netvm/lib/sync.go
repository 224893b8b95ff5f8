package lib

import "lanaiemu/netvm/freebsd"

// Post is V on a counter of a remote (or local) endpoint: a notify-only
// WRITE (no bytes) through region import imp, naming counter import ctr.
// It is how a Semaphore is released and a WaitQueue woken.
func (ep *EP) Post(t *freebsd.Thread, imp, ctr int) (uint32, error) {
	return ep.Write(t, 0, imp, 0, 0, ctr)
}

// Semaphore is a counting semaphore whose count is counter Ctr of its
// home endpoint: V is a Post from anywhere, P (on the home node) waits
// until the counter exceeds the units already taken.
type Semaphore struct {
	EP    *EP
	Ctr   int
	Block bool // P sleeps (block wait) instead of spinning
	taken uint64
}

// P takes one unit, waiting for a Post if there is none.
func (s *Semaphore) P(t *freebsd.Thread) error {
	s.taken++
	if s.Block {
		return s.EP.WaitBlock(t, s.Ctr, s.taken)
	}
	s.EP.WaitBusy(t, s.Ctr, s.taken)
	return nil
}

// TryP takes one unit if there is one, without waiting.
func (s *Semaphore) TryP() bool {
	if s.EP.Counter(s.Ctr) > s.taken {
		s.taken++
		return true
	}
	return false
}

// WaitQueue is a FIFO of waiters on counter Ctr of its home endpoint:
// the n-th Wait returns after the n-th wake (a Post from anywhere), so
// waiters leave in the order they came; a wake with nobody waiting is
// kept for the next waiter.
type WaitQueue struct {
	EP      *EP
	Ctr     int
	Block   bool
	arrived uint64
}

// Wait waits for this waiter's wake.
func (q *WaitQueue) Wait(t *freebsd.Thread) error {
	q.arrived++
	mine := q.arrived
	if q.Block {
		return q.EP.WaitBlock(t, q.Ctr, mine)
	}
	q.EP.WaitBusy(t, q.Ctr, mine)
	return nil
}
