package board

import (
	"encoding/binary"
	"hash/crc32"
	"slices"

	"lanaiemu/fabric"
	"lanaiemu/sim"
)

// Link-port special registers (lanai9-hw.md section 3.1, section 4).
const (
	RegRMP  = 0x0E0 // receive pointer: where the next received byte goes
	RegRML  = 0x0E8 // receive limit
	RegSMP  = 0x0F0 // send pointer (8-byte aligned start)
	RegSMH  = 0x0F8 // send routing-header end (stored; see docs/links.md)
	RegSML  = 0x100 // send limit: send up to here, the packet continues
	RegSMLT = 0x108 // send limit with tail: send up to here and end the packet
	RegSA   = 0x118 // send align: offset (0..7) of the first byte in the word at SMP
)

// MYRINET register bits the link engines use (lanai9-hw.md section 3.4).
const (
	MyrinetCRC32Enable   uint32 = 1 << 1 // append CRC-32 on send, check on receive
	MyrinetTxCRC8Enable  uint32 = 1 << 2 // append CRC-8 on send
	MyrinetRxCRC8Enable  uint32 = 1 << 3 // check CRC-8 on receive
	MyrinetIllegalEnable uint32 = 1 << 4 // report illegal symbols: ILLEGAL_RECEIVED_INT (docs/hardware.md)
	MyrinetTimeoutMask   uint32 = 3 << 6 // network timeout select (fabric.MyrinetTimeout)
	linkTimeoutUnset     uint32 = ^uint32(0)
	DefaultLinkRate             = fabric.RateMyrinetLAN // 160 MB/s, lanai9-hw.md section 7.4
	CRC8Poly             byte   = 0x07                  // x^8+x^2+x+1, lanai9-hw.md section 4.3
	linkMaxPacket               = 1 << 24               // a send segment larger is cut (TX_TOO_LONG); a packet with more before its trailer is reported (RX_TOO_LONG)
	linkRecvWordBytes           = 8                     // RMP advances in 8-byte words (section 4.2)
)

// LinkStats are a board's link-engine counters.
type LinkStats struct {
	PacketsSent    uint64   // packets closed by SMLT and put on the wire
	SegmentsSent   uint64   // SML/SMLT writes that sent bytes
	BytesSent      uint64   // wire bytes sent: route, data and trailer
	SendBusy       sim.Time // time the send engine was busy (SEND_INT clear)
	EmptySends     uint64   // SMLT with nothing to send (SEND_INT stays set)
	BadSends       uint64   // SML/SMLT over memory the engine cannot read (MEM_INT)
	SendRejected   uint64   // packets the fabric refused (not connected...)
	SendTimeouts   uint64   // packets reset by the network timeout while sending (TX_BLOCKED_INT)
	BlockedSends   uint64   // packets whose SEND_INT waited for the fabric (back-pressure)
	PacketsRecv    uint64   // packets delivered to the receive engine
	BytesRecv      uint64   // bytes delivered (data and trailer)
	BytesStored    uint64   // bytes written to SRAM
	Overflows      uint64   // packets longer than RML-RMP (BUFF_INT)
	CRC8Errors     uint64   // received packets whose CRC-8 did not match
	CRC32Errors    uint64   // received packets whose CRC-32 did not match
	RecvFaults     uint64   // receive buffers outside SRAM (MEM_INT)
	SendInts       uint64   // times SEND_INT rose
	RecvInts       uint64   // times RECV_INT rose
	BuffInts       uint64   // times BUFF_INT rose
	Interactions   uint64   // calls into the fabric (Send, Ready): for the runner
	LastRecvCycle  uint64   // core cycle of the last RECV_INT or BUFF_INT
	LastSendCycle  uint64   // core cycle of the last SEND_INT rise
	LastCloseCycle uint64   // core cycle of the last SMLT write that sent a packet
	FirstSendStart sim.Time // wire start of the first packet (for bandwidth figures)
}

// sendRec is a packet handed to the fabric whose SEND_INT is pending.
// Spent records (completed, and the fabric's done called or not owed) wait
// on the link's free list for reuse, so a packet's send allocates no
// record and no callback.
type sendRec struct {
	te        sim.Time // local (unblocked) end of transmission
	fired     bool     // the local event at te has run
	doneSeen  bool     // the fabric's done callback has run
	doneAt    sim.Time
	doneErr   error
	completed bool
	doneOwed  bool // the fabric has the packet and will call done
	dropped   bool // the board was reset while it was pending: the fabric's done is ignored

	l    *Link
	done func(sim.Time, error) // the record's fabricDone, made once
	next *sendRec              // free list
}

