package netvm_test

import (
	"bytes"
	"testing"

	"lanaiemu/fabric"
	"lanaiemu/netvm/abi"
	"lanaiemu/sim"
)

// sptEntry is the SRAM address of the live SPT entry of (asid, va).
func sptEntry(t *testing.T, n *ScriptedNode, va uint32) uint32 {
	t.Helper()
	idx := n.SPTIndex(asid, va)
	if idx < 0 {
		t.Fatalf("node %d: no SPT entry for %#x", n.ID, va)
	}
	return abi.SPTBase + uint32(idx)*abi.SPTEntrySize
}

// redirDone posts REDIR_DONE for slots and requires StatusOK.
func redirDone(w *World, n *ScriptedNode, slots ...uint16) {
	w.T.Helper()
	fields := []abi.Field{abi.Field32(abi.KRedirCount, uint32(len(slots)))}
	for i, s := range slots {
		fields = append(fields, abi.Field16(abi.KRedirSlots+uint32(2*i), uint32(s)))
	}
	w.MustKernel(n, abi.KOpRedirDone, fields...)
}

// The host sets P while the NIC holds L (§4.3): the host's read of the
// NIC word shows L = 1, so it waits. Either the NIC had re-read the entry
// before P landed, and L drops only after the page's DMA is complete; or
// it re-reads after, backs off and redirects the packet, leaving the page
// untouched. Case 1 sets P as soon as L is seen (a few cycles after the
// NIC's store); case 2 waits until the DMA has moved bytes. After the
// unmap, a write to the page is redirected and the freed host page is
// never touched again.
func TestLockRaceHostWaits(t *testing.T) {
	for _, midDMA := range []bool{false, true} {
		w, src, dst := setup(t)
		n0, n1 := w.Nodes[0], w.Nodes[1]
		msg := pattern(abi.PageSize, 0x31)
		copy(n0.HostBytes(src[0], abi.PageSize), msg)
		e := sptEntry(t, n1, dstVA)
		before := append([]byte(nil), n1.HostBytes(dst[0], abi.PageSize)...)
		n0.Write(0, srcVA, abi.PageSize, 0, impRegion, abi.NoCounter)
		w.RunUntil("L set by the receiving NIC", 5*sim.Nanosecond, sim.Millisecond, func() bool {
			return n1.SRAMWord(e+abi.SPTNIC)&abi.SPTL != 0 && (!midDMA || n1.HostBytes(dst[0], 1)[0] == msg[0])
		})
		// OS steps 1 and 2: P = 1, read the NIC word back.
		n1.PIO(e+abi.SPTFlagsByte, []byte{abi.SPTV | abi.SPTW | abi.SPTP})
		if n1.SRAMWord(e+abi.SPTNIC)&abi.SPTL == 0 {
			t.Fatal("L dropped between two host accesses: the race did not happen")
		}
		if bytes.Equal(n1.HostBytes(dst[0], abi.PageSize), msg) {
			t.Fatal("the DMA finished before L was seen: the race did not happen")
		}
		// Step 3: wait while L is set.
		waited := w.RunUntil("L cleared", 5*sim.Nanosecond, sim.Millisecond, func() bool {
			return n1.SRAMWord(e+abi.SPTNIC)&abi.SPTL == 0
		})
		w.W.Run(w.Now() + 20*sim.Microsecond)
		evs := n1.Events(t)
		switch got := n1.HostBytes(dst[0], abi.PageSize); {
		case bytes.Equal(got, msg) && len(evs) == 0:
			if n1.SRAMWord(e+abi.SPTNIC)&abi.SPTD == 0 {
				t.Fatal("D not set after a NIC write")
			}
			t.Logf("P during the DMA (mid-DMA wait %v): the host waited until %v, the DMA completed", midDMA, waited)
		case bytes.Equal(got, before) && len(evs) == 1 && evs[0].Type == abi.EvRedirect && !midDMA:
			t.Logf("P before the NIC's re-read: the NIC backed off at %v and redirected", waited)
		default:
			t.Fatalf("mid-DMA %v: page changed %v, events %+v: neither a completed DMA nor a clean back-off", midDMA, !bytes.Equal(got, before), evs)
		}
		// Step 4: V = 0, SPT_UNMAP; the page is free: poison it.
		n1.PIO(e+abi.SPTFlagsByte, []byte{0})
		w.MustKernel(n1, abi.KOpSPTUnmap, abi.Field32(abi.KSPTIndex, uint32((e-abi.SPTBase)/abi.SPTEntrySize)))
		poison := bytes.Repeat([]byte{0xEE}, abi.PageSize)
		copy(n1.HostBytes(dst[0], abi.PageSize), poison)
		// The next write to the page is redirected, the freed page untouched.
		n0.Write(0, srcVA, 64, 0, impRegion, abi.NoCounter)
		evs = w.RunEvents(n1, sim.Millisecond)
		if len(evs) != 1 || evs[0].Type != abi.EvRedirect || evs[0].A[2] != dstVA || evs[0].A[3] != 64 {
			t.Fatalf("events %+v, want one EvRedirect of 64 bytes at %#x", evs, dstVA)
		}
		slot := evs[0].A[0] >> 16
		if got := n1.HostBytes(HostBase+SysBuf+uint64(slot)*abi.SysBufSlot, 64); !bytes.Equal(got, msg[:64]) {
			t.Fatalf("system-buffer slot %d holds %x", slot, got[:8])
		}
		w.W.Run(w.Now() + 50*sim.Microsecond)
		if !bytes.Equal(n1.HostBytes(dst[0], abi.PageSize), poison) {
			t.Fatal("the NIC wrote a page the host had unmapped and freed")
		}
	}
}

