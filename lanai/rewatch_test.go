package lanai

import (
	"encoding/binary"
	"fmt"
	"testing"

	"lanaiemu/asm"
)

// deadRegLoop is a main loop whose pass sets r5 and r6 before it reads
// them; a pass that finds the work flag (written by events) set does
// some work (clears the flag, counts it) and leaves r5 and r6 with other
// values, as a busy pass that calls other code does. The first idle pass
// after it ends with r5 and r6 other than it began with, though it is a
// fixed point from its end on. After cycle 400,000 an event sets the
// exit flag.
const deadRegLoop = `
	mov 0, %r9
.Lmain:
	ld 0x1004[%r0], %r5        ! set before it is read
	ld 0x1000[%r0], %r8        ! the work flag
	sub.f %r8, 0, %r0
	beq 1f
	add %r5, 1, %r6            ! (delay slot) r6 too
	st %r0, 0x1000[%r0]        ! the work
	add %r9, 1, %r9
	st %r9, 0x1010[%r0]
	mov 0x1234, %r5
	mov 0x5678, %r6
1:	ld 0x100c[%r0], %r7        ! the exit flag
	sub.f %r7, 0, %r0
	beq .Lmain
	nop
	st %r9, -4096[%r0]         ! exit with the count
`

// scanLoop reads its index before it changes it: every pass ends with
// another index, and no watch of it is begun again at once.
const scanLoop = `
	mov 0, %r5
.Lscan:
	ld 0x2000[%r5], %r6
	add %r5, 4, %r5
	and %r5, 0xffff00fc, %r5
	ld 0x100c[%r0], %r7        ! the exit flag
	sub.f %r7, 0, %r0
	beq .Lscan
	nop
	st %r7, -4096[%r0]
`

// workCore loads src with events every 200 to 2,199 cycles (from a
// seeded sequence): mostly writes to a buffer the loops do not read,
// every fourth the work flag, and after cycle 400,000 the exit flag.
func workCore(t *testing.T, src string, seed uint32) *CPU {
	c, _ := load(t, linkSources(t, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
	n, x := uint32(0), seed
	var event func()
	event = func() {
		n++
		x = x*1103515245 + 12345
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], n)
		switch {
		case c.Cycles > 400_000:
			c.Mem.Write(0x100c, []byte{0, 0, 0, 1})
			return
		case n%4 == 0:
			c.Mem.Write(0x1000, b[:])
		default:
			c.Mem.Write(0x3000+4*(n%64), b[:])
		}
		c.Schedule(c.Cycles+200+uint64(x>>16)%2000, event)
	}
	c.Schedule(1000, event)
	return c
}

// A watch that fails only because registers the iteration set before it
// read them end with other values (the first idle pass after a busy one)
// begins a watch of the next iteration at once, which proves it
// (loopDeadRegsOnly), instead of backing the branch off; a loop whose
// iteration reads a register before it changes it (a scan) is not
// watched again at once. Run in chunks of 97 and 13 cycles, with single
// steps between, the core is in the state of stepping at the end of
// every chunk (counts, registers, flags, pc, last store, transfers,
// SRAM). Without the rule the dead-register loop begins no watch again
// (rewatches 0; it executes about 20 % more instructions); with every
// register taken as unread, the scan is watched again at once.
func TestLoopRewatchAfterDeadRegisters(t *testing.T) {
	for _, chunk := range []uint64{97, 13} {
		for seed := uint32(1); seed <= 3; seed++ {
			what := fmt.Sprintf("dead registers, chunk %d, seed %d", chunk, seed)
			fast := workCore(t, deadRegLoop, seed)
			lockstep(t, what, fast, workCore(t, deadRegLoop, seed), chunk, 7, 5)
			works := fast.sramWord(0x1010)
			executed := fast.Instret - fast.SkippedInstret
			// A work event the proof's check meets after the pass read the
			// flag is followed by a deferred watch (the state is the
			// proof's), which begins after the first idle pass; one met
			// before, by a watch of that pass, which fails on r5 and r6.
			if fast.loop.rewatches < uint64(works)/8 {
				t.Errorf("%s: %d work events, %d watches begun again at once", what, works, fast.loop.rewatches)
			}
			t.Logf("%s: %d work events, %d watches begun again at once, %d of %d instructions executed", what, works, fast.loop.rewatches, executed, fast.Instret)

			what = fmt.Sprintf("scan, chunk %d, seed %d", chunk, seed)
			fast = workCore(t, scanLoop, seed)
			slow := workCore(t, scanLoop, seed)
			st, ss := runInSteps(fast, chunk), stepTo(slow, 0, 1<<40)
			if st.Kind != StopExit || ss.Kind != StopExit {
				t.Fatalf("%s: %s run, %s stepped", what, stopMessage(st), stopMessage(ss))
			}
			sameCores(t, what, fast, slow)
			if fast.loop.rewatches != 0 {
				t.Errorf("%s: %d watches begun again at once", what, fast.loop.rewatches)
			}
		}
	}
}
