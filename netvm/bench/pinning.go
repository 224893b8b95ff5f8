package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// hitRates are E5's pin-down cache hit rates, in percent.
var hitRates = []float64{50, 75, 90, 94.5, 97, 98, 99, 99.5, 99.9}

// dynamic is E5: NetVM against dynamic pinning (a pin-down cache of K
// pages in the library, LRU; a miss pins the page by a system call and
// enters it into the NIC's table, evicting the least recently used page:
// U-Net/MM, UTLB, Tezuka; systems.md §2, §3, §5.3). The same sequence of
// 4 KiB WRITEs, from a pool of 4K source pages chosen so that the cache
// hits at the given rate, runs on both. A miss is a page the application
// has not used lately: it was unmapped and is mapped and filled again
// before the WRITE (mapping churn, in both designs), so NetVM's driver
// pays its SPT updates (SPT_UNMAP with the lock handshake, SPT_MAP) where
// dynamic pinning pays its pin. The cost per operation is the mean round
// trip (the WRITE with a counter, a notify-only reply) and the sender's
// host CPU time per WRITE. The thesis' claim is a bound: NetVM costs less
// than a pin-down cache that hits up to 94.5 % of the time; the figure is
// the hit rate up to which ours does.
func (r *runner) dynamic() error {
	ops := 1000
	if r.c.Quick {
		ops = 400
	}
	k := r.c.PinCache
	nv, dy := Series{Name: "NetVM"}, Series{Name: fmt.Sprintf("dynamic pinning (LRU cache of %d pages)", k)}
	nvCPU, dyCPU := Series{Name: "NetVM"}, Series{Name: "dynamic pinning"}
	for i, h := range hitRates {
		seq, miss, real := accessSequence(h, k, 4*k, ops, uint64(i+1))
		a, acpu, err := pinOps(r.c, abi.ModeNetVM, seq, miss, k)
		if err != nil {
			return err
		}
		r.bar.step(fmt.Sprintf("NetVM %.1f%%", h))
		b, bcpu, err := pinOps(r.c, abi.ModeDynamic, seq, miss, k)
		if err != nil {
			return err
		}
		r.bar.step(fmt.Sprintf("dynamic %.1f%%", h))
		nv.X, nv.Y = append(nv.X, real), append(nv.Y, a)
		dy.X, dy.Y = append(dy.X, real), append(dy.Y, b)
		nvCPU.X, nvCPU.Y = append(nvCPU.X, real), append(nvCPU.Y, acpu)
		dyCPU.X, dyCPU.Y = append(dyCPU.X, real), append(dyCPU.Y, bcpu)
	}
	cross := crossover(nv, dy)
	// The cost of a miss: the slope of each design's cost against the
	// miss rate, between the lowest and the highest hit rate.
	last := len(dy.X) - 1
	slope := func(s Series) float64 { return (s.Y[0] - s.Y[last]) / ((s.X[last] - s.X[0]) / 100) }
	r.figure(Figure{ID: "E5.netvm_cheaper_up_to_hit_pct", Paper: 94.5, Bound: ">", Measured: cross, Unit: "%"})
	r.figure(Figure{ID: "E5.miss_cost_us", NoPaper: true, Measured: slope(dy), Unit: "us"})
	r.figure(Figure{ID: "E5.netvm_miss_cost_us", NoPaper: true, Measured: slope(nv), Unit: "us"})
	r.figure(Figure{ID: "E5.netvm_over_all_hits_us", NoPaper: true, Measured: nv.Y[last] - dy.Y[last], Unit: "us"})
	r.figure(Figure{ID: "E5.host_cpu_per_op_at_94.5_us", NoPaper: true, Measured: nvCPU.Y[3], Unit: "us (NetVM)"})
	r.figure(Figure{ID: "E5.host_cpu_per_op_at_94.5_dyn_us", NoPaper: true, Measured: dyCPU.Y[3], Unit: "us (dynamic)"})
	r.curve(Curve{ID: "e5-hitrate", Title: "E5: NetVM and dynamic pinning (misses remap their page)",
		XLabel: "pin-down cache hit rate (%)", YLabel: "round trip per 4 KiB WRITE (us)", Series: []Series{nv, dy},
		Marks: []Mark{{Vertical: true, At: cross, Label: fmt.Sprintf("crossover %.1f %%", cross)},
			{Vertical: true, At: 94.5, Label: "thesis 94.5 %"}}})
	r.curve(Curve{ID: "e5-hostcpu", Title: "E5: sender's host CPU per WRITE",
		XLabel: "pin-down cache hit rate (%)", YLabel: "host CPU per WRITE (us)", Series: []Series{nvCPU, dyCPU},
		Marks: []Mark{{Vertical: true, At: 94.5, Label: "thesis 94.5 %"}}})
	return nil
}

