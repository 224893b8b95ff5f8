package bench

import (
	"encoding/binary"
	"fmt"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/sim"
)

// designs are E6's: NetVM's redirect, and NIC page faults (as InfiniBand
// ODP) with drop and retry (RNR NACK) or with a backup ring (no credits).
var designs = []struct {
	name string
	mode uint32
}{{"NetVM redirect", abi.ModeNetVM}, {"NPF drop and retry", abi.ModeNPF}, {"NPF backup ring", abi.ModeBackup}}

// npfWrites is the number of single WRITEs E6 averages per design and
// page state; npfBurst the WRITEs of its burst.
const (
	npfWrites = 8
	npfBurst  = 64
)

// redirection is E6: WRITEs to destination pages that are not resident,
// NetVM's redirect (the payload goes into a system-buffer slot, the host
// faults the page in and copies it) against NIC page faults with drop
// and retry (an RNR NACK; the host faults the page in; the sender
// retries after the RNR delay) and with a backup ring (redirect without
// credits). First one 4 KiB WRITE at a time, to a page never touched (a
// zero-fill fault) and to a page swapped out (a page-in from disk): the
// latency from the post to the counter, and the bytes the host copied.
// Then a burst of 64 WRITEs to 64 untouched pages: the time to the last
// counter, the system buffer's peak occupancy, and the packets the
// receiver dropped because a sender's slots were full — never with
// credits.
func (r *runner) redirection() error {
	lat := map[string][]float64{}
	for _, state := range []string{"untouched", "swapped"} {
		for _, d := range designs {
			o, err := npfRun(r.c, d.mode, state, npfWrites, false)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", d.name, state, err)
			}
			r.bar.step(d.name + ", " + state)
			id := map[uint32]string{abi.ModeNetVM: "netvm", abi.ModeNPF: "npf_drop", abi.ModeBackup: "npf_ring"}[d.mode]
			r.figure(Figure{ID: fmt.Sprintf("E6.%s_%s_us", id, state), NoPaper: true, Measured: o.meanUs, Unit: "us"})
			if state == "untouched" {
				r.figure(Figure{ID: fmt.Sprintf("E6.%s_copied_bytes_per_write", id), NoPaper: true, Measured: o.copied / npfWrites, Unit: "B"})
			}
			lat[state] = append(lat[state], o.meanUs)
		}
	}
	occ, drops := Series{Name: "peak system-buffer slots"}, Series{Name: "packets dropped"}
	for i, d := range designs {
		o, err := npfRun(r.c, d.mode, "untouched", npfBurst, true)
		if err != nil {
			return fmt.Errorf("%s, burst: %w", d.name, err)
		}
		r.bar.step(d.name + ", burst")
		id := map[uint32]string{abi.ModeNetVM: "netvm", abi.ModeNPF: "npf_drop", abi.ModeBackup: "npf_ring"}[d.mode]
		r.figure(Figure{ID: "E6.burst_" + id + "_us", NoPaper: true, Measured: o.totalUs, Unit: "us"})
		r.figure(Figure{ID: "E6.burst_" + id + "_dropped", NoPaper: true, Measured: float64(o.ringFull + o.recvFault), Unit: "packets"})
		if d.mode == abi.ModeNetVM {
			r.figure(Figure{ID: "E6.burst_netvm_ring_full", Paper: 0, Bound: "=", Measured: float64(o.ringFull), Unit: "packets"})
			r.figure(Figure{ID: "E6.burst_netvm_peak_slots", NoPaper: true, Measured: float64(o.peakSlots), Unit: "slots"})
		}
		x := float64(i)
		occ.X, occ.Y = append(occ.X, x), append(occ.Y, float64(o.peakSlots))
		drops.X, drops.Y = append(drops.X, x), append(drops.Y, float64(o.ringFull+o.recvFault))
	}
	cats := []string{designs[0].name, designs[1].name, designs[2].name}
	r.curve(Curve{ID: "e6-latency", Title: "E6: a WRITE to a non-resident page", Bars: true, Cats: cats,
		XLabel: "design", YLabel: "post to counter (us)",
		Series: []Series{{Name: "page never touched", X: []float64{0, 1, 2}, Y: lat["untouched"]},
			{Name: "page swapped out", X: []float64{0, 1, 2}, Y: lat["swapped"]}}})
	r.curve(Curve{ID: "e6-burst", Title: fmt.Sprintf("E6: a burst of %d WRITEs to untouched pages", npfBurst), Bars: true, Cats: cats,
		XLabel: "design", YLabel: "slots, packets", Series: []Series{occ, drops}})
	return nil
}

