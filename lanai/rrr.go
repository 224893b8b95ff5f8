package lanai

import "lanaiemu/isa"

// The three-register (RRR) format of Myricom's LANai 3/4, which lanai-gcc
// 2.95's libgcc.a and Cplant's LANai 4 image contain (docs/isa.md, "Cplant's
// three images"). It is off unless Config.RRR is set: op 1101 is LLVM's
// popc/leadz/trailz, and with RRR on every op-1101 word is RRR instead.
//
// Fields (Myricom's opcode/lanai.h): Rd 27..23, Rs1 22..18, F 17, H 16,
// Rs2 15..11, OP2 10..8, Rs3 7..3, OP1 2..0; the operation is
//
//	Rd <- Rs1 OP2 (Rs2 OP1 Rs3)
//
// with the ALU operations numbered as in RR (add, addc, sub, subb, and, or,
// xor, sh). H makes an outer shift arithmetic: libgcc's __ashrdi3 and
// __lshrdi3 differ in that bit alone. Both operations read the incoming
// carry; F sets the flags from the outer operation, as an RR ".f" does. No
// known code sets F, shifts in the inner operation, or writes pc: those
// readings are the natural ones, unverified.

const (
	rrrF = 1 << 17 // set the flags
	rrrH = 1 << 16 // arithmetic outer shift
)

// predecodeRRR makes the uop of an RRR word.
func predecodeRRR(w uint32) (uop, isa.Inst) {
	rd, rs1, rs2, rs3 := w>>23&31, w>>18&31, w>>11&31, w>>3&31
	u := uop{op: opRRR, rd: uint8(rd), rs1: uint8(rs1), rs2: uint8(rs2), imm: w,
		srcs: 1<<rs1 | 1<<rs2 | 1<<rs3, cost: CyclesPerInstruction}
	if rd <= uint32(isa.R1) {
		u.rd = sink
	}
	return u, isa.Decode(w)
}

// rrr computes an RRR word's result, setting the flags if it says so.
func (c *CPU) rrr(w uint32) uint32 {
	op1, op2 := isa.ALU(w&7), isa.ALU(w>>8&7)
	if op2 == isa.Sh && w&rrrH != 0 {
		op2 = isa.Sha
	}
	carry := c.Flags&isa.FlagC != 0
	inner, _ := alu(op1, c.R[w>>11&31], c.R[w>>3&31], carry)
	r, f := alu(op2, c.R[w>>18&31], inner, carry)
	if w&rrrF != 0 {
		if op2 == isa.And || op2 == isa.Or || op2 == isa.Xor {
			f = f&^isa.FlagC | c.Flags&isa.FlagC // as RR logic, keep C
		}
		c.Flags = f
	}
	return r
}

// rrrHint is added to the report of an invalid op-1101 word (the core
// traps on it only when Config.RRR is off).
func rrrHint(w uint32) string {
	if w>>28 != 0xD {
		return ""
	}
	return " (op 1101: a LANai 3/4 three-register instruction, which Config.RRR executes)"
}
