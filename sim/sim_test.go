package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClock(t *testing.T) {
	c := Clock{Hz: 133_000_000}
	// 133 cycles take exactly one microsecond.
	if got := c.Time(133); got != Microsecond {
		t.Errorf("Time(133) = %v", got)
	}
	// One cycle: floor(1e12/133e6) = 7518 ps.
	if got := c.Time(1); got != 7518 {
		t.Errorf("Time(1) = %d", got)
	}
	// No drift: a second of cycles is a second.
	if got := c.Time(133_000_000); got != Second {
		t.Errorf("Time(133e6) = %v", got)
	}
	// Cycles rounds up to the first cycle starting at or after t.
	if got := c.Cycles(7518); got != 1 {
		t.Errorf("Cycles(7518ps) = %d", got)
	}
	if got := c.Cycles(7519); got != 2 {
		t.Errorf("Cycles(7519ps) = %d", got)
	}
	for n := uint64(0); n < 10000; n += 7 {
		if c.Cycles(c.Time(n)) != n {
			t.Fatalf("Cycles(Time(%d)) = %d", n, c.Cycles(c.Time(n)))
		}
	}
}

func TestQueueOrder(t *testing.T) {
	var q Queue
	var got []int
	q.Schedule(10, 1, func() { got = append(got, 3) })
	q.Schedule(10, 0, func() { got = append(got, 2) })
	q.Schedule(5, 7, func() { got = append(got, 1) })
	q.Schedule(10, 1, func() { got = append(got, 4) })
	q.Schedule(20, 0, func() { got = append(got, 5) })
	q.RunUntil(15)
	if len(got) != 4 || got[0] != 1 || got[1] != 2 || got[2] != 3 || got[3] != 4 || q.Now() != 15 {
		t.Errorf("order %v, now %v", got, q.Now())
	}
	if q.Next() != 20 {
		t.Errorf("next %v", q.Next())
	}
}

func TestRandDeterministic(t *testing.T) {
	a, b := NewRand(42), NewRand(42)
	for i := 0; i < 100; i++ {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same seed, different values")
		}
	}
	if NewRand(1).Uint64() == NewRand(2).Uint64() {
		t.Error("different seeds, same first value")
	}
}

func TestParseDuration(t *testing.T) {
	for s, want := range map[string]Time{
		"10ms": 10 * Millisecond, "1.5us": 1500 * Nanosecond, "1.5µs": 1500 * Nanosecond, "250ps": 250,
		"2s": 2 * Second, "0.1ns": 100, " 7ns ": 7 * Nanosecond, "0.0004ns": 0, "1.us": Microsecond,
		"18446744.073709551615s": Never, "12.3456789ms": 12_345_678_900,
	} {
		got, err := ParseDuration(s)
		if assert.NoError(t, err, s) {
			assert.Equal(t, want, got, s)
		}
	}
	for _, s := range []string{"", "5", "us", "forever", "-1us", "+1us", "1e3ns", "1.2.3us", "1.5xs", "0x10ns", ".5us",
		"18446745s", "18446744.073709551616s", "99999999999999999999ps"} {
		_, err := ParseDuration(s)
		require.Error(t, err, "%q", s)
		assert.Contains(t, err.Error(), "duration", "%q", s)
	}
}
