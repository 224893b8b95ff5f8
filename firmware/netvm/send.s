! send.s - the endpoint rings and the sender (docs/netvm.md §3.1, §3.2,
! §5.1-§5.3). Included by netvm.s.
! SLICE: two send buffers (the DMA of packet n+1 overlaps the send of n), no window/credit checks, no
! retransmission copy kept beyond the next packet; a non-resident source
! page completes the WRITE with StatusSrcFault (no parking).

! ep_poll: serve one slot of endpoint r6's ring if the endpoint is open
! (§3.1 firmware steps) [I: user rings by PIO; ours: formats].
! In: r6 endpoint. Out: EPStNext advanced, completion record written to
! the status page (§6.1). Clobbers r6-r14, r16-r25.
ep_poll:
	mov	%r6, %r16		! ep
	EPSTATE	%r16, %r17		! its state
	ld	NVM_EP_ST_STATE[%r17], %r7
	sub.f	%r7, NVM_EP_OPEN, %r0
	bne	9f
	ld	NVM_EP_ST_NEXT[%r17], %r18	! (delay slot) slot
	sh	%r16, EP_RING_SHIFT, %r6
	mov	NVM_EP_RING_BASE, %r7
	add	%r6, %r7, %r6
	sh	%r18, CMD_SHIFT, %r7
	add	%r6, %r7, %r6		! slot address
	uld.b	NVM_CMD_OP[%r6], %r7
	sub.f	%r7, 0, %r0
	bne	1f
	nop
9:	RET
1:	PUSH_RCA
	CALL	copy_cmd		! r9 = kcmd; the slot is taken
	add	%r18, 1, %r7
	mov	NVM_RING_SLOTS - 1, %r8
	and	%r7, %r8, %r7
	st	%r7, NVM_EP_ST_NEXT[%r17]
	uld.b	NVM_CMD_OP[%r9], %r7
	sub.f	%r7, NVM_OP_WRITE, %r0
	beq	2f
	mov	NVM_STATUS_BAD_CMD, %r19	! (delay slot)
	bt	3f
	nop
2:	CALL	do_write		! r19 = status
3:	ld	NVM_EP_ST_PAGE[%r17], %r6
	sh	%r18, COMP_SHIFT, %r7
	add	%r6, %r7, %r6
	add	%r6, NVM_PAGE_COMP, %r6
	mov	%r19, %r7
	mov	kcmd, %r9
	ld	NVM_CMD_TICKET[%r9], %r8
	CALL	put_comp
	POP_RCA
	RET

! do_write: check and execute the WRITE in kcmd (§3.2 checks, §5.1 cut
! into packets that cross no source and no destination page).
! In: r9 kcmd, r16 ep, r17 ep state. Out: r19 status. Keeps r18.
! Uses r20 import entry, r21 source VA, r22 bytes left, r23 destination
! offset, r24 counter key (0: none), r25 packet length.
do_write:
	PUSH_RCA
	mov	NVM_STATUS_IMPORT, %r19
	uld.h	NVM_WR_IMPORT[%r9], %r20
	sub.f	%r20, NVM_MAX_IMPORTS, %r0
	buge	9f
	sh	%r20, TABLE_SHIFT, %r20	! (delay slot)
	mov	NVM_IMPORT_BASE, %r7
	add	%r20, %r7, %r20
	ld	NVM_IMP_KEY[%r20], %r7
	sub.f	%r7, 0, %r0
	beq	9f
	nop
	ld	NVM_IMP_EP[%r20], %r7
	sub.f	%r7, %r16, %r0
	bne	9f
	nop
	ld	NVM_IMP_KIND[%r20], %r7
	mov	KIND_MASK, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, NVM_EXP_KIND_REGION, %r0
	bne	9f
	nop
	mov	NVM_STATUS_LEN, %r19
	ld	NVM_WR_LEN[%r9], %r22
	mov	NVM_MAX_WRITE, %r8
	sub.f	%r22, %r8, %r0
	bugt	9f
	nop
	mov	NVM_STATUS_BOUNDS, %r19	! dst + len <= ImpLen, without overflow:
	ld	NVM_WR_DST_OFF[%r9], %r23
	ld	NVM_IMP_LEN[%r20], %r8
	sub.f	%r23, %r8, %r0		! dst <= ImpLen
	bugt	9f
	sub	%r8, %r23, %r8		! (delay slot)
	sub.f	%r22, %r8, %r0		! len <= ImpLen - dst
	bugt	9f
	nop
	mov	0, %r24
	uld.h	NVM_WR_CTR_IMPORT[%r9], %r7
	mov	NVM_NO_COUNTER, %r8
	sub.f	%r7, %r8, %r0
	beq	1f
	mov	NVM_STATUS_COUNTER, %r19	! (delay slot)
	sub.f	%r7, NVM_MAX_IMPORTS, %r0
	buge	9f
	sh	%r7, TABLE_SHIFT, %r7	! (delay slot)
	mov	NVM_IMPORT_BASE, %r8
	add	%r7, %r8, %r10		! counter import entry
	ld	NVM_IMP_EP[%r10], %r7
	sub.f	%r7, %r16, %r0
	bne	9f
	nop
	ld	NVM_IMP_KIND[%r10], %r7
	mov	KIND_MASK, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, NVM_EXP_KIND_COUNTER, %r0
	bne	9f
	nop
	ld	NVM_IMP_NODE[%r10], %r7
	ld	NVM_IMP_NODE[%r20], %r8
	sub.f	%r7, %r8, %r0
	bne	9f
	nop
	ld	NVM_IMP_KEY[%r10], %r24	! 0 = a free entry
	sub.f	%r24, 0, %r0
	beq	9f
	nop