// npfResult is what one E6 run measured.
type npfResult struct {
	meanUs, totalUs     float64 // mean post-to-counter latency; first post to last counter
	copied              float64 // bytes the receiving host copied out of the system buffer
	peakSlots           int     // the most system-buffer slots busy at once
	ringFull, recvFault int     // packets dropped: slots full (ModeBackup), RNR (ModeNPF)
	retx                int     // the sender's retransmissions
}

// npfRun writes n 4 KiB WRITEs with a counter into n distinct pages of
// node 1 that are not resident (untouched: never touched; swapped: written
// and then evicted), one at a time (each waits for its counter) or as a
// burst, in translation mode mode.
func npfRun(c Config, mode uint32, state string, n int, burst bool) (npfResult, error) {
	var o npfResult
	size := uint32(n) * freebsd.PageSize
	p, err := openPair(c, mode, faultsNone, size, false)
	if err != nil {
		return o, err
	}
	defer p.c.Shutdown()
	cl := p.c
	// newPair made the region resident: replace node 1's pages.
	if err := runOn(cl, 1, func(t *freebsd.Thread) error {
		for i := range uint32(n) {
			va := p.buf[1] + i*freebsd.PageSize
			if !p.proc[1].Evict(t, va) {
				return fmt.Errorf("page %d of the region could not be evicted", i)
			}
		}
		return nil
	}); err != nil {
		return o, err
	}
	if state == "untouched" { // a fresh region that was never touched
		var key uint32
		if err := runOn(cl, 1, func(t *freebsd.Thread) error {
			va, err := p.proc[1].Mmap(t, size, freebsd.ProtRW)
			if err != nil {
				return err
			}
			p.buf[1] = va
			key, err = p.ep[1].Export(t, va, size, true)
			return err
		}); err != nil {
			return o, err
		}
		if err := runOn(cl, 0, func(t *freebsd.Thread) error {
			var err error
			p.imp[0], err = p.ep[0].Import(t, 1, p.ep[1].Index, key, size, abi.ExpKindRegion)
			return err
		}); err != nil {
			return o, err
		}
	}
	posted := make([]sim.Time, n)
	var lat sim.Time
	var t0, tEnd sim.Time
	cl.Nodes[0].Kernel.Go("writer", func(t *freebsd.Thread) {
		t0 = t.Now()
		for i := range n {
			page := make([]byte, freebsd.PageSize)
			binary.BigEndian.PutUint32(page, uint32(i+1))
			src := p.src[0] + uint32(i)*freebsd.PageSize
			p.proc[0].Write(t, src, page)
			posted[i] = t.Now()
			p.ep[0].Write(t, src, p.imp[0], uint32(i)*freebsd.PageSize, freebsd.PageSize, p.ctr[0])
			if !burst {
				p.ep[0].WaitBusy(t, 0, uint64(i+1)) // the receiver's echo
			}
		}
	})
	err = runOn(cl, 1, func(t *freebsd.Thread) error {
		for i := range n {
			p.ep[1].WaitBusy(t, 0, uint64(i+1))
			lat += t.Now() - posted[i]
			if !burst {
				p.ep[1].Write(t, 0, p.imp[1], 0, 0, p.ctr[1])
			}
		}
		tEnd = t.Now()
		// Every WRITE's data is there.
		b := make([]byte, 4)
		for i := range uint32(n) {
			if err := p.proc[1].Read(t, p.buf[1]+i*freebsd.PageSize, b); err != nil {
				return err
			}
			if got := binary.BigEndian.Uint32(b); got != i+1 {
				return fmt.Errorf("page %d holds WRITE %d", i, got)
			}
		}
		return nil
	})
	if err != nil {
		return o, err
	}
	stat := func(node int, off uint32) int { return cl.Nodes[node].Stat(off) }
	ds := cl.Nodes[1].Driver.Stats()
	o.meanUs = float64(lat) / float64(sim.Microsecond) / float64(n)
	o.totalUs = float64(tEnd-t0) / float64(sim.Microsecond)
	o.copied = float64(ds.RedirectedBytes)
	o.peakSlots = ds.MaxSlotsBusy
	o.ringFull, o.recvFault = stat(1, abi.StatRingFull), stat(1, abi.StatRecvFault)
	o.retx = stat(0, abi.StatRetx)
	return o, nil
}
