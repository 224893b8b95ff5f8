//go:build amd64 && !purego

#include "go_asm.h"
#include "textflag.h"

// Registers across handlers:
//   SI  c (*CPU)            R8  &threadedTable    R9  &sram[0]
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
	MOVQ (R8)(AX*8), AX; \
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

// HOLDS jumps to no unless u.cond holds for c.Flags.
#define HOLDS(no) \
	MOVBLZX uop_cond(BX), AX; \
	ANDL $15, AX; \
	LEAQ ·condTable(SB), CX; \
	MOVWLZX (CX)(AX*2), AX; \
	MOVBLZX CPU_Flags(SI), CX; \
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

// ZN ors the Z and N flags of AX into CX (DX is lost).
#define ZN \
	MOVL $0, DX; \
	TESTL AX, AX; \
	SETMI DL; \
	SHLL $1, DX; \
	ORL DX, CX; \
	MOVL $0, DX; \
	TESTL AX, AX; \
	SETEQ DL; \
	ORL DX, CX

// ADDF sets c.Flags after an add: carry as x86's (SETCS) for add, its
// complement (SETCC) for subtract, whose C means no borrow.
#define ARITHF(setc) \
	MOVL $0, CX; \
	MOVL $0, DX; \
	setc CL; \
	SETOS DL; \
	SHLL $3, CX; \
	SHLL $2, DX; \
	ORL DX, CX; \
	ZN; \
	MOVB CX, CPU_Flags(SI)

// LOGICF sets c.Flags after a logic operation of RI form: Z and N, C and V clear.
#define LOGICF \
	MOVL $0, CX; \
	ZN; \
	MOVB CX, CPU_Flags(SI)

// LOGICRRF sets c.Flags after a logic operation of RR form: Z and N, C kept, V clear.
#define LOGICRRF \
	MOVBLZX CPU_Flags(SI), CX; \
	ANDL $8, CX; \
	ZN; \
	MOVB CX, CPU_Flags(SI)

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

ALURI(·tAddRI<>, ADDL)
ALURI(·tSubRI<>, SUBL)
ALURI(·tAndRI<>, ANDL)
ALURI(·tOrRI<>, ORL)
ALURI(·tXorRI<>, XORL)
ALURR(·tAddRR<>, ADDL)
ALURR(·tSubRR<>, SUBL)
ALURR(·tAndRR<>, ANDL)
ALURR(·tOrRR<>, ORL)
ALURR(·tXorRR<>, XORL)
ALURRC(·tAddRRC<>, ADDL)
ALURRC(·tSubRRC<>, SUBL)
ALURRC(·tAndRRC<>, ANDL)
ALURRC(·tOrRRC<>, ORL)
ALURRC(·tXorRRC<>, XORL)
ALURIF(·tAddRIF<>, ADDL, ARITHF(SETCS))
ALURIF(·tSubRIF<>, SUBL, ARITHF(SETCC))
ALURIF(·tAndRIF<>, ANDL, LOGICF)
ALURIF(·tOrRIF<>, ORL, LOGICF)
ALURIF(·tXorRIF<>, XORL, LOGICF)
ALURRF(·tAddRRF<>, ADDL, ARITHF(SETCS))
ALURRF(·tSubRRF<>, SUBL, ARITHF(SETCC))
ALURRF(·tAndRRF<>, ANDL, LOGICRRF)
ALURRF(·tOrRRF<>, ORL, LOGICRRF)
ALURRF(·tXorRRF<>, XORL, LOGICRRF)

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
SHIFT(·tShRI<>, YIMM, SHRL)
SHIFT(·tShRR<>, YRR, SHRL)
SHIFT(·tShaRI<>, YIMM, SARL)
SHIFT(·tShaRR<>, YRR, SARL)

TEXT ·tNop<>(SB), NOSPLIT|NOFRAME, $0
	DONE
	NEXT

TEXT ·tSCC<>(SB), NOSPLIT|NOFRAME, $0
	MOVL $0, DX
	HOLDS(set)
	MOVL $1, DX
set:
	MOVBLZX uop_rd(BX), CX
	MOVL DX, CPU_R(SI)(CX*4)
	DONE
	NEXT

TEXT ·tSel<>(SB), NOSPLIT|NOFRAME, $0
	MOVBLZX uop_rs2(BX), DX
	HOLDS(set)
	MOVBLZX uop_rs1(BX), DX
set:
	MOVL CPU_R(SI)(DX*4), AX
	SETRD
	DONE
	NEXT

