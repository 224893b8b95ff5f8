// Package abi is the single source of the NetVM contract between the LANai
// firmware, the host driver and the user library: every SRAM address, every
// structure offset, command code, SPT bit, packet-header offset, event type,
// status code and limit. docs/netvm.md explains each of them; this package
// only names them.
//
// Every exported constant appears once in Table (a test enforces it, by
// parsing this file), and Include renders Table as LANai assembly (.set
// lines) for the firmware. The committed firmware/netvm/src/abi.inc must equal
// Include(); regenerate it with
//
//	go run ./netvm/abi/gen
//
// Byte order: every multi-byte field of every structure named here, in SRAM,
// in host memory and on the wire, is big-endian (network order), as the LANai
// stores it. The little-endian i386 host converts with htonl/ntohl.
package abi

// ---- Versioning and sizes --------------------------------------------------

const (
	// Magic is written by the firmware at GlobMagic when it starts ("NVM1").
	Magic = 0x4E564D31
	// Version is the ABI version; the driver refuses firmware with another.
	Version = 1
	// SRAMSize is the board SRAM the layout is made for: 2 MiB.
	SRAMSize = 0x200000
	// PageSize is the host (i386) page size and the unit of the SPT.
	PageSize = 4096
	// PageShift is log2(PageSize).
	PageShift = 12
)

// ---- SRAM layout (LANai addresses = BAR0 offsets) --------------------------

const (
	// FWBase is where the firmware image (code, data, bss) is loaded.
	FWBase = 0x000000
	// FWStackTop is the firmware's initial stack pointer; the image and
	// the stack share [FWBase, FWStackTop).
	FWStackTop = 0x018000
	// GlobBase is the globals block (GlobSize bytes).
	GlobBase = 0x018000
	// GlobSize is the size of the globals block.
	GlobSize = 0x1000
	// KRingBase is the kernel command ring (KRingSlots x CmdSize bytes).
	KRingBase = 0x019000
	// DMADescBase is the firmware's host-DMA descriptor area (private).
	DMADescBase = 0x01A000
	// DMADescSize is the size of the DMA descriptor area.
	DMADescSize = 0x2000
	// EPRingBase is the first endpoint command ring; endpoint e's ring is
	// the 4 KiB page at EPRingBase + e*EPRingStride (mapped into its user).
	EPRingBase = 0x020000
	// EPRingStride is the distance between endpoint rings: one host page.
	EPRingStride = 0x1000
	// EPStateBase is the endpoint state table (MaxEndpoints x EPStateSize).
	EPStateBase = 0x030000
	// EPStateSize is the size of one endpoint state entry.
	EPStateSize = 0x100
	// ExportBase is the export table (MaxExports x ExpSize).
	ExportBase = 0x031000
	// ImportBase is the import table (MaxImports x ImpSize).
	ImportBase = 0x033000
	// RouteBase is the route table (MaxNodes x RouteSize), written by the
	// driver before it starts the firmware.
	RouteBase = 0x035000
	// PeerBase is the per-peer protocol state (MaxNodes x PeerSize), private.
	PeerBase = 0x036000
	// PeerSize is the size of one peer state entry.
	PeerSize = 0x80
	// CtrBase is the counter shadow table (MaxEndpoints x MaxCounters x
	// CtrSize).
	CtrBase = 0x038000
	// DeferBase is the deferred-notification queues (MaxNodes x DeferMax x
	// DeferSize), private.
	DeferBase = 0x03C000
	// DeferSize is the size of one deferred notification.
	DeferSize = 8
	// SlotTabBase is the system-buffer slot table (MaxNodes x MaxCredits x
	// SlotSize), private.
	SlotTabBase = 0x040000
	// SlotSize is the size of one slot-table entry.
	SlotSize = 16
	// SPTBase is the shadow page table (SPTEntries x SPTEntrySize).
	SPTBase = 0x050000
	// SendBufBase is the send-buffer pool (SendBufs x BufStride), private.
	SendBufBase = 0x090000
	// CtrlBufBase is the staging area for ACK/NACK packets (4 KiB), private.
	CtrlBufBase = 0x0D1000
	// RecvBase is the receive area: the receive engine's ring (RecvSize).
	RecvBase = 0x0D2000
	// RecvSize is the size of the receive area (128 KiB).
	RecvSize = 0x20000
	// FreeBase starts SRAM that the contract leaves unused (to FreeEnd).
	FreeBase = 0x0F2000
	// FreeEnd ends the unused SRAM; [FreeEnd, SRAMSize) is reserved for
	// the doorbell limit counters of docs/hostbus.md.
	FreeEnd = 0x1FF000
)

