! irq.s - ISR, EIMR and the host interrupt line, with a host model in the
! test: the firmware enables HOST_SIG in EIMR and raises HOST_SIG (the host
! interrupt line goes up); the host answers by clearing HOST_SIG and setting
! LANAI_SIG; the firmware waits for LANAI_SIG, clears it, and exits with the
! ISR it then reads (expected 0).

	.set	ISR, -432
	.set	EIMR, -424
	.set	EXIT, -4096

	.text
	.globl	_start
_start:
	mov	0xffffffff, %r9
	st	%r9, ISR[%r0]		! clear every event bit; sets HOST_SIG (a
	mov	0x40000000, %r9		!  LANai write of 1 sets it)
	st	%r9, EIMR[%r0]		! EIMR = HOST_SIG: the interrupt line rises
	mov	0x20000000, %r10	! LANAI_SIG
1:	ld	ISR[%r0], %r7
	and	%r7, %r10, %r7
	sub.f	%r7, 0, %r0
	beq	1b
	nop
	st	%r10, ISR[%r0]		! clear LANAI_SIG
	nop
	ld	ISR[%r0], %r6
	st	%r6, EXIT[%r0]
	bt	.
	nop
