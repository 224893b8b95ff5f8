package netvm_test

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"testing"

	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/netvm/abi"
	"lanaiemu/sim"
)

// The full acceptance runs of docs/netvm.md ("Measured") are one flag
// away; the default counts keep `go test ./...` short.
var (
	stressWrites = flag.Int("netvm.writes", 0, "WRITEs per direction in the stress tests; TestStressFaults sends both ways at once, twice this many in all (0: the short defaults)")
	stressSeeds  = flag.Int("netvm.seeds", 0, "number of fault seeds in TestStressFaults (0: the short default)")
)

// stressConfig is one stress run: random WRITEs between two boards, with
// a scripted driver that services redirects and source faults and evicts
// pages (the §4.3 handshake) while the traffic runs.
type stressConfig struct {
	seed        uint64
	writes      int           // WRITEs per flow (direction)
	batch       int           // WRITEs posted per flow before waiting for all of them
	nonResident int           // percent of region pages not resident at the start
	evictPPM    uint32        // per driver pass (1 us) and flow: evict one resident region page
	srcEvictPPM uint32        // the same for the sender's source pages
	faults      fabric.Faults // fabric faults (drops, CRC corruption, reordering)
	both        bool          // a flow in each direction at once
	seqInit     uint32        // GlobSeqInit
}

// stressResult is what a run measured; writes counts every flow's.
type stressResult struct {
	flows, writesPerFlow                            int
	writes, packets, notifications                  int
	bytes                                           uint64
	redirected, srcFaults, evictions, lockWaits     int
	retx, dups, crc, malformed, stalls, pageIns, ev int
	elapsed                                         sim.Time
}

const (
	sCounters = 4 // counters per receiving endpoint, ids sCtrBase..
	sCtrBase  = 4
)

func sCtrKey(i int) uint32 { return uint32(4+i)<<8 | uint32(10+i) }
func sImpCtr(i int) uint16 { return uint16(rImpCtr + i) }

// vpage is a virtual page of the scripted host: resident at pa, or its
// contents in swap.
type vpage struct {
	pa       uint64
	resident bool
	swap     []byte
}

// stressNode is one node's scripted host (driver and VM).
type stressNode struct {
	n        *ScriptedNode
	region   [rPages]*vpage // the exported region's pages (receiver)
	src      [rPages]*vpage // the source buffer's pages (sender)
	slotBusy []bool         // system-buffer slots the driver has not released
	freed    map[uint64]bool
	dma      [4]struct{ lo, hi uint64 } // the host range of each channel's current block
	in       *flow                      // the flow into this node
}

// flow is the WRITE traffic from one node to the other.
type flow struct {
	s, r  *stressNode
	model []byte // the region's expected contents (rPages pages)
	src   []byte // the source buffer's contents (constant)
	ctr   [sCounters]uint64
	wakes []wake // expected EvCtrWake order in this batch
	seen  int    // wakes observed
	batch []postedWrite
}

type wake struct {
	ctr   int
	value uint64
	upto  int // index in the batch of the notifying write
}

type postedWrite struct {
	slot         int
	ticket       uint32
	so, do, size uint32
}

