package lanai

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
		if c.loop.state == loopToHead || c.loop.state == loopRecord {
			c.watchLoop(limit)
		} else {
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

// exec is the inner loop: it runs instructions until the cycle count
// reaches c.deadline or something stops the machine. The common
// instructions are handled inline on locals; everything else goes through
// the general handlers below, which work on c's fields (so the locals are
// written back first).
func (c *CPU) exec() {
	R := &c.R
	pre, code := c.pre, c.code
	sram := c.Mem.SRAM
	wordLimit := uint32(len(sram) - 3)
	pc, npc, nnpc := c.PC, c.NPC, c.NNPC
	cycles, instret := c.Cycles, c.Instret
	deadline := c.deadline
	lastLoad := c.lastLoad
	booked := c.sramBooked // DMA engines book SRAM only in events and device stores
loop:
	for cycles < deadline {
		idx := pc >> 2
		if idx >= uint32(len(pre)) {
			if c.uopAt(pc, true) == nil {
				c.sync(pc, npc, nnpc, cycles, instret, lastLoad)
				c.trap(pc, "instruction fetch at %#08x, outside SRAM (%#x bytes)", pc, len(sram))
				break
			}
			pre = c.pre // grown to cover pc
		}
		u := &pre[idx]
		if u.op <= opBreak {
			var ok bool
			if u, ok = c.slowFetch(u, pc); !ok {
				c.sync(pc, npc, nnpc, cycles, instret, lastLoad)
				if c.stop == nil {
					c.stop = &Stop{Kind: StopBreakpoint}
				}
				break
			}
		}
		ll := lastLoad
		lastLoad = noLoad
		newnpc, newnnpc := nnpc, nnpc+4
		switch u.op {
		case opNop:
		case opAddI:
			R[u.rd] = R[u.rs1] + u.imm
		case opSubI:
			R[u.rd] = R[u.rs1] - u.imm
		case opOrI:
			R[u.rd] = R[u.rs1] | u.imm
		case opAndI:
			R[u.rd] = R[u.rs1] & u.imm
		case opXorI:
			R[u.rd] = R[u.rs1] ^ u.imm
		case opShI:
			R[u.rd], _ = shift(R[u.rs1], int32(u.imm), false)
		case opShaI:
			R[u.rd], _ = shift(R[u.rs1], int32(u.imm), true)
		case opAddR:
			R[u.rd] = R[u.rs1] + R[u.rs2]
		case opSubR:
			R[u.rd] = R[u.rs1] - R[u.rs2]
		case opOrR:
			R[u.rd] = R[u.rs1] | R[u.rs2]
		case opAndR:
			R[u.rd] = R[u.rs1] & R[u.rs2]
		case opXorR:
			R[u.rd] = R[u.rs1] ^ R[u.rs2]
		case opSubFI:
			R[u.rd], c.Flags = subFlags(R[u.rs1], u.imm)
		case opSubFR:
			R[u.rd], c.Flags = subFlags(R[u.rs1], R[u.rs2])
		case opLoad:
			a := R[u.rs1] + u.imm
			if a&3 == 0 && a < wordLimit && cycles >= booked {
				R[u.rd] = binary.BigEndian.Uint32(sram[a:])
				lastLoad = u.rd
				break
			}
			c.sync(pc, npc, nnpc, cycles, instret, lastLoad)
			if !c.load(u, pc, a) {
				break loop
			}
			cycles, booked = c.Cycles, c.sramBooked // a contention stall may have been charged
			lastLoad = u.rd
		case opStore:
			a := R[u.rs1] + u.imm
			if a&3 == 0 && a < wordLimit && cycles >= booked {
				binary.BigEndian.PutUint32(sram[a:], R[u.rd])
				if chunk := a / codeChunk; code[chunk/64]&(1<<(chunk%64)) != 0 {
					pre[a>>2].op = opUndecoded
				}
				c.storeAddr, c.storeSize = a, 4
				c.stores++
				break
			}
			c.sync(pc, npc, nnpc, cycles, instret, lastLoad)
			if !c.store(pc, a, 4, R[u.rd]) {
				break loop
			}
			cycles, booked = c.Cycles, c.sramBooked // a device store may have started a DMA
			if c.stop != nil {
				deadline = 0
			}
			deadline = min(deadline, c.deadline) // the store may have scheduled an event
		case opBT:
			if u.imm == pc && npc == pc+4 {
				skipped := c.idle(pc, cycles, max(deadline, c.skipLimit))
				pre = c.pre // idle may have grown it to the delay slot (u stays readable)
				if skipped > 0 {
					cycles += skipped
					instret += skipped
					c.SkippedCycles += skipped
					c.SkippedInstret += skipped
				} else if c.stop != nil {
					c.sync(pc, npc, nnpc, cycles, instret, lastLoad)
					break loop
				}
			}
			newnpc, newnnpc = u.imm, u.imm+4
			c.record(pc, u.imm, cycles)
		case opBR:
			if u.cond.Holds(c.Flags) {
				newnpc, newnnpc = u.imm, u.imm+4
				c.record(pc, u.imm, cycles)
				if u.imm < pc && npc == pc+4 {
					if u.poll < pollNo || u.poll == pollYes {
						skipC, skipI := c.pollSkip(u, pc, cycles, instret, max(deadline, c.skipLimit))
						cycles += skipC
						instret += skipI
					} else if u.poll > pollWait {
						u.poll-- // loop.go's count of takes before the next watch
					} else if c.loopTaken(u, pc) {
						deadline = 0 // leave after the branch: Run watches the loop
					}
				}
			}
		case opBRR:
			if u.cond.Holds(c.Flags) {
				t := pc + u.imm
				newnpc, newnnpc = t, t+4
				c.record(pc, t, cycles)
			}
		case opJump:
			R[2] = pc
			if v, ok := c.compute(&u.in); ok {
				t := v &^ 3
				newnpc, newnnpc = t, t+4
				c.record(pc, t, cycles)
			}
		case opALUI, opALUR, opSel, opSCC, opSpecial:
			R[2] = pc
			if v, ok := c.compute(&u.in); ok {
				R[u.rd] = v
			}
		case opMem:
			R[2] = pc
			c.sync(pc, npc, nnpc, cycles, instret, lastLoad)
			t, ok := c.mem(u, pc)
			if !ok {
				break loop
			}
			cycles, booked = c.Cycles, c.sramBooked // a device store may have started a DMA
			if u.in.Rd == isa.PC && !u.in.Store {
				newnnpc = t &^ 3 // a load into pc has two delay slots
				c.record(pc, newnnpc, cycles)
			} else if !u.in.Store {
				lastLoad = u.rd
			}
			if c.stop != nil {
				deadline = 0
			}
			deadline = min(deadline, c.deadline)
		case opRRR:
			R[2] = pc
			v := c.rrr(u.imm)
			if u.rd == uint8(isa.PC) {
				t := v &^ 3
				newnpc, newnnpc = t, t+4
				c.record(pc, t, cycles)
			} else {
				R[u.rd] = v
			}
		case opInvalid:
			c.sync(pc, npc, nnpc, cycles, instret, lastLoad)
			c.trap(pc, "invalid instruction %#08x%s", u.in.Word, rrrHint(u.in.Word))
			break loop
		}
		cycles += uint64(u.cost) + uint64(u.srcs>>ll&1)
		pc, npc, nnpc = npc, newnpc, newnnpc
		instret++
	}
	if c.stop == nil || c.stop.Kind != StopTrap && c.stop.Kind != StopBreakpoint {
		c.sync(pc, npc, nnpc, cycles, instret, lastLoad)
	}
}

// sync writes the inner loop's locals back to the core.
func (c *CPU) sync(pc, npc, nnpc uint32, cycles, instret uint64, lastLoad uint8) {
	c.PC, c.NPC, c.NNPC, c.Cycles, c.Instret, c.lastLoad = pc, npc, nnpc, cycles, instret, lastLoad
}

// slowFetch handles words that are not predecoded, invalid or
// breakpointed. It returns the uop to execute, or false to stop before the
// instruction (a breakpoint).
func (c *CPU) slowFetch(u *uop, pc uint32) (*uop, bool) {
	if u.op == opUndecoded {
		b := c.Mem.SRAM[pc : pc+4]
		*u = c.predecode(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3]), pc)
		chunk := pc / codeChunk
		c.code[chunk/64] |= 1 << (chunk % 64)
		if c.breakpoints[pc] {
			u.op = opBreak
		}
		if c.cfg.Contention != nil && !c.cfg.ContentionBooked && (u.op == opLoad || u.op == opStore) {
			u.op = opMem // SRAM arbitration is charged on the general path
		}
	}
	if u.op != opBreak {
		return u, true
	}
	if c.skipBreak {
		c.brk = c.predecode(u.in.Word, pc)
		return &c.brk, true
	}
	return u, false
}