// crossover is the hit rate up to which series a (NetVM) costs less than
// b (dynamic pinning): where b - a changes sign, interpolated linearly;
// 100 if a is never dearer, the lowest rate if it always is.
func crossover(a, b Series) float64 {
	prev := -1
	for i := range a.X {
		if b.Y[i] > a.Y[i] {
			prev = i
			continue
		}
		if prev < 0 {
			return a.X[0]
		}
		d0, d1 := b.Y[prev]-a.Y[prev], b.Y[i]-a.Y[i]
		return a.X[prev] + (a.X[i]-a.X[prev])*d0/(d0-d1)
	}
	return 100
}

// accessSequence returns k warm-up pages (0..k-1) and then ops page
// numbers from a pool of pool pages such that an LRU cache of k pages
// hits with probability hit %: a hit draws one of the k most recent
// pages, a miss the next page of the pool not among them. It also
// returns which accesses miss and the hit rate realised over the ops.
func accessSequence(hit float64, k, pool, ops int, seed uint64) ([]int, []bool, float64) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var lru []int // the k most recent pages, most recent first
	touch := func(p int) {
		if i := slices.Index(lru, p); i >= 0 {
			lru = slices.Delete(lru, i, i+1)
		}
		lru = slices.Insert(lru, 0, p)
		if len(lru) > k {
			lru = lru[:k]
		}
	}
	seq := make([]int, 0, k+ops)
	miss := make([]bool, k, k+ops)
	for p := range k {
		seq = append(seq, p)
		touch(p)
	}
	next, hits := k%pool, 0
	for range ops {
		var p int
		if rng.Float64()*100 < hit {
			p = lru[rng.IntN(len(lru))]
			hits++
		} else {
			for slices.Contains(lru, next) {
				next = (next + 1) % pool
			}
			p = next
		}
		seq = append(seq, p)
		miss = append(miss, !slices.Contains(lru, p))
		touch(p)
	}
	return seq, miss, 100 * float64(hits) / float64(ops)
}

// pinOps runs seq (k warm-up pages, then the measured ones) as 4 KiB
// WRITEs with a counter from node 0's page pool to node 1, each answered
// by a notify-only WRITE, in translation mode mode (ModeDynamic: through
// a pin-down cache of k pages). Before a measured access that misses, the
// page is unmapped, mapped again and filled (mapping churn). It returns
// the mean round trip of the measured accesses and node 0's host CPU time
// per access, in µs.
func pinOps(c Config, mode uint32, seq []int, miss []bool, k int) (float64, float64, error) {
	p, err := openPair(c, mode, faultsNone, freebsd.PageSize, false)
	if err != nil {
		return 0, 0, err
	}
	defer p.c.Shutdown()
	cl := p.c
	pool := uint32(slices.Max(seq) + 1)
	var base uint32
	var cache *lib.PinCache
	if err := runOn(cl, 0, func(t *freebsd.Thread) error {
		var err error
		// One mapping per page, so that a page can be unmapped alone.
		if base, err = p.proc[0].Mmap(t, pool*freebsd.PageSize, freebsd.ProtRW); err != nil {
			return err
		}
		if err = p.proc[0].Munmap(t, base, pool*freebsd.PageSize); err != nil {
			return err
		}
		for pg := range pool {
			if err = p.proc[0].MmapAt(t, base+pg*freebsd.PageSize, freebsd.PageSize, freebsd.ProtRW); err != nil {
				return err
			}
		}
		cache = lib.NewPinCache(p.ep[0], k)
		return p.proc[0].Write(t, base, make([]byte, pool*freebsd.PageSize)) // resident
	}); err != nil {
		return 0, 0, err
	}
	cl.Nodes[1].Kernel.Go("pong", func(t *freebsd.Thread) {
		for i := range seq {
			p.ep[1].WaitBusy(t, 0, uint64(i+1))
			p.ep[1].Write(t, 0, p.imp[1], 0, 0, p.ctr[1])
		}
	})
	var el, cpu sim.Time
	kern := cl.Nodes[0].Kernel
	page := make([]byte, freebsd.PageSize)
	err = runOn(cl, 0, func(t *freebsd.Thread) error {
		var t0, c0 sim.Time
		for i, pg := range seq {
			if i == k {
				t0, c0 = t.Now(), kern.CPUBusy()
			}
			src := base + uint32(pg)*freebsd.PageSize
			if i >= k && miss[i] {
				if err := p.proc[0].Munmap(t, src, freebsd.PageSize); err != nil {
					return err
				}
				if err := p.proc[0].MmapAt(t, src, freebsd.PageSize, freebsd.ProtRW); err != nil {
					return err
				}
				if err := p.proc[0].Write(t, src, page); err != nil {
					return err
				}
			}
			var err error
			if mode == abi.ModeDynamic {
				_, err = cache.Write(t, src, p.imp[0], 0, freebsd.PageSize, p.ctr[0])
			} else {
				_, err = p.ep[0].Write(t, src, p.imp[0], 0, freebsd.PageSize, p.ctr[0])
			}
			if err != nil {
				return err
			}
			p.ep[0].WaitBusy(t, 0, uint64(i+1))
		}
		el, cpu = t.Now()-t0, kern.CPUBusy()-c0
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	n := float64(len(seq) - k)
	return float64(el) / float64(sim.Microsecond) / n, float64(cpu) / float64(sim.Microsecond) / n, nil
}
