package lanai

import (
	"testing"

	"lanaiemu/asm"
)

// pollBreak is a polling loop that nothing ends before the event far off.
const pollBreak = `
	.globl _start
_start:
	mov 0x8000, %sp
.Lw:
	ld 0x1000[%r0], %r7
	sub.f %r7, 0, %r0
	beq .Lw
	nop
	st %r7, -4096[%r0]
`

// TestPollBreakpointInBody: a breakpoint set in a polling loop's body
// after poll.go took the loop for one (it skipped it) stops every run at
// every pass, as it does on a core that executes every instruction: the
// stops come one pass apart (no skip passes the breakpoint).
func TestPollBreakpointInBody(t *testing.T) {
	c, _ := load(t, linkSources(t, asm.Source{Name: "pb.s", Text: []byte(pollBreak)}), Config{})
	c.Schedule(1_000_000, func() {})
	c.Run(500)
	if c.SkippedCycles == 0 {
		t.Fatal("the loop was not skipped before the breakpoint")
	}
	const sub = 8 // the sub.f
	for c.PC != sub {
		c.Step()
	}
	c.SetBreakpoint(sub, true)
	var at []uint64
	for i := 0; i < 40; i++ {
		if st := c.Run(1 << 30); st.Kind != StopBreakpoint {
			t.Fatalf("run %d: %s at cycle %d", i, st.Kind, c.Cycles)
		}
		at = append(at, c.Cycles)
		c.Step()
	}
	for i := 2; i < len(at); i++ {
		if at[i]-at[i-1] != at[1]-at[0] {
			t.Fatalf("breakpoint stops at cycles %v", at)
		}
	}
}
