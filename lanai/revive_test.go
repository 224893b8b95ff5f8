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

// reviveVariants runs twoLoops variant v|extra(seed) for every seed
// against stepping (randomLockstep with writes from outside to the words
// of outside, keptMin lowered to 1) and returns the proofs taken again.
func reviveVariants(t *testing.T, v int, extra func(seed int64) int, outside ...uint32) (revivals uint64) {
	t.Helper()
	defer func(n int) { keptMin = n }(keptMin)
	keptMin = 1 // the loops are short
	for seed := int64(1); seed <= int64(*lockstepSeeds); seed++ {
		variant := v | extra(seed)
		fast, slow := twoLoopsCore(t, rand.New(rand.NewSource(seed)), variant), twoLoopsCore(t, rand.New(rand.NewSource(seed)), variant)
		randomLockstep(t, seed, fast, slow, outside)
		revivals += fast.loop.revivals
	}
	return revivals
}

// A kept loop whose code the core itself rewrites (twoLoops bit 8: B's
// exit flips an immediate in A, so that A either keeps a word or toggles
// it), run against stepping: the core's own stores into code do not go
// through the outside-write hook, so loopCodeWritten does not forget the
// kept proofs and only reviveHolds's compare of the code words keeps a
// proof of the steady version from being taken again over the toggling
// one (whose first iteration after B leaves the word as the proof had
// it). It fails with that compare taken out (checked: seed 1, run
// 477, SRAM at 0x1028 differs), and its count check fails with loopRevive off.
func TestLoopReviveSelfModifyingCode(t *testing.T) {
	revivals := reviveVariants(t, 256|1, func(seed int64) int { return int(seed%4) << 3 }, 0x1000, 0x1004, 0x1028, 0x3000)
	if revivals < uint64(*lockstepSeeds)*5 {
		t.Errorf("%d proofs taken again", revivals)
	}
	t.Logf("%d proofs taken again", revivals)
}

// A loop whose idle pass reads the carry before anything sets it and
// keeps it (twoLoops bit 10, alone: bit 7): its proofs with carry 0 and
// carry 1 differ in the flags and in the word they store 0 to, and
// alternate round by round, so one is the current proof and the other
// kept. Against stepping the state is right at every run's end; the
// count of proofs taken again is what reviveHolds's flags compare and
// trade's copy of the steady-store words are for: without the compare
// the current proof, whose registers and words hold but whose flags do
// not, is found first and fails sameState, shadowing the kept one
// (1,375 taken again in 30 programs instead of 5,178); without
// the copy a kept proof's words are zeros, which the word at address 0
// does not hold (187). (Neither can give a wrong state: sameState
// compares the flags again after the proof is copied back, and a skip
// from the head writes every store of its first iteration.) It fails
// with either taken out, and with loopRevive off (checked each).
func TestLoopReviveFlagsAndStoredWords(t *testing.T) {
	revivals := reviveVariants(t, 1024|128, func(seed int64) int { return int(seed%2) << 2 }, 0x1000, 0x1030, 0x1034, 0x3000)
	if revivals < uint64(*lockstepSeeds)*60 {
		t.Errorf("%d proofs taken again", revivals)
	}
	t.Logf("%d proofs taken again", revivals)
}
