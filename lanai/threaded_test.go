package lanai

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand"
	"testing"

	"lanaiemu/isa"
	"lanaiemu/memsys"
)

var threadedSeeds = flag.Int("threaded.seeds", 300, "random programs TestThreadedEqualsGo runs")

// The threaded run loop and the Go one leave the same state (registers,
// flags, the pc triple, cycle and instruction counts, the interlock, SRAM,
// the transfer history, the last store, the predecoded words with their
// loop counts) after every part of a run of a random program, run in
// parts of random lengths between events that book SRAM cycles and write
// SRAM (code included).
func TestThreadedEqualsGo(t *testing.T) {
	if !haveThreaded {
		t.Skip("this build has no threaded run loop")
	}
	for seed := int64(0); seed < int64(*threadedSeeds); seed++ {
		rng := rand.New(rand.NewSource(seed))
		prog := randomProgram(rng, 16+rng.Intn(240))
		if err := threadedAgainstGo(prog, seed); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// FuzzThreadedEqualsGo runs its input as a program (big-endian words) on
// the threaded loop and on the Go loop, as TestThreadedEqualsGo does with
// its random programs (the registers, the parts and the events come from
// the input's first word).
func FuzzThreadedEqualsGo(f *testing.F) {
	for seed := int64(0); seed < 8; seed++ {
		rng := rand.New(rand.NewSource(seed))
		f.Add(wordBytes(int64(seed), randomProgram(rng, 32+rng.Intn(96))))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !haveThreaded {
			t.Skip("this build has no threaded run loop")
		}
		if len(in) < 8 {
			return
		}
		in = in[:min(len(in), 4096)]
		seed := int64(binary.BigEndian.Uint64(in))
		prog := make([]uint32, (len(in)-8)/4)
		for i := range prog {
			prog[i] = binary.BigEndian.Uint32(in[8+4*i:])
		}
		if err := threadedAgainstGo(prog, seed); err != nil {
			t.Fatal(err)
		}
	})
}

// wordBytes is a fuzz input: the seed, then the words.
func wordBytes(seed int64, prog []uint32) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(seed))
	for _, w := range prog {
		b = binary.BigEndian.AppendUint32(b, w)
	}
	return b
}

// diffData is where the random programs' address registers point.
const diffData = 0x8000

// randomProgram makes n random instructions of every class (now and then
// an invalid word), steered so that the program mostly stays in itself and
// its loads and stores mostly reach SRAM: branch targets lie in the
// program, memory accesses go through the address registers r4-r7 (with
// offset registers r8, r9), at times through r0 to a special register,
// results mostly go elsewhere, and writes to pc are rare but for word
// loads (returns).
func randomProgram(rng *rand.Rand, n int) []uint32 {
	prog := make([]uint32, 0, n)
	for len(prog) < n {
		if rng.Intn(300) == 0 {
			if w := rng.Uint32(); !isa.Decode(w).Valid() {
				prog = append(prog, w)
			}
			continue
		}
		in := randomInst(rng, n, uint32(4*len(prog)))
		w, err := isa.Encode(in)
		if err != nil {
			continue
		}
		prog = append(prog, w)
		if in.Class == isa.RM && in.Rd == isa.PC && !in.Store && rng.Intn(2) == 0 {
			// A return's first delay slot as compilers fill it (the
			// threaded loop runs this add itself).
			slot := isa.Inst{Class: isa.RI, ALU: isa.Add, Rd: isa.Reg(10 + rng.Intn(22)), Rs1: isa.Reg(rng.Intn(32)), Imm: uint32(rng.Intn(16))}
			if w, err := isa.Encode(slot); err == nil {
				prog = append(prog, w)
			}
		}
	}
	return prog
}

