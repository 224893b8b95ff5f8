! Part of the NetVM firmware; firmware/netvm/README.md gives the rules every file follows.

! tx.s - the send engine and the sender's half of the peer protocol
! (docs/netvm.md §7, §8): tx_poll (what to send next), ACK/NACK
! building, ACK/NACK processing, the send-buffer pool, retransmission and
! its timer (IT0), unreachable peers. Included by netvm.s.
!
! Order of service when the send engine is idle: ACK/NACKs (ctrlq), then
! retransmissions (retxq), then new packets (txq). Each queue holds at
! most 64 entries and cannot overflow: ctrlq and retxq hold a peer at
! most once (P_IN_CTRLQ, P_IN_RETXQ), txq at most every send buffer.

! tx_poll: if the send engine is idle, start the next packet. A helper
! (r6-r14 only). Clobbers r6-r14.
tx_poll:
	ld	ISR[%r0], %r6
	mov	ISR_SEND_INT, %r7
	and	%r6, %r7, %r6
	sub.f	%r6, 0, %r0
	bne	tx_take
	nop
	RET
! tx_take: tx_poll once SEND_INT is known to be set.
tx_take:
	ld	[prio_work], %r6	! an ACK/NACK or a retransmission?
	sub.f	%r6, 0, %r0
	beq	.Ltx_new
	ld	[ctrlq_head], %r6	! (delay slot)
	ld	[ctrlq_tail], %r7
	sub.f	%r6, %r7, %r0
	bne	tx_ctrl
	nop
	ld	[retxq_head], %r6
	ld	[retxq_tail], %r7
	sub.f	%r6, %r7, %r0
	bne	tx_retx
	nop
.Ltx_new:
	ld	[txq_head], %r6
	ld	[txq_tail], %r7
	sub.f	%r6, %r7, %r0
	bne	tx_new
	nop
	RET

! tx_ctrl: send the ACK or NACK owed to the peer at the head of ctrlq
! (§7): base, credit limit, and the bitmap (ACK) or the status (NACK),
! built from the current state (all cumulative). In: r6 ctrlq_head.
tx_ctrl:
	mov	QMASK, %r7
	and	%r6, %r7, %r7
	mov	ctrlq, %r8
	uld.b	%r7[%r8], %r8		! the peer
	add	%r6, 1, %r6
	st	%r6, [ctrlq_head]
	TXWORK_DEC
	PRIO_DEC
	PEER	%r8, %r9
	st	%r0, P_IN_CTRLQ[%r9]
	mov	ack_owed, %r10		! it covers a delayed ACK owed
	st.b	%r0, %r8[%r10]
	mov	NVM_CTRL_BUF_BASE + NVM_BUF_HDR, %r10	! the header
	mov	NVM_PKT_TYPE, %r7
	st.h	%r7, NVM_HDR_TYPE[%r10]
	ld	P_STALL[%r9], %r7	! a probe due?
	mov	STALL_PROBE, %r11
	and	%r7, %r11, %r11
	xor	%r7, %r11, %r7		! it goes now
	st	%r7, P_STALL[%r9]
	sub.f	%r11, 0, %r0
	beq	3f
	mov	0, %r7			! (delay slot)
	mov	NVM_FLAG_PROBE, %r7
3:	st.b	%r7, NVM_HDR_FLAGS[%r10]
	ld	[node_id], %r7
	st.h	%r7, NVM_HDR_SRC_NODE[%r10]
	st.h	%r8, NVM_HDR_DST_NODE[%r10]
	st.b	%r0, NVM_HDR_SRC_EP[%r10]
	st.h	%r0, NVM_HDR_LEN[%r10]
	st	%r0, NVM_HDR_KEY[%r10]
	st	%r0, NVM_HDR_CTR_KEY[%r10]
	ld	P_RX_BASE[%r9], %r7
	st.h	%r7, NVM_HDR_SEQ[%r10]
	ld	P_RX_RELEASED[%r9], %r7
	st	%r7, P_ACK_REL[%r9]
	ld	[ncredits], %r11
	add	%r7, %r11, %r7
	st.h	%r7, NVM_HDR_CREDIT[%r10]	! (the store keeps the low 16 bits)
	ld	P_NACK_STATUS[%r9], %r11
	sub.f	%r11, 0, %r0
	bne	1f
	mov	NVM_KIND_NACK, %r7	! (delay slot)
	mov	NVM_KIND_ACK, %r7	! ACK: the bitmap of base+1.. (§7)
	st.b	%r7, NVM_HDR_KIND[%r10]
	st.b	%r0, NVM_HDR_DST_EP[%r10]
	st	%r0, NVM_HDR_OFFSET[%r10]
	ld	P_RX_BITS[%r9], %r7
	sh	%r7, -1, %r7
	st	%r7, NVM_HDR_AUX[%r10]
	STAT	NVM_STAT_ACK
	bt	2f
	nop
