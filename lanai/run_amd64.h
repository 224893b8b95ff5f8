// The threaded run loop's macros (run_amd64.s, run_gen_amd64.s): the
// handlers' common parts, and a macro per family of generated handlers.

#include "go_asm.h"
#include "textflag.h"

// Registers across handlers:
//   SI  c (*CPU)            R8  c.Flags           R9  &sram[0]
//   DI  &c.pre[0]           R10 pc                R11 npc (nnpc is npc+4)
//   R12 cycles              R13 instret           R14 lastLoad of the previous instruction
//   R15 limit (cycles)      BX  the uop being run AX, CX, DX scratch

// NEXT dispatches the next instruction, or leaves at the limit or for a
// word past pre. Once per handler (it defines the labels lim and hand).
#define NEXT \
	CMPQ R12, R15; \
	JAE lim; \
	MOVL R10, AX; \
	SHRL $2, AX; \
	CMPQ AX, CPU_pre+8(SI); \
	JAE hand; \
	SHLQ $4, AX; \
	LEAQ (DI)(AX*1), BX; \
	MOVBLZX uop_op(BX), AX; \
	LEAQ ·threadedTable(SB), CX; \
	MOVQ (CX)(AX*8), AX; \
	JMP AX; \
lim: \
	JMP ·threadedLimit<>(SB); \
hand: \
	JMP ·threadedHand<>(SB)

// COST adds the instruction's cycles: its cost and the load-use stall.
#define COST \
	MOVBLZX uop_cost(BX), AX; \
	ADDQ AX, R12; \
	MOVL uop_srcs(BX), AX; \
	BTQ R14, AX; \
	ADCQ $0, R12

// DONE ends an instruction that loads nothing and does not branch.
#define DONE \
	COST; \
	MOVQ $const_noLoad, R14; \
	MOVL R11, R10; \
	ADDL $4, R11; \
	INCQ R13

// DONELOAD ends a load into register rd.
#define DONELOAD \
	COST; \
	MOVBQZX uop_rd(BX), R14; \
	MOVL R11, R10; \
	ADDL $4, R11; \
	INCQ R13

// DONETO ends a taken branch to the address in reg (DX).
#define DONETO(reg) \
	COST; \
	MOVQ $const_noLoad, R14; \
	MOVL R11, R10; \
	MOVL reg, R11; \
	INCQ R13

// RECORD notes a transfer from pc to reg (not CX or DX) in c.hist (c.record).
#define RECORD(reg) \
	MOVQ CPU_histPos(SI), CX; \
	MOVQ CX, DX; \
	SHLQ $4, DX; \
	MOVL R10, (CPU_hist+transfer_from)(SI)(DX*1); \
	MOVL reg, (CPU_hist+transfer_to)(SI)(DX*1); \
	MOVQ R12, (CPU_hist+transfer_cycle)(SI)(DX*1); \
	INCQ CX; \
	ANDQ $(const_historySize-1), CX; \
	MOVQ CX, CPU_histPos(SI)

// HOLDS jumps to no unless u.cond holds for the flags.
#define HOLDS(no) \
	MOVBLZX uop_cond(BX), AX; \
	ANDL $15, AX; \
	LEAQ ·condTable(SB), CX; \
	MOVWLZX (CX)(AX*2), AX; \
	MOVL R8, CX; \
	ANDL $15, CX; \
	BTL CX, AX; \
	JCC no

// XOP loads R[rs1] into AX; YIMM and YRR load the second operand into CX.
#define XOP \
	MOVBLZX uop_rs1(BX), AX; \
	MOVL CPU_R(SI)(AX*4), AX
#define YRR \
	MOVBLZX uop_rs2(BX), CX; \
	MOVL CPU_R(SI)(CX*4), CX

// SETRD writes AX to R[rd] (CX is lost; flags kept).
#define SETRD \
	MOVBLZX uop_rd(BX), CX; \
	MOVL AX, CPU_R(SI)(CX*4)

