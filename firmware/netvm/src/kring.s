! Part of the NetVM firmware; firmware/netvm/README.md gives the rules every file follows.

! kring.s - the kernel command ring (docs/netvm.md §3.1, §3.3).
! Included by netvm.s (uses its register conventions, macros and .sets).
! One state machine: take the next kernel slot if posted, execute it at
! once, write its completion record at GlobKComp + 8*slot (§6.2) and,
! for CmdFlagIRQ, an EvCmdDone event. Handlers are found through
! kop_table; each returns to .Lkr_comp with r18 = status.
! Registers of a handler: r16 slot, r17 opcode, r18 status, r19-r25 its own.

! kring_poll: serve one kernel-ring slot (§3.1 firmware steps 1-3) [I: rings;
! ours: formats]. In: kr_next. Out: kr_next advanced if a command was taken.
! Clobbers r6-r14, r16-r25.
kring_poll:
	ld	[kr_next], %r16		! slot
	sh	%r16, CMD_SHIFT, %r6
	mov	NVM_K_RING_BASE, %r7
	add	%r6, %r7, %r6		! slot address
	uld.b	NVM_CMD_OP[%r6], %r7
	sub.f	%r7, 0, %r0
	bne	1f
	nop
	RET				! nothing posted
1:	PUSH_RCA
	CALL	ev_room			! commands may write events: keep room
	sub.f	%r6, 0, %r0
	beq	.Lkr_out
	sh	%r16, CMD_SHIFT, %r6	! (delay slot)
	mov	NVM_K_RING_BASE, %r7
	add	%r6, %r7, %r6
	CALL	copy_cmd		! r9 = kcmd; the slot is taken
	add	%r16, 1, %r7
	mov	NVM_K_RING_SLOTS - 1, %r8
	and	%r7, %r8, %r7
	st	%r7, [kr_next]
	sh	%r7, CMD_SHIFT, %r7
	mov	NVM_K_RING_BASE, %r8
	add	%r7, %r8, %r7
	st	%r7, [kr_ptr]
	uld.b	NVM_CMD_OP[%r9], %r17	! opcode
	mov	NVM_STATUS_BAD_CMD, %r18	! status unless a handler sets another
	sub.f	%r17, 64, %r0
	buge	.Lkr_comp
	sh	%r17, 2, %r7		! (delay slot)
	mov	kop_table, %r8
	ld	%r7[%r8], %r7
	add	%r7, 0, %pc		! to the handler
	nop
! Every handler comes back here with r18 = status.
.Lkr_comp:
	mov	kcmd, %r9
	mov	NVM_GLOB_BASE, %r7
	ld	NVM_GLOB_K_COMP[%r7], %r6
	sh	%r16, COMP_SHIFT, %r7
	add	%r6, %r7, %r6
	mov	%r18, %r7
	ld	NVM_CMD_TICKET[%r9], %r8
	CALL	put_comp
	mov	kcmd, %r9
	uld.b	NVM_CMD_FLAGS[%r9], %r7
	mov	NVM_CMD_FLAG_IRQ, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lkr_out
	mov	evrec, %r10		! (delay slot)
	ld	NVM_CMD_TICKET[%r9], %r7
	st	%r7, NVM_EV_A0[%r10]
	st	%r18, NVM_EV_A1[%r10]
	mov	1, %r7			! 1: the kernel ring
	st	%r7, NVM_EV_A2[%r10]
	st	%r16, NVM_EV_A3[%r10]
	st	%r0, NVM_EV_A4[%r10]
	st	%r0, NVM_EV_A5[%r10]
	mov	NVM_EV_CMD_DONE, %r6
	mov	0, %r7
	CALL	ev_post
.Lkr_out:
	POP_RCA
	RET

