// Package lanai is the LANai 9.2 core: the architectural state, the
// semantics of every instruction of package isa, the cycle model
// (timing.go), and the run loop that predecodes each SRAM word once and
// checks its deadline with one compare per instruction. On amd64 the
// common instructions run in a threaded loop in assembly (threaded.go,
// run_amd64.s), the rest in Go; -tags purego builds the Go loop alone.
//
// The semantics follow LLVM's Lanai target where the LANai documents
// disagree (docs/isa.md): reading pc gives the address of the instruction
// doing the read; loads are interlocked (the next instruction sees the
// value and pays a stall cycle); a branch or an ALU write to pc has one
// delay slot and a load into pc two; flags live in their own register, so
// r3 is an ordinary register.
package lanai

import (
	"fmt"
	"io"

	"lanaiemu/isa"
	"lanaiemu/memsys"
)

// Config configures a core.
type Config struct {
	ClockHz  uint64 // core clock; 0 means DefaultClockHz
	SRAMSize uint32 // bytes of SRAM; 0 means memsys.DefaultSRAMSize
	// AlignSilently makes unaligned word and half-word accesses ignore the
	// low address bits, as the LANai 3 manual describes, instead of
	// trapping (the default, which finds firmware bugs).
	AlignSilently bool
	// Console receives the characters written to the simulation-control
	// device's PUTC register; nil discards them.
	Console io.Writer
	// Contention, if set, charges SRAM-arbitration stalls to core accesses.
	Contention SRAMContention
	// RRR makes op-1101 words the three-register instructions of Myricom's
	// LANai 3/4 (rrr.go) instead of LLVM's popc/leadz/trailz, to run code
	// from lanai-gcc 2.95 such as its libgcc.a (docs/runtime.md).
	RRR bool
	// ContentionBooked says that Contention charges nothing outside the
	// SRAM cycles its owner books with CPU.BookSRAM: accesses after the
	// last booked cycle then take the fast path, and loops are not
	// skipped over booked cycles.
	ContentionBooked bool
	// NextBooked, with ContentionBooked, is the first cycle at or after
	// its argument that another master has booked (^0 if none): a proved
	// loop is skipped across booked cycles, each of its SRAM accesses in
	// one stalled as Contention says for that cycle, which it asks ahead
	// of the core (Contention must answer for any cycle without side
	// effects); nil: every cycle before the last booked one may be.
	NextBooked func(cycle uint64) uint64
}

// noLoad is the interlock register index meaning "the previous instruction
// loaded nothing" (a bit position no source mask has set).
const noLoad = 63

// regFileSize is the length of CPU.R: one entry per uint8 register index.
const regFileSize = 256

