package lanai

import (
	"bytes"
	"testing"

	"lanaiemu/asm"
)

// pollMovedBase is a polling loop (no store, a fixed point at its branch)
// whose second load goes through a base register the iteration moves and
// moves back: at the branch r5 points at an SRAM word, at the load at an
// RTC-like register (0x068 of the specials, -408) whose value ends the
// loop when it reaches 200.
const pollMovedBase = `
	.globl _start
_start:
	mov 0x8000, %sp
	mov 0x1000, %r5
	mov 0xffffee68, %r10       ! -408 - 0x1000
.Lw:
	ld 0[%r5], %r7             ! SRAM 0x1000
	add %r5, %r10, %r5         ! r5: the register
	ld 0[%r5], %r8
	sub %r5, %r10, %r5         ! r5: 0x1000 again
	sub.f %r8, 200, %r0
	mov 0, %r8
	blt .Lw
	nop
	st %r7, 0x2000[%r0]
.Ld:
	add %r9, 1, %r9
	st %r9, 0x2004[%r0]
	bt .Ld
	nop
`

func pollMovedBaseCore(t *testing.T) *CPU {
	c, _ := load(t, linkSources(t, asm.Source{Name: "pb.s", Text: []byte(pollMovedBase)}), Config{})
	hookClock(c, 50)
	return c
}

// TestPollMovedBaseAgainstStepping: poll.go must bound its skip by the
// register the loop loads from at the load (where the iteration's own
// writes put the base), not by the address the base register gives at
// the branch.
func TestPollMovedBaseAgainstStepping(t *testing.T) {
	runBesideStepping(t, pollMovedBaseCore(t), pollMovedBaseCore(t), 1000, 40)
}

// runBesideStepping runs fast in n runs of chunk cycles and steps slow to
// the same cycle after each: the end of every run must find both in the
// same state (counts, registers but r2, flags, pc, the last store and the
// store count, SRAM).
func runBesideStepping(t *testing.T, fast, slow *CPU, chunk uint64, n int) {
	t.Helper()
	for i := range n {
		fast.Run(chunk)
		for slow.Cycles < fast.Cycles {
			if s := slow.Step(); s.Kind != StopStep {
				t.Fatalf("run %d: stepping stopped: %s", i, stopMessage(s))
			}
		}
		fr, sr := fast.R, slow.R
		fr[2], sr[2] = 0, 0
		a1, s1, n1 := fast.LastStore()
		a2, s2, n2 := slow.LastStore()
		if fast.Cycles != slow.Cycles || fast.Instret != slow.Instret || fr != sr || fast.PC != slow.PC || fast.Flags != slow.Flags ||
			a1 != a2 || s1 != s2 || n1 != n2 || !bytes.Equal(fast.Mem.SRAM, slow.Mem.SRAM) {
			t.Fatalf("run %d: run at pc %#x after %d cycles %d instructions, %d stores; stepped at pc %#x after %d cycles %d instructions, %d stores",
				i, fast.PC, fast.Cycles, fast.Instret, n1, slow.PC, slow.Cycles, slow.Instret, n2)
		}
	}
	t.Logf("%d cycles skipped", fast.SkippedCycles)
}