! k_ep_open: EP_OPEN (§3.3, §2.2). Out: r18 status (BadCmd: endpoint
! out of range; Busy: not closed); ep_mask bit set. Uses r19, r20.
k_ep_open:
	mov	kcmd, %r9
	ld	NVM_K_EP[%r9], %r19
	sub.f	%r19, NVM_MAX_ENDPOINTS, %r0
	buge	.Lkr_comp
	nop
	EPSTATE	%r19, %r20
	ld	NVM_EP_ST_STATE[%r20], %r7
	sub.f	%r7, NVM_EP_CLOSED, %r0
	bne	.Lkr_comp
	mov	NVM_STATUS_BUSY, %r18	! (delay slot)
	mov	%r20, %r6		! a fresh state (errors, the WRITE)
	add	%r20, NVM_EP_STATE_SIZE, %r7
	CALL	memzero
	mov	kcmd, %r9
	ld	NVM_K_OPEN_ASID[%r9], %r7
	st	%r7, NVM_EP_ST_ASID[%r20]
	ld	NVM_K_OPEN_PAGE[%r9], %r7
	st	%r7, NVM_EP_ST_PAGE[%r20]
	sh	%r19, EP_RING_SHIFT, %r7	! slot 0 of its ring
	mov	NVM_EP_RING_BASE, %r8
	add	%r7, %r8, %r7
	st	%r7, EP_SLOTPTR[%r20]
	mov	NVM_EP_OPEN, %r7
	st	%r7, NVM_EP_ST_STATE[%r20]
	mov	1, %r7			! ep_mask |= 1 << ep
	sh	%r7, %r19, %r7
	ld	[ep_mask], %r8
	or	%r8, %r7, %r8
	st	%r8, [ep_mask]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_check_ep: the endpoint KEp of kcmd is open or parked. Out: r19 ep,
! r20 its state, r9 kcmd; returns to .Lkr_comp with r18 = BadCmd or
! EpClosed if not. (A branch target, not a routine: jumped to with r21 =
! continuation.)
k_check_ep:
	mov	kcmd, %r9
	ld	NVM_K_EP[%r9], %r19
	sub.f	%r19, NVM_MAX_ENDPOINTS, %r0
	buge	.Lkr_comp
	nop
	EPSTATE	%r19, %r20
	ld	NVM_EP_ST_STATE[%r20], %r7
	sub.f	%r7, NVM_EP_CLOSED, %r0
	beq	.Lkr_comp
	mov	NVM_STATUS_EP_CLOSED, %r18	! (delay slot)
	add	%r21, 0, %pc
	mov	NVM_STATUS_BAD_CMD, %r18	! (delay slot)

! k_ep_close: EP_CLOSE (§3.3): the WRITE being executed and every WRITE
! still in the ring complete with StatusEpClosed; the endpoint's imports,
! exports and counter shadows are freed; its state is Closed. Packets
! already sent stay with the peer protocol, which retransmits them
! without the endpoint [ours: EP_CLOSE does not wait for their ACKs].
! Uses r19-r23.
k_ep_close:
	mov	1f, %r21
	bt	k_check_ep
	nop
1:	ld	EP_CUR[%r20], %r7
	sub.f	%r7, 0, %r0
	beq	2f
	mov	%r19, %r6		! (delay slot)
	mov	NVM_STATUS_EP_CLOSED, %r7
	CALL	ep_complete
2:	ld	NVM_EP_ST_NEXT[%r20], %r22	! then the ring, slot by slot
3:	sh	%r19, EP_RING_SHIFT, %r6
	mov	NVM_EP_RING_BASE, %r7
	add	%r6, %r7, %r6
	sh	%r22, CMD_SHIFT, %r7
	add	%r6, %r7, %r6
	uld.b	NVM_CMD_OP[%r6], %r7
	sub.f	%r7, 0, %r0
	beq	4f
	nop
	CALL	copy_cmd
	ld	NVM_CMD_TICKET[%r9], %r8
	ld	NVM_EP_ST_PAGE[%r20], %r6
	sh	%r22, COMP_SHIFT, %r7
	add	%r6, %r7, %r6
	add	%r6, NVM_PAGE_COMP, %r6
	mov	NVM_STATUS_EP_CLOSED, %r7
	CALL	put_comp
	add	%r22, 1, %r22
	mov	NVM_RING_SLOTS - 1, %r7
	bt	3b
	and	%r22, %r7, %r22		! (delay slot)
