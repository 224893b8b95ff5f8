package harness

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/board"
	"lanaiemu/netvm/abi"
	"lanaiemu/sim"
)

// errRecord reads endpoint e's remote-error record (§6.1): count, status,
// ticket.
func (n *Node) errRecord(e int) (uint32, uint32, uint32) {
	a := StatusPageAddr(e) + abi.PageErr
	return n.HostWord(a + abi.ErrCount), n.HostWord(a + abi.ErrStatus), n.HostWord(a + abi.ErrTicket)
}

// Errors found by the receiver (§5.4 step 2) come back as NACKs: the
// WRITE has completed locally with StatusOK, and the sender's endpoint
// gets an error record and an EvEpError naming ticket, status and node.
// The receiver's memory is untouched and both firmwares go on.
func TestRemoteErrors(t *testing.T) {
	w, src, dst := setup(t)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	copy(n0.HostBytes(src[0], 64), pattern(64, 3))
	// Extra exports on node 1 and imports on node 0 that a correct
	// library would never make: a read-only region; an import of a key
	// that does not exist; an import longer than its export; a counter
	// import of a key never exported.
	const roKey, impRO, impBadKey, impLong, impBadCtr = 7<<8 | 8, 10, 11, 12, 13
	w.MustKernel(n1, abi.KOpExport, Field{abi.KEp, 4, 0}, Field{abi.KExpKey, 4, roKey},
		Field{abi.KExpBase, 4, dstVA}, Field{abi.KExpLen, 4, abi.PageSize}, Field{abi.KExpKind, 4, abi.ExpKindRegion})
	imp := func(idx, key, l, kind uint32) {
		w.MustKernel(n0, abi.KOpImport, Field{abi.KEp, 4, 0}, Field{abi.KImpIndex, 4, idx}, Field{abi.KImpNode, 4, 1},
			Field{abi.KImpEp, 4, 0}, Field{abi.KImpKey, 4, key}, Field{abi.KImpLen, 4, l}, Field{abi.KImpKind, 4, kind})
	}
	imp(impRO, roKey, abi.PageSize, abi.ExpKindRegion)
	imp(impBadKey, 9<<8|5, regionLen, abi.ExpKindRegion) // index 5, wrong generation
	imp(impLong, regionKey, 16*abi.PageSize, abi.ExpKindRegion)
	imp(impBadCtr, 9<<8|60, 0, abi.ExpKindCounter)
	before := append([]byte(nil), n1.HostBytes(dst[0], 2*abi.PageSize)...)
	for i, c := range []struct {
		imp, ctr uint16
		off      uint32
		want     uint32
	}{
		{impBadKey, abi.NoCounter, 0, abi.StatusKey},
		{impRO, abi.NoCounter, 0, abi.StatusPerm},
		{impLong, abi.NoCounter, 4 * abi.PageSize, abi.StatusBounds},
		{impRegion, impBadCtr, 0, abi.StatusCounter},
	} {
		slot, tk := n0.Write(0, srcVA, 64, c.off, c.imp, c.ctr)
		evs := w.RunEvents(n0, sim.Millisecond)
		if st, got := n0.Comp(0, slot); got != tk || st != abi.StatusOK {
			t.Fatalf("case %d: local completion %d/%d, want OK/%d", i, st, got, tk)
		}
		want := Event{Type: abi.EvEpError, Flags: abi.EvFlagIRQ, A: [6]uint32{tk, c.want, 1}, Seq: uint32(i + 1)}
		if d := cmp.Diff([]Event{want}, evs); d != "" {
			t.Fatalf("case %d: events (-want +got):\n%s", i, d)
		}
		if cnt, st, got := n0.errRecord(0); cnt != uint32(i+1) || st != c.want || got != tk {
			t.Fatalf("case %d: error record %d/%d/%d", i, cnt, st, got)
		}
	}
	if !bytes.Equal(n1.HostBytes(dst[0], 2*abi.PageSize), before) {
		t.Fatal("a refused packet changed the receiver's memory")
	}
	if n1.Stat(abi.StatNack) != 4 || n0.Stat(abi.StatRemoteErr) != 4 || n1.Counter(0, ctrID) != 0 {
		t.Fatalf("NACKs %d, remote errors %d, counter %d", n1.Stat(abi.StatNack), n0.Stat(abi.StatRemoteErr), n1.Counter(0, ctrID))
	}
	// Both go on: a good write with its counter.
	msg := pattern(100, 0x44)
	copy(n0.HostBytes(src[1], 100), msg)
	n0.Write(0, srcVA+abi.PageSize, 100, 8, impRegion, impCtr)
	w.RunUntil("counter", 100*sim.Nanosecond, sim.Millisecond, func() bool { return n1.Counter(0, ctrID) == 1 })
	if !bytes.Equal(n1.HostBytes(dst[0]+8, 100), msg) {
		t.Fatal("the good write after the errors did not land")
	}
}