// randomInst is an instruction for randomProgram (perhaps not encodable:
// the caller draws again), at address here in a program of n words.
func randomInst(rng *rand.Rand, n int, here uint32) isa.Inst {
	dst := func() isa.Reg {
		switch {
		case rng.Intn(40) == 0:
			return isa.PC
		case rng.Intn(16) == 0:
			return isa.Reg(rng.Intn(32))
		}
		return isa.Reg(10 + rng.Intn(22))
	}
	src := func() isa.Reg {
		if rng.Intn(10) == 0 {
			return isa.Reg(rng.Intn(3)) // r0, r1, pc
		}
		return isa.Reg(3 + rng.Intn(29))
	}
	addr, off := isa.Reg(4+rng.Intn(4)), isa.Reg(8+rng.Intn(2))
	cond := isa.Cond(rng.Intn(16))
	alu := isa.ALU(rng.Intn(int(isa.Sha) + 1))
	modes := []isa.Mode{isa.ModeOffset, isa.ModeOffset, isa.ModeOffset, isa.ModeBase, isa.ModePre, isa.ModePost}
	mode := modes[rng.Intn(len(modes))]
	sizes := []isa.Size{isa.Word, isa.Half, isa.Byte}
	store := rng.Intn(3) == 0
	data := dst()
	if store {
		data = isa.Reg(rng.Intn(32))
	} else if data == isa.PC {
		data = isa.Reg(10 + rng.Intn(22))
	}
	unaligned := uint32(0)
	if rng.Intn(16) == 0 {
		unaligned = 1
	}
	switch w := rng.Intn(100); {
	case w < 25:
		imm := rng.Uint32() & 0xFFFF
		switch {
		case alu == isa.Sh || alu == isa.Sha:
			imm = uint32(rng.Intn(70) - 35)
		case rng.Intn(3) == 0:
			imm <<= 16
		}
		return isa.Inst{Class: isa.RI, ALU: alu, F: rng.Intn(3) == 0, Rd: dst(), Rs1: src(), Imm: imm}
	case w < 45:
		if rng.Intn(10) == 0 {
			alu = isa.Sel
		}
		if rng.Intn(2) == 0 {
			cond = isa.CondT
		}
		return isa.Inst{Class: isa.RR, ALU: alu, Cond: cond, F: alu != isa.Sel && rng.Intn(3) == 0, Rd: dst(), Rs1: src(), Rs2: src()}
	case w < 60:
		in := isa.Inst{Class: isa.RM, Size: isa.Word, Mode: mode, Store: store, Rd: data, Rs1: addr, Imm: uint32(rng.Intn(128)*4-256) + unaligned}
		switch rng.Intn(12) {
		case 0: // a special register
			in.Mode, in.Rs1, in.Imm = isa.ModeOffset, isa.R0, memsys.SpecialBase+uint32(4*rng.Intn(128))
		case 1: // a return
			in.Rd, in.Store, in.Mode = isa.PC, false, isa.ModeOffset
		}
		return in
	case w < 68:
		if rng.Intn(4) == 0 {
			alu = isa.Add
		}
		return isa.Inst{Class: isa.RRM, ALU: alu, Size: sizes[rng.Intn(3)], Zext: rng.Intn(2) == 0, Mode: mode, Store: store, Rd: data, Rs1: addr, Rs2: off}
	case w < 73:
		return isa.Inst{Class: isa.SPLS, Size: sizes[1+rng.Intn(2)], Zext: rng.Intn(2) == 0, Mode: mode, Store: store, Rd: data, Rs1: addr, Imm: uint32(2*rng.Intn(32)-32) + unaligned}
	case w < 76:
		return isa.Inst{Class: isa.SLS, Store: store, Rd: data, Imm: diffData + uint32(4*rng.Intn(256))}
	case w < 78:
		return isa.Inst{Class: isa.SLI, Rd: dst(), Imm: uint32(rng.Intn(1 << 21))}
	case w < 88:
		return isa.Inst{Class: isa.BR, Cond: cond, Imm: uint32(4 * rng.Intn(n))}
	case w < 93:
		return isa.Inst{Class: isa.BRR, Cond: cond, Imm: uint32(4*rng.Intn(n)) - here}
	case w < 97:
		return isa.Inst{Class: isa.SCC, Cond: cond, Rd: dst()}
	}
	return isa.Inst{Class: isa.Special, ALU: isa.Popc + isa.ALU(rng.Intn(3)), Rd: dst(), Rs1: src()}
}

