package lanai

import (
	"encoding/binary"
	"testing"

	"lanaiemu/asm"
)

// The run loop may treat straight-line code as a unit (docs/performance.md,
// "Tried and not kept": predecoded basic blocks). These tests pin down what it must do at the edges of such
// a unit, each by comparing a run with the same program stepped one
// instruction at a time: the counts, registers, flags, pc, SRAM and the
// history of transfers (whose cycles a trap report shows) must be the same.

// patchLoop rewrites, three times over, the instruction two words after
// its store and runs it, then puts the old word back.
const patchLoop = `
	.text
	.globl	_start
_start:
	mov	hi(.Lnew), %r7
	or	%r7, lo(.Lnew), %r7
	mov	hi(.Lpatch), %r6
	or	%r6, lo(.Lpatch), %r6
	mov	0, %r3
	mov	3, %r10
.Lloop:
	ld	0[%r7], %r8        ! the new word
	ld	4[%r7], %r9        ! the old word
	st	%r8, 0[%r6]        ! rewrite .Lpatch, two instructions on
	add	%r3, 1, %r3
.Lpatch:
	add	%r3, 100, %r3      ! runs as "add %r3, 7, %r3"
	st	%r9, 0[%r6]        ! the old word back
	sub.f	%r10, 1, %r10
	bne	.Lloop
	add	%r3, 1, %r3
	st	%r3, -4096[%r0]    ! exit
	bt	.
	nop
.Lnew:
	add	%r3, 7, %r3
	add	%r3, 100, %r3
`

// straightLoop is a loop of straight-line code with loads and their uses,
// a part-word access and a conditional branch.
const straightLoop = `
	.text
	.globl	_start
_start:
	mov	0x4000, %r6
	mov	200, %r10
	mov	0, %r3
.Lloop:
	ld	0[%r6], %r8
	add	%r8, 3, %r8        ! a load-use stall
	st	%r8, 0[%r6]
	uld.b	3[%r6], %r9        ! a part-word load: two cycles
	add	%r3, %r9, %r3
.Lmid:
	xor	%r3, %r8, %r4
	sub.f	%r10, 1, %r10
	bne	.Lloop
	ld	4[%r6], %r11       ! a load in the delay slot
	st	%r3, -4096[%r0]    ! exit
	bt	.
	nop
`

// stepTo steps c until it stops for another reason than a step, its pc is
// at (when at is not 0) or its cycle count reaches limit.
func stepTo(c *CPU, at uint32, limit uint64) *Stop {
	for c.Cycles < limit {
		st := c.Step()
		if st.Kind != StopStep {
			return st
		}
		if at != 0 && c.PC == at {
			return st
		}
	}
	return CycleLimit
}

// sameCores fails t when a and b differ in any state a program can see.
func sameCores(t *testing.T, what string, a, b *CPU) {
	t.Helper()
	if a.Cycles != b.Cycles || a.Instret != b.Instret || a.R != b.R || a.Flags != b.Flags ||
		a.PC != b.PC || a.NPC != b.NPC || a.NNPC != b.NNPC || a.lastLoad != b.lastLoad ||
		string(a.Mem.SRAM) != string(b.Mem.SRAM) {
		t.Fatalf("%s: run at pc %#x after %d cycles %d instructions; stepped at pc %#x after %d cycles %d instructions",
			what, a.PC, a.Cycles, a.Instret, b.PC, b.Cycles, b.Instret)
	}
	if sa, za, na := a.LastStore(); true {
		if sb, zb, nb := b.LastStore(); sa != sb || za != zb || na != nb {
			t.Fatalf("%s: last store %#x/%d (%d stores) run, %#x/%d (%d stores) stepped", what, sa, za, na, sb, zb, nb)
		}
	}
	ta, tb := a.Transfers(), b.Transfers()
	if len(ta) != len(tb) {
		t.Fatalf("%s: %d transfers run, %d stepped", what, len(ta), len(tb))
	}
	for i := range ta {
		if ta[i] != tb[i] {
			t.Fatalf("%s: transfer %d: run %+v, stepped %+v", what, i, ta[i], tb[i])
		}
	}
}

// twoCores loads src on two cores configured alike.
func twoCores(t *testing.T, src string, cfg Config) (run, step *CPU) {
	img := linkSources(t, asm.Source{Name: "straight.s", Text: []byte(src)})
	run, _ = load(t, img, cfg)
	step, _ = load(t, img, cfg)
	return run, step
}

// A store into the straight-line code ahead of it takes effect at once.
func TestStraightSelfModifying(t *testing.T) {
	r, s := twoCores(t, patchLoop, Config{})
	if st := r.Run(1 << 20); st.Kind != StopExit {
		t.Fatalf("run: %s", stopMessage(st))
	}
	if st := stepTo(s, 0, 1<<20); st.Kind != StopExit {
		t.Fatalf("stepped: %s", stopMessage(st))
	}
	if r.R[3] != 27 {
		t.Errorf("r3 = %d, want 27 (the rewritten instruction ran each time)", r.R[3])
	}
	sameCores(t, "self-modifying", r, s)
}