func (r *sendRec) fabricDone(t sim.Time, err error) { r.l.fabricDone(r, t, err) }

// newSendRec is a fresh record for a packet whose local end is te.
func (l *Link) newSendRec(te sim.Time) *sendRec {
	r := l.freeRecs
	if r == nil {
		r = &sendRec{}
		r.done = r.fabricDone
	} else {
		l.freeRecs = r.next
	}
	*r = sendRec{te: te, l: l, done: r.done}
	return r
}

// release returns r to the free list once nothing refers to it any more:
// it completed (so its local end fired and no completion is scheduled)
// and the fabric owes it no done call.
func (l *Link) release(r *sendRec) {
	if r.completed && r.fired && !r.doneOwed {
		r.next, l.freeRecs = l.freeRecs, r
	}
}

// Link is the board's pair of link engines (send and receive DMA), the
// board's port on the fabric. It implements fabric.Endpoint.
type Link struct {
	b    *Board
	rate uint64

	fab  *fabric.Fabric
	q    *sim.Queue
	node int
	tmo  uint32 // MYRINET timeout bits last given to the fabric

	// send engine
	smp, smh, sa, sml, smlt uint32
	open                    bool     // a packet is open (SML segments sent)
	cur                     []byte   // the open packet's bytes (route included)
	virt                    sim.Time // the open packet's start as if its bytes left back to back
	segEnd                  sim.Time // when the last segment's bytes have left
	segKey                  sim.Time // the segEnd whose first cycle at or after it is segCycle (NextEvent's;
	segCycle                uint64   // a clock conversion per segment, not per call)
	segGen                  uint64
	pending                 []*sendRec
	pendKnown               bool     // pendSync and pendEvent hold for pending (pendingTimes)
	pendSync, pendEvent     sim.Time // NextSync's and NextEvent's part from pending
	spares                  [][]byte // send buffers back from deferred Sends (spareBuf)
	freeRecs                *sendRec // spent records (newSendRec)
	busySince               sim.Time
	sendIdle                bool

	// receive engine
	rmp, rml uint32
	rxBusy   bool // a packet is arriving (between Deliver and its last byte)
	rxLast   sim.Time
	rxWords  []byte // the words store writes (reused)

	// notes is where the link notes its fabric interactions and that its
	// send records changed (SetNotes; own by default).
	notes    *LinkNotes
	ownNotes LinkNotes
	rxDone   bool // RECV_INT or BUFF_INT is up: not armed until RMP/RML are written
	down     bool // attached to a fabric port without a cable: LINK_DOWN (PortCabled)

	w     watch
	stats LinkStats
	// crc8Carried and crc32Carried count received packets whose CRC-8
	// and CRC-32 checks the sender's note settled (for tests).
	crc8Carried, crc32Carried uint64
	hook                      func() // SetFabricHook
}

func newLink(b *Board) *Link {
	l := &Link{b: b, rate: DefaultLinkRate, node: -1, tmo: linkTimeoutUnset}
	l.notes = &l.ownNotes
	st := func() uint64 { return stableUnless(l.w.stale(), ^uint64(0)) }
	reg := func(off uint32, p *uint32, write func(uint32)) {
		b.HookSpecial(off, func() uint32 { b.saw(&l.w); return *p }, write, st)
	}
	reg(RegRMP, &l.rmp, func(v uint32) { l.rmp = v; l.rearm() })
	reg(RegRML, &l.rml, func(v uint32) { l.rml = v; l.rearm() })
	reg(RegSMP, &l.smp, func(v uint32) { l.smp = v })
	reg(RegSMH, &l.smh, func(v uint32) { l.smh = v })
	reg(RegSA, &l.sa, func(v uint32) { l.sa = v & 7 })
	reg(RegSML, &l.sml, func(v uint32) { l.sml = v; l.segment(v, false) })
	reg(RegSMLT, &l.smlt, func(v uint32) { l.smlt = v; l.segment(v, true) })
	return l
}