// ---- Limits ----------------------------------------------------------------

const (
	// MaxEndpoints is the number of endpoints per board.
	MaxEndpoints = 16
	// MaxCounters is the number of event counters per endpoint.
	MaxCounters = 64
	// MaxExports is the number of export-table entries per board.
	MaxExports = 256
	// MaxImports is the number of import-table entries per board.
	MaxImports = 256
	// MaxNodes is the largest number of nodes (node ids 0..MaxNodes-1).
	MaxNodes = 64
	// MaxASID is the largest address-space id; 0 and ASIDDead are reserved.
	MaxASID = 0xFFE
	// RingSlots is the number of slots of an endpoint command ring.
	RingSlots = 64
	// KRingSlots is the number of slots of the kernel command ring.
	KRingSlots = 64
	// CmdSize is the size of one command slot (user and kernel rings).
	CmdSize = 64
	// MTU is the largest payload of one DATA packet; a packet's payload
	// never crosses a page boundary of its source or its destination.
	MTU = 4096
	// MaxRoute is the longest route (bytes) in a route-table entry.
	MaxRoute = 15
	// MaxWrite is the largest length of one WRITE command (16 MiB - 1).
	MaxWrite = 0xFFFFFF
	// Window is the sequence window W per (sender, receiver) pair.
	Window = 32
	// SeqMask masks the 16-bit sequence and credit numbers.
	SeqMask = 0xFFFF
	// MaxCredits is the largest credit allotment C per (sender, receiver).
	MaxCredits = 8
	// DefaultCredits is the credit allotment the driver configures by default.
	DefaultCredits = 8
	// SysBufSlot is the size of one system-buffer slot in host memory.
	SysBufSlot = 4096
	// DeferMax is the deferred-notification queue length per peer.
	DeferMax = 32
	// SendBufs is the number of send buffers in SRAM.
	SendBufs = 64
	// BufStride is the size of one send buffer: route, header, payload.
	BufStride = 0x1040
	// BufHdr is the offset of the NetVM header inside a send buffer; the
	// route is stored right-aligned in the BufHdr bytes before it.
	BufHdr = 16
	// BufPayload is the offset of the payload inside a send buffer.
	BufPayload = 48
	// EvqEntries is the number of records of the host event queue.
	EvqEntries = 1024
	// EvqSize is the size of one event record.
	EvqSize = 32
	// SPTEntries is the number of SPT entries (a power of two).
	SPTEntries = 16384
	// SPTHashBits is log2(SPTEntries).
	SPTHashBits = 14
	// SPTProbe is the length of an SPT probe sequence.
	SPTProbe = 16
	// RetxTicks is the retransmission timeout in RTC ticks (0.5 us): 1 ms.
	RetxTicks = 2000
	// RetxMax is the number of retransmissions before a peer is declared
	// unreachable (StatusTimeout).
	RetxMax = 16
)

// ---- Globals (offsets from GlobBase) ---------------------------------------

const (
	// GlobMagic (u32, NIC) holds Magic once the firmware runs.
	GlobMagic = 0x00
	// GlobVersion (u32, NIC) holds Version.
	GlobVersion = 0x04
	// GlobStatus (u32, both: see FWStatus values) is the boot handshake.
	GlobStatus = 0x08
	// GlobNodeID (u32, host) is this board's node id.
	GlobNodeID = 0x0C
	// GlobNodes (u32, host) is the number of nodes in the cluster.
	GlobNodes = 0x10
	// GlobCredits (u32, host) is the credit allotment C (1..MaxCredits).
	GlobCredits = 0x14
	// GlobSysBuf (u32, host) is the host physical address of the system
	// buffer: GlobNodes x GlobCredits slots of SysBufSlot bytes, wired.
	GlobSysBuf = 0x18
	// GlobEvq (u32, host) is the host physical address of the event queue.
	GlobEvq = 0x1C
	// GlobEvqRead (u32, host) counts event records the host has consumed.
	GlobEvqRead = 0x20
	// GlobEvqWrite (u32, NIC) counts event records the NIC has written.
	GlobEvqWrite = 0x24
	// GlobKComp (u32, host) is the host physical address of the kernel
	// completion records (KRingSlots x CompSize).
	GlobKComp = 0x28
	// GlobPanic (u32, NIC) is the panic code when GlobStatus is FWPanic.
	GlobPanic = 0x2C
	// GlobHeartbeat (u32, NIC) is the RTC, copied once per main-loop pass.
	GlobHeartbeat = 0x30
	// GlobMode (u32, host) selects the translation mode at FWGo: ModeNetVM
	// or ModeStatic.
	GlobMode = 0x34
	// GlobSeqInit (u32, host) is the first sequence number of every
	// (sender, receiver) pair, low 16 bits (as TCP's initial sequence
	// number; all nodes must agree).
	GlobSeqInit = 0x38
	// GlobStats is the start of the statistics words (u32, NIC).
	GlobStats = 0x40
)

