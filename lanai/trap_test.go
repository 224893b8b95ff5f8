package lanai

import (
	"fmt"
	"strings"
	"testing"

	"lanaiemu/asm"
)

// runSource assembles and links a program and runs it with a budget.
func runSource(t *testing.T, src string, budget uint64, cfg Config) (*CPU, *Stop) {
	t.Helper()
	c, _ := load(t, linkSources(t, asm.Source{Name: "p.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), cfg)
	return c, c.Run(budget)
}

// Bad programs stop with a trap that says what happened and where, never
// a panic or a hang.
func TestTraps(t *testing.T) {
	cases := []struct {
		name, src, reason string
		pc                uint32
	}{
		{"invalid instruction", "\tnop\n\t.long 0xd0000007\n", "invalid instruction 0xd0000007", 4},
		{"unmapped load", "\tmov 0x4000, %r6\n\tsh %r6, 16, %r6\n\tld 0[%r6], %r7\n", "4-byte read at 0x40000000: unmapped address", 8},
		{"unaligned load", "\tmov 2, %r6\n\tld 0[%r6], %r7\n", "unaligned 4-byte read at 0x00000002", 4},
		{"unaligned half store", "\tmov 3, %r6\n\tst.h %r7, 0[%r6]\n", "unaligned 2-byte write at 0x00000003", 4},
		{"byte access to a device", "\tld.b -432[%r0], %r7\n", "devices take word accesses only", 0},
		{"no special register", "\tld -4[%r0], %r7\n", "no special register here", 0},
		{"fetch outside SRAM", "\tmov 0x3000, %r6\n\tsh %r6, 12, %r6\n\tor %r6, 0, %pc\n\tnop\n", "instruction fetch at 0x03000000, outside SRAM", 0x03000000},
		{"deadlock", "\tbt .\n\tnop\n", "deadlock: branch to itself", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, st := runSource(t, tc.src, 1_000_000, Config{})
			if st.Kind != StopTrap {
				t.Fatalf("stopped with %v, want a trap", st.Kind)
			}
			if !strings.Contains(st.Trap.Reason, tc.reason) {
				t.Errorf("reason %q, want %q", st.Trap.Reason, tc.reason)
			}
			if st.Trap.PC != tc.pc || c.PC != tc.pc {
				t.Errorf("trap at %#x (core at %#x), want %#x", st.Trap.PC, c.PC, tc.pc)
			}
			rep := st.Trap.Report()
			for _, want := range []string{"trap at pc", "instruction:", "%r31="} {
				if !strings.Contains(rep, want) {
					t.Errorf("report lacks %q:\n%s", want, rep)
				}
			}
		})
	}
}

// A runaway program stops at the cycle limit; silent alignment makes an
// unaligned access use the aligned word.
func TestLimitsAndAlignment(t *testing.T) {
	c, st := runSource(t, ".L1:\n\tadd %r6, 1, %r6\n\tbt .L1\n\tnop\n", 10_000, Config{})
	if st.Kind != StopCycleLimit || c.Cycles != 10_000 {
		t.Errorf("runaway loop: %v after %d cycles", st.Kind, c.Cycles)
	}
	c, st = runSource(t, "\tmov 0x1002, %r6\n\tmov 0x55, %r7\n\tst %r7, 0[%r6]\n\tst %r0, -4096[%r0]\n", 1000, Config{AlignSilently: true})
	if st.Kind != StopExit {
		t.Fatalf("stopped with %v", st.Kind)
	}
	if w, _ := c.Mem.Word(0x1000); w != 0x55 {
		t.Errorf("silently aligned store wrote %#x at 0x1000", w)
	}
}

// An idle "bt ." loop is skipped up to the next event, with the same
// result (cycles and state) as executing it.
func TestIdleSkip(t *testing.T) {
	run := func(skip bool) (uint64, uint64, uint32) {
		c, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		c.Mem.Write(0, []byte{0xe0, 0, 0, 0, 0, 0, 0, 1}) // bt 0; nop
		c.Reset(0)
		fired := uint64(0)
		c.Schedule(1001, func() { fired = c.Cycles; c.Jump(0x100); c.Mem.Write(0x100, []byte{0x90, 0x02, 0xf0, 0x00}) }) // st %r0, -4096[%r0]
		var st *Stop
		if skip {
			st = c.Run(1 << 20)
		} else {
			for st = c.Step(); st.Kind == StopStep; st = c.Step() {
			}
		}
		if st.Kind != StopExit {
			t.Fatalf("skip=%v: %v", skip, st.Kind)
		}
		return fired, c.Instret, c.PC
	}
	f1, n1, pc1 := run(true)
	f2, n2, pc2 := run(false)
	if f1 != f2 || n1 != n2 || pc1 != pc2 {
		t.Errorf("skipping: event at cycle %d, %d instructions, pc %#x; stepping: %d, %d, %#x", f1, n1, pc1, f2, n2, pc2)
	}
}

// A loop polling a device register is skipped up to the event that changes
// the register, with the counts that executing it gives.
func TestPollSkip(t *testing.T) {
	src := `
	mov 0x40, %r9
.Lwait:
	ld -424[%r0], %r7          ! EIMR (a plain special register here)
	and %r7, 0xffff0001, %r7
	sub.f %r7, 0, %r0
	beq .Lwait
	add %r9, 0, %r9            ! delay slot
	st %r7, -4096[%r0]         ! exit with the bit
`
	run := func(step bool) (*CPU, *Stop) {
		c, _ := load(t, linkSources(t, asm.Source{Name: "poll.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
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
	if st1.Kind != StopExit || st2.Kind != StopExit || st1.Code != 1 {
		t.Fatalf("stops: %v %v (code %d)", st1.Kind, st2.Kind, st1.Code)
	}
	if fast.Cycles != slow.Cycles || fast.Instret != slow.Instret {
		t.Errorf("skipping: %d cycles %d instructions; executing: %d cycles %d instructions", fast.Cycles, fast.Instret, slow.Cycles, slow.Instret)
	}
	if fast.SkippedCycles < 900_000 {
		t.Errorf("only %d cycles skipped", fast.SkippedCycles)
	}
	// A register that changes by itself (the cycle counter) is never
	// skipped over.
	c, st := runSource(t, ".Lw:\n\tld -392[%r0], %r7\n\tsub.f %r7, 0x100, %r0\n\tbult .Lw\n\tnop\n\tst %r0, -4096[%r0]\n", 1<<20, Config{})
	if st.Kind != StopExit || c.Cycles < 0x100 || c.Cycles > 0x100+16 {
		t.Errorf("CPUC loop: %v after %d cycles", st.Kind, c.Cycles)
	}
}

// The SRAM-contention hook charges its stalls to every core access of SRAM
// (and not to device accesses); Halt stops a run from a device.
func TestContentionAndHalt(t *testing.T) {
	src := "\tmov 0x1000, %r6\n\tld 0[%r6], %r7\n\tst %r7, 4[%r6]\n\tld.h 2[%r6], %r8\n\tst %r0, -4096[%r0]\n"
	plain, _ := runSource(t, src, 1000, Config{})
	var calls int
	busy, st := runSource(t, src, 1000, Config{Contention: func(cycle uint64, addr uint32, write bool) uint64 {
		calls++
		return 3
	}})
	if st.Kind != StopExit || calls != 3 || busy.Cycles != plain.Cycles+9 {
		t.Errorf("with contention: %v, %d calls, %d cycles (without: %d)", st.Kind, calls, busy.Cycles, plain.Cycles)
	}
	c, _ := load(t, linkSources(t, asm.Source{Name: "h.s", Text: []byte("\t.globl _start\n_start:\n.L:\n\tadd %r6, 1, %r6\n\tbt .L\n\tnop\n")}), Config{})
	c.Schedule(500, func() { c.Halt(&Stop{Kind: StopTrap, Trap: &Trap{Reason: "device fault"}}) })
	if st := c.Run(1 << 20); st.Kind != StopTrap || st.Trap.Reason != "device fault" || c.Cycles != 500 {
		t.Errorf("halt: %v at %d", st.Kind, c.Cycles)
	}
}

// The transfer history (a trap report's) after an idle or polling loop was
// skipped is the one executing it leaves: its branch's last takes.
func TestSkipsKeepTheHistory(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"idle", "\tmov 0x100, %r9\n.Li:\n\tbt .Li\n\tnop\n"},
		{"poll", "\tmov 0x40, %r9\n.Lw:\n\tld -424[%r0], %r7\n\tand %r7, 0xffff0001, %r7\n\tsub.f %r7, 0, %r0\n\tbeq .Lw\n\tadd %r9, 0, %r9\n\tmov 0x7ff00000, %r5\n\tadd %r5, 0, %pc\n\tnop\n"},
	} {
		img := linkSources(t, asm.Source{Name: tc.name + ".s", Text: []byte("\t.globl _start\n_start:\n" + tc.src)})
		fast, _ := load(t, img, Config{})
		slow, _ := load(t, img, Config{})
		for _, c := range []*CPU{fast, slow} {
			c.Schedule(50_001, func() {})
			c.Schedule(100_003, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
		}
		for _, budget := range []uint64{30_000, 40_000, 1 << 20} {
			st := fast.Run(budget)
			if st.Kind == StopCycleLimit {
				stepTo(slow, 0, fast.Cycles)
				slow.Run(0)
			} else if s := stepTo(slow, 0, 1<<20); s.Kind != st.Kind || st.Trap == nil || st.Trap.Report() != s.Trap.Report() {
				t.Fatalf("%s: stopped %v run, %v stepped", tc.name, st, s)
			}
			if fast.Cycles != slow.Cycles || fast.SkippedCycles == 0 {
				t.Fatalf("%s: %d cycles (%d skipped) run, %d stepped", tc.name, fast.Cycles, fast.SkippedCycles, slow.Cycles)
			}
			if a, b := fast.Transfers(), slow.Transfers(); fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("%s, cycle %d: transfers\n%v run\n%v stepped", tc.name, fast.Cycles, a, b)
			}
			if st.Kind != StopCycleLimit {
				break
			}
		}
	}
}