1:	st.b	%r7, NVM_HDR_KIND[%r10]	! NACK: status, ticket, endpoint
	st	%r11, NVM_HDR_AUX[%r10]
	ld	P_NACK_TICKET[%r9], %r7
	st	%r7, NVM_HDR_OFFSET[%r10]
	ld	P_NACK_EP[%r9], %r7
	st.b	%r7, NVM_HDR_DST_EP[%r10]
	st	%r0, P_NACK_STATUS[%r9]
	STAT	NVM_STAT_NACK
2:	mov	%r8, %r6
	mov	%r10, %r7
	PUSH_RCA
	CALL	put_route
	POP_RCA
	mov	NVM_CTRL_BUF_BASE + NVM_BUF_HDR + NVM_HDR_SIZE, %r7
	mov	-1, %r8
	bt	send_range		! (tail call)
	st	%r8, [tx_inflight]	! (delay slot) no send buffer

! tx_retx: the next retransmission of the peer at the head of retxq:
! the cursor runs from the oldest unacknowledged packet to the last one
! sent when the retransmission was decided, skipping packets the last ACK
! reported received. In: r6 retxq_head.
tx_retx:
	mov	QMASK, %r7
	and	%r6, %r7, %r7
	mov	retxq, %r8
	uld.b	%r7[%r8], %r8		! the peer
	PEER	%r8, %r9
	ld	P_RETX_CUR[%r9], %r10
	ld	P_TX_ACKED[%r9], %r11
	ld	P_RETX_END[%r9], %r12
	sub	%r10, %r11, %r7		! a cursor before acked starts at acked
	mov	NVM_SEQ_MASK, %r14
	and	%r7, %r14, %r7
	sub.f	%r7, HALF_SEQ, %r0
	bult	1f
	nop
	mov	%r11, %r10
1:	ld	P_DEAD[%r9], %r7
	sub.f	%r7, 0, %r0
	bne	3f
	nop
2:	sub.f	%r10, %r12, %r0		! done?
	beq	3f
	sub	%r10, %r11, %r7		! (delay slot) d = cur - acked
	and	%r7, %r14, %r7
	sub.f	%r7, 0, %r0
	beq	4f			! the base itself is never in the bitmap
	sub	%r7, 1, %r7		! (delay slot)
	sub.f	%r7, 32, %r0
	buge	4f
	sub	%r0, %r7, %r7		! (delay slot) bit d-1 of P_SACK
	ld	P_SACK[%r9], %r13
	sh	%r13, %r7, %r13
	mov	1, %r7
	and	%r13, %r7, %r13
	sub.f	%r13, 0, %r0
	beq	4f
	nop
	add	%r10, 1, %r10		! received: skip it
	bt	2b
	and	%r10, %r14, %r10	! (delay slot)
3:	ld	[retxq_head], %r6	! nothing left: pop the peer
	add	%r6, 1, %r6
	st	%r6, [retxq_head]
	TXWORK_DEC
	PRIO_DEC
	bt	.Ltx_new
	st	%r0, P_IN_RETXQ[%r9]	! (delay slot)
4:	mov	31, %r7
	and	%r10, %r7, %r7		! send P_BUF[cur & 31]
	add	%r9, %r7, %r7
	uld.b	P_BUF[%r7], %r6
	add	%r10, 1, %r10
	and	%r10, %r14, %r10
	st	%r10, P_RETX_CUR[%r9]
	BUFADDR	%r6, %r8		! a piggybacked ACK is stale by now: drop it
	uld.b	NVM_BUF_HDR + NVM_HDR_FLAGS[%r8], %r7
	and	%r7, ~NVM_FLAG_ACK, %r7
	st.b	%r7, NVM_BUF_HDR + NVM_HDR_FLAGS[%r8]
	STAT	NVM_STAT_RETX
	bt	send_buf		! (tail call)
	nop

