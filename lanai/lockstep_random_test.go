package lanai

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"lanaiemu/asm"
)

var lockstepSeeds = flag.Int("lockstep.seeds", 30, "programs TestLoopSkipRandomAgainstStepping runs")

// workLoop is a main loop with calls (their pushes of different return
// addresses to one stack word, and their returns: control transfers), a
// work flag that sends it round a counting detour, and an exit flag after
// which it jumps outside SRAM (a trap, whose report shows the history).
const workLoop = `
	mov 0x8000, %sp
	mov 0, %r9
.Lmain:
	ld 0x1000[%r0], %r8        ! the work flag
	sub.f %r8, 0, %r0
	bne .Lwork
	nop
	bt f1
	add %pc, 4, %rca
	bt f2
	add %pc, 4, %rca
	ld 0x1004[%r0], %r7        ! the exit flag
	sub.f %r7, 0, %r0
	beq .Lmain
	nop
	mov 0x7ff00000, %r5
	add %r5, 0, %pc            ! trap
	nop
.Lwork:
	add %r9, 1, %r9
	st %r9, 0x1008[%r0]
	st %r0, 0x1000[%r0]
	bt .Lmain
	nop
f1:
	st %rca, [--%sp]
	ld [%sp++], %rca
	add %rca, 0, %pc
	nop
f2:
	st %rca, [--%sp]
	ld [%sp++], %rca
	add %rca, 0, %pc
	nop
`

