! Part of the NetVM firmware; firmware/netvm/README.md gives the rules every file follows.

! recv.s - the receiver (docs/netvm.md §5.3, §5.4, §7, §8, §9).
! Included by netvm.s.
!
! The receive engine is armed for one packet at a time, right after the
! previous one in the receive area; rx_poll re-arms it before it
! processes the packet that arrived, so the next packet flows in while
! this one is checked and DMAed to the host.

! rx_poll: if a packet arrived, re-arm, then check and dispatch it
! (DATA to rx_data, ACK/NACK to rx_ack). A packet is left waiting
! while the event queue lacks room for EVQ_RESERVE events. Clobbers
! r6-r14, r16-r25, r28. Uses r16 packet, r17 bytes stored, r18 payload length,
! r19 source node.
rx_poll:
	ld	ISR[%r0], %r28
	mov	ISR_RECV_INT | ISR_BUFF_INT, %r8
	and	%r28, %r8, %r8
	sub.f	%r8, 0, %r0
	bne	rx_take
	nop
	RET
! rx_take: rx_poll once ISR (in r28) shows RECV_INT or BUFF_INT.
rx_take:
	mov	%r28, %r7
	PUSH_RCA
	ld	[ev_n], %r8		! room for EVQ_RESERVE events?
	mov	NVM_GLOB_BASE, %r9
	ld	NVM_GLOB_EVQ_READ[%r9], %r9
	sub	%r8, %r9, %r8
	sub.f	%r8, NVM_EVQ_ENTRIES - EVQ_RESERVE, %r0
	bugt	.Lrx_out
	ld	[rx_cur], %r16		! (delay slot) the packet
	ld	RMP[%r0], %r8		! its end (padded to 8)
	sub	%r8, %r16, %r17		! bytes stored
	mov	RX_END - RX_ARM, %r9	! the next packet: right after, or wrap
	sub.f	%r8, %r9, %r0
	bule	2f
	nop
	mov	NVM_RECV_BASE, %r8
2:	st	%r8, [rx_cur]		! re-arm there (rx_arm, inline)
	add	%r8, RX_ARM, %r9
	st	%r0, RML[%r0]
	st	%r8, RMP[%r0]
	st	%r9, RML[%r0]
	mov	ISR_BUFF_INT, %r8	! too long for the receive area
	and	%r7, %r8, %r8
	sub.f	%r8, 0, %r0
	bne	.Lrx_malformed
	sub.f	%r17, NVM_HDR_SIZE + NVM_TRAILER_SIZE, %r0	! (delay slot)
	bult	.Lrx_malformed
	nop
	! The header's first three words: type | kind | flags, source |
	! destination node, endpoints | length.
	ld	NVM_HDR_TYPE[%r16], %r10
	ld	NVM_HDR_SRC_NODE[%r16], %r11
	ld	NVM_HDR_SRC_EP[%r16], %r18
	sh	%r10, -16, %r7
	mov	NVM_PKT_TYPE, %r8
	sub.f	%r7, %r8, %r0
	bne	.Lrx_malformed
	mov	0xFFFF, %r9		! (delay slot)
	and	%r18, %r9, %r18		! payload length
	mov	NVM_MTU, %r8
	sub.f	%r18, %r8, %r0
	bugt	.Lrx_malformed
	add	%r18, NVM_HDR_SIZE + NVM_TRAILER_SIZE, %r7	! (delay slot)
	sub.f	%r17, %r7, %r0
	bult	.Lrx_malformed
	nop
	! The trailer as the receive engine stores it: the CRC-8 check byte
	! right after the payload, the CRC-32 check word in the last four
	! bytes of the stored words (RMP-4); each reads received XOR
	! computed, 0 if good (docs/hardware.md).
	add	%r16, %r18, %r6
	uld.b	NVM_HDR_SIZE[%r6], %r7	! CRC-8
	add	%r16, %r17, %r8
	ld	-4[%r8], %r8		! CRC-32
	or	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	bne	.Lrx_crc
	and	%r11, %r9, %r7		! (delay slot) destination node
	ld	[node_id], %r8
	sub.f	%r7, %r8, %r0
	bne	.Lrx_malformed
	sh	%r11, -16, %r19		! (delay slot) source node
	ld	[nnodes], %r8
	sub.f	%r19, %r8, %r0
	buge	.Lrx_malformed
	sh	%r10, -8, %r7		! (delay slot) kind
	mov	0xFF, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, NVM_KIND_DATA, %r0
	beq	3f
	sub.f	%r7, NVM_KIND_ACK, %r0	! (delay slot)
	beq	4f
	sub.f	%r7, NVM_KIND_NACK, %r0	! (delay slot)
	bne	.Lrx_malformed
	nop
4:	sub.f	%r18, 0, %r0		! ACK/NACK carry no payload
	bne	.Lrx_malformed
	nop
	CALL	rx_ack
	bt	.Lrx_out
	nop
3:	CALL	rx_data
	uld.b	NVM_HDR_FLAGS[%r16], %r7	! then note the ACK riding on it
	mov	NVM_FLAG_ACK, %r8
	and.f	%r7, %r8, %r0
	beq	.Lrx_out
	nop
	CALL	piggy_note
.Lrx_out:
	POP_RCA
	RET
.Lrx_crc:
	STAT	NVM_STAT_CRC
	bt	.Lrx_out
	nop
.Lrx_malformed:
	STAT	NVM_STAT_MALFORMED
	bt	.Lrx_out
	nop

! rx_data: a good DATA packet at r16 (payload length r18) from node r19
! (§5.4): the window (§7), the export checks, placement or redirection,
! the notification (§9), the ACK. Clobbers r6-r14, r17, r20-r25. Uses
! r20 peer state, r21 sequence number, r22 export entry, r23 VA, r24
! endpoint, r25 ep << 16 | counter id (0xFFFFFFFF: none), r17 status.
rx_data:
	PUSH_RCA
	PEER	%r19, %r20
	uld.h	NVM_HDR_SEQ[%r16], %r21
	ld	P_RX_BASE[%r20], %r7
	sub	%r21, %r7, %r7		! d = q - base
	mov	NVM_SEQ_MASK, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, HALF_SEQ, %r0
	buge	.Lrd_dup		! q before base: a duplicate
	sub.f	%r7, NVM_WINDOW, %r0	! (delay slot)
	buge	.Lrd_resend		! beyond the window
	mov	1, %r8			! (delay slot)
	sh	%r8, %r7, %r8
	ld	P_RX_BITS[%r20], %r9
	and	%r9, %r8, %r9
	sub.f	%r9, 0, %r0
	bne	.Lrd_dup		! received already
	nop
	mov	-1, %r25		! no counter
	uld.b	NVM_HDR_FLAGS[%r16], %r7
	mov	NVM_FLAG_NOTIFY, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	1f
	nop
	ld	P_DEF_COUNT[%r20], %r7	! room to defer its notification? (else
	sub.f	%r7, NVM_DEFER_MAX, %r0	! RNR, §9: the OS frees it, not a loss)
	buge	.Lrx_rnr_nack
	nop
	! §5.4 step 2: the region's export, the counter's export.