// Statistics words (u32, NIC-written) at GlobBase + GlobStats + offset.
const (
	// StatTxData counts DATA packets sent (retransmissions included).
	StatTxData = 0x00
	// StatRxData counts DATA packets received with a good CRC.
	StatRxData = 0x04
	// StatRetx counts retransmitted DATA packets.
	StatRetx = 0x08
	// StatDup counts duplicate DATA packets dropped.
	StatDup = 0x0C
	// StatCRC counts packets dropped for a CRC error.
	StatCRC = 0x10
	// StatRedirect counts DATA packets redirected to the system buffer.
	StatRedirect = 0x14
	// StatSrcFault counts source-page faults raised.
	StatSrcFault = 0x18
	// StatCreditStall counts send attempts stopped for lack of credit.
	StatCreditStall = 0x1C
	// StatNotify counts counter increments applied.
	StatNotify = 0x20
	// StatIRQ counts host interrupts raised.
	StatIRQ = 0x24
	// StatNack counts NACK packets sent.
	StatNack = 0x28
	// StatLockWait counts SPT_PROTECT commands that waited for L.
	StatLockWait = 0x2C
	// StatMalformed counts packets dropped as malformed (bad type, length,
	// node or kind) besides CRC errors.
	StatMalformed = 0x30
	// StatRemoteErr counts error NACKs received (remote errors recorded).
	StatRemoteErr = 0x34
	// StatPeerDead counts peers declared unreachable after RetxMax tries.
	StatPeerDead = 0x38
	// StatAck counts ACK packets sent.
	StatAck = 0x3C
	// StatDMAFault counts host DMAs that faulted (a wild host address).
	StatDMAFault = 0x40
	// StatWAWStall counts packets held back because an unacknowledged
	// earlier packet to the same peer writes the same destination page
	// (docs/netvm.md §7: write-after-write order).
	StatWAWStall = 0x44
	// StatRecvFault counts packets for a page the NIC could not translate
	// that ModeNPF dropped with an RNR NACK, and atomic requests whose
	// word's page did not lock (docs/netvm.md §5.5) (the host was asked to
	// fault the page in).
	StatRecvFault = 0x48
	// StatRingFull counts packets for a non-resident page dropped because
	// the sender's system-buffer slots were all busy (ModeBackup: no
	// credits; never in ModeNetVM).
	StatRingFull = 0x4C
	// StatCount is the number of statistics words.
	StatCount = 20
)

// Translation modes (GlobMode).
const (
	// ModeNetVM: unpinned memory, the SPT lock handshake of §4.3.
	ModeNetVM = 0
	// ModeStatic: static pinning (the baseline): the SPT is filled at
	// export and never changes while in use, so the firmware translates
	// without the lock handshake.
	ModeStatic = 1
	// ModeDynamic: dynamic pinning (the baseline of E5, as in U-Net/MM
	// and UTLB), a host-side mode: the firmware runs as in ModeStatic,
	// and the SPT holds only the pages the host has pinned (exported
	// regions, wired at export, and the pages of the library's pin-down
	// cache). The driver never writes it into GlobMode.
	ModeDynamic = 2
	// ModeNPF: NIC page faults with drop and retry (the baseline of E6,
	// as InfiniBand ODP's RNR NAK): a packet for a page the NIC cannot
	// translate is dropped with a NACK StatusRNR and an EvRecvFault asks
	// the host to fault the page in; the sender retries after the RNR
	// delay (RetxTicks / 4) without counting a failure.
	ModeNPF = 3
	// ModeBackup: NIC page faults with a backup ring (the other E6
	// baseline): such a packet is stored in the system buffer and copied
	// by the host, as NetVM's redirect, but senders take no credits, so
	// when a sender's slots are all busy the packet is dropped
	// (StatRingFull) with a NACK StatusResend.
	ModeBackup = 4
)

