package lanai

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"lanaiemu/asm"
)

// dmaWait is a DMA wait loop of the kind the NetVM firmware's dma_sync
// has: it polls a descriptor word in SRAM for the bit an event sets,
// stores a constant, and calls a function that pushes and pops its return
// address and reads EIMR. It stores no varying value. It exits with EIMR's low bit plus the
// descriptor word.
const dmaWait = `
	mov 0x8000, %sp
	mov 0x100, %r11
.Lwait:
	ld 0x1000[%r0], %r7        ! the descriptor word
	st %r11, 0x2000[%r0]       ! a steady store (the last store inside an iteration is this or the push)
	bt poll
	add %pc, 4, %rca
	and %r7, %r11, %r7
	sub.f %r7, 0, %r0
	beq .Lwait
	nop
	add %r8, %r7, %r8
	st %r8, -4096[%r0]         ! exit
poll:
	st %rca, [--%sp]
	ld -424[%r0], %r8          ! EIMR (a plain special register here)
	and %r8, 0xffff0001, %r8
	ld [%sp++], %rca
	add %rca, 0, %pc
	nop
`

// window is a half-open interval [from, to) of SRAM cycles another master
// booked.
type window struct{ from, to uint64 }

// bookedConfig is a core configuration whose SRAM arbiter stalls a core
// access in one of *booked's windows (sorted, disjoint) until the window
// ends, as board.SRAMContention does, and tells the core the first booked
// cycle (NextBooked).
func bookedConfig(booked *[]window) Config {
	return Config{
		ContentionBooked: true,
		Contention: func(cycle uint64, addr uint32, write bool) uint64 {
			for _, w := range *booked {
				if cycle >= w.from && cycle < w.to {
					return w.to - cycle
				}
			}
			return 0
		},
		NextBooked: func(cycle uint64) uint64 {
			for _, w := range *booked {
				if w.to > cycle {
					return max(w.from, cycle)
				}
			}
			return ^uint64(0)
		},
	}
}

// bookedCore loads dmaWait on a core whose SRAM arbiter stalls a core
// access in a booked window until the window ends (as board.SRAMContention
// does), with DMA bursts every 103 cycles from cycle 5,000 to 150,000:
// each writes a buffer the loop does not read and books 32 SRAM cycles,
// either from its own cycle on (an SRAM-to-host burst) or ending at the
// next burst (a host-to-SRAM one); the descriptor's bit is set at 160,007.
// With book false the bursts book nothing.
func bookedCore(t testing.TB, book bool) *CPU {
	t.Helper()
	var booked []window
	cfg := bookedConfig(&booked)
	c, _ := load(t, linkSources(t, asm.Source{Name: "wait.s", Text: []byte("\t.globl _start\n_start:\n" + dmaWait)}), cfg)
	var burst func()
	n := uint32(0)
	burst = func() {
		n++
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], n)
		c.Mem.Write(0x3000+4*(n%64), b[:])
		w := window{c.Cycles, c.Cycles + 32}
		if n%2 == 0 {
			w = window{c.Cycles + 71, c.Cycles + 103}
		}
		if book {
			for len(booked) > 0 && booked[0].to <= c.Cycles {
				booked = booked[1:] // past: every question is about now or later
			}
			booked = append(booked, w)
			c.BookSRAM(w.to)
		}
		if c.Cycles < 150_000 {
			c.Schedule(c.Cycles+103, burst)
		}
	}
	c.Schedule(5_000, burst)
	c.Schedule(160_007, func() { c.Mem.Write(0x1000, []byte{0, 0, 1, 0}) })
	return c
}

// runInSteps runs c to its stop in runs of budget cycles.
func runInSteps(c *CPU, budget uint64) *Stop {
	for {
		if st := c.Run(budget); st.Kind != StopCycleLimit {
			return st
		}
	}
}

// A proved wait loop is skipped across the SRAM cycles a DMA engine
// booked, each access in a booked cycle stalled as the arbiter stalls it,
// and from the middle of an iteration after an event the proof survived
// or at the start of a run: registers, flags, pc, SRAM, the counts and
// the transfers (a trap report's history) are those of stepping, in one
// long run and in runs of 20 and 7 cycles (a cluster's quantum).
func TestLoopSkipThroughBookedSRAM(t *testing.T) {
	// About 1,400 bursts, half of them booking SRAM ahead of the next:
	// the skips cross hundreds of booked windows.
	skipEqualsStepping(t, true, func(fast *CPU) (uint64, string) {
		return fast.loop.stalled, "iterations skipped across booked cycles"
	}, 500, 120_000)
}

