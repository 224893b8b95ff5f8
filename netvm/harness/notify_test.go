package harness

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"lanaiemu/fabric"
	"lanaiemu/netvm/abi"
	"lanaiemu/sim"
)

// Block wait (§9): CTR_ARM with CtrModeOnce raises one EvCtrWake (with an
// interrupt) when the counter reaches the target, then disarms; armed on
// a target already reached, it fires at once. Handler mode (CtrModeEvery)
// fires on every increment until disarmed.
func TestCounterArm(t *testing.T) {
	w, src, _ := setup(t)
	n0, n1 := w.Nodes[0], w.Nodes[1]
	copy(n0.HostBytes(src[0], 8), pattern(8, 1))
	notify := func(want uint64) {
		t.Helper()
		n0.Write(0, srcVA, 4, 0, impRegion, impCtr)
		w.RunUntil("counter", 100*sim.Nanosecond, sim.Millisecond, func() bool { return n1.Counter(0, ctrID) == want })
		w.W.Run(w.Now() + 5*sim.Microsecond)
	}
	arm := func(target, mode uint32) {
		w.MustKernel(n1, abi.KOpCtrArm, Field{abi.KEp, 4, 0}, Field{abi.KCtr, 4, ctrID}, Field{abi.KCtrTarget, 4, target}, Field{abi.KCtrMode, 4, mode})
	}
	wake := func(v uint32, mode uint32) Event {
		return Event{Type: abi.EvCtrWake, Flags: abi.EvFlagIRQ, A: [6]uint32{ctrID, 0, v, mode}}
	}
	check := func(what string, want ...Event) {
		t.Helper()
		evs := n1.Events(t)
		for i := range evs {
			evs[i].Seq = 0
		}
		if d := cmp.Diff(want, evs, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("%s: events (-want +got):\n%s", what, d)
		}
	}
	arm(2, abi.CtrModeOnce)
	notify(1)
	check("below the target")
	notify(2)
	check("at the target", wake(2, abi.CtrModeOnce))
	notify(3)
	check("disarmed after firing")
	arm(3, abi.CtrModeOnce)
	check("armed on a value already reached", wake(3, abi.CtrModeOnce))
	arm(0, abi.CtrModeEvery)
	notify(4)
	notify(5)
	check("handler mode", wake(4, abi.CtrModeEvery), wake(5, abi.CtrModeEvery))
	arm(0, abi.CtrModeOff)
	notify(6)
	check("disarmed")
}

// A peer that never answers (every packet to it lost): the sender
// retransmits RetxMax times, 1 ms apart, then declares it unreachable:
// the WRITE that had completed locally gets an error record with
// StatusTimeout, later WRITEs to it complete with StatusTimeout, and the
// firmware goes on serving everything else.
func TestPeerUnreachable(t *testing.T) {
	w, src, _ := setup(t)
	n0 := w.Nodes[0]
	if err := w.Fabric.SetFaults(fabric.Faults{DropPPM: 1_000_000}); err != nil {
		t.Fatal(err)
	}
	copy(n0.HostBytes(src[0], 64), pattern(64, 2))
	t0 := w.Now()
	slot, tk := n0.Write(0, srcVA, 64, 0, impRegion, impCtr)
	w.RunUntil("local completion", 100*sim.Nanosecond, sim.Millisecond, func() bool { _, g := n0.Comp(0, slot); return g == tk })
	evs := w.RunEvents(n0, 50*sim.Millisecond)
	dead := w.Now() - t0
	want := Event{Type: abi.EvEpError, Flags: abi.EvFlagIRQ, A: [6]uint32{tk, abi.StatusTimeout, 1}, Seq: 1}
	if d := cmp.Diff([]Event{want}, evs); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	if n0.Stat(abi.StatRetx) != abi.RetxMax || n0.Stat(abi.StatPeerDead) != 1 {
		t.Fatalf("retransmissions %d (want %d), dead peers %d", n0.Stat(abi.StatRetx), abi.RetxMax, n0.Stat(abi.StatPeerDead))
	}
	lo, hi := sim.Time(abi.RetxMax)*sim.Millisecond, sim.Time(abi.RetxMax+2)*sim.Millisecond
	if dead < lo || dead > hi {
		t.Fatalf("declared unreachable after %v, want %v..%v", dead, lo, hi)
	}
	slot, tk = n0.Write(0, srcVA, 64, 0, impRegion, abi.NoCounter)
	w.RunUntil("completion", 100*sim.Nanosecond, sim.Millisecond, func() bool { _, g := n0.Comp(0, slot); return g == tk })
	if st, _ := n0.Comp(0, slot); st != abi.StatusTimeout {
		t.Fatalf("status %d, want Timeout", st)
	}
	// Still serving the kernel ring.
	w.MustKernel(n0, abi.KOpCtrArm, Field{abi.KEp, 4, 0}, Field{abi.KCtr, 4, 1})
	t.Logf("peer declared unreachable %v after the write", dead)
}

// Static pinning mode (GlobMode = ModeStatic): the same traffic arrives,
// and the firmware never writes L (no lock handshake).
func TestStaticMode(t *testing.T) {
	sawL := false
	var w *World
	var e uint32
	w = NewWorld(t, Build(t), Options{Mode: abi.ModeStatic})
	n0, n1 := w.Nodes[0], w.Nodes[1]
	w.OpenEP(n0, 0, asid)
	w.OpenEP(n1, 0, asid)
	sp := w.Map(n0, asid, srcVA, abi.SPTV|abi.SPTW)
	dp := w.Map(n1, asid, dstVA, abi.SPTV|abi.SPTW)
	e = sptEntry(t, n1, dstVA)
	w.MustKernel(n1, abi.KOpExport, Field{abi.KEp, 4, 0}, Field{abi.KExpKey, 4, regionKey},
		Field{abi.KExpBase, 4, dstVA}, Field{abi.KExpLen, 4, abi.PageSize}, Field{abi.KExpKind, 4, abi.ExpKindRegion | abi.ExpPermW})
	w.MustKernel(n0, abi.KOpImport, Field{abi.KEp, 4, 0}, Field{abi.KImpIndex, 4, impRegion}, Field{abi.KImpNode, 4, 1},
		Field{abi.KImpEp, 4, 0}, Field{abi.KImpKey, 4, regionKey}, Field{abi.KImpLen, 4, abi.PageSize}, Field{abi.KImpKind, 4, abi.ExpKindRegion})
	msg := pattern(abi.PageSize, 0x99)
	copy(n0.HostBytes(sp, abi.PageSize), msg)
	n0.Write(0, srcVA, abi.PageSize, 0, impRegion, abi.NoCounter)
	w.RunUntil("data", 5*sim.Nanosecond, sim.Millisecond, func() bool {
		sawL = sawL || n1.SRAMWord(e+abi.SPTNIC)&abi.SPTL != 0
		return bytes.Equal(n1.HostBytes(dp, abi.PageSize), msg)
	})
	if sawL {
		t.Fatal("static mode set L")
	}
}