// Firmware status values in GlobStatus.
const (
	// FWBooting: the firmware has not finished its own initialisation.
	FWBooting = 0
	// FWWaitConfig: firmware ready for configuration (NIC writes).
	FWWaitConfig = 1
	// FWGo: configuration written, start (host writes).
	FWGo = 2
	// FWRunning: the firmware serves rings and the link (NIC writes).
	FWRunning = 3
	// FWPanic: the firmware stopped; see GlobPanic (NIC writes).
	FWPanic = 4
)

// ---- Command slots (user and kernel rings) ---------------------------------

const (
	// CmdTicket (u32): the poster's nonzero command number, echoed in the
	// completion record.
	CmdTicket = 0x00
	// CmdFlags (u8): CmdFlagIRQ and nothing else yet.
	CmdFlags = 0x3E
	// CmdOp (u8): the opcode and valid byte, written last by the host and
	// set to 0 by the firmware when it has taken the command.
	CmdOp = 0x3F
	// CmdFlagIRQ asks for a host interrupt (EvCmdDone) on completion.
	CmdFlagIRQ = 0x01
	// CmdFlagInline (WRITE only): the payload, WrLen <= InlineMax bytes,
	// is in the slot at WrInline; WrSrcVA is not used.
	CmdFlagInline = 0x02
)

// WRITE command (user ring) fields.
const (
	// OpWrite is the RDMA write opcode of the user ring.
	OpWrite = 0x01
	// WrSrcVA (u32) is the source user virtual address.
	WrSrcVA = 0x04
	// WrLen (u32) is the length in bytes (0..MaxWrite; 0 = notify only).
	WrLen = 0x08
	// WrDstOff (u32) is the offset in the imported region.
	WrDstOff = 0x0C
	// WrImport (u16) is the import-table index of the destination region.
	WrImport = 0x10
	// WrCtrImport (u16) is the import-table index of the remote counter,
	// or NoCounter.
	WrCtrImport = 0x12
	// NoCounter in WrCtrImport: the write notifies nobody.
	NoCounter = 0xFFFF
	// WrInline is where an inline WRITE's payload starts in the slot
	// (InlineMax bytes).
	WrInline = 0x18
	// InlineMax is the largest payload a WRITE carries in its slot.
	InlineMax = 32
)

// ATOMIC command (user ring) and the atomic request it sends (docs/netvm.md
// §5.5). The slot carries WrImport (an import of kind ExpKindAtomic) and,
// at WrInline, the request: AtomReqSize bytes, big-endian, which travel as
// the payload of one DATA packet to the home node.
const (
	// OpAtomic is the remote atomic opcode of the user ring.
	OpAtomic = 0x02
	// AtomOp (u32) is the operation: AtomFetchAdd or AtomCAS.
	AtomOp = 0x00
	// AtomOffset (u32) is the target word's offset in the region (4-aligned).
	AtomOffset = 0x04
	// AtomArg0 (u32) is the addend (AtomFetchAdd) or the expected value (AtomCAS).
	AtomArg0 = 0x08
	// AtomArg1 (u32) is the value stored by AtomCAS when the word equals AtomArg0.
	AtomArg1 = 0x0C
	// AtomReplyKey (u32) is the requester's own region export that receives the old value.
	AtomReplyKey = 0x10
	// AtomReplyOff (u32) is the offset in that region of the 4-byte reply.
	AtomReplyOff = 0x14
	// AtomReplyCtr (u32) is the requester's own counter export the reply notifies, 0: none.
	AtomReplyCtr = 0x18
	// AtomReqSize is the size of the atomic request.
	AtomReqSize = 0x1C
	// AtomFetchAdd: word += AtomArg0; the reply is the old value.
	AtomFetchAdd = 1
	// AtomCAS: if word == AtomArg0, word = AtomArg1; the reply is the old value.
	AtomCAS = 2
)