! tx_new: send the buffer at the head of txq for the first time. Its
! peer's P_TX_SENT passes it; the retransmission deadline starts when the
! peer had nothing outstanding; the timer starts if it is off. A packet
! for a peer declared unreachable since it was built goes out, but is
! failed at once (buf_fail). In: r6 txq_head.
tx_new:
	mov	QMASK, %r7
	and	%r6, %r7, %r7
	mov	txq, %r8
	uld.b	%r7[%r8], %r12		! the buffer
	add	%r6, 1, %r6
	st	%r6, [txq_head]
	TXWORK_DEC
	BUFADDR	%r12, %r10
	ld	BT_START[%r10], %r6	! send it first ...
	ld	BT_END[%r10], %r7
	mov	SA_MASK, %r8
	and	%r6, %r8, %r8
	st	%r8, SA[%r0]
	st	%r6, SMP[%r0]
	st	%r7, SMLT[%r0]
	st	%r12, [tx_inflight]	! ... then the bookkeeping
	ld	BT_PEER[%r10], %r8
	PEER	%r8, %r9
	ld	P_DEAD[%r9], %r7	! declared unreachable since it was built:
	sub.f	%r7, 0, %r0		! it went out for nothing, and counts
	bne	2f			! as consumed
	nop
	STAT	NVM_STAT_TX_DATA
	ld	BT_SEQ[%r10], %r11
	add	%r11, 1, %r11
	mov	NVM_SEQ_MASK, %r7
	and	%r11, %r7, %r11		! seq + 1
	ld	P_TX_ACKED[%r9], %r7
	ld	P_TX_SENT[%r9], %r13
	sub.f	%r7, %r13, %r0
	bne	1f
	st	%r11, P_TX_SENT[%r9]	! (delay slot)
	ld	RTC[%r0], %r7		! nothing was outstanding: the deadline
	mov	NVM_RETX_TICKS, %r13
	add	%r7, %r13, %r7
	st	%r7, P_DEADLINE[%r9]
	st	%r0, P_RETRIES[%r9]
1:	ld	[timer_on], %r7
	sub.f	%r7, 0, %r0
	bne	3f
	mov	RETX_TICK, %r7		! (delay slot)
	st	%r7, IT0[%r0]
	mov	1, %r7
	st	%r7, [timer_on]
3:	RET
2:	ld	BT_SEQ[%r10], %r11	! dead peer: consumed
	add	%r11, 1, %r11
	mov	NVM_SEQ_MASK, %r7
	and	%r11, %r7, %r11
	st	%r11, P_TX_SENT[%r9]
	st	%r11, P_TX_ACKED[%r9]
	mov	%r12, %r6
	PUSH_RCA
	CALL	buf_fail
	POP_RCA
	RET

! send_buf: hand send buffer r6 to the send engine (it is idle). Counts
! StatTxData. Clobbers r6-r8, r13, r14.
send_buf:
	st	%r6, [tx_inflight]
	BUFADDR	%r6, %r8
	ld	BT_START[%r8], %r6
	ld	BT_END[%r8], %r7
	STAT	NVM_STAT_TX_DATA
! send_range: send [r6, r7) as one packet (the engine appends the
! trailer). Clobbers r8.
send_range:
	mov	SA_MASK, %r8
	and	%r6, %r8, %r8	! SA = start mod 8 (the engine sends from SMP &^ 7 + SA)
	st	%r8, SA[%r0]
	st	%r6, SMP[%r0]
	st	%r7, SMLT[%r0]
	RET

! buf_free: give send buffer r6 back to bufq (at the tail: it is reused
! last). Clobbers r7, r8.
buf_free:
	ld	[bufq_tail], %r7
	mov	QMASK, %r8
	and	%r7, %r8, %r8
	add	%r7, 1, %r7
	st	%r7, [bufq_tail]
	mov	bufq, %r7
	st.b	%r6, %r8[%r7]
	RET