1:	mov	NVM_STATUS_KEY, %r17
	ld	NVM_HDR_KEY[%r16], %r6
	CALL	rx_export		! r22 entry or 0, r24 its endpoint, r17 status
	sub.f	%r22, 0, %r0
	beq	.Lrd_error
	ld	NVM_EXP_KIND[%r22], %r7	! (delay slot)
	mov	KIND_MASK, %r8
	and	%r7, %r8, %r8
	sub.f	%r8, NVM_EXP_KIND_REGION, %r0
	bne	.Lrd_kind		! (r17 = StatusKey)
	nop
	mov	NVM_STATUS_PERM, %r17
	mov	NVM_EXP_PERM_W, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lrd_error
	nop
	mov	NVM_STATUS_BOUNDS, %r17
	ld	NVM_HDR_OFFSET[%r16], %r7
	ld	NVM_EXP_LEN[%r22], %r8
	sub.f	%r7, %r8, %r0		! offset + len <= ExpLen without overflow
	bugt	.Lrd_error
	sub	%r8, %r7, %r8		! (delay slot)
	sub.f	%r18, %r8, %r0
	bugt	.Lrd_error
	ld	NVM_EXP_BASE[%r22], %r23	! (delay slot)
	add	%r23, %r7, %r23		! destination VA
	uld.b	NVM_HDR_FLAGS[%r16], %r7
	mov	NVM_FLAG_NOTIFY, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	2f
	mov	NVM_STATUS_COUNTER, %r17	! (delay slot)
	PUSH	%r22
	PUSH	%r24
	ld	NVM_HDR_CTR_KEY[%r16], %r6
	CALL	rx_export
	mov	%r22, %r7		! the counter's entry
	mov	%r24, %r8		! and endpoint
	POP	%r24
	POP	%r22
	mov	NVM_STATUS_COUNTER, %r17
	sub.f	%r7, 0, %r0
	beq	.Lrd_error
	sub.f	%r8, %r24, %r0		! (delay slot) same endpoint
	bne	.Lrd_error
	ld	NVM_EXP_KIND[%r7], %r9	! (delay slot)
	mov	KIND_MASK, %r10
	and	%r9, %r10, %r9
	sub.f	%r9, NVM_EXP_KIND_COUNTER, %r0
	bne	.Lrd_error
	ld	NVM_EXP_BASE[%r7], %r9	! (delay slot) counter id
	sub.f	%r9, NVM_MAX_COUNTERS, %r0
	buge	.Lrd_error
	sh	%r24, 16, %r25		! (delay slot)
	or	%r25, %r9, %r25		! ep << 16 | id
	! §5.4 step 3: place it (§4.3 with W required, R forbidden), or
	! step 4: redirect it.
2:	sub.f	%r18, 0, %r0
	beq	.Lrd_placed		! nothing to place
	ld	NVM_EXP_ASID[%r22], %r6	! (delay slot)
	mov	%r23, %r7
	CALL	spt_lookup
	sub.f	%r8, 0, %r0
	beq	rx_nonresident
	mov	NVM_SPT_R, %r6		! (delay slot)
	mov	NVM_SPT_V | NVM_SPT_W, %r7
	CALL	spt_lock
	sub.f	%r9, 0, %r0
	beq	rx_nonresident
	mov	NVM_PAGE_SIZE - 1, %r7	! (delay slot)
	and	%r23, %r7, %r7
	or	%r9, %r7, %r7
	PUSH	%r8
	add	%r16, NVM_HDR_SIZE, %r6
	mov	%r18, %r8
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	POP	%r8
	mov	1, %r6			! a destination: set D
	CALL	spt_unlock
.Lrd_placed:
	ld	P_RX_RELEASED[%r20], %r7	! placed: its credit is free (§8)
	add	%r7, 1, %r7
	st	%r7, P_RX_RELEASED[%r20]
! q is received (placed, redirected or consumed): mark it, advance the
! window, apply or defer its notification, apply what is due, owe an ACK.
.Lrd_accept:
	STAT	NVM_STAT_RX_DATA
	ld	P_RX_BASE[%r20], %r7
	sub	%r21, %r7, %r8
	mov	NVM_SEQ_MASK, %r10
	and	%r8, %r10, %r8
	mov	1, %r9
	sh	%r9, %r8, %r9
	ld	P_RX_BITS[%r20], %r8
	or	%r8, %r9, %r9		! q's bit set
5:	mov	1, %r8			! advance over the received prefix
	and	%r9, %r8, %r8
	sub.f	%r8, 0, %r0
	beq	6f
	nop
	sh	%r9, -1, %r9
	add	%r7, 1, %r7
	bt	5b
	and	%r7, %r10, %r7		! (delay slot)
6:	st	%r9, P_RX_BITS[%r20]
	st	%r7, P_RX_BASE[%r20]
	add	%r25, 1, %r8		! a notification? (r25 = -1: none)
	sub.f	%r8, 0, %r0
	beq	.Lrd_due
	ld	P_DEF_COUNT[%r20], %r13	! (delay slot)
	! The common case: nothing deferred, no slot busy, and every packet
	! up to q received: apply it now (§9).
	sub.f	%r13, 0, %r0
	bne	.Lrd_defer
	ld	P_SLOTS_BUSY[%r20], %r8	! (delay slot)
	sub.f	%r8, 0, %r0
	bne	.Lrd_defer
	sub	%r21, %r7, %r8		! (delay slot) q - base "negative": base past q
	and	%r8, %r10, %r8
	sub.f	%r8, HALF_SEQ, %r0
	bult	.Lrd_defer
	sh	%r25, -16, %r6		! (delay slot) ep
	mov	0xFFFF, %r7
	and	%r25, %r7, %r7		! counter id
	CALL	ctr_apply
	bt	.Lrd_ack
	nop
	! Defer it: the queue is kept in sequence order (packets may be
	! accepted out of order), so insert from the tail.
.Lrd_defer:
	sh	%r19, DEFER_PEER_SHIFT, %r11
	mov	NVM_DEFER_BASE, %r7
	add	%r11, %r7, %r11		! the peer's ring
	ld	P_DEF_HEAD[%r20], %r12
	add	%r13, 1, %r7		! i = count (r13)
	st	%r7, P_DEF_COUNT[%r20]
	mov	NVM_DEFER_MAX - 1, %r14