// reset returns the engines to idle (SEND_INT set, receive disarmed) with
// zero registers and counters; the fabric attachment stays.
func (l *Link) reset() {
	for _, r := range l.pending {
		r.dropped = true // its done, if the fabric owes one, must not reach the fresh engines
	}
	fab, q, node, rate, hook, notes, down := l.fab, l.q, l.node, l.rate, l.hook, l.notes, l.down
	*l = Link{b: l.b, fab: fab, q: q, node: node, rate: rate, hook: hook, notes: notes, tmo: linkTimeoutUnset, sendIdle: true, down: down}
	*notes = LinkNotes{SyncStale: true} // no interactions; the send records are gone
	l.b.touch(&l.w)
	l.b.isr |= SendIntBit
	if down {
		l.b.isr |= LinkDownBit // the cable is still missing
	}
	l.b.updateIRQ(l.b.cpu.Cycles)
}

// Link is the board's link port.
func (b *Board) Link() *Link { return b.link }

// SetRate sets the link rate in bytes per second (0: DefaultLinkRate). It
// must match the fabric's rate of the board's cable for exact timing.
func (l *Link) SetRate(rate uint64) {
	if rate == 0 {
		rate = DefaultLinkRate
	}
	l.rate = rate
}

// Rate is the link rate in bytes per second.
func (l *Link) Rate() uint64 { return l.rate }

// Connect attaches the port to fabric f as node, driven by q (the queue f
// was made with).
func (l *Link) Connect(f *fabric.Fabric, q *sim.Queue, node int) error {
	if err := f.Attach(node, l); err != nil {
		return err
	}
	l.fab, l.q, l.node = f, q, node
	return nil
}

// PortCabled implements fabric.PortWatcher: LINK_DOWN is up while the
// port the board is attached to has no cable (docs/hardware.md). A board
// attached to no fabric has no link model at all and keeps it clear.
func (l *Link) PortCabled(cabled bool) {
	l.down = !cabled
	l.b.SetISRLevel(LinkDownBit, l.down)
}

// Stats returns the link counters.
func (l *Link) Stats() LinkStats {
	s := l.stats
	if !l.sendIdle {
		s.SendBusy += l.now() - l.busySince
	}
	return s
}

// NextSync is the earliest time at which the send engine needs to know
// whether the fabric blocked one of its packets (the local end of a packet
// whose fabric completion has not been seen), or sim.Never. A runner ends
// its step there (docs/links.md).
func (l *Link) NextSync() sim.Time {
	l.pendingTimes()
	return l.pendSync
}

// pendingTimes works out pendSync and pendEvent again if a send record
// changed since they were (pendChanged): a runner asks for them every
// step, the records change a few times a packet.
func (l *Link) pendingTimes() {
	if l.pendKnown {
		return
	}
	l.pendSync, l.pendEvent = sim.Never, sim.Never
	for _, r := range l.pending {
		if !r.fired && !r.doneSeen {
			l.pendSync = min(l.pendSync, r.te)
		}
		e := r.te
		if r.fired && r.doneSeen {
			e = r.doneAt
		}
		if !r.fired || r.doneSeen {
			l.pendEvent = min(l.pendEvent, e)
		}
	}
	l.pendKnown = true
}

// pendChanged notes a change of the send records (pending, or a pending
// record's fired, doneSeen or doneAt).
func (l *Link) pendChanged() {
	l.pendKnown = false
	l.notes.SyncStale = true
}

// LinkNotes are what a runner asks of a link after every run of its board
// and in every step, written by the link where the runner keeps them
// (SetNotes): in memory it reads anyway, not in the link's.
type LinkNotes struct {
	// Inter is the fabric interactions (sends, re-arms) since the runner
	// took them last (TakeInteractions); First the time of the first.
	Inter uint64
	First sim.Time
	// SyncStale is set when the send records change, NextSync's answer
	// with them; the runner clears it when it asks NextSync again.
	SyncStale bool
}

// SetNotes makes the link write its notes to n (nil: its own), which it
// marks stale; TakeInteractions reads them there.
func (l *Link) SetNotes(n *LinkNotes) {
	if n == nil {
		n = &l.ownNotes
	}
	*n = *l.notes
	n.SyncStale = true
	l.notes = n
}

// NextEvent is the earliest pending link-engine event (a segment end, a
// packet end, a received packet's last byte), or sim.Never: a node idle
// in a polling loop may wake there.
func (l *Link) NextEvent() sim.Time {
	t := sim.Never
	if l.rxBusy {
		t = l.rxLast
	}
	if l.segEnd != l.segKey {
		l.segKey, l.segCycle = l.segEnd, l.at(l.segEnd)
	}
	if l.b.cpu.Cycles < l.segCycle { // segEnd > now: Clock.Time(n) >= t exactly when n >= Clock.Cycles(t)
		t = min(t, l.segEnd)
	}
	l.pendingTimes()
	return min(t, l.pendEvent)
}

