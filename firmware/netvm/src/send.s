! Part of the NetVM firmware; firmware/netvm/README.md gives the rules every file follows.

! send.s - the endpoint rings and the sender (docs/netvm.md §3.1, §3.2,
! §5.1, §5.2). Included by netvm.s.
!
! A WRITE is taken from its ring, checked, copied into the endpoint's
! private state, and then executed one packet per main-loop pass
! (send_step): window, credit and a free send buffer, lock-and-translate
! of the source page, DMA host -> SRAM, unlock, header, route, and the
! packet goes into txq, which tx_poll hands to the send engine. The DMA
! of the next packet therefore overlaps the transmission of this one.

! ep_poll: one step of endpoint r6: continue its WRITE, or take the next
! command from its ring (§3.1 firmware steps). Parked and closed
! endpoints are skipped. In: r6 endpoint. Clobbers r6-r14, r16-r25.
ep_poll:
	mov	%r6, %r16		! ep
	EPSTATE	%r16, %r17		! its state
	ld	NVM_EP_ST_STATE[%r17], %r7
	sub.f	%r7, NVM_EP_OPEN, %r0
	bne	9f
	ld	EP_CUR[%r17], %r7	! (delay slot)
	sub.f	%r7, 0, %r0
	bne	5f
	ld	EP_SLOTPTR[%r17], %r9	! (delay slot) the next slot
	uld.b	NVM_CMD_OP[%r9], %r7
	sub.f	%r7, 0, %r0
	bne	1f
	nop
9:	RET
! Take the slot: its fields are read where they are (the WRITE keeps
! what it needs in the endpoint state), then the op byte is cleared.
1:	PUSH_RCA
	ld	NVM_EP_ST_NEXT[%r17], %r18
	st	%r18, EP_SLOT[%r17]
	add	%r18, 1, %r8		! the next slot, and its address
	mov	NVM_RING_SLOTS - 1, %r10
	and	%r8, %r10, %r8
	st	%r8, NVM_EP_ST_NEXT[%r17]
	sub.f	%r8, 0, %r0
	bne	2f
	add	%r9, NVM_CMD_SIZE, %r10	! (delay slot)
	sub	%r10, NVM_RING_SLOTS * NVM_CMD_SIZE, %r10	! wrapped
2:	st	%r10, EP_SLOTPTR[%r17]
	ld	NVM_CMD_TICKET[%r9], %r8
	st	%r8, EP_TICKET[%r17]
	uld.b	NVM_CMD_FLAGS[%r9], %r8
	st	%r8, EP_FLAGS[%r17]
	sub.f	%r7, NVM_OP_WRITE, %r0
	beq	3f
	mov	NVM_STATUS_BAD_CMD, %r19	! (delay slot)
	bt	.Lep_other
	st.b	%r0, NVM_CMD_OP[%r9]	! (delay slot) taken
3:	CALL	write_check		! r19 = status (keeps r9)
	sub.f	%r19, NVM_STATUS_OK, %r0
	bne	4f
	st.b	%r0, NVM_CMD_OP[%r9]	! (delay slot) taken
	POP_RCA
	bt	send_step		! the first packet in this pass
	nop
4: .Lep_fail:	mov	%r16, %r6
	mov	%r19, %r7
	CALL	ep_complete
	POP_RCA
	RET
! A command being executed: the next packet of a WRITE, or the next
! step of a loopback ATOMIC (§5.5).
5:	sub.f	%r7, EP_CUR_ATOMIC, %r0
	buge	atomic_local		! (tail call)
	nop
	bt	send_step		! (tail call: send_step returns for us)
	nop

! write_check: check the WRITE in the ring slot at r9 (§3.2) and, if it
! passes, copy what its execution needs into the endpoint state (the
! import entry may be removed meanwhile: the WRITE keeps its copy), with
! the header words that do not change from packet to packet, and set
! EP_CUR. In: r9 slot, r16 ep, r17 ep state. Out: r19 status. Keeps r9.
! Uses r7, r8, r10, r20-r24.
write_check:
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
1:	ld	EP_FLAGS[%r17], %r8	! inline: the payload is in the slot;
	mov	NVM_CMD_FLAG_INLINE, %r10	! keep a copy, and EP_SRC is
	and	%r8, %r10, %r8		! the offset in it
	sub.f	%r8, 0, %r0
	beq	7f
	ld	NVM_WR_SRC_VA[%r9], %r7	! (delay slot)
	mov	NVM_STATUS_LEN, %r19
	sub.f	%r22, NVM_INLINE_MAX, %r0
	bugt	9f
	mov	0, %r7			! (delay slot)
	ld	NVM_WR_INLINE + 0[%r9], %r8
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
	ld	NVM_WR_INLINE + 28[%r9], %r8
	st	%r8, EP_INLINE + 28[%r17]
