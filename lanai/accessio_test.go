package lanai

import (
	"fmt"
	"math/rand"
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
// (DEBUG, hooked by the test), a load of a special register into pc (the
// general path's, with its two delay slots) and, last (LAST), a load or a
// store at an offset with no register or of one whose access traps (GM_MP,
// hooked by the test): a trap each way.
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
	mov	hi(.Lled), %r20
	or	%r20, lo(.Lled), %r20
	st	%r20, -192[%r0]
	ld	-192[%r0], %pc      ! a special register into pc: not opLoadIO
	ld	-392[%r0], %r19     ! the first delay slot
	add	%r19, 1, %r19       ! the second
	nop
.Lled:
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

// accessIOCore loads src, a program that ends with a trap, with DEBUG
// hooked to halt the run and GM_MP to trap, runs it once to its trap (so
// that its words are predecoded: the run loop meets an opLoadIO or
// opStoreIO only in a word it executed before) and resets it.
func accessIOCore(t *testing.T, src string) *CPU {
	img := linkSources(t, asm.Source{Name: "accessio.s", Text: []byte(src)})
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

// againstGeneral runs src (see accessIOCore) in runs of budget cycles on
// one core and with execSlow alone one instruction at a time on another,
// fails t at the first difference in any state a program or a trap report
// can see, and gives the first core and the number of halts.
func againstGeneral(t *testing.T, what, src string, budget uint64) (*CPU, int) {
	t.Helper()
	run, gen := accessIOCore(t, src), accessIOCore(t, src)
	var runStop, genStop *Stop
	halts := 0
	for i := 0; i < 1000 && (runStop == nil || runStop.Kind != StopTrap); i++ {
		runStop = run.Run(budget)
		for (gen.Instret < run.Instret || runStop.Kind == StopTrap) && (genStop == nil || genStop.Kind != StopTrap) {
			genStop = stepGeneral(gen)
		}
		if runStop.Kind == StopExit {
			halts++
			if genStop == nil || genStop.Kind != StopExit || genStop.Code != runStop.Code {
				t.Fatalf("%s, budget %d: run halted (%v), the general path did not (%v)", what, budget, runStop.Kind, genStop)
			}
		}
		sameCores(t, what, run, gen)
	}
	if runStop.Kind != StopTrap || genStop == nil || genStop.Kind != StopTrap {
		t.Fatalf("%s, budget %d: stops %v and %v, want traps", what, budget, runStop.Kind, genStop)
	}
	if a, b := runStop.Trap.Report(), genStop.Trap.Report(); a != b {
		t.Fatalf("%s, budget %d: trap reports differ:\n%s\n%s", what, budget, a, b)
	}
	return run, halts
}

// The run loop's special-register accesses (accessIO) leave every state
// a program or a trap report can see as the general path does: run in
// budgets of 1 to 7 cycles against execSlow one instruction at a time.
func TestAccessIOEqualsGeneralPath(t *testing.T) {
	for i := 0; i < 7*len(lastAccesses); i++ {
		budget, last := uint64(i%7+1), lastAccesses[i/7]
		run, halts := againstGeneral(t, last, strings.Replace(specialAccesses, "LAST", last, 1), budget)
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

// randomAccesses is a program of n random pieces: special-register loads
// and stores (CPUC, LED, and DEBUG, whose accesses halt), SRAM loads and
// stores, loads into r0, stores of pc and r1, additions, alone, in a
// branch's delay slot or in the two of a load into pc (from SRAM or from
// LED), then one of lastAccesses.
func randomAccesses(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("\t.text\n\t.globl _start\n_start:\n\tmov 0x4000, %r21\n")
	reg := func() string { return fmt.Sprintf("%%r%d", 3+rng.Intn(6)) }
	one := func() string {
		switch rng.Intn(11) {
		case 0:
			return "ld -392[%r0], " + reg() // CPUC
		case 1:
			return "ld -192[%r0], " + reg() // LED
		case 2:
			return "st " + reg() + ", -192[%r0]"
		case 3:
			return "ld -200[%r0], " + reg() // DEBUG
		case 4:
			return "st " + reg() + ", -200[%r0]"
		case 5:
			return "add " + reg() + ", " + reg() + ", " + reg()
		case 6:
			return "ld 0[%r21], " + reg()
		case 7:
			return "st " + reg() + ", 0[%r21]"
		case 8:
			return "st %pc, -192[%r0]"
		case 9:
			return "ld -392[%r0], %r0"
		}
		return "st %r1, -192[%r0]"
	}
	for i := range n {
		switch rng.Intn(8) {
		case 0:
			fmt.Fprintf(&b, "\tbt .Lb%d\n\t%s\n\tnop\n.Lb%d:\n", i, one(), i)
		case 1, 2:
			from := []string{"4[%r21]", "-192[%r0]"}[rng.Intn(2)]
			fmt.Fprintf(&b, "\tmov hi(.Lp%d), %%r20\n\tor %%r20, lo(.Lp%d), %%r20\n\tst %%r20, %s\n\tld %s, %%pc\n\t%s\n\t%s\n\tnop\n.Lp%d:\n",
				i, i, from, from, one(), one(), i)
		default:
			fmt.Fprintf(&b, "\t%s\n", one())
		}
	}
	fmt.Fprintf(&b, "\t%s\n\tnop\n", lastAccesses[rng.Intn(len(lastAccesses))])
	return b.String()
}

// Random programs of special-register accesses in random places, run in
// random budgets, leave the state the general path leaves.
func TestAccessIORandomAgainstGeneralPath(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		src := randomAccesses(rng, 60)
		if _, halts := againstGeneral(t, fmt.Sprint("seed ", seed), src, uint64(1+rng.Intn(9))); halts == 0 {
			t.Fatalf("seed %d: no halt", seed)
		}
	}
}