// TakeInteractions returns the number of fabric interactions (sends,
// re-arms) since the last call and the time of the first, and resets them.
func (l *Link) TakeInteractions() (uint64, sim.Time) { return l.notes.Take() }

// Take returns the interactions noted since the last Take and the time of
// the first, and resets them (Link.TakeInteractions).
func (n *LinkNotes) Take() (uint64, sim.Time) {
	k, t := n.Inter, n.First
	n.Inter = 0
	return k, t
}

func (l *Link) interact() {
	n := l.notes
	if n.Inter == 0 {
		n.First = l.now()
	}
	n.Inter++
	l.stats.Interactions++
}

func (l *Link) now() sim.Time { return l.b.clock.Time(l.b.cpu.Cycles) }

func (l *Link) at(t sim.Time) uint64 { return l.b.clock.Cycles(t) }

func (l *Link) myrinet() uint32 {
	v, _ := l.b.mem.Specials.Read32(RegMYRINET)
	return v
}

// ---- send engine ----

func (l *Link) setSendIdle(idle bool) {
	if idle == l.sendIdle {
		return
	}
	l.sendIdle = idle
	now := l.now()
	if idle {
		l.stats.SendBusy += now - l.busySince
		l.stats.SendInts++
		l.stats.LastSendCycle = l.b.cpu.Cycles
	} else {
		l.busySince = now
	}
	l.b.SetISRLevel(SendIntBit, idle)
	l.b.touch(&l.w)
}

func (l *Link) updateSendInt() {
	l.setSendIdle(len(l.pending) == 0 && l.now() >= l.segEnd)
}

// segment handles a write of SML (tail false) or SMLT (tail true). The
// segment that opens a packet starts SA bytes into the 8-byte word at SMP;
// a later segment of the same packet starts at that word (SA is the
// packet's alignment, not the segment's: Cplant's payload segment after
// its route segment writes only SMP and SMLT). SMLT = end sends up to end
// (exclusive); SML = end sends through the 8-byte word at end, inclusive
// (Cplant's header segment SML = the header word's address sends that
// word). docs/hardware.md, "The link engines as the firmware uses them".
func (l *Link) segment(end uint32, tail bool) {
	start := l.smp &^ 7
	if !l.open {
		start += l.sa
	}
	if !tail {
		end = end&^7 + 8
	}
	var data []byte // read from SRAM now (the packet's bytes are taken as the segment is written)
	if end > start {
		n := end - start
		if n > linkMaxPacket {
			n = linkMaxPacket
			l.b.RaiseISR(TxTooLongIntBit)
		}
		if !l.b.mem.InSRAM(start, n) {
			l.stats.BadSends++
			l.b.RaiseISR(MemIntBit)
		} else {
			data = l.b.mem.SRAM[start : start+n]
		}
	}
	now := l.now()
	begin := max(now, l.segEnd)
	if !l.open {
		l.open, l.virt, l.cur = true, begin, l.cur[:0]
	} else if begin > l.segEnd {
		l.virt += begin - l.segEnd // the link idled between segments
	}
	l.cur = append(l.cur, data...)
	if len(data) > 0 {
		l.stats.SegmentsSent++
	}
	if !tail {
		l.segEnd = l.virt + fabric.WireTime(len(l.cur), l.rate)
		if l.segEnd > now {
			l.setSendIdle(false)
			l.segGen++
			l.b.later(l.at(l.segEnd), stepSegmentEnd, devArgs{l: l, gen: l.segGen})
		}
		return
	}
	l.close()
}