7: .Lwrite_prep:	st	%r7, EP_SRC[%r17]
	st	%r22, EP_LEFT[%r17]
	st	%r23, EP_DST[%r17]
	ld	NVM_IMP_NODE[%r20], %r7
	st	%r7, EP_NODE[%r17]
	ld	[node_id], %r8		! header word 1: source node, destination node
	sh	%r8, 16, %r8
	or	%r8, %r7, %r8
	st	%r8, EP_H1[%r17]
	ld	NVM_IMP_REMOTE_EP[%r20], %r7	! word 2: source ep, destination ep (| length)
	sh	%r7, 16, %r7
	sh	%r16, 24, %r8
	or	%r8, %r7, %r8
	st	%r8, EP_H2[%r17]
	ld	NVM_IMP_KEY[%r20], %r7
	st	%r7, EP_KEY[%r17]
	st	%r24, EP_CTRKEY[%r17]
	mov	1, %r7
	st	%r7, EP_CUR[%r17]
	mov	NVM_STATUS_OK, %r19
9:	RET

! send_step: build and queue the next packet of endpoint r16's WRITE
! (§5.1, §5.2, §5.3), or stall (window, credit or buffers exhausted,
! or TXQ_AHEAD packets already wait: packets are built just in time,
! ahead of the send engine). The last packet completes the WRITE locally (§6.1)
! once it is handed to the engine. A missing source page parks the
! endpoint (EvSrcFault). In: r16 ep, r17 ep state. Clobbers r6-r14,
! r18-r25. Uses r20 peer, r21 peer state, r22 src VA, r23 dst offset,
! r24 bytes left, r25 this packet's length, r18 its buffer, r19 seq.
send_step:
	ld	[txq_head], %r6
	ld	[txq_tail], %r7
	sub	%r7, %r6, %r7
	sub.f	%r7, TXQ_AHEAD, %r0
	buge	9f			! enough packets wait already
	ld	EP_NODE[%r17], %r20	! (delay slot)
	PEER	%r20, %r21
	ld	P_DEAD[%r21], %r7
	sub.f	%r7, 0, %r0
	bne	.Lss_dead
	ld	EP_SRC[%r17], %r22	! (delay slot)
	ld	EP_DST[%r17], %r23
	ld	EP_LEFT[%r17], %r24
	mov	NVM_PAGE_SIZE - 1, %r8	! the length: to the nearer page end
	and	%r22, %r8, %r7
	mov	NVM_PAGE_SIZE, %r25
	sub	%r25, %r7, %r25		! room in the source page
	and	%r23, %r8, %r7
	mov	NVM_PAGE_SIZE, %r6
	sub	%r6, %r7, %r6		! room in the destination page
	sub.f	%r6, %r25, %r0
	bugt	1f
	nop
	mov	%r6, %r25
1:	sub.f	%r24, %r25, %r0
	bugt	2f
	nop
	mov	%r24, %r25
2:	ld	P_TX_SEQ[%r21], %r19	! window: seq - acked < W - 1 (§7; the
	ld	P_TX_ACKED[%r21], %r7	! last number is kept for an atomic's
	sub	%r19, %r7, %r7		! reply, §5.5)
	mov	NVM_SEQ_MASK, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, NVM_WINDOW - 1, %r0
	buge	9f
	ld	P_TX_LIMIT[%r21], %r7	! (delay slot) credit: seq before limit (§8)
	sub	%r7, %r19, %r7
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lss_nocredit
	sub.f	%r7, HALF_SEQ, %r0	! (delay slot)
	buge	.Lss_nocredit
	nop
.Lss_credited:
	sub.f	%r25, 0, %r0		! write-after-write order (§7):
	beq	.Lss_buf		! no older packet to this peer that is not
	ld	P_TX_ACKED[%r21], %r9	! acknowledged may write the same page, or a
	sh	%r20, 2, %r10		! retransmission of it would land after this
	mov	piggy, %r11		! one (the window places on arrival); a
	add	%r10, %r11, %r10	! noted piggyback (piggy_note) acknowledges
	ld	0[%r10], %r10		! up to its base already
	sub.f	%r10, 0, %r0
	beq	3f
	ld	[ncredits], %r11	! (delay slot)
	add	%r11, 1, %r11
	sub	%r10, %r11, %r10	! its base
	mov	NVM_SEQ_MASK, %r11
	and	%r10, %r11, %r10
	sub	%r10, %r9, %r12		! base - acked
	and	%r12, %r11, %r12
	sub	%r19, %r9, %r13		! <= seq - acked: later than acked
	and	%r13, %r11, %r13
	sub.f	%r12, %r13, %r0
	bugt	3f
	nop
	mov	%r10, %r9