4:	mov	NVM_EXPORT_BASE, %r22	! exports of the endpoint
	mov	NVM_EXPORT_BASE + NVM_MAX_EXPORTS * NVM_EXP_SIZE, %r23
5:	ld	NVM_EXP_EP[%r22], %r7
	sub.f	%r7, %r19, %r0
	bne	6f
	nop
	st	%r0, NVM_EXP_KEY[%r22]
6:	add	%r22, NVM_EXP_SIZE, %r22
	sub.f	%r22, %r23, %r0
	bne	5b
	nop
	mov	NVM_IMPORT_BASE, %r22	! imports
	mov	NVM_IMPORT_BASE + NVM_MAX_IMPORTS * NVM_IMP_SIZE, %r23
7:	ld	NVM_IMP_EP[%r22], %r7
	sub.f	%r7, %r19, %r0
	bne	8f
	nop
	st	%r0, NVM_IMP_KEY[%r22]
8:	add	%r22, NVM_IMP_SIZE, %r22
	sub.f	%r22, %r23, %r0
	bne	7b
	nop
	sh	%r19, CTR_EP_SHIFT + CTR_SHIFT, %r6	! counter shadows
	mov	NVM_CTR_BASE, %r7
	add	%r6, %r7, %r6
	add	%r6, NVM_MAX_COUNTERS * NVM_CTR_SIZE, %r7
	CALL	memzero
	st	%r0, NVM_EP_ST_STATE[%r20]	! Closed
	mov	1, %r7			! ep_mask &= ~(1 << ep)
	sh	%r7, %r19, %r7
	ld	[ep_mask], %r8
	or	%r8, %r7, %r8
	xor	%r8, %r7, %r8
	st	%r8, [ep_mask]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_export: EXPORT (§3.3, §2.3). Out: r18 status (BadCmd: key with a
! zero generation, or a region base that is not page aligned (§2.3);
! EpClosed; Busy: entry in use). The key is written last (it makes the
! entry live). Uses r19-r22.
k_export:
	mov	1f, %r21
	bt	k_check_ep
	nop
1:	ld	NVM_K_EXP_KEY[%r9], %r22
	mov	NVM_EXP_KEY_INDEX_MASK, %r7
	and	%r22, %r7, %r7		! table index
	sub.f	%r22, %r7, %r0		! generation (the upper bits) must be nonzero
	beq	.Lkr_comp
	sh	%r7, TABLE_SHIFT, %r7	! (delay slot)
	mov	NVM_EXPORT_BASE, %r8
	add	%r7, %r8, %r21		! entry
	ld	NVM_EXP_KEY[%r21], %r7
	sub.f	%r7, 0, %r0
	bne	.Lkr_comp
	mov	NVM_STATUS_BUSY, %r18	! (delay slot)
	ld	NVM_K_EXP_KIND[%r9], %r7	! a region's base is page aligned (§2.3):
	mov	KIND_MASK, %r8		! the sender cuts packets at offsets
	and	%r7, %r8, %r7		! that are multiples of 4096 (§5.1)
	sub.f	%r7, NVM_EXP_KIND_REGION, %r0
	bne	2f
	mov	NVM_STATUS_BAD_CMD, %r18	! (delay slot)
	ld	NVM_K_EXP_BASE[%r9], %r7
	mov	NVM_PAGE_SIZE - 1, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	bne	.Lkr_comp
	nop