// The NIC's re-read (§4.3 step 3): when the host's P lands between the
// NIC's first test and its lock, the NIC backs off and redirects. Here P
// is set before the packet arrives; the packet must be redirected, L must
// end clear and the page must be untouched.
func TestLockNICBacksOff(t *testing.T) {
	w, src, dst := setup(t)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	copy(n0.HostBytes(src[0], 128), pattern(128, 9))
	e := sptEntry(t, n1, dstVA)
	n1.PIO(e+abi.SPTFlagsByte, []byte{abi.SPTV | abi.SPTW | abi.SPTP})
	before := append([]byte(nil), n1.HostBytes(dst[0], 128)...)
	n0.Write(0, srcVA, 128, 0, impRegion, abi.NoCounter)
	evs := w.RunEvents(n1, sim.Millisecond)
	if len(evs) != 1 || evs[0].Type != abi.EvRedirect {
		t.Fatalf("events %+v, want one EvRedirect", evs)
	}
	if n1.SRAMWord(e+abi.SPTNIC)&abi.SPTL != 0 || !bytes.Equal(n1.HostBytes(dst[0], 128), before) {
		t.Fatal("the NIC locked or wrote a page with P set")
	}
	if rcnt := n1.SRAMWord(e+abi.SPTNIC) >> abi.SPTRCntShift; rcnt != 1 {
		t.Fatalf("RCNT %d, want 1", rcnt)
	}
}