// tBR is exec's opBR: a taken backward branch that is not in a delay slot
// goes to Go when its poll state says the polling or loop code decides.
TEXT ·tBR<>(SB), NOSPLIT|NOFRAME, $0
	HOLDS(no)
	MOVL uop_imm(BX), AX
	CMPL AX, R10
	JAE taken
	LEAL 4(R10), CX
	CMPL CX, R11
	JNE taken
	MOVBLZX uop_poll(BX), CX
	CMPL CX, $const_pollWait
	JLS hand
	CMPL CX, $const_pollYes
	JEQ hand
	DECB uop_poll(BX)
taken:
	RECORD(AX)
	MOVL uop_imm(BX), DX
	DONETO(DX)
	JMP next
no:
	DONE
next:
	NEXT

TEXT ·tBT<>(SB), NOSPLIT|NOFRAME, $0
	MOVL uop_imm(BX), AX
	CMPL AX, R10
	JEQ hand // perhaps an idle loop
	RECORD(AX)
	MOVL uop_imm(BX), DX
	DONETO(DX)
	NEXT

TEXT ·tBRR<>(SB), NOSPLIT|NOFRAME, $0
	HOLDS(no)
	MOVL uop_imm(BX), AX
	ADDL R10, AX
	RECORD(AX)
	MOVL uop_imm(BX), DX
	ADDL R10, DX
	DONETO(DX)
	JMP next
no:
	DONE
next:
	NEXT

TEXT ·tJumpAdd<>(SB), NOSPLIT|NOFRAME, $0
	MOVL R10, (CPU_R+8)(SI)
	XOP
	YRR
	ADDL CX, AX
	ADDL uop_imm(BX), AX
	ANDL $~3, AX
	RECORD(AX)
	MOVL AX, DX
	DONETO(DX)
	NEXT

// FAST jumps to hand unless the access at AX (aligned to align-1) may take
// the fast path: below c.wordLimit and no SRAM cycle booked ahead.
#define FAST(mask) \
	TESTL $mask, AX; \
	JNE hand; \
	CMPL AX, CPU_wordLimit(SI); \
	JAE hand; \
	CMPQ R12, CPU_sramBooked(SI); \
	JCS hand

#define ADDRI \
	XOP; \
	ADDL uop_imm(BX), AX
#define ADDRR \
	XOP; \
	YRR; \
	ADDL CX, AX

#define LW MOVL (R9)(AX*1), CX; BSWAPL CX
#define LH MOVWLZX (R9)(AX*1), CX; ROLW $8, CX; MOVWLSX CX, CX
#define LHU MOVWLZX (R9)(AX*1), CX; ROLW $8, CX; MOVWLZX CX, CX
#define LB MOVBLSX (R9)(AX*1), CX
#define LBU MOVBLZX (R9)(AX*1), CX

#define LOAD(name, addr, mask, ld) \
TEXT name(SB), NOSPLIT|NOFRAME, $0; \
	addr; \
	FAST(mask); \
	ld; \
	MOVBLZX uop_rd(BX), DX; \
	MOVL CX, CPU_R(SI)(DX*4); \
	DONELOAD; \
	NEXT

LOAD(·tLdWI<>, ADDRI, 3, LW)
LOAD(·tLdHI<>, ADDRI, 1, LH)
LOAD(·tLdHUI<>, ADDRI, 1, LHU)
LOAD(·tLdBI<>, ADDRI, 0, LB)
LOAD(·tLdBUI<>, ADDRI, 0, LBU)
LOAD(·tLdWR<>, ADDRR, 3, LW)
LOAD(·tLdHR<>, ADDRR, 1, LH)
LOAD(·tLdHUR<>, ADDRR, 1, LHU)
LOAD(·tLdBR<>, ADDRR, 0, LB)
LOAD(·tLdBUR<>, ADDRR, 0, LBU)

// CODE jumps to hand when the store at AX lies in a chunk of SRAM holding
// predecoded code: Go forgets the word.
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

#define SW BSWAPL CX; MOVL CX, (R9)(AX*1)
#define SH ROLW $8, CX; MOVW CX, (R9)(AX*1)
#define STB MOVB CX, (R9)(AX*1)

// STOREDONE notes the store at AX of size bytes (c.storeAddr, c.storeSize, c.stores).
#define STOREDONE(size) \
	MOVL AX, CPU_storeAddr(SI); \
	MOVB $size, CPU_storeSize(SI); \
	INCQ CPU_stores(SI)

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

