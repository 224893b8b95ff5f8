//go:build amd64 && !purego

#include "run_amd64.h"


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

// tReturn is exec's opReturn, a load of the return address into pc,
// which has two delay slots: after it nnpc is the address loaded, not
// npc+4. A compiled function's first slot is "add %fp, 0, %sp" (LLVM's
// epilogue): an add of an immediate (opAddRI, which reads no pc) there
// runs here, after which nnpc is npc+4 again. Any other first slot, or
// the limit reached, leaves the state after the return to Go, which runs
// the slot (the Go loop hands both slots' first to execSlow).
TEXT ·tReturn<>(SB), NOSPLIT|NOFRAME, $0
	XOP
	ADDL uop_imm(BX), AX
	FAST(3)
	MOVL R10, (CPU_R+8)(SI)
	MOVL (R9)(AX*1), AX
	BSWAPL AX
	ANDL $~3, AX
	RECORD(AX)
	MOVL AX, DX // the address loaded, the slots' nnpc
	COST
	MOVQ $const_noLoad, R14
	MOVL R11, R10
	ADDL $4, R11
	INCQ R13
	CMPQ R12, R15
	JAE slot
	MOVL R10, AX
	SHRL $2, AX
	CMPQ AX, CPU_pre+8(SI)
	JAE slot
	SHLQ $4, AX
	LEAQ (DI)(AX*1), BX
	CMPB uop_op(BX), $const_opAddRI
	JNE slot
	XOP
	ADDL uop_imm(BX), AX
	SETRD
	COST
	MOVL R11, R10
	MOVL DX, R11
	INCQ R13
	NEXT
slot: // Go runs the first slot
	MOVL R10, CPU_PC(SI)
	MOVL R11, CPU_NPC(SI)
	MOVL DX, CPU_NNPC(SI)
	MOVQ R12, CPU_Cycles(SI)
	MOVQ R13, CPU_Instret(SI)
	MOVB R14, CPU_lastLoad(SI)
	MOVB R8, CPU_Flags(SI)
	MOVQ $const_threadedHand, 32(SP)
	RET

EXITS

TEXT ·threadedIO<>(SB), NOSPLIT|NOFRAME, $0
	SYNC
	MOVQ $const_threadedIO, 32(SP)
	RET

// func runThreaded(c *CPU, sram *byte, limit uint64) threadedExit
TEXT ·runThreaded(SB), NOSPLIT, $0-32
	MOVQ c+0(FP), SI
	MOVQ sram+8(FP), R9
	MOVQ CPU_pre(SI), DI
	MOVL CPU_PC(SI), R10
	MOVL CPU_NPC(SI), R11
	MOVQ limit+16(FP), R15
	MOVQ CPU_Cycles(SI), R12
	MOVQ CPU_Instret(SI), R13
	MOVBQZX CPU_lastLoad(SI), R14
	MOVBLZX CPU_Flags(SI), R8
	NEXT

// func fillThreadedHand(t *[opCount]uintptr)
TEXT ·fillThreadedHand(SB), NOSPLIT, $0-8
	MOVQ t+0(FP), DI
	LEAQ ·threadedHand<>(SB), AX
	MOVQ $const_opCount, CX
all: // every op hands its instruction to Go, but those set here and in fillThreadedGen
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
	RET
