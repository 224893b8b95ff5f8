package lanai

import (
	"encoding/binary"
	"fmt"
	"testing"

	"lanaiemu/asm"
)

// FuzzRun runs random words as a program: whatever they are, the core
// stops (exit, trap or cycle limit) without a panic or a hang, and the
// counters stay consistent.
func FuzzRun(f *testing.F) {
	f.Add([]byte{0x00, 0x00, 0x00, 0x01, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01})
	f.Add([]byte{0x90, 0x02, 0xf0, 0x00})
	f.Add([]byte{0x81, 0x16, 0xff, 0xfc, 0x02, 0x14, 0x00, 0x00, 0x82, 0x96, 0xff, 0xf8})
	f.Add([]byte{0xa3, 0x1e, 0x47, 0x82, 0xf3, 0x9b, 0x4f, 0xff, 0xc3, 0x99, 0x97, 0x06})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 4096 {
			prog = prog[:4096]
		}
		// A new core for every input: Reset keeps the special registers,
		// so a core that ran another input first could run this one
		// otherwise.
		c, err := New(Config{SRAMSize: 64 << 10})
		if err != nil {
			t.Fatal(err)
		}
		c.Mem.Write(0, prog)
		c.Reset(0)
		// Registers from the input too, so addresses vary.
		for i := 3; i < 32 && 4*i+4 <= len(prog); i++ {
			c.R[i] = binary.BigEndian.Uint32(prog[4*i:])
		}
		st := c.Run(20_000)
		switch st.Kind {
		case StopExit, StopCycleLimit:
		case StopTrap:
			if st.Trap == nil || st.Trap.Reason == "" || st.Trap.Report() == "" {
				t.Fatal("trap without a report")
			}
		default:
			t.Fatalf("unexpected stop %v", st.Kind)
		}
		if c.Instret > c.Cycles {
			t.Fatalf("%d instructions in %d cycles", c.Instret, c.Cycles)
		}
		if c.R[0] != 0 || c.R[1] != 0xFFFFFFFF {
			t.Fatalf("r0=%#x r1=%#x", c.R[0], c.R[1])
		}
	})
}

// FuzzRunEqualsStep runs random words twice, once with Run (which skips
// idle and polling loops, and grows its predecode array as code runs
// higher in SRAM) and once instruction by instruction with Step (which
// skips nothing), with an event that sets EIMR at cycle 5,000 on both: the
// cycle and instruction counts, registers, flags, pc, SRAM, the way they
// stopped and the transfer history must be the same.
func FuzzRunEqualsStep(f *testing.F) {
	addRunSeeds(f)
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 4096 {
			prog = prog[:4096]
		}
		var stops [2]*Stop
		var cs [2]*CPU
		for i := range cs {
			// New cores for every input: Reset keeps the special
			// registers, so cores that ran another input first would
			// see EIMR set by its event (a loop waiting for it would
			// leave at once: the seeds' loops skipped nothing).
			c, err := New(Config{SRAMSize: 256 << 10})
			if err != nil {
				t.Fatal(err)
			}
			cs[i] = c
			c.Mem.Write(0, prog)
			c.Reset(0)
			for r := 3; r < 32 && 4*r+4 <= len(prog); r++ {
				c.R[r] = binary.BigEndian.Uint32(prog[4*r:])
			}
			c.Schedule(5_000, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
			if i == 0 {
				stops[i] = c.Run(20_000)
				continue
			}
			st := CycleLimit
			for c.Cycles < 20_000 {
				if st = c.Step(); st.Kind != StopStep {
					break
				}
			}
			if st.Kind == StopStep {
				st = CycleLimit
			}
			stops[i] = st
		}
		a, b := cs[0], cs[1]
		// The program's registers: not the sink that takes writes to r0
		// and r1 (a skip does not replay them), nor R[2] (see lockstep).
		ra, rb := [32]uint32(a.R[:32]), [32]uint32(b.R[:32])
		ra[2], rb[2] = 0, 0
		if stops[0].Kind != stops[1].Kind || a.Cycles != b.Cycles || a.Instret != b.Instret ||
			ra != rb || a.Flags != b.Flags || a.PC != b.PC || string(a.Mem.SRAM) != string(b.Mem.SRAM) {
			t.Fatalf("run: %v at pc %#x after %d cycles %d instructions; stepped: %v at pc %#x after %d cycles %d instructions",
				stops[0].Kind, a.PC, a.Cycles, a.Instret, stops[1].Kind, b.PC, b.Cycles, b.Instret)
		}
		if ta, tb := a.Transfers(), b.Transfers(); fmt.Sprint(ta) != fmt.Sprint(tb) {
			t.Fatalf("transfers: run %v, stepped %v", ta, tb)
		}
	})
}

