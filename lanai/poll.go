package lanai

import "lanaiemu/isa"

// Polling loops. NIC firmware spends its idle time in loops such as
//
//	.Lwait: ld  -432[%r0], %r7   ! read ISR
//	        and %r7, 0x10, %r7
//	        sub.f %r7, 0, %r0
//	        beq .Lwait
//	        nop
//
// which can only end when something outside the core changes what they
// read. The core skips such a loop up to the next event (or until a
// register it reads may change by itself, such as the RTC), in whole
// iterations, with exactly the counts that executing it would give:
//
//   - statically, the loop (from the branch target to the delay slot of the
//     taken backward branch) has at most maxPollBody instructions: loads
//     without base update, computations and compares, and no store, no
//     other control transfer;
//   - dynamically, one iteration leaves every register and the flags as
//     they were (a fixed point), so every further iteration repeats it as
//     long as what it loads stays the same;
//   - every address it loads from says how long it stays the same
//     (memsys.Memory.StableUntil: SRAM until an event, device registers as
//     their devices say).
//
// A loop that fails the fixed-point test several times in a row is marked
// as not a polling loop, so counting loops pay for the test only briefly.

const (
	maxPollBody  = 12 // instructions, delay slot included
	pollPatience = 8  // failed fixed-point tests before giving up on a loop
)

// Poll states of a backward branch (CPU.pollOf).
const (
	pollUnknown uint8 = iota
	pollNo
	pollYes
)

// pollTrack follows the loop being tested.
type pollTrack struct {
	branch   uint32 // the loop's branch
	regs     [32]uint32
	flags    isa.Flags
	cycles   uint64
	instret  uint64
	failures int
	valid    bool
	// The loop's words (head to delay slot) and the breakpoint changes
	// (CPU.breakGen) when pollable last passed it: while they hold, it
	// holds.
	checked    bool
	code       [maxPollBody]uint32
	checkedBrk uint64
}

// pollSkip is called when the backward branch u at pc is taken (before its
// delay slot executes). It returns the cycles and instructions to skip.
func (c *CPU) pollSkip(u *uop, pc uint32, cycles, instret, deadline uint64) (uint64, uint64) {
	p := c.pollOf(pc >> 2)
	if *p == pollUnknown {
		*p = pollWait + loopRetry // not for poll.go: loop.go watches it after loopRetry takes
		ok := c.pollable(u.imm, pc)
		p = c.pollOf(pc >> 2) // the core may have left its SharedCode (slowFetch): the state moved
		if ok {
			*p = pollYes
		}
	}
	if *p != pollYes {
		return 0, 0
	}
	t := &c.pollTrack
	// One pass since the last take (the branch, its delay slot and the
	// body before it), or the core left the loop and came back: what it
	// did outside is no iteration of it (counted as a failed test).
	same := t.valid && t.branch == pc && t.flags == c.Flags && [32]uint32(c.R[:32]) == t.regs &&
		instret-t.instret == uint64((pc-u.imm)/4+2)
	if !same {
		if t.valid && t.branch == pc {
			if t.failures++; t.failures >= pollPatience {
				*p = pollWait + loopRetry
				t.valid = false
				return 0, 0
			}
		} else {
			t.failures = 0
		}
		t.checked = t.checked && t.branch == pc // (its words are another loop's)
		t.branch, t.flags, t.cycles, t.instret, t.valid = pc, c.Flags, cycles, instret, true
		t.regs = [32]uint32(c.R[:32])
		return 0, 0
	}
	t.failures = 0
	iterCycles, iterInstr := cycles-t.cycles, instret-t.instret
	measured := t.cycles
	t.cycles, t.instret = cycles, instret
	if iterCycles == 0 || c.sramFreeFrom(measured) < cycles {
		return 0, 0 // (the iteration met a cycle another master booked: it may have stalled)
	}
	if !c.pollStillPollable(u.imm, pc) {
		// A write from outside changed the loop since pollable looked (a
		// store, a jump, a breakpoint in it now): loop.go's.
		*c.pollOf(pc >> 2) = pollWait + loopRetry
		t.valid = false
		return 0, 0
	}
	// Up to the next event, the run's limit, a change of what it loads,
	// and the first SRAM cycle another master booked (its loads would
	// stall there).
	end := min(deadline, c.nextEvent(), c.loopInputsStable(u.imm, pc), c.sramFreeFrom(cycles))
	if end <= cycles+iterCycles {
		return 0, 0
	}
	k := (end - cycles - 1) / iterCycles
	c.recordTakes(pc, u.imm, cycles+iterCycles, iterCycles, k) // (the take at cycles is recorded)
	t.cycles += k * iterCycles
	t.instret += k * iterInstr
	c.SkippedCycles += k * iterCycles
	c.SkippedInstret += k * iterInstr
	return k * iterCycles, k * iterInstr
}