// randomLoopCore loads a variant of workLoop chosen by rng: 1 to 9 calls
// of f2 (3 to 21 transfers an iteration), a heartbeat from an RTC-like
// register (0x068) stored at one of four places or none, and events every
// 1 to gap cycles that write a buffer the loop does not read, or the work
// flag, then the exit flag after cycle 400,000; with booking, each event
// also books a window of SRAM cycles (after the last, as the board's
// calendar does) in which a core access stalls.
func randomLoopCore(t *testing.T, rng *rand.Rand) *CPU {
	src := workLoop
	calls := []int{1, 2, 5, 9}[rng.Intn(4)]
	src = strings.Replace(src, "\tbt f2\n\tadd %pc, 4, %rca\n", strings.Repeat("\tbt f2\n\tadd %pc, 4, %rca\n", calls), 1)
	hb := "\tld -408[%r0], %r6\n\tst %r6, 0x1010[%r0]\n\tmov 0, %r6\n"
	switch rng.Intn(5) {
	case 0:
		src = strings.Replace(src, "\tld 0x1000[%r0], %r8", hb+"\tld 0x1000[%r0], %r8", 1)
	case 1:
		src = strings.Replace(src, "\tld 0x1004[%r0], %r7", hb+"\tld 0x1004[%r0], %r7", 1)
	case 2:
		src = strings.Replace(src, "f2:\n\tst %rca, [--%sp]\n", "f2:\n\tst %rca, [--%sp]\n"+hb, 1)
	case 3: // the heartbeat's register holds it across the calls
		src = strings.Replace(src, "\tld 0x1000[%r0], %r8", "\tld -408[%r0], %r6\n\tst %r6, 0x1010[%r0]\n\tld 0x1000[%r0], %r8", 1)
		src = strings.Replace(src, "\tld 0x1004[%r0], %r7", "\tst %r6, 0x1014[%r0]\n\tmov 0, %r6\n\tld 0x1004[%r0], %r7", 1)
	}
	var booked []window
	book := rng.Intn(2) == 0
	cfg := bookedConfig(&booked)
	c, _ := load(t, linkSources(t, asm.Source{Name: "work.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), cfg)
	tick := uint64(20 + rng.Intn(200))
	hookClock(c, tick)
	gap := []int{300, 3000, 30000}[rng.Intn(3)]
	var event func()
	n := uint32(0)
	event = func() {
		n++
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], n)
		switch {
		case c.Cycles > 400_000:
			c.Mem.Write(0x1004, []byte{0, 0, 0, 1})
			return
		case rng.Intn(8) == 0:
			c.Mem.Write(0x1000, b[:])
		default:
			c.Mem.Write(0x3000+4*(n%64), b[:])
		}
		if book {
			bookRandom(c, rng, &booked)
		}
		c.Schedule(c.Cycles+uint64(1+rng.Intn(gap)), event)
	}
	c.Schedule(2000, event)
	return c
}

// Random variants of workLoop, run in random runs of 1 to 5,000 cycles
// or single steps, with breakpoints set and cleared on the loop, register
// writes, writes from outside between runs (to what the loop reads, to
// its stack, to a buffer), the history read (Transfers, LastTransfer) now
// and then (every 2nd to 1,000th run, so that skips' transfers stay held
// for long), a ring of 16, 4 or 1 held ranges, and SRAM booked or not,
// give the counts, registers (R[2] aside: see lockstep), flags, pc,
// interlock, SRAM, last store, transfer histories and trap report of
// stepping the program. (go test -run RandomAgainst -lockstep.seeds 3000
// runs more.)
func TestLoopSkipRandomAgainstStepping(t *testing.T) {
	var skipped, landed uint64
	for seed := int64(1); seed <= int64(*lockstepSeeds); seed++ {
		fast, slow := randomLoopCore(t, rand.New(rand.NewSource(seed))), randomLoopCore(t, rand.New(rand.NewSource(seed)))
		randomLockstep(t, seed, fast, slow, []uint32{0x1000, 0x3000, 0x7ffc, 0x7ff8, 0x1010})
		skipped += fast.SkippedCycles
		landed += fast.loop.landed
	}
	if skipped < uint64(*lockstepSeeds)*200_000 || landed < uint64(*lockstepSeeds)*10 {
		t.Errorf("%d cycles skipped, %d landings", skipped, landed)
	}
	t.Logf("%d cycles skipped, %d landings", skipped, landed)
}

// randomLockstep runs fast and steps slow alongside to fast's stop as
// TestLoopSkipRandomAgainstStepping describes, with the choices made from
// seed, writing 0 or 1 to one of the words of outside on both now and
// then between runs, and fails t at the first difference.
func randomLockstep(t *testing.T, seed int64, fast, slow *CPU, outside []uint32) {
	t.Helper()
	defer func(m int) { maxHeld = m }(maxHeld)
	rng := rand.New(rand.NewSource(seed))
	maxHeld = []int{heldRing, 4, 1}[seed%3]
	readEvery := []int{2, 10, 100, 1000}[seed%4]
	stepEvery := []int{3, 6, 50, 1000}[seed/4%4]
	for i := 0; ; i++ {
		what := fmt.Sprintf("seed %d, run %d", seed, i)
		if rng.Intn(50) == 0 {
			fast.SetBreakpoint(uint32(4*rng.Intn(20)), true)
		}
		if rng.Intn(30) == 0 {
			for _, a := range fast.Breakpoints() {
				fast.SetBreakpoint(a, false)
			}
		}
		if rng.Intn(40) == 0 {
			fast.SetReg(9, fast.R[9])
			slow.SetReg(9, slow.R[9])
		}
		if rng.Intn(60) == 0 {
			a := outside[rng.Intn(len(outside))]
			v := []byte{0, 0, 0, byte(rng.Intn(2))}
			fast.Mem.Write(a, v)
			slow.Mem.Write(a, v)
		}
		if rng.Intn(20) == 0 {
			x, ok1 := fast.LastTransfer()
			y, ok2 := slow.LastTransfer()
			if x != y || ok1 != ok2 {
				t.Fatalf("%s: last transfer %v run, %v stepped", what, x, y)
			}
		}
		var st, ss *Stop
		stepped := rng.Intn(stepEvery) == 0
		if stepped {
			st = fast.Step()
		} else {
			st = fast.Run(uint64(1 + rng.Intn([]int{5, 40, 400, 5000}[rng.Intn(4)])))
		}
		for slow.Cycles < fast.Cycles {
			if ss = slow.Step(); ss.Kind != StopStep {
				break
			}
		}
		switch st.Kind {
		case StopStep: // its events ran before its instruction, as stepping runs them
			st = CycleLimit
		case StopCycleLimit, StopBreakpoint:
			slow.Run(0) // the events due there, which a run runs before it stops
			st = CycleLimit
		case StopTrap, StopExit:
			if ss == nil || ss.Kind != st.Kind {
				ss = slow.Step() // the trapping instruction takes no cycle
			}
		}
		// The program's registers: not the sink that takes writes to r0
		// and r1 (a skip does not replay them), nor R[2] (see lockstep).
		fr, sr := [32]uint32(fast.R[:32]), [32]uint32(slow.R[:32])
		fr[2], sr[2] = 0, 0
		if fast.Cycles != slow.Cycles || fast.Instret != slow.Instret || fr != sr || fast.Flags != slow.Flags ||
			fast.PC != slow.PC || fast.NPC != slow.NPC || fast.NNPC != slow.NNPC || fast.lastLoad != slow.lastLoad {
			t.Fatalf("%s (%v): run at pc %#x after %d cycles %d instructions; stepped at pc %#x after %d cycles %d instructions",
				what, st.Kind, fast.PC, fast.Cycles, fast.Instret, slow.PC, slow.Cycles, slow.Instret)
		}
		a1, s1, n1 := fast.LastStore()
		a2, s2, n2 := slow.LastStore()
		if a1 != a2 || s1 != s2 || n1 != n2 {
			t.Fatalf("%s: last store %#x/%d (%d) run, %#x/%d (%d) stepped", what, a1, s1, n1, a2, s2, n2)
		}
		if string(fast.Mem.SRAM[:0x10000]) != string(slow.Mem.SRAM[:0x10000]) {
			for a := range fast.Mem.SRAM {
				if fast.Mem.SRAM[a] != slow.Mem.SRAM[a] {
					t.Errorf("%#x: run %#x stepped %#x", a, fast.Mem.SRAM[a&^3:a&^3+4], slow.Mem.SRAM[a&^3:a&^3+4])
					break
				}
			}
			t.Fatalf("%s (%v, cycle %d, pc %#x): SRAM differs", what, st.Kind, fast.Cycles, fast.PC)
		}
		if (rng.Intn(readEvery) == 0 || st.Kind != StopCycleLimit) && fmt.Sprint(fast.Transfers()) != fmt.Sprint(slow.Transfers()) {
			t.Fatalf("%s (cycle %d): transfers\n%v run\n%v stepped", what, fast.Cycles, fast.Transfers(), slow.Transfers())
		}
		if st.Kind != StopCycleLimit {
			switch {
			case ss == nil || ss.Kind != st.Kind:
			case st.Kind == StopExit && st.Code == ss.Code:
				return
			case st.Kind == StopTrap && st.Trap.Report() == ss.Trap.Report():
				return
			}
			t.Fatalf("%s: stopped %v run, %v stepped", what, st, ss)
		}
	}
}

// bookRandom books SRAM for the DMA engine from up to 100 cycles from now
// (after the last booking) for 1 to 40 cycles, noting the window in
// *booked for bookedConfig's arbiter.
func bookRandom(c *CPU, rng *rand.Rand, booked *[]window) {
	w := window{c.Cycles + uint64(rng.Intn(100)), 0}
	if n := len(*booked); n > 0 {
		w.from = max(w.from, (*booked)[n-1].to)
	}
	w.to = w.from + uint64(1+rng.Intn(40))
	*booked = append(*booked, w)
	c.BookSRAM(w.to)
}