! buf_fail: a packet that will never be acknowledged (its peer is
! unreachable): if it was its WRITE's last packet, record StatusTimeout
! in the endpoint's error record (§6.1, §7); free the buffer. In: r6
! buffer. Clobbers r6-r14.
buf_fail:
	PUSH_RCA
	PUSH	%r6
	BUFADDR	%r6, %r10
	add	%r10, NVM_BUF_HDR, %r10
	uld.b	NVM_HDR_FLAGS[%r10], %r7
	mov	NVM_FLAG_LAST, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	1f
	uld.b	NVM_HDR_SRC_EP[%r10], %r6	! (delay slot)
	mov	NVM_STATUS_TIMEOUT, %r7
	ld	NVM_HDR_AUX[%r10], %r8	! the ticket
	uld.h	NVM_HDR_DST_NODE[%r10], %r9
	CALL	ep_error
1:	POP	%r6
	CALL	buf_free
	POP_RCA
	RET

! ctrlq_push: queue an ACK/NACK for peer r6 unless one is queued.
! Clobbers r7-r9, r13.
ctrlq_push:
	PEER	%r6, %r7
	ld	P_IN_CTRLQ[%r7], %r8
	sub.f	%r8, 0, %r0
	bne	1f
	mov	1, %r8			! (delay slot)
	st	%r8, P_IN_CTRLQ[%r7]
	ld	[ctrlq_tail], %r7
	mov	QMASK, %r8
	and	%r7, %r8, %r8
	add	%r7, 1, %r7
	st	%r7, [ctrlq_tail]
	TXWORK_INC
	PRIO_INC
	mov	ctrlq, %r9
	st.b	%r6, %r8[%r9]
1:	RET

! ack_defer: owe peer r6 a delayed ACK (§7): the next DATA packet built
! for it carries the ACK (FlagAck, send_step), or ack_timer_poll queues
! it once it has been owed for ACK_DELAY to 2 ACK_DELAY ticks. A peer
! already owed one keeps its age. Clobbers r7, r8.
ack_defer:
	mov	ack_owed, %r7
	add	%r7, %r6, %r7
	uld.b	0[%r7], %r8
	sub.f	%r8, 0, %r0
	bne	1f
	mov	1, %r8			! (delay slot) owed since this timer period
	st.b	%r8, 0[%r7]
	ld	[ack_timer_on], %r7
	sub.f	%r7, 0, %r0
	bne	1f
	mov	ACK_DELAY, %r7		! (delay slot)
	st	%r7, IT1[%r0]
	mov	1, %r7
	st	%r7, [ack_timer_on]
1:	RET

! ack_timer_poll: IT1 expired (engines saw TIME1): acknowledge it; queue
! an ACK for every peer owed one since before the last expiry (2), age
! the others (1 -> 2) and run the timer again for them. Clobbers r6-r13.
ack_timer_poll:
	PUSH_RCA
	mov	ISR_TIME1, %r6		! acknowledge TIME1
	st	%r6, ISR[%r0]
	st	%r0, [ack_timer_on]
	mov	0, %r6			! peer
	mov	0, %r12			! any left owed
	ld	[nnodes], %r10
	mov	ack_owed, %r11
1:	uld.b	%r6[%r11], %r7
	sub.f	%r7, 1, %r0
	bult	3f			! none
	nop
	bugt	2f			! owed for a whole period: send it
	mov	2, %r7			! (delay slot)
	st.b	%r7, %r6[%r11]		! owed since this period: next time
	bt	3f
	mov	1, %r12			! (delay slot)
2:	st.b	%r0, %r6[%r11]
	CALL	ctrlq_push
3:	add	%r6, 1, %r6
	sub.f	%r6, %r10, %r0
	bne	1b
	nop
	sub.f	%r12, 0, %r0
	beq	4f
	mov	ACK_DELAY, %r7		! (delay slot)
	st	%r7, IT1[%r0]
	mov	1, %r7
	st	%r7, [ack_timer_on]
4:	POP_RCA
	RET

