package node

import (
	"sync/atomic"
	"testing"
)

// The hand-over: every post is answered once, after the work.
func TestAwaitHandOver(t *testing.T) {
	var posted, done atomic.Uint64
	var wa, ca atomic.Bool
	wake, fin := make(chan struct{}, 1), make(chan struct{}, 1)
	shared := 0
	go func() {
		for step := uint64(1); step <= 200000; step++ {
			await(&posted, step, &wa, wake)
			shared++
			done.Store(step)
			if ca.CompareAndSwap(true, false) {
				fin <- struct{}{}
			}
		}
	}()
	for step := uint64(1); step <= 200000; step++ {
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
