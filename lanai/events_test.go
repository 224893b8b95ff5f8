package lanai

import (
	"math/rand"
	"testing"
)

// The queue's first (what every run reads instead of the heap's head) is
// the earliest event's cycle after every push and pop, ^0 when empty.
func TestEventQueueFirstIsTheHead(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	q := newEventQueue()
	for i := range 20000 {
		if len(q.h) == 0 || rng.Intn(3) > 0 && len(q.h) < 40 {
			q.seq++
			q.push(event{at: uint64(rng.Intn(50)), seq: q.seq})
		} else {
			q.pop()
		}
		want := ^uint64(0)
		for _, e := range q.h {
			want = min(want, e.at)
		}
		if q.first != want {
			t.Fatalf("step %d: first %d, earliest event %d (%d queued)", i, q.first, want, len(q.h))
		}
	}
}

// A core's next event follows what is scheduled (also by an event) and
// run, and a reset empties the queue: a stale first would run an event
// early, late or not at all, or report one that is gone.
func TestNextEventFollowsTheQueue(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	pending := map[uint64]bool{}
	var fired []uint64
	at := func(cycle uint64, then func()) {
		pending[cycle] = true
		c.Schedule(cycle, func() {
			if c.Cycles < cycle {
				t.Errorf("event of cycle %d ran at %d", cycle, c.Cycles)
			}
			delete(pending, cycle)
			fired = append(fired, cycle)
			if then != nil {
				then()
			}
		})
	}
	check := func() {
		t.Helper()
		want := ^uint64(0)
		for e := range pending {
			want = min(want, e)
		}
		if got := c.NextEvent(); got != want {
			t.Fatalf("cycle %d: next event %d, want %d", c.Cycles, got, want)
		}
	}
	check()
	at(500, nil)
	at(100, nil)
	at(300, func() { at(c.Cycles+50, nil) })
	check()
	for c.Cycles < 700 {
		c.Run(7)
		check()
	}
	if len(fired) != 4 || fired[0] != 100 || fired[1] != 300 || fired[2] < 350 || fired[3] != 500 {
		t.Fatalf("events ran in order %v", fired)
	}
	at(c.Cycles+10, nil)
	check()
	c.Reset(0)
	clear(pending)
	check()
	c.Run(100)
	if len(fired) != 4 {
		t.Fatalf("an event scheduled before the reset ran: %v", fired)
	}
}