// skipEqualsStepping runs bookedCore(booked) in one long run and in runs
// of 20 and 7 cycles against a stepped copy: the stops and every state
// sameCores compares must agree, and each run must have skipped at least
// minSkipped cycles with a shortcut count (what counted says) of at least
// minCount.
func skipEqualsStepping(t *testing.T, booked bool, counted func(*CPU) (uint64, string), minCount, minSkipped uint64) {
	t.Helper()
	slow := bookedCore(t, booked)
	stSlow := stepTo(slow, 0, 1<<30)
	for _, budget := range []uint64{1 << 30, 20, 7} {
		fast := bookedCore(t, booked)
		st := runInSteps(fast, budget)
		if st.Kind != StopExit || stSlow.Kind != StopExit || st.Code != stSlow.Code {
			t.Fatalf("budget %d: stops: %v, stepped %v", budget, stopMessage(st), stopMessage(stSlow))
		}
		sameCores(t, fmt.Sprintf("booked %v", booked), fast, slow)
		n, what := counted(fast)
		if n < minCount || fast.SkippedCycles < minSkipped {
			t.Errorf("budget %d: %d %s, %d of %d cycles skipped", budget, n, what, fast.SkippedCycles, fast.Cycles)
		}
		t.Logf("budget %d: %d cycles, %d skipped, %d %s, %d proofs", budget, fast.Cycles, fast.SkippedCycles, n, what, fast.loop.proofs)
	}
}

// The comparison above sees a stall off by one: computing every stall of
// a skipped iteration one cycle too long changes the counts.
func TestLoopSkipStallOffByOneCaught(t *testing.T) {
	slow := bookedCore(t, true)
	stepTo(slow, 0, 1<<30)
	stallSkew = 1
	defer func() { stallSkew = 0 }()
	fast := bookedCore(t, true)
	runInSteps(fast, 1<<30)
	if fast.Cycles == slow.Cycles {
		t.Errorf("stalls off by one: %d cycles, as stepping", fast.Cycles)
	}
}

// Without booked cycles a skip ends at the first instruction at or after
// the next event or the run's limit, inside an iteration, in the state
// the watched iteration had there: the counts, registers, SRAM and
// transfers are those of stepping, and runs of 20 or 7 cycles skip as
// much as one long run.
func TestLoopSkipLandsInsideIterations(t *testing.T) {
	skipEqualsStepping(t, false, func(fast *CPU) (uint64, string) {
		return fast.loop.landed, "skips ended inside an iteration"
	}, 1000, 150_000)
}

// A loop that stores a varying value (mainLoop's heartbeat, from the cycle
// counter) is skipped to a head an iteration before the end (when it
// skipped whole iterations) and executed from there: in runs of 2^30, 20 and 7
// cycles, with DMA-like events writing a buffer every 997 cycles, the
// counts, registers, SRAM (the heartbeat word) and transfers are those of
// stepping.
func TestLoopSkipVaryingStoresInSteps(t *testing.T) {
	core := func() *CPU {
		c, _ := load(t, linkSources(t, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + mainLoop)}), Config{})
		c.Schedule(300_003, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
		bufferWrites(c, func(uint32) uint64 { return 997 })
		return c
	}
	slow := core()
	stSlow := stepTo(slow, 0, 1<<30)
	for _, budget := range []uint64{1 << 30, 20, 7} {
		fast := core()
		st := runInSteps(fast, budget)
		if st.Kind != StopExit || stSlow.Kind != StopExit || st.Code != stSlow.Code {
			t.Fatalf("budget %d: stops: %v, stepped %v", budget, stopMessage(st), stopMessage(stSlow))
		}
		sameCores(t, "varying stores", fast, slow)
		// Runs shorter than an iteration skip little, a long one most of
		// the time.
		if budget > 1000 && fast.SkippedCycles < 250_000 {
			t.Errorf("budget %d: %d of %d cycles skipped", budget, fast.SkippedCycles, fast.Cycles)
		}
		t.Logf("budget %d: %d cycles, %d skipped, %d landings inside an iteration", budget, fast.Cycles, fast.SkippedCycles, fast.loop.landed)
	}
}

