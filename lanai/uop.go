package lanai

import "lanaiemu/isa"

// op is the handler of a predecoded instruction. Common, simple cases have
// their own handler (the fast path); every other instruction of a class
// goes to the class's general handler, which follows isa.Inst field by
// field.
type op uint8

const (
	opUndecoded op = iota // not predecoded yet (or invalidated by a store)
	opInvalid             // an invalid word: trap
	opBreak               // a breakpoint: stop before executing
	opNop                 // nop, log_N, and RI writes to r0/r1
	opAddI                // rd = rs1 + imm (also mov and SLI)
	opSubI                // rd = rs1 - imm
	opOrI                 // rd = rs1 | imm
	opAndI                // rd = rs1 & imm
	opXorI                // rd = rs1 ^ imm
	opShI                 // rd = rs1 logically shifted by imm
	opShaI                // rd = rs1 arithmetically shifted by imm
	opALUI                // any other RI instruction (flags, addc, subb)
	opAddR                // rd = rs1 + rs2
	opSubR                // rd = rs1 - rs2
	opOrR                 // rd = rs1 | rs2
	opAndR                // rd = rs1 & rs2
	opXorR                // rd = rs1 ^ rs2
	opALUR                // any other RR ALU instruction (condition, flags, shifts)
	opSel                 // rd = cond ? rs1 : rs2
	opSCC                 // rd = cond ? 1 : 0
	opSpecial             // popc, leadz, trailz
	opLoad                // rd = mem32[rs1 + imm] (RM offset mode, SLS)
	opStore               // mem32[rs1 + imm] = rd
	opMem                 // any other load or store (modes, RRM, SPLS)
	opBR                  // conditional absolute branch
	opBT                  // unconditional absolute branch
	opBRR                 // conditional relative branch
	opJump                // an ALU instruction writing pc
	opSubFI               // sub.f rs1, imm (the compare idiom)
	opSubFR               // sub.f rs1, rs2
	opRRR                 // LANai 3/4 three-register instruction (rrr.go)
)

// sink is the register index that writes to r0 and r1 are redirected to,
// so handlers can store without testing the destination.
const sink = 32

// uop is a predecoded instruction. Its fields are ordered to keep it small
// (36 bytes; the array covers the code executed, see CPU.uopAt).
type uop struct {
	srcs uint32 // registers read, as a bit mask (for the load-use interlock)
	imm  uint32 // immediate, offset, address or target
	in   isa.Inst
	op   op
	rd   uint8 // destination (sink for r0/r1); data register of stores
	rs1  uint8
	rs2  uint8
	cond isa.Cond
	cost uint8 // cycles, without the load-use interlock
	poll uint8 // backward branches: is this a polling loop (poll.go)
}

// predecode turns the instruction word at address pc into a uop. Fast
// handlers never read pc: an RI operation on pc is folded into a constant
// (pc is known here), and any other instruction reading pc takes its
// class's general handler, which sets r2 first.
func predecode(w, pc uint32) uop {
	in := isa.Decode(w)
	u := uop{in: in, rd: uint8(in.Rd), rs1: uint8(in.Rs1), rs2: uint8(in.Rs2), cond: in.Cond, imm: in.Imm}
	u.cost = uint8(costOf(in))
	if in.Rd <= isa.R1 {
		u.rd = sink
	}
	switch in.Class {
	case isa.Invalid:
		u.op = opInvalid
		return u
	case isa.RI:
		u.srcs = 1 << in.Rs1
		u.op = riOps[in.ALU]
		switch {
		case in.F && in.ALU == isa.Sub:
			u.op = opSubFI
		case in.F || u.op == opALUI:
			u.op = opALUI
		case in.Rd <= isa.R1:
			u.op = opNop
		}
	case isa.RR:
		u.srcs = 1<<in.Rs1 | 1<<in.Rs2
		switch {
		case in.ALU == isa.Sel:
			u.op = opSel
		case in.F && in.ALU == isa.Sub && in.Cond == isa.CondT:
			u.op = opSubFR
		case in.F || in.Cond != isa.CondT:
			u.op = opALUR
		default:
			u.op = rrOps[in.ALU]
		}
	case isa.Special:
		u.srcs = 1 << in.Rs1
		u.op = opSpecial
	case isa.SCC:
		u.op = opSCC
	case isa.SLI:
		u.op, u.rs1 = opAddI, 0
	case isa.SLS:
		u.rs1, u.imm = 0, in.Imm&^3 // the low two address bits are ignored
		u.op = opLoad
		if in.Rd == isa.PC {
			u.op = opMem // a load into pc
		}
		if in.Store {
			u.op, u.rd, u.srcs = opStore, uint8(in.Rd), 1<<in.Rd
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
		u.op = opMem
		if in.Class == isa.RM && (in.Mode == isa.ModeOffset || in.Mode == isa.ModeBase) && in.Rd != isa.PC {
			u.op = opLoad
			if in.Store {
				u.op = opStore
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
		case in.Class == isa.RI && u.op >= opAddI && u.op <= opShaI:
			v, _ := alu(in.ALU, pc, in.Imm, false) // "add %pc, 0x10, %rca"
			u.op, u.rs1, u.imm = opAddI, 0, v
			u.srcs &^= 1 << isa.PC
		case u.op >= opAddI && u.op <= opXorR || u.op == opSubFI || u.op == opSubFR:
			u.op = opALUR
			if in.Class == isa.RI {
				u.op = opALUI
			}
		case u.op == opLoad || u.op == opStore:
			u.op = opMem
		}
	}
	if in.Rd == isa.PC && computes(in.Class) {
		u.op = opJump
	}
	return u
}

// computes reports the classes whose destination gets a computed value
// (as opposed to a loaded one).
func computes(c isa.Class) bool {
	return c == isa.RI || c == isa.RR || c == isa.Special || c == isa.SLI || c == isa.SCC
}

// riOps and rrOps give the fast handler of an operation without flags.
var riOps = [...]op{isa.Add: opAddI, isa.Addc: opALUI, isa.Sub: opSubI, isa.Subb: opALUI,
	isa.And: opAndI, isa.Or: opOrI, isa.Xor: opXorI, isa.Sh: opShI, isa.Sha: opShaI,
	isa.Sel: opALUI, isa.Popc: opALUI, isa.Leadz: opALUI, isa.Trailz: opALUI}

var rrOps = [...]op{isa.Add: opAddR, isa.Addc: opALUR, isa.Sub: opSubR, isa.Subb: opALUR,
	isa.And: opAndR, isa.Or: opOrR, isa.Xor: opXorR, isa.Sh: opALUR, isa.Sha: opALUR,
	isa.Sel: opSel, isa.Popc: opALUR, isa.Leadz: opALUR, isa.Trailz: opALUR}

// costOf is the one place an instruction's cycle cost is computed (the
// constants are in timing.go).
func costOf(in isa.Inst) int {
	c := CyclesPerInstruction
	if in.Class == isa.SPLS {
		c += PartWordExtra
	}
	return c
}
