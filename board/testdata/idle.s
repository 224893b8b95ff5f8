! idle.s - a board idling 10 simulated seconds in an ISR polling loop:
! IT0 = 20,000,000 ticks, poll ISR until TIME0, exit with the RTC (zeroed
! in the same tick, so the exit code is 20000000). The core skips the
! polling loop up to the timer's event (docs/hardware.md, "Idle loops").

	.set	ISR, -432
	.set	IT0, -416
	.set	RTC, -408
	.set	EXIT, -4096

	.text
	.globl	_start
_start:
	st	%r0, RTC[%r0]
	mov	hi(20000000), %r6
	or	%r6, lo(20000000), %r6
	st	%r6, IT0[%r0]
	mov	0x40, %r9
.Lwait:
	ld	ISR[%r0], %r7
	and	%r7, %r9, %r7
	sub.f	%r7, 0, %r0
	beq	.Lwait
	nop
	ld	RTC[%r0], %r6
	st	%r6, EXIT[%r0]
	bt	.
	nop