// A loop proved again and again (an event changes a bit of EIMR it reads
// but masks off, every 2,000 cycles: each change fails the proof, the next
// watch proves it again) keeps the counts of stepping; each proof's
// record of its iteration starts afresh (a list of one, left uncleared
// between proofs, overflowed here).
func TestLoopProvedManyTimes(t *testing.T) {
	core := func() *CPU {
		c, _ := load(t, linkSources(t, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + mainLoop)}), Config{})
		var flip func()
		n := uint32(0)
		flip = func() {
			n++
			c.Mem.WriteIO(0xFFFFFE58, 4, 2<<(n%2)) // bits 1 and 2: masked off by the loop
			if n < 700 {
				c.Schedule(c.Cycles+2000, flip)
			} else {
				c.Schedule(c.Cycles+2000, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
			}
		}
		c.Schedule(3000, flip)
		return c
	}
	slow := core()
	stSlow := stepTo(slow, 0, 1<<30)
	fast := core()
	st := runInSteps(fast, 1<<30)
	if st.Kind != StopExit || stSlow.Kind != StopExit || st.Code != stSlow.Code {
		t.Fatalf("stops: %v, stepped %v", stopMessage(st), stopMessage(stSlow))
	}
	sameCores(t, "proved many times", fast, slow)
	if fast.loop.proofs+fast.loop.revivals < 600 { // (a proof taken again is a proof)
		t.Errorf("%d proofs, %d taken again", fast.loop.proofs, fast.loop.revivals)
	}
	// A watch steps its iteration (17 instructions) in one call, up to the
	// run's deadline (it used to go back to Run after every instruction).
	if fast.loop.watchCalls > 2*(fast.loop.proofs+fast.loop.revivals)+10 {
		t.Errorf("%d watch calls for %d proofs", fast.loop.watchCalls, fast.loop.proofs)
	}
	t.Logf("%d cycles, %d skipped, %d proofs, %d watch calls", fast.Cycles, fast.SkippedCycles, fast.loop.proofs, fast.loop.watchCalls)
}

// A loop that stores a varying value late in its iteration (mainLoop with
// the RTC heartbeat moved after the call) has instructions before it where
// no register holds a varying value: a skip resumed there must not pass
// the rest of the iteration (its replay would store the watched
// iteration's heartbeat), and the heartbeat word is that of stepping at
// the end of every run.
func TestLoopSkipResumedBeforeAVaryingStore(t *testing.T) {
	late := func() *CPU {
		src := strings.Replace(mainLoop, "\tld -392[%r0], %r7          ! heartbeat from CPUC\n\tst %r7, 0x1000[%r0]\n", "", 1)
		src = strings.Replace(src, "\tsub.f %r8, 0, %r0\n", "\tld -408[%r0], %r7\n\tst %r7, 0x1000[%r0]\n\tmov 0, %r7\n\tsub.f %r8, 0, %r0\n", 1)
		c := rtcSource(t, src, 37, func(cycles uint64) uint32 { return uint32(cycles / 37) })
		return c
	}
	for _, chunk := range []uint64{101, 211} {
		lockstep(t, fmt.Sprintf("chunk %d", chunk), late(), late(), chunk, 0, 1)
	}
}

// rtcHeartbeatCore loads mainLoop with its heartbeat from an RTC-like
// register (see TestLoopSkipRTCHeartbeatInSteps).
func rtcHeartbeatCore(t *testing.T) *CPU {
	return rtcCore(t, 37, func(cycles uint64) uint32 { return uint32(cycles / 37) })
}

// rtcCore is rtcHeartbeatCore with the RTC-like register ticking every
// tick cycles and reading value(cycle of the read).
func rtcCore(t *testing.T, tick uint64, value func(cycles uint64) uint32) *CPU {
	src := strings.Replace(mainLoop, "ld -392[%r0], %r7          ! heartbeat from CPUC", "ld -408[%r0], %r7          ! heartbeat from the RTC", 1)
	src = strings.Replace(src, "st %r7, 0x1000[%r0]\n", "st %r7, 0x1000[%r0]\n\tmov 0, %r7\n", 1)
	return rtcSource(t, src, tick, value)
}