// close ends the open packet: split off the route, append the trailer,
// hand it to the fabric and schedule SEND_INT.
func (l *Link) close() {
	l.open = false
	pkt := l.cur
	l.cur = nil
	nr := 0
	for nr < len(pkt) && pkt[nr]&fabric.RouteBit != 0 {
		nr++
	}
	route, body := pkt[:nr], pkt[nr:]
	my := l.myrinet()
	var note uint32 // what the receiver may take for granted (fabric.SendNoted)
	if len(body) > 0 && my&(MyrinetCRC32Enable|MyrinetTxCRC8Enable) != 0 {
		// The link CRC-8 covers what reaches the receiver: each switch
		// regenerates it over the bytes it forwards, so it includes route
		// bytes the switches leave (back to back, all of them).
		left := l.unstripped(route)
		// Only the fabric or the receiver may need the trailer of a
		// packet that reaches the receiver without route bytes: it is
		// computed there, if at all (noteCRC32, noteCRC8).
		lazy := left == 0 && l.fab != nil && carryTrailer
		if my&MyrinetCRC32Enable != 0 {
			if lazy {
				note |= noteCRC32
				body = append(body, 0, 0, 0, 0)
			} else {
				body = binary.BigEndian.AppendUint32(body, crc32.ChecksumIEEE(body))
			}
		}
		if my&MyrinetTxCRC8Enable != 0 {
			switch {
			case left > 0:
				body = append(body, crc8Update(CRC8(route[nr-left:]), body))
			case lazy:
				note |= noteCRC8
				body = append(body, 0)
			default:
				body = append(body, CRC8(body))
			}
		}
	}
	fill := trailerFills[note]
	if len(body) == 0 {
		// Nothing but route bytes (or nothing): no packet leaves.
		l.stats.EmptySends++
		l.cur = pkt[:0]
		l.segEnd = max(l.segEnd, l.now())
		l.updateSendInt()
		return
	}
	at := l.virt
	if l.q != nil && at < l.q.Now() {
		at = l.q.Now() // the fabric cannot start a packet in its past (docs/links.md)
	}
	wire := len(route) + len(body)
	r := l.newSendRec(at + fabric.WireTime(wire, l.rate))
	l.segEnd = r.te
	l.stats.PacketsSent++
	l.stats.LastCloseCycle = l.b.cpu.Cycles
	l.stats.BytesSent += uint64(wire)
	if l.stats.PacketsSent == 1 {
		l.stats.FirstSendStart = at
	}
	queued := false
	if l.fab != nil {
		fab, node := l.fab, l.node
		if t := my & MyrinetTimeoutMask; t != l.tmo {
			l.tmo = t
			if l.b.deferring {
				l.b.deferred = append(l.b.deferred, call{kind: callTimeout, at: fabric.MyrinetTimeout(my)})
			} else {
				fab.SetTimeout(node, fabric.MyrinetTimeout(my))
			}
		}
		l.interact()
		if err := fab.CheckSend(node, route, body); err != nil {
			l.stats.SendRejected++
			r.doneSeen, r.doneAt = true, r.te // into the void, locally timed
		} else {
			r.doneOwed = true
			if l.b.deferring {
				l.b.deferred = append(l.b.deferred, call{kind: callSend, route: route, body: body, note: note, fill: fill, at: at, done: r.done})
				queued = true
			} else {
				fab.SendNoted(node, route, body, note, fill, at, r.done)
			}
		}
	} else {
		r.doneSeen, r.doneAt = true, r.te
	}
	if queued {
		l.cur = l.spareBuf() // pkt waits in the deferred Send: RunDeferred gives it back
	} else {
		l.cur = pkt[:0] // the fabric copied what it keeps: the buffer serves the next packet
	}
	l.pending = append(l.pending, r)
	l.pendChanged()
	l.b.trace(Event{Cycle: l.at(at), Kind: EvSend, Channel: -1, Bytes: uint32(wire)})
	l.setSendIdle(false)
	l.b.later(l.at(r.te), stepLocalEnd, devArgs{l: l, r: r})
}

// unstripped is the number of route bytes the receiver gets in front of
// a packet sent with route (fabric.Fabric.Unstripped; 0 unattached).
func (l *Link) unstripped(route []byte) int {
	if l.fab == nil {
		return 0
	}
	return l.fab.Unstripped(l.node, route)
}

// spareBuf is a send buffer the fabric has copied (giveBack), or nil.
func (l *Link) spareBuf() []byte {
	n := len(l.spares)
	if n == 0 {
		return nil
	}
	p := l.spares[n-1]
	l.spares[n-1] = nil
	l.spares = l.spares[:n-1]
	return p
}

// giveBack takes back the buffer of a packet whose deferred Send has run
// (the fabric copied it): the next packet built in a parallel step reuses
// it instead of growing a new one.
func (l *Link) giveBack(pkt []byte) { l.spares = append(l.spares, pkt[:0]) }

// stepSegmentEnd updates SEND_INT when a segment's bytes have left,
// unless another segment was sent since.
func stepSegmentEnd(b *Board, a *devArgs) {
	if a.gen == a.l.segGen {
		a.l.updateSendInt()
	}
}

func stepLocalEnd(b *Board, a *devArgs) { a.l.localEnd(a.r) }

