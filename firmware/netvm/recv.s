! recv.s - the receiver (docs/netvm.md §5.3, §5.4, §7, §9). Included by
! netvm.s.
! SLICE: one packet at a time at RecvBase; the window accepts only the
! packet equal to its base (no bitmap, no ACK/NACK); a destination page
! failing the §4.3 test is dropped (no redirection); check failures drop
! the packet (consumed, no NACK); the counter is applied at once (valid
! while nothing is redirected and packets arrive in order); no CTR_ARM.

! rx_poll: if a packet arrived, validate, place and notify, then re-arm.
! In: nothing. Out: host memory, counters, statistics. Clobbers r6-r14,
! r16-r25. Uses r16 packet, r17 bytes stored, r18 payload length, r19
! source node, r20 peer state, r21 key, r22 export entry, r23 VA,
! r24 endpoint, r25 offset.
rx_poll:
	ld	ISR[%r0], %r7
	mov	ISR_RECV_INT | ISR_BUFF_INT, %r8
	and	%r7, %r8, %r8
	sub.f	%r8, 0, %r0
	bne	1f
	nop
	RET
1:	PUSH_RCA
	mov	ISR_BUFF_INT, %r8	! too long for the receive area
	and	%r7, %r8, %r8
	sub.f	%r8, 0, %r0
	bne	.Lrx_bad
	mov	NVM_RECV_BASE, %r16	! (delay slot)
	ld	RMP[%r0], %r17
	sub	%r17, %r16, %r17	! bytes stored (padded to 8)
	sub.f	%r17, NVM_HDR_SIZE + NVM_TRAILER_SIZE, %r0
	bult	.Lrx_bad
	nop
	uld.h	NVM_HDR_TYPE[%r16], %r7
	mov	NVM_PKT_TYPE, %r8
	sub.f	%r7, %r8, %r0
	bne	.Lrx_bad
	nop
	uld.h	NVM_HDR_LEN[%r16], %r18
	mov	NVM_MTU, %r8
	sub.f	%r18, %r8, %r0
	bugt	.Lrx_bad
	add	%r18, NVM_HDR_SIZE + NVM_TRAILER_SIZE, %r7	! (delay slot)
	sub.f	%r17, %r7, %r0
	bult	.Lrx_bad
	nop
	! The trailer (CRC-32, CRC-8) reads received XOR computed: 0 if good.
	add	%r16, %r18, %r6
	add	%r6, NVM_HDR_SIZE, %r6
	mov	0, %r7
	mov	NVM_TRAILER_SIZE, %r8
2:	uld.b	0[%r6], %r9
	or	%r7, %r9, %r7
	sub.f	%r8, 1, %r8
	bne	2b
	add	%r6, 1, %r6		! (delay slot)
	sub.f	%r7, 0, %r0
	bne	.Lrx_bad
	nop
	uld.h	NVM_HDR_DST_NODE[%r16], %r7
	ld	[node_id], %r8
	sub.f	%r7, %r8, %r0
	bne	.Lrx_bad
	nop
	uld.b	NVM_HDR_KIND[%r16], %r7
	sub.f	%r7, NVM_KIND_DATA, %r0
	bne	.Lrx_done		! SLICE: ACK/NACK are not sent, so ignored
	nop
	uld.h	NVM_HDR_SRC_NODE[%r16], %r19
	sub.f	%r19, NVM_MAX_NODES, %r0
	buge	.Lrx_bad
	sh	%r19, PEER_SHIFT, %r20	! (delay slot)
	mov	NVM_PEER_BASE, %r7
	add	%r20, %r7, %r20
	! §7 window, SLICE: only the base is accepted.
	uld.h	NVM_HDR_SEQ[%r16], %r7
	ld	PEER_RX_BASE[%r20], %r8
	sub.f	%r7, %r8, %r0
	bne	.Lrx_dup
	add	%r8, 1, %r8		! (delay slot) q is received (even if
	mov	NVM_SEQ_MASK, %r9	! a check below consumes it, §5.4 step 2)
	and	%r8, %r9, %r8
	st	%r8, PEER_RX_BASE[%r20]
	! §5.4 step 2: the export.
	ld	NVM_HDR_KEY[%r16], %r21
	CALL	rx_export		! r22 entry or 0, r24 its endpoint
	sub.f	%r22, 0, %r0
	beq	.Lrx_done
	nop
	ld	NVM_EXP_KIND[%r22], %r7
	mov	KIND_MASK, %r8
	and	%r7, %r8, %r8
	sub.f	%r8, NVM_EXP_KIND_REGION, %r0
	bne	.Lrx_done
	mov	NVM_EXP_PERM_W, %r8	! (delay slot)
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lrx_done
	nop
	ld	NVM_HDR_OFFSET[%r16], %r25
	ld	NVM_EXP_LEN[%r22], %r8
	sub.f	%r25, %r8, %r0		! offset + len <= ExpLen without overflow
	bugt	.Lrx_done
	sub	%r8, %r25, %r8		! (delay slot)
	sub.f	%r18, %r8, %r0
	bugt	.Lrx_done
	nop
	! §5.4 step 3: place it (§4.3 with W required, R forbidden).
	sub.f	%r18, 0, %r0
	beq	3f
	nop
	ld	NVM_EXP_BASE[%r22], %r23
	add	%r23, %r25, %r23	! destination VA
	ld	NVM_EXP_ASID[%r22], %r6
	mov	%r23, %r7
	CALL	spt_lookup
	sub.f	%r8, 0, %r0
	beq	.Lrx_done		! SLICE: would be redirected (§5.4 step 4)
	mov	NVM_SPT_R, %r6		! (delay slot)
	mov	NVM_SPT_V | NVM_SPT_W, %r7
	CALL	spt_lock
	sub.f	%r9, 0, %r0
	beq	.Lrx_done		! SLICE: would be redirected
	nop
	st	%r8, [--%sp]
	mov	NVM_PAGE_SIZE - 1, %r7
	and	%r23, %r7, %r7
	or	%r9, %r7, %r7
	mov	NVM_RECV_BASE + NVM_HDR_SIZE, %r6
	mov	%r18, %r8
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	ld	[%sp++], %r8
	mov	1, %r6			! a destination: set D
	CALL	spt_unlock