// CPU is one LANai core with its memory.
type CPU struct {
	// R is the register file. R[0] and R[1] always hold 0 and 0xFFFFFFFF;
	// R[2] holds the address of the instruction being executed while it
	// executes; R[32] is where writes to r0 and r1 go. The rest is unused:
	// the array has an entry for every uint8, so the run loop indexes it by
	// a uop's register fields without a bounds check.
	R [regFileSize]uint32
	// Flags holds Z, N, V and C.
	Flags isa.Flags
	// PC is the next instruction to execute; NPC and NNPC the two after it
	// (different from PC+4 and PC+8 inside delay slots).
	PC, NPC, NNPC uint32
	// Cycles counts clock cycles since reset; Instret instructions
	// executed.
	Cycles, Instret uint64

	Mem *memsys.Memory
	cfg Config
	pre []uop
	// ins holds the decoded instruction of each predecoded word, beside
	// pre (the general handlers read it; the run loop's cases do not, so
	// the uops stay small).
	ins []isa.Inst
	// decoded is the op each word last predecoded to, before breakpoints
	// and contention changed it (slowFetch restores it when a word is
	// rewritten with the same value).
	decoded []op
	// code has a bit per codeChunk bytes of SRAM holding a word that was
	// ever predecoded (by this core or, while it shares its code, by any
	// core of the SharedCode): invalidate skips the chunks without (DMA
	// buffers).
	code []uint64
	// own has the bits of code this core set itself, and those of the
	// chunks of every loop it proved (the same slice until the core joins
	// a SharedCode): a write into one of its chunks may change a loop the
	// core proved. A sharing core may run words another core decoded
	// without setting their bits, so a write there keeps its proof of a
	// loop elsewhere, which alone it would end: the loop's code is
	// unchanged, the proof still holds (only Polling may answer otherwise).
	own []uint64
	// poll is, while the core shares its code, the polling and loop-watch
	// state of each word of pre (the core's own; the shared uops' poll
	// stays pollUnknown; see pollOf). It has pre's length always: the run
	// loop's stores into code reset it without asking whether it is used.
	poll []uint8
	// share is the SharedCode whose arrays pre, ins and decoded are views
	// of, or nil (share.go).
	share *SharedCode

	lastLoad uint8 // register loaded by the previous instruction, or noLoad

	sramBooked uint64 // end of the last SRAM cycle booked by another master (Config.ContentionBooked); DMA engines book only in events and device stores
	wordLimit  uint32 // the run loops' fast accesses need an address below this: len(SRAM)-3

	deadline uint64 // run until Cycles reaches this
	// skipLimit lets a single step (StepSkipping) fast-forward an idle or
	// polling loop past deadline, up to this cycle; 0 in other runs.
	skipLimit uint64
	events    eventQueue
	stop      *Stop // set by a handler or device to end the run

	// History of control transfers (a ring), for trap reports.
	hist    [historySize]transfer
	histPos int

	// The last store, for traces and watchpoints.
	storeAddr uint32
	storeSize uint8
	stores    uint64 // stores executed (a trace notices a new one)

	// SkippedCycles and SkippedInstret count the cycles and instructions
	// of the idle and polling loop iterations that were fast-forwarded over
	// instead of executed (they are included in Cycles and Instret).
	SkippedCycles, SkippedInstret uint64
	pollTrack                     pollTrack

	loop    loopWatch // the loop being watched or proved (loop.go)
	loopGen uint64    // counts what may change a loop's inputs from outside
	// outLo and outHi are the first and last byte of SRAM written from
	// outside the core (invalidate) since the proved loop's read set was
	// last read (none when outLo > outHi): loopRecheck.
	outLo, outHi uint32

	breakpoints map[uint32]bool
	breakGen    uint64 // breakpoint changes (poll.go checks a loop again after one)
	skipBreak   bool   // Step executes an instruction even if it has a breakpoint
	brk         uop    // the real instruction under a breakpoint, while stepping it
	simctl      simCtl
}

// New makes a core with its memory, the simulation-control device mapped at
// memsys.SimCtlBase, and the CPUC special register counting cycles.
func New(cfg Config) (*CPU, error) {
	if cfg.ClockHz == 0 {
		cfg.ClockHz = DefaultClockHz
	}
	if cfg.SRAMSize == 0 {
		cfg.SRAMSize = memsys.DefaultSRAMSize
	}
	mem, err := memsys.New(cfg.SRAMSize)
	if err != nil {
		return nil, err
	}
	n := min(cfg.SRAMSize/4, initialUops)
	chunks := (cfg.SRAMSize + codeChunk - 1) / codeChunk // a partial last chunk included
	code := make([]uint64, (chunks+63)/64)
	c := &CPU{Mem: mem, cfg: cfg, pre: make([]uop, n), ins: make([]isa.Inst, n), decoded: make([]op, n), poll: make([]uint8, n), code: code, own: code}
	c.simctl.cpu = c
	c.wordLimit = uint32(len(mem.SRAM) - 3)
	mem.Map(memsys.SimCtlBase, memsys.SimCtlSize, &c.simctl, "simulation control")
	mem.OnWrite(c.invalidate)
	if r, ok := memsys.SpecialByName("CPUC"); ok {
		mem.Specials.Hook(r.Off, func() uint32 { return uint32(c.Cycles) }, nil)
		mem.Specials.HookStable(r.Off, func() uint64 { return c.Cycles + 1 }) // changes every cycle
	}
	c.Reset(0)
	return c, nil
}

// Config returns the core's configuration.
func (c *CPU) Config() Config { return c.cfg }