// idleLoopSeed is the image of TestLoopSkip's main loop, as raw words.
func idleLoopSeed(tb testing.TB) []byte { return loopSeed(tb, mainLoop) }

// seedCountLoop counts in SRAM in every pass until EIMR's low bit is set
// (the fuzz targets' event at cycle 5,000), then exits with the count's
// register: a pass short enough to be watched, fail on the count, and be
// proved and skipped with it before then (TestCountLoopSeedCounts).
const seedCountLoop = `
	mov 0x2000, %r13
.Lloop:
	ld 0[%r13], %r14
	add %r14, 3, %r14
	st %r14, 0[%r13]
	ld -424[%r0], %r8
	and %r8, 0xffff0001, %r8
	sub.f %r8, 0, %r0
	beq .Lloop
	nop
	st %r14, -4096[%r0]
`

// countLoopSeed is the image of seedCountLoop, as raw words.
func countLoopSeed(tb testing.TB) []byte { return loopSeed(tb, seedCountLoop) }

// loopSeed is the image of src (the start of SRAM), as raw words.
func loopSeed(tb testing.TB, src string) []byte {
	c, _ := load(tb, linkSources(tb, asm.Source{Name: "loop.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
	return append([]byte(nil), c.Mem.SRAM[:256]...)
}

// The fuzz targets' counting seed is proved with a count and skipped
// before the event that ends it, as the fuzz targets run it, and exits
// with the count of stepping.
func TestCountLoopSeedCounts(t *testing.T) {
	var cs [2]*CPU
	for i := range cs {
		c, err := New(Config{SRAMSize: 256 << 10})
		if err != nil {
			t.Fatal(err)
		}
		c.Mem.Write(0, countLoopSeed(t))
		c.Reset(0)
		c.Schedule(5_000, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
		cs[i] = c
	}
	run, stepped := cs[0], cs[1]
	st := run.Run(20_000)
	sst := stepTo(stepped, 0, 20_000)
	if st.Kind != StopExit || sst.Kind != StopExit || st.Code != sst.Code {
		t.Fatalf("stops: %v run, %v stepped", stopMessage(st), stopMessage(sst))
	}
	sameCores(t, "count seed", run, stepped)
	if !run.loop.hasCount || run.loop.cdelta != 3 || run.SkippedCycles < 1000 {
		t.Errorf("counted proof %v (delta %d), %d of %d cycles skipped", run.loop.hasCount, run.loop.cdelta, run.SkippedCycles, run.Cycles)
	}
	t.Logf("exit %#x after %d cycles, %d skipped", st.Code, run.Cycles, run.SkippedCycles)
}

// addRunSeeds adds the seeds FuzzRunEqualsStep and FuzzSharedEqualsAlone
// share: two short random programs, an idle loop and a counting loop.
func addRunSeeds(f *testing.F) {
	f.Add([]byte{0x00, 0x00, 0x00, 0x01, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01})
	f.Add([]byte{0x81, 0x16, 0xff, 0xfc, 0x02, 0x14, 0x00, 0x00, 0x82, 0x96, 0xff, 0xf8})
	f.Add(idleLoopSeed(f))
	f.Add(countLoopSeed(f))
}
