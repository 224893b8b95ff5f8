package lanai

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"lanaiemu/asm"
)

// countLoop is mainLoop with a statistics count in every pass, as the
// NetVM firmware's send_step counts a WAW stall: the word at 0x2000 is
// loaded, moved by an immediate and stored back, and the count stays in
// r14 (and, 3 on, in r15) to the end of the pass. The exit stores the
// count's register, so a wrong r14 shows in the exit code too.
const countLoop = `
	mov 0x8000, %sp
	mov 0, %r9
.Lmain:
	ld -408[%r0], %r7          ! heartbeat from the RTC
	st %r7, 0x1000[%r0]
	mov 0, %r7
	bt poll
	add %pc, 4, %rca
	sub.f %r8, 0, %r0
	beq .Lmain
	nop
.Lexit:
	st %r15, 0x1004[%r0]
	st %r14, -4096[%r0]        ! exit with the count
poll:
	st %rca, [--%sp]
	mov 0x2000, %r13
	ld 0[%r13], %r14           ! the count
	add %r14, 5, %r14
	sub %r14, 2, %r14
	st %r14, 0[%r13]
	add %r14, 3, %r15
	ld -424[%r0], %r8          ! EIMR (a plain special register here)
	and %r8, 0xffff0001, %r8
	ld [%sp++], %rca
	add %rca, 0, %pc
	nop
`