// stress runs c and fails t on any violation.
func stress(t *testing.T, c stressConfig) stressResult {
	t.Helper()
	var violations []string
	violate := func(f string, a ...any) {
		if len(violations) < 20 {
			violations = append(violations, fmt.Sprintf(f, a...))
		}
	}
	hosts := make([]*stressNode, 2)
	trace := func(id int, e board.Event) {
		h := hosts[id]
		if h == nil || e.Channel < 0 {
			return
		}
		switch e.Kind {
		case board.EvDMAFetch:
			d := e.Desc &^ 3
			lo := uint64(h.n.SRAMWord(d + 20))
			h.dma[e.Channel] = struct{ lo, hi uint64 }{lo, lo + uint64(h.n.SRAMWord(d+8))}
			fallthrough
		case board.EvDMADone:
			r := h.dma[e.Channel]
			for p := r.lo &^ (abi.PageSize - 1); p < r.hi; p += abi.PageSize {
				if h.freed[p] {
					violate("node %d: DMA channel %d touches page %#x, which the host unlocked and freed (cycle %d)", id, e.Channel, p, e.Cycle)
				}
			}
		}
	}
	w := NewWorld(t, Build(t), Options{Trace: trace, Seed: c.seed, SeqInit: c.seqInit})
	if err := w.Fabric.SetFaults(c.faults); err != nil {
		t.Fatal(err)
	}
	r := sim.NewRand(c.seed)
	fill := func(b []byte) {
		for i := range b {
			b[i] = byte(r.Uint64())
		}
	}
	for i, n := range w.Nodes {
		hosts[i] = &stressNode{n: n, freed: map[uint64]bool{}, slotBusy: make([]bool, 2*abi.DefaultCredits)}
		w.OpenEP(n, 0, asid)
	}
	var flows []*flow
	for i := range 2 {
		if i == 1 && !c.both {
			break
		}
		fl := &flow{s: hosts[i], r: hosts[1-i], model: make([]byte, rPages*abi.PageSize), src: make([]byte, rPages*abi.PageSize)}
		fill(fl.model)
		fill(fl.src)
		fl.r.in = fl
		s, rn := fl.s.n, fl.r.n
		for p := range rPages {
			va := uint32(p) * abi.PageSize
			fl.s.src[p] = &vpage{pa: w.Map(s, asid, rSrcVA+va, abi.SPTV|abi.SPTW), resident: true}
			copy(s.HostBytes(fl.s.src[p].pa, abi.PageSize), fl.src[va:])
			vp := &vpage{}
			if r.Intn(100) < c.nonResident {
				vp.swap = append([]byte(nil), fl.model[va:va+abi.PageSize]...)
			} else {
				vp.pa, vp.resident = w.Map(rn, asid, rDstVA+va, abi.SPTV|abi.SPTW), true
				copy(rn.HostBytes(vp.pa, abi.PageSize), fl.model[va:])
			}
			fl.r.region[p] = vp
		}
		w.MustKernel(rn, abi.KOpExport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KExpKey, rRegionKey),
			abi.Field32(abi.KExpBase, rDstVA), abi.Field32(abi.KExpLen, rRegionLen), abi.Field32(abi.KExpKind, abi.ExpKindRegion|abi.ExpPermW))
		w.MustKernel(s, abi.KOpImport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KImpIndex, rImpRegion), abi.Field32(abi.KImpNode, uint32(rn.ID)),
			abi.Field32(abi.KImpEp, 0), abi.Field32(abi.KImpKey, rRegionKey), abi.Field32(abi.KImpLen, rRegionLen), abi.Field32(abi.KImpKind, abi.ExpKindRegion))
		for k := range sCounters {
			w.MustKernel(rn, abi.KOpExport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KExpKey, sCtrKey(k)),
				abi.Field32(abi.KExpBase, uint32(sCtrBase+k)), abi.Field32(abi.KExpKind, abi.ExpKindCounter))
			w.MustKernel(s, abi.KOpImport, abi.Field32(abi.KEp, 0), abi.Field32(abi.KImpIndex, uint32(sImpCtr(k))), abi.Field32(abi.KImpNode, uint32(rn.ID)),
				abi.Field32(abi.KImpEp, 0), abi.Field32(abi.KImpKey, sCtrKey(k)), abi.Field32(abi.KImpKind, abi.ExpKindCounter))
			// Handler mode: an EvCtrWake on every increment shows the order.
			w.MustKernel(rn, abi.KOpCtrArm, abi.Field32(abi.KEp, 0), abi.Field32(abi.KCtr, uint32(sCtrBase+k)), abi.Field32(abi.KCtrMode, abi.CtrModeEvery))
		}
		flows = append(flows, fl)
	}
	res := stressResult{flows: len(flows), writesPerFlow: c.writes}

	// The VM side: page a page in, evict one (§4.3 OS side).
	pageIn := func(h *stressNode, va uint32, vp *vpage) {
		vp.pa = h.n.AllocPage()
		delete(h.freed, vp.pa)
		copy(h.n.HostBytes(vp.pa, abi.PageSize), vp.swap)
		vp.swap, vp.resident = nil, true
		w.MapAt(h.n, asid, va, vp.pa, abi.SPTV|abi.SPTW)
		res.pageIns++
	}
	evict := func(h *stressNode, va uint32, vp *vpage) {
		n := h.n
		idx := n.SPTIndex(asid, va)
		if idx < 0 {
			violate("node %d: no SPT entry for resident page %#x", n.ID, va)
			return
		}
		e := abi.SPTBase + uint32(idx)*abi.SPTEntrySize
		n.PIO(e+abi.SPTFlagsByte, []byte{abi.SPTV | abi.SPTW | abi.SPTP}) // step 1
		for waited := sim.Time(0); n.SRAMWord(e+abi.SPTNIC)&abi.SPTL != 0; waited += 50 * sim.Nanosecond {
			if waited == 0 {
				res.lockWaits++
			}
			if waited > sim.Millisecond {
				violate("node %d: L held for over 1 ms on page %#x", n.ID, va)
				return
			}
			if err := w.W.Run(w.Now() + 50*sim.Nanosecond); err != nil { // step 3: spin
				t.Fatal(err)
			}
		}
		vp.swap = append([]byte(nil), n.HostBytes(vp.pa, abi.PageSize)...) // unlocked: take it
		h.freed[vp.pa] = true
		n.FreePage(vp.pa)
		vp.resident = false
		n.PIO(e+abi.SPTFlagsByte, []byte{0}) // step 4
		if st := w.KernelSync(n, abi.KOpSPTUnmap, abi.Field32(abi.KSPTIndex, uint32(idx))); st != abi.StatusOK {
			violate("node %d: SPT_UNMAP of %#x: status %d", n.ID, va, st)
		}
		res.evictions++
	}
	// actual reads the region as the application sees it.
	actual := func(h *stressNode, off, l uint32) []byte {
		out := make([]byte, 0, l)
		for l > 0 {
			p, po := off/abi.PageSize, off%abi.PageSize
			k := min(l, abi.PageSize-po)
			if vp := h.region[p]; vp.resident {
				out = append(out, h.n.HostBytes(vp.pa+uint64(po), int(k))...)
			} else {
				out = append(out, vp.swap[po:po+k]...)
			}
			off, l = off+k, l-k
		}
		return out
	}
	// The driver: one pass over both nodes' events, then evictions.
	driver := func() {
		for _, h := range hosts {
			n := h.n
			var done []uint16
			for _, e := range n.Events(t) {
				res.ev++
				switch e.Type {
				case abi.EvRedirect:
					res.redirected++
					slot, from := int(e.A[0]>>16), int(e.A[0]&0xFFFF)
					if from != 1-n.ID || slot < from*abi.DefaultCredits || slot >= (from+1)*abi.DefaultCredits || h.slotBusy[slot] {
						violate("node %d: redirect into slot %d from node %d: outside the sender's allotment or busy (the system buffer would overflow)", n.ID, slot, from)
						continue
					}
					h.slotBusy[slot] = true
					va, l := e.A[2], e.A[3]
					p := (va - rDstVA) / abi.PageSize
					if e.A[1] != asid || va < rDstVA || p >= rPages || va%abi.PageSize+l > abi.PageSize {
						violate("node %d: redirect %+v outside the region", n.ID, e)
						continue
					}
					vp := h.region[p]
					if !vp.resident {
						pageIn(h, rDstVA+p*abi.PageSize, vp)
					}
					copy(n.HostBytes(vp.pa+uint64(va%abi.PageSize), int(l)), n.HostBytes(HostBase+SysBuf+uint64(slot)*abi.SysBufSlot, int(l)))
					done = append(done, uint16(slot))
				case abi.EvSrcFault:
					res.srcFaults++
					va := e.A[2]
					p := (va - rSrcVA) / abi.PageSize
					if va < rSrcVA || p >= rPages || h.src[p].resident {
						violate("node %d: source fault %+v on a resident or foreign page", n.ID, e)
						continue
					}
					pageIn(h, va, h.src[p])
					w.MustKernel(n, abi.KOpSrcFaultDone, abi.Field32(abi.KEp, 0), abi.Field32(abi.KFaultStatus, abi.StatusOK))
				case abi.EvCtrWake:
					fl := h.in
					id, v := int(e.A[0]), uint64(e.A[1])<<32|uint64(e.A[2])
					if fl == nil || fl.seen >= len(fl.wakes) {
						violate("node %d: unexpected %+v", n.ID, e)
						continue
					}
					want := fl.wakes[fl.seen]
					if id != sCtrBase+want.ctr || v != want.value {
						violate("node %d: notification %d is counter %d = %d, want counter %d = %d (issue order)", n.ID, fl.seen, id, v, sCtrBase+want.ctr, want.value)
					}
					for i := 0; i <= want.upto; i++ { // the covering rule (§9)
						pw := fl.batch[i]
						if !bytes.Equal(actual(h, pw.do, pw.size), fl.src[pw.so:pw.so+pw.size]) {
							violate("node %d: counter %d = %d seen before write %d of the batch is in memory", n.ID, id, v, i)
						}
					}
					fl.seen++
				default:
					violate("node %d: unexpected event %+v", n.ID, e)
				}
			}
			for len(done) > 0 { // REDIR_DONE, up to KRedirMax slots each
				k := min(len(done), abi.KRedirMax)
				fields := []abi.Field{abi.Field32(abi.KRedirCount, uint32(k))}
				for i, s := range done[:k] {
					fields = append(fields, abi.Field16(abi.KRedirSlots+uint32(2*i), uint32(s)))
					h.slotBusy[s] = false
				}
				w.MustKernel(n, abi.KOpRedirDone, fields...)
				done = done[k:]
			}
		}
		for _, fl := range flows {
			if c.evictPPM > 0 && r.Chance(c.evictPPM) {
				p := r.Intn(rPages)
				if vp := fl.r.region[p]; vp.resident {
					evict(fl.r, rDstVA+uint32(p)*abi.PageSize, vp)
				}
			}
			if c.srcEvictPPM > 0 && r.Chance(c.srcEvictPPM) {
				p := r.Intn(rPages)
				if vp := fl.s.src[p]; vp.resident {
					evict(fl.s, rSrcVA+uint32(p)*abi.PageSize, vp)
				}
			}
		}
	}

	t0 := w.Now()
	for done := 0; done < c.writes && len(violations) == 0; {
		k := min(c.batch, c.writes-done)
		for _, fl := range flows {
			fl.batch, fl.wakes, fl.seen = fl.batch[:0], fl.wakes[:0], 0
			type span struct{ lo, hi uint32 }
			var used []span
			for i := range k {
				size := randomSize(r)
				var do uint32
				for try := 0; ; try++ {
					do = randomOff(r, rDstVA, rRegionLen-size)
					free := true
					for _, u := range used {
						if do < u.hi && u.lo < do+size {
							free = false
						}
					}
					if free {
						break
					}
					if try > 20 { // a zero-length WRITE overlaps nothing
						size, do = 0, 0
						break
					}
				}
				used = append(used, span{do, do + size})
				so := randomOff(r, rSrcVA, rPages*abi.PageSize-size)
				ci := uint16(abi.NoCounter)
				if i == k-1 || r.Intn(4) == 0 { // the last one covers the batch
					ctr := r.Intn(sCounters)
					ci = sImpCtr(ctr)
					fl.ctr[ctr]++
					fl.wakes = append(fl.wakes, wake{ctr, fl.ctr[ctr], i})
					res.notifications++
				}
				slot, tk := fl.s.n.Write(0, rSrcVA+so, size, do, rImpRegion, ci)
				fl.batch = append(fl.batch, postedWrite{slot, tk, so, do, size})
				copy(fl.model[do:], fl.src[so:so+size])
				res.packets += packets(rSrcVA+so, rDstVA+do, size)
				res.bytes += uint64(size)
				res.writes++
			}
		}
		what := fmt.Sprintf("seed %#x writes %d..%d", c.seed, done, done+k-1)
		w.RunUntil(what, sim.Microsecond, 2*sim.Second, func() bool {
			driver()
			if len(violations) > 0 {
				return true
			}
			for _, fl := range flows {
				if fl.seen < len(fl.wakes) {
					return false
				}
				for _, pw := range fl.batch {
					if _, tk := fl.s.n.Comp(0, pw.slot); tk != pw.ticket {
						return false
					}
				}
			}
			return true
		})
		for _, fl := range flows {
			for i, pw := range fl.batch {
				if st, _ := fl.s.n.Comp(0, pw.slot); st != abi.StatusOK {
					violate("%s: write %d %+v completed with status %d", what, i, pw, st)
				}
			}
			if got := actual(fl.r, 0, rPages*abi.PageSize); !bytes.Equal(got, fl.model) {
				for i := range got {
					if got[i] != fl.model[i] {
						violate("%s: node %d region byte %#x is %#x, want %#x (lost or stale bytes)", what, fl.r.n.ID, i, got[i], fl.model[i])
						break
					}
				}
			}
		}
		done += k
	}
	res.elapsed = w.Now() - t0
	for _, fl := range flows {
		for k := range sCounters {
			if got := fl.r.n.Counter(0, sCtrBase+k); got != fl.ctr[k] && len(violations) == 0 {
				violate("node %d: counter %d = %d, want %d", fl.r.n.ID, sCtrBase+k, got, fl.ctr[k])
			}
		}
	}
	for _, n := range w.Nodes {
		res.retx += int(n.Stat(abi.StatRetx))
		res.dups += int(n.Stat(abi.StatDup))
		res.crc += int(n.Stat(abi.StatCRC))
		res.malformed += int(n.Stat(abi.StatMalformed))
		res.stalls += int(n.Stat(abi.StatCreditStall))
		if n.Glob(abi.GlobStatus) != abi.FWRunning || n.Board.Fault() != nil {
			violate("node %d: status %d, fault %v", n.ID, n.Glob(abi.GlobStatus), n.Board.Fault())
		}
		if got := int(n.Stat(abi.StatRemoteErr) + n.Stat(abi.StatPeerDead)); got != 0 {
			violate("node %d: %d remote errors or dead peers", n.ID, got)
		}
	}
	if got, want := res.redirected, 0; got != int(w.Nodes[0].Stat(abi.StatRedirect)+w.Nodes[1].Stat(abi.StatRedirect))+want {
		violate("%d redirect events, but the firmware counted %d", got, w.Nodes[0].Stat(abi.StatRedirect)+w.Nodes[1].Stat(abi.StatRedirect))
	}
	for _, v := range violations {
		t.Error(v)
	}
	if len(violations) > 0 {
		t.FailNow()
	}
	return res
}