// localEnd runs at the cycle the packet's last byte leaves an unblocked
// link.
func (l *Link) localEnd(r *sendRec) {
	r.fired = true
	l.pendChanged()
	switch {
	case r.doneSeen:
		l.finishAt(r, max(r.te, r.doneAt))
	case l.q == nil || l.q.Now() < r.te && l.pending[0] == r:
		// The fabric has not reached te: the packet was granted in this
		// step, so no stall can have begun yet (docs/links.md).
		l.complete(r, nil)
	default:
		l.stats.BlockedSends++ // the fabric holds it: wait for done
	}
}

// fabricDone is the fabric's end of transmission.
func (l *Link) fabricDone(r *sendRec, t sim.Time, err error) {
	l.fabricHook()
	r.doneOwed = false
	if r.dropped {
		return // sent before a reset: the engines have forgotten it
	}
	if r.doneSeen || r.completed {
		l.release(r)
		return
	}
	r.doneSeen, r.doneAt, r.doneErr = true, t, err
	l.pendChanged()
	if r.fired {
		l.finishAt(r, t)
	}
}

func (l *Link) finishAt(r *sendRec, t sim.Time) {
	c := l.at(t)
	if c <= l.b.cpu.Cycles {
		l.complete(r, r.doneErr)
		return
	}
	l.b.later(c, stepComplete, devArgs{l: l, r: r})
}

// stepComplete completes a send with the fabric's verdict as it stands
// when the step runs.
func stepComplete(b *Board, a *devArgs) { a.l.complete(a.r, a.r.doneErr) }

func (l *Link) complete(r *sendRec, err error) {
	if r.completed {
		return
	}
	r.completed = true
	for i, p := range l.pending {
		if p == r {
			l.pending = append(l.pending[:i], l.pending[i+1:]...)
			l.pendChanged()
			break
		}
	}
	if err != nil {
		l.stats.SendTimeouts++
		l.b.RaiseISR(TxBlockedIntBit)
	}
	if l.segEnd < l.now() || len(l.pending) == 0 {
		l.segEnd = min(l.segEnd, l.now())
	}
	l.updateSendInt()
	l.release(r)
}

// ---- receive engine ----

// armed: a buffer is set (RMP < RML), no packet is arriving and the last
// one's RECV_INT/BUFF_INT has been acknowledged by writing RMP or RML.
func (l *Link) armed() bool { return l.rmp < l.rml && !l.rxBusy && !l.rxDone }

// Ready implements fabric.Endpoint.
func (l *Link) Ready() bool {
	l.fabricHook()
	return l.armed()
}

// SetFabricHook installs f, called whenever the fabric acts on the port
// (Ready, Deliver, the end of a send): a runner that lets the board fall
// behind brings it up to date there.
func (l *Link) SetFabricHook(f func()) { l.hook = f }

func (l *Link) fabricHook() {
	if l.hook != nil {
		l.hook()
	}
}

// rearm follows a write of RMP or RML: the receive status bits drop and,
// if the buffer is armed, the fabric is told.
func (l *Link) rearm() {
	if l.rxDone {
		l.rxDone = false
		l.b.SetISRLevel(RecvIntBit|BuffIntBit|Orun1IntBit|Orun2IntBit|Orun4IntBit, false)
	}
	if l.armed() && l.fab != nil {
		l.interact()
		if l.b.deferring {
			l.b.deferred = append(l.b.deferred, call{kind: callReady, at: l.now()})
		} else {
			l.fab.Ready(l.node, l.now())
		}
	}
}

// Deliver implements fabric.Endpoint: the packet's bytes are stored when
// its last byte has arrived.
func (l *Link) Deliver(pkt []byte, first, last sim.Time) { l.DeliverNoted(pkt, first, last, 0) }

// DeliverNoted implements fabric.NotedEndpoint: Deliver with the sender's
// note, given when the packet arrived exactly as sent (noteCRC8,
// noteCRC32), or fabric.NoteCorrupted when a corruption fault changed it
// (ILLEGAL_RECEIVED_INT, recvErrors).
func (l *Link) DeliverNoted(pkt []byte, first, last sim.Time, note uint32) {
	l.fabricHook()
	l.rxBusy, l.rxLast = true, last
	l.stats.PacketsRecv++
	l.stats.BytesRecv += uint64(len(pkt))
	l.b.later(l.at(last), stepStore, devArgs{l: l, pkt: pkt, note: note})
}