// diffCore is a core for threadedAgainstGo: the program at 0, data words
// half of which are addresses in it (a load into pc jumps there), registers
// from rng (address registers into the data area, now and then unaligned,
// near the end of SRAM or in the program), booked contention, unaligned
// accesses mostly ignoring the low bits.
func diffCore(prog []uint32, rng *rand.Rand) *CPU {
	c, err := New(Config{SRAMSize: 64 << 10, ContentionBooked: true, AlignSilently: rng.Intn(4) != 0,
		Contention: func(cycle uint64, addr uint32, write bool) uint64 { return 1 + uint64(addr>>2&1) }})
	if err != nil {
		panic(err)
	}
	for i, w := range prog {
		binary.BigEndian.PutUint32(c.Mem.SRAM[4*i:], w)
	}
	for a := diffData; a < diffData+4*1024; a += 4 { // words to load into pc among others
		v := rng.Uint32()
		if rng.Intn(2) == 0 {
			v = uint32(4 * rng.Intn(len(prog)+1))
		}
		binary.BigEndian.PutUint32(c.Mem.SRAM[a:], v)
	}
	c.Reset(0)
	for r := 3; r < 32; r++ {
		c.R[r] = rng.Uint32()
	}
	for r := 4; r < 8; r++ {
		switch rng.Intn(40) {
		case 0:
			c.R[r] = uint32(len(c.Mem.SRAM) - rng.Intn(16))
		case 1, 2, 3, 4, 5:
			c.R[r] = uint32(4 * rng.Intn(len(prog)+1))
		default:
			c.R[r] = diffData + uint32(4*rng.Intn(512)+rng.Intn(4)/3)
		}
	}
	c.R[8], c.R[9] = uint32(2*rng.Intn(32)-32+rng.Intn(8)/7), uint32(4*rng.Intn(16))
	c.Flags = isa.Flags(rng.Intn(16))
	return c
}

// threadedAgainstGo runs prog on two cores, one with the Go loop and one
// with the threaded loop, in parts, and compares them after each.
func threadedAgainstGo(prog []uint32, seed int64) error {
	defer func() { useThreaded = haveThreaded }()
	var cs [2]*CPU
	for i := range cs {
		rng := rand.New(rand.NewSource(seed))
		c := diffCore(prog, rng)
		// Events that book SRAM cycles ahead and write SRAM: a data word
		// or a word of the program.
		for range rng.Intn(6) {
			at, until := uint64(rng.Intn(20_000)), uint64(rng.Intn(300))
			addr, v := uint32(4*rng.Intn(len(prog)+1)), rng.Uint32()
			if rng.Intn(2) == 0 {
				addr = diffData + uint32(4*rng.Intn(512))
			}
			c.Schedule(at, func() {
				c.BookSRAM(c.Cycles + until)
				var b [4]byte
				binary.BigEndian.PutUint32(b[:], v)
				c.Mem.Write(addr, b[:])
			})
		}
		cs[i] = c
	}
	rng := rand.New(rand.NewSource(seed ^ 0x5eed))
	for part := 0; part < 100; part++ {
		budget, step := uint64(1+rng.Intn(500)), rng.Intn(8) == 0
		var stops [2]*Stop
		for i, c := range cs {
			useThreaded = i == 1
			if step {
				stops[i] = c.Step()
			} else {
				stops[i] = c.Run(budget)
			}
		}
		if err := sameState(cs[0], cs[1]); err != nil {
			return fmt.Errorf("part %d (budget %d, step %v): %v", part, budget, step, err)
		}
		if stops[0].Kind != stops[1].Kind || stopMessage(stops[0]) != stopMessage(stops[1]) {
			return fmt.Errorf("part %d: Go stopped with %s, threaded with %s", part, stopMessage(stops[0]), stopMessage(stops[1]))
		}
		if k := stops[0].Kind; k != StopCycleLimit && k != StopStep {
			return nil
		}
	}
	return nil
}

