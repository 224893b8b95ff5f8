package lanai

import (
	"math/rand"
	"testing"
)

// Variants of twoLoops in which both loops are loop.go's (B stores its
// flag), some with A's path depending on r9 (read first) and A's rounds
// following each other without B, some with a busy pass of A that leaves
// r10 for the next to set, run against stepping as
// TestTwoLoopsAgainstStepping runs them (random runs and steps,
// breakpoints set and cleared on the loops, register writes, writes from
// outside, the history read now and then, booked SRAM): the state at
// every run's end is that of stepping, and proofs are taken again
// (loopRevive) thousands of times. It fails when loopRevive takes a
// register the iteration reads first as one it does not, when it does
// not wait an iteration for a register the iteration may write, when it
// looks only at the words written from outside (B's store to the word A
// reads is the core's own), when a breakpoint set or cleared does not
// forget the kept proofs, when trade leaves out the register log, and
// when a proof taken again from a slot does not write the held transfers
// out first; with loopRevive off its count check fails (checked each).
func TestLoopReviveAgainstStepping(t *testing.T) {
	defer func(n int) { keptMin = n }(keptMin)
	keptMin = 1 // the loops are short
	var revivals, skipped uint64
	for seed := int64(1); seed <= int64(*lockstepSeeds); seed++ {
		variant := int(seed%16) | 16 | int(seed%2)<<5 | int(min(seed%3, 1))<<6
		if seed%4 == 1 {
			variant |= 128 | 32
		}
		for _, v := range []int{variant, int(seed%16) | 16 | int(seed/16%2)<<5} {
			fast, slow := twoLoopsCore(t, rand.New(rand.NewSource(seed)), v), twoLoopsCore(t, rand.New(rand.NewSource(seed)), v)
			randomLockstep(t, seed, fast, slow, []uint32{0x1000, 0x1004, 0x1014, 0x3000})
			revivals += fast.loop.revivals
			skipped += fast.SkippedCycles
		}
	}
	if revivals < uint64(*lockstepSeeds)*20 || skipped < uint64(*lockstepSeeds)*200_000 {
		t.Errorf("%d proofs taken again, %d cycles skipped", revivals, skipped)
	}
	t.Logf("%d proofs taken again, %d cycles skipped", revivals, skipped)
}