// The note (fabric.SendNoted) of a packet that reaches the receiver
// without route bytes says which check values its trailer holds: a CRC-32
// word (noteCRC32) over the bytes before it, then a CRC-8 byte (noteCRC8)
// over all the bytes before it. The sender leaves them to compute
// (fillTrailer) by the fabric, when it flips a bit or delivers the packet
// otherwise than as sent, or by the receiver. Delivered with the note,
// the packet is the one sent, so a receiver that checks the same trailer
// reads 0 from both checks without either CRC being run over the packet
// at all; one that checks another trailer (and so takes check bytes for
// data or checks them at other offsets) computes them first.
const (
	noteCRC8  uint32 = 1
	noteCRC32 uint32 = 2
)

// fillTrailer writes the check values note says pkt's trailer holds.
func fillTrailer(pkt []byte, note uint32) {
	n := len(pkt)
	if note&noteCRC8 != 0 {
		n--
	}
	if note&noteCRC32 != 0 {
		binary.BigEndian.PutUint32(pkt[n-4:], crc32.ChecksumIEEE(pkt[:n-4]))
	}
	if note&noteCRC8 != 0 {
		pkt[n] = CRC8(pkt[:n])
	}
}

// trailerFills are fillTrailer as SendNoted's fill, per note.
var trailerFills = [4]func([]byte){
	nil,
	func(p []byte) { fillTrailer(p, noteCRC8) },
	func(p []byte) { fillTrailer(p, noteCRC32) },
	func(p []byte) { fillTrailer(p, noteCRC32|noteCRC8) },
}

// carryTrailer turns the notes on; tests turn it off to compare with every
// CRC computed where it is made.
var carryTrailer = true

func stepStore(b *Board, a *devArgs) { a.l.store(a.pkt, a.note) }

// store writes a received packet at RMP and raises RECV_INT, or BUFF_INT
// when it did not fit. The engine writes whole 8-byte words: the body,
// then (RX_CRC8_ENABLE) the CRC-8 check byte, zeros, and (CRC32_ENABLE)
// the CRC-32 check word in the last four bytes of the final word, where
// Cplant's LANai 9 code reads it (RMP-4 after the tail). A check reads
// received XOR computed: 0 when good. ORUN4/2/1 give the wire bytes
// missing from the last word, (-received) mod 8. docs/hardware.md.
func (l *Link) store(pkt []byte, note uint32) {
	l.rxBusy = false
	my := l.myrinet()
	corrupt := note&fabric.NoteCorrupted != 0
	note &^= fabric.NoteCorrupted
	if note != 0 && ((note&noteCRC8 != 0) != (my&MyrinetRxCRC8Enable != 0) ||
		(note&noteCRC32 != 0) != (my&MyrinetCRC32Enable != 0)) {
		fillTrailer(pkt, note) // another trailer: stored or checked as data, as sent
		note = 0
	}
	n := len(pkt)
	body, tail := n, 0
	var c8 byte
	var c32 uint32
	if my&MyrinetRxCRC8Enable != 0 {
		tail++
		if body >= 1 {
			body--
			if note&noteCRC8 == 0 {
				c8 = pkt[body] ^ CRC8(pkt[:body])
			} else {
				l.crc8Carried++ // pkt[body] is CRC8(pkt[:body]) as sent: c8 = 0
			}
		} else {
			c8 = 0xFF // no CRC-8 byte at all
		}
		if c8 != 0 {
			l.stats.CRC8Errors++
		}
	}
	if my&MyrinetCRC32Enable != 0 {
		tail += 4
		if body >= 4 {
			body -= 4
			if note&noteCRC32 == 0 {
				c32 = binary.BigEndian.Uint32(pkt[body:]) ^ crc32.ChecksumIEEE(pkt[:body])
			} else {
				l.crc32Carried++ // the sender's CRC-32 of pkt[:body], as sent: c32 = 0
			}
		} else {
			c32 = ^uint32(0)
		}
		if c32 != 0 {
			l.stats.CRC32Errors++
		}
	}
	words := (body + tail + linkRecvWordBytes - 1) &^ (linkRecvWordBytes - 1)
	w := slices.Grow(l.rxWords[:0], words)[:words]
	copy(w, pkt[:body])
	clear(w[body:])
	if my&MyrinetRxCRC8Enable != 0 {
		w[body] = c8
	}
	if my&MyrinetCRC32Enable != 0 {
		binary.BigEndian.PutUint32(w[words-4:], c32)
	}
	l.rxWords = w
	room := uint32(0)
	if l.rml > l.rmp {
		room = l.rml - l.rmp
	}
	fits := uint32(words) <= room
	if !fits {
		w = w[:room]
	}
	if err := l.b.mem.Write(l.rmp, w); err != nil {
		l.stats.RecvFaults++
		l.b.RaiseISR(MemIntBit)
	} else {
		l.stats.BytesStored += uint64(len(w))
	}
	l.rxDone = true
	l.stats.LastRecvCycle = l.b.cpu.Cycles
	l.b.trace(Event{Cycle: l.b.cpu.Cycles, Kind: EvRecv, Channel: -1, Bytes: uint32(n)})
	if corrupt || body > linkMaxPacket {
		l.recvErrors(corrupt, my, body)
	}
	if fits {
		over := uint32(-n) & (linkRecvWordBytes - 1)
		l.rmp += uint32(words)
		l.stats.RecvInts++
		l.b.SetISRLevel(RecvIntBit|over<<8, true)
	} else {
		l.rmp = l.rml
		l.stats.Overflows++
		l.stats.BuffInts++
		l.b.SetISRLevel(BuffIntBit, true)
	}
	l.b.touch(&l.w)
	l.recycle(pkt)
}

