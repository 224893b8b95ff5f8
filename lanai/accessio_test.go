package lanai

import (
	"strings"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/memsys"
)

// specialAccesses reads and writes special registers with ld imm[%r0]
// and st rd, imm[%r0] (the run loop's opLoadIO and opStoreIO, handed to
// accessIO) in every position the run loop treats apart: a load before a
// use and a store of a register loaded just before (the interlock), a
// load into r0, stores of pc and r1, a load after a load, in a branch's
// delay slot, in the second delay slot of a load into pc (the first runs
// in execSlow), a load and a store of a register whose access halts the run
// (DEBUG, hooked by the test) and, last (LAST), a load or a store at an
// offset with no register or of one whose access traps (GM_MP, hooked by
// the test): a trap each way.
const specialAccesses = `
	.text
	.globl	_start
_start:
	mov	5, %r9
	st	%r9, -192[%r0]      ! LED, a plain register
	ld	-192[%r0], %r5      ! reads 5 back
	mov	0x4000, %r21
	st	%r9, 4[%r21]
	ld	4[%r21], %r22
	st	%r22, -192[%r0]     ! a store of the register just loaded: a stall
	st	%pc, -192[%r0]      ! stores its own address
	ld	-192[%r0], %r24
	st	%r1, -192[%r0]
	ld	-192[%r0], %r23     ! 0xffffffff
	st	%r23, -200[%r0]     ! DEBUG: the hook halts the run
	add	%r5, 1, %r6         ! a load-use stall
	ld	-392[%r0], %r7      ! CPUC: the cycle count
	ld	-392[%r0], %r0      ! into r0: discarded
	add	%r7, %r0, %r8
	bt	.Lnext
	ld	-392[%r0], %r10     ! in the delay slot
	nop
.Lnext:
	ld	-392[%r0], %r11
	ld	-392[%r0], %r12     ! a load after a load
	sub	%r12, %r11, %r13
	mov	hi(.Lback), %r20
	or	%r20, lo(.Lback), %r20
	st	%r20, 0[%r21]
	ld	0[%r21], %pc        ! a load into pc: two delay slots
	ld	-392[%r0], %r16     ! the first (execSlow runs it)
	ld	-392[%r0], %r17     ! the second
	nop
.Lback:
	ld	-200[%r0], %r14     ! DEBUG: the hook halts the run
	add	%r14, 1, %r14
	ld	-392[%r0], %r18
	LAST
	nop
`

// lastAccesses are the instructions that end specialAccesses with a trap.
var lastAccesses = []string{
	"ld -16[%r0], %r15",  // no register there
	"ld -176[%r0], %r15", // GM_MP, whose read traps
	"st %r5, -16[%r0]",
	"st %r5, -176[%r0]", // GM_MP, whose write traps
}

// accessIOCore loads specialAccesses ending with last, with DEBUG hooked
// to halt the run and GM_MP to trap, runs it once to its trap (so that
// its words are predecoded: the run loop meets an opLoadIO or opStoreIO
// only in a word it executed before) and resets it.
func accessIOCore(t *testing.T, last string) *CPU {
	img := linkSources(t, asm.Source{Name: "accessio.s", Text: []byte(strings.Replace(specialAccesses, "LAST", last, 1))})
	c, im := load(t, img, Config{})
	debug, _ := memsys.SpecialByName("DEBUG")
	c.Mem.Specials.Hook(debug.Off, func() uint32 {
		c.Halt(&Stop{Kind: StopExit, Code: 99})
		return 0x1234
	}, func(v uint32) {
		c.Halt(&Stop{Kind: StopExit, Code: v})
	})
	mp, _ := memsys.SpecialByName("GM_MP")
	c.Mem.Specials.Hook(mp.Off, func() uint32 {
		c.trap(c.PC, "GM_MP read")
		return 0x5678
	}, func(uint32) { c.trap(c.PC, "GM_MP write") })
	for st := c.Run(1000); st.Kind != StopTrap; st = c.Run(1000) {
	}
	c.Reset(im.Entry)
	return c
}

// stepGeneral executes one instruction with execSlow alone (the general
// path, which runs opLoadIO's loads through mem).
func stepGeneral(c *CPU) *Stop {
	c.stop = nil
	c.deadline = c.Cycles + 1
	c.execSlow(c.Instret + 1)
	return c.stop
}

// The run loop's special-register accesses (accessIO) leave every state
// a program or a trap report can see as the general path does: run in
// budgets of 1 to 7 cycles against execSlow one instruction at a time.
func TestAccessIOEqualsGeneralPath(t *testing.T) {
	for i := 0; i < 7*len(lastAccesses); i++ {
		budget, last := uint64(i%7+1), lastAccesses[i/7]
		run, gen := accessIOCore(t, last), accessIOCore(t, last)
		var runStop, genStop *Stop
		halts := 0
		for i := 0; i < 200 && (runStop == nil || runStop.Kind != StopTrap); i++ {
			runStop = run.Run(budget)
			for (gen.Instret < run.Instret || runStop.Kind == StopTrap) && (genStop == nil || genStop.Kind != StopTrap) {
				genStop = stepGeneral(gen)
			}
			if runStop.Kind == StopExit {
				halts++
				if genStop == nil || genStop.Kind != StopExit || genStop.Code != runStop.Code {
					t.Fatalf("%s, budget %d: run halted (%v), the general path did not (%v)", last, budget, runStop.Kind, genStop)
				}
			}
			sameCores(t, last, run, gen)
		}
		if runStop.Kind != StopTrap || genStop == nil || genStop.Kind != StopTrap {
			t.Fatalf("%s, budget %d: stops %v and %v, want traps", last, budget, runStop.Kind, genStop)
		}
		if a, b := runStop.Trap.Report(), genStop.Trap.Report(); a != b {
			t.Fatalf("%s, budget %d: trap reports differ:\n%s\n%s", last, budget, a, b)
		}
		if halts != 2 {
			t.Fatalf("%s, budget %d: %d halts, want 2", last, budget, halts)
		}
		var loads, stores int
		for a := uint32(0); a < 0x100; a += 4 {
			if u := run.uopAt(a, false); u != nil && u.op == opLoadIO {
				loads++
			} else if u != nil && u.op == opStoreIO {
				stores++
			}
		}
		if want := strings.Count(specialAccesses, "[%r0], %r") + strings.Count(last, "ld"); loads != want {
			t.Fatalf("%s: %d words predecoded as opLoadIO, want %d", last, loads, want)
		}
		if want := strings.Count(specialAccesses, "\tst\t") - 2 + strings.Count(last, "st"); stores != want { // two stores are to SRAM
			t.Fatalf("%s: %d words predecoded as opStoreIO, want %d", last, stores, want)
		}
	}
}
