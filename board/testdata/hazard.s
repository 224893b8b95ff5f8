! hazard.s - the special-register write hazard: an ISR read in the
! instruction right after a store to a special register does not see the
! ISR change the store made; one instruction later it does.
!
! Exit code bits (all expected set = 0x3F):
!   0x01 the read right after setting HOST_SIG does not see it
!   0x02 a read two instructions after the store sees it
!   0x04 after the LANai writes HOST_SIG again it still reads set (a LANai
!        write of 1 sets HOST_SIG; only the host clears it)
!   0x08 with TIME0 set, the read right after the clearing store still sees TIME0
!   0x10 one instruction later TIME0 reads clear
!   0x20 an unrelated special-register store (LED) right before an ISR read
!        hides nothing

	.set	ISR, -432
	.set	IT0, -416
	.set	LED, -192
	.set	EXIT, -4096

	.text
	.globl	_start
_start:
	mov	0, %r20			! result bits
	mov	0x40000000, %r9		! HOST_SIG
	st	%r9, ISR[%r0]		! set HOST_SIG
	ld	ISR[%r0], %r10		! the next instruction: old ISR
	nop
	ld	ISR[%r0], %r11		! two instructions later: new ISR
	and	%r10, %r9, %r10
	sub.f	%r10, 0, %r0
	bne	1f
	nop
	or	%r20, 0x1, %r20
1:	and	%r11, %r9, %r11
	sub.f	%r11, 0, %r0
	beq	1f
	nop
	or	%r20, 0x2, %r20
1:	st	%r9, ISR[%r0]		! LANai writes of HOST_SIG only set it
	nop
	ld	ISR[%r0], %r10
	and	%r10, %r9, %r10
	sub.f	%r10, 0, %r0
	beq	1f
	nop
	or	%r20, 0x4, %r20
1:	mov	1, %r6			! TIME0 after one tick
	st	%r6, IT0[%r0]
	mov	0x40, %r12		! TIME0
2:	ld	ISR[%r0], %r7
	and	%r7, %r12, %r7
	sub.f	%r7, 0, %r0
	beq	2b
	nop
	st	%r12, ISR[%r0]		! clear TIME0
	ld	ISR[%r0], %r10		! still sees it
	ld	ISR[%r0], %r11		! clear
	and	%r10, %r12, %r10
	sub.f	%r10, 0, %r0
	beq	1f
	nop
	or	%r20, 0x8, %r20
1:	and	%r11, %r12, %r11
	sub.f	%r11, 0, %r0
	bne	1f
	nop
	or	%r20, 0x10, %r20
1:	mov	1, %r6
	st	%r6, LED[%r0]
	ld	ISR[%r0], %r10		! HOST_SIG is still set and visible
	and	%r10, %r9, %r10
	sub.f	%r10, 0, %r0
	beq	1f
	nop
	or	%r20, 0x20, %r20
1:	st	%r20, EXIT[%r0]
	bt	.
	nop
