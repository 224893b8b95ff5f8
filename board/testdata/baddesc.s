! baddesc.s - start channel 2 at the descriptor pointer stored in `head`
! (the test fills `head` and `descs`), wait for WAKE0 or MEM_INT, and exit
! with the ISR bits seen.

	.set	ISR, -432
	.set	PULSE, -328
	.set	CH2, -3832
	.set	EXIT, -4096

	.text
	.globl	_start
_start:
	mov	head, %r9
	ld	0[%r9], %r9
	st	%r9, CH2[%r0]
	mov	4, %r9
	st	%r9, PULSE[%r0]
	nop
	mov	0x5000, %r10		! WAKE0 | MEM_INT
1:	ld	ISR[%r0], %r7
	and	%r7, %r10, %r7
	sub.f	%r7, 0, %r0
	beq	1b
	nop
	st	%r7, EXIT[%r0]
	bt	.
	nop

	.data
	.p2align 3
	.globl	head, descs
head:	.long	descs
	.p2align 3
descs:	.zero	24*8
	.globl	buf
buf:	.zero	256
