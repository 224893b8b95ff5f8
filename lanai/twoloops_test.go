package lanai

import (
	"encoding/binary"
	"math/rand"
	"strings"
	"testing"

	"lanaiemu/asm"
)

// twoLoops waits in loop A for flag A (0x1000), then in loop B for flag
// B (0x1004), and back, counting the rounds in r9, until the exit flag
// (0x100c). A's pass sets r5 and r8 before it reads them (B leaves r5
// holding the flag it consumed; A's pass ends with both 0), loads the
// word B stores the round count to (0xffc) and stores it on (0x1014),
// and stores a heartbeat from an RTC-like register; r9 it stores too or
// not (the variant). A is one of loop.go's loops (it stores), B one of
// poll.go's (no store): it is skipped from the iteration before, and its
// load stalls on booked SRAM cycles.
const twoLoops = `
	mov 0x8000, %sp
	mov 0, %r9
.La:
	ld 0x1000[%r0], %r5        ! flag A
	ld 0xffc[%r0], %r8         ! what B stored
	st %r8, 0x1014[%r0]
	mov 0, %r8                 ! (the value is seen only in SRAM)
	ld -408[%r0], %r6          ! heartbeat
	st %r6, 0x1010[%r0]
	mov 0, %r6
	sub.f %r5, 0, %r0
	beq .La
	mov 0, %r5                 ! (delay slot)
	st %r0, 0x1000[%r0]
	add %r9, 1, %r9
.Lb:
	ld 0x1004[%r0], %r7        ! flag B
	sub.f %r7, 0, %r0
	beq .Lb
	nop
	st %r0, 0x1004[%r0]
	mov %r7, %r5               ! leaves r5 with the flag's value
	st %r9, 0xffc[%r0]
	ld 0x100c[%r0], %r12       ! the exit flag
	sub.f %r12, 0, %r0
	beq .La
	nop
	st %r9, -4096[%r0]
`