3:	ld	EP_KEY[%r17], %r10
	sh	%r23, -NVM_PAGE_SHIFT, %r11
1:	sub.f	%r9, %r19, %r0
	beq	.Lss_buf
	mov	31, %r7			! (delay slot)
	and	%r9, %r7, %r7
	add	%r21, %r7, %r7
	uld.b	P_BUF[%r7], %r6
	BUFADDR	%r6, %r12
	ld	NVM_BUF_HDR + NVM_HDR_KEY[%r12], %r7
	sub.f	%r7, %r10, %r0
	bne	2f
	ld	NVM_BUF_HDR + NVM_HDR_OFFSET[%r12], %r7	! (delay slot)
	sh	%r7, -NVM_PAGE_SHIFT, %r7
	sub.f	%r7, %r11, %r0
	beq	.Lss_waw
	nop
2:	add	%r9, 1, %r9
	mov	NVM_SEQ_MASK, %r7
	bt	1b
	and	%r9, %r7, %r9		! (delay slot)
.Lss_buf:
	ld	[bufq_head], %r6	! a free buffer
	ld	[bufq_tail], %r7
	sub.f	%r6, %r7, %r0
	beq	9f
	mov	QMASK, %r7		! (delay slot)
	and	%r6, %r7, %r7
	mov	bufq, %r8
	uld.b	%r7[%r8], %r18
	ld	[tx_inflight], %r7	! not the one the engine may still send
	sub.f	%r7, %r18, %r0
	bne	3f
	nop
	ld	ISR[%r0], %r7
	mov	ISR_SEND_INT, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	9f
	nop
3:	PUSH_RCA
	add	%r6, 1, %r6		! take it (r6 = old head)
	st	%r6, [bufq_head]
	BUFADDR	%r18, %r14
	sub.f	%r25, 0, %r0
	beq	4f			! no payload: no page to touch
	ld	NVM_EP_ST_ASID[%r17], %r6	! (delay slot)
	ld	EP_FLAGS[%r17], %r7
	mov	NVM_CMD_FLAG_INLINE, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	bne	.Lss_inline		! the payload came with the command
	mov	%r22, %r7		! (delay slot)
	CALL	spt_lookup
	sub.f	%r8, 0, %r0
	beq	.Lss_fault
	mov	0, %r6			! (delay slot) nothing forbidden besides P
	mov	NVM_SPT_V, %r7
	CALL	spt_lock
	sub.f	%r9, 0, %r0
	beq	.Lss_fault
	mov	NVM_PAGE_SIZE - 1, %r7	! (delay slot)
	and	%r22, %r7, %r7
	or	%r9, %r7, %r7		! host address
	PUSH	%r8			! the entry, kept over the DMA
	BUFADDR	%r18, %r6
	add	%r6, NVM_BUF_PAYLOAD, %r6
	mov	%r25, %r8
	mov	DIR_FROM_HOST, %r9
	CALL	dma_sync		! the lock is held exactly while it runs
	POP	%r8
	mov	0, %r6
	CALL	spt_unlock
	BUFADDR	%r18, %r14
	bt	4f
	nop
.Lss_inline:				! copy r25 bytes of the slot's payload
	add	%r17, %r22, %r8
	add	%r8, EP_INLINE, %r8	! from here
	add	%r8, %r25, %r11		! to here
	mov	3, %r7			! from a word boundary (the first packet):
	and	%r8, %r7, %r7		! all eight words (the payload area has
	sub.f	%r7, 0, %r0		! room; only r25 bytes are sent)
	bne	.Lss_copy
	add	%r14, NVM_BUF_PAYLOAD, %r9	! (delay slot)
	ld	0[%r8], %r6
	ld	4[%r8], %r7
	st	%r6, 0[%r9]
	st	%r7, 4[%r9]
	ld	8[%r8], %r6
	ld	12[%r8], %r7
	st	%r6, 8[%r9]
	st	%r7, 12[%r9]
	ld	16[%r8], %r6
	ld	20[%r8], %r7
	st	%r6, 16[%r9]
	st	%r7, 20[%r9]
	ld	24[%r8], %r6
	ld	28[%r8], %r7
	st	%r6, 24[%r9]
	bt	4f
	st	%r7, 28[%r9]		! (delay slot)
