	.text
	.file	"it0.c"
	.globl	main                            ! -- Begin function main
	.p2align	2
	.type	main,@function
main:                                   ! @main
! %bb.0:
	st	%fp, [--%sp]
	add	%sp, 0x8, %fp
	sub	%sp, 0x20, %sp
	st	%r0, -408[%r0]
	mov	0x19, %r3
	st	%r3, -416[%r0]
	ld	-4088[%r0], %r3
	mov	0x40, %r9
.LBB0_1:                                ! =>This Inner Loop Header: Depth=1
	ld	-432[%r0], %r12
	and.f	%r12, %r9, %r12
	beq	.LBB0_1
	nop
.LBB0_2:
	ld	-408[%r0], %r14
	ld	-4088[%r0], %r9
	mov	0x40, %r12
	st	%r12, -432[%r0]
	!APP
	nop

	!NO_APP
	ld	-432[%r0], %r13
	and.f	%r13, %r12, %r12
	bne	.LBB0_8
	mov	0xdead, %rv
.LBB0_3:
	st	%r14, -32[%fp]
	or	%r0, 0x0, %r12
	mov	0x77, %r13
	st	%r13, -4092[%r0]
	mov	0x61, %r13
	st	%r13, -4092[%r0]
	mov	0x69, %r13
	st	%r13, -4092[%r0]
	mov	0x74, %r13
	st	%r13, -4092[%r0]
	mov	0x65, %r13
	st	%r13, -4092[%r0]
	mov	0x64, %r13
	st	%r13, -4092[%r0]
	mov	0x20, %r13
	st	%r13, -4092[%r0]
	sub	%r9, %r3, %rv
.LBB0_4:                                ! =>This Inner Loop Header: Depth=1
	st	%r12, -24[%fp]
	mov	0xa, %r7
	or	%rv, 0x0, %r6
	add	%pc, 0x10, %rca
	st	%rca, [--%sp]
	bt	__udivsi3
	st	%r6, -28[%fp]
	sh	%rv, 0x1, %r3
	sh	%rv, 0x3, %r9
	add	%r9, %r3, %r3
	ld	-28[%fp], %r14
	sub	%r14, %r3, %r3
	or	%r3, 0x30, %r3
	ld	-24[%fp], %r13
	add	%r13, 0x1, %r12
	sub	%fp, 0x12, %r9
	sub.f	%r14, 0x9, %r0
	bugt	.LBB0_4
	st.b	%r3, [%r9 add %r13]
.LBB0_5:
	sub	%r12, 0x1, %r3
.LBB0_6:                                ! =>This Inner Loop Header: Depth=1
	sub	%fp, 0x12, %r9
	uld.b	[%r9 add %r3], %r9
	add	%r3, 0x1, %r12
	sub	%r3, 0x1, %r3
	sub.f	%r12, 0x1, %r0
	bgt	.LBB0_6
	st	%r9, -4092[%r0]
.LBB0_7:
	mov	0x20, %r3
	st	%r3, -4092[%r0]
	mov	0x63, %r3
	st	%r3, -4092[%r0]
	mov	0x79, %r9
	st	%r9, -4092[%r0]
	st	%r3, -4092[%r0]
	mov	0x6c, %r3
	st	%r3, -4092[%r0]
	mov	0x65, %r3
	st	%r3, -4092[%r0]
	mov	0x73, %r3
	st	%r3, -4092[%r0]
	mov	0xa, %r3
	st	%r3, -4092[%r0]
	ld	-32[%fp], %rv
.LBB0_8:
	ld	-4[%fp], %pc ! return
	add	%fp, 0x0, %sp
	ld	-8[%fp], %fp
.Lfunc_end0:
	.size	main, .Lfunc_end0-main
                                        ! -- End function
	.ident	"Debian clang version 14.0.6"
	.section	".note.GNU-stack","",@progbits
	.addrsig