// twoLoopsCore loads a variant of twoLoops (bit 0: B stores the round
// count only when its flag is odd; bit 1: A stores r9 too; bit 2: no
// heartbeat; bit 3: B leaves r5 alone, so that A's proof may be taken
// again at its first head; bit 4: B stores its flag, which makes it one
// of loop.go's loops; bit 5: A's path depends on r9's parity, read (as
// a second operand) before anything writes it: it stores to 0x1024 in
// odd rounds only;
// bit 6: A's pass that finds flag A at 2 is busy: it clears the flag,
// stays in A and leaves r10 at 7, which the next pass sets to 0 before
// it reads it; bit 7: no B, and nothing stores r9: A's rounds follow
// each other; bit 8: A loads the word 0x1028, xors it with an immediate
// (0) and stores it back, and B's exit flips that immediate's low bit in
// A's code (A toggles the word while the bit is set); bit 10: A's pass
// first reads the carry (it stores 0 to 0x1030 or 0x1034 by it), its
// test keeps the carry (or.f), and the pass that leaves A sets it from
// r9's parity, as the exit test (or.f) leaves it, so that A's idle
// passes alternate between two fixed points that differ only in the
// carry and the word they store 0 to)
// with events chosen by rng every 1 to gap cycles: flag A or
// B set (to 1-4) or a buffer the loops do not read written, each with
// SRAM cycles booked; after cycle 300,000 both flags and the exit flag
// set.
func twoLoopsCore(t *testing.T, rng *rand.Rand, variant int) *CPU {
	src := twoLoops
	if variant&1 != 0 {
		src = strings.Replace(src, "\tst %r9, 0xffc[%r0]\n", "\tand %r7, 0xffff0001, %r12\n\tsub.f %r12, 0, %r0\n\tbne 1f\n\tnop\n\tst %r9, 0xffc[%r0]\n1:\n", 1)
	}
	if variant&2 != 0 {
		src = strings.Replace(src, "\tst %r8, 0x1014[%r0]\n", "\tst %r8, 0x1014[%r0]\n\tadd %r9, 0, %r8\n\tst %r8, 0x1018[%r0]\n\tmov 0, %r8\n", 1)
	}
	if variant&8 != 0 {
		src = strings.Replace(src, "\tmov %r7, %r5               ! leaves r5 with the flag's value\n", "", 1)
	}
	if variant&16 != 0 {
		src = strings.Replace(src, "\tld 0x1004[%r0], %r7        ! flag B\n", "\tld 0x1004[%r0], %r7        ! flag B\n\tst %r7, 0x1020[%r0]\n", 1)
	}
	if variant&32 != 0 {
		src = strings.Replace(src, "\tld 0x1000[%r0], %r5        ! flag A\n", "\tld 0x1000[%r0], %r5        ! flag A\n\tmov 1, %r11\n\tand.f %r11, %r9, %r0\n\tbeq 1f\n\tnop\n\tst %r0, 0x1024[%r0]\n1:\n", 1)
	}
	if variant&128 != 0 {
		a, b := strings.Index(src, ".Lb:\n"), strings.Index(src, "\tld 0x100c[%r0], %r12")
		src = src[:a] + src[b:]
	}
	if variant&64 != 0 {
		src = strings.Replace(src, "\tld 0x1000[%r0], %r5        ! flag A\n", "\tld 0x1000[%r0], %r5        ! flag A\n"+
			"\tsub.f %r5, 2, %r0\n\tbne 2f\n\tnop\n\tst %r0, 0x1000[%r0]\n\tmov 0, %r5\n\tmov 7, %r10\n\tbt 3f\n\tnop\n2:\n\tmov 0, %r10\n3:\n", 1)
	}
	if variant&4 != 0 {
		src = strings.Replace(src, "\tld -408[%r0], %r6          ! heartbeat\n\tst %r6, 0x1010[%r0]\n\tmov 0, %r6\n", "", 1)
	}
	if variant&256 != 0 {
		src = strings.Replace(src, ".La:\n", ".La:\n\tld 0x1028[%r0], %r13\n.Lpatch:\n\txor %r13, 0, %r13\n\tst %r13, 0x1028[%r0]\n\tmov 0, %r13\n", 1)
		src = strings.Replace(src, "\tst %r0, 0x1004[%r0]\n", "\tst %r0, 0x1004[%r0]\n"+
			"\tmov .Lpatch, %r14\n\tld 0[%r14], %r15\n\txor %r15, 1, %r15\n\tst %r15, 0[%r14]\n\tmov 0, %r15\n", 1)
	}
	if variant&1024 != 0 {
		src = strings.Replace(src, ".La:\n", ".La:\n\taddc %r0, 0, %r13\n\tsh %r13, 2, %r13\n\tst %r0, 0x1030[%r13]\n\tmov 0, %r13\n", 1)
		src = strings.Replace(src, "\tsub.f %r5, 0, %r0\n\tbeq .La\n", "\tor.f %r5, %r0, %r0\n\tbeq .La\n", 1)
		src = strings.Replace(src, "\tadd %r9, 1, %r9\n", "\tadd %r9, 1, %r9\n\tsh %r9, 31, %r11\n\tadd.f %r11, %r11, %r0\n\tmov 0, %r11\n", 1)
		src = strings.Replace(src, "\tsub.f %r12, 0, %r0\n\tbeq .La\n", "\tor.f %r12, %r0, %r0\n\tbeq .La\n", 1)
	}
	var booked []window
	c, _ := load(t, linkSources(t, asm.Source{Name: "two.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), bookedConfig(&booked))
	tick := uint64(20 + rng.Intn(200))
	hookClock(c, tick)
	gap := []int{300, 3000, 30000}[rng.Intn(3)]
	n := uint32(0)
	var event func()
	event = func() {
		n++
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], 1+rng.Uint32()%4)
		switch x := rng.Intn(4); {
		case c.Cycles > 300_000: // both flags and the exit flag: the loops leave
			c.Mem.Write(0x100c, []byte{0, 0, 0, 1})
			c.Mem.Write(0x1000, []byte{0, 0, 0, 1})
			c.Mem.Write(0x1004, []byte{0, 0, 0, 1})
			return
		case x == 0:
			c.Mem.Write(0x1000, b[:])
		case x == 1:
			c.Mem.Write(0x1004, b[:])
		default:
			binary.BigEndian.PutUint32(b[:], n)
			c.Mem.Write(0x3000+4*(n%64), b[:])
		}
		bookRandom(c, rng, &booked)
		c.Schedule(c.Cycles+uint64(1+rng.Intn(gap)), event)
	}
	c.Schedule(2000, event)
	return c
}

// Variants of twoLoops run against stepping as
// TestLoopSkipRandomAgainstStepping runs its loops (random runs and
// steps, breakpoints set and cleared on the loops, register writes,
// writes from outside to the flags, to what A stores and to a buffer,
// the history read now and then, booked SRAM): the state at every run's
// end is that of stepping. It fails (B's loop) when poll.go skips
// through booked SRAM cycles or from an iteration that a write from
// outside between runs came after, as it did on main de3ed13.
func TestTwoLoopsAgainstStepping(t *testing.T) {
	var skipped uint64
	for seed := int64(1); seed <= int64(*lockstepSeeds); seed++ {
		variant := int(seed % 16)
		fast, slow := twoLoopsCore(t, rand.New(rand.NewSource(seed)), variant), twoLoopsCore(t, rand.New(rand.NewSource(seed)), variant)
		randomLockstep(t, seed, fast, slow, []uint32{0x1000, 0x1004, 0x1014, 0x3000})
		skipped += fast.SkippedCycles
	}
	if skipped < uint64(*lockstepSeeds)*100_000 {
		t.Errorf("%d cycles skipped", skipped)
	}
	t.Logf("%d cycles skipped", skipped)
}
