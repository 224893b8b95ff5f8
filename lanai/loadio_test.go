package lanai

import (
	"strings"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/memsys"
)

// specialLoads reads special registers with ld imm[%r0] (the run loop's
// opLoadIO, handed to loadIO) in every position the run loop treats
// apart: before a use (the interlock), into r0, after another load, in a
// branch's delay slot, in the second delay slot of a load into pc (the
// first runs in execSlow), from a register whose read halts the run
// (DEBUG, hooked by the test) and, last, either from an offset with no
// register or from one whose read traps (GM_MP, hooked by the test): a
// trap either way.
const specialLoads = `
	.text
	.globl	_start
_start:
	mov	5, %r9
	st	%r9, -192[%r0]      ! LED, a plain register
	ld	-192[%r0], %r5      ! reads 5 back
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
	mov	0x4000, %r21
	st	%r20, 0[%r21]
	ld	0[%r21], %pc        ! a load into pc: two delay slots
	ld	-392[%r0], %r16     ! the first (execSlow runs it)
	ld	-392[%r0], %r17     ! the second
	nop
.Lback:
	ld	-200[%r0], %r14     ! DEBUG: the hook halts the run
	add	%r14, 1, %r14
	ld	-392[%r0], %r18
	ld	LAST[%r0], %r15     ! -16: no register there; -176: GM_MP, whose read traps
	nop
`

// loadIOCore loads specialLoads with DEBUG hooked to halt the run, runs
// it once to its trap (so that its words are predecoded: the run loop
// meets an opLoadIO only in a word it executed before) and resets it.
func loadIOCore(t *testing.T, last string) *CPU {
	img := linkSources(t, asm.Source{Name: "loadio.s", Text: []byte(strings.Replace(specialLoads, "LAST", last, 1))})
	c, im := load(t, img, Config{})
	debug, _ := memsys.SpecialByName("DEBUG")
	c.Mem.Specials.Hook(debug.Off, func() uint32 {
		c.Halt(&Stop{Kind: StopExit, Code: 99})
		return 0x1234
	}, nil)
	mp, _ := memsys.SpecialByName("GM_MP")
	c.Mem.Specials.Hook(mp.Off, func() uint32 {
		c.trap(c.PC, "GM_MP read")
		return 0x5678
	}, nil)
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

// The run loop's special-register loads (loadIO) leave every state a
// program or a trap report can see as the general path does: run in
// budgets of 1 to 7 cycles against execSlow one instruction at a time.
func TestLoadIOEqualsGeneralPath(t *testing.T) {
	for i := 0; i < 14; i++ {
		budget, last := uint64(i%7+1), []string{"-16", "-176"}[i/7]
		run, gen := loadIOCore(t, last), loadIOCore(t, last)
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
					t.Fatalf("budget %d: run halted (%v), the general path did not (%v)", budget, runStop.Kind, genStop)
				}
			}
			sameCores(t, "special loads", run, gen)
		}
		if runStop.Kind != StopTrap || genStop == nil || genStop.Kind != StopTrap {
			t.Fatalf("budget %d: stops %v and %v, want traps", budget, runStop.Kind, genStop)
		}
		if a, b := runStop.Trap.Report(), genStop.Trap.Report(); a != b {
			t.Fatalf("budget %d: trap reports differ:\n%s\n%s", budget, a, b)
		}
		if halts != 1 {
			t.Fatalf("budget %d: %d halts, want 1", budget, halts)
		}
		var io int
		for a := uint32(0); a < 0x100; a += 4 {
			if u := run.uopAt(a, false); u != nil && u.op == opLoadIO {
				io++
			}
		}
		if io != 11 {
			t.Fatalf("budget %d: %d words predecoded as opLoadIO, want 11", budget, io)
		}
	}
}