! retx_start: decide to retransmit peer r6's unacknowledged packets
! (from P_TX_ACKED up to P_TX_SENT), and queue the peer. Clobbers r7-r9,
! r13.
retx_start:
	PEER	%r6, %r7
	ld	P_TX_ACKED[%r7], %r8
	st	%r8, P_RETX_CUR[%r7]
	ld	P_TX_SENT[%r7], %r8
	st	%r8, P_RETX_END[%r7]
	ld	P_IN_RETXQ[%r7], %r8
	sub.f	%r8, 0, %r0
	bne	1f
	mov	1, %r8			! (delay slot)
	st	%r8, P_IN_RETXQ[%r7]
	ld	[retxq_tail], %r7
	mov	QMASK, %r8
	and	%r7, %r8, %r8
	add	%r7, 1, %r7
	st	%r7, [retxq_tail]
	TXWORK_INC
	PRIO_INC
	mov	retxq, %r9
	st.b	%r6, %r8[%r9]
1:	RET

! rx_ack: an ACK or NACK from node r19 (packet at r16, kind r7), §7, §8.
! A NACK with an error status is recorded for the endpoint it names
! (HdrDstEp, ticket in HdrOffset); every ACK/NACK frees the send buffers
! below its base (an older, overtaken ACK is ignored), raises the credit
! limit, and refreshes the deadline on progress; NACK StatusResend
! starts a retransmission. Clobbers r6-r14, r20-r25.
rx_ack:
	PUSH_RCA
	mov	%r7, %r24		! kind
	uld.h	NVM_HDR_SEQ[%r16], %r21	! the new base
	uld.h	NVM_HDR_CREDIT[%r16], %r25	! the credit limit
.Lack_base:
	PEER	%r19, %r20
	ld	P_TX_ACKED[%r20], %r22
	sub	%r21, %r22, %r23	! progress d = base - acked
	mov	NVM_SEQ_MASK, %r8
	and	%r23, %r8, %r23
	ld	P_TX_SENT[%r20], %r7	! at most what was sent
	sub	%r7, %r22, %r7
	and	%r7, %r8, %r7
	sub.f	%r23, %r7, %r0
	bugt	.Lack_stale
	nop
	sub.f	%r24, NVM_KIND_NACK, %r0
	bne	2f
	ld	NVM_HDR_AUX[%r16], %r7	! (delay slot) status
	sub.f	%r7, NVM_STATUS_RESEND, %r0
	beq	2f
	sub.f	%r7, NVM_STATUS_OK, %r0	! (delay slot)
	beq	2f
	uld.b	NVM_HDR_DST_EP[%r16], %r6	! (delay slot)
	sub.f	%r7, NVM_STATUS_RNR, %r0
	beq	2f
	nop
	ld	NVM_HDR_OFFSET[%r16], %r8
	mov	%r19, %r9
	CALL	ep_error
2:	sub.f	%r23, 0, %r0		! free the buffers of [acked, base)
	beq	4f
	nop
3:	mov	31, %r7
	and	%r22, %r7, %r7
	add	%r20, %r7, %r7
	uld.b	P_BUF[%r7], %r6
	CALL	buf_free
	add	%r22, 1, %r22
	mov	NVM_SEQ_MASK, %r7
	and	%r22, %r7, %r22
	sub.f	%r22, %r21, %r0
	bne	3b
	nop
	st	%r21, P_TX_ACKED[%r20]
	st	%r0, P_RETRIES[%r20]
	ld	P_STALL[%r20], %r7	! progress: a write-after-write wait may probe again
	mov	~STALL_WAW, %r8
	and	%r7, %r8, %r7
	st	%r7, P_STALL[%r20]
	ld	RTC[%r0], %r7
	mov	NVM_RETX_TICKS, %r8
	add	%r7, %r8, %r7
	st	%r7, P_DEADLINE[%r20]
4:	mov	0, %r7			! the bitmap (ACK) above the base
	sub.f	%r24, NVM_KIND_ACK, %r0
	bne	5f
	nop
	ld	NVM_HDR_AUX[%r16], %r7
5:	st	%r7, P_SACK[%r20]
	mov	%r25, %r7		! a limit that moves forward
	ld	P_TX_LIMIT[%r20], %r8
	sub	%r7, %r8, %r8
	mov	NVM_SEQ_MASK, %r9
	and	%r8, %r9, %r8
	sub.f	%r8, HALF_SEQ, %r0
	buge	6f
	nop
	st	%r7, P_TX_LIMIT[%r20]
	sub.f	%r8, 0, %r0		! more credit: no longer stalled
	beq	6f
	nop
	st	%r0, P_STALL[%r20]