// Reset clears the registers and counters and starts execution at entry.
// SRAM is kept.
func (c *CPU) Reset(entry uint32) {
	c.R = [regFileSize]uint32{}
	c.R[1] = 0xFFFFFFFF
	c.Flags = 0
	c.PC, c.NPC, c.NNPC = entry, entry+4, entry+8
	c.Cycles, c.Instret = 0, 0
	c.lastLoad = noLoad
	c.sramBooked = 0 // bookings are in the cycles before the reset
	c.stop = nil
	c.histPos = 0
	c.hist = [historySize]transfer{}
	c.simctl = simCtl{cpu: c}
	c.SkippedCycles, c.SkippedInstret, c.pollTrack = 0, 0, pollTrack{}
	seq := c.events.seq // counts on: an EventRef from before names no event after
	c.events = newEventQueue()
	c.events.seq = seq
	fails, wait, length, counters, debt, kept := c.loop.fails, c.loop.waitRounds, c.loop.length, c.loop.counters, c.loop.keepDebt, c.loop.kept
	clear(fails)
	clear(wait)
	clear(length)
	clear(counters)
	clear(debt)
	if kept != nil {
		kept.owner = [keptSlots]uint32{}
	}
	// Keep the maps and the kept proofs: a reset allocates nothing.
	c.loop = loopWatch{fails: fails, waitRounds: wait, length: length, counters: counters, keepDebt: debt, kept: kept}
	c.loopChanged()
}

// invalidate forgets the predecoded words in [addr, addr+n).
func (c *CPU) invalidate(addr, n uint32) {
	if n == 0 {
		return
	}
	c.outLo, c.outHi = min(c.outLo, addr), max(c.outHi, addr+min(n-1, ^uint32(0)-addr))
	c.loopChanged()
	pre := c.allWords()
	first, last := uint64(addr)/4, (uint64(addr)+uint64(n)-1)/4
	last = min(last, uint64(len(pre))-1) // words past pre were never decoded
	for i := first; i <= last; {
		chunk := i * 4 / codeChunk
		next := (chunk + 1) * codeChunk / 4
		if c.code[chunk/64]&(1<<(chunk%64)) != 0 {
			if c.own[chunk/64]&(1<<(chunk%64)) != 0 {
				c.loopCodeWritten()
			}
			for j := i; j < next && j <= last; j++ {
				pre[j].op = opUndecoded
				if j < uint64(len(c.poll)) {
					c.poll[j] = pollUnknown // as the shared uop's
				}
			}
		}
		i = next
	}
}

// forget forgets the predecoded word holding byte a of SRAM after a core
// store (a data store touches only the small code bitmap).
func (c *CPU) forget(a uint32) {
	if chunk := a / codeChunk; c.code[chunk/64]&(1<<(chunk%64)) != 0 {
		c.forgetWord(a >> 2)
	}
}

// forgetWord forgets predecoded word i, in a chunk of c.code, after a core
// store into it (the run loop's stores do the same inline). A shared word
// is forgotten for every core of the SharedCode: the next to fetch it
// predecodes it again, and the cores whose SRAM holds another word there
// leave the sharing (share.go). The word's polling state starts afresh (a
// private uop's when it is fetched again, as slowFetch resets it).
func (c *CPU) forgetWord(i uint32) {
	if pre := c.allWords(); i < uint32(len(pre)) {
		pre[i].op = opUndecoded
	}
	if i < uint32(len(c.poll)) {
		c.poll[i] = pollUnknown
	}
}

// allWords is every predecoded word a write must forget: the shared array
// in full while the core shares its code (other cores may have decoded
// words past this core's view; the run loop's stores forget only in the
// view, and SharedCode.check catches the rest), else pre.
func (c *CPU) allWords() []uop {
	if c.share != nil {
		return c.share.pre
	}
	return c.pre
}

