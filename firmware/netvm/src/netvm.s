! Part of the NetVM firmware; firmware/netvm/README.md gives the rules every file follows.

! netvm.s - NetVM firmware for the LANai 9.2 (docs/netvm.md).
!
! One polling loop (GM's MCP style, lanai9-hw.md §8.1) dispatches over
! the kernel ring, the open endpoint rings (one packet each per pass),
! the receive engine, the send engine and the retransmission timer
! (IT0). Nothing in the loop waits for the network: packets to send go
! through queues that tx_poll serves whenever the send engine is idle,
! so two boards sending to each other can never wait on each other. Host
! DMAs are waited for (they depend on nothing but the PCI bus).
!
! Files (one assembly unit): netvm.s boot, loop, shared helpers;
! kring.s the kernel ring (§3.3); send.s the endpoint rings and the
! sender (§3.2, §5.1, §5.2); tx.s the send engine, ACK/NACK, buffers,
! retransmission and the timer (§7, §8); recv.s the receiver, the
! window, redirection and notifications (§5.4, §7, §8, §9).
!
! Register conventions (used by every file of this firmware):
!   r6-r14   arguments and scratch of helpers (clobbered by any CALL)
!   r16-r25  state of a command/packet handler (helpers preserve them)
!   r26-r28  main loop
!   r15 (rca) return address; sp (r4) the stack, from NVM_FW_STACK_TOP.
! A routine is entered with CALL (return address in rca) and left with
! RET; a routine that calls another pushes rca first. A "helper" uses
! only r6-r14 (and the stack), so any handler may call it.

	.include "abi.inc"

! ---- LANai special registers (docs/hardware.md, docs/links.md):
! offsets from 0 as sign-extended 16-bit r0-relative addresses.
	.set	IT0, -416		! 0xFFFFFE60 interval timer 0 (2 MHz)
	.set	IT1, -320		! 0xFFFFFEC0 interval timer 1 (2 MHz)
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
	.set	ISR_TIME0, 64		! bit 6: IT0 reached 0 (latched, a 1 clears)
	.set	ISR_TIME1, 128		! bit 7: IT1 reached 0 (latched, a 1 clears)
	.set	ISR_MEM_INT, 0x4000	! bit 14: a DMA fault (latched, a 1 clears)
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

! ---- shifts of the contract's sizes
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
	.set	SLOT_SHIFT, 4		! log2(NVM_SLOT_SIZE)
	.set	SYSBUF_SHIFT, 12	! log2(NVM_SYS_BUF_SLOT)
	.set	DEFER_SHIFT, 3		! log2(NVM_DEFER_SIZE)
	.set	DEFER_PEER_SHIFT, 8	! log2(NVM_DEFER_MAX * NVM_DEFER_SIZE)
	.set	EVQ_SHIFT, 5		! log2(NVM_EVQ_SIZE)
	.set	CTR_VALUE_BYTES, 8	! CtrValueHi, CtrValueLo: one 8-byte DMA (§6.1)
	.set	KIND_MASK, 0xFF		! ExpKind/ImpKind: kind in the low byte
	.set	SA_MASK, 7		! SA: the first byte's offset in its 8-byte word
	.set	HALF_SEQ, 0x8000	! serial arithmetic: d < HALF_SEQ means "not before"
	.set	EVQ_RESERVE, 64		! events rx_poll and kring_poll keep room for

! ---- private layouts [ours] (docs/netvm.md: "private" regions)
! Endpoint state bytes 16-255 (§2.2): the WRITE being executed. A WRITE
! is taken from the ring into these fields and executed one packet per
! main-loop pass, so that a long WRITE neither starves the other
! endpoints nor stops the receiver.
	.set	EP_CUR, 16		! 1 while a WRITE is being executed, EP_CUR_ATOMIC or
				! EP_CUR_REPLY while a loopback ATOMIC is (§5.5)
	.set	EP_CUR_ATOMIC, 2	!   to be applied
	.set	EP_CUR_REPLY, 3		!   applied, its reply to be placed
	.set	EP_SLOT, 20		! its ring slot
	.set	EP_TICKET, 24		! its ticket
	.set	EP_FLAGS, 28		! its CmdFlags
	.set	EP_SRC, 32		! next source VA
	.set	EP_LEFT, 36		! bytes left
	.set	EP_DST, 40		! next destination offset
	.set	EP_NODE, 44		! destination node (the import's, copied)
	.set	EP_REP, 48		! destination endpoint
	.set	EP_KEY, 52		! destination region key
	.set	EP_CTRKEY, 56		! counter key, 0: none
	.set	EP_ERRCNT, 60		! remote errors recorded (ErrCount)
	.set	EP_SLOTPTR, 64		! address of the next ring slot
	.set	EP_H1, 68		! header word 1 of the WRITE's packets
	.set	EP_H2, 72		! header word 2 (without the length)
	.set	EP_INLINE, 76		! an inline WRITE's payload (NVM_INLINE_MAX bytes)
	.set	EP_ATOM_OLD, 108	! a loopback ATOMIC's old value
	.set	EP_RETRY, 112		! RTC time of its next try after a fault-in, 0: now
! Peer state (PeerBase + node * 128), both directions of one pair.
	.set	P_TX_SEQ, 0		! sender: next sequence number to assign
	.set	P_TX_SENT, 4		! sender: every number before it was sent once
	.set	P_TX_ACKED, 8		! sender: the receiver's reported base
	.set	P_TX_LIMIT, 12		! sender: credit limit (§8)
	.set	P_SACK, 16		! sender: bitmap of the last ACK (bit i = acked+1+i)
	.set	P_DEADLINE, 20		! sender: RTC time of the next retransmission
	.set	P_RETRIES, 24		! sender: retransmissions without progress
	.set	P_RETX_CUR, 28		! sender: retransmission cursor ...
	.set	P_RETX_END, 32		! ... up to here
	.set	P_IN_RETXQ, 36		! sender: the peer is in retxq
	.set	P_DEAD, 40		! sender: declared unreachable (§7)
	.set	P_RX_BASE, 44		! receiver: window base (§7)
	.set	P_RX_BITS, 48		! receiver: bit i = base+i received
	.set	P_RX_RELEASED, 52	! receiver: released[s] (§8)
	.set	P_IN_CTRLQ, 56		! receiver: an ACK/NACK is queued
	.set	P_NACK_STATUS, 60	! receiver: status of the NACK to send, 0: none
	.set	P_NACK_TICKET, 64	! receiver: the failed packet's ticket (its HdrAux)
	.set	P_NACK_EP, 68		! receiver: the failed packet's source endpoint
	.set	P_SLOT_BASE, 72		! receiver: first system-buffer slot of this sender
	.set	P_SLOTS_BUSY, 76	! receiver: its slots in use
	.set	P_DEF_HEAD, 80		! receiver: deferred notifications, first ...
	.set	P_DEF_COUNT, 84		! ... and how many
	.set	P_ACK_REL, 88		! receiver: P_RX_RELEASED in the last ACK/NACK
	.set	P_STALL, 92		! sender: STALL_CREDIT | STALL_PROBE
	.set	STALL_CREDIT, 1		!   a WRITE waits for credit
	.set	STALL_PROBE, 2		!   a probe is due (timer_poll -> tx_ctrl)
	.set	STALL_WAW, 4		!   a packet waits for an older one's ACK (probed)
	.set	P_BUF, 96		! sender: 32 bytes, send buffer of seq & 31
! Send buffer (SendBufBase + b * BufStride): route, header, payload, and
! in the 16 bytes after the largest payload our bookkeeping.
	.set	BUF_TAIL, NVM_BUF_PAYLOAD + NVM_MTU
	.set	BT_START, BUF_TAIL + 0	! first byte to send (the route)
	.set	BT_END, BUF_TAIL + 4	! end of the packet
	.set	BT_PEER, BUF_TAIL + 8	! destination node
	.set	BT_SEQ, BUF_TAIL + 12	! sequence number
! System-buffer slot table entry (SlotTabBase + slot * 16, §8).
	.set	SL_BUSY, 0		! 1 while the slot holds a redirected packet
	.set	SL_SEQ, 4		! its sequence number
	.set	SL_TAG, 8		! VPN << 12 | ASID of its destination page
	.set	SL_SRC, 12		! its sender
! Deferred notification (DeferBase + (node * DeferMax + i) * 8, §9).
	.set	DF_SEQ, 0		! sequence number of the notifying packet
	.set	DF_CTR, 4		! ep << 16 | counter id
! The receive area holds packets back to back; the engine is armed for
! one packet of at most RX_ARM bytes at a time (32 + 4096 + 5, rounded
! up to 8), right after the previous one, wrapping when it would not fit.
	.set	RX_ARM, 4144
	.set	RX_END, NVM_RECV_BASE + NVM_RECV_SIZE
! The retransmission check period (IT0 ticks of 0.5 us).
	.set	RETX_TICK, NVM_RETX_TICKS / 4
! The delayed ACK (§7, IT1 ticks of 0.5 us): an ACK owed only for the
! last packet of a WRITE waits at least this long, at most twice, for a
! DATA packet to the same peer to carry it (FlagAck). 20 us: far above a
! busy-polling host's answer (about 1 us) and far below the
! retransmission timeout (1 ms, which it must not reach); ACKs that free
! credit (C/2 released), report a gap or an error, answer a probe or a
! duplicate, or that a streaming sender asks for, are never delayed.
	.set	ACK_DELAY, 40
	.set	QMASK, 63		! the byte queues below hold 64 entries
! Packets are built at most TXQ_AHEAD ahead of the send engine: a page
! is built (its DMA included) in less time than a page takes on the
! link, so one packet ahead keeps the link busy, and a retransmission or
! an ACK is never queued behind many.
	.set	TXQ_AHEAD, 1
	.set	ENG_IDLE, ISR_RECV_INT | ISR_BUFF_INT | ISR_TIME0 | ISR_TIME1	! eng_mask, txwork = 0
	.set	ENG_BUSY, ENG_IDLE | ISR_SEND_INT			! eng_mask, txwork > 0

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
	.macro	PUSH r
	st	\r, [--%sp]
	.endm
	.macro	POP r
	ld	[%sp++], \r
	.endm
! TXWORK_INC, TXWORK_DEC: one entry more or less in ctrlq, retxq, txq
! together; eng_mask follows (clobbers r13)
	.macro	TXWORK_INC
	ld	[txwork], %r13
	add	%r13, 1, %r13
	st	%r13, [txwork]
	mov	ENG_BUSY, %r13
	st	%r13, [eng_mask]
	.endm
	.macro	TXWORK_DEC
	ld	[txwork], %r13
	sub.f	%r13, 1, %r13
	st	%r13, [txwork]
	bne	.+12			! (the store below is in the delay slot)
	mov	ENG_IDLE, %r13
	st	%r13, [eng_mask]
	.endm
! PRIO_INC, PRIO_DEC: one entry more or less in ctrlq and retxq
! together (what tx_take serves before txq; clobbers r13)
	.macro	PRIO_INC
	ld	[prio_work], %r13
	add	%r13, 1, %r13
	st	%r13, [prio_work]
	.endm
	.macro	PRIO_DEC
	ld	[prio_work], %r13
	sub	%r13, 1, %r13
	st	%r13, [prio_work]
	.endm
! STAT off: GlobStats[off] += 1 (clobbers r13, r14)
	.macro	STAT off
	mov	NVM_GLOB_BASE + NVM_GLOB_STATS, %r13
	ld	\off[%r13], %r14
	add	%r14, 1, %r14
	st	%r14, \off[%r13]
	.endm
! EPSTATE ep, out: out = EPStateBase + ep*EPStateSize (clobbers r13)
	.macro	EPSTATE ep, out
	sh	\ep, EP_STATE_SHIFT, \out
	mov	NVM_EP_STATE_BASE, %r13
	add	\out, %r13, \out
	.endm
! PEER node, out: out = PeerBase + node*PeerSize (clobbers r13)
	.macro	PEER node, out
	sh	\node, PEER_SHIFT, \out
	mov	NVM_PEER_BASE, %r13
	add	\out, %r13, \out
	.endm
! BUFADDR b, out: out = SendBufBase + b*BufStride (0x1040) (clobbers r13)
	.macro	BUFADDR b, out
	sh	\b, 12, \out
	sh	\b, 6, %r13
	add	\out, %r13, \out
	mov	NVM_SEND_BUF_BASE, %r13
	add	\out, %r13, \out
	.endm

	.bss
	.align	8
node_id: .zero	4		! GlobNodeID, read at FWGo
nnodes:	.zero	4		! GlobNodes
ncredits: .zero	4		! GlobCredits
mode:	.zero	4		! GlobMode
nslots:	.zero	4		! nnodes * ncredits: system-buffer slots
slots_busy: .zero 4		! slots in use, all senders
kr_next: .zero	4		! next kernel ring slot
kr_ptr:	.zero	4		! its address
ep_mask: .zero	4		! bit e set: endpoint e is open or parked
ev_n:	.zero	4		! events written (master copy of GlobEvqWrite)
timer_on: .zero	4		! IT0 is running for the retransmission check
tx_inflight: .zero 4		! the send buffer the engine was last given
dma_kick: .zero	4		! dma_sync is inside its tx_poll call
txwork:	.zero	4		! entries in ctrlq, retxq and txq together
prio_work: .zero 4		! entries in ctrlq and retxq together
eng_mask: .zero	4		! the ISR bits the main loop wakes up for: RECV,
				! BUFF, TIME0, and SEND_INT while txwork > 0
ack_timer_on: .zero 4		! IT1 is running for a delayed ACK
kcmd:	.zero	NVM_CMD_SIZE	! private copy of the command being taken
	.align	8
stage:	.zero	16		! staging for DMAs of small records to the host
evrec:	.zero	NVM_EVQ_SIZE	! the event record being written
! Byte queues of 64 entries with free-running head and tail counts:
bufq:	.zero	64		! free send buffers (FIFO: a freed buffer is reused last)
bufq_head: .zero 4
bufq_tail: .zero 4
txq:	.zero	64		! built send buffers, not yet sent
txq_head: .zero	4
txq_tail: .zero	4
ctrlq:	.zero	64		! peers owed an ACK/NACK
ctrlq_head: .zero 4
ctrlq_tail: .zero 4
retxq:	.zero	64		! peers with a retransmission to do
retxq_head: .zero 4
retxq_tail: .zero 4
rx_cur:	.zero	4		! where the packet being received starts
ack_owed: .zero	NVM_MAX_NODES	! byte p: peer p is owed a delayed ACK since this IT1 period (1) or before (2), 0: none (§7)
	.align	4
piggy:	.zero	4 * NVM_MAX_NODES	! word p: a noted piggyback's credit limit + 1, 0: none
piggy_n: .zero	4		! piggybacks noted, not yet processed

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
	add	%r6, NVM_STAT_COUNT * 4, %r7
	CALL	memzero
	mov	NVM_GLOB_BASE, %r16
	st	%r0, NVM_GLOB_EVQ_WRITE[%r16]
	st	%r0, NVM_GLOB_PANIC[%r16]
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
	! The configuration, checked: 1..MaxNodes nodes, the node id below
	! them, 1..MaxCredits credits, a known mode; else panic 1.
	ld	NVM_GLOB_NODES[%r16], %r17
	sub.f	%r17, 1, %r0
	bult	boot_panic
	sub.f	%r17, NVM_MAX_NODES, %r0	! (delay slot)
	bugt	boot_panic
	ld	NVM_GLOB_NODE_ID[%r16], %r7	! (delay slot)
	sub.f	%r7, %r17, %r0
	buge	boot_panic
	ld	NVM_GLOB_CREDITS[%r16], %r18	! (delay slot)
	sub.f	%r18, 1, %r0
	bult	boot_panic
	sub.f	%r18, NVM_MAX_CREDITS, %r0	! (delay slot)
	bugt	boot_panic
	ld	NVM_GLOB_MODE[%r16], %r8	! (delay slot)
	sub.f	%r8, NVM_MODE_BACKUP, %r0
	bugt	boot_panic
	nop
	st	%r7, [node_id]
	st	%r17, [nnodes]
	st	%r18, [ncredits]
	st	%r8, [mode]
	! Each peer: every sequence number starts at GlobSeqInit, the credit
	! limit at GlobSeqInit + C before the first ACK (§8); its slots.
	ld	NVM_GLOB_SEQ_INIT[%r16], %r10
	mov	NVM_SEQ_MASK, %r11
	and	%r10, %r11, %r10
	add	%r10, %r18, %r12
	and	%r12, %r11, %r12	! the first credit limit
	mov	0, %r6			! peer
	mov	0, %r7			! its first slot
1:	PEER	%r6, %r9
	st	%r10, P_TX_SEQ[%r9]
	st	%r10, P_TX_SENT[%r9]
	st	%r10, P_TX_ACKED[%r9]
	st	%r10, P_RETX_CUR[%r9]
	st	%r10, P_RETX_END[%r9]
	st	%r10, P_RX_BASE[%r9]
	st	%r10, P_RX_RELEASED[%r9]
	st	%r12, P_TX_LIMIT[%r9]
	st	%r7, P_SLOT_BASE[%r9]
	add	%r7, %r18, %r7
	add	%r6, 1, %r6
	sub.f	%r6, %r17, %r0
	bne	1b
	nop
	st	%r7, [nslots]
	! Every send buffer is free.
	mov	bufq, %r6
	mov	0, %r7
2:	st.b	%r7, %r7[%r6]
	add	%r7, 1, %r7
	sub.f	%r7, NVM_SEND_BUFS, %r0
	bne	2b
	nop
	st	%r7, [bufq_tail]
	mov	-1, %r7
	st	%r7, [tx_inflight]
	mov	NVM_K_RING_BASE, %r7
	st	%r7, [kr_ptr]
	mov	ENG_IDLE, %r7
	st	%r7, [eng_mask]
	mov	NVM_FW_RUNNING, %r7
	st	%r7, NVM_GLOB_STATUS[%r16]
	mov	NVM_RECV_BASE, %r6
	st	%r6, [rx_cur]
	CALL	rx_arm
	bt	main_loop
	nop

! boot_panic: a bad configuration: GlobPanic = 1, FWPanic, HOST_SIG,
! then stop (a branch to itself, which the emulator skips as idle).
boot_panic:
	mov	1, %r7
	st	%r7, NVM_GLOB_PANIC[%r16]
	mov	NVM_FW_PANIC, %r7
	st	%r7, NVM_GLOB_STATUS[%r16]
	mov	NVM_ISR_HOST_SIG, %r7
	st	%r7, ISR[%r0]
1:	bt	1b
	nop

! main_loop: the fixed polling order of §3.1: kernel ring, one packet of
! every open endpoint (0..15, in order, found through ep_mask), the
! receive engine, the send engine, the retransmission timer; the
! heartbeat once per pass. Never returns. Registers: all.
main_loop:
	ld	ISR[%r0], %r28		! the engines: anything for them?
	ld	[eng_mask], %r7
	and.f	%r28, %r7, %r0
	beq	1f
	nop
	CALL	engines
1:	ld	RTC[%r0], %r7
	mov	NVM_GLOB_BASE, %r6
	st	%r7, NVM_GLOB_HEARTBEAT[%r6]
	ld	[kr_ptr], %r7		! a kernel command posted?
	uld.b	NVM_CMD_OP[%r7], %r7
	sub.f	%r7, 0, %r0
	beq	1f
	nop
	CALL	kring_poll
1:	ld	[txq_head], %r7		! TXQ_AHEAD built packets wait for the
	ld	[txq_tail], %r8		! engine: no endpoint may add one, skip
	sub	%r8, %r7, %r8		! them (the pass is short, SEND_INT is
	sub.f	%r8, TXQ_AHEAD, %r0	! seen sooner)
	buge	main_loop
	ld	[ep_mask], %r27		! (delay slot) open endpoints, bit e = endpoint e
	sub.f	%r27, 0, %r0
	beq	.Lpass_end
	mov	0, %r26			! (delay slot)
	ld	ISR[%r0], %r28		! the engines twice per pass when endpoints are open
	ld	[eng_mask], %r7
	and.f	%r28, %r7, %r0
	beq	.Leploop
	nop
	CALL	engines
	ld	[ep_mask], %r27
.Leploop:
	sub.f	%r27, 0, %r0		! no open endpoint above r26
	beq	.Lpass_end
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
! The end of a pass: the ACKs noted from DATA packets (piggy_note) are
! processed after the endpoints have had their turn.
.Lpass_end:
	ld	[piggy_n], %r7
	sub.f	%r7, 0, %r0
	beq	main_loop
	nop
	CALL	piggy_flush
	bt	main_loop
	nop

! engines: serve the link and timer engines from one read of ISR: the
! receive engine first (the link stalls until it is re-armed, which
! rx_poll does before anything else; the send engine is served during
! rx_poll's DMA waits), the send engine, the retransmission timer, the
! delayed-ACK timer.
! In: r28 = ISR, read after an instruction that was no special-register
! store. Clobbers r6-r25, r28.
engines:
	mov	ISR_RECV_INT | ISR_BUFF_INT, %r7
	and.f	%r28, %r7, %r0
	bne	.Leng_rx
	mov	ISR_SEND_INT, %r7	! (delay slot)
.Leng_tx:
	and.f	%r28, %r7, %r0		! the send engine is idle ...
	beq	.Leng_timer
	ld	[txwork], %r7		! (delay slot) ... and a packet waits:
	sub.f	%r7, 0, %r0
	bne	tx_take			! (tail call; TIME0 is latched, the next pass sees it)
	nop
.Leng_timer:
	mov	ISR_TIME0, %r7
	and.f	%r28, %r7, %r0
	bne	timer_poll		! (tail call; TIME1 is latched too)
	mov	ISR_TIME1, %r7		! (delay slot)
	and.f	%r28, %r7, %r0
	bne	ack_timer_poll		! (tail call)
	nop
	RET
.Leng_rx:
	PUSH_RCA			! a packet: the fastest path to the re-arm
	CALL	rx_take			! (r28 = ISR)
	POP_RCA
	ld	ISR[%r0], %r28
	bt	.Leng_tx
	mov	ISR_SEND_INT, %r7	! (delay slot)

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

! dma_sync: one host DMA block, waited for; while it runs, a packet
! waiting in txq is handed to the send engine as soon as the engine is
! idle (a page's DMA takes about as long as a page on the link, so the
! link would otherwise idle while the next page is read). In: r6 SRAM address, r7 host
! bus address (low 32 bits; high word 0), r8 length, r9 DIR_TO_HOST
! (channel 0) or DIR_FROM_HOST (channel 2). Out: r10 = 0, or nonzero if
! the DMA faulted (a wild host address from the host: the engine halts
! the channel and raises MEM_INT; the firmware counts StatDMAFault,
! clears MEM_INT, marks the descriptor idle and restarts the channel,
! and goes on). Keeps r6-r9. Clobbers r10-r13. Every DMA of the
! firmware is one of these: the wait depends only on the PCI bus, never
! on the network.
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
	mov	ISR_MEM_INT, %r11
2:	mov	DESC_TERMINAL, %r13
	ld	DESC_NEXT[%r10], %r12	! done when the engine wrote TERMINAL back
	and	%r12, %r13, %r12
	sub.f	%r12, 0, %r0
	bne	3f
	nop
	ld	ISR[%r0], %r12		! or the channel faulted
	and.f	%r12, %r11, %r0
	bne	6f
	sh	%r12, 28, %r12		! (delay slot) SEND_INT (bit 3) to the sign
	sub.f	%r12, 0, %r0
	bpl	2b			! the send engine is busy
	ld	[txwork], %r12		! (delay slot) idle: is a packet waiting?
	sub.f	%r12, 0, %r0
	beq	2b
	ld	[dma_kick], %r12	! (delay slot) not from inside a kick
	sub.f	%r12, 0, %r0
	bne	2b
	mov	1, %r12			! (delay slot)
	st	%r12, [dma_kick]	! start it: the link does not wait for
	PUSH_RCA			! this DMA (tx_poll uses r6-r14)
	PUSH	%r6
	PUSH	%r7
	PUSH	%r8
	PUSH	%r9
	PUSH	%r10
	PUSH	%r11
	PUSH	%r14
	CALL	tx_poll
	POP	%r14
	POP	%r11
	POP	%r10
	POP	%r9
	POP	%r8
	POP	%r7
	POP	%r6
	POP_RCA
	bt	2b
	st	%r0, [dma_kick]		! (delay slot)
6:	st	%r11, ISR[%r0]		! acknowledge MEM_INT
	or	%r10, DESC_TERMINAL, %r12
	st	%r12, DESC_NEXT[%r10]	! idle, and restart the channel there
	sub.f	%r9, DIR_TO_HOST, %r0
	bne	4f
	nop
	bt	5f
	st	%r10, DMAPTR0[%r0]	! (delay slot)
4:	st	%r10, DMAPTR2[%r0]
5:	mov	NVM_GLOB_BASE + NVM_GLOB_STATS, %r13
	ld	NVM_STAT_DMA_FAULT[%r13], %r12
	add	%r12, 1, %r12
	st	%r12, NVM_STAT_DMA_FAULT[%r13]
	RET				! r10 nonzero: faulted
3:	mov	0, %r10
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

! ev_post: write the event record staged in evrec (the caller filled
! EvA0..EvA5) as event number ev_n (§6.3), then raise HOST_SIG (§10).
! In: r6 type (Ev*), r7 endpoint. Clobbers r6-r14. If the queue is full
! it waits for the driver to consume (the driver's obligation; the
! callers that can make several events keep EVQ_RESERVE records free
! before they take work).
ev_post:
	PUSH_RCA
	mov	evrec, %r9
	st.b	%r6, NVM_EV_TYPE[%r9]
	mov	NVM_EV_FLAG_IRQ, %r8
	st.b	%r8, NVM_EV_FLAGS[%r9]
	st.h	%r7, NVM_EV_EP[%r9]
	ld	[ev_n], %r10
	mov	NVM_GLOB_BASE, %r11
1:	ld	NVM_GLOB_EVQ_READ[%r11], %r12
	sub	%r10, %r12, %r12
	sub.f	%r12, NVM_EVQ_ENTRIES, %r0
	buge	1b
	add	%r10, 1, %r12		! (delay slot) EvSeq = n + 1
	st	%r12, NVM_EV_SEQ[%r9]
	st	%r12, [ev_n]
	mov	NVM_EVQ_ENTRIES - 1, %r8
	and	%r10, %r8, %r10
	sh	%r10, EVQ_SHIFT, %r10
	ld	NVM_GLOB_EVQ[%r11], %r7
	add	%r7, %r10, %r7
	mov	%r9, %r6
	mov	NVM_EVQ_SIZE, %r8
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	STAT	NVM_STAT_IRQ
	mov	NVM_ISR_HOST_SIG, %r7	! after the record is in host memory
	st	%r7, ISR[%r0]
	ld	[ev_n], %r7		! then the count the driver may read
	mov	NVM_GLOB_BASE, %r11
	st	%r7, NVM_GLOB_EVQ_WRITE[%r11]
	POP_RCA
	RET

! ev_room: is there room for EVQ_RESERVE more events? Out: r6 nonzero
! if so. Clobbers r6, r7.
ev_room:
	ld	[ev_n], %r6
	mov	NVM_GLOB_BASE, %r7
	ld	NVM_GLOB_EVQ_READ[%r7], %r7
	sub	%r6, %r7, %r6
	sub.f	%r6, NVM_EVQ_ENTRIES - EVQ_RESERVE, %r0
	mov	1, %r6
	bule	1f
	nop
	mov	0, %r6
1:	RET

! ep_complete: complete endpoint r6's current WRITE with status r7: its
! completion record (§6.1) and, if it asked (CmdFlagIRQ), an EvCmdDone
! event; EP_CUR = 0. Clobbers r6-r14.
ep_complete:
	PUSH_RCA
	EPSTATE	%r6, %r9
	st	%r0, EP_CUR[%r9]
	PUSH	%r6			! ep
	PUSH	%r7			! status
	PUSH	%r9			! state
	ld	EP_SLOT[%r9], %r8
	ld	NVM_EP_ST_PAGE[%r9], %r6
	sh	%r8, COMP_SHIFT, %r8
	add	%r6, %r8, %r6
	add	%r6, NVM_PAGE_COMP, %r6
	ld	EP_TICKET[%r9], %r8
	CALL	put_comp
	POP	%r9
	POP	%r7
	POP	%r6
	ld	EP_FLAGS[%r9], %r8
	mov	NVM_CMD_FLAG_IRQ, %r11
	and	%r8, %r11, %r8
	sub.f	%r8, 0, %r0
	beq	1f
	mov	evrec, %r10		! (delay slot)
	ld	EP_TICKET[%r9], %r8
	st	%r8, NVM_EV_A0[%r10]
	st	%r7, NVM_EV_A1[%r10]
	st	%r0, NVM_EV_A2[%r10]	! 0: a user ring
	ld	EP_SLOT[%r9], %r8
	st	%r8, NVM_EV_A3[%r10]
	st	%r0, NVM_EV_A4[%r10]
	st	%r0, NVM_EV_A5[%r10]
	mov	%r6, %r7
	mov	NVM_EV_CMD_DONE, %r6
	CALL	ev_post
1:	POP_RCA
	RET

! ep_error: record a remote error for endpoint r6 (§6.1 PageErr: ErrCount
! += 1, ErrStatus, ErrTicket, one 12-byte DMA) and write an EvEpError
! event. In: r6 ep (checked: < MaxEndpoints and not closed), r7 status,
! r8 ticket, r9 remote node. Clobbers r6-r14.
ep_error:
	sub.f	%r6, NVM_MAX_ENDPOINTS, %r0
	buge	9f
	EPSTATE	%r6, %r10		! (delay slot: first instruction only)
	ld	NVM_EP_ST_STATE[%r10], %r11
	sub.f	%r11, NVM_EP_CLOSED, %r0
	beq	9f
	mov	evrec, %r11		! (delay slot)
	st	%r8, NVM_EV_A0[%r11]
	st	%r7, NVM_EV_A1[%r11]
	st	%r9, NVM_EV_A2[%r11]
	st	%r0, NVM_EV_A3[%r11]
	st	%r0, NVM_EV_A4[%r11]
	st	%r0, NVM_EV_A5[%r11]
	ld	EP_ERRCNT[%r10], %r12
	add	%r12, 1, %r12
	st	%r12, EP_ERRCNT[%r10]
	mov	stage, %r11
	st	%r12, NVM_ERR_COUNT[%r11]
	st	%r7, NVM_ERR_STATUS[%r11]
	st	%r8, NVM_ERR_TICKET[%r11]
	PUSH_RCA
	PUSH	%r6
	ld	NVM_EP_ST_PAGE[%r10], %r7
	add	%r7, NVM_PAGE_ERR, %r7
	mov	%r11, %r6
	mov	12, %r8			! ErrCount, ErrStatus, ErrTicket
	mov	DIR_TO_HOST, %r9
	CALL	dma_sync
	STAT	NVM_STAT_REMOTE_ERR	! counted before the event is visible
	POP	%r7
	mov	NVM_EV_EP_ERROR, %r6
	CALL	ev_post
	POP_RCA
9:	RET

! spt_lookup: find the SPT entry of (asid, va) (§4.2). In: r6 ASID, r7 VA.
! Out: r8 entry address, or 0 on a miss. Clobbers r9-r12.
spt_lookup:
	sh	%r7, -NVM_PAGE_SHIFT, %r9	! vpn; the hash of §4.2:
	sh	%r9, -NVM_SPT_HASH_BITS, %r10
	sh	%r6, 3, %r11
	xor	%r10, %r11, %r10		! hi = vpn >> 14 ^ asid << 3
	sh	%r10, 7, %r11
	xor	%r9, %r11, %r11			! vpn ^ hi << 7
	sh	%r10, -7, %r10
	xor	%r11, %r10, %r10		! ^ hi >> 7
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
! NVM_SPT_V | NVM_SPT_W for a destination). Out: r9 = host page address
! (PFN << 12) with L set, or r9 = 0: not resident, not locked.
! RCNT must be 0 (§4.1). Step 1's test of the host flags is made only
! after L is set (the re-read of step 3 is the test that matters; a page
! that fails it is unlocked at once): the common case, a resident page,
! costs one test instead of two. The NIC word is the NIC's alone, so L is
! set and cleared with word stores. In ModeStatic the test is made once
! and L is not touched (static pinning: the host never changes a mapping
! that is in use). Clobbers r9-r12.
spt_lock:
	ld	NVM_SPT_NIC[%r8], %r10	! RCNT = 0?
	sh	%r10, -NVM_SPT_RCNT_SHIFT, %r11
	sub.f	%r11, 0, %r0
	bne	9f
	ld	[mode], %r11		! (delay slot)
	sub.f	%r11, NVM_MODE_STATIC, %r0
	beq	1f
	or	%r10, NVM_SPT_L, %r11	! (delay slot)
	st	%r11, NVM_SPT_NIC[%r8]	! step 2: L = 1
1:	ld	NVM_SPT_FRAME[%r8], %r9	! step 3: (re-)read the host flags
	or	%r6, NVM_SPT_P, %r12	! forbidden
	and	%r9, %r12, %r12
	sub.f	%r12, 0, %r0
	bne	8f
	and	%r9, %r7, %r12		! (delay slot) required
	sub.f	%r12, %r7, %r0
	bne	8f
	sh	%r9, -NVM_PAGE_SHIFT, %r9	! (delay slot)
	sh	%r9, NVM_PAGE_SHIFT, %r9	! PFN << 12
	RET
8:	st	%r10, NVM_SPT_NIC[%r8]	! back off: the word as it was (L = 0)
9:	mov	0, %r9
	RET

! spt_unlock: §4.3 step 5: L = 0, and D = 1 if r6 is nonzero (a
! destination). RCNT is 0 while L is held. In: r8 entry, r6. Clobbers
! r10, r11.
spt_unlock:
	sub.f	%r6, 0, %r0
	bne	1f
	mov	NVM_SPT_D, %r10		! (delay slot)
	ld	NVM_SPT_NIC[%r8], %r11	! a source: D as it was
	and	%r11, %r10, %r10
1:	st	%r10, NVM_SPT_NIC[%r8]
	RET

! rx_arm: arm the receive engine for one packet at rx_cur (at most
! RX_ARM bytes); also acknowledges RECV_INT/BUFF_INT. RML is cleared
! first, so that the engine is never armed on a wrong range between the
! two stores. Clobbers r6, r7.
rx_arm:
	ld	[rx_cur], %r6
	add	%r6, RX_ARM, %r7
	st	%r0, RML[%r0]
	st	%r6, RMP[%r0]
	st	%r7, RML[%r0]
	RET

! The other state machines (same assembly unit: they use the symbols and
! macros above).
	.include "kring.s"
	.include "send.s"
	.include "tx.s"
	.include "recv.s"