.Lss_copy:
	uld.b	0[%r8], %r10
	add	%r8, 1, %r8
	st.b	%r10, 0[%r9]
	sub.f	%r8, %r11, %r0
	bne	.Lss_copy
	add	%r9, 1, %r9		! (delay slot)
	! The header (§5.3), eight words, most of them prepared by
	! write_check.
4:	add	%r14, NVM_BUF_HDR, %r6
	mov	hi(NVM_PKT_TYPE << 16 | NVM_KIND_DATA << 8), %r7
	or	%r7, lo(NVM_PKT_TYPE << 16 | NVM_KIND_DATA << 8), %r7
	mov	0, %r8			! counter key
	sub.f	%r24, %r25, %r0
	bne	5f
	nop
	or	%r7, NVM_FLAG_LAST, %r7
	ld	EP_SLOTPTR[%r17], %r9	! another command posted: the endpoint
	uld.b	NVM_CMD_OP[%r9], %r9	! streams; its next packets may need this
	sub.f	%r9, 0, %r0		! ACK (write-after-write, buffers,
	beq	.+12			! credit): ask for it at once (§7)
	ld	EP_CTRKEY[%r17], %r8	! (delay slot)
	or	%r7, NVM_FLAG_PROBE, %r7
	sub.f	%r8, 0, %r0
	beq	5f
	nop
	or	%r7, NVM_FLAG_NOTIFY, %r7
	! The delayed ACK owed to the peer, if any, rides on it (§7,
	! FlagAck): when the window from the peer has no gap, no NACK is owed
	! and no slot is held, the credit limit alone says the base.
5:	mov	ack_owed, %r11
	uld.b	%r20[%r11], %r9
	sub.f	%r9, 0, %r0
	beq	6f
	mov	0, %r9			! (delay slot) credit 0: no ACK
	ld	P_RX_BITS[%r21], %r10
	ld	P_NACK_STATUS[%r21], %r12
	or	%r10, %r12, %r10
	ld	P_SLOTS_BUSY[%r21], %r12
	or.f	%r10, %r12, %r0
	bne	6f
	ld	P_RX_RELEASED[%r21], %r10	! (delay slot)
	st	%r10, P_ACK_REL[%r21]
	ld	[ncredits], %r9
	add	%r10, %r9, %r9
	mov	NVM_SEQ_MASK, %r10
	and	%r9, %r10, %r9		! the credit limit
	or	%r7, NVM_FLAG_ACK, %r7
	st.b	%r0, %r20[%r11]		! no longer owed
6:	st	%r7, NVM_HDR_TYPE[%r6]	! type, kind, flags
	st	%r8, NVM_HDR_CTR_KEY[%r6]
	ld	EP_H1[%r17], %r7
	st	%r7, NVM_HDR_SRC_NODE[%r6]	! source node, destination node
	ld	EP_H2[%r17], %r7
	or	%r7, %r25, %r7
	st	%r7, NVM_HDR_SRC_EP[%r6]	! endpoints, length
	ld	EP_KEY[%r17], %r7
	st	%r7, NVM_HDR_KEY[%r6]
	st	%r23, NVM_HDR_OFFSET[%r6]
	sh	%r19, 16, %r7
	or	%r7, %r9, %r7
	st	%r7, NVM_HDR_SEQ[%r6]	! sequence number, credit limit or 0
	ld	EP_TICKET[%r17], %r7
	st	%r7, NVM_HDR_AUX[%r6]	! echoed by an error NACK
	mov	%r6, %r7
	mov	%r20, %r6
	CALL	put_route		! r6 = first byte of the packet
	st	%r6, BT_START[%r14]
	add	%r14, NVM_BUF_PAYLOAD, %r7
	add	%r7, %r25, %r7
	st	%r7, BT_END[%r14]
	st	%r20, BT_PEER[%r14]
	st	%r19, BT_SEQ[%r14]
	mov	31, %r7
	and	%r19, %r7, %r7		! P_BUF[seq & 31] = buffer
	add	%r21, %r7, %r7
	st.b	%r18, P_BUF[%r7]
	add	%r19, 1, %r7
	mov	NVM_SEQ_MASK, %r8
	and	%r7, %r8, %r7
	st	%r7, P_TX_SEQ[%r21]
	ld	[txq_tail], %r6		! txq <- buffer
	mov	QMASK, %r7
	and	%r6, %r7, %r7
	mov	txq, %r8
	st.b	%r18, %r7[%r8]
	add	%r6, 1, %r6
	st	%r6, [txq_tail]
	TXWORK_INC
	add	%r22, %r25, %r22	! advance the WRITE
	add	%r23, %r25, %r23
	sub	%r24, %r25, %r24
	st	%r22, EP_SRC[%r17]
	st	%r23, EP_DST[%r17]
	st	%r24, EP_LEFT[%r17]
	sub.f	%r24, 0, %r0
	bne	8f
	nop
	CALL	tx_poll			! the last packet: send it first ...
	mov	%r16, %r6		! ... then complete the WRITE locally
	mov	NVM_STATUS_OK, %r7
	CALL	ep_complete
