//go:build unix

package cputime

import "testing"

// TestSecondsGrowsWithWork checks that a busy loop of about 10 ms moves
// the clock by at least 1 ms.
func TestSecondsGrowsWithWork(t *testing.T) {
	start := Seconds()
	if start <= 0 {
		t.Fatalf("Seconds() = %v at start, want > 0", start)
	}
	x := uint64(1)
	for i := 0; i < 10_000_000; i++ {
		x = x*6364136223846793005 + 1
	}
	got := Seconds() - start
	if x == 0 || got < 0.001 {
		t.Fatalf("10 M multiply-adds took %v s of CPU time, want more", got)
	}
}
