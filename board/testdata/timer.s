! timer.s - program IT0, poll ISR until TIME0, clear it, exit with the RTC.
!
! RTC is zeroed and IT0 loaded with 10 in the same 0.5 us tick, so TIME0
! comes exactly 10 ticks after the RTC restarted and the program exits
! with 10 (the RTC read follows the poll by far less than a tick).

	.set	ISR, -432		! 0xFFFFFE50
	.set	IT0, -416		! 0xFFFFFE60
	.set	RTC, -408		! 0xFFFFFE68
	.set	EXIT, -4096		! simulation control
	.set	TIME0, 0x40

	.text
	.globl	_start
_start:
	st	%r0, RTC[%r0]		! RTC = 0
	mov	10, %r6
	st	%r6, IT0[%r0]		! IT0 = 10 ticks = 5 us
	mov	TIME0, %r9
	nop				! ISR barrier
.Lwait:
	ld	ISR[%r0], %r7
	and	%r7, %r9, %r7
	sub.f	%r7, 0, %r0
	beq	.Lwait
	nop
	st	%r9, ISR[%r0]		! write 1 to clear TIME0
	nop				! ISR barrier
	ld	ISR[%r0], %r7
	and	%r7, %r9, %r7
	sub.f	%r7, 0, %r0
	bne	.Lfail			! TIME0 must be clear now
	nop
	ld	RTC[%r0], %r6
	st	%r6, EXIT[%r0]
	bt	.
	nop
.Lfail:
	mov	0xdead, %r6
	st	%r6, EXIT[%r0]
	bt	.
	nop