// A breakpoint in the middle of straight-line code stops a run before it,
// with the counts of stepping up to it, every time round the loop.
func TestStraightBreakpoint(t *testing.T) {
	r, s := twoCores(t, straightLoop, Config{})
	mid := findWord(t, r, 0xc20c4600) // "xor %r3, %r8, %r4", the sixth instruction of the loop
	r.SetBreakpoint(mid, true)
	for i := 0; i < 5; i++ {
		st := r.Run(1 << 20)
		if st.Kind != StopBreakpoint || r.PC != mid {
			t.Fatalf("pass %d: %s at pc %#x, want a breakpoint at %#x", i, stopMessage(st), r.PC, mid)
		}
		stepTo(s, mid, 1<<20)
		sameCores(t, "at the breakpoint", r, s)
		r.Step() // over the breakpoint
		s.Step()
	}
	r.SetBreakpoint(mid, false)
	r.Run(1 << 20)
	stepTo(s, 0, 1<<20)
	sameCores(t, "after the breakpoint is cleared", r, s)
}

// Runs whose budget ends inside straight-line code stop exactly there.
func TestStraightShortBudgets(t *testing.T) {
	r, s := twoCores(t, straightLoop, Config{})
	for budget := uint64(1); r.Stopped() == nil || r.Stopped().Kind == StopCycleLimit; budget = budget%7 + 1 {
		want := r.Cycles + budget
		r.Run(budget)
		stepTo(s, 0, want)
		sameCores(t, "short budget", r, s)
	}
	if r.Stopped().Kind != StopExit {
		t.Fatalf("stopped: %s", stopMessage(r.Stopped()))
	}
}

// Events in the middle of straight-line code run at their cycle: here an
// outside master (as DMA does) rewrites an instruction of the loop, and
// later writes the data it loads.
func TestStraightEventWritesCode(t *testing.T) {
	r, s := twoCores(t, straightLoop, Config{})
	for _, c := range []*CPU{r, s} {
		mid := findWord(t, c, 0xc20c4600)
		c.Schedule(97, func() { // "xor %r3, %r8, %r4" becomes "or %r3, %r8, %r4"
			var w [4]byte
			binary.BigEndian.PutUint32(w[:], 0xc20c4500)
			c.Mem.Write(mid, w[:])
			c.Mem.Written(mid, 4)
		})
		c.Schedule(403, func() {
			c.Mem.Write(0x4000, []byte{0, 0, 0x10, 0})
			c.Mem.Written(0x4000, 4)
		})
	}
	if st := r.Run(1 << 20); st.Kind != StopExit {
		t.Fatalf("run: %s", stopMessage(st))
	}
	stepTo(s, 0, 1<<20)
	sameCores(t, "events", r, s)
	ranOr(t, r)
}

// ranOr checks that the loop's last pass ran the rewritten instruction.
func ranOr(t *testing.T, c *CPU) {
	t.Helper()
	if x, y := c.R[3], c.R[8]; c.R[4] != x|y || x&y == 0 {
		t.Errorf("r4 = %#x, want r3|r8 = %#x (and r3&r8 = %#x not 0)", c.R[4], x|y, x&y)
	}
}

// An outside write into code between runs (a DMA into a loop that ran
// before) is seen by the next run.
func TestStraightWriteBetweenRuns(t *testing.T) {
	r, s := twoCores(t, straightLoop, Config{})
	for _, c := range []*CPU{r, s} {
		mid := findWord(t, c, 0xc20c4600)
		if c == r {
			c.Run(300)
		} else {
			stepTo(c, 0, 300)
		}
		var w [4]byte
		binary.BigEndian.PutUint32(w[:], 0xc20c4500)
		c.Mem.Write(mid, w[:])
		c.Mem.Written(mid, 4)
	}
	sameCores(t, "before the write", r, s)
	r.Run(1 << 20)
	stepTo(s, 0, 1<<20)
	sameCores(t, "after the write", r, s)
	ranOr(t, r)
}

// SRAM booked by DMA in the middle of straight-line code sends the core's
// accesses to the general path, which charges the contention.
func TestStraightBookedSRAM(t *testing.T) {
	cfg := Config{ContentionBooked: true}
	r, s := twoCores(t, straightLoop, cfg)
	for _, c := range []*CPU{r, s} {
		c.cfg.Contention = func(cycle uint64, addr uint32, write bool) uint64 {
			if cycle < c.sramBooked {
				return 2
			}
			return 0
		}
		for at := uint64(50); at < 1500; at += 137 {
			c.Schedule(at, func() { c.BookSRAM(c.Cycles + 9) })
		}
	}
	if st := r.Run(1 << 20); st.Kind != StopExit {
		t.Fatalf("run: %s", stopMessage(st))
	}
	stepTo(s, 0, 1<<20)
	sameCores(t, "booked SRAM", r, s)
	free, _ := twoCores(t, straightLoop, Config{})
	free.Run(1 << 20)
	if r.Cycles <= free.Cycles {
		t.Errorf("%d cycles with bookings, %d without: no access met a booked cycle", r.Cycles, free.Cycles)
	}
}

// findWord is the address of the first SRAM word holding w.
func findWord(t *testing.T, c *CPU, w uint32) uint32 {
	t.Helper()
	for a := uint32(0); a+4 <= uint32(len(c.Mem.SRAM)); a += 4 {
		if binary.BigEndian.Uint32(c.Mem.SRAM[a:]) == w {
			return a
		}
	}
	t.Fatalf("no word %#08x in SRAM", w)
	return 0
}
