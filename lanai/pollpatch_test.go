package lanai

import (
	"encoding/binary"
	"strings"
	"testing"

	"lanaiemu/asm"
)

// pollPatched is a polling loop whose nop (at 0x0c) an event later
// overwrites with a store (a DMA into the loop's code): from then on
// every pass stores.
const pollPatched = `
	.globl _start
_start:
	mov 0x8000, %sp
	mov 0x2000, %r6
.Lw:
	ld 0x1000[%r0], %r7
	nop
	sub.f %r7, 0, %r0
	beq .Lw
	nop
	st %r7, -4096[%r0]
`

// TestPollPatchedBodyAgainstStepping: after a write from outside puts a
// store into a polling loop's body, poll.go must not skip passes that
// now store: the stores executed (LastStore's count) are those of
// stepping at every run's end.
func TestPollPatchedBodyAgainstStepping(t *testing.T) {
	img := linkSources(t, asm.Source{Name: "pp.s", Text: []byte(pollPatched)})
	patched := linkSources(t, asm.Source{Name: "pp.s", Text: []byte(strings.Replace(pollPatched, "\tnop\n", "\tst %r7, 0[%r6]\n", 1))})
	core := func() *CPU {
		c, _ := load(t, img, Config{})
		p, _ := load(t, patched, Config{})
		var w [4]byte
		binary.BigEndian.PutUint32(w[:], p.sramWord(0x0c))
		c.Schedule(5_000, func() { c.Mem.Write(0x0c, w[:]) })
		c.Schedule(200_000, func() {})
		return c
	}
	fast, slow := core(), core()
	runBesideStepping(t, fast, slow, 1999, 60)
	if _, _, n := fast.LastStore(); n == 0 {
		t.Fatal("the patched loop stored nothing")
	}
}