// countCore loads src with rtcSource's RTC-like register (ticking every
// 37 cycles) and its exit at cycle 300,003, DMA-like writes to a buffer
// the loop does not read 29 to 629 cycles apart (bufferWrites), and writes to the count's word from
// outside at the cycles in writes (a skip counts on from what they
// wrote, as executing does).
func countCore(t *testing.T, src string, writes ...uint64) *CPU {
	c, _ := load(t, linkSources(t, asm.Source{Name: "count.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
	countDevices(c, writes...)
	return c
}

// countDevices gives c countCore's devices, events and writes.
func countDevices(c *CPU, writes ...uint64) {
	hookClock(c, 37)
	c.Schedule(300_003, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
	bufferWrites(c, func(n uint32) uint64 { return 29 + uint64(n%7)*100 })
	for i, at := range writes {
		v := uint32(0x10000 * (i + 1))
		c.Schedule(at, func() {
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], v)
			c.Mem.Write(0x2000, b[:])
		})
	}
}

// A pass whose only change is a count is proved, and skipped with the
// count moved by the skipped passes: registers, SRAM (the count's word
// checked after every run), counts, the last store and the transfers are
// those of stepping, in runs of 101, 257 and 1,009 cycles, with single steps
// between runs, in long runs (and in runs of 20 and 7 cycles, too short
// for a skip from a head), and with the count's word written from
// outside.
func TestLoopSkipCountsInSteps(t *testing.T) {
	writes := []uint64{60_001, 120_017, 200_003}
	for _, chunk := range []uint64{101, 257, 1009} {
		lockstep(t, fmt.Sprintf("chunk %d", chunk), countCore(t, countLoop, writes...), countCore(t, countLoop, writes...), chunk, 0, 1)
		lockstep(t, fmt.Sprintf("chunk %d, steps between", chunk), countCore(t, countLoop, writes...), countCore(t, countLoop, writes...), chunk, 3, 1)
	}
	slow := countCore(t, countLoop, writes...)
	stSlow := stepTo(slow, 0, 1<<30)
	for _, budget := range []uint64{1 << 30, 20, 7} {
		fast := countCore(t, countLoop, writes...)
		st := runInSteps(fast, budget)
		if st.Kind != StopExit || stSlow.Kind != StopExit || st.Code != stSlow.Code {
			t.Fatalf("budget %d: stops: %v, stepped %v", budget, stopMessage(st), stopMessage(stSlow))
		}
		sameCores(t, fmt.Sprintf("budget %d", budget), fast, slow)
		if !fast.loop.hasCount || fast.loop.cdelta != 3 || budget > 20 && fast.SkippedCycles < fast.Cycles/2 {
			t.Errorf("budget %d: counted proof %v (delta %d), %d of %d cycles skipped",
				budget, fast.loop.hasCount, fast.loop.cdelta, fast.SkippedCycles, fast.Cycles)
		}
		t.Logf("budget %d: exit %#x, %d cycles, %d skipped", budget, st.Code, fast.Cycles, fast.SkippedCycles)
	}
}

// What a count may not do: decide a branch, give an address, be stored
// elsewhere, be read before the pass gives it, or be loaded in part.
// Each loop is run as stepping runs it (the count stays unproved, and
// the loop is either executed or proved without counting).
func TestLoopCountMisuseNotSkipped(t *testing.T) {
	count := "\tld 0[%r13], %r14           ! the count\n\tadd %r14, 5, %r14\n\tsub %r14, 2, %r14\n\tst %r14, 0[%r13]\n\tadd %r14, 3, %r15\n"
	for _, c := range []struct{ what, with string }{
		{"a branch on it", count + "\tsub.f %r14, 0, %r0\n\tbeq .+8\n\tnop\n"},
		{"another operation on it", count + "\tand %r14, 0xffff00fc, %r12\n"},
		{"an address from it", count + "\tadd %r14, 0x3000, %r12\n\tuld.b 0[%r12], %r12\n"},
		{"stored elsewhere", count + "\tst %r15, 0x2004[%r0]\n"},
		{"read before it is given", "\tst %r14, 0x1008[%r0]\n" + count},
		{"read before it is given, to leave", "\tsh %r14, -16, %r12\n\tsub.f %r12, 0, %r0\n\tbne .Lexit\n\tnop\n" + count},
		{"loaded in part", count + "\tuld.b 3[%r13], %r12\n"},
		{"a flag test", count + "\tadd.f %r14, 0, %r12\n"},
		{"added to a register", count + "\tadd %r14, %r9, %r14\n"},
	} {
		src := strings.Replace(countLoop, count, c.with, 1)
		if src == countLoop {
			t.Fatalf("%s: the count is not in countLoop", c.what)
		}
		slow := countCore(t, src, 150_001)
		stSlow := stepTo(slow, 0, 1<<30)
		for _, budget := range []uint64{1 << 30, 20} {
			fast := countCore(t, src, 150_001)
			st := runInSteps(fast, budget)
			if st.Kind != StopExit || stSlow.Kind != StopExit || st.Code != stSlow.Code {
				t.Fatalf("%s, budget %d: stops: %v, stepped %v", c.what, budget, stopMessage(st), stopMessage(stSlow))
			}
			sameCores(t, fmt.Sprintf("%s, budget %d", c.what, budget), fast, slow)
			if fast.loop.proved && fast.loop.hasCount {
				t.Errorf("%s, budget %d: proved with a count", c.what, budget)
			}
		}
	}
}

// randomCountCore loads a variant of countLoop chosen by rng: the count
// moved by a delta of either sign (or none), a second count of the same
// word in the pass, loads and stores of the words around it (part-word,
// steady, or the heartbeat's low byte, varying), the count starting near
// 2^32 or 2^31 so that it wraps; events every 1 to gap cycles that note
// what the count's word holds (the returned log: what a DMA reading SRAM
// there would read), and write it (a random value), or a buffer, and with
// booking book SRAM cycles, as randomLoopCore's do; the exit after cycle
// 300,000.
func randomCountCore(t *testing.T, rng *rand.Rand) (*CPU, *[]uint32) {
	src := countLoop
	count := "\tadd %r14, 5, %r14\n\tsub %r14, 2, %r14\n"
	src = strings.Replace(src, count, []string{
		"\tadd %r14, 1, %r14\n",
		"\tsub %r14, 1, %r14\n",
		"\tsub %r14, 0x7fff, %r14\n\tadd %r14, 3, %r14\n",
		"",
		count,
	}[rng.Intn(5)], 1)
	store := "\tst %r14, 0[%r13]\n"
	var after string
	if rng.Intn(2) == 0 { // counted again, from what the first count stored
		after += "\tld 0[%r13], %r16\n\tsub %r16, 9, %r16\n\tst %r16, 0[%r13]\n"
		src = strings.Replace(src, "\tst %r14, -4096[%r0]", "\tst %r16, 0x1008[%r0]\n\tst %r14, -4096[%r0]", 1)
	}
	for _, x := range []string{
		"\tuld.b 4[%r13], %r12\n",
		"\tst.h %r0, 6[%r13]\n",
		"\tst.b %r9, -1[%r13]\n",
		"\tuld.h -2[%r13], %r12\n",
	} {
		if rng.Intn(3) == 0 {
			after += x
		}
	}
	src = strings.Replace(src, store, store+after, 1)
	if rng.Intn(3) == 0 {
		src = strings.Replace(src, "\tmov 0, %r9\n", "\tmov 0, %r9\n\tmov 0x2000, %r13\n", 1)
		src = strings.Replace(src, "\tst %r7, 0x1000[%r0]\n", "\tst %r7, 0x1000[%r0]\n\tst.b %r7, 7[%r13]\n", 1)
	}
	var booked []window
	book := rng.Intn(2) == 0
	c, _ := load(t, linkSources(t, asm.Source{Name: "count.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), bookedConfig(&booked))
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], []uint32{0, 0xfffffff0, 0x7ffffffc, rng.Uint32()}[rng.Intn(4)])
	c.Mem.Write(0x2000, b[:])
	tick := uint64(20 + rng.Intn(200))
	hookClock(c, tick)
	gap := []int{30, 300, 3000, 30000}[rng.Intn(4)]
	var log []uint32
	var event func()
	n := uint32(0)
	event = func() {
		n++
		log = append(log, c.sramWord(0x2000))
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], n)
		switch {
		case c.Cycles > 300_000:
			c.Mem.WriteIO(0xFFFFFE58, 4, 0x11)
			return
		case rng.Intn(6) == 0:
			binary.BigEndian.PutUint32(b[:], rng.Uint32())
			c.Mem.Write(0x2000, b[:])
		default:
			c.Mem.Write(0x3000+4*(n%64), b[:])
		}
		if book {
			bookRandom(c, rng, &booked)
		}
		c.Schedule(c.Cycles+uint64(1+rng.Intn(gap)), event)
	}
	c.Schedule(2000, event)
	return c, &log
}

// Random variants of countLoop (randomCountCore) run in random runs and
// steps against stepping as TestLoopSkipRandomAgainstStepping runs its
// loops, with the count's word also written from outside between runs:
// the state at every run's end, and the count's word at every event, are
// those of stepping, and most variants are skipped with counts.
func TestLoopCountRandomAgainstStepping(t *testing.T) {
	countLockstep(t, randomCountCore, []uint32{0x2000, 0x2004, 0x1ffc, 0x3000}, 100_000)
}

// ownCodeCount counts in its own code: every pass adds 1 to the
// immediate of the instruction the pass begins with, and the pass leaves
// when that immediate reaches 0x200 (exit code 0x200). The only word a
// pass changes is that instruction.
const ownCodeCount = `
	mov ownCount, %r13
.Lloop:
ownCount:
	mov 0x10, %r12             ! its immediate counts the passes
	sub.f %r12, 0x200, %r0
	beq .Lexit
	nop
	mov 0, %r12
	ld 0[%r13], %r14           ! the pass's first instruction
	add %r14, 1, %r14
	st %r14, 0[%r13]
	sub.f %r0, 0, %r0
	beq .Lloop
	nop
.Lexit:
	st %r12, -4096[%r0]
`

// A word the counted iteration executes is no count: a skip that counted
// it on would not execute what it became (without the rule, the run
// skipped past the pass that leaves, and ran to the cycle limit where
// stepping exits at cycle 5,958).
func TestLoopCountOwnCodeNotSkipped(t *testing.T) {
	img := linkSources(t, asm.Source{Name: "own.s", Text: []byte("\t.globl _start\n_start:\n" + ownCodeCount)})
	slow, _ := load(t, img, Config{})
	stSlow := stepTo(slow, 0, 100_000)
	for _, budget := range []uint64{100_000, 20, 7} {
		fast, _ := load(t, img, Config{})
		st := fast.Run(budget)
		for fast.Cycles < 100_000 && st.Kind == StopCycleLimit {
			st = fast.Run(budget)
		}
		if st.Kind != StopExit || stSlow.Kind != StopExit || st.Code != 0x200 || stSlow.Code != 0x200 {
			t.Fatalf("budget %d: stops: %v, stepped %v", budget, stopMessage(st), stopMessage(stSlow))
		}
		sameCores(t, fmt.Sprintf("budget %d", budget), fast, slow)
		if fast.loop.hasCount {
			t.Errorf("budget %d: proved with a count", budget)
		}
	}
}

// countReadCore is countLoop with two words the pass only reads, held in
// registers to the pass's end (and stored at the exit): 0x2004, next to
// the count's word 0x2000, and 0x2400, far from it. Events every 1 to gap
// cycles write the count's word alone, in part (its low half, or its
// first byte with the word before), the count's word and its only-read
// neighbour together (8 bytes), the neighbour alone, the far word, or a
// buffer; the returned log is the count's word at every event. The pass
// stores both words again (0x1010, 0x1014), so that a pass skipped with
// a stale one shows in SRAM; most variants drop countLoop's heartbeat
// store, which makes the core execute the last pass before an event
// (reloading them). So the
// recheck filter (a read-only word is looked at only when a write came
// near it) meets the count, whose word it leaves out.
func countReadCore(t *testing.T, rng *rand.Rand) (*CPU, *[]uint32) {
	src := strings.Replace(countLoop, "\tst %r14, 0[%r13]\n",
		"\tst %r14, 0[%r13]\n\tld 4[%r13], %r12\n\tld 0x400[%r13], %r11\n\tst %r12, 0x1010[%r0]\n\tst %r11, 0x1014[%r0]\n", 1)
	src = strings.Replace(src, "\tst %r15, 0x1004[%r0]\n", "\tst %r15, 0x1004[%r0]\n\tst %r12, 0x1008[%r0]\n\tst %r11, 0x100c[%r0]\n", 1)
	if rng.Intn(3) > 0 {
		src = strings.Replace(src, "\tst %r7, 0x1000[%r0]\n", "", 1) // no heartbeat: skips may end anywhere
	}
	var booked []window
	book := rng.Intn(2) == 0
	c, _ := load(t, linkSources(t, asm.Source{Name: "count.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), bookedConfig(&booked))
	tick := uint64(20 + rng.Intn(200))
	hookClock(c, tick)
	gap := []int{30, 300, 1000}[rng.Intn(3)]
	var log []uint32
	var event func()
	event = func() {
		log = append(log, c.sramWord(0x2000))
		var b [8]byte
		binary.BigEndian.PutUint32(b[:], rng.Uint32())
		binary.BigEndian.PutUint32(b[4:], rng.Uint32())
		switch x := rng.Intn(8); {
		case c.Cycles > 300_000:
			c.Mem.WriteIO(0xFFFFFE58, 4, 0x11)
			return
		case x == 0:
			c.Mem.Write(0x2000, b[:4]) // the count alone
		case x == 1:
			c.Mem.Write(0x2002, b[:2]) // its low half
		case x == 2:
			c.Mem.Write(0x1fff, b[:2]) // the word before's last byte and the count's first
		case x == 3:
			c.Mem.Write(0x2000, b[:]) // the count and its neighbour
		case x == 4:
			c.Mem.Write(0x2004, b[4:]) // the neighbour alone
		case x == 5:
			c.Mem.Write(0x2400, b[4:]) // the far word
		default:
			c.Mem.Write(0x3000+4*uint32(rng.Intn(64)), b[:4])
		}
		if book {
			bookRandom(c, rng, &booked)
		}
		c.Schedule(c.Cycles+uint64(1+rng.Intn(gap)), event)
	}
	c.Schedule(2000, event)
	return c, &log
}

// countReadCore's loops run against stepping in random runs and steps
// (randomLockstep, which also writes the words from outside between
// runs): the state at every run's end and the count at every event are
// those of stepping, and the loops are skipped with counts.
func TestLoopCountReadFilterAgainstStepping(t *testing.T) {
	countLockstep(t, countReadCore, []uint32{0x2000, 0x2002, 0x2004, 0x1ffe, 0x2400}, 50_000)
}

// countLockstep runs the counting cores core builds for every seed in
// pairs, one run and one stepped (randomLockstep, with words written from
// outside), and checks that every event read the same count in both, that
// at least minSkipped cycles a seed were skipped and that a third of the
// seeds were last proved with a count.
func countLockstep(t *testing.T, core func(*testing.T, *rand.Rand) (*CPU, *[]uint32), words []uint32, minSkipped uint64) {
	t.Helper()
	var skipped, counted uint64
	for seed := int64(1); seed <= int64(*lockstepSeeds); seed++ {
		fast, fastLog := core(t, rand.New(rand.NewSource(seed)))
		slow, slowLog := core(t, rand.New(rand.NewSource(seed)))
		randomLockstep(t, seed, fast, slow, words)
		if fmt.Sprint(*fastLog) != fmt.Sprint(*slowLog) {
			for i := range min(len(*fastLog), len(*slowLog)) {
				if (*fastLog)[i] != (*slowLog)[i] {
					t.Fatalf("seed %d: event %d read the count %#x run, %#x stepped", seed, i, (*fastLog)[i], (*slowLog)[i])
				}
			}
			t.Fatalf("seed %d: %d events run, %d stepped", seed, len(*fastLog), len(*slowLog))
		}
		skipped += fast.SkippedCycles
		if fast.loop.hasCount {
			counted++
		}
	}
	if skipped < uint64(*lockstepSeeds)*minSkipped || counted < uint64(*lockstepSeeds)/3 {
		t.Errorf("%d cycles skipped, %d of %d seeds last proved with a count", skipped, counted, *lockstepSeeds)
	}
	t.Logf("%d cycles skipped, %d of %d seeds last proved with a count", skipped, counted, *lockstepSeeds)
}

// Cores sharing countLoop's code each keep their own count: with the
// count's word written from outside at other cycles in each (or never),
// each runs as it does alone (counts, skips, state, SRAM, polling
// states, compared after every round of runs), and as stepping.
func TestLoopCountSharedCode(t *testing.T) {
	img := linkSources(t, asm.Source{Name: "count.s", Text: []byte("\t.globl _start\n_start:\n" + countLoop)})
	writes := func(i int) []uint64 {
		var w []uint64
		for k := range i {
			w = append(w, uint64(30_001+k*41_017+i*7_919))
		}
		return w
	}
	ps := newShareTwins(t, img, 4, func(i int, c *CPU) { countDevices(c, writes(i)...) })
	var s SharedCode
	for i, p := range ps {
		if !p.shared.ShareCode(&s) {
			t.Fatalf("core %d did not join", i)
		}
	}
	for range 2000 {
		stepTwins(t, ps, 331)
	}
	for i, p := range ps {
		slow, _ := load(t, img, Config{})
		countDevices(slow, writes(i)...)
		ss := stepTo(slow, 0, 1<<30)
		if st := p.stop[0]; st == nil || st.Kind != StopExit || ss.Kind != StopExit || st.Code != ss.Code {
			t.Fatalf("core %d: stopped %v, stepped %v", i, stopMessage(p.stop[0]), stopMessage(ss))
		}
		sameCores(t, fmt.Sprintf("core %d", i), p.shared, slow)
		if !p.shared.loop.hasCount || p.shared.SkippedCycles < p.shared.Cycles/2 {
			t.Errorf("core %d: counted proof %v, %d of %d cycles skipped", i, p.shared.loop.hasCount, p.shared.SkippedCycles, p.shared.Cycles)
		}
	}
	if s.Members() != len(ps) {
		t.Errorf("%d members at the end", s.Members())
	}
}
