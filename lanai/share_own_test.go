package lanai

import (
	"bytes"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/isa"
)

// provedLoop spins in a loop that stores back the word it reads (a loop
// loop.go watches and proves) until a DMA rewrites its branch.
const provedLoop = `
	.globl _start
_start:
	mov 0x3000, %r6
pLoop:
	ld 0[%r6], %r7
	st %r7, 0[%r6]
	sub.f %r7, 0, %r0
pBranch:
	beq pLoop
	nop
	mov 5, %r8
	st %r8, -4096[%r0]
`

// A member that runs code another member decoded first never fetches it
// itself; a DMA into that code must still end its proof of a loop there,
// as it would end it alone.
func TestSharedCodeDMAEndsProofOfOthersCode(t *testing.T) {
	img := linkSources(t, asm.Source{Name: "proved.s", Text: []byte(provedLoop)})
	ps := newShareTwins(t, img, 2, func(i int, c *CPU) {
		c.Schedule(1<<40, func() {}) // far: something for the loop to wait for
	})
	var s SharedCode
	for _, p := range ps {
		if !p.shared.ShareCode(&s) {
			t.Fatal("a core did not join")
		}
	}
	stepTwins(t, ps, 5_000)
	if !ps[1].alone.Polling() {
		t.Fatal("the loop is not proved")
	}
	branch := symbolAddr(t, img, "pBranch")
	dmaBranchCond(t, ps[1], branch, isa.CondNE)
	if ps[1].shared.Polling() != ps[1].alone.Polling() {
		t.Fatalf("after the DMA: polling %v shared, %v alone", ps[1].shared.Polling(), ps[1].alone.Polling())
	}
	stepTwins(t, ps, 5_000)
	if p := ps[1]; p.stop[1].Kind != StopExit || p.stop[0].Kind != StopExit {
		t.Errorf("the rewritten loop did not exit: %v shared, %v alone", stopMessage(p.stop[0]), stopMessage(p.stop[1]))
	}
}

// pollLoop polls a flag word (0x3000) that an event sets; its delay slot
// (pSlot) is a nop, which a DMA may change into another pollable word.
const pollLoop = `
	.globl _start
_start:
	mov 0, %r7
pHead:
	ld 0x3000[%r0], %r7
	sub.f %r7, 0, %r0
	beq pHead
pSlot:
	nop
	st %r7, -4096[%r0]
`

// A member that leaves its SharedCode while poll.go checks a loop's text
// (its delay slot differs from most members' there) keeps the polling
// state the check gives, as it would alone.
func TestSharedCodeLeaveInPollable(t *testing.T) {
	img := linkSources(t, asm.Source{Name: "poll.s", Text: []byte(pollLoop)})
	ps := newShareTwins(t, img, 3, func(i int, c *CPU) {
		c.Schedule(50_000, func() { c.Mem.Write(0x3000, []byte{0, 0, 0, 7}) })
	})
	var s SharedCode
	for _, p := range ps {
		if !p.shared.ShareCode(&s) {
			t.Fatal("a core did not join")
		}
	}
	stepTwins(t, ps[:1], 300) // the first decodes the loop, its slot a nop
	slot := symbolAddr(t, img, "pSlot")
	for _, c := range []*CPU{ps[1].shared, ps[1].alone} {
		c.Mem.Write(slot, []byte{0x03, 0x24, 0x00, 0x05}) // mov 5, %r9 (or %r0, 5, %r9)
	}
	stepTwins(t, ps[1:2], 300) // leaves as it checks the loop's text: the others hold the nop
	if ps[1].shared.SharedCode() != nil {
		t.Fatal("the core whose slot differs did not leave")
	}
	for range 300 {
		stepTwins(t, ps, 300)
	}
	for i, p := range ps {
		if p.stop[0].Kind != StopExit || p.stop[0].Code != 7 {
			t.Errorf("core %d: %v", i, stopMessage(p.stop[0]))
		}
	}
}

// cpucLoop polls a flag word (0x3000) and reads the cycle counter (CPUC),
// whose value it drops: a fixed point poll.go may not skip, since CPUC
// changes every cycle.
const cpucLoop = `
	.globl _start
_start:
	mov 0, %r7
cHead:
	ld 0x3000[%r0], %r7
cCount:
	ld -392[%r0], %r9          ! CPUC
	mov 0, %r9
cTest:
	sub.f %r7, 0, %r0
	beq cHead
	nop
	st %r7, -4096[%r0]
`

// A member's word forgotten by another member's write (here a DMA of the
// same word into that member's code) is still the member's decoded word:
// poll.go's look at what the loop loads (loopInputsStable) must see it.
func TestSharedCodeForgottenLoadStillRead(t *testing.T) {
	img := linkSources(t, asm.Source{Name: "cpuc.s", Text: []byte(cpucLoop)})
	ps := newShareTwins(t, img, 2, func(i int, c *CPU) {
		c.Schedule(20_000, func() { c.Mem.Write(0x3000, []byte{0, 0, 0, 9}) })
	})
	var s SharedCode
	for _, p := range ps {
		if !p.shared.ShareCode(&s) {
			t.Fatal("a core did not join")
		}
	}
	stepTwins(t, ps, 300)
	test := symbolAddr(t, img, "cTest")
	for _, c := range []*CPU{ps[1].shared, ps[1].alone} {
		for c.PC != test {
			c.Run(1)
		}
	}
	count := symbolAddr(t, img, "cCount")
	for _, c := range []*CPU{ps[0].shared, ps[0].alone} {
		c.Mem.Write(count, bytes.Clone(c.Mem.SRAM[count:count+4])) // the same word again
	}
	stepTwins(t, ps[1:], 300) // before the other fetches the word again
	for range 100 {
		stepTwins(t, ps, 300)
	}
	for i, p := range ps {
		if p.stop[0].Kind != StopExit || p.stop[0].Code != 9 {
			t.Errorf("core %d: %v", i, stopMessage(p.stop[0]))
		}
	}
}

// ShareCode(nil) makes a core leave (it used to dereference nil).
func TestShareCodeNil(t *testing.T) {
	img := assembleSelfModifying(t)
	c, _ := load(t, img, Config{})
	if c.ShareCode(nil) {
		t.Error("a core shares nil")
	}
	var s SharedCode
	if !c.ShareCode(&s) {
		t.Fatal("the core did not join")
	}
	if c.ShareCode(nil) || c.SharedCode() != nil || s.Members() != 0 {
		t.Errorf("ShareCode(nil): still shares (%d members)", s.Members())
	}
}