1:	ld	NVM_WR_SRC_VA[%r9], %r21
	mov	NVM_STATUS_OK, %r19
! One packet per pass; a zero-length WRITE is one packet of length 0.
2:	mov	NVM_PAGE_SIZE - 1, %r8
	and	%r21, %r8, %r7
	mov	NVM_PAGE_SIZE, %r25
	sub	%r25, %r7, %r25		! room in the source page
	and	%r23, %r8, %r7
	mov	NVM_PAGE_SIZE, %r6
	sub	%r6, %r7, %r6		! room in the destination page
	sub.f	%r6, %r25, %r0
	bugt	3f
	nop
	mov	%r6, %r25
3:	sub.f	%r22, %r25, %r0
	bugt	4f
	nop
	mov	%r22, %r25
4:	CALL	send_packet
	sub.f	%r19, NVM_STATUS_OK, %r0
	bne	9f
	add	%r21, %r25, %r21	! (delay slot)
	add	%r23, %r25, %r23
	sub.f	%r22, %r25, %r22
	bne	2b
	nop
9:	POP_RCA
	RET

! send_packet: build and send one DATA packet (§5.2, §5.3).
! In: r16 ep, r17 ep state, r20 import entry, r21 source VA, r22 bytes
! left (this packet is the last if r22 = r25), r23 destination offset,
! r24 counter key, r25 length. Out: r19 StatusOK or StatusSrcFault.
! Clobbers r6-r14. Lock-and-translate of the source page: §4.3 steps 1-5.
send_packet:
	PUSH_RCA
	ld	[send_cur], %r7		! this packet's buffer: r14
	mov	NVM_BUF_STRIDE, %r8
	sub.f	%r7, 0, %r0
	beq	1f
	mov	SEND_BUF, %r14		! (delay slot)
	add	%r14, %r8, %r14
1:	mov	0, %r8			! SPT entry to unlock (0: none)
	sub.f	%r25, 0, %r0
	beq	2f			! no payload: no page to touch
	nop
	ld	NVM_EP_ST_ASID[%r17], %r6
	mov	%r21, %r7
	CALL	spt_lookup
	sub.f	%r8, 0, %r0
	beq	8f
	mov	0, %r6			! (delay slot) nothing forbidden besides P
	mov	NVM_SPT_V, %r7
	CALL	spt_lock
	sub.f	%r9, 0, %r0
	beq	8f
	nop
	! Start the DMA of the payload (host -> SRAM, channel 2) and do not
	! wait: the previous packet may still be on the link from the other
	! buffer. This buffer is free: its last packet left before the
	! previous one was started.
	mov	NVM_PAGE_SIZE - 1, %r7
	and	%r21, %r7, %r7
	or	%r9, %r7, %r7		! host address
	mov	DESC_FROM_HOST, %r10
	st	%r25, DESC_LEN[%r10]
	add	%r14, NVM_BUF_PAYLOAD, %r6
	st	%r6, DESC_LAR[%r10]
	st	%r0, DESC_EAH[%r10]
	st	%r7, DESC_EAL[%r10]
	or	%r10, DESC_E2L, %r12	! next = itself, host -> SRAM
	st	%r12, DESC_NEXT[%r10]	! written last: not TERMINAL
	mov	PULSE_CH2, %r11
	st	%r11, PULSE[%r0]
