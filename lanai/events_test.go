package lanai

import (
	"math/rand"
	"slices"
	"testing"

	"lanaiemu/asm"
)

// The queue's first (what every run reads instead of the heap's head) is
// the earliest event's cycle after every push and pop, ^0 when empty.
func TestEventQueueFirstIsTheHead(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	q := newEventQueue()
	for i := range 20000 {
		if q.len() == 0 || rng.Intn(3) > 0 && q.len() < 40 {
			q.seq++
			q.push(event{at: uint64(rng.Intn(50)), seq: q.seq}, rng.Intn(2) == 0)
		} else {
			q.pop()
		}
		want := ^uint64(0)
		for _, e := range append(q.near, q.far...) {
			want = min(want, e.at)
		}
		if q.first != want {
			t.Fatalf("step %d: first %d, earliest event %d (%d queued)", i, q.first, want, q.len())
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

// The event queue gives its events in (cycle, scheduling order), as a
// sorted list does, under random interleavings of pushes and pops with
// many events at the same cycle and queues of up to a few hundred, each
// event going into the near or the far heap at random (in some rounds
// nearly all into one).
func TestEventQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for round := range 200 {
		q := newEventQueue()
		var ref []event
		spread := int64(1 + rng.Intn(1000))
		farShare := []int{0, 2, 50, 98, 100}[round%5]
		for op := range 2000 {
			if len(ref) == 0 || rng.Intn(100) < 40+round%30 {
				q.seq++
				e := event{at: uint64(rng.Int63n(spread)) + uint64(op)/4, seq: q.seq}
				q.push(e, rng.Intn(100) < farShare)
				ref = append(ref, e)
				continue
			}
			i := slices.IndexFunc(ref, func(e event) bool { // the earliest
				for _, f := range ref {
					if f.before(&e) {
						return false
					}
				}
				return true
			})
			want := ref[i]
			ref = slices.Delete(ref, i, i+1)
			if got := q.pop(); got.at != want.at || got.seq != want.seq {
				t.Fatalf("round %d, op %d: popped (%d, %d), want (%d, %d)", round, op, got.at, got.seq, want.at, want.seq)
			}
			if q.len() != len(ref) {
				t.Fatalf("round %d: %d queued, want %d", round, q.len(), len(ref))
			}
		}
	}
}

// BenchmarkEventQueue schedules and runs events as a busy board does: a
// few dozen far expiries queued (timers loaded again) while device steps
// each schedule the next one a few hundred cycles on (Schedule's choice
// of heap).
func BenchmarkEventQueue(b *testing.B) {
	q := newEventQueue()
	for i := range 28 {
		q.seq++
		q.push(event{at: 1<<40 + uint64(i)*1000, seq: q.seq}, true)
	}
	now := uint64(0)
	for range 3 {
		q.seq++
		q.push(event{at: now + 200, seq: q.seq}, false)
	}
	b.ResetTimer()
	for range b.N {
		e := q.pop()
		now = e.at
		q.seq++
		q.push(event{at: now + 150 + now%97, seq: q.seq}, false)
	}
}

// A core runs its scheduled events in (cycle, scheduling order) whichever
// heap Schedule puts them in: events scheduled from outside and by events,
// at cycles passed, due now, just inside and just outside farEvent ahead
// and far beyond, with many ties between near and far events (a far event
// comes due beside near ones scheduled later), runs of random lengths and
// resets that must drop the far events too. After every run the core's
// next event is the reference's.
func TestScheduleOrderAcrossHeaps(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	// A polling loop the core proves and skips to its next event with.
	c, im := load(t, linkSources(t, asm.Source{Name: "poll.s", Text: []byte(`
	.globl	_start
_start:
	mov	0x1000, %r9
.Lpoll:
	ld	0[%r9], %r7
	sub.f	%r7, 0, %r0
	beq	.Lpoll
	nop
`)}), Config{})
	type ref struct {
		at, seq uint64
		far     bool // Schedule put it in the far heap
	}
	var pending []ref // what the core should hold, in scheduling order
	seq := uint64(0)
	var skipped uint64       // cycles the proved loop skipped
	fired, crossTies := 0, 0 // crossTies: events run beside one of the other heap due at the same cycle
	var schedule func()
	schedule = func() {
		var at uint64
		switch now := c.Cycles; rng.Intn(6) {
		case 0:
			at = now - min(now, uint64(rng.Intn(20))) // due at once
		case 1:
			at = now + farEvent - 2 + uint64(rng.Intn(4)) // the threshold
		case 2:
			at = now + uint64(rng.Intn(3*farEvent))
		case 3:
			at = now + uint64(rng.Intn(64))
		case 4: // a cycle already queued, soon: a tie with an event of either heap
			at = now
			for _, p := range pending {
				if p.at >= now && p.at < now+2*farEvent && rng.Intn(3) == 0 {
					at = p.at
				}
			}
		default:
			at = now + 1<<20 + uint64(rng.Intn(3))<<20
		}
		seq++
		me := ref{at, seq, at > c.Cycles && at-c.Cycles >= farEvent}
		pending = append(pending, me)
		c.Schedule(at, func() {
			i := slices.Index(pending, me)
			if i < 0 {
				t.Fatalf("event (%d, %d) ran, but it was not pending (a reset dropped it)", me.at, me.seq)
			}
			for _, p := range pending {
				if p.at == me.at && p.far != me.far {
					crossTies++
				}
				if p.at <= c.Cycles && (p.at < me.at || p.at == me.at && p.seq < me.seq) {
					t.Fatalf("cycle %d: event (%d, %d) ran before (%d, %d)", c.Cycles, me.at, me.seq, p.at, p.seq)
				}
			}
			if me.at > c.Cycles {
				t.Fatalf("event of cycle %d ran at %d", me.at, c.Cycles)
			}
			pending = slices.Delete(pending, i, i+1)
			fired++
			for rng.Intn(3) == 0 {
				schedule()
			}
		})
	}
	for step := range 10000 {
		for len(pending) < 60 && rng.Intn(2) == 0 {
			schedule()
		}
		if step%1500 == 1499 {
			skipped += c.SkippedCycles
			c.Reset(im.Entry)
			pending = pending[:0]
		}
		if s := c.Run(1 + uint64(rng.Intn([]int{16, 600, 2 * farEvent}[rng.Intn(3)]))); s != CycleLimit {
			t.Fatalf("step %d: run stopped: %v", step, s)
		}
		want := ^uint64(0)
		for _, p := range pending {
			want = min(want, p.at)
		}
		if got := c.NextEvent(); got != want {
			t.Fatalf("step %d, cycle %d: next event %d, want %d (%d pending)", step, c.Cycles, got, want, len(pending))
		}
	}
	if skipped += c.SkippedCycles; fired < 2000 || crossTies < 60 || skipped == 0 {
		t.Fatalf("only %d events ran, %d of them tied with an event of the other heap, %d cycles skipped", fired, crossTies, skipped)
	}
}

// Cancel takes out exactly the event named, from either heap, and the
// others still run in (cycle, scheduling) order; a name from before a
// reset names nothing after it.
func TestCancelKeepsTheOrder(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	type pend struct {
		ref EventRef
		id  int
	}
	var live []pend
	var want, got []int
	for id := range 3000 {
		at := uint64(rng.Intn(3 * farEvent)) // near and far
		live = append(live, pend{c.ScheduleRef(at, func() { got = append(got, id) }), id})
		if rng.Intn(3) == 0 {
			k := rng.Intn(len(live))
			if !c.Cancel(live[k].ref) {
				t.Fatalf("event %d was not found", live[k].id)
			}
			if c.Cancel(live[k].ref) {
				t.Fatalf("event %d was cancelled twice", live[k].id)
			}
			live = append(live[:k], live[k+1:]...)
		}
	}
	slices.SortStableFunc(live, func(a, b pend) int {
		switch {
		case a.ref.at < b.ref.at:
			return -1
		case a.ref.at > b.ref.at:
			return 1
		}
		return 0
	})
	for _, p := range live {
		want = append(want, p.id)
	}
	if c.PendingEvents() != len(live) {
		t.Fatalf("%d events queued, want %d", c.PendingEvents(), len(live))
	}
	c.Run(4 * farEvent)
	if !slices.Equal(got, want) {
		t.Fatalf("ran %d events, want %d, or in another order", len(got), len(want))
	}
	c.Reset(0)
	ref := c.ScheduleRef(10, func() {})
	c.Reset(0)
	c.Schedule(10, func() {}) // the same cycle, and the first since a reset
	if c.Cancel(ref) || c.PendingEvents() != 1 {
		t.Fatal("a name from before the reset cancelled an event after it")
	}
}