STORE(·tStWI<>, ADDRI, 3, SW, 4)
STORE(·tStHI<>, ADDRI, 1, SH, 2)
STORE(·tStBI<>, ADDRI, 0, STB, 1)
STORE(·tStWR<>, ADDRR, 3, SW, 4)
STORE(·tStHR<>, ADDRR, 1, SH, 2)
STORE(·tStBR<>, ADDRR, 0, STB, 1)

// The word loads and stores with a base update (rs1 is not r0, r1 or pc:
// predecode leaves those to opMem).
TEXT ·tLdWIPre<>(SB), NOSPLIT|NOFRAME, $0
	XOP
	ADDL uop_imm(BX), AX
	MOVL AX, DX
	JMP ·ldUpdate<>(SB)

TEXT ·tLdWIPost<>(SB), NOSPLIT|NOFRAME, $0
	XOP
	MOVL AX, DX
	ADDL uop_imm(BX), DX
	JMP ·ldUpdate<>(SB)

// ldUpdate loads the word at AX into R[rd], then writes DX to R[rs1].
TEXT ·ldUpdate<>(SB), NOSPLIT|NOFRAME, $0
	FAST(3)
	LW
	MOVBLZX uop_rd(BX), AX
	MOVL CX, CPU_R(SI)(AX*4)
	MOVBLZX uop_rs1(BX), AX
	MOVL DX, CPU_R(SI)(AX*4)
	DONELOAD
	NEXT

TEXT ·tStWIPre<>(SB), NOSPLIT|NOFRAME, $0
	XOP
	ADDL uop_imm(BX), AX
	FAST(3)
	CODE
	MOVBLZX uop_rd(BX), CX
	MOVL CPU_R(SI)(CX*4), CX
	SW
	STOREDONE(4)
	MOVBLZX uop_rs1(BX), CX
	MOVL AX, CPU_R(SI)(CX*4)
	DONE
	NEXT

TEXT ·tStWIPost<>(SB), NOSPLIT|NOFRAME, $0
	XOP
	FAST(3)
	CODE
	MOVBLZX uop_rd(BX), CX
	MOVL CPU_R(SI)(CX*4), CX
	SW
	STOREDONE(4)
	ADDL uop_imm(BX), AX
	MOVBLZX uop_rs1(BX), CX
	MOVL AX, CPU_R(SI)(CX*4)
	DONE
	NEXT

// tReturn is exec's opReturn, a load of the return address into pc: it
// leaves its first delay slot, where nnpc is not npc+4, to Go.
TEXT ·tReturn<>(SB), NOSPLIT|NOFRAME, $0
	XOP
	ADDL uop_imm(BX), AX
	FAST(3)
	MOVL R10, (CPU_R+8)(SI)
	MOVL (R9)(AX*1), AX
	BSWAPL AX
	ANDL $~3, AX
	RECORD(AX)
	MOVL AX, CPU_NNPC(SI)
	MOVL R11, CPU_PC(SI)
	LEAL 4(R11), AX
	MOVL AX, CPU_NPC(SI)
	COST
	MOVQ R12, CPU_Cycles(SI)
	INCQ R13
	MOVQ R13, CPU_Instret(SI)
	MOVB $const_noLoad, CPU_lastLoad(SI)
	MOVQ $const_threadedHand, 32(SP)
	RET
	NEXT

// SYNC writes the state back: c.sync(pc, npc, npc+4, cycles, instret, lastLoad).
#define SYNC \
	MOVL R10, CPU_PC(SI); \
	MOVL R11, CPU_NPC(SI); \
	LEAL 4(R11), AX; \
	MOVL AX, CPU_NNPC(SI); \
	MOVQ R12, CPU_Cycles(SI); \
	MOVQ R13, CPU_Instret(SI); \
	MOVB R14, CPU_lastLoad(SI)

// The exits return from runThreaded (whose result is at 32(SP): no
// handler moves SP).
TEXT ·threadedLimit<>(SB), NOSPLIT|NOFRAME, $0
	SYNC
	MOVQ $const_threadedLimit, 32(SP)
	RET

TEXT ·threadedHand<>(SB), NOSPLIT|NOFRAME, $0
	SYNC
	MOVQ $const_threadedHand, 32(SP)
	RET

TEXT ·threadedIO<>(SB), NOSPLIT|NOFRAME, $0
	SYNC
	MOVQ $const_threadedIO, 32(SP)
	RET