7:	sub.f	%r13, 0, %r0
	beq	8f
	add	%r12, %r13, %r7		! (delay slot) slot i ...
	sub	%r7, 1, %r8		! ... and slot i - 1
	and	%r8, %r14, %r8
	sh	%r8, DEFER_SHIFT, %r8
	add	%r8, %r11, %r8
	ld	DF_SEQ[%r8], %r10
	sub	%r21, %r10, %r10	! entry i-1 up to q: q goes at i
	mov	NVM_SEQ_MASK, %r14
	and	%r10, %r14, %r10
	mov	NVM_DEFER_MAX - 1, %r14
	sub.f	%r10, HALF_SEQ, %r0
	bult	8f
	and	%r7, %r14, %r7		! (delay slot)
	sh	%r7, DEFER_SHIFT, %r7	! else entry i-1 moves up to i
	add	%r7, %r11, %r7
	ld	DF_SEQ[%r8], %r10
	st	%r10, DF_SEQ[%r7]
	ld	DF_CTR[%r8], %r10
	st	%r10, DF_CTR[%r7]
	bt	7b
	sub	%r13, 1, %r13		! (delay slot)
8:	and	%r7, %r14, %r7		! slot i
	sh	%r7, DEFER_SHIFT, %r7
	add	%r7, %r11, %r7
	st	%r21, DF_SEQ[%r7]
	st	%r25, DF_CTR[%r7]
	ld	P_DEF_COUNT[%r20], %r13
.Lrd_due:
	sub.f	%r13, 0, %r0		! deferred notifications now due?
	beq	.Lrd_ack
	nop
	mov	%r19, %r6
	CALL	defer_process
! The ACK (§7): owed at once for a packet that does not advance the base
! (out of order, or redirected: the sender learns early), for an error
! (NACK), or once half the credit allotment has been released since the
! last ACK; owed later for the last packet of a WRITE (ack_defer: the
! next DATA packet to the peer carries it, FlagAck, or IT1 sends it);
! otherwise the next one covers it (ACKs are cumulative), which halves
! the sender's ACK processing when it streams.
.Lrd_ack:
	ld	P_RX_BITS[%r20], %r7	! a gap above the base?
	sub.f	%r7, 0, %r0
	bne	1f
	ld	P_NACK_STATUS[%r20], %r7	! (delay slot)
	sub.f	%r7, 0, %r0
	bne	1f
	ld	P_RX_RELEASED[%r20], %r7	! (delay slot)
	ld	P_ACK_REL[%r20], %r8
	sub	%r7, %r8, %r7
	mov	NVM_SEQ_MASK, %r8
	and	%r7, %r8, %r7
	ld	[ncredits], %r8
	sh	%r8, -1, %r8		! C / 2 (C = 1: every packet)
	sub.f	%r7, %r8, %r0
	buge	1f
	uld.b	NVM_HDR_FLAGS[%r16], %r7	! (delay slot)
	mov	NVM_FLAG_PROBE, %r8	! the sender asks for it now
	and.f	%r7, %r8, %r0
	bne	1f
	mov	NVM_FLAG_LAST, %r8	! (delay slot)
	and.f	%r7, %r8, %r0
	beq	2f
	mov	%r19, %r6		! (delay slot)
	CALL	ack_defer
	bt	2f
	nop
1:	mov	%r19, %r6
	CALL	ctrlq_push
2:	POP_RCA
	RET
! A duplicate: drop it, count it, re-acknowledge (§7).
.Lrd_dup:
	STAT	NVM_STAT_DUP
	mov	%r19, %r6
	CALL	ctrlq_push
	POP_RCA
	RET
! Beyond the window, or an atomic not served now: drop it, NACK
! StatusResend (unless a NACK with an error is already owed).
.Lrd_resend:
	ld	P_NACK_STATUS[%r20], %r7
	sub.f	%r7, 0, %r0
	bne	1f
	mov	NVM_STATUS_RESEND, %r7	! (delay slot)
	st	%r7, P_NACK_STATUS[%r20]
	st	%r0, P_NACK_TICKET[%r20]
	st	%r0, P_NACK_EP[%r20]
1:	mov	%r19, %r6
	CALL	ctrlq_push
	POP_RCA
	RET
! Not accepted now: owe the peer an ACK/NACK and return.
.Lrd_resend_keep:
	mov	%r19, %r6
	CALL	ctrlq_push
	POP_RCA
	RET
! A check failed (status r17): the packet is consumed (§5.4 step 2): its
! credit is free, the sender gets a NACK with the status, the packet's
! ticket (HdrAux) and endpoint.
.Lrd_error:
	ld	P_NACK_STATUS[%r20], %r7	! one error NACK at a time: while one
	sub.f	%r7, 0, %r0		! waits to be sent, a second erroneous
	beq	1f			! packet is not accepted (the sender
	sub.f	%r7, NVM_STATUS_RESEND, %r0	! (delay slot) sends it again later, and
	bne	.Lrd_resend_keep	! its error is reported then)
	nop
1:	st	%r17, P_NACK_STATUS[%r20]
	ld	NVM_HDR_AUX[%r16], %r7
	st	%r7, P_NACK_TICKET[%r20]
	uld.b	NVM_HDR_SRC_EP[%r16], %r7
	st	%r7, P_NACK_EP[%r20]
	mov	-1, %r25		! no notification
	bt	.Lrd_placed
	nop

