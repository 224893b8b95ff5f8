package harness

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/netvm/abi"
	"lanaiemu/sim"
)

const (
	asid      = 1
	srcVA     = 0x4000_0000 // node 0's source buffer (two pages)
	dstVA     = 0x8000_0000 // node 1's exported region (two pages)
	regionLen = 2 * abi.PageSize
	regionKey = 1<<8 | 5 // generation 1, export index 5
	ctrKey    = 2<<8 | 6 // generation 2, export index 6
	ctrID     = 3        // counter id on node 1's endpoint 0
	impRegion = 3        // node 0's import index of the region
	impCtr    = 4        // ... of the counter
)

// setup opens endpoint 0 on both nodes, maps two source pages on node 0
// and the two region pages on node 1, exports the region and a counter on
// node 1 and imports both on node 0. It returns the host addresses of the
// pages: src[0..1] on node 0, dst[0..1] on node 1.
func setup(t *testing.T) (w *World, src, dst [2]uint64) { return setupWith(t, Options{}) }

// setupWith is setup on boards built with o.
func setupWith(t *testing.T, o Options) (w *World, src, dst [2]uint64) {
	w = NewWorld(t, Build(t), o)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	w.OpenEP(n0, 0, asid)
	w.OpenEP(n1, 0, asid)
	for i := range 2 {
		src[i] = w.Map(n0, asid, srcVA+uint32(i)*abi.PageSize, abi.SPTV|abi.SPTW)
		n0.AllocPage() // make the pages non-contiguous: translation matters
		dst[i] = w.Map(n1, asid, dstVA+uint32(i)*abi.PageSize, abi.SPTV|abi.SPTW)
		n1.AllocPage()
	}
	w.MustKernel(n1, abi.KOpExport, Field{abi.KEp, 4, 0}, Field{abi.KExpKey, 4, regionKey},
		Field{abi.KExpBase, 4, dstVA}, Field{abi.KExpLen, 4, regionLen}, Field{abi.KExpKind, 4, abi.ExpKindRegion | abi.ExpPermW})
	w.MustKernel(n1, abi.KOpExport, Field{abi.KEp, 4, 0}, Field{abi.KExpKey, 4, ctrKey},
		Field{abi.KExpBase, 4, ctrID}, Field{abi.KExpLen, 4, 0}, Field{abi.KExpKind, 4, abi.ExpKindCounter})
	w.MustKernel(n0, abi.KOpImport, Field{abi.KEp, 4, 0}, Field{abi.KImpIndex, 4, impRegion}, Field{abi.KImpNode, 4, 1},
		Field{abi.KImpEp, 4, 0}, Field{abi.KImpKey, 4, regionKey}, Field{abi.KImpLen, 4, regionLen}, Field{abi.KImpKind, 4, abi.ExpKindRegion})
	w.MustKernel(n0, abi.KOpImport, Field{abi.KEp, 4, 0}, Field{abi.KImpIndex, 4, impCtr}, Field{abi.KImpNode, 4, 1},
		Field{abi.KImpEp, 4, 0}, Field{abi.KImpKey, 4, ctrKey}, Field{abi.KImpKind, 4, abi.ExpKindCounter})
	// Kernel-ring refusals: the same endpoint twice, the same key twice.
	if st := w.KernelSync(n1, abi.KOpEPOpen, Field{abi.KEp, 4, 0}, Field{abi.KOpenASID, 4, asid}); st != abi.StatusBusy {
		t.Fatalf("second EP_OPEN: status %d, want Busy", st)
	}
	if st := w.KernelSync(n1, abi.KOpExport, Field{abi.KEp, 4, 0}, Field{abi.KExpKey, 4, regionKey}); st != abi.StatusBusy {
		t.Fatalf("second EXPORT: status %d, want Busy", st)
	}
	return w, src, dst
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// One WRITE of a few hundred bytes with a counter: the bytes land in
// node 1's region page, the sender's completion record shows StatusOK and
// the ticket, the receiver's counter (status page, §6.1) reads 1.
func TestWriteOnePacket(t *testing.T) {
	w, src, dst := setup(t)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	const size, srcOff, dstOff = 300, 0x123, 0x40
	msg := pattern(size, 0x11)
	copy(n0.HostBytes(src[0]+srcOff, size), msg)

	t0 := w.Now()
	slot, tk := n0.Write(0, srcVA+srcOff, size, dstOff, impRegion, impCtr)
	last := dst[0] + dstOff + size - 1
	opByte := uint32(abi.EPRingBase + slot*abi.CmdSize + abi.CmdOp)
	dt := 5 * sim.Nanosecond
	tTaken := w.RunUntil("slot taken", dt, sim.Millisecond, func() bool { return n0.SRAMWord(opByte&^3)&0xFF == 0 })
	tSent := w.RunUntil("packet sent", dt, sim.Millisecond, func() bool { return n0.Stat(abi.StatTxData) == 1 })
	tArr := w.RunUntil("packet received", dt, sim.Millisecond, func() bool { return n1.Board.Link().Stats().PacketsRecv == 1 })
	tData := w.RunUntil("data in node 1's host", 5*sim.Nanosecond, sim.Millisecond, func() bool {
		return n1.HostBytes(last, 1)[0] == msg[size-1]
	})
	tCtr := w.RunUntil("counter", 5*sim.Nanosecond, sim.Millisecond, func() bool { return n1.Counter(0, ctrID) == 1 })
	w.RunUntil("completion", 5*sim.Nanosecond, sim.Millisecond, func() bool { _, got := n0.Comp(0, slot); return got == tk })

	if err := w.W.Run(w.Now() + 2*sim.Microsecond); err != nil { // let both firmwares finish the packet
		t.Fatal(err)
	}
	if got := n1.HostBytes(dst[0]+dstOff, size); !bytes.Equal(got, msg) {
		t.Fatalf("data differs:\n got %x\nwant %x", got, msg)
	}
	for _, a := range []uint64{dst[0] + dstOff - 1, dst[0] + dstOff + size} {
		if n1.HostBytes(a, 1)[0] != 0 {
			t.Fatalf("byte at %#x outside the write changed", a)
		}
	}
	if st, _ := n0.Comp(0, slot); st != abi.StatusOK {
		t.Fatalf("completion status %d", st)
	}
	if c := n1.Counter(0, ctrID); c != 1 {
		t.Fatalf("counter %d", c)
	}
	if tx, rx, nt := n0.Stat(abi.StatTxData), n1.Stat(abi.StatRxData), n1.Stat(abi.StatNotify); tx != 1 || rx != 1 || nt != 1 {
		t.Fatalf("stats tx %d rx %d notify %d", tx, rx, nt)
	}
	// The destination page is dirty and unlocked (§4.3 step 5); the
	// source page is unlocked and clean.
	for _, c := range []struct {
		n    *Node
		va   uint32
		want uint32
	}{{n1, dstVA, abi.SPTD}, {n0, srcVA, 0}} {
		e := abi.SPTBase + SPTHash(asid, c.va>>abi.PageShift)*abi.SPTEntrySize
		if nic := c.n.SRAMWord(e + abi.SPTNIC); nic != c.want {
			t.Fatalf("node %d SPT NIC word %#x, want %#x", c.n.ID, nic, c.want)
		}
	}
	clk := n0.Board.Clock()
	lat := tData - t0
	t.Logf("breakdown: slot taken %v, SMLT %v, packet in node 1's SRAM %v, data in host %v", tTaken-t0, tSent-t0, tArr-t0, tData-t0)
	t.Logf("WRITE %d B: post -> data in peer host %v = %d cycles at the default clock; counter at %v",
		size, lat, clk.Cycles(lat), tCtr-t0)
}

// A WRITE that crosses a source page and a destination page boundary is
// cut into packets that cross neither (§5.1).
func TestWriteCrossesPages(t *testing.T) {
	w, src, dst := setup(t)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	const size, srcOff, dstOff = 600, abi.PageSize - 100, abi.PageSize - 250
	msg := pattern(size, 0x5A)
	copy(n0.HostBytes(src[0]+srcOff, 100), msg[:100])
	copy(n0.HostBytes(src[1], size-100), msg[100:])
	slot, tk := n0.Write(0, srcVA+srcOff, size, dstOff, impRegion, impCtr)
	w.RunUntil("counter", 10*sim.Nanosecond, sim.Millisecond, func() bool { return n1.Counter(0, ctrID) == 1 })
	w.RunUntil("completion", 10*sim.Nanosecond, sim.Millisecond, func() bool { _, got := n0.Comp(0, slot); return got == tk })
	got := append(append([]byte{}, n1.HostBytes(dst[0]+dstOff, 250)...), n1.HostBytes(dst[1], size-250)...)
	if !bytes.Equal(got, msg) {
		t.Fatalf("data differs:\n got %x\nwant %x", got, msg)
	}
	if tx := n0.Stat(abi.StatTxData); tx != 3 {
		t.Fatalf("%d packets, want 3 (cut at the source and the destination page ends)", tx)
	}
}

// The sender's checks complete a bad WRITE at once with its status (§3.2).
func TestWriteChecks(t *testing.T) {
	w, _, _ := setup(t)
	n0 := w.Nodes[0]
	for _, c := range []struct {
		imp, ctr uint16
		len, off uint32
		want     uint32
	}{
		{7, abi.NoCounter, 10, 0, abi.StatusImport},
		{impCtr, abi.NoCounter, 10, 0, abi.StatusImport},
		{impRegion, abi.NoCounter, abi.MaxWrite + 1, 0, abi.StatusLen},
		{impRegion, abi.NoCounter, 10, regionLen - 9, abi.StatusBounds},
		{impRegion, impRegion, 10, 0, abi.StatusCounter},
	} {
		slot, tk := n0.Write(0, srcVA, c.len, c.off, c.imp, c.ctr)
		w.RunUntil("completion", 100*sim.Nanosecond, sim.Millisecond, func() bool { _, got := n0.Comp(0, slot); return got == tk })
		if st, _ := n0.Comp(0, slot); st != c.want {
			t.Errorf("%+v: status %d, want %d", c, st, c.want)
		}
	}
	if tx := n0.Stat(abi.StatTxData); tx != 0 {
		t.Fatalf("%d packets sent", tx)
	}
}

// Latency from posting a WRITE (the op byte's PIO) to its last byte in
// the peer host's memory, for one-packet writes (page-aligned at both
// ends for 4096). Reported, not asserted.
func TestWriteLatency(t *testing.T) {
	for _, size := range []uint32{8, 300, 1024, abi.PageSize} {
		w, src, dst := setup(t)
		n0, n1 := w.Nodes[0], w.Nodes[1]
		msg := pattern(int(size), byte(size))
		copy(n0.HostBytes(src[0], int(size)), msg)
		t0 := w.Now()
		n0.Write(0, srcVA, size, 0, impRegion, abi.NoCounter)
		lat := w.RunUntil("data", 5*sim.Nanosecond, sim.Millisecond, func() bool {
			return bytes.Equal(n1.HostBytes(dst[0], int(size)), msg)
		}) - t0
		t.Logf("%5d B: post -> data in peer host %v = %d cycles at the default clock", size, lat, n0.Board.Clock().Cycles(lat))
	}
}

// A WRITE whose source page is not in the SPT parks its endpoint (§5.2):
// an EvSrcFault event names ticket, ASID and page; nothing is sent for the
// page until the driver maps it and posts SRC_FAULT_DONE(StatusOK); then
// the WRITE resumes and the bytes arrive. SRC_FAULT_DONE(StatusSrcFault)
// completes a WRITE with StatusSrcFault instead.
func TestWriteSourceNotResident(t *testing.T) {
	w, _, dst := setup(t)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	va := uint32(srcVA + 2*abi.PageSize)
	slot, tk := n0.Write(0, va+0x10, 16, 0, impRegion, abi.NoCounter)
	w.RunUntil("event", 100*sim.Nanosecond, sim.Millisecond, func() bool { return n0.Glob(abi.GlobEvqWrite) == 1 })
	if !n0.Board.IRQ() {
		t.Fatal("no host interrupt")
	}
	evs := n0.Events(t)
	if n0.Board.IRQ() {
		t.Fatal("the interrupt is still raised after the acknowledgement")
	}
	want := Event{Type: abi.EvSrcFault, Flags: abi.EvFlagIRQ, Ep: 0, A: [6]uint32{tk, asid, va}, Seq: 1}
	if d := cmp.Diff([]Event{want}, evs); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	if st := n0.SRAMWord(abi.EPStateBase + abi.EPStState); st != abi.EPParked {
		t.Fatalf("endpoint state %d, want Parked", st)
	}
	w.W.Run(w.Now() + 100*sim.Microsecond)
	if _, got := n0.Comp(0, slot); got == tk || n0.Stat(abi.StatTxData) != 0 {
		t.Fatal("a parked WRITE went on")
	}
	pa := w.Map(n0, asid, va, abi.SPTV|abi.SPTW)
	msg := pattern(16, 0x77)
	copy(n0.HostBytes(pa+0x10, 16), msg)
	w.MustKernel(n0, abi.KOpSrcFaultDone, Field{abi.KEp, 4, 0}, Field{abi.KFaultStatus, 4, abi.StatusOK})
	w.RunUntil("completion", 100*sim.Nanosecond, sim.Millisecond, func() bool { _, got := n0.Comp(0, slot); return got == tk })
	if st, _ := n0.Comp(0, slot); st != abi.StatusOK {
		t.Fatalf("status %d, want OK", st)
	}
	w.RunUntil("data", 100*sim.Nanosecond, sim.Millisecond, func() bool { return bytes.Equal(n1.HostBytes(dst[0], 16), msg) })

	// A bad address: the WRITE fails, the endpoint goes on.
	slot, tk = n0.Write(0, 0x7000_0000, 16, 0, impRegion, abi.NoCounter)
	evs = w.RunEvents(n0, sim.Millisecond)
	if len(evs) != 1 || evs[0].Type != abi.EvSrcFault || evs[0].A[2] != 0x7000_0000 {
		t.Fatalf("events %+v", evs)
	}
	if st := w.KernelSync(n0, abi.KOpSrcFaultDone, Field{abi.KEp, 4, 0}, Field{abi.KFaultStatus, 4, abi.StatusBounds}); st != abi.StatusBadCmd {
		t.Fatalf("SRC_FAULT_DONE with a bad status: %d, want BadCmd", st)
	}
	w.MustKernel(n0, abi.KOpSrcFaultDone, Field{abi.KEp, 4, 0}, Field{abi.KFaultStatus, 4, abi.StatusSrcFault})
	w.RunUntil("completion", 100*sim.Nanosecond, sim.Millisecond, func() bool { _, got := n0.Comp(0, slot); return got == tk })
	if st, _ := n0.Comp(0, slot); st != abi.StatusSrcFault {
		t.Fatalf("status %d, want SrcFault", st)
	}
	if st := w.KernelSync(n0, abi.KOpSrcFaultDone, Field{abi.KEp, 4, 0}, Field{abi.KFaultStatus, 4, abi.StatusOK}); st != abi.StatusBadCmd {
		t.Fatalf("SRC_FAULT_DONE while not parked: %d, want BadCmd", st)
	}
	if got := n0.Stat(abi.StatSrcFault); got != 2 {
		t.Fatalf("StatSrcFault %d, want 2", got)
	}
}
