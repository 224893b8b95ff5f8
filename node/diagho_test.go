package node

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestDiagHandOver(t *testing.T) {
	var posted, done atomic.Uint64
	var wa, ca atomic.Bool
	wake, fin := make(chan struct{}, 1), make(chan struct{}, 1)
	const N = 200000
	go func() {
		for step := uint64(1); step <= N; step++ {
			await(&posted, step, &wa, wake)
			done.Store(step)
			if ca.CompareAndSwap(true, false) {
				fin <- struct{}{}
			}
		}
	}()
	t0 := time.Now()
	for step := uint64(1); step <= N; step++ {
		posted.Store(step)
		if wa.CompareAndSwap(true, false) {
			wake <- struct{}{}
		}
		await(&done, step, &ca, fin)
	}
	t.Logf("round trip %v", time.Since(t0)/N)
}