// predecode is the free predecode with the core's options: with
// Config.RRR, op-1101 words are LANai 3/4 RRR instructions.
func (c *CPU) predecode(w, pc uint32) uop {
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
		if _, ok := c.slowFetch(su, slot); !ok {
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
	return (end - cycles - 1) / 2 * 2
}

// compute evaluates an instruction that computes a value (RI, RR,
// SPECIAL, SLI, SCC): it updates the flags if the instruction sets them
// and returns the value and whether the destination is written (false for
// a conditional instruction whose condition is false).
func (c *CPU) compute(in *isa.Inst) (uint32, bool) {
	switch in.Class {
	case isa.RI:
		r, f := alu(in.ALU, c.R[in.Rs1], in.Imm, c.Flags&isa.FlagC != 0)
		if in.F {
			c.Flags = f
		}
		return r, true
	case isa.RR:
		if !in.Cond.Holds(c.Flags) {
			if in.ALU == isa.Sel {
				return c.R[in.Rs2], true
			}
			return 0, false // a false condition makes the instruction a no-op
		}
		if in.ALU == isa.Sel {
			return c.R[in.Rs1], true
		}
		r, f := alu(in.ALU, c.R[in.Rs1], c.R[in.Rs2], c.Flags&isa.FlagC != 0)
		if in.F {
			if in.ALU == isa.And || in.ALU == isa.Or || in.ALU == isa.Xor {
				f = f&^isa.FlagC | c.Flags&isa.FlagC // RR logic keeps C
			}
			c.Flags = f
		}
		return r, true
	case isa.Special:
		return special(in.ALU, c.R[in.Rs1]), true
	case isa.SLI:
		return in.Imm, true
	case isa.SCC:
		if in.Cond.Holds(c.Flags) {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// accessFail turns a memory error into a trap (or a stop for ErrStop).
func (c *CPU) accessFail(pc uint32, err error) {
	if errors.Is(err, memsys.ErrStop) {
		return
	}
	c.trap(pc, "%v", err)
}

// load is the slow path of a word load at a (unaligned, outside SRAM or a
// device). It writes the destination and reports success.
func (c *CPU) load(u *uop, pc, a uint32) bool {
	v, ok := c.read(pc, a, 4)
	if ok {
		c.R[u.rd] = v
	}
	return ok
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
	in := &u.in
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