8:	POP_RCA
9:	RET
! Out of credit: in ModeBackup (the E6 baseline: no flow control for
! the backup ring) send anyway; otherwise count the stall, mark it for
! timer_poll's probe (and keep the timer running), retry in a later pass.
.Lss_nocredit:
	ld	[mode], %r7
	sub.f	%r7, NVM_MODE_BACKUP, %r0
	beq	.Lss_credited
	nop
.Lss_credit:
	STAT	NVM_STAT_CREDIT_STALL
	ld	P_STALL[%r21], %r7
	or	%r7, STALL_CREDIT, %r7
	st	%r7, P_STALL[%r21]
	ld	[timer_on], %r7
	sub.f	%r7, 0, %r0
	bne	1f
	mov	RETX_TICK, %r7		! (delay slot)
	st	%r7, IT0[%r0]
	mov	1, %r7
	st	%r7, [timer_on]
1:	RET
! An older packet to the same page is not acknowledged: count it, ask
! for an ACK at once (a probe, once per wait: rx_ack clears STALL_WAW on
! progress), retry in a later pass. The retransmission timer runs while
! packets are outstanding, so a lost probe costs a timeout, not a hang.
.Lss_waw:
	STAT	NVM_STAT_WAW_STALL
	ld	P_STALL[%r21], %r7
	mov	STALL_WAW, %r8
	and	%r7, %r8, %r8
	sub.f	%r8, 0, %r0
	bne	1f
	or	%r7, STALL_WAW | STALL_PROBE, %r7	! (delay slot)
	st	%r7, P_STALL[%r21]
	PUSH_RCA
	mov	%r20, %r6
	CALL	ctrlq_push
	POP_RCA
1:	RET
! The destination node is unreachable: the WRITE fails.
.Lss_dead:
	mov	%r16, %r6
	bt	ep_complete		! (tail call)
	mov	NVM_STATUS_TIMEOUT, %r7	! (delay slot)
! The source page is not resident (§5.2): give the buffer back (it is
! the head of bufq again), park the endpoint and tell the driver.
.Lss_fault:
	ld	[bufq_head], %r6
	sub	%r6, 1, %r6
	st	%r6, [bufq_head]
	mov	NVM_EP_PARKED, %r7
	st	%r7, NVM_EP_ST_STATE[%r17]
	mov	evrec, %r10
	ld	EP_TICKET[%r17], %r7
	st	%r7, NVM_EV_A0[%r10]
	ld	NVM_EP_ST_ASID[%r17], %r7
	st	%r7, NVM_EV_A1[%r10]
	sh	%r22, -NVM_PAGE_SHIFT, %r7
	sh	%r7, NVM_PAGE_SHIFT, %r7
	st	%r7, NVM_EV_A2[%r10]	! the missing page
	st	%r0, NVM_EV_A3[%r10]
	st	%r0, NVM_EV_A4[%r10]
	st	%r0, NVM_EV_A5[%r10]
	STAT	NVM_STAT_SRC_FAULT	! counted before the event is visible
	mov	NVM_EV_SRC_FAULT, %r6
	mov	%r16, %r7
	CALL	ev_post
	POP_RCA
	RET

! put_route: store the route of node r6 right-aligned before the header
! at r7 (§2.4, docs/links.md). Out: r6 = the packet's first byte.
! Clobbers r7-r11.
put_route:
	sh	%r6, ROUTE_SHIFT, %r8
	mov	NVM_ROUTE_BASE, %r9
	add	%r8, %r9, %r8		! route entry
	uld.b	NVM_ROUTE_LEN[%r8], %r9
	sub	%r7, %r9, %r6		! packet start
	mov	0, %r10
1:	sub.f	%r10, %r9, %r0
	buge	2f
	add	%r8, %r10, %r11		! (delay slot)
	uld.b	NVM_ROUTE_BYTES[%r11], %r11
	add	%r6, %r10, %r7
	st.b	%r11, 0[%r7]
	bt	1b
	add	%r10, 1, %r10		! (delay slot)
2:	RET