2:	st	%r19, NVM_EXP_EP[%r21]
	ld	NVM_K_EXP_BASE[%r9], %r7
	st	%r7, NVM_EXP_BASE[%r21]
	ld	NVM_K_EXP_LEN[%r9], %r7
	st	%r7, NVM_EXP_LEN[%r21]
	ld	NVM_K_EXP_KIND[%r9], %r7
	st	%r7, NVM_EXP_KIND[%r21]
	ld	NVM_EP_ST_ASID[%r20], %r7
	st	%r7, NVM_EXP_ASID[%r21]
	st	%r22, NVM_EXP_KEY[%r21]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_unexport: UNEXPORT (§3.3). Packets are placed synchronously, so none
! is being placed when the command is read; later packets with the key
! are NACKed StatusKey. Out: r18 (BadCmd: no live export has the key).
k_unexport:
	mov	kcmd, %r9
	ld	NVM_K_EXP_KEY[%r9], %r19
	sub.f	%r19, 0, %r0
	beq	.Lkr_comp
	mov	NVM_EXP_KEY_INDEX_MASK, %r7	! (delay slot)
	and	%r19, %r7, %r7
	sh	%r7, TABLE_SHIFT, %r7
	mov	NVM_EXPORT_BASE, %r8
	add	%r7, %r8, %r20
	ld	NVM_EXP_KEY[%r20], %r7
	sub.f	%r7, %r19, %r0
	bne	.Lkr_comp
	nop
	st	%r0, NVM_EXP_KEY[%r20]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_import: IMPORT (§3.3, §2.3). Out: r18 status (BadCmd: index out of
! range, key 0, node not below GlobNodes; EpClosed; Busy). Uses r19-r22.
k_import:
	mov	1f, %r21
	bt	k_check_ep
	nop
1:	ld	NVM_K_IMP_INDEX[%r9], %r7
	sub.f	%r7, NVM_MAX_IMPORTS, %r0
	buge	.Lkr_comp
	sh	%r7, TABLE_SHIFT, %r7	! (delay slot)
	mov	NVM_IMPORT_BASE, %r8
	add	%r7, %r8, %r21		! entry
	ld	NVM_K_IMP_KEY[%r9], %r22
	sub.f	%r22, 0, %r0
	beq	.Lkr_comp
	nop
	ld	NVM_K_IMP_NODE[%r9], %r7
	ld	[nnodes], %r8
	sub.f	%r7, %r8, %r0
	buge	.Lkr_comp
	nop
	ld	NVM_IMP_KEY[%r21], %r7
	sub.f	%r7, 0, %r0
	bne	.Lkr_comp
	mov	NVM_STATUS_BUSY, %r18	! (delay slot)
	st	%r19, NVM_IMP_EP[%r21]
	ld	NVM_K_IMP_NODE[%r9], %r7
	st	%r7, NVM_IMP_NODE[%r21]
	ld	NVM_K_IMP_EP[%r9], %r7
	st	%r7, NVM_IMP_REMOTE_EP[%r21]
	ld	NVM_K_IMP_LEN[%r9], %r7
	st	%r7, NVM_IMP_LEN[%r21]
	ld	NVM_K_IMP_KIND[%r9], %r7
	st	%r7, NVM_IMP_KIND[%r21]
	st	%r22, NVM_IMP_KEY[%r21]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_unimport: UNIMPORT (§3.3): at once; a WRITE already taken keeps its
! copy of the import. Out: r18 (BadCmd: index out of range).
k_unimport:
	mov	kcmd, %r9
	ld	NVM_K_IMP_INDEX[%r9], %r7
	sub.f	%r7, NVM_MAX_IMPORTS, %r0
	buge	.Lkr_comp
	sh	%r7, TABLE_SHIFT, %r7	! (delay slot)
	mov	NVM_IMPORT_BASE, %r8
	add	%r7, %r8, %r7
	st	%r0, NVM_IMP_KEY[%r7]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_spt_entry: the entry KSPTIndex of kcmd. Out: r19 entry address, r9