3:	STAT	NVM_STAT_RX_DATA
	! §9: the notification (covering rule trivially true in this slice).
	uld.b	NVM_HDR_FLAGS[%r16], %r7
	mov	NVM_FLAG_NOTIFY, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lrx_done
	nop
	mov	%r24, %r25		! the region's endpoint
	ld	NVM_HDR_CTR_KEY[%r16], %r21
	CALL	rx_export
	sub.f	%r22, 0, %r0
	beq	.Lrx_done
	nop
	sub.f	%r24, %r25, %r0		! the counter belongs to the same endpoint
	bne	.Lrx_done
	nop
	ld	NVM_EXP_KIND[%r22], %r7
	mov	KIND_MASK, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, NVM_EXP_KIND_COUNTER, %r0
	bne	.Lrx_done
	nop
	ld	NVM_EXP_BASE[%r22], %r23	! counter id
	sub.f	%r23, NVM_MAX_COUNTERS, %r0
	buge	.Lrx_done
	sh	%r24, CTR_EP_SHIFT, %r6	! (delay slot) shadow index e*64 + c
	add	%r6, %r23, %r6
	sh	%r6, CTR_SHIFT, %r6
	mov	NVM_CTR_BASE, %r7
	add	%r6, %r7, %r6		! the shadow (master copy)
	ld	NVM_CTR_VALUE_LO[%r6], %r7
	ld	NVM_CTR_VALUE_HI[%r6], %r8
	add.f	%r7, 1, %r7
	addc	%r8, 0, %r8
	st	%r7, NVM_CTR_VALUE_LO[%r6]
	st	%r8, NVM_CTR_VALUE_HI[%r6]
	EPSTATE	%r24, %r9		! DMA the u64 (hi, lo) to PageCtr + 8c
	ld	NVM_EP_ST_PAGE[%r9], %r7
	add	%r7, NVM_PAGE_CTR, %r7
	sh	%r23, PAGE_CTR_SHIFT, %r8
	add	%r7, %r8, %r7
	add	%r6, NVM_CTR_VALUE_HI, %r6
	mov	CTR_VALUE_BYTES, %r8
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	STAT	NVM_STAT_NOTIFY
.Lrx_done:
	CALL	rx_arm
	POP_RCA
	RET
.Lrx_bad:
	STAT	NVM_STAT_CRC
	bt	.Lrx_done
	nop
.Lrx_dup:
	STAT	NVM_STAT_DUP
	bt	.Lrx_done
	nop

! rx_export: find the live export entry of key r21 whose endpoint
! matches HdrDstEp of the packet at r16 and is open. In: r21 key, r16
! packet. Out: r22 entry (0 if none), r24 its endpoint. Clobbers r7, r8, r13.
rx_export:
	mov	NVM_EXP_KEY_INDEX_MASK, %r7
	and	%r21, %r7, %r7
	sh	%r7, TABLE_SHIFT, %r7
	mov	NVM_EXPORT_BASE, %r8
	add	%r7, %r8, %r22
	ld	NVM_EXP_KEY[%r22], %r7
	sub.f	%r7, %r21, %r0
	bne	9f
	sub.f	%r21, 0, %r0		! (delay slot) key 0 never matches
	beq	9f
	nop
	ld	NVM_EXP_EP[%r22], %r24
	uld.b	NVM_HDR_DST_EP[%r16], %r7
	sub.f	%r7, %r24, %r0
	bne	9f
	nop
	EPSTATE	%r24, %r8
	ld	NVM_EP_ST_STATE[%r8], %r7
	sub.f	%r7, NVM_EP_OPEN, %r0
	beq	8f
	nop
9:	mov	0, %r22
8:	RET