// uopAt is the predecoded slot of the word at address a, growing the
// predecode array to cover it; nil outside SRAM. The array covers SRAM from
// address 0 up to the highest word executed (it starts at initialUops
// words and doubles): firmware code sits low, and a board's 2 MiB of SRAM
// would otherwise cost 18 MiB of uops, most of them for packet buffers.
// Growing moves the array, so only the run loop's fetch, the idle check
// (the run loop reloads its copy after it) and the loop watcher (between
// instructions) grow it; poll.go looks only at what is there (grow false:
// nil past the array; a loop whose delay slot lies past it is left to the
// loop watcher). A core sharing its code grows its view of the shared
// arrays (the same length it would have alone).
func (c *CPU) uopAt(a uint32, grow bool) *uop {
	idx := uint64(a) / 4
	if idx >= uint64(len(c.Mem.SRAM))/4 || !grow && idx >= uint64(len(c.pre)) {
		return nil
	}
	if idx >= uint64(len(c.pre)) {
		n := uint64(len(c.pre))
		for n <= idx {
			n *= 2
		}
		n = min(n, uint64(len(c.Mem.SRAM))/4)
		if s := c.share; s != nil {
			s.cover(int(n))
			s.check(c, len(c.pre), int(n))
			c.pre, c.ins, c.decoded = s.pre[:n], s.ins[:n], s.decoded[:n]
		} else {
			c.pre = grown(c.pre, n)
			c.ins = grown(c.ins, n)
			c.decoded = grown(c.decoded, n)
		}
		c.poll = grown(c.poll, n)
	}
	return &c.pre[idx]
}

// pollOf is the polling state of predecoded word i (poll.go, loop.go): in
// its uop, or in c.poll while the core shares its uops.
func (c *CPU) pollOf(i uint32) *uint8 {
	if c.share != nil {
		return &c.poll[i]
	}
	return &c.pre[i].poll
}

// grown is a copy of s lengthened to n (zeros after s).
func grown[T any](s []T, n uint64) []T {
	g := make([]T, n)
	copy(g, s)
	return g
}

// inst is the decoded instruction of the predecoded word at address pc.
func (c *CPU) inst(pc uint32) *isa.Inst { return &c.ins[pc>>2] }

// initialUops is the predecode array's first size (64 KiB of code).
const initialUops = 16 << 10

// codeChunk is the granule of CPU.code, in bytes.
const codeChunk = 256

// BookSRAM tells the core that another master (a DMA engine) uses SRAM in
// cycles before until (see Config.ContentionBooked).
func (c *CPU) BookSRAM(until uint64) { c.sramBooked = max(c.sramBooked, until) }

// SetBreakpoint stops runs before the instruction at addr executes.
func (c *CPU) SetBreakpoint(addr uint32, on bool) {
	if c.breakpoints == nil {
		c.breakpoints = map[uint32]bool{}
	}
	c.breakGen++
	if on {
		c.LeaveSharedCode() // a breakpoint changes the core's own uop
		c.breakpoints[addr] = true
	} else {
		delete(c.breakpoints, addr)
	}
	c.invalidate(addr, 4)
}

// Breakpoints lists the breakpoint addresses.
func (c *CPU) Breakpoints() []uint32 {
	var out []uint32
	for a := range c.breakpoints {
		out = append(out, a)
	}
	return out
}

// Reg reads a register as the program would (r2 gives PC).
func (c *CPU) Reg(r isa.Reg) uint32 {
	if r == isa.PC {
		return c.PC
	}
	return c.R[r&31]
}

// SetReg writes a register (writes to r0, r1 and pc are ignored; use Jump
// for pc).
func (c *CPU) SetReg(r isa.Reg, v uint32) {
	if r > isa.PC && r < 32 {
		c.R[r] = v
		c.stateWritten()
	}
}

// Jump makes execution continue at addr (outside any delay slot).
func (c *CPU) Jump(addr uint32) {
	c.PC, c.NPC, c.NNPC = addr, addr+4, addr+8
	c.stateWritten()
}

// LastStore gives the address and size of the most recent store and how
// many stores have executed (debuggers compare the count to see a new one).
func (c *CPU) LastStore() (addr uint32, size uint8, count uint64) {
	return c.storeAddr, c.storeSize, c.stores
}

// Halt stops the run at the next instruction boundary with st (for
// devices: a fault, or a request to stop).
func (c *CPU) Halt(st *Stop) {
	c.stop = st
	c.deadline = 0
}

// Stopped reports why the last run stopped, or nil while it can go on.
func (c *CPU) Stopped() *Stop { return c.stop }

// Seconds converts a cycle count to simulated seconds at the core clock.
func (c *CPU) Seconds(cycles uint64) float64 { return float64(cycles) / float64(c.cfg.ClockHz) }

// String summarises the state.
func (c *CPU) String() string {
	return fmt.Sprintf("pc=%08x cycles=%d instret=%d", c.PC, c.Cycles, c.Instret)
}