// Kernel ring opcodes.
const (
	// KOpEPOpen opens an endpoint.
	KOpEPOpen = 0x10
	// KOpEPClose closes an endpoint after draining it.
	KOpEPClose = 0x11
	// KOpExport installs an export-table entry.
	KOpExport = 0x12
	// KOpUnexport removes an export-table entry.
	KOpUnexport = 0x13
	// KOpImport installs an import-table entry.
	KOpImport = 0x14
	// KOpUnimport removes an import-table entry.
	KOpUnimport = 0x15
	// KOpSPTMap installs an SPT entry.
	KOpSPTMap = 0x20
	// KOpSPTUnmap frees an SPT entry (after the host's handshake).
	KOpSPTUnmap = 0x21
	// KOpSPTProtect sets an entry's host flags and completes when L is clear.
	KOpSPTProtect = 0x22
	// KOpRedirDone releases system-buffer slots (returns their credits).
	KOpRedirDone = 0x30
	// KOpSrcFaultDone resumes an endpoint parked on a source fault.
	KOpSrcFaultDone = 0x31
	// KOpCtrArm arms or disarms a counter's wake-up.
	KOpCtrArm = 0x32
)

// Kernel command argument offsets (u32 each unless stated).
const (
	// KEp is the endpoint number (EP_OPEN, EP_CLOSE, EXPORT, IMPORT,
	// SRC_FAULT_DONE, CTR_ARM).
	KEp = 0x04
	// KOpenASID is EP_OPEN's address-space id.
	KOpenASID = 0x08
	// KOpenPage is EP_OPEN's host physical address of the status page.
	KOpenPage = 0x0C
	// KExpKey is the export key (EXPORT, UNEXPORT).
	KExpKey = 0x08
	// KExpBase is EXPORT's page-aligned base VA (region) or counter id.
	KExpBase = 0x0C
	// KExpLen is EXPORT's length in bytes (region) or 8 (counter).
	KExpLen = 0x10
	// KExpKind is EXPORT's kind and permissions (ExpKind*, ExpPerm*).
	KExpKind = 0x14
	// KImpIndex is the import-table index (IMPORT, UNIMPORT).
	KImpIndex = 0x08
	// KImpNode is IMPORT's remote node.
	KImpNode = 0x0C
	// KImpEp is IMPORT's remote endpoint.
	KImpEp = 0x10
	// KImpKey is IMPORT's remote export key.
	KImpKey = 0x14
	// KImpLen is IMPORT's region length (for the local bounds check).
	KImpLen = 0x18
	// KImpKind is IMPORT's kind (ExpKindRegion or ExpKindCounter).
	KImpKind = 0x1C
	// KSPTIndex is the SPT entry index (SPT_MAP, SPT_UNMAP, SPT_PROTECT).
	KSPTIndex = 0x04
	// KSPTTag is SPT_MAP's tag word.
	KSPTTag = 0x08
	// KSPTFrame is the PFN and host-flags word (SPT_MAP, SPT_PROTECT).
	KSPTFrame = 0x0C
	// KRedirCount is REDIR_DONE's number of slots (1..KRedirMax).
	KRedirCount = 0x04
	// KRedirSlots is REDIR_DONE's array of u16 slot numbers.
	KRedirSlots = 0x08
	// KRedirMax is the most slots one REDIR_DONE releases.
	KRedirMax = 24
	// KFaultStatus is SRC_FAULT_DONE's status: StatusOK retries the page.
	KFaultStatus = 0x08
	// KCtr is CTR_ARM's counter id.
	KCtr = 0x08
	// KCtrTarget is CTR_ARM's target (low 32 bits of the counter value,
	// compared in serial arithmetic).
	KCtrTarget = 0x0C
	// KCtrMode is CTR_ARM's mode (CtrMode*).
	KCtrMode = 0x10
)

// Export kinds and permissions (KExpKind, KImpKind, ExpKind field).
const (
	// ExpKindRegion: the export is a memory region.
	ExpKindRegion = 0x01
	// ExpKindCounter: the export is one event counter.
	ExpKindCounter = 0x02
	// ExpKindAtomic: the export is a region's words for remote atomics
	// (OpAtomic); with ExpPermW the home NIC applies them.
	ExpKindAtomic = 0x03
	// ExpPermW: remote writes allowed (regions).
	ExpPermW = 0x100
	// ExpKeyIndexMask: the low bits of a key index the export table; the
	// rest is a generation number chosen by the driver (never 0).
	ExpKeyIndexMask = 0xFF
)

