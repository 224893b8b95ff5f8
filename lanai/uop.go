package lanai

import (
	"lanaiemu/isa"
	"lanaiemu/memsys"
)

// op is the handler of a predecoded instruction. The ALU operations and
// the loads and stores of the common forms have generated handlers
// (exec_gen.go, from semantics.go); the ops below are written by hand in
// the loop's template (internal/opgen/exec.tmpl).
type op uint8

const (
	opUndecoded op = iota // not predecoded yet (or invalidated by a store)
	opInvalid             // an invalid word: trap
	opBreak               // a breakpoint: stop before executing
	opNop                 // nop, log_N, and RI writes to r0/r1
	opSel                 // rd = cond ? rs1 : rs2
	opSCC                 // rd = cond ? 1 : 0
	opSpecial             // popc, leadz, trailz
	opBR                  // conditional absolute branch
	opBT                  // unconditional absolute branch
	opBRR                 // conditional relative branch
	opJump                // a computing instruction writing pc (its op in uop.alt)
	opCompute             // a computing instruction reading pc (its op in uop.alt)
	opMem                 // any other load or store (modes, RRM, SPLS), and the fall-back of the fast ones
	opRRR                 // LANai 3/4 three-register instruction (rrr.go)
	opReturn              // ld imm[rs1], %pc (a function's return): pc's second successor is the word loaded
	opJumpAdd             // add into pc (a jump through a register): the target is rs1 + rs2 + imm
	opLoadIO              // ld imm[r0], rd of a special register (ISR, RTC): exec hands it to accessIO
	opStoreIO             // st rd, imm[r0] to a special register: exec hands it to accessIO
	opSlow                // never in a uop: exec's hand-over of an instruction to execSlow
	opGenerated           // the first generated op
)

// sink is the register index that writes to r0 and r1 are redirected to,
// so handlers can store without testing the destination.
const sink = 32

// uop is a predecoded instruction: what the run loop's cases read, in 16
// bytes (the decoded isa.Inst is beside it in CPU.ins; the arrays cover the
// code executed, see CPU.uopAt).
type uop struct {
	srcs uint32 // registers read, as a bit mask (for the load-use interlock)
	imm  uint32 // immediate, offset, address or target
	op   op
	alt  op    // opJump, opCompute: the computing op to run
	rd   uint8 // destination (sink for r0/r1); data register of stores
	rs1  uint8
	rs2  uint8
	cond isa.Cond
	cost uint8 // cycles, without the load-use interlock
	// poll is a backward branch's polling and loop-watch state (poll.go,
	// loop.go; see CPU.pollOf). A shared uop's is always pollUnknown,
	// which sends the run loop's fast path to the general one.
	poll uint8
}

// ALU forms: the second index of aluForms.
const (
	formRI = iota
	formRIF
	formRR
	formRRF
	formRRC
	formRRCF
)

// Access kinds: the second index of memForms.
const (
	kindW = iota
	kindH
	kindHU
	kindB
	kindBU
)

