! linkerr.s - the link error bits of ISR as firmware sees them. The program
! writes MYRINET and EIMR from the words myrinet and eimr, arms a receive
! buffer of bufsize bytes at rxbuf (none if bufsize is 0), waits until ISR
! has a bit of want, keeps that ISR in seen, writes clear to ISR (1s clear
! latched bits, level bits stay), keeps the ISR it then reads in after,
! waits until ISR has no bit of gone left, and exits with seen.
	.include "../../firmware/crt/lanai9.inc"	! the board's registers (docs/runtime.md)

	.data
	.align	8
	.globl	myrinet, eimr, bufsize, want, clear, gone, seen, after, rxbuf
myrinet: .word	0
eimr:	.word	0
bufsize: .word	0
want:	.word	0
clear:	.word	0
gone:	.word	0
seen:	.word	0
after:	.word	0
	.align	8
rxbuf:	.zero	1024

	.text
	.globl	_start
_start:
	mov	hi(myrinet), %r16
	or	%r16, lo(myrinet), %r16
	ld	0[%r16], %r7
	st	%r7, MYRINET[%r0]
	ld	4[%r16], %r7
	st	%r7, EIMR[%r0]
	ld	8[%r16], %r18		! bufsize
	ld	12[%r16], %r19		! want
	ld	16[%r16], %r20		! clear
	ld	20[%r16], %r21		! gone
	sub.f	%r18, 0, %r0
	beq	.Lwait
	nop
	mov	hi(rxbuf), %r11
	or	%r11, lo(rxbuf), %r11
	st	%r11, RMP[%r0]
	add	%r11, %r18, %r12
	st	%r12, RML[%r0]
	nop				! ISR barrier
.Lwait:	ld	ISR[%r0], %r7
	and	%r7, %r19, %r8
	sub.f	%r8, 0, %r0
	beq	.Lwait
	nop
	st	%r7, 24[%r16]		! seen
	st	%r20, ISR[%r0]		! write 1s to clear
	nop				! ISR barrier
	ld	ISR[%r0], %r6
	st	%r6, 28[%r16]		! after
.Lgone:	ld	ISR[%r0], %r6
	and	%r6, %r21, %r6
	sub.f	%r6, 0, %r0
	bne	.Lgone
	nop
	st	%r7, SIM_EXIT[%r0]
	bt	.
	nop