// Counter arming modes (KCtrMode).
const (
	// CtrModeOff disarms the counter.
	CtrModeOff = 0
	// CtrModeOnce raises one EvCtrWake when value >= target, then disarms.
	CtrModeOnce = 1
	// CtrModeEvery raises EvCtrWake on every increment (handler mode).
	CtrModeEvery = 2
)

// ---- SRAM tables (entry layouts) -------------------------------------------

const (
	// ExpSize is the size of one export-table entry.
	ExpSize = 32
	// ExpKey (u32): the full key; 0 = free entry.
	ExpKey = 0x00
	// ExpEp (u32): the owning endpoint.
	ExpEp = 0x04
	// ExpBase (u32): region base VA (page-aligned) or counter id.
	ExpBase = 0x08
	// ExpLen (u32): region length.
	ExpLen = 0x0C
	// ExpKind (u32): kind and permissions.
	ExpKind = 0x10
	// ExpASID (u32): the owning endpoint's ASID (copied by the firmware).
	ExpASID = 0x14
	// ImpSize is the size of one import-table entry.
	ImpSize = 32
	// ImpKey (u32): the remote key; 0 = free entry.
	ImpKey = 0x00
	// ImpEp (u32): the local endpoint that may use the entry.
	ImpEp = 0x04
	// ImpNode (u32): the remote node.
	ImpNode = 0x08
	// ImpRemoteEp (u32): the remote endpoint.
	ImpRemoteEp = 0x0C
	// ImpLen (u32): the remote region length.
	ImpLen = 0x10
	// ImpKind (u32): ExpKindRegion or ExpKindCounter.
	ImpKind = 0x14
	// RouteSize is the size of one route-table entry.
	RouteSize = 16
	// RouteLen (u8, offset 0): route length in bytes (0..MaxRoute).
	RouteLen = 0x00
	// RouteBytes (u8[15]): the route bytes, each with bit 7 set.
	RouteBytes = 0x01
	// CtrSize is the size of one counter shadow.
	CtrSize = 16
	// CtrValueHi (u32): the counter's value, high word.
	CtrValueHi = 0x00
	// CtrValueLo (u32): the counter's value, low word.
	CtrValueLo = 0x04
	// CtrTarget (u32): the armed target's low 32 bits, compared with the
	// value's low 32 bits in serial (mod 2^32) arithmetic.
	CtrTarget = 0x08
	// CtrMode (u32): the CtrMode* arming mode.
	CtrMode = 0x0C
	// EPStState (u32): EPClosed, EPOpen, EPParked or EPClosing.
	EPStState = 0x00
	// EPStASID (u32): the endpoint's ASID.
	EPStASID = 0x04
	// EPStPage (u32): host physical address of the endpoint status page.
	EPStPage = 0x08
	// EPStNext (u32): the next ring slot the firmware will read.
	EPStNext = 0x0C
	// EPClosed: endpoint not in use.
	EPClosed = 0
	// EPOpen: endpoint served.
	EPOpen = 1
	// EPParked: endpoint waits for SRC_FAULT_DONE.
	EPParked = 2
	// EPClosing: EP_CLOSE received, draining.
	EPClosing = 3
)

// ---- Shadow page table -----------------------------------------------------

const (
	// SPTEntrySize is the size of one SPT entry.
	SPTEntrySize = 16
	// SPTTag (u32, host): VPN<<12 | ASID; SPTTagEmpty or SPTTagDead.
	SPTTag = 0x00
	// SPTFrame (u32, host): PFN<<12 | host flags (SPTV, SPTW, SPTP, SPTR).
	SPTFrame = 0x04
	// SPTFlagsByte (u8, host): byte of SPTFrame holding the host flags
	// (bits 7..0 of the word); the host rewrites only this byte.
	SPTFlagsByte = 0x07
	// SPTNIC (u32, NIC): SPTL | SPTD | redirect count << SPTRCntShift.
	SPTNIC = 0x08
	// SPTLockByte (u8, NIC): byte of SPTNIC holding L and D.
	SPTLockByte = 0x0B
	// SPTTagEmpty marks a never-used entry (ends a probe).
	SPTTagEmpty = 0
	// SPTTagDead marks a freed entry (a probe goes on; reusable).
	SPTTagDead = 0xFFF
	// ASIDDead is the reserved ASID of SPTTagDead.
	ASIDDead = 0xFFF
	// SPTASIDMask masks the ASID in a tag.
	SPTASIDMask = 0xFFF
	// SPTV (host): valid, the page is resident at PFN.
	SPTV = 0x01
	// SPTW (host): writable, the NIC may DMA into the page.
	SPTW = 0x02
	// SPTP (host): unmap pending, the NIC must not newly lock the page.
	SPTP = 0x04
	// SPTR (host): redirect, every NIC write to the page is redirected.
	SPTR = 0x08
	// SPTL (NIC): locked, a DMA touching the page is in flight.
	SPTL = 0x01
	// SPTD (NIC): dirty, the NIC has written the page since it was mapped.
	SPTD = 0x02
	// SPTRCntShift is the shift of the NIC's redirect count in SPTNIC.
	SPTRCntShift = 8
	// SPTRCntMask is the redirect count's mask after shifting.
	SPTRCntMask = 0xFFFF
)