! rx_nonresident: the page cannot take the payload now (not translated,
! or R set). ModeNetVM, ModeBackup: redirect it. ModeNPF (the E6
! baseline, as ODP's RNR NAK): drop it, ask the host to fault the page
! in (EvRecvFault), and NACK StatusRNR (unless a NACK is already owed):
! the sender retries after the RNR delay. (Jumped to from rx_data, which
! pushed rca; r8 the SPT entry or 0.)
rx_nonresident:
	ld	[mode], %r7
	sub.f	%r7, NVM_MODE_NPF, %r0
	bne	rx_redirect
	nop
.Lrx_rnr:	STAT	NVM_STAT_RECV_FAULT	! (also for an atomic's page, §5.5)
	mov	evrec, %r10
	ld	NVM_EXP_ASID[%r22], %r7
	st	%r7, NVM_EV_A1[%r10]
	st	%r23, NVM_EV_A2[%r10]
	mov	NVM_EV_RECV_FAULT, %r6
	mov	%r24, %r7
	CALL	ev_post
.Lrx_rnr_nack:	ld	P_NACK_STATUS[%r20], %r7	! (also for a full deferral queue)
	sub.f	%r7, 0, %r0
	bne	.Lrd_resend_keep
	mov	NVM_STATUS_RNR, %r7	! (delay slot)
	st	%r7, P_NACK_STATUS[%r20]
	st	%r0, P_NACK_TICKET[%r20]
	bt	.Lrd_resend_keep
	st	%r0, P_NACK_EP[%r20]	! (delay slot)

! rx_redirect: §5.4 step 4, §8: the payload goes into the lowest free
! slot of the sender's allotment in the system buffer; the slot records
! the packet; RCNT of the page's entry (r8, 0 if none) is incremented;
! an EvRedirect event tells the driver. The credit stays held until
! REDIR_DONE. (Jumped to from rx_data, which pushed rca.)
rx_redirect:
	PUSH	%r8
	ld	P_SLOT_BASE[%r20], %r9	! find the free slot
	ld	[ncredits], %r10
	add	%r10, %r9, %r10		! end of the allotment
1:	sub.f	%r9, %r10, %r0
	beq	.Lrr_none
	sh	%r9, SLOT_SHIFT, %r11	! (delay slot)
	mov	NVM_SLOT_TAB_BASE, %r12
	add	%r11, %r12, %r11
	ld	SL_BUSY[%r11], %r12
	sub.f	%r12, 0, %r0
	beq	2f
	nop
	bt	1b
	add	%r9, 1, %r9		! (delay slot)
2:	mov	1, %r12			! take slot r9 (entry r11)
	st	%r12, SL_BUSY[%r11]
	st	%r21, SL_SEQ[%r11]
	ld	NVM_EXP_ASID[%r22], %r12
	sh	%r23, -NVM_PAGE_SHIFT, %r13
	sh	%r13, NVM_PAGE_SHIFT, %r13
	or	%r13, %r12, %r13
	st	%r13, SL_TAG[%r11]
	st	%r19, SL_SRC[%r11]
	ld	[slots_busy], %r12
	add	%r12, 1, %r12
	st	%r12, [slots_busy]
	ld	P_SLOTS_BUSY[%r20], %r12
	add	%r12, 1, %r12
	st	%r12, P_SLOTS_BUSY[%r20]
	PUSH	%r9
	mov	NVM_GLOB_BASE, %r7	! DMA the payload into the slot
	ld	NVM_GLOB_SYS_BUF[%r7], %r7
	sh	%r9, SYSBUF_SHIFT, %r8
	add	%r7, %r8, %r7
	add	%r16, NVM_HDR_SIZE, %r6
	mov	%r18, %r8
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	POP	%r9
	POP	%r8
	sub.f	%r8, 0, %r0		! RCNT += 1 (the NIC word is the NIC's)
	beq	3f
	mov	1 << NVM_SPT_RCNT_SHIFT, %r7	! (delay slot)
	ld	NVM_SPT_NIC[%r8], %r10
	add	%r10, %r7, %r10
	st	%r10, NVM_SPT_NIC[%r8]
3:	mov	evrec, %r10		! EvRedirect (§6.3)
	sh	%r9, 16, %r7
	or	%r7, %r19, %r7
	st	%r7, NVM_EV_A0[%r10]
	ld	NVM_EXP_ASID[%r22], %r7
	st	%r7, NVM_EV_A1[%r10]
	st	%r23, NVM_EV_A2[%r10]
	st	%r18, NVM_EV_A3[%r10]
	st	%r21, NVM_EV_A4[%r10]
	mov	0xFFFF, %r7		! the counter id, if this packet notifies
	and	%r25, %r7, %r7
	add	%r25, 1, %r8
	sub.f	%r8, 0, %r0
	bne	4f
	nop
	mov	-1, %r7
4:	st	%r7, NVM_EV_A5[%r10]
	STAT	NVM_STAT_REDIRECT	! counted before the event is visible
	mov	NVM_EV_REDIRECT, %r6
	mov	%r24, %r7
	CALL	ev_post
	mov	%r19, %r6		! it holds its credit: ACK it now, so that
	CALL	ctrlq_push		! the sender does not time out on it
	bt	.Lrd_accept		! placed for the window, credit held
	nop
! No free slot: the sender broke the credit rule (or, in ModeBackup,
! takes no credits: the backup ring is full). Drop it, NACK resend.
.Lrr_none:
	STAT	NVM_STAT_RING_FULL
	POP	%r8
	bt	.Lrd_resend
	nop

! rx_export: find the live export entry of key r6 whose endpoint is
! HdrDstEp of the packet at r16 and is open. In: r6 key, r16 packet.
! Out: r22 entry (0 if none), r24 its endpoint; r17 = StatusEpClosed if
! the key is live but its endpoint is not open. Clobbers r7, r8, r13,
! r14. export_find: the same for the endpoint in r14 instead.
rx_export:
	uld.b	NVM_HDR_DST_EP[%r16], %r14
export_find:
	mov	NVM_EXP_KEY_INDEX_MASK, %r7
	and	%r6, %r7, %r7
	sh	%r7, TABLE_SHIFT, %r7
	mov	NVM_EXPORT_BASE, %r8
	add	%r7, %r8, %r22
	ld	NVM_EXP_KEY[%r22], %r7
	sub.f	%r7, %r6, %r0
	bne	9f
	sub.f	%r6, 0, %r0		! (delay slot) key 0 never matches
	beq	9f
	nop
	ld	NVM_EXP_EP[%r22], %r24
	sub.f	%r14, %r24, %r0
	bne	9f
	nop
	EPSTATE	%r24, %r8
	ld	NVM_EP_ST_STATE[%r8], %r7
	sub.f	%r7, NVM_EP_CLOSED, %r0
	bne	8f
	nop
	mov	NVM_STATUS_EP_CLOSED, %r17
9:	mov	0, %r22
8:	RET

! defer_process: apply the deferred notifications of sender r6 that are
! due, in order (§9): the first one's packet k is due when the window
! base is past k and no system-buffer slot of this sender holds a packet
! with a number up to k. Clobbers r6-r14 (keeps r16-r25).
defer_process:
	PUSH_RCA
	PUSH	%r16
	PUSH	%r17
	PUSH	%r18
	mov	%r6, %r16		! the sender
	PEER	%r16, %r17
1:	ld	P_DEF_COUNT[%r17], %r7
	sub.f	%r7, 0, %r0
	beq	9f
	ld	P_DEF_HEAD[%r17], %r7	! (delay slot)
	sh	%r7, DEFER_SHIFT, %r7
	sh	%r16, DEFER_PEER_SHIFT, %r8
	add	%r7, %r8, %r7
	mov	NVM_DEFER_BASE, %r8
	add	%r7, %r8, %r18		! the entry
	ld	DF_SEQ[%r18], %r9	! k
	ld	P_RX_BASE[%r17], %r7	! (a) base past k: k - base "negative"
	sub	%r9, %r7, %r7
	mov	NVM_SEQ_MASK, %r14
	and	%r7, %r14, %r7
	sub.f	%r7, HALF_SEQ, %r0
	bult	9f
	ld	P_SLOTS_BUSY[%r17], %r7	! (delay slot) (b) no slot up to k
	sub.f	%r7, 0, %r0
	beq	4f
	ld	P_SLOT_BASE[%r17], %r10	! (delay slot)
	ld	[ncredits], %r11
	add	%r11, %r10, %r11
2:	sh	%r10, SLOT_SHIFT, %r12
	mov	NVM_SLOT_TAB_BASE, %r13
	add	%r12, %r13, %r12
	ld	SL_BUSY[%r12], %r13
	sub.f	%r13, 0, %r0
	beq	3f
	ld	SL_SEQ[%r12], %r13	! (delay slot)
	sub	%r9, %r13, %r13		! k - seq "not negative": held back
	and	%r13, %r14, %r13
	sub.f	%r13, HALF_SEQ, %r0
	bult	9f
	nop
3:	add	%r10, 1, %r10
	sub.f	%r10, %r11, %r0
	bne	2b
	nop
4:	ld	P_DEF_HEAD[%r17], %r7	! due: pop it, apply it
	add	%r7, 1, %r7
	mov	NVM_DEFER_MAX - 1, %r8
	and	%r7, %r8, %r7
	st	%r7, P_DEF_HEAD[%r17]
	ld	P_DEF_COUNT[%r17], %r7
	sub	%r7, 1, %r7
	st	%r7, P_DEF_COUNT[%r17]
	ld	DF_CTR[%r18], %r7
	sh	%r7, -16, %r6		! ep
	mov	0xFFFF, %r8
	and	%r7, %r8, %r7		! id
	CALL	ctr_apply
	bt	1b
	nop
9:	POP	%r18
	POP	%r17
	POP	%r16
	POP_RCA
	RET

! ctr_apply: counter r7 of endpoint r6 += 1 (§9): the SRAM shadow (the
! master copy), one 8-byte DMA of the new value to the status page
! (PageCtr + 8c), StatNotify, then the arm check. Clobbers r6-r14.
ctr_apply:
	PUSH_RCA
	sh	%r6, CTR_EP_SHIFT, %r8
	add	%r8, %r7, %r8
	sh	%r8, CTR_SHIFT, %r8
	mov	NVM_CTR_BASE, %r9
	add	%r8, %r9, %r8		! the shadow
	ld	NVM_CTR_VALUE_LO[%r8], %r9
	ld	NVM_CTR_VALUE_HI[%r8], %r10
	add.f	%r9, 1, %r9
	addc	%r10, 0, %r10
	st	%r9, NVM_CTR_VALUE_LO[%r8]
	st	%r10, NVM_CTR_VALUE_HI[%r8]
	PUSH	%r6
	PUSH	%r7
	PUSH	%r8
	EPSTATE	%r6, %r9
	ld	NVM_EP_ST_PAGE[%r9], %r9
	add	%r9, NVM_PAGE_CTR, %r9
	sh	%r7, PAGE_CTR_SHIFT, %r7
	add	%r7, %r9, %r7
	add	%r8, NVM_CTR_VALUE_HI, %r6
	mov	CTR_VALUE_BYTES, %r8
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	STAT	NVM_STAT_NOTIFY
	POP	%r6
	POP	%r8
	POP	%r7
	CALL	ctr_check
	POP_RCA
	RET

! ctr_check: the arm of a counter (§9): CtrModeOnce: when value - target
! (low 32 bits, signed) >= 0, EvCtrWake and disarm; CtrModeEvery:
! EvCtrWake. In: r6 shadow, r7 ep, r8 counter id. Clobbers r6-r14.
ctr_check:
	ld	NVM_CTR_MODE[%r6], %r9
	sub.f	%r9, NVM_CTR_MODE_OFF, %r0
	beq	9f
	sub.f	%r9, NVM_CTR_MODE_EVERY, %r0	! (delay slot)
	beq	1f
	ld	NVM_CTR_VALUE_LO[%r6], %r10	! (delay slot) once: due?
	ld	NVM_CTR_TARGET[%r6], %r11
	sub.f	%r10, %r11, %r0
	bmi	9f
	nop
	st	%r0, NVM_CTR_MODE[%r6]	! disarm
1:	mov	evrec, %r10
	st	%r8, NVM_EV_A0[%r10]
	ld	NVM_CTR_VALUE_HI[%r6], %r11
	st	%r11, NVM_EV_A1[%r10]
	ld	NVM_CTR_VALUE_LO[%r6], %r11
	st	%r11, NVM_EV_A2[%r10]
	st	%r9, NVM_EV_A3[%r10]
	st	%r0, NVM_EV_A4[%r10]
	st	%r0, NVM_EV_A5[%r10]
	mov	NVM_EV_CTR_WAKE, %r6
	bt	ev_post			! (tail call)
	nop
9:	RET

! A DATA packet whose key is not a region's: an atomic request if the
! export is ExpKindAtomic (rx_atomic), else StatusKey. (Jumped to from
! rx_data's kind check: r8 the kind, r17 StatusKey.)
.Lrd_kind:
	sub.f	%r8, NVM_EXP_KIND_ATOMIC, %r0
	bne	.Lrd_error
	nop
! rx_atomic: apply the atomic request in the packet's payload (§5.5) to a
! word of the ExpKindAtomic export r22 and send the old value back in a
! reply DATA packet. The request is accepted only in order (every
! earlier packet of the sender received: q = base; else NACK
! StatusResend, it comes back), only if the reply can be built now
! (window, credit, a send buffer to the sender; else NACK StatusResend),
! and only if its page locks (§4.3 as a destination; else NACK StatusRNR
! and an EvRecvFault, as ModeNPF: the host faults the page in, the
! sender retries after the RNR delay). Its duplicates are dropped by the
! window like any DATA packet's, so it is applied once. (Jumped to from
! rx_data, which pushed rca: r16 packet, r18 length, r19 source node, r20
! peer, r21 sequence number, r22 export entry, r24 endpoint, r25 = -1.)
rx_atomic:
	ld	P_RX_BASE[%r20], %r7	! in order
	sub.f	%r21, %r7, %r0
	bne	.Lrd_resend
	nop
	mov	NVM_STATUS_BAD_CMD, %r17	! the request
	sub.f	%r18, NVM_ATOM_REQ_SIZE, %r0
	bne	.Lrd_error
	nop
	add	%r16, NVM_HDR_SIZE, %r12
	ld	NVM_ATOM_OP[%r12], %r7
	sub.f	%r7, NVM_ATOM_FETCH_ADD, %r0
	beq	1f
	sub.f	%r7, NVM_ATOM_CAS, %r0	! (delay slot)
	bne	.Lrd_error
	nop
1:	mov	NVM_STATUS_PERM, %r17
	ld	NVM_EXP_KIND[%r22], %r7
	mov	NVM_EXP_PERM_W, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lrd_error
	nop
	mov	NVM_STATUS_BOUNDS, %r17	! a whole, aligned word of the region
	ld	NVM_ATOM_OFFSET[%r12], %r7
	mov	3, %r8
	and	%r7, %r8, %r8
	sub.f	%r8, 0, %r0
	bne	.Lrd_error
	nop
	ld	NVM_EXP_LEN[%r22], %r8
	sub.f	%r8, 4, %r8
	bult	.Lrd_error
	nop
	sub.f	%r7, %r8, %r0
	bugt	.Lrd_error
	nop
	ld	NVM_EXP_BASE[%r22], %r23
	add	%r23, %r7, %r23		! the word's VA
	! The reply's resources (§5.5): a sequence number in the window (the
	! last one, which send_step leaves for replies, may be used), no
	! credit (else two nodes whose atomics wait for each other's replies
	! could hold each other's windows and credits for ever), a buffer.
	ld	P_DEAD[%r20], %r7
	sub.f	%r7, 0, %r0
	bne	.Lrd_resend
	nop
	ld	P_TX_SEQ[%r20], %r11	! window
	ld	P_TX_ACKED[%r20], %r7
	sub	%r11, %r7, %r7
	mov	NVM_SEQ_MASK, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, NVM_WINDOW, %r0
	buge	.Lrd_resend
	nop
	ld	[bufq_head], %r6	! a free buffer, not the one the engine
	ld	[bufq_tail], %r7	! may still send
	sub.f	%r6, %r7, %r0
	beq	.Lrd_resend
	mov	QMASK, %r7		! (delay slot)
	and	%r6, %r7, %r7
	mov	bufq, %r8
	uld.b	%r7[%r8], %r18		! the reply's buffer
	ld	[tx_inflight], %r7
	sub.f	%r7, %r18, %r0
	bne	2f
	nop
	ld	ISR[%r0], %r7
	mov	ISR_SEND_INT, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lrd_resend
	nop
	! Lock the word's page and apply the request (§4.3, a destination).
2:	add	%r16, NVM_HDR_SIZE, %r12
	CALL	atom_apply
	sub.f	%r9, 0, %r0
	beq	.Lrx_rnr
	nop
	! The reply (§5.5): a 4-byte DATA packet, last, to the requester's
	! region and counter, built as send_step builds one.
	ld	[bufq_head], %r6	! take the buffer (r18)
	add	%r6, 1, %r6
	st	%r6, [bufq_head]
	BUFADDR	%r18, %r14
	mov	stage, %r7		! the payload: the old value
	ld	0[%r7], %r7
	st	%r7, NVM_BUF_PAYLOAD[%r14]
	add	%r14, NVM_BUF_HDR, %r6
	add	%r16, NVM_HDR_SIZE, %r12
	ld	NVM_ATOM_REPLY_CTR[%r12], %r8
	mov	hi(NVM_PKT_TYPE << 16 | NVM_KIND_DATA << 8 | NVM_FLAG_LAST), %r7
	or	%r7, lo(NVM_PKT_TYPE << 16 | NVM_KIND_DATA << 8 | NVM_FLAG_LAST), %r7
	sub.f	%r8, 0, %r0
	beq	5f
	nop
	or	%r7, NVM_FLAG_NOTIFY, %r7
5:	st	%r7, NVM_HDR_TYPE[%r6]	! type, kind, flags
	st	%r8, NVM_HDR_CTR_KEY[%r6]
	ld	[node_id], %r7
	sh	%r7, 16, %r7
	or	%r7, %r19, %r7
	st	%r7, NVM_HDR_SRC_NODE[%r6]	! source node, destination node
	uld.b	NVM_HDR_SRC_EP[%r16], %r7	! to the requester's endpoint
	sh	%r7, 16, %r7
	sh	%r24, 24, %r8
	or	%r7, %r8, %r7
	or	%r7, 4, %r7
	st	%r7, NVM_HDR_SRC_EP[%r6]	! endpoints, length 4
	ld	NVM_ATOM_REPLY_KEY[%r12], %r7
	st	%r7, NVM_HDR_KEY[%r6]
	ld	NVM_ATOM_REPLY_OFF[%r12], %r7
	st	%r7, NVM_HDR_OFFSET[%r6]
	ld	P_TX_SEQ[%r20], %r11
	sh	%r11, 16, %r7
	st	%r7, NVM_HDR_SEQ[%r6]	! sequence number, credit 0
	ld	NVM_HDR_AUX[%r16], %r7
	st	%r7, NVM_HDR_AUX[%r6]	! the request's ticket
	mov	%r6, %r7
	mov	%r19, %r6
	CALL	put_route		! r6 = first byte of the packet
	st	%r6, BT_START[%r14]
	add	%r14, NVM_BUF_PAYLOAD + 4, %r7
	st	%r7, BT_END[%r14]
	st	%r19, BT_PEER[%r14]
	ld	P_TX_SEQ[%r20], %r11
	st	%r11, BT_SEQ[%r14]
	mov	31, %r7
	and	%r11, %r7, %r7		! P_BUF[seq & 31] = buffer
	add	%r20, %r7, %r7
	st.b	%r18, P_BUF[%r7]
	add	%r11, 1, %r7
	mov	NVM_SEQ_MASK, %r8
	and	%r7, %r8, %r7
	st	%r7, P_TX_SEQ[%r20]
	ld	[txq_tail], %r6		! txq <- buffer
	mov	QMASK, %r7
	and	%r6, %r7, %r7
	mov	txq, %r8
	st.b	%r18, %r7[%r8]
	add	%r6, 1, %r6
	st	%r6, [txq_tail]
	TXWORK_INC
	bt	.Lrd_placed		! the request: placed, credit free, ACK
	mov	-1, %r25		! (delay slot) no notification

! .Lep_other (ep_poll, send.s): not a WRITE: an ATOMIC (§5.5) is checked and sent as a one-packet
! inline WRITE; anything else completes with StatusBadCmd.
.Lep_other:
	sub.f	%r7, NVM_OP_ATOMIC, %r0
	bne	.Lep_fail
	nop
	CALL	atomic_check		! r19 = status (keeps r9, r20)
	sub.f	%r19, NVM_STATUS_OK, %r0
	bne	.Lep_fail
	ld	NVM_IMP_NODE[%r20], %r7	! (delay slot) the word on this node?
	ld	[node_id], %r8
	sub.f	%r7, %r8, %r0
	beq	1f
	mov	EP_CUR_ATOMIC, %r7	! (delay slot)
	POP_RCA
	bt	send_step		! its packet in this pass
	nop
1:	st	%r7, EP_CUR[%r17]	! a loopback: the NIC applies it itself
	st	%r0, EP_RETRY[%r17]
	POP_RCA
	bt	atomic_local		! in this pass
	nop

! atomic_check: check the ATOMIC in the ring slot at r9 (§5.5): an import
! of kind ExpKindAtomic owned by this endpoint, a known operation, a
! 4-aligned word inside the region. If it passes, the endpoint executes
! it as an inline WRITE of the AtomReqSize-byte request (at WrInline in
! the slot) to a tag offset of the import (below), with no counter
! (.Lwrite_prep, write_check's tail in send.s: it keeps the source r7,
! length r22, destination offset r23, counter key r24 and the header
! words of import entry r20, and sets EP_CUR). In: r9 slot, r16 ep, r17 ep state. Out: r19 status.
! Keeps r9. Uses r7, r8, r10, r20-r24.
atomic_check:
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
	sub.f	%r7, NVM_EXP_KIND_ATOMIC, %r0
	bne	9f
	nop
	mov	NVM_STATUS_BAD_CMD, %r19	! the operation
	ld	NVM_WR_INLINE + NVM_ATOM_OP[%r9], %r7
	sub.f	%r7, NVM_ATOM_FETCH_ADD, %r0
	beq	1f
	sub.f	%r7, NVM_ATOM_CAS, %r0	! (delay slot)
	bne	9f
	nop
1:	mov	NVM_STATUS_BOUNDS, %r19	! a whole, aligned word of the region
	ld	NVM_WR_INLINE + NVM_ATOM_OFFSET[%r9], %r23
	mov	3, %r8
	and	%r23, %r8, %r8
	sub.f	%r8, 0, %r0
	bne	9f
	nop
	ld	NVM_IMP_LEN[%r20], %r8
	sub.f	%r8, 4, %r8		! offset <= ImpLen - 4
	bult	9f
	nop
	sub.f	%r23, %r8, %r0
	bugt	9f
	nop
	ld	NVM_WR_INLINE + 0[%r9], %r8	! the request, kept as an inline payload
	st	%r8, EP_INLINE + 0[%r17]
	ld	NVM_WR_INLINE + 4[%r9], %r8
	st	%r8, EP_INLINE + 4[%r17]
	ld	NVM_WR_INLINE + 8[%r9], %r8
	st	%r8, EP_INLINE + 8[%r17]
	ld	NVM_WR_INLINE + 12[%r9], %r8
	st	%r8, EP_INLINE + 12[%r17]
	ld	NVM_WR_INLINE + 16[%r9], %r8
	st	%r8, EP_INLINE + 16[%r17]
	ld	NVM_WR_INLINE + 20[%r9], %r8
	st	%r8, EP_INLINE + 20[%r17]
	ld	NVM_WR_INLINE + 24[%r9], %r8
	st	%r8, EP_INLINE + 24[%r17]
	ld	EP_FLAGS[%r17], %r8
	or	%r8, NVM_CMD_FLAG_INLINE, %r8
	st	%r8, EP_FLAGS[%r17]
	sh	%r16, 6, %r23		! the packet's offset: a tag, page
	ld	EP_SLOT[%r17], %r8	! (ep * 64 + slot) << 12, which no other
	or	%r23, %r8, %r23		! outstanding atomic of this node
	sh	%r23, NVM_PAGE_SHIFT, %r23	! shares (§5.5: no write-after-write wait)
	mov	NVM_ATOM_REQ_SIZE, %r22
	mov	0, %r24			! no counter
	bt	.Lwrite_prep		! (tail: it returns for us)
	mov	0, %r7			! (delay slot) the inline copy's offset
9:	RET

! atom_apply: apply the atomic request at r12 (§5.5) to the word at VA
! r23 of the ExpKindAtomic export r22: lock its page (§4.3, a
! destination), read the word (host -> SRAM DMA of 4 bytes), compute,
! write the new value back (none when a compare-and-swap fails), set D
! if written, unlock. The firmware is single-threaded, so nothing else
! touches the word between the read and the write. Out: r9 = 0 if the
! page did not lock (nothing done); otherwise stage[0] = the old value.
! Keeps r12, r16-r25. Clobbers r6-r11, r13, r14.
atom_apply:
	PUSH_RCA
	PUSH	%r12			! the request (the SPT helpers clobber r12)
	ld	NVM_EXP_ASID[%r22], %r6
	mov	%r23, %r7
	CALL	spt_lookup
	sub.f	%r8, 0, %r0
	beq	9f
	mov	0, %r9			! (delay slot)
	mov	NVM_SPT_R, %r6
	mov	NVM_SPT_V | NVM_SPT_W, %r7
	CALL	spt_lock
	sub.f	%r9, 0, %r0
	beq	9f
	mov	NVM_PAGE_SIZE - 1, %r7	! (delay slot)
	and	%r23, %r7, %r7
	or	%r9, %r7, %r7		! the word's host address
	PUSH	%r8			! the entry
	mov	stage, %r6		! read the word: stage[0] = old
	mov	4, %r8
	mov	DIR_FROM_HOST, %r9
	CALL	dma_sync
	ld	4[%sp], %r12		! the request, pushed at the entry
	ld	0[%r6], %r10		! old
	ld	NVM_ATOM_ARG0[%r12], %r8
	ld	NVM_ATOM_OP[%r12], %r9
	sub.f	%r9, NVM_ATOM_FETCH_ADD, %r0
	beq	3f
	add	%r10, %r8, %r11		! (delay slot) new = old + addend
	sub.f	%r10, %r8, %r0		! compare-and-swap: old = expected?
	beq	2f
	nop
	bt	4f			! no: nothing to store
	mov	0, %r6			! (delay slot) not dirtied
2:	ld	NVM_ATOM_ARG1[%r12], %r11
3:	st	%r11, 4[%r6]		! write the new value back: stage[1]
	add	%r6, 4, %r6
	mov	4, %r8
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	mov	1, %r6			! dirtied
4:	POP	%r8
	CALL	spt_unlock
	mov	1, %r9			! applied
9:	POP	%r12
	POP_RCA
	RET

! atomic_local: the ATOMIC of endpoint r16 (state r17) on a word of this
! node's memory (a loopback, §5.5): the fabric has no route to the node
! itself, so the NIC does what a remote home and the requester's NIC
! would. EP_CUR_ATOMIC: check the export as rx_data and rx_atomic do
! (its key in EP_KEY, its endpoint EP_REP; the request at EP_INLINE),
! apply it (atom_apply), keep the old value (EP_ATOM_OLD); then
! EP_CUR_REPLY: place the old value in the requester's reply region and
! apply its reply counter, and complete the command. A check that fails
! completes it with the status (in phase 2 the word has already
! changed, as a remote reply refused by its requester). A page that does
! not lock is faulted in as for a remote atomic (EvRecvFault) and the
! phase is retried after the RNR delay (RETX_TICK, EP_RETRY), so the
! word is changed exactly once. In: r16 ep, r17 ep state. Clobbers r6-r14,
! r16-r25.
atomic_local:
	PUSH_RCA
	ld	EP_RETRY[%r17], %r7	! waiting for a page to come in?
	sub.f	%r7, 0, %r0
	beq	1f
	nop
	ld	RTC[%r0], %r8
	sub.f	%r8, %r7, %r0
	bmi	.Lal_out		! not yet
	nop
1:	add	%r17, EP_INLINE, %r12	! the request
	ld	EP_CUR[%r17], %r7
	sub.f	%r7, EP_CUR_REPLY, %r0
	beq	.Lal_reply
	ld	EP_KEY[%r17], %r6	! (delay slot) the word's export
	ld	EP_REP[%r17], %r14
	CALL	export_find		! r22 entry or 0 (keeps r12)
	mov	NVM_STATUS_KEY, %r19
	sub.f	%r22, 0, %r0
	beq	.Lal_fail
	ld	NVM_EXP_KIND[%r22], %r7	! (delay slot)
	mov	KIND_MASK, %r8
	and	%r7, %r8, %r8
	sub.f	%r8, NVM_EXP_KIND_ATOMIC, %r0
	bne	.Lal_fail
	mov	NVM_STATUS_PERM, %r19	! (delay slot)
	mov	NVM_EXP_PERM_W, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lal_fail
	mov	NVM_STATUS_BOUNDS, %r19	! (delay slot) a whole word of the region
	ld	NVM_ATOM_OFFSET[%r12], %r7	! (aligned: atomic_check)
	ld	NVM_EXP_LEN[%r22], %r8
	sub.f	%r8, 4, %r8
	bult	.Lal_fail
	nop
	sub.f	%r7, %r8, %r0
	bugt	.Lal_fail
	ld	NVM_EXP_BASE[%r22], %r23	! (delay slot)
	add	%r23, %r7, %r23		! the word's VA
	CALL	atom_apply
	sub.f	%r9, 0, %r0
	beq	.Lal_fault
	mov	stage, %r7		! (delay slot)
	ld	0[%r7], %r7
	st	%r7, EP_ATOM_OLD[%r17]
	mov	EP_CUR_REPLY, %r7
	st	%r7, EP_CUR[%r17]
	st	%r0, EP_RETRY[%r17]
	add	%r17, EP_INLINE, %r12
	! The reply, as the requester's NIC would place a reply DATA packet
	! (§5.4, §9): the old value into the reply region, then the counter.
.Lal_reply:
	ld	NVM_ATOM_REPLY_KEY[%r12], %r6
	mov	%r16, %r14
	CALL	export_find
	mov	NVM_STATUS_KEY, %r19
	sub.f	%r22, 0, %r0
	beq	.Lal_fail
	ld	NVM_EXP_KIND[%r22], %r7	! (delay slot)
	mov	KIND_MASK, %r8
	and	%r7, %r8, %r8
	sub.f	%r8, NVM_EXP_KIND_REGION, %r0
	bne	.Lal_fail
	mov	NVM_STATUS_PERM, %r19	! (delay slot)
	mov	NVM_EXP_PERM_W, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lal_fail
	mov	NVM_STATUS_BOUNDS, %r19	! (delay slot)
	ld	NVM_ATOM_REPLY_OFF[%r12], %r7
	ld	NVM_EXP_LEN[%r22], %r8
	sub.f	%r8, 4, %r8
	bult	.Lal_fail
	nop
	sub.f	%r7, %r8, %r0
	bugt	.Lal_fail
	ld	NVM_EXP_BASE[%r22], %r23	! (delay slot)
	add	%r23, %r7, %r23		! the reply's VA
	ld	NVM_EXP_ASID[%r22], %r6
	mov	%r23, %r7
	CALL	spt_lookup
	sub.f	%r8, 0, %r0
	beq	.Lal_fault
	mov	NVM_SPT_R, %r6		! (delay slot)
	mov	NVM_SPT_V | NVM_SPT_W, %r7
	CALL	spt_lock
	sub.f	%r9, 0, %r0
	beq	.Lal_fault
	mov	NVM_PAGE_SIZE - 1, %r7	! (delay slot)
	and	%r23, %r7, %r7
	or	%r9, %r7, %r7
	PUSH	%r8
	add	%r17, EP_ATOM_OLD, %r6
	mov	4, %r8
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	POP	%r8
	mov	1, %r6			! a destination: set D
	CALL	spt_unlock
	add	%r17, EP_INLINE, %r12
	ld	NVM_ATOM_REPLY_CTR[%r12], %r6	! the counter, if any
	sub.f	%r6, 0, %r0
	beq	2f
	mov	%r16, %r14		! (delay slot)
	CALL	export_find
	mov	NVM_STATUS_COUNTER, %r19
	sub.f	%r22, 0, %r0
	beq	.Lal_fail
	ld	NVM_EXP_KIND[%r22], %r9	! (delay slot)
	mov	KIND_MASK, %r10
	and	%r9, %r10, %r9
	sub.f	%r9, NVM_EXP_KIND_COUNTER, %r0
	bne	.Lal_fail
	ld	NVM_EXP_BASE[%r22], %r7	! (delay slot) counter id
	sub.f	%r7, NVM_MAX_COUNTERS, %r0
	buge	.Lal_fail
	mov	%r16, %r6		! (delay slot)
	CALL	ctr_apply
2:	mov	NVM_STATUS_OK, %r19
.Lal_fail:
	mov	%r16, %r6
	mov	%r19, %r7
	CALL	ep_complete
.Lal_out:
	POP_RCA
	RET
! The page (r23, export r22) did not lock: ask the host to fault it in
! (EvRecvFault, as .Lrx_rnr) and retry this phase after the RNR delay.
.Lal_fault:
	STAT	NVM_STAT_RECV_FAULT
	mov	evrec, %r10
	ld	NVM_EXP_ASID[%r22], %r7
	st	%r7, NVM_EV_A1[%r10]
	st	%r23, NVM_EV_A2[%r10]
	st	%r0, NVM_EV_A0[%r10]
	st	%r0, NVM_EV_A3[%r10]
	st	%r0, NVM_EV_A4[%r10]
	st	%r0, NVM_EV_A5[%r10]
	mov	NVM_EV_RECV_FAULT, %r6
	mov	%r16, %r7
	CALL	ev_post
	ld	RTC[%r0], %r7
	mov	RETX_TICK, %r8
	add	%r7, %r8, %r7
	st	%r7, EP_RETRY[%r17]
	bt	.Lal_out
	nop
