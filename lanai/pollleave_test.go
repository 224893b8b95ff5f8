package lanai

import (
	"testing"

	"lanaiemu/asm"
)

// pollLeaves is a polling loop (.Lw) that is left and entered again
// without a change from outside: its first iteration after the entry
// takes the branch, the next falls through to code that counts in SRAM
// (0x2000) and enters the loop again with the registers of the first
// entry. The branch's takes come with the same registers and flags each
// time round, but what lies between two takes is the code outside too.
const pollLeaves = `
	.globl _start
_start:
	mov 0x8000, %sp
.Lentry:
	mov 1, %r5
.Lw:
	ld 0x1000[%r0], %r7
	sub.f %r5, 0, %r0
	mov 0, %r5
	bne .Lw
	nop
	ld 0x2000[%r0], %r8
	add %r8, 1, %r8
	st %r8, 0x2000[%r0]
	mov 0, %r8
	bt .Lentry
	nop
`

// TestPollLeftAndEnteredAgainstStepping: poll.go must not take two takes
// of its branch with the same registers as evidence of a fixed point
// when the core left the loop between them: the state at every run's end
// (counts, registers, pc, the count in SRAM) is that of stepping.
func TestPollLeftAndEnteredAgainstStepping(t *testing.T) {
	img := linkSources(t, asm.Source{Name: "pl.s", Text: []byte(pollLeaves)})
	fast, _ := load(t, img, Config{})
	slow, _ := load(t, img, Config{})
	fast.Schedule(200_000, func() {}) // an event far off: a skip's limit
	slow.Schedule(200_000, func() {})
	runBesideStepping(t, fast, slow, 997, 50)
	t.Logf("count %d", fast.sramWord(0x2000))
}