// recvErrors raises the receive engine's error bits for a packet of n
// bytes before the CRC trailer the receiver checks, which a corruption
// fault changed if corrupt, with the tail that raises RECV_INT or
// BUFF_INT: ILLEGAL_RECEIVED_INT for the bit error when MYRINET's
// ILLEGAL_ENABLE asks for it, RX_TOO_LONG_INT for a packet over the
// 16 MiB the send engine cuts a segment at, which it counts before its
// trailer too (docs/hardware.md, "The link error bits").
func (l *Link) recvErrors(corrupt bool, my uint32, n int) {
	var bits uint32
	if corrupt && my&MyrinetIllegalEnable != 0 {
		bits |= IllegalReceivedIntBit
	}
	if n > linkMaxPacket {
		bits |= RxTooLongIntBit
	}
	if bits != 0 {
		l.b.RaiseISR(bits)
	}
}

// recycle gives a stored packet's bytes back to the fabric for reuse.
func (l *Link) recycle(pkt []byte) {
	if l.fab == nil {
		return
	}
	if l.b.deferring {
		l.b.deferred = append(l.b.deferred, call{kind: callRecycle, body: pkt})
		return
	}
	l.fab.Recycle(pkt)
}

// CRC8 is the link CRC-8 the engines append and check: polynomial
// x^8+x^2+x+1 (CRC8Poly), initial value 0, no reflection, no final xor.
func CRC8(data []byte) byte { return crc8Update(0, data) }

// crc8Update shifts data through a CRC-8 register holding c: with no final
// xor, CRC8(a||b) = crc8Update(CRC8(a), b), so a CRC over two pieces needs
// no copy of them.
func crc8Update(c byte, data []byte) byte {
	t := &crc8Slices
	for ; len(data) >= 16; data = data[16:] {
		c = t[15][c^data[0]] ^ t[14][data[1]] ^ t[13][data[2]] ^ t[12][data[3]] ^
			t[11][data[4]] ^ t[10][data[5]] ^ t[9][data[6]] ^ t[8][data[7]] ^
			t[7][data[8]] ^ t[6][data[9]] ^ t[5][data[10]] ^ t[4][data[11]] ^
			t[3][data[12]] ^ t[2][data[13]] ^ t[1][data[14]] ^ t[0][data[15]]
	}
	for _, d := range data {
		c = t[0][c^d]
	}
	return c
}

// crc8Slices[0][b] is the CRC-8 register after shifting byte b through it
// (the table form of the bitwise definition, crc8Bitwise); crc8Slices[k][b]
// after shifting b and then k zero bytes. The CRC is linear, so sixteen
// bytes at once are the XOR of their lookups (slicing by 16): a link
// packet's CRC took a tenth of a streaming run byte by byte, and slicing
// by 16 takes a fifth less than by 8 (docs/performance.md, "Device events").
var crc8Slices = func() (t [16][256]byte) {
	for i := range t[0] {
		t[0][i] = crc8Bitwise([]byte{byte(i)})
	}
	for k := 1; k < len(t); k++ {
		for i := range t[k] {
			t[k][i] = t[0][t[k-1][i]]
		}
	}
	return t
}()

// crc8Bitwise is CRC8 bit by bit, as specified; the table is built from it.
func crc8Bitwise(data []byte) byte {
	var c byte
	for _, d := range data {
		c ^= d
		for range 8 {
			if c&0x80 != 0 {
				c = c<<1 ^ CRC8Poly
			} else {
				c <<= 1
			}
		}
	}
	return c
}
