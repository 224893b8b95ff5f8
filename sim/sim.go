// Package sim is the deterministic timeline that every node, device and
// host model of a simulation shares: one integer time base, clocks that
// convert cycle counts to it exactly, and one event queue whose ties are
// broken by a fixed rule.
//
// Time is counted in picoseconds. A clock whose period does not divide a
// picosecond count (133 MHz: 7518.79... ps) is converted from the absolute
// cycle count each time (floor(cycles * 1e12 / Hz)), never by adding a
// rounded period, so conversions do not drift. No floating point is used in
// the timeline.
package sim

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Time is simulated time in picoseconds.
type Time uint64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond       = 1000 * Picosecond
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
)

// Never is a time after every event.
const Never = ^Time(0)

// String prints a time in the largest unit that keeps it readable.
func (t Time) String() string {
	switch {
	case t == Never:
		return "never"
	case t >= Second:
		return fmt.Sprintf("%.6fs", float64(t)/float64(Second))
	case t >= Millisecond:
		return fmt.Sprintf("%.6fms", float64(t)/float64(Millisecond))
	case t >= Microsecond:
		return fmt.Sprintf("%.3fus", float64(t)/float64(Microsecond))
	case t >= Nanosecond:
		return fmt.Sprintf("%.3fns", float64(t)/float64(Nanosecond))
	}
	return fmt.Sprintf("%dps", uint64(t))
}

// Clock converts between a clock's cycle counts and Time.
type Clock struct {
	Hz uint64
}

// Time is the time at which cycle n begins: floor(n * 1e12 / Hz).
func (c Clock) Time(n uint64) Time {
	hi, lo := bits.Mul64(n, uint64(Second))
	if hi >= c.Hz {
		return Never
	}
	q, _ := bits.Div64(hi, lo, c.Hz)
	return Time(q)
}

// Cycles is the first cycle that begins at or after t: ceil(t * Hz / 1e12).
func (c Clock) Cycles(t Time) uint64 {
	hi, lo := bits.Mul64(uint64(t), c.Hz)
	if hi >= uint64(Second) {
		return ^uint64(0)
	}
	q, r := bits.Div64(hi, lo, uint64(Second))
	if r != 0 {
		q++
	}
	return q
}

// Event is something that happens at a time, on behalf of a node (or -1
// for the fabric and other shared models).
type Event struct {
	At   Time
	Node int
	Fn   func()
	seq  uint64
}

// Queue is an event queue ordered by time, then node id, then the order in
// which events were scheduled: never by map order or goroutine timing.
type Queue struct {
	h   eventHeap
	seq uint64
	now Time
	// BeforeEvent, if set, is called with an event's node before the
	// event runs (a runner that lets boards fall behind brings the node's
	// board up to date there). A second user sets a function that calls
	// the first (node.New does).
	BeforeEvent func(node int)
}

// Now is the time of the event being run (or last run).
func (q *Queue) Now() Time { return q.now }

// Schedule adds an event. Scheduling in the past is an error of the caller
// and is treated as "now".
func (q *Queue) Schedule(at Time, node int, fn func()) {
	if at < q.now {
		at = q.now
	}
	q.seq++
	q.h.push(Event{At: at, Node: node, Fn: fn, seq: q.seq})
}

// Next is the time of the earliest event, or Never.
func (q *Queue) Next() Time {
	if len(q.h) == 0 {
		return Never
	}
	return q.h[0].At
}

// Len is the number of pending events.
func (q *Queue) Len() int { return len(q.h) }

// RunUntil runs every event whose time is at most t, in order, and leaves
// Now at t.
func (q *Queue) RunUntil(t Time) {
	for len(q.h) > 0 && q.h[0].At <= t {
		e := q.h.pop()
		q.now = e.At
		if q.BeforeEvent != nil {
			q.BeforeEvent(e.Node)
		}
		e.Fn()
	}
	if t > q.now {
		q.now = t
	}
}

// eventHeap is a binary min-heap of events, written out for the element
// type so that scheduling and running allocate nothing (container/heap
// boxes every element in an interface).
type eventHeap []Event

func (a *Event) before(b *Event) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	if a.Node != b.Node {
		return a.Node < b.Node
	}
	return a.seq < b.seq
}

func (h *eventHeap) push(e Event) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].before(&s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *eventHeap) pop() Event {
	s := *h
	e := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = Event{}
	s = s[:n]
	*h = s
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].before(&s[l]) {
			m = r
		}
		if !s[m].before(&s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return e
}

// Rand is the seeded generator a scenario names (SplitMix64): the only
// source of randomness in a simulation, so that a seed reproduces a run.
type Rand struct{ state uint64 }

// NewRand makes a generator from a seed.
func NewRand(seed uint64) *Rand { return &Rand{state: seed} }

// Uint64 returns the next value.
func (r *Rand) Uint64() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// Intn returns a value in [0, n).
func (r *Rand) Intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(r.Uint64() % uint64(n))
}

// Chance reports true with probability ppm/1e6 (parts per million, so that
// scenarios need no floating point).
func (r *Rand) Chance(ppm uint32) bool { return r.Uint64()%1_000_000 < uint64(ppm) }

// ParseDuration parses a duration written as a decimal number and a unit
// ("10ms", "1.5us", "100ns", "250ps", "2s"; "µs" is "us") into picoseconds,
// exactly (digits below a picosecond are dropped). It is the one time syntax
// of scenario files, command-line flags and the debugger.
func ParseDuration(s string) (Time, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suf string
		v   Time
	}{{"ps", Picosecond}, {"ns", Nanosecond}, {"us", Microsecond}, {"µs", Microsecond}, {"ms", Millisecond}, {"s", Second}}
	for _, u := range units {
		num, ok := strings.CutSuffix(s, u.suf)
		if !ok || num == "" {
			continue
		}
		whole, frac, _ := strings.Cut(num, ".")
		w, err := strconv.ParseUint(whole, 10, 64)
		if err != nil {
			break
		}
		t := Time(w) * u.v
		if Time(w) != t/u.v {
			return 0, fmt.Errorf("duration %q overflows", s)
		}
		scale := u.v
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("bad duration %q", s)
			}
			scale /= 10
			t += Time(c-'0') * scale
			if t < Time(w)*u.v {
				return 0, fmt.Errorf("duration %q overflows", s)
			}
		}
		return t, nil
	}
	return 0, fmt.Errorf("bad duration %q (want a number and a unit: ps, ns, us, ms, s)", s)
}
