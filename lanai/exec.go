package lanai

//go:generate go run ./internal/opgen

import (
	"encoding/binary"
	"errors"

	"lanaiemu/isa"
	"lanaiemu/memsys"
)

// Run executes until the program stops or budget more cycles have passed,
// and says why it stopped. Due events run at instruction boundaries.
func (c *CPU) Run(budget uint64) *Stop {
	limit := c.Cycles + budget
	if limit < c.Cycles {
		limit = ^uint64(0)
	}
	c.stop = nil
	for {
		c.runEvents()
		if c.stop != nil {
			return c.stop
		}
		if c.Cycles >= limit {
			c.stop = CycleLimit
			return c.stop
		}
		c.deadline = min(limit, c.nextEvent())
		switch {
		case c.loop.state == loopToHead || c.loop.state == loopRecord:
			c.watchLoop(limit)
		case c.loop.proved && c.loopResume(limit):
			// skipped to the deadline: the next round runs what is due there
		default:
			c.exec()
		}
		if c.stop != nil {
			return c.stop
		}
	}
}

// Step executes exactly one instruction, even one with a breakpoint on it.
func (c *CPU) Step() *Stop {
	c.stop = nil
	c.runEvents()
	if c.stop != nil {
		return c.stop
	}
	c.deadline = c.Cycles + 1 // every instruction costs at least one cycle
	if c.loop.state == loopToHead || c.loop.state == loopRecord {
		c.loop.state = loopOff // a watch follows every instruction of the iteration: this one it would miss
	}
	c.skipBreak = true
	c.exec()
	c.skipBreak = false
	if c.stop == nil {
		c.stop = &Stop{Kind: StopStep}
	}
	return c.stop
}

// StepSkipping executes one instruction, as Step does, except that an idle
// or polling loop's branch that Run would fast-forward is fast-forwarded
// here too, up to the next event or the cycle limit, whichever comes
// first (the skipped cycles are counted in SkippedCycles). Profilers step
// this way so that a profiled run has the counts of an unprofiled one.
func (c *CPU) StepSkipping(limit uint64) *Stop {
	c.stop = nil
	c.runEvents()
	if c.stop != nil {
		return c.stop
	}
	c.skipLimit = min(limit, c.nextEvent())
	st := c.Step()
	c.skipLimit = 0
	return st
}

// sync writes the inner loop's locals back to the core.
func (c *CPU) sync(pc, npc, nnpc uint32, cycles, instret uint64, lastLoad uint8) {
	c.PC, c.NPC, c.NNPC, c.Cycles, c.Instret, c.lastLoad = pc, npc, nnpc, cycles, instret, lastLoad
}

// accessIO executes the special-register load or store at c.PC (opLoadIO,
// opStoreIO), handed over by exec with the state written back, as
// execSlow's general path (mem, read, store) would: R[2], a store's
// address and count, the access through the memory system, then the
// loaded register, the interlock, the cycles and the pc triple; none of
// these last on a failed access, and none but the loaded register when
// the access stops the run before the instruction (stoppedBefore). It
// leaves out execSlow's set-up and the general decoding: the firmware
// reads ISR and RTC in every pass of its main loop (docs/performance.md,
// "The run loop").
func (c *CPU) accessIO() {
	pc := c.PC
	u := c.pre[pc>>2] // a copy: a device store may forget the word
	ll := c.lastLoad
	c.R[2] = pc
	c.lastLoad = noLoad // as execSlow's write-back before the access
	var err error
	if u.op == opStoreIO {
		c.storeAddr, c.storeSize = u.imm, 4
		c.stores++
		err = c.Mem.WriteIO(u.imm, 4, c.R[u.rd])
	} else {
		var v uint32
		if v, err = c.Mem.ReadIO(u.imm, 4); err == nil {
			c.R[u.rd] = v
		}
	}
	if err != nil {
		c.accessFail(pc, err)
		return
	}
	if c.stoppedBefore() {
		return
	}
	c.Cycles += uint64(u.cost) + uint64(u.srcs)>>(ll&63)&1
	c.PC, c.NPC, c.NNPC = c.NPC, c.NNPC, c.NNPC+4
	c.Instret++
	if u.op == opLoadIO {
		c.lastLoad = u.rd
	}
}

