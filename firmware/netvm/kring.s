! kring.s - the kernel command ring (docs/netvm.md §3.1, §3.3).
! Included by netvm.s (uses its register conventions, macros and .sets).
! One state machine: take the next kernel slot if posted, execute it at
! once, write its completion record at GlobKComp + 8*slot (§6.2).
! SLICE: EP_OPEN, EXPORT, IMPORT and SPT_MAP are implemented; every other
! opcode completes with StatusBadCmd. CmdFlagIRQ (EvCmdDone) is ignored.

! EPSTATE ep, out: out = EPStateBase + ep*EPStateSize (clobbers r13)
	.macro	EPSTATE ep, out
	sh	\ep, EP_STATE_SHIFT, \out
	mov	NVM_EP_STATE_BASE, %r13
	add	\out, %r13, \out
	.endm

! kring_poll: serve one kernel-ring slot (§3.1 firmware steps 1-3) [I: rings;
! ours: formats]. In: kr_next. Out: kr_next advanced if a command was taken.
! Clobbers r6-r14, r16-r22.
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
	CALL	copy_cmd		! r9 = kcmd; the slot is taken
	add	%r16, 1, %r7
	mov	NVM_K_RING_SLOTS - 1, %r8
	and	%r7, %r8, %r7
	st	%r7, [kr_next]
	uld.b	NVM_CMD_OP[%r9], %r17	! opcode
	mov	NVM_STATUS_BAD_CMD, %r18	! status unless a handler sets another
	sub.f	%r17, NVM_KOP_EP_OPEN, %r0
	beq	k_ep_open
	sub.f	%r17, NVM_KOP_EXPORT, %r0
	beq	k_export
	sub.f	%r17, NVM_KOP_IMPORT, %r0
	beq	k_import
	sub.f	%r17, NVM_KOP_SPT_MAP, %r0
	beq	k_spt_map
	nop
! Every handler comes back here with r18 = status, r9 = kcmd.
.Lkr_comp:
	mov	NVM_GLOB_BASE, %r7
	ld	NVM_GLOB_K_COMP[%r7], %r6
	sh	%r16, COMP_SHIFT, %r7
	add	%r6, %r7, %r6
	mov	%r18, %r7
	ld	NVM_CMD_TICKET[%r9], %r8
	CALL	put_comp
	POP_RCA
	RET

! k_ep_open: EP_OPEN (§3.3, §2.2). In: r9 kcmd. Out: r18 status
! (BadCmd: endpoint out of range; Busy: not closed); ep_mask bit set.
! Uses r19, r20.
k_ep_open:
	ld	NVM_K_EP[%r9], %r19
	sub.f	%r19, NVM_MAX_ENDPOINTS, %r0
	buge	.Lkr_comp
	nop
	EPSTATE	%r19, %r20
	ld	NVM_EP_ST_STATE[%r20], %r7
	sub.f	%r7, NVM_EP_CLOSED, %r0
	bne	.Lkr_comp
	mov	NVM_STATUS_BUSY, %r18	! (delay slot)
	ld	NVM_K_OPEN_ASID[%r9], %r7
	st	%r7, NVM_EP_ST_ASID[%r20]
	ld	NVM_K_OPEN_PAGE[%r9], %r7
	st	%r7, NVM_EP_ST_PAGE[%r20]
	st	%r0, NVM_EP_ST_NEXT[%r20]
	mov	NVM_EP_OPEN, %r7
	st	%r7, NVM_EP_ST_STATE[%r20]
	mov	1, %r7			! ep_mask |= 1 << ep
	sh	%r7, %r19, %r7
	ld	[ep_mask], %r8
	or	%r8, %r7, %r8
	st	%r8, [ep_mask]
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18

! k_check_ep: the endpoint KEp of kcmd is open. In: r9 kcmd. Out: r19 ep,
! r20 its state; returns to .Lkr_comp with r18 = BadCmd/EpClosed if not.
! (A branch target, not a routine: jumped to with r21 = continuation.)
k_check_ep:
	ld	NVM_K_EP[%r9], %r19
	sub.f	%r19, NVM_MAX_ENDPOINTS, %r0
	buge	.Lkr_comp
	nop
	EPSTATE	%r19, %r20
	ld	NVM_EP_ST_STATE[%r20], %r7
	sub.f	%r7, NVM_EP_OPEN, %r0
	bne	.Lkr_comp
	mov	NVM_STATUS_EP_CLOSED, %r18	! (delay slot)
	add	%r21, 0, %pc
	mov	NVM_STATUS_BAD_CMD, %r18	! (delay slot)

! k_export: EXPORT (§3.3, §2.3). In: r9 kcmd. Out: r18 status (BadCmd:
! key with a zero generation, bad endpoint, or a region base that is not
! page aligned (§2.3); EpClosed; Busy: entry in use). Uses r19-r22. The key is written last (it makes the entry live).
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

! k_import: IMPORT (§3.3, §2.3). In: r9 kcmd. Out: r18 status (BadCmd:
! index out of range, key 0 or bad endpoint; EpClosed; Busy). Uses r19-r22.
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

! k_spt_map: SPT_MAP (§3.3, §4.1): the one case where the firmware writes
! the host words of an entry. In: r9 kcmd. Out: r18 status (StatusSPT:
! index out of range, entry holds another tag, or this tag with V = 1).
! SLICE: the NIC word is zeroed (RCNT from the slot table comes with
! redirection). Uses r19-r22.
k_spt_map:
	mov	NVM_STATUS_SPT, %r18
	ld	NVM_K_SPT_INDEX[%r9], %r7
	mov	NVM_SPT_ENTRIES, %r8
	sub.f	%r7, %r8, %r0
	buge	.Lkr_comp
	sh	%r7, SPT_ENTRY_SHIFT, %r7	! (delay slot)
	mov	NVM_SPT_BASE, %r8
	add	%r7, %r8, %r19		! entry
	ld	NVM_K_SPT_TAG[%r9], %r20
	ld	NVM_K_SPT_FRAME[%r9], %r21
	ld	NVM_SPT_TAG[%r19], %r7
	sub.f	%r7, NVM_SPT_TAG_EMPTY, %r0
	beq	1f
	nop
	sub.f	%r7, NVM_SPT_TAG_DEAD, %r0
	beq	1f
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
1:	st	%r21, NVM_SPT_FRAME[%r19]
	st	%r0, NVM_SPT_NIC[%r19]
	st	%r20, NVM_SPT_TAG[%r19]	! the tag last: the entry can now be found
	bt	.Lkr_comp
	mov	NVM_STATUS_OK, %r18