// func runThreaded(c *CPU, sram *byte, limit uint64) threadedExit
TEXT ·runThreaded(SB), NOSPLIT, $0-32
	MOVQ c+0(FP), SI
	MOVQ sram+8(FP), R9
	MOVQ limit+16(FP), R15
	MOVQ CPU_pre(SI), DI
	MOVL CPU_PC(SI), R10
	MOVL CPU_NPC(SI), R11
	MOVQ CPU_Cycles(SI), R12
	MOVQ CPU_Instret(SI), R13
	MOVBQZX CPU_lastLoad(SI), R14
	LEAQ ·threadedTable(SB), R8
	NEXT

#define SET(op, h) \
	LEAQ h(SB), AX; \
	MOVQ AX, (op*8)(DI)

// func fillThreaded(t *[opCount]uintptr)
TEXT ·fillThreaded(SB), NOSPLIT, $0-8
	MOVQ t+0(FP), DI
	LEAQ ·threadedHand<>(SB), AX
	MOVQ $const_opCount, CX
all:
	MOVQ AX, -8(DI)(CX*8)
	DECQ CX
	JNE all
	SET(const_opNop, ·tNop<>)
	SET(const_opSel, ·tSel<>)
	SET(const_opSCC, ·tSCC<>)
	SET(const_opBR, ·tBR<>)
	SET(const_opBT, ·tBT<>)
	SET(const_opBRR, ·tBRR<>)
	SET(const_opJumpAdd, ·tJumpAdd<>)
	SET(const_opReturn, ·tReturn<>)
	SET(const_opLoadIO, ·threadedIO<>)
	SET(const_opStoreIO, ·threadedIO<>)
	SET(const_opAddRI, ·tAddRI<>)
	SET(const_opAddRIF, ·tAddRIF<>)
	SET(const_opAddRR, ·tAddRR<>)
	SET(const_opAddRRF, ·tAddRRF<>)
	SET(const_opAddRRC, ·tAddRRC<>)
	SET(const_opSubRI, ·tSubRI<>)
	SET(const_opSubRIF, ·tSubRIF<>)
	SET(const_opSubRR, ·tSubRR<>)
	SET(const_opSubRRF, ·tSubRRF<>)
	SET(const_opSubRRC, ·tSubRRC<>)
	SET(const_opAndRI, ·tAndRI<>)
	SET(const_opAndRIF, ·tAndRIF<>)
	SET(const_opAndRR, ·tAndRR<>)
	SET(const_opAndRRF, ·tAndRRF<>)
	SET(const_opAndRRC, ·tAndRRC<>)
	SET(const_opOrRI, ·tOrRI<>)
	SET(const_opOrRIF, ·tOrRIF<>)
	SET(const_opOrRR, ·tOrRR<>)
	SET(const_opOrRRF, ·tOrRRF<>)
	SET(const_opOrRRC, ·tOrRRC<>)
	SET(const_opXorRI, ·tXorRI<>)
	SET(const_opXorRIF, ·tXorRIF<>)
	SET(const_opXorRR, ·tXorRR<>)
	SET(const_opXorRRF, ·tXorRRF<>)
	SET(const_opXorRRC, ·tXorRRC<>)
	SET(const_opShRI, ·tShRI<>)
	SET(const_opShRR, ·tShRR<>)
	SET(const_opShaRI, ·tShaRI<>)
	SET(const_opShaRR, ·tShaRR<>)
	SET(const_opLdWI, ·tLdWI<>)
	SET(const_opLdHI, ·tLdHI<>)
	SET(const_opLdHUI, ·tLdHUI<>)
	SET(const_opLdBI, ·tLdBI<>)
	SET(const_opLdBUI, ·tLdBUI<>)
	SET(const_opLdWR, ·tLdWR<>)
	SET(const_opLdHR, ·tLdHR<>)
	SET(const_opLdHUR, ·tLdHUR<>)
	SET(const_opLdBR, ·tLdBR<>)
	SET(const_opLdBUR, ·tLdBUR<>)
	SET(const_opLdWIPre, ·tLdWIPre<>)
	SET(const_opLdWIPost, ·tLdWIPost<>)
	SET(const_opStWI, ·tStWI<>)
	SET(const_opStHI, ·tStHI<>)
	SET(const_opStBI, ·tStBI<>)
	SET(const_opStWR, ·tStWR<>)
	SET(const_opStHR, ·tStHR<>)
	SET(const_opStBR, ·tStBR<>)
	SET(const_opStWIPre, ·tStWIPre<>)
	SET(const_opStWIPost, ·tStWIPost<>)
	RET