// ---- Wire format (offsets from the first byte after the route) -------------

const (
	// PktType is the Myrinet packet type of NetVM (u16 at HdrType, "NV").
	PktType = 0x4E56
	// HdrType (u16): PktType.
	HdrType = 0x00
	// HdrKind (u8): KindData, KindAck or KindNack.
	HdrKind = 0x02
	// HdrFlags (u8): FlagLast, FlagNotify, FlagAck (DATA); FlagProbe (ACK, NACK).
	HdrFlags = 0x03
	// HdrSrcNode (u16): the sender's node id.
	HdrSrcNode = 0x04
	// HdrDstNode (u16): the receiver's node id.
	HdrDstNode = 0x06
	// HdrSrcEp (u8): the sending endpoint.
	HdrSrcEp = 0x08
	// HdrDstEp (u8): the destination endpoint.
	HdrDstEp = 0x09
	// HdrLen (u16): payload bytes (0..MTU).
	HdrLen = 0x0A
	// HdrKey (u32): the destination region's export key.
	HdrKey = 0x0C
	// HdrOffset (u32): the payload's offset in the region.
	HdrOffset = 0x10
	// HdrSeq (u16): DATA: the packet's sequence number; ACK/NACK: the
	// receiver's window base (all earlier sequence numbers received).
	HdrSeq = 0x14
	// HdrCredit (u16): ACK/NACK, and DATA with FlagAck: the credit limit
	// (the sender may send sequence numbers below it); other DATA: 0.
	HdrCredit = 0x16
	// HdrCtrKey (u32): DATA with FlagNotify: the counter's export key.
	HdrCtrKey = 0x18
	// HdrAux (u32): ACK: received bitmap above the base (bit i = base+1+i);
	// NACK: the Status*; DATA: the sender's ticket (opaque to the
	// receiver, echoed in an error NACK's HdrOffset).
	HdrAux = 0x1C
	// HdrSize is the size of the NetVM header.
	HdrSize = 32
	// TrailerSize is the CRC trailer: CRC-32 (4 bytes) then CRC-8 (1 byte).
	TrailerSize = 5
	// KindData is a DATA packet.
	KindData = 1
	// KindAck is an ACK packet.
	KindAck = 2
	// KindNack is a NACK packet.
	KindNack = 3
	// FlagLast marks the last packet of a WRITE.
	FlagLast = 0x01
	// FlagNotify marks a last packet that increments HdrCtrKey's counter.
	FlagNotify = 0x02
	// FlagProbe on an ACK or NACK asks the peer for an ACK: a sender out of
	// credit with nothing outstanding sends it on every timer tick, so that
	// a lost ACK that carried credits cannot stall it for good.
	FlagProbe = 0x04
	// FlagAck on a DATA packet makes it an ACK too (a piggyback): its
	// sender's window towards the receiver had no gap, no NACK was owed
	// and no system-buffer slot was held when it was built, so HdrCredit's
	// credit limit minus the credit allotment C is the window base, and the
	// bitmap is empty.
	FlagAck = 0x08
	// MyrinetCRC is the MYRINET register value NetVM uses: CRC-32, TX and
	// RX CRC-8 (bits 1, 2, 3).
	MyrinetCRC = 0x0E
)

// ---- Host memory written by the NIC ----------------------------------------