// The flags macros set the flags (R8) from x86's flags right after the
// operation (result in AX): ARITHF after an add or a subtract, with C
// given by setc (SETCS for an add; SETCC for a subtract, whose C means no
// borrow), V from OF, N from SF, Z from ZF. SETcc writes the low or high
// byte of CX and DX (CX may hold the second operand): CX = C | N<<8 and
// DX = V | Z<<8 give C<<3 | N<<11 | V<<2 | Z<<10, and its bits 10 and 11
// shifted down give N<<1 | Z.
#define ARITHF(setc) \
	setc CL; \
	SETMI CH; \
	SETOS DL; \
	SETEQ DH; \
	ANDL $0x101, CX; \
	ANDL $0x101, DX; \
	SHLL $3, CX; \
	LEAL (CX)(DX*4), CX; \
	MOVL CX, DX; \
	SHRL $10, DX; \
	ORL DX, CX; \
	MOVBLZX CX, R8

// LOGICF sets the flags after a logic operation of RI form: Z and N, C and V clear.
#define LOGICF \
	SETMI CL; \
	SETEQ DL; \
	ANDL $1, CX; \
	ANDL $1, DX; \
	LEAL (DX)(CX*2), R8

// LOGICKEEPCF sets the flags after a logic operation of RR form: Z and N, C
// kept, V clear (semantics.go's RRKeepsC).
#define LOGICKEEPCF \
	SETMI CL; \
	SETEQ DL; \
	ANDL $1, CX; \
	ANDL $1, DX; \
	LEAL (DX)(CX*2), CX; \
	ANDL $8, R8; \
	ORL CX, R8

// ALU handlers: RI, RI.f, RR, RR.f, conditional RR.
#define ALURI(name, insn) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	XOP; \
	insn uop_imm(BX), AX; \
	SETRD; \
	DONE; \
	NEXT

#define ALURR(name, insn) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	XOP; \
	YRR; \
	insn CX, AX; \
	SETRD; \
	DONE; \
	NEXT

#define ALURRC(name, insn) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	HOLDS(skip); \
	XOP; \
	YRR; \
	insn CX, AX; \
	SETRD; \
skip: \
	DONE; \
	NEXT

#define ALURIF(name, insn, flags) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	XOP; \
	insn uop_imm(BX), AX; \
	flags; \
	SETRD; \
	DONE; \
	NEXT

#define ALURRF(name, insn, flags) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	XOP; \
	YRR; \
	insn CX, AX; \
	flags; \
	SETRD; \
	DONE; \
	NEXT

// Shifts by a signed amount (left when positive); amounts of 32 or more
// are left to Go.
#define SHIFT(name, y, right) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	XOP; \
	y; \
	TESTL CX, CX; \
	JS neg; \
	CMPL CX, $32; \
	JAE hand; \
	SHLL CX, AX; \
	JMP set; \
neg: \
	NEGL CX; \
	CMPL CX, $32; \
	JAE hand; \
	right CX, AX; \
set: \
	SETRD; \
	DONE; \
	NEXT

#define YIMM MOVL uop_imm(BX), CX

// FAST jumps to hand unless the access at AX (mask: the address bits that
// must be clear) may take the fast path: below c.wordLimit and no SRAM
// cycle booked ahead (the Go loop's test).
#define FAST(mask) \
	TESTL $mask, AX; \
	JNE hand; \
	CMPL AX, CPU_wordLimit(SI); \
	JAE hand; \
	CMPQ R12, CPU_sramBooked(SI); \
	JCS hand

// The addresses: AI R[rs1]+imm, AR R[rs1]+R[rs2] (into AX).
#define AI \
	XOP; \
	ADDL uop_imm(BX), AX
#define AR \
	XOP; \
	YRR; \
	ADDL CX, AX

// The loads of each size and kind, from SRAM at AX into CX (big-endian).
#define LDW MOVL (R9)(AX*1), CX; BSWAPL CX
#define LDH MOVWLZX (R9)(AX*1), CX; ROLW $8, CX; MOVWLSX CX, CX
#define LDHU MOVWLZX (R9)(AX*1), CX; ROLW $8, CX; MOVWLZX CX, CX
#define LDB MOVBLSX (R9)(AX*1), CX
#define LDBU MOVBLZX (R9)(AX*1), CX

// The stores of each size, of CX into SRAM at AX.
#define STW BSWAPL CX; MOVL CX, (R9)(AX*1)
#define STH ROLW $8, CX; MOVW CX, (R9)(AX*1)
#define STB MOVB CX, (R9)(AX*1)