// rtcSource loads src (a loop that reads the RTC-like register) as
// rtcCore does.
func rtcSource(t *testing.T, src string, tick uint64, value func(cycles uint64) uint32) *CPU {
	c, _ := load(t, linkSources(t, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
	var lastRead uint64
	c.Mem.Specials.Hook(0x068, func() uint32 { lastRead = c.Cycles; return value(c.Cycles) }, nil)
	c.Mem.Specials.HookStable(0x068, func() uint64 { return (lastRead/tick + 1) * tick })
	c.Schedule(300_003, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
	bufferWrites(c, func(n uint32) uint64 { return 29 + uint64(n%50) })
	return c
}

// bufferWrites schedules DMA-like events on c from cycle 5,000 to 250,000:
// the nth writes n to a word of a 64-word buffer at 0x3000 that the loops
// under test never read, and the next follows gap(n) cycles later.
func bufferWrites(c *CPU, gap func(n uint32) uint64) {
	var burst func()
	n := uint32(0)
	burst = func() {
		n++
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], n)
		c.Mem.Write(0x3000+4*(n%64), b[:])
		if c.Cycles < 250_000 {
			c.Schedule(c.Cycles+gap(n), burst)
		}
	}
	c.Schedule(5000, burst)
}

// mainLoop with its heartbeat from an RTC-like register (0x068: ticks
// every 37 cycles; a read says it is stable until the next tick after the
// core's last read, as the board's RTC does), so that a watch finds it
// steady or varying by when it comes, with DMA-like events every 29 to 78
// cycles, is skipped with the counts, SRAM and transfers of stepping in
// runs of 2^30, 20, 7 and 101 cycles.
func TestLoopSkipRTCHeartbeatInSteps(t *testing.T) {
	core := func() *CPU { return rtcHeartbeatCore(t) }
	slow := core()
	stSlow := stepTo(slow, 0, 1<<30)
	for _, budget := range []uint64{1 << 30, 20, 7, 101, 13} {
		fast := core()
		st := runInSteps(fast, budget)
		if st.Kind != StopExit || stSlow.Kind != StopExit || st.Code != stSlow.Code {
			t.Fatalf("budget %d: stops: %v, stepped %v", budget, stopMessage(st), stopMessage(stSlow))
		}
		sameCores(t, "RTC heartbeat", fast, slow)
		t.Logf("budget %d: %d cycles, %d skipped", budget, fast.Cycles, fast.SkippedCycles)
	}
}

// Run in chunks of 13 cycles and stepped alongside, the core is in the
// state of stepping at the end of every chunk (registers, flags, pc,
// counts, the last store and the transfers; SRAM every 500th chunk), not
// only at the end: skips end inside iterations there. (Without the last
// store of whole iterations skipped before a landing, it failed: the
// skip left the iteration's last store as the core's last one.)
func TestLoopSkipMatchesSteppingAtEveryRunEnd(t *testing.T) {
	for _, book := range []bool{false, true} {
		lockstep(t, fmt.Sprintf("booked %v", book), bookedCore(t, book), bookedCore(t, book), 13, 0, 1)
	}
	lockstep(t, "RTC heartbeat", rtcHeartbeatCore(t), rtcHeartbeatCore(t), 13, 0, 1)
}

// A heartbeat register that reads 0 or 1 (flipping every 23 cycles): the
// loop stores the varying value and then clears the register (mov 0), so
// when the watched iteration read 0, the clear wrote the value the
// register already held and its note has no write of it. A skip resumed
// between the store and the clear with 1 in the register left it there
// (stepping clears it): skips resume only where no register holds a
// varying value.
func TestLoopSkipResumesWhereNoRegisterVaries(t *testing.T) {
	bit := func(cycles uint64) uint32 { return uint32(cycles/23) & 1 }
	for _, chunk := range []uint64{29, 101} {
		lockstep(t, fmt.Sprintf("chunk %d", chunk), rtcCore(t, 23, bit), rtcCore(t, 23, bit), chunk, 0, 1)
	}
}

// A debugger runs the core on its fast path and steps it in between: a
// step made while a loop is watched (a run ended inside the watched
// iteration) is one instruction the watch does not follow, so the watch
// must end there. (Without that, the proof's iteration lacked the
// stepped instruction, its noted instructions no longer matched the
// count, and skips landed in the wrong state or panicked.)
func TestLoopSkipMatchesSteppingWithStepsBetweenRuns(t *testing.T) {
	for _, chunk := range []uint64{13, 50} {
		for _, book := range []bool{false, true} {
			lockstep(t, fmt.Sprintf("chunk %d, booked %v", chunk, book), bookedCore(t, book), bookedCore(t, book), chunk, 3, 1)
		}
		lockstep(t, fmt.Sprintf("chunk %d, RTC heartbeat", chunk), rtcHeartbeatCore(t), rtcHeartbeatCore(t), chunk, 3, 1)
	}
}

// lockstep runs fast in runs of chunk cycles and steps slow alongside,
// comparing them after every run (see TestLoopSkipMatchesSteppingAtEveryRunEnd;
// of SRAM the words the test loops store to and the last store's, all of
// it every 500th run),
// their transfer histories after every readEvery-th (reading the history
// writes the transfers skips held into it). With stepEvery > 0, every
// stepEvery-th run is a single Step instead. It returns the most
// transfer ranges fast held at a run's end.
func lockstep(t *testing.T, what string, fast, slow *CPU, chunk uint64, stepEvery, readEvery int) (mostHeld int) {
	t.Helper()
	for i := 0; ; i++ {
		stepped := stepEvery > 0 && i%stepEvery == stepEvery-1
		var st *Stop
		if stepped {
			if st = fast.Step(); st.Kind == StopStep {
				st = CycleLimit // go on
			}
		} else {
			st = fast.Run(chunk)
		}
		for slow.Cycles < fast.Cycles {
			if s := slow.Step(); s.Kind != StopStep {
				break
			}
		}
		if st.Kind == StopCycleLimit && !stepped {
			slow.Run(0) // the events due there, which a run runs before it returns
		}
		// R[2] aside: between instructions it holds the address of the
		// last one that set it, which the run loop does on the general
		// path of a load or store (taken while SRAM is booked ahead) and
		// not on the fast one, and no instruction reads it (one that
		// reads pc gets its own address); a skip that lands inside an
		// iteration leaves the watched iteration's value there.
		fr, sr := fast.R, slow.R
		fr[2], sr[2] = 0, 0
		if fast.Cycles != slow.Cycles || fast.Instret != slow.Instret || fr != sr || fast.Flags != slow.Flags ||
			fast.PC != slow.PC || fast.NPC != slow.NPC || fast.NNPC != slow.NNPC || fast.lastLoad != slow.lastLoad {
			t.Fatalf("%s, run %d: run at pc %#x after %d cycles %d instructions; stepped at pc %#x after %d cycles %d instructions",
				what, i, fast.PC, fast.Cycles, fast.Instret, slow.PC, slow.Cycles, slow.Instret)
		}
		a1, s1, n1 := fast.LastStore()
		a2, s2, n2 := slow.LastStore()
		if a1 != a2 || s1 != s2 || n1 != n2 {
			t.Fatalf("%s, run %d (cycle %d): last store %#x/%d (%d) run, %#x/%d (%d) stepped", what, i, fast.Cycles, a1, s1, n1, a2, s2, n2)
		}
		mostHeld = max(mostHeld, fast.loop.nheld)
		if (i%readEvery == readEvery-1 || st.Kind != StopCycleLimit) && fmt.Sprint(fast.Transfers()) != fmt.Sprint(slow.Transfers()) {
			t.Fatalf("%s, run %d (cycle %d): transfers differ", what, i, fast.Cycles)
		}
		for _, w := range []uint32{0x1000, 0x2000, a1 &^ 3} { // the loops' stores (mainLoop's heartbeat) and the last
			if fast.Mem.InSRAM(w, 4) && fast.sramWord(w) != slow.sramWord(w) {
				t.Fatalf("%s, run %d (cycle %d): word %#x: %#x run, %#x stepped", what, i, fast.Cycles, w, fast.sramWord(w), slow.sramWord(w))
			}
		}
		if i%500 == 0 && !bytes.Equal(fast.Mem.SRAM, slow.Mem.SRAM) {
			for a := range fast.Mem.SRAM {
				if fast.Mem.SRAM[a] != slow.Mem.SRAM[a] {
					t.Errorf("%#x: run %#x stepped %#x", a, fast.Mem.SRAM[a&^3:a&^3+4], slow.Mem.SRAM[a&^3:a&^3+4])
					break
				}
			}
			t.Fatalf("%s, run %d (cycle %d, pc %#x): SRAM differs", what, i, fast.Cycles, fast.PC)
		}
		if st.Kind != StopCycleLimit {
			break
		}
	}
	if fast.SkippedCycles < 50_000 {
		t.Errorf("%s: %d cycles skipped", what, fast.SkippedCycles)
	}
	t.Logf("%s: %d cycles, %d skipped, at most %d ranges of transfers held", what, fast.Cycles, fast.SkippedCycles, mostHeld)
	return mostHeld
}

// longWait is a wait loop of 24 instructions with one control transfer
// per iteration (its branch): a skip of a few cycles passes none or one.
var longWait = `
	mov 0x100, %r11
.Lwait:
	ld 0x1000[%r0], %r7
	st %r11, 0x2000[%r0]
` + strings.Repeat("\tadd %r11, 1, %r9\n", 18) + `
	and %r7, %r11, %r7
	sub.f %r7, 0, %r0
	beq .Lwait
	nop
	st %r7, -4096[%r0]
`

// The transfers of skips are held out of the history (in a ring of
// ranges, with the transfers executed between taking their own slots)
// until something reads it. With a single step after every second to
// fifth run (its instruction ends a range) and the history read only
// every 5th, 37th or 101st run, the histories are those of stepping, with
// the ring full (it writes out its oldest range); with a ring of 4, the
// oldest of longWait's short ranges still has slots when it is written
// out.
func TestLoopSkipHistoryReadLate(t *testing.T) {
	long := func() *CPU {
		c, _ := load(t, linkSources(t, asm.Source{Name: "long.s", Text: []byte("\t.globl _start\n_start:\n" + longWait)}), Config{})
		c.Schedule(100_003, func() { c.Mem.Write(0x1000, []byte{0, 0, 1, 0}) })
		return c
	}
	defer func(m int) { maxHeld = m }(maxHeld)
	for _, ring := range []int{heldRing, 4} {
		maxHeld = ring
		for _, read := range []int{5, 37, 101} {
			what := fmt.Sprintf("ring %d, read every %d", ring, read)
			most := 0
			for _, book := range []bool{false, true} {
				most = max(most, lockstep(t, fmt.Sprintf("%s, booked %v", what, book), bookedCore(t, book), bookedCore(t, book), 31, 2, read))
			}
			most = max(most, lockstep(t, what+", RTC heartbeat", rtcHeartbeatCore(t), rtcHeartbeatCore(t), 29, 3, read))
			most = max(most, lockstep(t, what+", long iterations", long(), long(), 13, 5, read))
			if read > 2*ring && most < ring {
				t.Errorf("%s: at most %d ranges held", what, most)
			}
		}
	}
}

// A run that stops inside the proved iteration leaves the count of
// instructions since that iteration's head (loop.headInstret), from which
// the next run's resume finds its place (loopResume): the difference from
// Instret is, modulo the iteration's length, the place of the instruction
// at pc, and after a skip that lands it is below the length (the resume
// divides only otherwise).
func TestLoopResumeFindsItsPlace(t *testing.T) {
	for _, book := range []bool{false, true} {
		c := bookedCore(t, book)
		var runs, inLoop, short int
		for {
			runs++
			landed := c.loop.landed
			if st := c.Run(20); st.Kind != StopCycleLimit {
				break
			}
			w := &c.loop
			if !w.proved {
				continue
			}
			n := w.iterInstret
			d := c.Instret - w.headInstret
			x := -1
			for i := range int(n) {
				if w.trace[i].pc == c.PC && (i == 0 || w.trace[i-1].npc == c.NPC) {
					x = i
				}
			}
			if x < 0 {
				continue // left the loop (its exit): the proof is checked before the next run executes
			}
			inLoop++
			if d%n != uint64(x) {
				t.Fatalf("book %v, run %d: pc %#x is instruction %d of the iteration, the count since its head says %d", book, runs, c.PC, x, d%n)
			}
			if w.landed != landed && d >= n {
				t.Fatalf("book %v, run %d: a landing left %d instructions since the head, the iteration has %d", book, runs, d, n)
			}
			if d < n {
				short++
			}
		}
		if inLoop < 5000 || short < inLoop*9/10 {
			t.Errorf("book %v: %d runs, %d in the proved loop, %d of them with the count below the length", book, runs, inLoop, short)
		}
		t.Logf("book %v: %d runs, %d in the proved loop, %d of them with the count below the length", book, runs, inLoop, short)
	}
}