6:	sub.f	%r24, NVM_KIND_DATA, %r0	! a piggyback: done (no packet at r16)
	beq	.Lack_out
	nop
	uld.b	NVM_HDR_FLAGS[%r16], %r7	! a probe: answer with an ACK
	mov	NVM_FLAG_PROBE, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	7f
	nop
	mov	%r19, %r6
	CALL	ctrlq_push
7:	sub.f	%r24, NVM_KIND_NACK, %r0
	bne	.Lack_out
	ld	NVM_HDR_AUX[%r16], %r7	! (delay slot)
	sub.f	%r7, NVM_STATUS_RESEND, %r0
	bne	8f
	mov	%r19, %r6		! (delay slot)
	CALL	retx_start
	bt	.Lack_out
	nop
8:	sub.f	%r7, NVM_STATUS_RNR, %r0	! RNR: the receiver is not ready (a
	bne	.Lack_out		! page, a deferral queue): retry after the RNR delay,
	mov	RETX_TICK, %r8		! (delay slot) not counted as a failure
	st	%r0, P_RETRIES[%r20]
	ld	RTC[%r0], %r7
	add	%r7, %r8, %r7
	st	%r7, P_DEADLINE[%r20]
.Lack_out:
	POP_RCA
	RET
.Lack_stale:
	sub.f	%r24, NVM_KIND_DATA, %r0	! (an overtaken piggyback: not counted)
	beq	.Lack_out
	nop
	STAT	NVM_STAT_DUP
	bt	.Lack_out
	nop

! piggy_note: the ACK a DATA packet at r16 from node r19 carries
! (FlagAck, §7) is noted, not processed: piggy[node] = its credit limit
! + 1 (0: none; a later one replaces it, they are cumulative). The main
! loop processes it after the endpoints' pass (piggy_flush), so that a
! reply to the DATA is not held up by ACK bookkeeping; send_step's
! write-after-write scan already starts at its base. Clobbers r7-r9.
piggy_note:
	uld.h	NVM_HDR_CREDIT[%r16], %r7
	add	%r7, 1, %r7
	sh	%r19, 2, %r8
	mov	piggy, %r9
	add	%r8, %r9, %r8
	ld	0[%r8], %r9
	st	%r7, 0[%r8]
	sub.f	%r9, 0, %r0
	bne	1f
	ld	[piggy_n], %r9		! (delay slot)
	add	%r9, 1, %r9
	st	%r9, [piggy_n]
1:	RET

! piggy_flush: process every noted piggyback (piggy_note) as rx_ack
! processes an ACK whose base is the credit limit - C and whose bitmap
! is empty (r24 = KindData: no bitmap, status or probe is read).
! Clobbers r6-r14, r16, r19-r25.
piggy_flush:
	PUSH_RCA
	st	%r0, [piggy_n]
	mov	0, %r19			! peer
1:	sh	%r19, 2, %r8
	mov	piggy, %r9
	add	%r8, %r9, %r16
	ld	0[%r16], %r25
	sub.f	%r25, 0, %r0
	beq	2f
	st	%r0, 0[%r16]		! (delay slot)
	sub	%r25, 1, %r25		! the credit limit
	ld	[ncredits], %r7
	sub	%r25, %r7, %r21
	mov	NVM_SEQ_MASK, %r7
	and	%r21, %r7, %r21		! the base
	mov	NVM_KIND_DATA, %r24
	CALL	.Lack_entry
2:	add	%r19, 1, %r19
	ld	[nnodes], %r7
	sub.f	%r19, %r7, %r0
	bne	1b
	nop
	POP_RCA
	RET
! .Lack_entry: rx_ack's body as a routine (r19 node, r21 base, r24 kind,
! r25 limit).
.Lack_entry:
	PUSH_RCA
	bt	.Lack_base
	nop