// sameState compares everything of two cores a run loop changes (a the Go
// loop's, b the threaded one's).
func sameState(a, b *CPU) error {
	switch {
	case a.Cycles != b.Cycles || a.Instret != b.Instret:
		return fmt.Errorf("Go at %d cycles %d instructions, threaded at %d cycles %d instructions", a.Cycles, a.Instret, b.Cycles, b.Instret)
	case a.PC != b.PC || a.NPC != b.NPC || a.NNPC != b.NNPC:
		return fmt.Errorf("pc triple Go %#x %#x %#x, threaded %#x %#x %#x", a.PC, a.NPC, a.NNPC, b.PC, b.NPC, b.NNPC)
	case a.Flags != b.Flags:
		return fmt.Errorf("flags Go %04b, threaded %04b", a.Flags, b.Flags)
	case a.lastLoad != b.lastLoad:
		return fmt.Errorf("interlock register Go %d, threaded %d", a.lastLoad, b.lastLoad)
	case a.SkippedCycles != b.SkippedCycles || a.SkippedInstret != b.SkippedInstret:
		return fmt.Errorf("skipped Go %d/%d, threaded %d/%d", a.SkippedCycles, a.SkippedInstret, b.SkippedCycles, b.SkippedInstret)
	case a.storeAddr != b.storeAddr || a.storeSize != b.storeSize || a.stores != b.stores:
		return fmt.Errorf("last store Go %#x/%d (%d), threaded %#x/%d (%d)", a.storeAddr, a.storeSize, a.stores, b.storeAddr, b.storeSize, b.stores)
	case a.hist != b.hist || a.histPos != b.histPos:
		return fmt.Errorf("transfers Go %v, threaded %v", a.Transfers(), b.Transfers())
	case !bytes.Equal(a.Mem.SRAM, b.Mem.SRAM):
		return fmt.Errorf("SRAM differs")
	case len(a.pre) != len(b.pre) || !bytes.Equal(a.poll, b.poll):
		return fmt.Errorf("predecoded words: %d Go, %d threaded, or their poll states differ", len(a.pre), len(b.pre))
	}
	for r := range a.R {
		if a.R[r] != b.R[r] {
			return fmt.Errorf("R[%d] Go %#x, threaded %#x", r, a.R[r], b.R[r])
		}
	}
	for i := range a.pre {
		if a.pre[i] != b.pre[i] {
			return fmt.Errorf("uop at %#x: Go %+v, threaded %+v", 4*i, a.pre[i], b.pre[i])
		}
	}
	return nil
}

// The threaded loop runs the instructions it is for (the test above would
// pass if it handed every one to Go): here it runs the benchmark program
// with execSlow taking, one at a time, what it hands over, and runs nearly
// all of the program's instructions itself.
func TestThreadedRuns(t *testing.T) {
	if !haveThreaded {
		t.Skip("this build has no threaded run loop")
	}
	c, _ := load(t, buildProgram(t, "../fixtures/c/s/sort_quick.O2.s"), Config{})
	var threaded uint64
	for c.stop == nil && c.Instret < 10_000_000 {
		c.deadline = c.Cycles + 1<<20
		if c.NNPC == c.NPC+4 {
			before := c.Instret
			exit := runThreaded(c, &c.Mem.SRAM[0], c.deadline)
			threaded += c.Instret - before
			if exit == threadedLimit {
				continue
			}
		}
		c.execSlow(c.Instret + 1)
	}
	if c.stop == nil || c.stop.Kind != StopExit {
		t.Fatalf("stopped: %v", stopMessage(c.stop))
	}
	t.Logf("%d of %d instructions threaded", threaded, c.Instret)
	if threaded < c.Instret*9/10 {
		t.Errorf("only %d of %d instructions threaded", threaded, c.Instret)
	}
}

// runThreaded returns at the limit exec gives it (at most threadedSlice
// cycles on) however much code lies ahead: Go cannot preempt it, so a
// garbage collection waits for that return.
func TestThreadedSlice(t *testing.T) {
	if !haveThreaded {
		t.Skip("this build has no threaded run loop")
	}
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	nop, err := isa.Encode(isa.Inst{Class: isa.RI, ALU: isa.Add})
	if err != nil {
		t.Fatal(err)
	}
	const words = 4 * threadedSlice
	for i := range words {
		binary.BigEndian.PutUint32(c.Mem.SRAM[4*i:], nop)
	}
	c.Reset(0)
	if st := c.Run(words); st.Kind != StopCycleLimit { // predecodes them
		t.Fatalf("stopped: %s", stopMessage(st))
	}
	c.Reset(0)
	for range 3 {
		start, instret := c.Cycles, c.Instret
		limit := start + threadedSlice
		if exit := runThreaded(c, &c.Mem.SRAM[0], limit); exit != threadedLimit {
			t.Fatalf("runThreaded returned %d at pc %#x, not at the limit", exit, c.PC)
		}
		if c.Cycles != limit || c.Instret-instret != threadedSlice || c.PC != uint32(4*c.Instret) {
			t.Fatalf("ran from cycle %d to %d (%d instructions, pc %#x) for a limit of %d", start, c.Cycles, c.Instret-instret, c.PC, limit)
		}
	}
}
