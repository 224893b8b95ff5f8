! dma9.s - lanai9.inc at work, run on the emulated board by firmware/crt's
! TestLanai9Asm: a round trip through host memory by the host-DMA engine.
! One descriptor on channel 2 copies LEN bytes from host address SRC into
! SRAM (buf), one on channel 0 copies them back out to host address DST;
! each raises WAKE0_INT when done. IT1 guards each wait: a DMA that takes
! longer than 1 ms exits 0x71; a DMA fault (MEM_INT) exits 0xbad.
! Otherwise the program exits with csum1 of the first descriptor as the
! engine wrote it back: the ones'-complement sum of the bytes moved.
!
!   lanai-as -I firmware/crt -o dma9.elf firmware/crt/testdata/dma9.s
	.include "lanai9.inc"

	.set	LEN, 1000
	.set	SRC, 0x100		! host bus addresses (the test's host memory)
	.set	DST, 0x8000
	.set	TIMEOUT, 2000		! IT1 ticks: 1 ms at 2 MHz

! wait: poll ISR for WAKE0_INT, exit on MEM_INT or TIME1_INT, then clear
! WAKE0_INT. r10 holds WAKE0_INT, r11 MEM_INT | TIME1_INT, r12 TIME1_INT.
	.macro	wait
	mov	TIMEOUT, %r6
	st	%r6, IT1[%r0]
	nop				! ISR barrier after a special-register store
1:	ld	ISR[%r0], %r7
	and.f	%r7, %r11, %r0
	bne	fail
	and.f	%r7, %r10, %r0		! (delay slot)
	beq	1b
	nop
	st	%r10, ISR[%r0]		! write 1 to clear WAKE0_INT
	.endm

	.text
	.globl	_start
_start:
	mov	ISR_WAKE0_INT, %r10
	mov	ISR_MEM_INT | ISR_TIME1_INT, %r11
	mov	ISR_TIME1_INT, %r12
	mov	in, %r9
	st	%r9, DMAPTR2[%r0]	! channel 2 starts at "in"
	mov	PULSE_CH2, %r9
	st	%r9, PULSE[%r0]
	wait
	mov	out, %r9
	st	%r9, DMAPTR0[%r0]	! channel 0 starts at "out"
	mov	PULSE_CH0, %r9
	st	%r9, PULSE[%r0]
	wait
	mov	in, %r9
	ld	DESC_CSUM0[%r9], %r6	! csum0 and csum1 in one word
	and	%r6, 0xffff, %r6	! csum1
	st	%r6, SIM_EXIT[%r0]
	bt	.
	nop
fail:
	and.f	%r7, %r12, %r0
	bne	1f			! TIME1_INT: the timeout
	mov	0x71, %r6		! (delay slot)
	mov	0xbad, %r6		! MEM_INT: a DMA fault
1:	st	%r6, SIM_EXIT[%r0]
	bt	.
	nop

! desc label, next, flags, sram, host: a descriptor, laid out by the DESC_
! offsets (eah = 0: host memory below 4 GiB).
	.macro	desc next, flags, sram, host
	.p2align 3
	.long	(\next) + (\flags)	! DESC_NEXT
	.short	0, 0			! DESC_CSUM0, DESC_CSUM1
	.long	LEN			! DESC_LEN
	.long	\sram			! DESC_LAR
	.long	0			! DESC_EAH
	.long	\host			! DESC_EAL
	.endm

	.data
in:	desc	stop, DESC_E2L | DESC_WAKE, buf, SRC
out:	desc	stop, DESC_WAKE, buf, DST
stop:	desc	0, DESC_TERMINAL, 0, 0
	.if	stop - out - DESC_SIZE		! (a "!" starts a comment: no != here)
	.error	"a descriptor is not DESC_SIZE bytes"
	.endif

	.bss
	.p2align 3
buf:	.zero	LEN