! timer_poll: on TIME0 (every RETX_TICK ticks while packets are
! outstanding or a sender is out of credit), retransmit for each peer
! whose deadline passed; after RetxMax retransmissions without progress
! the peer is unreachable (peer_dead). A peer we are out of credit for,
! with nothing outstanding, gets a probe (an ACK with FlagProbe, which it
! answers with an ACK): the ACK that carried its credits may have been
! lost, and nothing else would make it send another (TCP's persist
! timer). Clobbers r6-r14, r16-r19.
timer_poll:
	ld	ISR[%r0], %r6
	mov	ISR_TIME0, %r7
	and	%r6, %r7, %r6
	sub.f	%r6, 0, %r0
	bne	1f
	nop
	RET
1:	PUSH_RCA
	mov	ISR_TIME0, %r6		! acknowledge TIME0
	st	%r6, ISR[%r0]
	st	%r0, [timer_on]
	mov	0, %r16			! peer
	mov	0, %r17			! any outstanding
2:	PEER	%r16, %r18
	ld	P_DEAD[%r18], %r7
	sub.f	%r7, 0, %r0
	bne	5f
	ld	P_TX_ACKED[%r18], %r7	! (delay slot)
	ld	P_TX_SENT[%r18], %r8
	sub.f	%r7, %r8, %r0
	bne	3f
	ld	P_STALL[%r18], %r7	! (delay slot) nothing outstanding: out of credit?
	mov	STALL_CREDIT, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	5f
	mov	STALL_PROBE, %r7	! (delay slot) then probe: an ACK with FlagProbe
	st	%r7, P_STALL[%r18]	! (send_step marks the stall again if it lasts)
	mov	1, %r17
	mov	%r16, %r6
	CALL	ctrlq_push
	bt	5f
	nop
3:	mov	1, %r17			! packets outstanding
	ld	P_STALL[%r18], %r7	! and out of credit: probe too (the
	mov	STALL_CREDIT, %r8	! receiver acknowledges up to C/2 - 1
	and	%r7, %r8, %r8		! packets late, and nothing more will
	sub.f	%r8, 0, %r0		! come to make it)
	beq	8f
	mov	STALL_PROBE, %r7	! (delay slot)
	st	%r7, P_STALL[%r18]
	mov	%r16, %r6
	CALL	ctrlq_push
8:	ld	RTC[%r0], %r19
	ld	P_DEADLINE[%r18], %r7
	sub.f	%r19, %r7, %r0
	bmi	5f			! not yet
	nop
	mov	NVM_RETX_TICKS, %r7
	add	%r19, %r7, %r7
	st	%r7, P_DEADLINE[%r18]
	ld	P_RETRIES[%r18], %r7
	add	%r7, 1, %r7
	st	%r7, P_RETRIES[%r18]
	sub.f	%r7, NVM_RETX_MAX, %r0
	bugt	4f
	mov	%r16, %r6		! (delay slot)
	CALL	retx_start
	bt	5f
	nop
4:	CALL	peer_dead
5:	add	%r16, 1, %r16
	ld	[nnodes], %r7
	sub.f	%r16, %r7, %r0
	bne	2b
	nop
	sub.f	%r17, 0, %r0
	beq	6f
	mov	RETX_TICK, %r7		! (delay slot)
	st	%r7, IT0[%r0]
	mov	1, %r7
	st	%r7, [timer_on]
6:	POP_RCA
	RET

! peer_dead: peer r6 did not acknowledge after RetxMax retransmissions:
! mark it unreachable, fail its unacknowledged packets (buf_fail), count
! StatPeerDead. WRITEs to it then complete with StatusTimeout
! (send_step). Clobbers r6-r14, r20-r22.
peer_dead:
	PUSH_RCA
	PEER	%r6, %r20
	mov	1, %r7
	st	%r7, P_DEAD[%r20]
	STAT	NVM_STAT_PEER_DEAD
	ld	P_TX_ACKED[%r20], %r21
	ld	P_TX_SENT[%r20], %r22
1:	mov	31, %r7
	sub.f	%r21, %r22, %r0
	beq	2f
	and	%r21, %r7, %r7		! (delay slot)
	add	%r20, %r7, %r7
	uld.b	P_BUF[%r7], %r6
	CALL	buf_fail
	add	%r21, 1, %r21
	mov	NVM_SEQ_MASK, %r7
	bt	1b
	and	%r21, %r7, %r21		! (delay slot)
2:	st	%r22, P_TX_ACKED[%r20]
	st	%r22, P_RETX_END[%r20]
	POP_RCA
	RET