2:	st	%r8, [--%sp]		! the entry, kept over the DMA
	mov	NVM_STATUS_OK, %r19
	! The header (§5.3), field by field, while the DMA runs.
	add	%r14, NVM_BUF_HDR, %r6
	mov	NVM_PKT_TYPE, %r7
	st.h	%r7, NVM_HDR_TYPE[%r6]
	mov	NVM_KIND_DATA, %r7
	st.b	%r7, NVM_HDR_KIND[%r6]
	mov	0, %r7			! flags
	mov	0, %r8			! counter key
	sub.f	%r22, %r25, %r0
	bne	3f
	nop
	or	%r7, NVM_FLAG_LAST, %r7
	sub.f	%r24, 0, %r0
	beq	3f
	nop
	or	%r7, NVM_FLAG_NOTIFY, %r7
	mov	%r24, %r8
3:	st.b	%r7, NVM_HDR_FLAGS[%r6]
	st	%r8, NVM_HDR_CTR_KEY[%r6]
	ld	[node_id], %r7
	st.h	%r7, NVM_HDR_SRC_NODE[%r6]
	ld	NVM_IMP_NODE[%r20], %r9	! the peer
	st.h	%r9, NVM_HDR_DST_NODE[%r6]
	st.b	%r16, NVM_HDR_SRC_EP[%r6]
	ld	NVM_IMP_REMOTE_EP[%r20], %r7
	st.b	%r7, NVM_HDR_DST_EP[%r6]
	st.h	%r25, NVM_HDR_LEN[%r6]
	ld	NVM_IMP_KEY[%r20], %r7
	st	%r7, NVM_HDR_KEY[%r6]
	st	%r23, NVM_HDR_OFFSET[%r6]
	sh	%r9, PEER_SHIFT, %r10	! sequence number from the peer state
	mov	NVM_PEER_BASE, %r7
	add	%r10, %r7, %r10
	ld	PEER_TX_SEQ[%r10], %r7
	st.h	%r7, NVM_HDR_SEQ[%r6]
	add	%r7, 1, %r7
	mov	NVM_SEQ_MASK, %r8
	and	%r7, %r8, %r7
	st	%r7, PEER_TX_SEQ[%r10]
	st.h	%r0, NVM_HDR_CREDIT[%r6]
	st	%r0, NVM_HDR_AUX[%r6]
	! The route, right-aligned before the header (§2.4, docs/links.md).
	sh	%r9, ROUTE_SHIFT, %r10
	mov	NVM_ROUTE_BASE, %r7
	add	%r10, %r7, %r10		! route entry
	uld.b	NVM_ROUTE_LEN[%r10], %r11
	sub	%r6, %r11, %r12		! packet start
	mov	0, %r7
4:	sub.f	%r7, %r11, %r0
	buge	5f
	add	%r10, %r7, %r8		! (delay slot)
	uld.b	NVM_ROUTE_BYTES[%r8], %r8
	add	%r12, %r7, %r13
	st.b	%r8, 0[%r13]
	bt	4b
	add	%r7, 1, %r7		! (delay slot)
	! Wait for the payload's DMA, then release the source page (the lock
	! is held exactly while the DMA of the page runs).
5:	ld	[%sp++], %r8
	sub.f	%r8, 0, %r0
	beq	6f
	mov	DESC_FROM_HOST, %r10	! (delay slot)
	mov	DESC_TERMINAL, %r13
7:	ld	DESC_NEXT[%r10], %r9	! done when the engine wrote TERMINAL back
	and	%r9, %r13, %r9
	sub.f	%r9, 0, %r0
	beq	7b
	nop
	mov	0, %r6
	CALL	spt_unlock
	! Wait until the previous packet has left: the link is free.
6:	mov	ISR_SEND_INT, %r8
6:	ld	ISR[%r0], %r7
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	6b
	nop
	add	%r14, NVM_BUF_PAYLOAD, %r7
	add	%r7, %r25, %r7		! end of the packet
	mov	SA_MASK, %r8		! SA = start mod 8 (the engine sends from SMP &^ 7 + SA)
	and	%r12, %r8, %r8
	st	%r8, SA[%r0]
	st	%r12, SMP[%r0]
	st	%r7, SMLT[%r0]
	ld	[send_cur], %r7		! the next packet takes the other buffer
	mov	1, %r8
	sub	%r8, %r7, %r7
	st	%r7, [send_cur]
	STAT	NVM_STAT_TX_DATA
	POP_RCA
	RET
8:	mov	NVM_STATUS_SRC_FAULT, %r19
	POP_RCA
	RET

	.bss
	.align	8
send_cur: .zero	4		! the send buffer (0 or 1) of the next packet
	.text