// stoppedBefore reports a stop that leaves the core at the instruction
// that made it (a trap, a breakpoint): the run loops write back no pc,
// cycles or counts of that instruction.
func (c *CPU) stoppedBefore() bool {
	return c.stop != nil && (c.stop.Kind == StopTrap || c.stop.Kind == StopBreakpoint)
}

// slowFetch handles words that are not predecoded, invalid or
// breakpointed. It returns the uop to execute, or false to stop before the
// instruction (a breakpoint). The uop may not be u: a core whose word
// differs from the other members' leaves its SharedCode here (share.go).
func (c *CPU) slowFetch(u *uop, pc uint32) (*uop, bool) {
	if u.op == opUndecoded && c.share != nil {
		if c.share.agree(c, pc, c.sramWord(pc)); c.share == nil {
			u = &c.pre[pc>>2] // c's own copy (leaving may have fetched it)
		}
	}
	if u.op == opUndecoded {
		w := c.sramWord(pc)
		if i := pc >> 2; c.decoded[i] != opUndecoded && c.ins[i].Word == w {
			// Rewritten with the word it held (an image loaded again): the
			// invalidation cleared only the op, and predecoding depends only
			// on the word, pc and the configuration. The polling state
			// starts afresh, as a new predecode's would (a core sharing
			// the uop keeps its own in c.poll: invalidate reset it).
			u.op, u.poll = c.decoded[i], pollUnknown
		} else {
			*u, c.ins[i] = c.predecode(w, pc)
			c.decoded[i] = u.op
		}
		chunk := pc / codeChunk
		c.code[chunk/64] |= 1 << (chunk % 64)
		c.own[chunk/64] |= 1 << (chunk % 64)
		if c.breakpoints[pc] {
			u.op = opBreak
		}
		if c.cfg.Contention != nil && !c.cfg.ContentionBooked && (isFastMem(u.op) || u.op == opReturn) {
			u.op = opMem // SRAM arbitration is charged on the general path
		}
	}
	if u.op != opBreak {
		return u, true
	}
	if c.skipBreak {
		c.brk, _ = c.predecode(c.ins[pc>>2].Word, pc)
		return &c.brk, true
	}
	return u, false
}

// predecode is the free predecode with the core's options: with
// Config.RRR, op-1101 words are LANai 3/4 RRR instructions.
func (c *CPU) predecode(w, pc uint32) (uop, isa.Inst) {
	if c.cfg.RRR && w>>28 == 0xD {
		return predecodeRRR(w)
	}
	return predecode(w, pc)
}

// record notes a taken control transfer in the history ring.
func (c *CPU) record(from, to uint32, cycle uint64) {
	c.hist[c.histPos] = transfer{from, to, cycle}
	c.histPos = (c.histPos + 1) % historySize
}

// idle fast-forwards a "bt ." whose delay slot does nothing: the core can
// only leave it when an event changes something, so whole loop iterations
// (2 cycles, 2 instructions each) are skipped up to the next event or the
// run's limit. With no event pending the loop can never end: that is a
// trap (a deadlock), not a wait for the cycle limit.
func (c *CPU) idle(pc uint32, cycles, deadline uint64) uint64 {
	slot := pc + 4
	su := c.uopAt(slot, true)
	if su == nil {
		return 0
	}
	if su.op == opUndecoded {
		var ok bool
		if su, ok = c.slowFetch(su, slot); !ok {
			return 0
		}
	}
	if su.op != opNop {
		return 0
	}
	next := c.nextEvent()
	if next == ^uint64(0) {
		c.trap(pc, "deadlock: branch to itself with a no-op delay slot and no pending event")
		return 0
	}
	end := deadline
	if end <= cycles+2 {
		return 0
	}
	n := (end - cycles - 1) / 2         // whole iterations skipped
	c.recordTakes(pc, pc, cycles, 2, n) // (the run loop records the next take)
	return n * 2
}

