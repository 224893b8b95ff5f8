package node

import (
	"sync/atomic"
	"testing"
)

// The hand-over (await): 100,000 steps posted to a worker and waited for;
// after each wait the worker has done exactly that step's work, never
// less (a token left from the step before once woke the waiter early; the
// race detector also checks the ordering).
func TestAwaitHandOver(t *testing.T) {
	var posted, done atomic.Uint64
	var wa, ca atomic.Bool
	wake, fin := make(chan struct{}, 1), make(chan struct{}, 1)
	shared := 0
	go func() {
		for step := uint64(1); step <= 100000; step++ {
			await(&posted, step, &wa, wake)
			shared++
			done.Store(step)
			if ca.CompareAndSwap(true, false) {
				fin <- struct{}{}
			}
		}
	}()
	for step := uint64(1); step <= 100000; step++ {
		posted.Store(step)
		if wa.CompareAndSwap(true, false) {
			wake <- struct{}{}
		}
		await(&done, step, &ca, fin)
		if shared != int(step) {
			t.Fatalf("step %d: worker at %d", step, shared)
		}
	}
}
