package lanai

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/asm"
	"lanaiemu/isa"
)

// mainLoop is a firmware main loop of the kind poll.go cannot prove from
// its text: a call that pushes and pops its return address, a heartbeat
// stored from the cycle counter (a value that changes every cycle) and a
// poll of EIMR that an event sets at cycle 1,000,003. The program exits
// with the heartbeat's last value minus the cycle the loop started.
const mainLoop = `
	mov 0x8000, %sp
	mov 0, %r9
	ld -392[%r0], %r20         ! CPUC: when the loop starts
.Lmain:
	ld -392[%r0], %r7          ! heartbeat from CPUC
	st %r7, 0x1000[%r0]
	bt poll
	add %pc, 4, %rca
	sub.f %r8, 0, %r0
	beq .Lmain
	mov 0, %r7                 ! (delay slot) the heartbeat is dead here
	ld 0x1000[%r0], %r7
	sub %r7, %r20, %r7
	st %r7, -4096[%r0]         ! exit with the heartbeat's age
poll:
	st %rca, [--%sp]
	ld -424[%r0], %r8          ! EIMR (a plain special register here)
	and %r8, 0xffff0001, %r8
	ld [%sp++], %rca
	add %rca, 0, %pc
	nop
`

// runLoop runs a program to its exit by Run or by Step, with EIMR set by
// an event at cycle 1,000,003 when poke is true.
func runLoop(t *testing.T, src string, step, poke bool) (*CPU, *Stop) {
	t.Helper()
	c, _ := load(t, linkSources(t, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
	if poke {
		c.Schedule(1_000_003, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
	}
	if !step {
		return c, c.Run(1 << 30)
	}
	st := c.Step()
	for st.Kind == StopStep {
		st = c.Step()
	}
	return c, st
}

// A loop with calls, pushes, pops and a varying heartbeat is skipped to
// the event with exactly the counts, the exit code, the SRAM contents and
// the store count that executing it gives.
func TestLoopSkip(t *testing.T) {
	fast, st1 := runLoop(t, mainLoop, false, true)
	slow, st2 := runLoop(t, mainLoop, true, true)
	if st1.Kind != StopExit || st2.Kind != StopExit {
		t.Fatalf("stops: %v %v", stopMessage(st1), stopMessage(st2))
	}
	if st1.Code != st2.Code || st1.Code < 999_000 {
		t.Errorf("heartbeat: %d skipping, %d executing", st1.Code, st2.Code)
	}
	if fast.Cycles != slow.Cycles || fast.Instret != slow.Instret {
		t.Errorf("skipping: %d cycles %d instructions; executing: %d cycles %d instructions", fast.Cycles, fast.Instret, slow.Cycles, slow.Instret)
	}
	if _, _, n1 := fast.LastStore(); true {
		if _, _, n2 := slow.LastStore(); n1 != n2 {
			t.Errorf("stores: %d skipping, %d executing", n1, n2)
		}
	}
	if !bytes.Equal(fast.Mem.SRAM, slow.Mem.SRAM) {
		t.Errorf("SRAM differs (-executing +skipping):\n%s", cmp.Diff(slow.Mem.SRAM, fast.Mem.SRAM))
	}
	if fast.SkippedCycles < 900_000 {
		t.Errorf("only %d cycles skipped", fast.SkippedCycles)
	}
	t.Logf("%d cycles, %d skipped", fast.Cycles, fast.SkippedCycles)
}

// Loops that are not side-effect free run as executing them gives: one
// whose exit depends on the cycle counter (through a store and a load
// back), and one that counts in SRAM.
func TestLoopNotSkipped(t *testing.T) {
	cases := map[string]string{
		"exit on the cycle counter": `
.Lw:
	ld -392[%r0], %r7
	st %r7, 0x1000[%r0]
	ld 0x1000[%r0], %r8
	sub.f %r8, 0x7000, %r0
	bult .Lw
	mov 0, %r8
	st %r0, -4096[%r0]
`,
		"a counter in SRAM": `
	mov 0x5000, %r9
.Lc:
	ld 0x1000[%r0], %r7
	add %r7, 1, %r7
	st %r7, 0x1000[%r0]
	sub.f %r7, %r9, %r0
	bne .Lc
	mov 0, %r7
	st %r0, -4096[%r0]
`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			fast, st1 := runLoop(t, src, false, false)
			slow, st2 := runLoop(t, src, true, false)
			if st1.Kind != StopExit || st2.Kind != StopExit {
				t.Fatalf("stops: %v %v", stopMessage(st1), stopMessage(st2))
			}
			if fast.Cycles != slow.Cycles || fast.Instret != slow.Instret || fast.SkippedCycles != 0 {
				t.Errorf("run: %d cycles %d instructions (%d skipped); stepped: %d cycles %d instructions",
					fast.Cycles, fast.Instret, fast.SkippedCycles, slow.Cycles, slow.Instret)
			}
			if binary.BigEndian.Uint32(fast.Mem.SRAM[0x1000:]) != binary.BigEndian.Uint32(slow.Mem.SRAM[0x1000:]) {
				t.Error("SRAM word differs")
			}
		})
	}
}

// A proof ends when something outside the core writes SRAM: a loop
// waiting for a word in SRAM that a device writes (no event on this core:
// as a host's write through the PCI window) leaves at the next iteration.
func TestLoopProofEndsOnWrite(t *testing.T) {
	src := `
.Lw:
	ld -392[%r0], %r7
	st %r7, 0x1000[%r0]
	ld 0x2000[%r0], %r8
	sub.f %r8, 0, %r0
	beq .Lw
	mov 0, %r7
	st %r8, -4096[%r0]
`
	c, _ := load(t, linkSources(t, asm.Source{Name: "w.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
	if st := c.Run(100_000); st.Kind != StopCycleLimit {
		t.Fatalf("stopped: %v", stopMessage(st))
	}
	if !c.Polling() || c.SkippedCycles < 50_000 {
		t.Fatalf("polling %v, %d cycles skipped", c.Polling(), c.SkippedCycles)
	}
	if err := c.Mem.Write(0x2000, []byte{0, 0, 0, 7}); err != nil {
		t.Fatal(err)
	}
	if c.Polling() {
		t.Fatal("still polling after a write")
	}
	at := c.Cycles
	st := c.Run(100_000)
	if st.Kind != StopExit || st.Code != 7 || c.Cycles > at+30 {
		t.Fatalf("%v code %d after %d more cycles", st.Kind, st.Code, c.Cycles-at)
	}
}

// A word the loop reads and also stores is checked again after any
// change from outside, near it or not: here the loop stores 1 to a
// scratch word, reads it back and stores 0 again, so between iterations
// the word holds 0, not the 1 the proof read, and a write far from both
// ends the proof (the rule at the top of loop.go). The words it only
// reads are looked at after a write near them (TestLoopProofEndsOnWrite);
// one far away keeps the proof of a loop without such a word.
func TestLoopRecheckReadsWordsItStores(t *testing.T) {
	for _, scratch := range []bool{true, false} {
		src := `
.Lw:
	ld 0x2000[%r0], %r8
	mov 1, %r9
	st %r9, 0x3000[%r0]
	ld 0x3000[%r0], %r10
	st %r0, 0x3000[%r0]
	sub.f %r8, 0, %r0
	beq .Lw
	nop
	st %r8, -4096[%r0]
`
		if !scratch {
			src = strings.Replace(src, "\tld 0x3000[%r0], %r10\n", "", 1)
		}
		c, _ := load(t, linkSources(t, asm.Source{Name: "w.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
		if st := c.Run(100_000); st.Kind != StopCycleLimit {
			t.Fatalf("stopped: %v", stopMessage(st))
		}
		if !c.Polling() || c.SkippedCycles < 50_000 {
			t.Fatalf("scratch %v: polling %v, %d cycles skipped", scratch, c.Polling(), c.SkippedCycles)
		}
		if err := c.Mem.Write(0x9000, []byte{1, 2, 3, 4}); err != nil { // far from what it reads
			t.Fatal(err)
		}
		if got := c.Polling(); got == scratch {
			t.Errorf("scratch %v: polling %v after a write far away", scratch, got)
		}
	}
}

// A proof survives events that leave what the loop reads alone: a device
// that writes an SRAM word the loop never reads every 997 cycles (a DMA
// burst into a packet buffer) and rewrites the stack word the loop pops
// with the value it holds. The loop is still skipped between the events,
// with exactly the counts, exit code and SRAM that executing it gives.
func TestLoopProofSurvivesEvents(t *testing.T) {
	run := func(step bool) (*CPU, *Stop) {
		c, _ := load(t, linkSources(t, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + mainLoop)}), Config{})
		c.Schedule(1_000_003, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
		var burst func()
		n := uint32(0)
		burst = func() {
			n++
			var w [4]byte
			binary.BigEndian.PutUint32(w[:], n)
			c.Mem.Write(0x3000+4*(n%64), w[:])             // a buffer the loop does not read
			c.Mem.Write(0x7ffc, c.Mem.SRAM[0x7ffc:0x8000]) // the pushed word, unchanged
			if c.Cycles < 1_200_000 {
				c.Schedule(c.Cycles+997, burst)
			}
		}
		c.Schedule(5000, burst)
		if !step {
			return c, c.Run(1 << 30)
		}
		st := c.Step()
		for st.Kind == StopStep {
			st = c.Step()
		}
		return c, st
	}
	fast, st1 := run(false)
	slow, st2 := run(true)
	if st1.Kind != StopExit || st2.Kind != StopExit || st1.Code != st2.Code {
		t.Fatalf("stops: %v %v", stopMessage(st1), stopMessage(st2))
	}
	if fast.Cycles != slow.Cycles || fast.Instret != slow.Instret {
		t.Errorf("skipping: %d cycles %d instructions; executing: %d cycles %d instructions", fast.Cycles, fast.Instret, slow.Cycles, slow.Instret)
	}
	if !bytes.Equal(fast.Mem.SRAM, slow.Mem.SRAM) {
		t.Errorf("SRAM differs (-executing +skipping):\n%s", cmp.Diff(slow.Mem.SRAM, fast.Mem.SRAM))
	}
	// Forgetting the proof at every event would cost a watched iteration
	// every 997 cycles (about 1,000 proofs).
	if fast.SkippedCycles < 900_000 || fast.loop.proofs > 2 {
		t.Errorf("%d cycles skipped, %d proofs", fast.SkippedCycles, fast.loop.proofs)
	}
	t.Logf("%d cycles, %d skipped, %d proofs", fast.Cycles, fast.SkippedCycles, fast.loop.proofs)
}

// A proved loop is skipped while the DMA engine has SRAM cycles booked
// ahead (Config.NextBooked), not only once every booked cycle has passed:
// with a booking of [600,000, 600,400) made at the start, the loop is
// skipped before, across (its accesses in the booking stalled as
// executing them stalls them) and after it, with the counts of stepping.
func TestLoopSkipAcrossBookedSRAM(t *testing.T) {
	const from, to = 600_000, 600_400
	cfg := Config{
		ContentionBooked: true,
		Contention: func(cycle uint64, addr uint32, write bool) uint64 {
			if cycle >= from && cycle < to {
				return to - cycle
			}
			return 0
		},
		NextBooked: func(cycle uint64) uint64 {
			if cycle < to {
				return max(cycle, from)
			}
			return ^uint64(0)
		},
	}
	run := func(step bool) (*CPU, *Stop) {
		c, _ := load(t, linkSources(t, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + mainLoop)}), cfg)
		c.BookSRAM(to)
		c.Schedule(1_000_003, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
		if !step {
			return c, c.Run(1 << 30)
		}
		st := c.Step()
		for st.Kind == StopStep {
			st = c.Step()
		}
		return c, st
	}
	fast, st1 := run(false)
	slow, st2 := run(true)
	if st1.Kind != StopExit || st2.Kind != StopExit || st1.Code != st2.Code {
		t.Fatalf("stops: %v %v", stopMessage(st1), stopMessage(st2))
	}
	if fast.Cycles != slow.Cycles || fast.Instret != slow.Instret || !bytes.Equal(fast.Mem.SRAM, slow.Mem.SRAM) {
		t.Errorf("skipping: %d cycles %d instructions; executing: %d cycles %d instructions", fast.Cycles, fast.Instret, slow.Cycles, slow.Instret)
	}
	if fast.SkippedCycles < 900_000 {
		t.Errorf("only %d cycles skipped", fast.SkippedCycles)
	}
	t.Logf("%d cycles, %d skipped", fast.Cycles, fast.SkippedCycles)
}

// A reset starts the cycle count again, so SRAM booked before it is no
// booking after it: the fast paths and loop skips are open again from
// cycle 0 (the board clears its calendar in the same reset).
func TestResetForgetsBookedSRAM(t *testing.T) {
	cfg := Config{
		ContentionBooked: true,
		Contention:       func(cycle uint64, addr uint32, write bool) uint64 { return 0 },
	}
	c, _ := load(t, linkSources(t, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + mainLoop)}), cfg)
	c.BookSRAM(5_000_000)
	if got := c.SRAMFree(); got != 0 {
		t.Fatalf("before the reset: SRAMFree = %d, want 0 (booked, no NextBooked)", got)
	}
	c.Reset(c.PC)
	if got := c.SRAMFree(); got != ^uint64(0) {
		t.Errorf("after the reset: SRAMFree = %d, want ^0 (nothing booked)", got)
	}
}

// A register or pc written from outside (a debugger's SetReg or Jump)
// ends the proof: the core may leave the loop at once, so Polling, which
// a runner takes as "acts on nothing before its next event", must say no.
func TestLoopProofEndsOnRegisterWrite(t *testing.T) {
	src := `
.Lw:
	ld -392[%r0], %r7
	st %r7, 0x1000[%r0]
	sub.f %r9, 0, %r0
	beq .Lw
	mov 0, %r7
	st %r9, -4096[%r0]
`
	for _, write := range []struct {
		name string
		f    func(c *CPU)
	}{
		{"SetReg", func(c *CPU) { c.SetReg(isa.Reg(9), 5) }},
		{"Jump", func(c *CPU) { c.Jump(c.PC) }},
	} {
		c, _ := load(t, linkSources(t, asm.Source{Name: "w.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
		if st := c.Run(100_000); st.Kind != StopCycleLimit {
			t.Fatalf("%s: stopped: %v", write.name, stopMessage(st))
		}
		if !c.Polling() || c.SkippedCycles < 50_000 {
			t.Fatalf("%s: polling %v, %d cycles skipped", write.name, c.Polling(), c.SkippedCycles)
		}
		write.f(c)
		if c.Polling() {
			t.Errorf("%s: still polling after the write", write.name)
		}
	}
}

// growingLoop polls a mode word and EIMR; while the mode word is 0 its
// iteration is six instructions, once an event sets it the same backward
// branch closes an iteration of about seventy. The program exits when an
// event sets EIMR.
var growingLoop = `
	mov 0, %r9
.Lmain:
	ld 0x2000[%r0], %r8        ! the mode word
	sub.f %r8, 0, %r0
	beq .Lshort
	nop
` + strings.Repeat("\tnop\n", 64) + `
.Lshort:
	ld -424[%r0], %r9          ! EIMR
	sub.f %r9, 0, %r0
	beq .Lmain
	nop
	st %r9, -4096[%r0]         ! exit with EIMR
`

// A loop proved short and later longer at the same branch is proved
// again: the cap a short proof put on the next watch (four times its
// length) is dropped when an iteration runs past it, so the long
// iterations are skipped too, with the counts of stepping.
func TestLoopProvedAgainWhenLonger(t *testing.T) {
	run := func(step bool) (*CPU, *Stop) {
		c, _ := load(t, linkSources(t, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + growingLoop)}), Config{})
		c.Schedule(100_000, func() { c.Mem.Write(0x2000, []byte{0, 0, 0, 1}) })
		c.Schedule(2_000_003, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
		if !step {
			return c, c.Run(1 << 30)
		}
		st := c.Step()
		for st.Kind == StopStep {
			st = c.Step()
		}
		return c, st
	}
	fast, st1 := run(false)
	slow, st2 := run(true)
	if st1.Kind != StopExit || st2.Kind != StopExit || st1.Code != st2.Code {
		t.Fatalf("stops: %v %v", stopMessage(st1), stopMessage(st2))
	}
	if fast.Cycles != slow.Cycles || fast.Instret != slow.Instret {
		t.Errorf("skipping: %d cycles %d instructions; executing: %d cycles %d instructions", fast.Cycles, fast.Instret, slow.Cycles, slow.Instret)
	}
	// The long loop runs from cycle 100,000 to 2,000,003: skipped, most of
	// that is gone; executed (never proved again), under 100,000 is skipped.
	if fast.SkippedCycles < 1_800_000 {
		t.Errorf("%d cycles skipped of %d, %d proofs", fast.SkippedCycles, fast.Cycles, fast.loop.proofs)
	}
	t.Logf("%d cycles, %d skipped, %d proofs", fast.Cycles, fast.SkippedCycles, fast.loop.proofs)
}
