package board

import (
	"testing"

	"lanaiemu/asm"
	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
)

// A device can change ISR outside the core's events: the link's send
// completes at once when the fabric's end of transmission comes after the
// core has passed its cycle (Link.finishAt). A loop polling ISR that the
// core has proved (it also stores, so loop.go proves it, not poll.go) must
// see such a change at once, not keep skipping to its next event.
func TestProvedLoopSeesISRChangedOutsideEvents(t *testing.T) {
	src := `
	.set	ISR, -432
	.set	EXIT, -4096
	.text
	.globl	_start
_start:
	mov	0x40, %r9
.Lw:
	ld	ISR[%r0], %r7
	st	%r7, 0x1000[%r0]
	and	%r7, %r9, %r7
	sub.f	%r7, 0, %r0
	beq	.Lw
	nop
	st	%r7, EXIT[%r0]
	bt	.
	nop
`
	b, _ := boot(t, Config{}, lanaitest.Build(t, asm.Source{Name: "w.s", Text: []byte(src)}))
	if st := b.Run(200_000); st.Kind != lanai.StopCycleLimit {
		t.Fatalf("stopped: %v", st.Kind)
	}
	cpu := b.CPU()
	if !cpu.Polling() || cpu.SkippedCycles < 100_000 {
		t.Fatalf("polling %v, %d cycles skipped", cpu.Polling(), cpu.SkippedCycles)
	}
	b.RaiseISR(0x40) // as a device acting on a call from another model
	at := cpu.Cycles
	st := b.Run(200_000)
	if st.Kind != lanai.StopExit || st.Code != 0x40 || cpu.Cycles > at+30 {
		t.Fatalf("%v code %#x after %d more cycles", st.Kind, st.Code, cpu.Cycles-at)
	}
}
