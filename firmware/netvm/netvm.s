! netvm.s - NetVM firmware for the LANai 9.2, first slice.
!
! Implements (docs/netvm.md): the boot handshake (§2.1), the main polling
! loop (kernel ring, then one slot of every open endpoint ring, then the
! receive engine; GM-style dispatch, lanai9-hw.md §8.1), the kernel
! commands EP_OPEN, EXPORT, IMPORT, SPT_MAP (§3.3), the user WRITE (§3.2,
! §5.1, §5.2) for resident source pages, and the receiver (§5.4) for
! resident destination pages, with the counter notification (§9).
!
! SIMPLIFIED in this first slice [ours, temporary]; each is marked
! "SLICE:" where it happens:
!   - everything is synchronous: one send buffer (SendBufBase), one
!     packet in flight, every host DMA waited for (no overlap, §5.2);
!   - no ACK/NACK, no retransmission, no credits (§7, §8): the receiver
!     accepts only the packet equal to its window base and drops others;
!   - a missing/non-resident source page completes the WRITE with
!     StatusSrcFault at once (no parking, no EvSrcFault, §5.2);
!   - a destination page that fails the §4.3 test is dropped (no
!     redirection into the system buffer, §5.4 step 4);
!   - receiver-side check failures drop the packet (no NACK);
!   - the counter is applied at once (valid here: in-order, no redirects);
!     CTR_ARM, events, interrupts (other than the boot HOST_SIG) are not
!     implemented; unknown/unimplemented opcodes complete with BadCmd.
!
! Register conventions (used by every file of this firmware):
!   r6-r14   arguments and scratch of helpers (clobbered by any CALL)
!   r16-r25  state of a command/packet handler (helpers preserve them)
!   r26-r28  main loop
!   r15 (rca) return address; sp (r4) the stack, from NVM_FW_STACK_TOP.
! A routine is entered with CALL (return address in rca) and left with
! RET; a routine that calls another pushes rca first.

	.include "abi.inc"

! ---- LANai special registers (docs/hardware.md, docs/links.md):
! offsets from 0 as sign-extended 16-bit r0-relative addresses.
	.set	ISR, -432		! 0xFFFFFE50 interrupt status
	.set	RTC, -408		! 0xFFFFFE68 real-time clock
	.set	PULSE, -328		! 0xFFFFFEB8 start DMA channels
	.set	RMP, -288		! 0xFFFFFEE0 receive pointer
	.set	RML, -280		! 0xFFFFFEE8 receive limit
	.set	SMP, -272		! 0xFFFFFEF0 send pointer
	.set	SMLT, -248		! 0xFFFFFF08 send limit, close packet
	.set	SA, -232		! 0xFFFFFF18 send first-byte offset
	.set	MYRINET, -208		! 0xFFFFFF30 link control
	.set	DMAPTR0, -3840		! 0xFFFFF100 channel 0 pointer (emulator extension)
	.set	DMAPTR2, -3832		! 0xFFFFF108 channel 2 pointer
! ISR bits
	.set	ISR_SEND_INT, 8		! bit 3: send engine idle (level)
	.set	ISR_RECV_INT, 2		! bit 1: a packet was received (level)
	.set	ISR_BUFF_INT, 4		! bit 2: a packet overflowed the buffer (level)
