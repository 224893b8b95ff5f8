package node

import (
	"testing"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/board"
	"lanaiemu/objfile"
)

// straddleLoop is a polling loop whose longest instruction takes three
// cycles: a part-word load with an immediate offset (two) that reads the
// register the load before it loaded (one more). It stores back the word
// it read, so that it is a watched loop (lanai/loop.go) rather than one
// poll.go skips from its text; nothing changes what it reads, so it is
// proved side-effect free (lanai.CPU.Polling) and spins for ever.
const straddleLoop = `
	.data
	.align	8
	.globl	ptr, half
ptr:	.word	0
half:	.word	0
	.text
	.globl	_start
_start:
	mov	hi(ptr), %r6
	or	%r6, lo(ptr), %r6
	mov	hi(half), %r9
	or	%r9, lo(half), %r9
	st	%r9, 0[%r6]
loop:
	ld	0[%r6], %r7
	ld.h	2[%r7], %r8
	st	%r7, 0[%r6]
	sub.f	%r8, 0, %r0
	beq	loop
	nop
`

// TestLeadMarginCoversStraddle checks what leadMargin rests on (World.canLag,
// leadStep): a run of a core in a proved loop to cycle cT, which ends at the
// first instruction boundary at or after cT, runs no event due at
// cT+leadMargin or later, at every phase of a loop with a three-cycle
// instruction. An event one or two cycles after cT does run in such a run
// at some phase, so a margin of less than three would let a board lag over
// a step in which its event runs (the steps of length Q run it in that
// step, the lagging board in a later one).
func TestLeadMarginCoversStraddle(t *testing.T) {
	res, err := asm.Assemble([]asm.Source{{Name: "straddle.s", Text: []byte(straddleLoop)}}, asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := link.Link([]*objfile.File{res.Object}, []string{"straddle.s"}, link.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := exe.WriteELF()
	if err != nil {
		t.Fatal(err)
	}
	// proved boots a board and runs it until the loop is proved: every
	// board is at the same cycle in the same state then.
	proved := func() *board.Board {
		b := waitingBoard(t, img)
		b.Run(10_000)
		if !b.CPU().Polling() {
			t.Fatalf("the loop is not proved at pc %#x", b.CPU().PC)
		}
		return b
	}
	const iteration = 8 // cycles: 1 + 3 + 1 + 1 + 1 + 1
	straddled := 0      // runs in which an event 1 or 2 cycles after cT ran
	for m := uint64(0); m <= leadMargin+2; m++ {
		for p := uint64(0); p < iteration; p++ {
			b := proved()
			cpu := b.CPU()
			cT := cpu.Cycles + 20 + p
			fired := false
			cpu.Schedule(cT+m, func() { fired = true })
			b.Run(cT - cpu.Cycles)
			if cpu.Cycles < cT {
				t.Fatalf("run to %d ended at %d", cT, cpu.Cycles)
			}
			if fired && m >= leadMargin {
				t.Errorf("an event %d cycles after the run's end %d ran in the run (it ended at %d)", m, cT, cpu.Cycles)
			}
			if fired && m > 0 && m < 3 {
				straddled++
			}
			if !cpu.Polling() {
				t.Fatalf("the proof was lost at %d", cpu.Cycles)
			}
		}
	}
	if straddled == 0 {
		t.Errorf("no event 1 or 2 cycles after a run's end ran in it: no three-cycle instruction straddled cT")
	}
}