// packet builds a NetVM packet body with a header and payload, and
// appends the trailer the send engine would (CRC-32 big-endian, CRC-8).
func packet(kind, flags byte, srcNode, dstNode uint16, key, off uint32, seq uint16, payload []byte, badCRC bool) []byte {
	b := make([]byte, abi.HdrSize, abi.HdrSize+len(payload)+abi.TrailerSize)
	binary.BigEndian.PutUint16(b[abi.HdrType:], abi.PktType)
	b[abi.HdrKind], b[abi.HdrFlags] = kind, flags
	binary.BigEndian.PutUint16(b[abi.HdrSrcNode:], srcNode)
	binary.BigEndian.PutUint16(b[abi.HdrDstNode:], dstNode)
	binary.BigEndian.PutUint16(b[abi.HdrLen:], uint16(len(payload)))
	binary.BigEndian.PutUint32(b[abi.HdrKey:], key)
	binary.BigEndian.PutUint32(b[abi.HdrOffset:], off)
	binary.BigEndian.PutUint16(b[abi.HdrSeq:], seq)
	b = append(b, payload...)
	return seal(b, badCRC)
}

func seal(b []byte, badCRC bool) []byte {
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	b = append(b, board.CRC8(b))
	if badCRC {
		b[len(b)-1] ^= 0x5A
	}
	return b
}

// Bad packets from a peer (forged here on node 0's link): too short, a
// foreign type, a truncated payload, a bad CRC, the wrong destination, an
// unknown source node or kind, an ACK with a payload, a packet longer than
// the receive area, and a DATA packet far beyond the window. Each is
// dropped and counted (or NACKed); the receiver's memory is untouched and
// it goes on serving good traffic.
func TestBadPackets(t *testing.T) {
	w, src, dst := setup(t)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	before := append([]byte(nil), n1.HostBytes(HostBase+UserPages, int(n1.next-UserPages))...)
	good := func(p []byte) []byte { return p }
	pl := pattern(64, 1)
	truncated := packet(abi.KindData, 0, 0, 1, regionKey, 0, 0, pl, false)
	binary.BigEndian.PutUint16(truncated[abi.HdrLen:], 1000) // claims more than it carries
	truncated = seal(truncated[:len(truncated)-abi.TrailerSize], false)
	foreign := packet(abi.KindData, 0, 0, 1, regionKey, 0, 0, pl, false)
	binary.BigEndian.PutUint16(foreign[abi.HdrType:], 0x4242)
	foreign = seal(foreign[:len(foreign)-abi.TrailerSize], false)
	cases := []struct {
		name string
		pkt  []byte
		stat uint32
	}{
		{"short", seal([]byte{0x4E, 0x56, 1}, false), abi.StatMalformed},
		{"foreign type", good(foreign), abi.StatMalformed},
		{"truncated", truncated, abi.StatMalformed},
		{"bad CRC", packet(abi.KindData, 0, 0, 1, regionKey, 0, 0, pl, true), abi.StatCRC},
		{"other destination", packet(abi.KindData, 0, 0, 7, regionKey, 0, 0, pl, false), abi.StatMalformed},
		{"unknown source", packet(abi.KindData, 0, 9, 1, regionKey, 0, 0, pl, false), abi.StatMalformed},
		{"unknown kind", packet(9, 0, 0, 1, regionKey, 0, 0, pl, false), abi.StatMalformed},
		{"ACK with payload", packet(abi.KindAck, 0, 0, 1, 0, 0, 0, pl, false), abi.StatMalformed},
		{"too long", packet(abi.KindData, 0, 0, 1, regionKey, 0, 0, make([]byte, 6000), false), abi.StatMalformed},
		{"beyond the window", packet(abi.KindData, 0, 0, 1, regionKey, 0, 0x4000, pl, false), abi.StatNack},
		{"stale ACK", packet(abi.KindAck, 0, 0, 1, 0, 0, 0x7000, nil, false), abi.StatDup},
	}
	for _, c := range cases {
		was := n1.Stat(c.stat)
		done := false
		if err := w.Fabric.Send(0, nil, c.pkt, w.Now(), func(sim.Time, error) { done = true }); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w.RunUntil(c.name, 100*sim.Nanosecond, sim.Millisecond, func() bool { return done && n1.Stat(c.stat) > was })
	}
	w.W.Run(w.Now() + 20*sim.Microsecond)
	if !bytes.Equal(n1.HostBytes(HostBase+UserPages, len(before)), before) {
		t.Fatal("a bad packet changed the receiver's memory")
	}
	if n1.Stat(abi.StatRxData) != 0 || n1.Board.Fault() != nil || n1.Glob(abi.GlobStatus) != abi.FWRunning {
		t.Fatalf("received %d, fault %v, status %d", n1.Stat(abi.StatRxData), n1.Board.Fault(), n1.Glob(abi.GlobStatus))
	}
	msg := pattern(300, 0x5C)
	copy(n0.HostBytes(src[0], 300), msg)
	n0.Write(0, srcVA, 300, 0x100, impRegion, impCtr)
	w.RunUntil("counter", 100*sim.Nanosecond, sim.Millisecond, func() bool { return n1.Counter(0, ctrID) == 1 })
	if !bytes.Equal(n1.HostBytes(dst[0]+0x100, 300), msg) {
		t.Fatal("good traffic after the bad packets did not land")
	}
}