// Write k is redirected and write k+1 to the same bytes arrives after the
// OS has mapped the page but before it has copied k (systems.md §1.3.5
// step 6): RCNT > 0 redirects k+1 as well, so the OS's copies, in event
// order, leave k+1's bytes; the counter k+1 carries is applied only after
// REDIR_DONE has released both. A third write, once RCNT is 0, is placed
// directly.
func TestRedirectThenOverwrite(t *testing.T) {
	w, src, dst := setup(t)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	const size = 200
	k0, k1, k2 := pattern(size, 0x10), pattern(size, 0x20), pattern(size, 0x30)
	copy(n0.HostBytes(src[0], size), k0)
	copy(n0.HostBytes(src[0]+0x400, size), k1)
	copy(n0.HostBytes(src[0]+0x800, size), k2)
	// Page 0 of the region goes out: unmapped, its frame free.
	e := sptEntry(t, n1, dstVA)
	n1.PIO(e+abi.SPTFlagsByte, []byte{abi.SPTV | abi.SPTW | abi.SPTP})
	n1.PIO(e+abi.SPTFlagsByte, []byte{0})
	w.MustKernel(n1, abi.KOpSPTUnmap, abi.Field32(abi.KSPTIndex, uint32((e-abi.SPTBase)/abi.SPTEntrySize)))

	n0.Write(0, srcVA, size, 0x10, impRegion, abi.NoCounter) // k
	evK := w.RunEvents(n1, sim.Millisecond)
	if len(evK) != 1 || evK[0].Type != abi.EvRedirect {
		t.Fatalf("write k: events %+v", evK)
	}
	// The OS pages the page in (SPT_MAP: RCNT starts at 1 from the slot
	// table) but has not copied k yet.
	pa := n1.AllocPage()
	copy(n1.HostBytes(pa, abi.PageSize), n1.HostBytes(dst[0], abi.PageSize))
	w.MapAt(n1, asid, dstVA, pa, abi.SPTV|abi.SPTW)
	e = sptEntry(t, n1, dstVA)
	if rcnt := n1.SRAMWord(e+abi.SPTNIC) >> abi.SPTRCntShift; rcnt != 1 {
		t.Fatalf("RCNT after SPT_MAP %d, want 1", rcnt)
	}
	n0.Write(0, srcVA+0x400, size, 0x10, impRegion, impCtr) // k+1, same bytes, notifying
	evK1 := w.RunEvents(n1, sim.Millisecond)
	if len(evK1) != 1 || evK1[0].Type != abi.EvRedirect || evK1[0].A[5] != ctrID {
		t.Fatalf("write k+1: events %+v, want a redirect naming counter %d", evK1, ctrID)
	}
	if rcnt := n1.SRAMWord(e+abi.SPTNIC) >> abi.SPTRCntShift; rcnt != 2 {
		t.Fatalf("RCNT %d, want 2", rcnt)
	}
	if n1.Counter(0, ctrID) != 0 {
		t.Fatal("counter applied while covered data is in the system buffer")
	}
	// The OS copies in event order, then releases both slots.
	for _, ev := range [][]Event{evK, evK1} {
		slot := uint64(ev[0].A[0] >> 16)
		copy(n1.HostBytes(pa+uint64(ev[0].A[2]%abi.PageSize), size), n1.HostBytes(HostBase+SysBuf+slot*abi.SysBufSlot, size))
	}
	w.W.Run(w.Now() + 20*sim.Microsecond)
	if n1.Counter(0, ctrID) != 0 {
		t.Fatal("counter applied before REDIR_DONE")
	}
	redirDone(w, n1, uint16(evK[0].A[0]>>16), uint16(evK1[0].A[0]>>16))
	w.RunUntil("counter", 100*sim.Nanosecond, sim.Millisecond, func() bool { return n1.Counter(0, ctrID) == 1 })
	if got := n1.HostBytes(pa+0x10, size); !bytes.Equal(got, k1) {
		t.Fatalf("page holds %x..., want write k+1's bytes", got[:8])
	}
	if rcnt := n1.SRAMWord(e+abi.SPTNIC) >> abi.SPTRCntShift; rcnt != 0 {
		t.Fatalf("RCNT %d after REDIR_DONE, want 0", rcnt)
	}
	n0.Write(0, srcVA+0x800, size, 0x10, impRegion, abi.NoCounter) // placed directly now
	w.RunUntil("direct placement", 100*sim.Nanosecond, sim.Millisecond, func() bool { return bytes.Equal(n1.HostBytes(pa+0x10, size), k2) })
	if evs := n1.Events(t); len(evs) != 0 {
		t.Fatalf("unexpected events %+v", evs)
	}
}

// Credit exhaustion (§8): with every destination page out and the driver
// not serving redirects, exactly C packets from the sender are redirected
// (its allotment of the system buffer), then the sender stalls; each
// REDIR_DONE returns credits and the rest follows; nothing overflows.
func TestCreditExhaustion(t *testing.T) { creditExhaustion(t, false) }