const (
	// CompSize is the size of one completion record.
	CompSize = 8
	// CompStatus (u32): the Status* of the command.
	CompStatus = 0x00
	// CompTicket (u32): the command's ticket, written last.
	CompTicket = 0x04
	// PageComp is the offset of the completion records (RingSlots x
	// CompSize) in an endpoint status page.
	PageComp = 0x000
	// PageCtr is the offset of the counters (MaxCounters x u64) in an
	// endpoint status page.
	PageCtr = 0x800
	// PageErr is the offset of the remote-error record in a status page.
	PageErr = 0xC00
	// ErrCount (u32): remote errors seen, at PageErr.
	ErrCount = 0x00
	// ErrStatus (u32): the last remote error's status.
	ErrStatus = 0x04
	// ErrTicket (u32): the ticket of the WRITE that caused it.
	ErrTicket = 0x08
	// EvType (u8): the event type (Ev*).
	EvType = 0x00
	// EvFlags (u8): EvFlagIRQ.
	EvFlags = 0x01
	// EvEp (u16): the endpoint concerned.
	EvEp = 0x02
	// EvA0 (u32): first argument.
	EvA0 = 0x04
	// EvA1 (u32): second argument.
	EvA1 = 0x08
	// EvA2 (u32): third argument.
	EvA2 = 0x0C
	// EvA3 (u32): fourth argument.
	EvA3 = 0x10
	// EvA4 (u32): fifth argument.
	EvA4 = 0x14
	// EvA5 (u32): sixth argument.
	EvA5 = 0x18
	// EvSeq (u32): the event's number + 1 (never 0), written last.
	EvSeq = 0x1C
	// EvFlagIRQ: the NIC raised HOST_SIG for this event.
	EvFlagIRQ = 0x01
	// EvRedirect: a packet was placed in a system-buffer slot.
	EvRedirect = 1
	// EvSrcFault: a WRITE's source page is not resident; endpoint parked.
	EvSrcFault = 2
	// EvCtrWake: an armed counter reached its condition.
	EvCtrWake = 3
	// EvCmdDone: a command with CmdFlagIRQ completed.
	EvCmdDone = 4
	// EvEpError: a remote error was recorded in an endpoint status page.
	EvEpError = 5
	// EvRecvFault (ModeNPF): a packet for (asid A1, address A2) was
	// dropped because the page is not translatable; fault it in.
	EvRecvFault = 6
)

// ---- Interrupts --------------------------------------------------------------

const (
	// ISRHostSig is the ISR bit the NIC sets to interrupt the host.
	ISRHostSig = 0x40000000
	// IRQMask is the EIMR value the driver sets: HOST_SIG only.
	IRQMask = 0x40000000
)

// ---- Status codes ------------------------------------------------------------

const (
	// StatusOK: success.
	StatusOK = 0
	// StatusBadCmd: unknown opcode or malformed arguments.
	StatusBadCmd = 1
	// StatusImport: the import index is free or belongs to another endpoint.
	StatusImport = 2
	// StatusBounds: offset+length outside the region.
	StatusBounds = 3
	// StatusKey: unknown or stale key at the receiver.
	StatusKey = 4
	// StatusPerm: the region is not writable.
	StatusPerm = 5
	// StatusEpClosed: the endpoint is closed or closing.
	StatusEpClosed = 6
	// StatusSrcFault: the source address is invalid (SRC_FAULT_DONE said so).
	StatusSrcFault = 7
	// StatusCounter: bad counter import or counter key.
	StatusCounter = 8
	// StatusLen: length over MaxWrite.
	StatusLen = 9
	// StatusTimeout: the peer did not acknowledge after RetxMax tries.
	StatusTimeout = 10
	// StatusSPT: bad SPT index or entry state for an SPT command.
	StatusSPT = 11
	// StatusBusy: a table entry or slot is in use.
	StatusBusy = 12
	// StatusRNR: NACK only (ModeNPF, an atomic's page, a full deferral
	// queue): the receiver is not ready; retry after the RNR delay.
	StatusRNR = 13
	// StatusResend: NACK only: dropped (beyond the window, an atomic not served now, ModeBackup's full ring); resend.
	StatusResend = 0x80
)

// SPTHash is the home index of (asid, vpn) in the SPT (§4.2): the VPN's
// bits above SPTHashBits and the ASID are spread over the table (shifted
// by 7 and folded back), so that sequential pages of different regions or
// processes land in different runs of entries and linear probing does not
// cluster them.
func SPTHash(asid, vpn uint32) uint32 {
	hi := vpn>>SPTHashBits ^ asid<<3
	return (vpn ^ hi<<7 ^ hi>>7) & (SPTEntries - 1)
}