// predecode turns the instruction word at address pc into a uop. Fast
// handlers never read pc: an RI operation on pc is folded into a constant
// (pc is known here), and any other instruction reading pc takes a
// general handler, which sets r2 first.
func predecode(w, pc uint32) (uop, isa.Inst) {
	in := isa.Decode(w)
	u := uop{rd: uint8(in.Rd), rs1: uint8(in.Rs1), rs2: uint8(in.Rs2), cond: in.Cond, imm: in.Imm}
	u.cost = uint8(costOf(in))
	if in.Rd <= isa.R1 {
		u.rd = sink
	}
	switch in.Class {
	case isa.Invalid:
		u.op = opInvalid
		return u, in
	case isa.RI:
		u.srcs = 1 << in.Rs1
		switch {
		case in.F:
			u.op = aluForms[in.ALU][formRIF]
		case in.Rd <= isa.R1:
			u.op = opNop
		default:
			u.op = aluForms[in.ALU][formRI]
		}
	case isa.RR:
		u.srcs = 1<<in.Rs1 | 1<<in.Rs2
		form := formRR
		if in.Cond != isa.CondT {
			form = formRRC
		}
		if in.F {
			form++ // the .f form follows each
		}
		u.op = aluForms[in.ALU][form]
		if in.ALU == isa.Sel {
			u.op = opSel
		}
	case isa.Special:
		u.srcs = 1 << in.Rs1
		u.op, u.imm = opSpecial, uint32(in.ALU) // the count to take
	case isa.SCC:
		u.op = opSCC
	case isa.SLI:
		u.op, u.rs1 = aluForms[isa.Add][formRI], 0
	case isa.SLS:
		u.rs1, u.imm = 0, in.Imm&^3 // the low two address bits are ignored
		u.op = memForms[0][kindW][0][isa.ModeOffset]
		if in.Rd == isa.PC {
			u.op = opMem // a load into pc
		}
		if in.Store {
			u.op, u.rd, u.srcs = memForms[1][kindW][0][isa.ModeOffset], uint8(in.Rd), 1<<in.Rd
		}
	case isa.RM, isa.RRM, isa.SPLS:
		u.srcs = 1 << in.Rs1
		if in.Class == isa.RRM && in.Mode != isa.ModeBase {
			u.srcs |= 1 << in.Rs2
		}
		if in.Store {
			u.rd = uint8(in.Rd)
			u.srcs |= 1 << in.Rd
		}
		u.op = memOp(&in)
		if isSpecialAccess(&in) {
			u.op = opLoadIO
			if in.Store {
				u.op = opStoreIO
			}
		}
	case isa.BR:
		u.op = opBR
		if in.Cond == isa.CondT {
			u.op = opBT
		}
	case isa.BRR:
		u.op = opBRR
	}
	if u.srcs&(1<<isa.PC) != 0 {
		switch {
		case in.Class == isa.RI && !in.F && isALUOp(u.op) && !aluReadsCarry(in.ALU):
			v, _ := alu(in.ALU, pc, in.Imm, false) // "add %pc, 0x10, %rca"
			u.op, u.rs1, u.imm = aluForms[isa.Add][formRI], 0, v
			u.srcs &^= 1 << isa.PC
		case isALUOp(u.op) || u.op == opSel || u.op == opSpecial:
			u.op, u.alt = opCompute, u.op
		case isFastMem(u.op) || u.op == opReturn:
			u.op = opMem
		}
	}
	if in.Rd == isa.PC && computes(in.Class) {
		if u.op == opCompute {
			u.op = u.alt
		}
		u.op, u.alt = opJump, u.op
		switch u.alt {
		case aluForms[isa.Add][formRI]: // "add %r3, 0x8, %pc"
			u.op, u.rs2 = opJumpAdd, 0 // r0 reads 0
		case aluForms[isa.Add][formRR]: // "mov %r3, %pc", an indirect call
			u.op, u.imm = opJumpAdd, 0
		}
	}
	return u, in
}

// memOp is the fast op of a load or store of class RM, RRM or SPLS, or
// opMem for the forms only the general handler does: loads into pc (but
// the word loads with an offset, opReturn), RRM
// address operations other than add, base updates of r0, r1 or pc.
func memOp(in *isa.Inst) op {
	if in.Rd == isa.PC && !in.Store && in.Class == isa.RM && in.Size == isa.Word && in.Mode == isa.ModeOffset {
		return opReturn
	}
	if in.Rd == isa.PC && !in.Store || in.Class == isa.RRM && in.ALU != isa.Add {
		return opMem
	}
	if (in.Mode == isa.ModePre || in.Mode == isa.ModePost) && in.Rs1 <= isa.PC {
		return opMem
	}
	kind := kindW
	switch {
	case in.Size == isa.Half && (in.Zext || in.Store):
		kind = kindHU
	case in.Size == isa.Half:
		kind = kindH
	case in.Size == isa.Byte && (in.Zext || in.Store):
		kind = kindBU
	case in.Size == isa.Byte:
		kind = kindB
	}
	store, reg := 0, 0
	if in.Store {
		store = 1
	}
	if in.Class == isa.RRM {
		reg = 1
	}
	return memForms[store][kind][reg][in.Mode]
}

// isSpecialAccess reports a word load or store of a special register at a
// constant address (r0 plus an aligned offset in the window), not a load
// into pc: the firmware's reads of ISR and RTC and its stores that start
// the DMA engines (opLoadIO, opStoreIO).
func isSpecialAccess(in *isa.Inst) bool {
	return in.Class == isa.RM && (in.Store || in.Rd != isa.PC) && in.Size == isa.Word &&
		in.Mode == isa.ModeOffset && in.Rs1 == isa.R0 &&
		in.Imm >= memsys.SpecialBase && in.Imm%4 == 0
}

// computes reports the classes whose destination gets a computed value
// (as opposed to a loaded one).
func computes(c isa.Class) bool {
	return c == isa.RI || c == isa.RR || c == isa.Special || c == isa.SLI || c == isa.SCC
}

// costOf is the one place an instruction's cycle cost is computed (the
// constants are in timing.go).
func costOf(in isa.Inst) int {
	c := CyclesPerInstruction
	if in.Class == isa.SPLS {
		c += PartWordExtra
	}
	return c
}
