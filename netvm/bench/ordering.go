package bench

import (
	"encoding/binary"
	"fmt"
	"slices"

	"lanaiemu/fabric"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/sim"
)

// orderingFaults are E7's: 1 % of the packets dropped, 1 % corrupted, 2 %
// detoured by 30 µs (later packets overtake them) — the stress test's.
var orderingFaults = fabric.Faults{DropPPM: 10_000, CorruptPPM: 10_000, DetourPPM: 20_000, DetourDelay: 30 * sim.Microsecond}

// orderSlots is the number of 4 KiB slots E7's WRITEs cycle through.
const orderSlots = 16

// ordering is E7: WRITEs of 4 KiB with a counter, posted back to back
// into a ring of 16 slots, on a clean fabric and on one that drops,
// corrupts and reorders; the receiver follows the counter and, each time
// it moves, checks that every WRITE the counter covers is visible (a
// violation otherwise) and records each notification's latency (post to
// the counter seen).
func (r *runner) ordering() error {
	n := 2000
	if r.c.Quick {
		n = 500
	}
	var series []Series
	for _, run := range []struct {
		name   string
		faults fabric.Faults
	}{{"clean fabric", faultsNone}, {"1% drop, 1% corrupt, 2% reordered", orderingFaults}} {
		o, err := orderRun(r.c, run.faults, n)
		if err != nil {
			return err
		}
		lat, viol := o.lat, o.violations
		r.bar.step(run.name)
		slices.Sort(lat)
		pct := func(p float64) float64 { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
		tag := "clean"
		if run.faults != faultsNone {
			tag = "faults"
			r.figure(Figure{ID: "E7.violations", Paper: 0, Bound: "=", Measured: float64(viol), Unit: "count"})
		} else if viol != 0 {
			return fmt.Errorf("%d ordering violations on a clean fabric", viol)
		}
		r.figure(Figure{ID: "E7.notify_p50_" + tag + "_us", NoPaper: true, Measured: pct(0.5), Unit: "us"})
		r.figure(Figure{ID: "E7.notify_p99_" + tag + "_us", NoPaper: true, Measured: pct(0.99), Unit: "us"})
		s := Series{Name: run.name}
		step := max(1, len(lat)/200)
		for i := 0; i < len(lat); i += step {
			s.X, s.Y = append(s.X, lat[i]), append(s.Y, float64(i+1)/float64(len(lat)))
		}
		s.X, s.Y = append(s.X, lat[len(lat)-1]), append(s.Y, 1)
		series = append(series, s)
	}
	r.curve(Curve{ID: "e7-ordering", Title: "E7: notification latency, CDF",
		XLabel: "notification latency (us)", YLabel: "fraction of notifications", LogX: true, Series: series})
	return nil
}

// orderResult is what one E7 run saw.
type orderResult struct {
	lat        []float64 // each notification's latency, µs
	violations int       // times a WRITE the counter covered was not visible
	wawStalls  int       // the sender's StatWAWStall
	retx       int       // the sender's StatRetx
}

// orderRun posts n WRITEs and follows their notifications.
func orderRun(c Config, faults fabric.Faults, n int) (orderResult, error) {
	var o orderResult
	const size = orderSlots * freebsd.PageSize
	p, err := openPair(c, abi.ModeNetVM, faults, size, false)
	if err != nil {
		return o, err
	}
	defer p.c.Shutdown()
	cl := p.c
	posted := make([]sim.Time, n+1)
	cl.Nodes[0].Kernel.Go("writer", func(t *freebsd.Thread) {
		var tickets [orderSlots]uint32
		page := make([]byte, freebsd.PageSize)
		for i := 1; i <= n; i++ {
			s := (i - 1) % orderSlots
			if tk := tickets[s]; tk != 0 { // the slot's last WRITE must have read it
				for done, _ := p.ep[0].Test(tk); !done; done, _ = p.ep[0].Test(tk) {
					p.ep[0].Quiet(t)
				}
			}
			for j := range page {
				page[j] = byte(i)
			}
			binary.BigEndian.PutUint32(page, uint32(i))
			src := p.src[0] + uint32(s)*freebsd.PageSize
			p.proc[0].Write(t, src, page)
			tickets[s], _ = p.ep[0].Write(t, src, p.imp[0], uint32(s)*freebsd.PageSize, freebsd.PageSize, p.ctr[0])
			posted[i] = t.Now()
		}
	})
	mem := p.ep[1].Driver().Mem
	visible := func(s int) (uint32, bool) { // the WRITE index slot s holds, and whether it is whole
		m, _ := p.proc[1].Mapped(p.buf[1] + uint32(s)*freebsd.PageSize)
		if m == nil {
			return 0, false
		}
		b := make([]byte, freebsd.PageSize)
		if mem.Read(uint64(m.PFN)*freebsd.PageSize, b) != nil {
			return 0, false
		}
		idx := binary.BigEndian.Uint32(b)
		for _, x := range b[4:] {
			if x != byte(idx) {
				return idx, false
			}
		}
		return idx, true
	}
	err = runOn(cl, 1, func(t *freebsd.Thread) error {
		seen := 0
		for seen < n {
			p.ep[1].WaitBusy(t, 0, uint64(seen+1))
			now := int(min(p.ep[1].Counter(0), uint64(n)))
			for i := seen + 1; i <= now; i++ {
				o.lat = append(o.lat, float64(t.Now()-posted[i])/float64(sim.Microsecond))
			}
			seen = now
			for s := range orderSlots { // the latest covered WRITE of each slot, or a later one
				want := seen - (seen-1-s+orderSlots)%orderSlots
				if want < 1 {
					continue
				}
				if idx, whole := visible(s); int(idx) < want || !whole && int(idx) == want {
					o.violations++
				}
			}
		}
		return nil
	})
	o.wawStalls, o.retx = cl.Nodes[0].Stat(abi.StatWAWStall), cl.Nodes[0].Stat(abi.StatRetx)
	return o, err
}