// pollStillPollable checks pollable again for the loop [head, branch+4]
// of the tracked branch, unless its words and the breakpoints are those
// it passed with last.
func (c *CPU) pollStillPollable(head, branch uint32) bool {
	t := &c.pollTrack
	n := int(branch-head)/4 + 2
	same := t.checked && t.checkedBrk == c.breakGen
	for i := 0; same && i < n; i++ {
		same = t.code[i] == c.sramWord(head+uint32(i)*4)
	}
	if same {
		return true
	}
	t.checked = false
	if !c.pollable(head, branch) {
		return false
	}
	for i := range n {
		t.code[i] = c.sramWord(head + uint32(i)*4)
	}
	t.checked, t.checkedBrk = true, c.breakGen
	return true
}

// recordTakes records the n takes of a skipped loop's branch from (to
// to), every iter cycles from cycle first, as executing the loop records
// them (the last historySize: the history holds no more).
func (c *CPU) recordTakes(from, to uint32, first, iter, n uint64) {
	for i := n - min(n, historySize); i < n; i++ {
		c.record(from, to, first+i*iter)
	}
}

// pollable checks the static conditions on the loop [head, branch+4].
func (c *CPU) pollable(head, branch uint32) bool {
	if head > branch || (branch-head)/4+2 > maxPollBody {
		return false
	}
	// loopInputsStable computes the loads' addresses from the registers at
	// the branch: a base register must hold that value at the load, which
	// a register the loop writes at most once does (a fixed point: before
	// the write and after it, the value it has at the branch) and one
	// written twice need not.
	var once, twice, bases uint64
	for a := head; a <= branch+4; a += 4 {
		if a == branch {
			continue
		}
		u := c.uopAt(a, false) // inside the run loop: no growing
		if u == nil {
			return false
		}
		if u.op == opUndecoded {
			var ok bool
			if u, ok = c.slowFetch(u, a); !ok {
				return false
			}
		}
		switch u.op {
		case opNop, opSel, opSCC, opSpecial, opCompute:
		case opMem:
			in := c.inst(a)
			if in.Store || in.Rd == isa.PC || in.Mode == isa.ModePost || in.Mode == isa.ModePre {
				return false
			}
		default:
			if !isALUOp(u.op) && !isFastLoad(u.op) {
				return false
			}
		}
		if u.op == opNop {
			continue
		}
		in := c.inst(a)
		twice |= once & (1 << in.Rd)
		once |= 1 << in.Rd
		if isFastLoad(u.op) || u.op == opMem {
			switch in.Class {
			case isa.SLS:
			case isa.RRM:
				if aluReadsCarry(in.ALU) {
					return false // the address depends on the flags at the load
				}
				bases |= 1<<in.Rs1 | 1<<in.Rs2
			default:
				bases |= 1 << in.Rs1
			}
		}
	}
	return twice&bases == 0
}

// loopInputsStable is the first cycle at which something the loop loads
// may change without an event: the minimum over its loads' addresses,
// computed from the current (fixed-point) registers (pollSkip had
// pollable look at the loop again just before).
func (c *CPU) loopInputsStable(head, branch uint32) uint64 {
	until := ^uint64(0)
	for a := head; a <= branch+4; a += 4 {
		u := &c.pre[a/4]
		if u.op == opUndecoded {
			// Forgotten since pollable looked: by a write into the loop
			// (a DMA) or, while the core shares its code, by another
			// core's write into its own copy of the word. It is what the
			// core's SRAM holds now.
			var ok bool
			if u, ok = c.slowFetch(u, a); !ok {
				return 0 // a breakpoint
			}
		}
		if !isFastLoad(u.op) && u.op != opMem {
			continue
		}
		ea := c.effAddr(a) &^ 3
		until = min(until, c.Mem.StableUntil(ea))
	}
	return until
}

// effAddr is the address the load or store u would access now (before a
// base update; ignoring the alignment rule).
func (c *CPU) effAddr(pc uint32) uint32 {
	in := c.inst(pc)
	switch in.Class {
	case isa.SLS:
		return in.Imm &^ 3
	case isa.RRM:
		if in.Mode != isa.ModeOffset && in.Mode != isa.ModePre {
			return c.R[in.Rs1]
		}
		r, _ := alu(in.ALU, c.R[in.Rs1], c.R[in.Rs2], c.Flags&isa.FlagC != 0)
		return r
	}
	if in.Mode == isa.ModeOffset || in.Mode == isa.ModePre {
		return c.R[in.Rs1] + in.Imm
	}
	return c.R[in.Rs1]
}