// accessFail turns a memory error into a trap (or a stop for ErrStop).
func (c *CPU) accessFail(pc uint32, err error) {
	if errors.Is(err, memsys.ErrStop) {
		return
	}
	c.trap(pc, "%v", err)
}

// read reads size bytes at a, zero-extended: SRAM directly, anything else
// through the memory system's devices.
func (c *CPU) read(pc, a uint32, size uint32) (uint32, bool) {
	if a%size != 0 {
		if !c.cfg.AlignSilently {
			c.trap(pc, "unaligned %d-byte read at %#08x", size, a)
			return 0, false
		}
		a &^= size - 1
	}
	if c.Mem.InSRAM(a, size) {
		if c.cfg.Contention != nil {
			c.Cycles += c.cfg.Contention(c.Cycles, a, false)
		}
		b := c.Mem.SRAM[a:]
		switch size {
		case 4:
			return binary.BigEndian.Uint32(b), true
		case 2:
			return uint32(binary.BigEndian.Uint16(b)), true
		}
		return uint32(b[0]), true
	}
	v, err := c.Mem.ReadIO(a, int(size))
	if err != nil {
		c.accessFail(pc, err)
		return 0, false
	}
	return v, true
}

// store writes the low size bytes of v at a and reports success.
func (c *CPU) store(pc, a uint32, size uint32, v uint32) bool {
	if a%size != 0 {
		if !c.cfg.AlignSilently {
			c.trap(pc, "unaligned %d-byte write at %#08x", size, a)
			return false
		}
		a &^= size - 1
	}
	c.storeAddr, c.storeSize = a, uint8(size)
	c.stores++
	if c.Mem.InSRAM(a, size) {
		if c.cfg.Contention != nil {
			c.Cycles += c.cfg.Contention(c.Cycles, a, true)
		}
		b := c.Mem.SRAM[a:]
		switch size {
		case 4:
			binary.BigEndian.PutUint32(b, v)
		case 2:
			binary.BigEndian.PutUint16(b, uint16(v))
		default:
			b[0] = byte(v)
		}
		c.forget(a)
		return true
	}
	if err := c.Mem.WriteIO(a, int(size), v); err != nil {
		c.accessFail(pc, err)
		return false
	}
	return true
}

// mem executes any load or store: RM with base update, RRM, SPLS, and loads
// into pc. It returns the loaded value (for loads into pc) and success.
func (c *CPU) mem(u *uop, pc uint32) (uint32, bool) {
	in := c.inst(pc)
	base := c.R[in.Rs1]
	var off uint32
	switch in.Class {
	case isa.RRM:
		// The address operation: Rs1 op Rs2, flags untouched.
		off, _ = alu(in.ALU, base, c.R[in.Rs2], c.Flags&isa.FlagC != 0)
		off -= base // so that base+off is the operation's result
	default:
		off = in.Imm
	}
	ea := base
	if in.Mode == isa.ModeOffset || in.Mode == isa.ModePre {
		ea = base + off
	}
	if in.Class == isa.SLS {
		ea = in.Imm &^ 3
	}
	size := uint32(in.Size)
	var v uint32
	if in.Store {
		if !c.store(pc, ea, size, c.R[in.Rd]) {
			return 0, false
		}
	} else {
		var ok bool
		if v, ok = c.read(pc, ea, size); !ok {
			return 0, false
		}
		if !in.Zext && size < 4 {
			shift := 32 - 8*size
			v = uint32(int32(v<<shift) >> shift)
		}
		if in.Rd != isa.PC {
			c.R[u.rd] = v
		}
	}
	// The base update comes last: when it names the loaded register, the
	// computed value wins (LANai 3 manual, docs/isa.md).
	if in.Mode == isa.ModePost || in.Mode == isa.ModePre {
		if in.Rs1 > isa.PC {
			c.R[in.Rs1] = base + off
		}
	}
	return v, true
}