! PULSE bits
	.set	PULSE_CH0, 2		! bit 1 starts channel 0 (SRAM -> host, Cplant's use)
	.set	PULSE_CH2, 4		! bit 2 starts channel 2 (host -> SRAM)
! Host DMA descriptor (docs/hardware.md "Descriptors")
	.set	DESC_NEXT, 0		! next | WAKE | TERMINAL | E2L
	.set	DESC_LEN, 8
	.set	DESC_LAR, 12		! SRAM address
	.set	DESC_EAH, 16		! host address bits 63..32
	.set	DESC_EAL, 20		! host address bits 31..0
	.set	DESC_STRIDE, 32		! our spacing of descriptors in DMADescBase
	.set	DESC_E2L, 1		! host -> SRAM
	.set	DESC_TERMINAL, 2
	.set	DIR_TO_HOST, 0		! dma_sync direction: SRAM -> host (channel 0)
	.set	DIR_FROM_HOST, DESC_E2L	! host -> SRAM (channel 2)
	.set	DESC_TO_HOST, NVM_DMA_DESC_BASE
	.set	DESC_FROM_HOST, NVM_DMA_DESC_BASE + DESC_STRIDE

! ---- private layout
	.set	SPT_ENTRY_SHIFT, 4	! log2(NVM_SPT_ENTRY_SIZE)
	.set	EP_STATE_SHIFT, 8	! log2(NVM_EP_STATE_SIZE)
	.set	EP_RING_SHIFT, 12	! log2(NVM_EP_RING_STRIDE)
	.set	CMD_SHIFT, 6		! log2(NVM_CMD_SIZE)
	.set	COMP_SHIFT, 3		! log2(NVM_COMP_SIZE)
	.set	TABLE_SHIFT, 5		! log2(NVM_EXP_SIZE) = log2(NVM_IMP_SIZE)
	.set	ROUTE_SHIFT, 4		! log2(NVM_ROUTE_SIZE)
	.set	PEER_SHIFT, 7		! log2(NVM_PEER_SIZE)
	.set	CTR_SHIFT, 4		! log2(NVM_CTR_SIZE)
	.set	CTR_EP_SHIFT, 6		! log2(NVM_MAX_COUNTERS)
	.set	PAGE_CTR_SHIFT, 3	! 8 bytes per counter in the status page
	.set	CTR_VALUE_BYTES, 8	! CtrValueHi, CtrValueLo: one 8-byte DMA (§6.1)
	.set	PEER_TX_SEQ, 0		! peer state: next sequence number to send
	.set	PEER_RX_BASE, 4		!             receive window base
	.set	SEND_BUF, NVM_SEND_BUF_BASE	! SLICE: the one send buffer
	.set	KIND_MASK, 0xFF		! ExpKind/ImpKind: kind in the low byte
	.set	STAT_COUNT, 12		! words of GlobStats
	.set	SA_MASK, 7		! SA: the first byte's offset in its 8-byte word

! ---- calls
! CALL f: the delay slot reads pc = its own address, so rca = the
! instruction after the slot (4 = one instruction).
	.macro	CALL f
	bt	\f
	add	%pc, 4, %rca		! (delay slot) return past the slot
	.endm
	.macro	RET
	add	%rca, 0, %pc
	nop
	.endm
	.macro	PUSH_RCA
	st	%rca, [--%sp]
	.endm
	.macro	POP_RCA
	ld	[%sp++], %rca
	.endm
! STAT off: GlobStats[off] += 1 (clobbers r13, r14)
	.macro	STAT off
	mov	NVM_GLOB_BASE + NVM_GLOB_STATS, %r13
	ld	\off[%r13], %r14
	add	%r14, 1, %r14
	st	%r14, \off[%r13]
	.endm

	.bss
	.align	8
node_id: .zero	4		! GlobNodeID, read at FWGo
kr_next: .zero	4		! next kernel ring slot
ep_mask: .zero	4		! bit e set: endpoint e is open (saves the main
				! loop a look at 16 endpoint states per pass)
kcmd:	.zero	NVM_CMD_SIZE	! private copy of the command being executed
	.align	8
stage:	.zero	8		! staging for DMAs of small records to the host

	.text
	.globl	_start
! _start: boot (§2.1 steps 2-4). In: nothing. Out: jumps to main_loop
! with the firmware running. Registers: all.
_start:
	mov	NVM_FW_STACK_TOP, %sp
	mov	%sp, %fp
	! Zero the NIC regions (the globals' host fields and the route table
	! are kept): [KRingBase, RouteBase) and [PeerBase, SendBufBase).
	mov	NVM_K_RING_BASE, %r6
	mov	NVM_ROUTE_BASE, %r7
	CALL	memzero
	mov	NVM_PEER_BASE, %r6
	mov	NVM_SEND_BUF_BASE, %r7
	CALL	memzero
	mov	NVM_GLOB_BASE + NVM_GLOB_STATS, %r6
	add	%r6, STAT_COUNT * 4, %r7
	CALL	memzero
	mov	NVM_GLOB_BASE, %r16
	st	%r0, NVM_GLOB_EVQ_WRITE[%r16]
	st	%r0, NVM_GLOB_PANIC[%r16]
	st	%r0, [kr_next]
	st	%r0, [ep_mask]
	! The two DMA descriptors, each its own next (a one-block cycle,
	! docs/hardware.md "Chains that loop"), both TERMINAL = idle.
	mov	DESC_TO_HOST, %r6
	or	%r6, DESC_TERMINAL, %r7
	st	%r7, DESC_NEXT[%r6]
	st	%r6, DMAPTR0[%r0]
	mov	DESC_FROM_HOST, %r6
	or	%r6, DESC_TERMINAL, %r7
	st	%r7, DESC_NEXT[%r6]
	st	%r6, DMAPTR2[%r0]
	! Magic, version, link CRCs, then WaitConfig + HOST_SIG.
	mov	hi(NVM_MAGIC), %r7
	or	%r7, lo(NVM_MAGIC), %r7
	st	%r7, NVM_GLOB_MAGIC[%r16]
	mov	NVM_VERSION, %r7
	st	%r7, NVM_GLOB_VERSION[%r16]
	mov	NVM_MYRINET_CRC, %r7
	st	%r7, MYRINET[%r0]
	st	%r0, SA[%r0]
	mov	NVM_FW_WAIT_CONFIG, %r7
	st	%r7, NVM_GLOB_STATUS[%r16]
	mov	NVM_ISR_HOST_SIG, %r7
	st	%r7, ISR[%r0]
	! Wait for the driver's FWGo.
	mov	NVM_FW_GO, %r8
.Lwaitgo:
	ld	NVM_GLOB_STATUS[%r16], %r7
	sub.f	%r7, %r8, %r0
	bne	.Lwaitgo
	nop
	ld	NVM_GLOB_NODE_ID[%r16], %r7
	st	%r7, [node_id]
	mov	NVM_FW_RUNNING, %r7
	st	%r7, NVM_GLOB_STATUS[%r16]
	CALL	rx_arm
	bt	main_loop
	nop

! main_loop: the fixed polling order of §3.1: kernel ring, one slot of
! every open endpoint ring (0..15, in order, found through ep_mask), the receive engine; the heartbeat
! once per pass. Never returns. Registers: all.
main_loop:
	ld	RTC[%r0], %r7
	mov	NVM_GLOB_BASE, %r6
	st	%r7, NVM_GLOB_HEARTBEAT[%r6]
	CALL	kring_poll
	ld	[ep_mask], %r27		! open endpoints, bit e = endpoint e
	mov	0, %r26
.Leploop:
	sub.f	%r27, 0, %r0		! no open endpoint above r26
	beq	.Lepdone
	mov	1, %r7			! (delay slot)
	and	%r27, %r7, %r7
	sub.f	%r7, 0, %r0
	beq	.Lepnext
	nop
	mov	%r26, %r6
	CALL	ep_poll
.Lepnext:
	sh	%r27, -1, %r27		! next endpoint's bit
	bt	.Leploop
	add	%r26, 1, %r26		! (delay slot)
.Lepdone:
	CALL	rx_poll
	bt	main_loop
	nop

! memzero: zero the words of [r6, r7) (both 4-aligned). Clobbers r6.
memzero:
	sub.f	%r6, %r7, %r0
	buge	1f
	nop
	st	%r0, [%r6++]
	bt	memzero
	nop
1:	RET

! copy_cmd: copy the 64-byte command slot at r6 into kcmd, then take the
! slot (§3.1 firmware step 2: op byte <- 0). In: r6 slot address.
! Out: kcmd filled, r9 = kcmd. Clobbers r7-r10.
copy_cmd:
	mov	kcmd, %r9
	mov	0, %r7
1:	ld	%r7[%r6], %r8
	st	%r8, %r7[%r9]
	add	%r7, 4, %r7		! next word (4 bytes)
	sub.f	%r7, NVM_CMD_SIZE, %r0
	bne	1b
	nop
	st.b	%r0, NVM_CMD_OP[%r6]
	RET

! dma_sync: one host DMA block, waited for. In: r6 SRAM address, r7 host
! bus address (low 32 bits; high word 0), r8 length, r9 DIR_TO_HOST
! (channel 0) or DIR_FROM_HOST (channel 2). Clobbers r10-r13.
! Implements the DMA of §4.3 step 4 and every write of §6. SLICE:
! synchronous; a later version keeps the channels busy.
dma_sync:
	sub.f	%r9, DIR_TO_HOST, %r0
	mov	DESC_TO_HOST, %r10
	beq	1f
	mov	PULSE_CH0, %r11		! (delay slot)
	mov	DESC_FROM_HOST, %r10
	mov	PULSE_CH2, %r11
1:	st	%r8, DESC_LEN[%r10]
	st	%r6, DESC_LAR[%r10]
	st	%r0, DESC_EAH[%r10]
	st	%r7, DESC_EAL[%r10]
	or	%r10, %r9, %r12		! next = itself, E2L per direction
	st	%r12, DESC_NEXT[%r10]	! written last: not TERMINAL
	st	%r11, PULSE[%r0]
	mov	DESC_TERMINAL, %r13
2:	ld	DESC_NEXT[%r10], %r12	! done when the engine wrote TERMINAL back
	and	%r12, %r13, %r12
	sub.f	%r12, 0, %r0
	beq	2b
	nop
	RET

! put_comp: write a completion record (§6.1, §6.2): {status, ticket} as
! one 8-byte DMA, ticket last. In: r6 host address of the record, r7
! status, r8 ticket. Clobbers r6-r13.
put_comp:
	PUSH_RCA
	mov	stage, %r9
	st	%r7, NVM_COMP_STATUS[%r9]
	st	%r8, NVM_COMP_TICKET[%r9]
	mov	%r6, %r7
	mov	%r9, %r6
	mov	NVM_COMP_SIZE, %r8
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	POP_RCA
	RET

! spt_lookup: find the SPT entry of (asid, va) (§4.2). In: r6 ASID, r7 VA.
! Out: r8 entry address, or 0 on a miss. Clobbers r9-r12.
spt_lookup:
	sh	%r7, -NVM_PAGE_SHIFT, %r9	! vpn
	sh	%r9, -NVM_SPT_HASH_BITS, %r10
	xor	%r9, %r10, %r10
	sh	%r6, 4, %r11			! asid << 4 (the hash of §4.2)
	xor	%r10, %r11, %r10
	mov	NVM_SPT_ENTRIES - 1, %r11
	and	%r10, %r11, %r10		! h
	sh	%r9, NVM_PAGE_SHIFT, %r9
	or	%r9, %r6, %r9			! tag = vpn << 12 | asid
	mov	NVM_SPT_PROBE, %r12
1:	sh	%r10, SPT_ENTRY_SHIFT, %r8
	mov	NVM_SPT_BASE, %r11
	add	%r8, %r11, %r8
	ld	NVM_SPT_TAG[%r8], %r11
	sub.f	%r11, %r9, %r0
	beq	2f			! hit (dead entries never match)
	nop
	sub.f	%r11, NVM_SPT_TAG_EMPTY, %r0
	beq	3f			! miss
	nop
	add	%r10, 1, %r10
	mov	NVM_SPT_ENTRIES - 1, %r11
	and	%r10, %r11, %r10
	sub.f	%r12, 1, %r12
	bne	1b
	nop
3:	mov	0, %r8
2:	RET

! spt_lock: §4.3 NIC side, steps 1-3, for the entry at r8 [S: briefly
! lock and translate; I: the steps]. In: r8 entry (nonzero); r6 host flags
! that must be clear besides P (0 for a source page, NVM_SPT_R for a
! destination); r7 host flags that must be set (NVM_SPT_V for a source,
! NVM_SPT_V | NVM_SPT_W for a destination). RCNT must be 0 in both cases
! (it is never raised in this slice). Out: r9 = host page address
! (PFN << 12) with L set, or r9 = 0: not resident, not locked.
! Clobbers r9-r12.
spt_lock:
	or	%r6, NVM_SPT_P, %r12	! forbidden flags
	ld	NVM_SPT_FRAME[%r8], %r9
	and	%r9, %r12, %r10
	sub.f	%r10, 0, %r0
	bne	9f
	and	%r9, %r7, %r10		! (delay slot) required flags
	sub.f	%r10, %r7, %r0
	bne	9f
	nop
	ld	NVM_SPT_NIC[%r8], %r10	! RCNT must be 0 for a destination;
	sh	%r10, -NVM_SPT_RCNT_SHIFT, %r11	! checked for both (never set in this slice)
	sub.f	%r11, 0, %r0
	bne	9f
	nop
	uld.b	NVM_SPT_LOCK_BYTE[%r8], %r10
	or	%r10, NVM_SPT_L, %r10
	st.b	%r10, NVM_SPT_LOCK_BYTE[%r8]	! step 2: L = 1
	ld	NVM_SPT_FRAME[%r8], %r9		! step 3: re-read
	and	%r9, %r12, %r10
	sub.f	%r10, 0, %r0
	bne	8f
	and	%r9, %r7, %r10
	sub.f	%r10, %r7, %r0
	bne	8f
	nop
	sh	%r9, -NVM_PAGE_SHIFT, %r9
	sh	%r9, NVM_PAGE_SHIFT, %r9	! PFN << 12
	RET
8:	uld.b	NVM_SPT_LOCK_BYTE[%r8], %r10	! back off: L = 0
	mov	NVM_SPT_D, %r11
	and	%r10, %r11, %r10
	st.b	%r10, NVM_SPT_LOCK_BYTE[%r8]
9:	mov	0, %r9
	RET

! spt_unlock: §4.3 step 5: L = 0, and D = 1 if r6 is nonzero (a
! destination). In: r8 entry, r6. Clobbers r10, r11.
spt_unlock:
	uld.b	NVM_SPT_LOCK_BYTE[%r8], %r10
	mov	NVM_SPT_D, %r11
	and	%r10, %r11, %r10
	sub.f	%r6, 0, %r0
	beq	1f
	nop
	or	%r10, NVM_SPT_D, %r10
1:	st.b	%r10, NVM_SPT_LOCK_BYTE[%r8]
	RET

! rx_arm: (re-)arm the receive engine on the whole receive area; also
! acknowledges RECV_INT/BUFF_INT. SLICE: one packet at a time at
! RecvBase. Clobbers r6, r7.
rx_arm:
	mov	NVM_RECV_BASE, %r6
	mov	NVM_RECV_BASE + NVM_RECV_SIZE, %r7
	st	%r6, RMP[%r0]
	st	%r7, RML[%r0]
	RET

! The other state machines (same assembly unit: they use the symbols and
! macros above).
	.include "kring.s"
	.include "send.s"
	.include "recv.s"