// The same, but the ACKs that carry the first released credits are lost:
// the sender, out of credit with nothing outstanding, probes (FlagProbe)
// until an ACK comes back.
func TestCreditLostACK(t *testing.T) { creditExhaustion(t, true) }

func creditExhaustion(t *testing.T, lostACK bool) {
	w := NewBackToBack(t, Build(t))
	n0, n1 := w.Nodes[0], w.Nodes[1]
	w.OpenEP(n0, 0, asid)
	w.OpenEP(n1, 0, asid)
	const pages = 20
	src := make([]uint64, pages)
	for i := range pages {
		src[i] = w.Map(n0, asid, srcVA+uint32(i)*abi.PageSize, abi.SPTV|abi.SPTW)
		copy(n0.HostBytes(src[i], abi.PageSize), pattern(abi.PageSize, byte(i)))
	}
	w.MustKernel(n1, abi.KOpExport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KExpKey, regionKey),
		abi.Field32(abi.KExpBase, dstVA), abi.Field32(abi.KExpLen, pages*abi.PageSize), abi.Field32(abi.KExpKind, abi.ExpKindRegion|abi.ExpPermW))
	w.MustKernel(n0, abi.KOpImport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KImpIndex, impRegion), abi.Field32(abi.KImpNode, 1),
		abi.Field32(abi.KImpEp, 0), abi.Field32(abi.KImpKey, regionKey), abi.Field32(abi.KImpLen, pages*abi.PageSize), abi.Field32(abi.KImpKind, abi.ExpKindRegion))
	slot, tk := n0.Write(0, srcVA, pages*abi.PageSize, 0, impRegion, abi.NoCounter)
	w.W.Run(w.Now() + 2*sim.Millisecond)
	evs := n1.Events(t)
	if len(evs) != abi.DefaultCredits {
		t.Fatalf("%d redirects while nobody serves them, want C = %d", len(evs), abi.DefaultCredits)
	}
	if n0.Stat(abi.StatCreditStall) == 0 || n1.Stat(abi.StatRxData) != abi.DefaultCredits {
		t.Fatalf("stalls %d, received %d", n0.Stat(abi.StatCreditStall), n1.Stat(abi.StatRxData))
	}
	pages1 := map[uint32]uint64{}
	got := 0
	lose := lostACK
	for got < pages {
		if lose { // the ACKs that return the first credits are lost
			if err := w.Fabric.SetFaults(fabric.Faults{DropPPM: 1_000_000}); err != nil {
				t.Fatal(err)
			}
		}
		for _, ev := range evs {
			va, s := ev.A[2], ev.A[0]>>16
			if s >= abi.DefaultCredits { // node 0's slots: 0*C .. C-1
				t.Fatalf("slot %d outside node 0's allotment", s)
			}
			if pages1[va] == 0 {
				pages1[va] = n1.AllocPage()
			}
			copy(n1.HostBytes(pages1[va], abi.PageSize), n1.HostBytes(HostBase+SysBuf+uint64(s)*abi.SysBufSlot, abi.PageSize))
			redirDone(w, n1, uint16(s))
			got++
		}
		if lose {
			w.W.Run(w.Now() + 100*sim.Microsecond)
			if err := w.Fabric.SetFaults(fabric.Faults{}); err != nil {
				t.Fatal(err)
			}
			lose = false
		}
		if got < pages {
			evs = w.RunEvents(n1, sim.Millisecond)
		}
	}
	w.RunUntil("completion", sim.Microsecond, sim.Millisecond, func() bool { _, g := n0.Comp(0, slot); return g == tk })
	if lostACK && n1.Stat(abi.StatAck) < 2 {
		t.Fatal("no ACK answered a probe")
	}
	for i := range pages {
		if !bytes.Equal(n1.HostBytes(pages1[dstVA+uint32(i)*abi.PageSize], abi.PageSize), pattern(abi.PageSize, byte(i))) {
			t.Fatalf("page %d differs", i)
		}
	}
}