! kcmd; returns to .Lkr_comp with StatusSPT if out of range. (A branch
! target: jumped to with r21 = continuation.)
k_spt_entry:
	mov	kcmd, %r9
	mov	NVM_STATUS_SPT, %r18
	ld	NVM_K_SPT_INDEX[%r9], %r7
	mov	NVM_SPT_ENTRIES, %r8
	sub.f	%r7, %r8, %r0
	buge	.Lkr_comp
	sh	%r7, SPT_ENTRY_SHIFT, %r7	! (delay slot)
	mov	NVM_SPT_BASE, %r8
	add	%r21, 0, %pc
	add	%r7, %r8, %r19		! (delay slot)

! k_spt_map: SPT_MAP (§3.3, §4.1): one of the cases where the firmware
! writes the host words of an entry. RCNT starts at the number of
! system-buffer slots that hold packets for the page (§4.1). Out: r18
! status (StatusSPT: index out of range, entry holds another tag, or
! this tag with V = 1). Uses r19-r23.
k_spt_map:
	mov	1f, %r21
	bt	k_spt_entry
	nop
1:	ld	NVM_K_SPT_TAG[%r9], %r20
	ld	NVM_K_SPT_FRAME[%r9], %r21
	ld	NVM_SPT_TAG[%r19], %r7
	sub.f	%r7, NVM_SPT_TAG_EMPTY, %r0
	beq	2f
	nop
	sub.f	%r7, NVM_SPT_TAG_DEAD, %r0
	beq	2f
	nop
	sub.f	%r7, %r20, %r0		! another tag: refused
	bne	.Lkr_comp
	nop
	ld	NVM_SPT_FRAME[%r19], %r7	! same tag: only a re-map of V = 0
	mov	NVM_SPT_V, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	bne	.Lkr_comp
	nop
2:	mov	0, %r22			! RCNT
	ld	[slots_busy], %r7
	sub.f	%r7, 0, %r0
	beq	4f
	ld	[nslots], %r23		! (delay slot)
	mov	NVM_SLOT_TAB_BASE, %r6
	sh	%r23, SLOT_SHIFT, %r23
	add	%r23, %r6, %r23		! end of the table
3:	ld	SL_BUSY[%r6], %r7
	sub.f	%r7, 0, %r0
	beq	5f
	ld	SL_TAG[%r6], %r7	! (delay slot)
	sub.f	%r7, %r20, %r0
	bne	5f
	nop
	add	%r22, 1, %r22
5:	add	%r6, NVM_SLOT_SIZE, %r6
	sub.f	%r6, %r23, %r0
	bne	3b
	nop
4:	st	%r21, NVM_SPT_FRAME[%r19]
	sh	%r22, NVM_SPT_RCNT_SHIFT, %r22
	st	%r22, NVM_SPT_NIC[%r19]
	st	%r20, NVM_SPT_TAG[%r19]	! the tag last: the entry can now be found
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_spt_unmap: SPT_UNMAP (§3.3, §4.3 OS step 4): the entry becomes dead.
! Out: r18 (StatusSPT: out of range, no mapping, V = 1 or L = 1).
k_spt_unmap:
	mov	1f, %r21
	bt	k_spt_entry
	nop
1:	ld	NVM_SPT_TAG[%r19], %r7
	sub.f	%r7, NVM_SPT_TAG_EMPTY, %r0
	beq	.Lkr_comp
	sub.f	%r7, NVM_SPT_TAG_DEAD, %r0	! (delay slot)
	beq	.Lkr_comp
	nop
	ld	NVM_SPT_FRAME[%r19], %r7
	mov	NVM_SPT_V, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	bne	.Lkr_comp
	uld.b	NVM_SPT_LOCK_BYTE[%r19], %r7	! (delay slot)
	mov	NVM_SPT_L, %r8
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	bne	.Lkr_comp
	mov	NVM_SPT_TAG_DEAD, %r7	! (delay slot)
	st	%r7, NVM_SPT_TAG[%r19]
	st	%r0, NVM_SPT_FRAME[%r19]
	st	%r0, NVM_SPT_NIC[%r19]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_spt_protect: SPT_PROTECT (§3.3, §4.3 OS step 3, sleeping variant):
