package lanai

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The event queue gives its events in (cycle, scheduling order), as a
// sorted list does, under random interleavings of pushes and pops with
// many events at the same cycle and queues of up to a few hundred.
func TestEventQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		var q eventQueue
		var ref []event
		spread := uint64(1 + rng.IntN(1000))
		for op := range 2000 {
			if len(ref) == 0 || rng.IntN(100) < 40+round%30 {
				q.seq++
				e := event{at: rng.Uint64N(spread) + uint64(op)/4, seq: q.seq}
				q.push(e)
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
			if len(q.h) != len(ref) {
				t.Fatalf("round %d: %d queued, want %d", round, len(q.h), len(ref))
			}
		}
	}
}
