! cplant.s - Cplant's host->LANai DMA ring (lanai9-hw.md 5.3): two
! descriptors d[0], d[1]; for each transfer on toggle t the firmware makes
! d[1-t] terminal, fills d[t], points it at d[1-t] with TERMINAL clear,
! pulses channel 2 and polls d[t].next for the TERMINAL bit the engine
! writes back. Three transfers of 512 bytes from host offsets 0, 512, 1024
! to buf; exits with the CPUC cycle at which the last one was seen done.

	.set	PULSE, -328
	.set	CPUC, -392
	.set	CH2, -3832
	.set	EXIT, -4096

	.text
	.globl	_start
_start:
	mov	ring, %r20		! d[0]
	add	%r20, 24, %r21		! d[1]
	st	%r20, CH2[%r0]		! the host would have done this
	mov	buf, %r22		! SRAM destination
	mov	0, %r23			! host offset
	mov	3, %r24			! transfers left
	mov	2, %r9			! TERMINAL
.Lnext:
	mov	3, %r7			! E2L | TERMINAL, next = 0
	st	%r7, 0[%r21]		! d[1-t].next
	mov	512, %r7
	st	%r7, 8[%r20]		! len
	st	%r22, 12[%r20]		! lar
	mov	1, %r7
	st	%r7, 16[%r20]		! eah
	st	%r23, 20[%r20]		! eal
	or	%r21, 5, %r7		! &d[1-t] | E2L | WAKE
	st	%r7, 0[%r20]
	mov	4, %r7
	st	%r7, PULSE[%r0]
	nop				! ISR barrier
1:	ld	0[%r20], %r7		! poll the TERMINAL write-back
	and	%r7, %r9, %r7
	sub.f	%r7, 0, %r0
	beq	1b
	nop
	add	%r22, 512, %r22
	add	%r23, 512, %r23
	or	%r20, 0, %r7		! swap d[t] and d[1-t]
	or	%r21, 0, %r20
	sub.f	%r24, 1, %r24
	bne	.Lnext
	or	%r7, 0, %r21		! (delay slot)
	ld	CPUC[%r0], %r6
	st	%r6, EXIT[%r0]
	bt	.
	nop

	.data
	.p2align 3
ring:	.zero	48
buf:	.zero	1536