! the new host flags (byte SPTFlagsByte), complete when L = 0. The
! firmware holds L only inside one synchronous page DMA, never while it
! reads the kernel ring, so L is always 0 here. Out: r18 (StatusSPT: out
! of range, no mapping, or another PFN).
k_spt_protect:
	mov	1f, %r21
	bt	k_spt_entry
	nop
1:	ld	NVM_SPT_TAG[%r19], %r7
	sub.f	%r7, NVM_SPT_TAG_EMPTY, %r0
	beq	.Lkr_comp
	sub.f	%r7, NVM_SPT_TAG_DEAD, %r0	! (delay slot)
	beq	.Lkr_comp
	nop
	ld	NVM_K_SPT_FRAME[%r9], %r20
	ld	NVM_SPT_FRAME[%r19], %r7
	xor	%r7, %r20, %r7
	sh	%r7, -NVM_PAGE_SHIFT, %r7	! the same PFN
	sub.f	%r7, 0, %r0
	bne	.Lkr_comp
	nop
	st.b	%r20, NVM_SPT_FLAGS_BYTE[%r19]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_redir_done: REDIR_DONE (§3.3, §8): for each named slot that is busy:
! free it, decrement RCNT of its page if mapped, release the sender's
! credit, queue an ACK, then apply the deferred notifications it held
! back (§9). Out: r18 (BadCmd: a count outside 1..KRedirMax, or a slot
! that is out of range or not busy; the valid slots are still
! released). Uses r19-r24.
k_redir_done:
	mov	kcmd, %r9
	ld	NVM_K_REDIR_COUNT[%r9], %r19
	sub.f	%r19, 1, %r0
	bult	.Lkr_comp
	sub.f	%r19, NVM_K_REDIR_MAX, %r0	! (delay slot)
	bugt	.Lkr_comp
	nop
	mov	NVM_STATUS_OK, %r18
	mov	0, %r20			! index
1:	mov	kcmd + NVM_K_REDIR_SLOTS, %r7
	sh	%r20, 1, %r8
	uld.h	%r8[%r7], %r21		! slot
	ld	[nslots], %r7
	sub.f	%r21, %r7, %r0
	buge	8f
	sh	%r21, SLOT_SHIFT, %r22	! (delay slot)
	mov	NVM_SLOT_TAB_BASE, %r7
	add	%r22, %r7, %r22		! its entry
	ld	SL_BUSY[%r22], %r7
	sub.f	%r7, 0, %r0
	beq	8f
	nop
	st	%r0, SL_BUSY[%r22]
	ld	[slots_busy], %r7
	sub	%r7, 1, %r7
	st	%r7, [slots_busy]
	ld	SL_TAG[%r22], %r7	! RCNT of the page, if it has an entry
	mov	0xFFF, %r6
	and	%r7, %r6, %r6		! asid
	CALL	spt_lookup
	sub.f	%r8, 0, %r0
	beq	2f
	nop
	ld	NVM_SPT_NIC[%r8], %r7
	sh	%r7, -NVM_SPT_RCNT_SHIFT, %r9
	sub.f	%r9, 0, %r0
	beq	2f
	mov	1 << NVM_SPT_RCNT_SHIFT, %r9	! (delay slot)
	sub	%r7, %r9, %r7
	st	%r7, NVM_SPT_NIC[%r8]