// LOAD is a load without a base update: addr AI or AR, mask the alignment
// test, ld the access.
#define LOAD(name, addr, mask, ld) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	addr; \
	FAST(mask); \
	ld; \
	MOVBLZX uop_rd(BX), DX; \
	MOVL CX, CPU_R(SI)(DX*4); \
	DONELOAD; \
	NEXT

// NEWPRE and NEWPOST put in DX the new value of the base register of an
// access at AX with a base update: pre-increment (AI) keeps the address,
// post-increment (XOP) the address plus imm.
#define NEWPRE MOVL AX, DX
#define NEWPOST MOVL AX, DX; ADDL uop_imm(BX), DX

// LOADUPDATE is a word load with a base update (addr AI and base NEWPRE,
// or XOP and NEWPOST; R[rs1] is written after R[rd], as the Go loop does;
// predecode leaves the updates of r0, r1 and pc to opMem).
#define LOADUPDATE(name, addr, base) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	addr; \
	FAST(3); \
	base; \
	LDW; \
	MOVBLZX uop_rd(BX), AX; \
	MOVL CX, CPU_R(SI)(AX*4); \
	MOVBLZX uop_rs1(BX), AX; \
	MOVL DX, CPU_R(SI)(AX*4); \
	DONELOAD; \
	NEXT

// CODE jumps to hand when the store at AX lies in a chunk of SRAM holding
// predecoded code (a bit of c.code per 256 bytes, codeChunk): Go forgets
// the word.
#define CODE \
	MOVL AX, CX; \
	SHRL $8, CX; \
	MOVL CX, DX; \
	SHRL $6, DX; \
	SHLQ $3, DX; \
	ADDQ CPU_code(SI), DX; \
	MOVQ (DX), DX; \
	BTQ CX, DX; \
	JCS hand

// STOREDONE notes the store at AX of size bytes (c.storeAddr, c.storeSize, c.stores).
#define STOREDONE(size) \
	MOVL AX, CPU_storeAddr(SI); \
	MOVB $size, CPU_storeSize(SI); \
	INCQ CPU_stores(SI)

// STORE is a store without a base update: addr AI or AR, mask the
// alignment test, st the access, size its bytes.
#define STORE(name, addr, mask, st, size) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	addr; \
	FAST(mask); \
	CODE; \
	MOVBLZX uop_rd(BX), CX; \
	MOVL CPU_R(SI)(CX*4), CX; \
	st; \
	STOREDONE(size); \
	DONE; \
	NEXT

// STOREUPDATE is a word store with a base update (as LOADUPDATE).
#define STOREUPDATE(name, addr, base) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	addr; \
	FAST(3); \
	CODE; \
	MOVBLZX uop_rd(BX), CX; \
	MOVL CPU_R(SI)(CX*4), CX; \
	STW; \
	STOREDONE(4); \
	base; \
	MOVBLZX uop_rs1(BX), CX; \
	MOVL DX, CPU_R(SI)(CX*4); \
	DONE; \
	NEXT

// SYNC writes the state back: c.sync(pc, npc, npc+4, cycles, instret, lastLoad).
#define SYNC \
	MOVL R10, CPU_PC(SI); \
	MOVL R11, CPU_NPC(SI); \
	LEAL 4(R11), AX; \
	MOVL AX, CPU_NNPC(SI); \
	MOVQ R12, CPU_Cycles(SI); \
	MOVQ R13, CPU_Instret(SI); \
	MOVB R8, CPU_Flags(SI); \
	MOVB R14, CPU_lastLoad(SI)

// EXITS writes the exits, once in each file (they are its own symbols).
// They return from runThreaded, whose result is at 32(SP): no handler
// moves SP.
#define EXITS \
TEXT ·threadedLimit<>(SB), NOSPLIT|NOFRAME, $0; \
	SYNC; \
	MOVQ $const_threadedLimit, 32(SP); \
	RET; \
TEXT ·threadedHand<>(SB), NOSPLIT|NOFRAME, $0; \
	SYNC; \
	MOVQ $const_threadedHand, 32(SP); \
	RET

// SET makes h the handler of op in the table at DI.
#define SET(op, h) \
	LEAQ h(SB), AX; \
	MOVQ AX, (op*8)(DI)
