! harness.s - calls one of Myricom's lanai-gcc 2.95 libgcc routines on every
! record of a table, by lanai-gcc's calling convention (docs/runtime.md),
! and stores what it returns. The Go test (libgcc_test.go) links this with
! libgcc.a, writes the table after _end, points `routine`, `cursor` and
! `limit` at it, runs the image and reads the results back.
!
! A record is 10 words: the argument words a0..a4 (64-bit values high word
! first, as lanai-gcc lays them out), the results rv and r9 (the high and
! low words of a 64-bit result), and three spare words (__udivmoddi4's
! remainder pointer points at two of them).
!
! lanai-gcc's convention, as its code shows: the caller stores argument word
! i at i*4[%sp], pushes the return address (sp -= 4) and branches; the
! callee's fp is the caller's sp, so it reads argument i at i*4[%fp]; it
! returns in rv (and r9) with sp and fp restored and every other register
! clobbered. So the loop keeps its state in memory, not in registers.

	.text
	.p2align	2
	.globl	_start
_start:
	mov	hi(__stack_top), %sp
	or	%sp, lo(__stack_top), %sp
	and	%sp, 0xfffffff8, %sp
	or	%sp, 0x0, %fp
	sub	%sp, 0x20, %sp		! the outgoing argument area
next:
	ld	[cursor], %r12
	ld	[limit], %r13
	sub.f	%r12, %r13, %r0
	beq	done
	nop
	ld	0[%r12], %r14		! copy the five argument words
	st	%r14, 0[%sp]
	ld	4[%r12], %r14
	st	%r14, 4[%sp]
	ld	8[%r12], %r14
	st	%r14, 8[%sp]
	ld	12[%r12], %r14
	st	%r14, 12[%sp]
	ld	16[%r12], %r14
	st	%r14, 16[%sp]
	ld	[routine], %r14
	add	%pc, 0x10, %rca		! return address: 16 bytes on
	st	%rca, [--%sp]		! pushed, as lanai-gcc's calls do
	add	%r14, 0x0, %pc		! call the routine
	nop
	ld	[cursor], %r12		! back here, with sp restored
	st	%rv, 20[%r12]
	st	%r9, 24[%r12]
	add	%r12, 0x28, %r12
	st	%r12, [cursor]
	bt	next
	nop
done:
	st	%r0, -4096[%r0]		! simulation-control EXIT with 0
	bt	.
	nop

	.data
	.p2align	2
	.globl	routine, cursor, limit
routine:
	.long	0
cursor:
	.long	0
limit:
	.long	0
! The routines the test calls: referring to them makes the linker take
! their members from libgcc.a. Names are lanai-gcc's (C name with '_').
routines:
	.long	___mulsi3, ___divsi3, ___udivsi3, ___modsi3, ___umodsi3
	.long	___muldi3, ___divdi3, ___udivdi3, ___moddi3, ___umoddi3, ___udivmoddi4
	.long	___ashldi3, ___ashrdi3, ___lshrdi3, ___negdi2, ___cmpdi2, ___ucmpdi2