2:	ld	SL_SRC[%r22], %r23	! the sender: credit and ACK
	PEER	%r23, %r24
	ld	P_SLOTS_BUSY[%r24], %r7
	sub	%r7, 1, %r7
	st	%r7, P_SLOTS_BUSY[%r24]
	ld	P_RX_RELEASED[%r24], %r7
	add	%r7, 1, %r7
	st	%r7, P_RX_RELEASED[%r24]
	mov	%r23, %r6
	CALL	ctrlq_push
	mov	%r23, %r6
	CALL	defer_process
	bt	9f
	nop
8:	mov	NVM_STATUS_BAD_CMD, %r18
9:	add	%r20, 1, %r20
	sub.f	%r20, %r19, %r0
	bne	1b
	nop
	bt	.Lkr_comp
	nop

! k_src_fault_done: SRC_FAULT_DONE (§3.3, §5.2) for a parked endpoint:
! StatusOK: the WRITE resumes at the page that faulted; StatusSrcFault:
! it completes with StatusSrcFault. Out: r18 (BadCmd: not parked, or
! another status).
k_src_fault_done:
	mov	1f, %r21
	bt	k_check_ep
	nop
1:	ld	NVM_EP_ST_STATE[%r20], %r7
	sub.f	%r7, NVM_EP_PARKED, %r0
	bne	.Lkr_comp
	ld	NVM_K_FAULT_STATUS[%r9], %r22	! (delay slot)
	sub.f	%r22, NVM_STATUS_OK, %r0
	beq	2f
	sub.f	%r22, NVM_STATUS_SRC_FAULT, %r0	! (delay slot)
	bne	.Lkr_comp
	mov	%r19, %r6		! (delay slot)
	mov	NVM_STATUS_SRC_FAULT, %r7
	CALL	ep_complete
2:	mov	NVM_EP_OPEN, %r7
	st	%r7, NVM_EP_ST_STATE[%r20]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_ctr_arm: CTR_ARM (§3.3, §9): store target and mode; for CtrModeOnce
! whose condition already holds, the EvCtrWake is written at once (and
! the counter disarmed). Out: r18 (BadCmd: counter id or mode out of
! range).
k_ctr_arm:
	mov	1f, %r21
	bt	k_check_ep
	nop
1:	ld	NVM_K_CTR[%r9], %r22
	sub.f	%r22, NVM_MAX_COUNTERS, %r0
	buge	.Lkr_comp
	ld	NVM_K_CTR_MODE[%r9], %r23	! (delay slot)
	sub.f	%r23, NVM_CTR_MODE_EVERY, %r0
	bugt	.Lkr_comp
	sh	%r19, CTR_EP_SHIFT, %r6	! (delay slot)
	add	%r6, %r22, %r6
	sh	%r6, CTR_SHIFT, %r6
	mov	NVM_CTR_BASE, %r7
	add	%r6, %r7, %r6		! the shadow
	ld	NVM_K_CTR_TARGET[%r9], %r7
	st	%r7, NVM_CTR_TARGET[%r6]
	st	%r23, NVM_CTR_MODE[%r6]
	mov	NVM_STATUS_OK, %r18
	sub.f	%r23, NVM_CTR_MODE_ONCE, %r0
	bne	.Lkr_comp
	nop
	mov	%r19, %r7
	mov	%r22, %r8
	CALL	ctr_check
	bt	.Lkr_comp
	nop
	.data
	.align	4
! kop_table: the kernel opcodes 0x00-0x3F and their handlers (§3.3).
kop_table:
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x00
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x04
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x08
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x0c
	.long	k_ep_open, k_ep_close, k_export, k_unexport	! 0x10
	.long	k_import, k_unimport, .Lkr_comp, .Lkr_comp	! 0x14
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x18
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x1c
	.long	k_spt_map, k_spt_unmap, k_spt_protect, .Lkr_comp	! 0x20
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x24
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x28
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x2c
	.long	k_redir_done, k_src_fault_done, k_ctr_arm, .Lkr_comp	! 0x30
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x34
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x38
	.long	.Lkr_comp, .Lkr_comp, .Lkr_comp, .Lkr_comp	! 0x3c
	.text