// Bad input from the host: kernel commands out of range or in the wrong
// state get a status; a status page at a wild address makes the
// completion's DMA fault, which the firmware counts and survives; a user
// ring overrun (more posts than slots, without waiting) loses commands but
// never another endpoint's traffic.
func TestBadHostInput(t *testing.T) {
	w, src, dst := setup(t)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	for _, c := range []struct {
		name string
		op   byte
		f    []Field
		want uint32
	}{
		{"unknown opcode", 0x3E, nil, abi.StatusBadCmd},
		{"opcode over the table", 0xFF, nil, abi.StatusBadCmd},
		{"EP_OPEN endpoint 99", abi.KOpEPOpen, []Field{{abi.KEp, 4, 99}}, abi.StatusBadCmd},
		{"EXPORT on a closed endpoint", abi.KOpExport, []Field{{abi.KEp, 4, 5}, {abi.KExpKey, 4, 1<<8 | 1}}, abi.StatusEpClosed},
		{"EXPORT key without generation", abi.KOpExport, []Field{{abi.KEp, 4, 0}, {abi.KExpKey, 4, 3}}, abi.StatusBadCmd},
		{"IMPORT of node 9", abi.KOpImport, []Field{{abi.KEp, 4, 0}, {abi.KImpIndex, 4, 40}, {abi.KImpNode, 4, 9}, {abi.KImpKey, 4, 1}}, abi.StatusBadCmd},
		{"IMPORT index 300", abi.KOpImport, []Field{{abi.KEp, 4, 0}, {abi.KImpIndex, 4, 300}, {abi.KImpKey, 4, 1}}, abi.StatusBadCmd},
		{"SPT_MAP index out of range", abi.KOpSPTMap, []Field{{abi.KSPTIndex, 4, abi.SPTEntries}}, abi.StatusSPT},
		{"SPT_UNMAP of a valid entry", abi.KOpSPTUnmap, []Field{{abi.KSPTIndex, 4, uint32(n0.SPTIndex(asid, srcVA))}}, abi.StatusSPT},
		{"SPT_UNMAP of an empty entry", abi.KOpSPTUnmap, []Field{{abi.KSPTIndex, 4, 9999}}, abi.StatusSPT},
		{"REDIR_DONE of no slot", abi.KOpRedirDone, []Field{{abi.KRedirCount, 4, 0}}, abi.StatusBadCmd},
		{"REDIR_DONE of 25 slots", abi.KOpRedirDone, []Field{{abi.KRedirCount, 4, 25}}, abi.StatusBadCmd},
		{"REDIR_DONE of a free slot", abi.KOpRedirDone, []Field{{abi.KRedirCount, 4, 1}, {abi.KRedirSlots, 2, 3}}, abi.StatusBadCmd},
		{"REDIR_DONE of slot 999", abi.KOpRedirDone, []Field{{abi.KRedirCount, 4, 1}, {abi.KRedirSlots, 2, 999}}, abi.StatusBadCmd},
		{"SRC_FAULT_DONE, not parked", abi.KOpSrcFaultDone, []Field{{abi.KEp, 4, 0}}, abi.StatusBadCmd},
		{"CTR_ARM counter 64", abi.KOpCtrArm, []Field{{abi.KEp, 4, 0}, {abi.KCtr, 4, 64}}, abi.StatusBadCmd},
		{"CTR_ARM mode 7", abi.KOpCtrArm, []Field{{abi.KEp, 4, 0}, {abi.KCtrMode, 4, 7}}, abi.StatusBadCmd},
		{"UNEXPORT of a stale key", abi.KOpUnexport, []Field{{abi.KExpKey, 4, 9<<8 | 5}}, abi.StatusBadCmd},
	} {
		if st := w.KernelSync(n0, c.op, c.f...); st != c.want {
			t.Errorf("%s: status %d, want %d", c.name, st, c.want)
		}
	}

	// Endpoint 1 with its status page at a wild bus address.
	w.MustKernel(n0, abi.KOpEPOpen, Field{abi.KEp, 4, 1}, Field{abi.KOpenASID, 4, asid}, Field{abi.KOpenPage, 4, 0xF000_0000})
	w.MustKernel(n0, abi.KOpImport, Field{abi.KEp, 4, 1}, Field{abi.KImpIndex, 4, 30}, Field{abi.KImpNode, 4, 1},
		Field{abi.KImpEp, 4, 0}, Field{abi.KImpKey, 4, regionKey}, Field{abi.KImpLen, 4, regionLen}, Field{abi.KImpKind, 4, abi.ExpKindRegion})
	n0.Write(1, srcVA, 16, 0, 30, abi.NoCounter)
	w.RunUntil("DMA fault", 100*sim.Nanosecond, sim.Millisecond, func() bool { return n0.Stat(abi.StatDMAFault) == 1 })
	if n0.Board.Fault() == nil {
		t.Fatal("the board recorded no DMA fault")
	}

	// Endpoint 0 overruns its ring: 150 posts without waiting. Endpoint
	// 1's traffic is unharmed and the firmware keeps going.
	for i := range 150 {
		n0.Write(0, srcVA, uint32(i%7)*100, uint32(i%3)*8, impRegion, abi.NoCounter)
	}
	msg := pattern(200, 0x6D)
	copy(n0.HostBytes(src[1], 200), msg)
	n0.Write(1, srcVA+abi.PageSize, 200, abi.PageSize, 30, abi.NoCounter)
	w.RunUntil("endpoint 1's write", 100*sim.Nanosecond, 10*sim.Millisecond, func() bool {
		return bytes.Equal(n1.HostBytes(dst[1], 200), msg)
	})
	w.W.Run(w.Now() + sim.Millisecond)
	for s := range abi.RingSlots {
		if st, tk := n0.Comp(0, s); tk != 0 && st != abi.StatusOK {
			t.Fatalf("ring slot %d: status %d", s, st)
		}
	}
	if n0.Glob(abi.GlobStatus) != abi.FWRunning || n1.Glob(abi.GlobStatus) != abi.FWRunning {
		t.Fatal("a firmware stopped")
	}
	// Closing the wild endpoint: its state goes, the others stay.
	w.MustKernel(n0, abi.KOpEPClose, Field{abi.KEp, 4, 1})
	if st := w.KernelSync(n0, abi.KOpEPClose, Field{abi.KEp, 4, 1}); st != abi.StatusEpClosed {
		t.Fatalf("second EP_CLOSE: %d", st)
	}
	n0.Write(1, srcVA, 16, 0, 30, abi.NoCounter) // ignored: endpoint closed
	// The overrun left endpoint 0's host out of step with its ring; the
	// way back is to close and reopen it (its imports go with it).
	w.MustKernel(n0, abi.KOpEPClose, Field{abi.KEp, 4, 0})
	n0.eslot[0] = 0
	w.OpenEP(n0, 0, asid)
	w.MustKernel(n0, abi.KOpImport, Field{abi.KEp, 4, 0}, Field{abi.KImpIndex, 4, impRegion}, Field{abi.KImpNode, 4, 1},
		Field{abi.KImpEp, 4, 0}, Field{abi.KImpKey, 4, regionKey}, Field{abi.KImpLen, 4, regionLen}, Field{abi.KImpKind, 4, abi.ExpKindRegion})
	msg = pattern(50, 0x7E)
	copy(n0.HostBytes(src[0], 50), msg)
	slot, tk := n0.Write(0, srcVA, 50, 0x20, impRegion, abi.NoCounter)
	w.RunUntil("endpoint 0 after the reopen", 100*sim.Nanosecond, 10*sim.Millisecond, func() bool { _, g := n0.Comp(0, slot); return g == tk })
	w.RunUntil("its data", 100*sim.Nanosecond, sim.Millisecond, func() bool { return bytes.Equal(n1.HostBytes(dst[0]+0x20, 50), msg) })
}