func (r stressResult) String() string {
	mbps := float64(r.bytes) / (float64(r.elapsed) / float64(sim.Second)) / 1e6
	return fmt.Sprintf("%d writes (%d per direction, %d %s), %d bytes, %d packets, %d notifications in %v (%.1f MB/s): %d redirected, %d page-ins, %d evictions, %d lock waits, %d source faults, %d retransmitted, %d duplicates, %d CRC, %d malformed, %d credit stalls, %d events",
		r.writes, r.writesPerFlow, r.flows, plural(r.flows, "direction"), r.bytes, r.packets, r.notifications, r.elapsed, mbps, r.redirected, r.pageIns, r.evictions, r.lockWaits, r.srcFaults, r.retx, r.dups, r.crc, r.malformed, r.stalls, r.ev)
}

// plural is noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

func writesOr(def int) int {
	if *stressWrites > 0 {
		return *stressWrites
	}
	if testing.Short() {
		return min(def, 50)
	}
	return def
}

// TestStressResidency: random WRITEs to a region whose pages are resident
// or not at random, with pages evicted under the traffic (the lock
// handshake) and source pages evicted too; every byte, every counter,
// every notification's order and its covering rule are checked, and
// every host DMA is checked against the pages the host has freed.
func TestStressResidency(t *testing.T) {
	res := stress(t, stressConfig{seed: 0xACCE97, writes: writesOr(400), batch: 12, nonResident: 50,
		evictPPM: 20_000, srcEvictPPM: 5_000})
	t.Log(res)
	if res.redirected == 0 || res.evictions == 0 || res.srcFaults == 0 {
		t.Fatalf("the run did not exercise the paths: %v", res)
	}
}

// TestStressFaults: the same under a fabric that reorders (detours),
// drops 1% and corrupts the CRC of 1% of the packets, with traffic in
// both directions, for fixed seeds.
func TestStressFaults(t *testing.T) {
	seeds := 3
	if *stressSeeds > 0 {
		seeds = *stressSeeds
	}
	if testing.Short() {
		seeds = 1
	}
	for i := range seeds {
		seed := uint64(0xFA17_0000 + i)
		t.Run(fmt.Sprintf("seed%d", i), func(t *testing.T) {
			res := stress(t, stressConfig{seed: seed, writes: writesOr(60), batch: 12, nonResident: 30, evictPPM: 10_000,
				both: true, seqInit: uint32(0xFFFF - 40*i), // sequence numbers wrap early in the run
				faults: fabric.Faults{DropPPM: 10_000, CorruptPPM: 10_000, DetourPPM: 20_000, DetourDelay: 30 * sim.Microsecond}})
			t.Log(res)
			if res.retx == 0 || res.crc == 0 {
				t.Fatalf("no retransmission or CRC error: %v", res)
			}
		})
	}
}

var _ = binary.BigEndian
