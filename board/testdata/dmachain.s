! dmachain.s - a chain of 12 host->SRAM descriptors gathers pieces of host
! memory (odd lengths, odd host addresses, gaps) into one SRAM buffer; a
! chain of 5 SRAM->host descriptors scatters the buffer back to host memory
! in different pieces. Only the last descriptor of each chain has WAKE. The
! firmware then adds up the engine's address-aligned checksums (csum[1]) of
! the 12 gathered blocks with ones'-complement arithmetic and exits with the
! folded sum: the checksum of the whole buffer (it starts 8-byte aligned).
! A DMA fault (MEM_INT) exits with 0xbad.
!
! Host memory (the test's) is at bus address 0x1_0000_0000: the source
! pieces at offsets 0..6538, the destination at offset 0x8001.

	.set	ISR, -432
	.set	PULSE, -328
	.set	CH0, -3840		! DMA channel pointers (board extension)
	.set	CH2, -3832
	.set	EXIT, -4096
	.set	E2L, 1
	.set	TERMINAL, 2
	.set	WAKE, 4

! desc next, flags, len, lar, host offset: one 24-byte descriptor
	.macro	desc next, flags, len, lar, off
	.long	\next + \flags
	.short	0, 0
	.long	\len
	.long	\lar
	.long	1			! eah: host memory is above 4 GiB
	.long	\off
	.endm

! waitdma: poll ISR for WAKE0 or MEM_INT, clear what was seen, exit with
! 0xbad on MEM_INT.
	.macro	waitdma
1:	ld	ISR[%r0], %r7
	and	%r7, %r10, %r7
	sub.f	%r7, 0, %r0
	beq	1b
	nop
	st	%r7, ISR[%r0]
	and	%r7, %r11, %r7
	sub.f	%r7, 0, %r0
	bne	fail
	nop
	.endm

	.text
	.globl	_start
_start:
	mov	0x5000, %r10		! WAKE0 | MEM_INT
	mov	0x4000, %r11		! MEM_INT
	mov	e2l0, %r9
	st	%r9, CH2[%r0]
	mov	4, %r9
	st	%r9, PULSE[%r0]		! start channel 2
	nop
	waitdma
	mov	l2e0, %r9
	st	%r9, CH0[%r0]
	mov	2, %r9
	st	%r9, PULSE[%r0]		! start channel 0
	nop
	waitdma

	! Sum csum[1] (the low half of word 1) of the 12 gathered blocks.
	mov	e2l0, %r12
	mov	12, %r13
	mov	0, %r14
	mov	0xffff, %r16
2:	ld	4[%r12], %r15
	and	%r15, %r16, %r15
	add	%r14, %r15, %r14
	sub.f	%r13, 1, %r13
	bne	2b
	add	%r12, 24, %r12		! (delay slot) next descriptor
3:	sh	%r14, -16, %r15		! fold the carries back in
	and	%r14, %r16, %r14
	add	%r14, %r15, %r14
	sh	%r14, -16, %r15
	sub.f	%r15, 0, %r0
	bne	3b
	nop
	st	%r14, EXIT[%r0]
	bt	.
	nop
fail:
	mov	0xbad, %r6
	st	%r6, EXIT[%r0]
	bt	.
	nop

	.data
	.p2align 3
! Gather: piece i has length len_i, lands at buf + cum_i, and comes from
! host offset cum_i + 3*i.
e2l0:	desc	e2l0+24*1,  E2L, 1,    buf+0,    0
	desc	e2l0+24*2,  E2L, 7,    buf+1,    4
	desc	e2l0+24*3,  E2L, 256,  buf+8,    14
	desc	e2l0+24*4,  E2L, 255,  buf+264,  273
	desc	e2l0+24*5,  E2L, 513,  buf+519,  531
	desc	e2l0+24*6,  E2L, 4096, buf+1032, 1047
	desc	e2l0+24*7,  E2L, 3,    buf+5128, 5146
	desc	e2l0+24*8,  E2L, 1000, buf+5131, 5152
	desc	e2l0+24*9,  E2L, 64,   buf+6131, 6155
	desc	e2l0+24*10, E2L, 2,    buf+6195, 6222
	desc	e2l0+24*11, E2L, 300,  buf+6197, 6227
	desc	e2lend,     E2L+WAKE, 8, buf+6497, 6530
e2lend:	desc	0, E2L+TERMINAL, 0, 0, 0
! Scatter: 100 + 2049 + 1 + 4000 + 355 = 6505 bytes to host 0x8001.
l2e0:	desc	l2e0+24*1,  0, 100,  buf+0,    0x8001+0
	desc	l2e0+24*2,  0, 2049, buf+100,  0x8001+100
	desc	l2e0+24*3,  0, 1,    buf+2149, 0x8001+2149
	desc	l2e0+24*4,  0, 4000, buf+2150, 0x8001+2150
	desc	l2eend,     WAKE, 355, buf+6150, 0x8001+6150
l2eend:	desc	0, TERMINAL, 0, 0, 0

	.bss
	.p2align 3
buf:	.zero	6512
