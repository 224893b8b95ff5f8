package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"lanaiemu/freebsd"
	"lanaiemu/netvm/abi"
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
// hits at the given rate, runs on both; the per-operation cost is the
// mean round trip (the WRITE with a counter, a notify-only reply). NetVM
// is cheaper up to the hit rate where the two cross.
func (r *runner) dynamic() error {
	ops := 1000
	if r.c.Quick {
		ops = 400
	}
	k := r.c.PinCache
	nv, dy := Series{Name: "NetVM"}, Series{Name: fmt.Sprintf("dynamic pinning (LRU cache of %d pages)", k)}
	for i, h := range hitRates {
		seq, real := accessSequence(h, k, 4*k, ops, uint64(i+1))
		a, err := pinOps(r.c, abi.ModeNetVM, seq, k)
		if err != nil {
			return err
		}
		r.bar.step(fmt.Sprintf("NetVM %.1f%%", h))
		b, err := pinOps(r.c, abi.ModeDynamic, seq, k)
		if err != nil {
			return err
		}
		r.bar.step(fmt.Sprintf("dynamic %.1f%%", h))
		nv.X, nv.Y = append(nv.X, real), append(nv.Y, a)
		dy.X, dy.Y = append(dy.X, real), append(dy.Y, b)
	}
	cross := crossover(nv, dy)
	// The cost of a miss: the slope of dynamic pinning's cost against the
	// miss rate, between the lowest and the highest hit rate.
	last := len(dy.X) - 1
	miss := (dy.Y[0] - dy.Y[last]) / ((dy.X[last] - dy.X[0]) / 100)
	r.figure(Figure{ID: "E5.netvm_cheaper_up_to_hit_pct", Paper: 94.5, Measured: cross, Unit: "%"})
	r.figure(Figure{ID: "E5.miss_cost_us", NoPaper: true, Measured: miss, Unit: "us"})
	r.figure(Figure{ID: "E5.netvm_over_all_hits_us", NoPaper: true, Measured: nv.Y[last] - dy.Y[last], Unit: "us"})
	r.curve(Curve{ID: "e5-hitrate", Title: "E5: NetVM and dynamic pinning",
		XLabel: "pin-down cache hit rate (%)", YLabel: "round trip per 4 KiB WRITE (us)", Series: []Series{nv, dy},
		Marks: []Mark{{Vertical: true, At: cross, Label: fmt.Sprintf("crossover %.1f %%", cross)},
			{Vertical: true, At: 94.5, Label: "thesis 94.5 %"}}})
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
// returns the hit rate realised over the ops.
func accessSequence(hit float64, k, pool, ops int, seed uint64) ([]int, float64) {
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
		touch(p)
	}
	return seq, 100 * float64(hits) / float64(ops)
}

// pinOps runs seq (k warm-up pages, then the measured ones) as 4 KiB
// WRITEs with a counter from node 0's page pool to node 1, each answered
// by a notify-only WRITE, in translation mode mode (ModeDynamic: through
// a pin-down cache of k pages), and returns the mean round trip of the
// measured ones in µs.
func pinOps(c Config, mode uint32, seq []int, k int) (float64, error) {
	p, err := openPair(c, mode, faultsNone, freebsd.PageSize, false)
	if err != nil {
		return 0, err
	}
	defer p.c.Shutdown()
	cl := p.c
	pool := uint32(slices.Max(seq) + 1)
	var base uint32
	var cache *lib.PinCache
	if err := runOn(cl, 0, func(t *freebsd.Thread) error {
		var err error
		if base, err = p.proc[0].Mmap(t, pool*freebsd.PageSize, freebsd.ProtRW); err != nil {
			return err
		}
		cache = lib.NewPinCache(p.ep[0], k)
		return p.proc[0].Write(t, base, make([]byte, pool*freebsd.PageSize)) // resident
	}); err != nil {
		return 0, err
	}
	cl.Nodes[1].Kernel.Go("pong", func(t *freebsd.Thread) {
		for i := range seq {
			p.ep[1].WaitBusy(t, 0, uint64(i+1))
			p.ep[1].Write(t, 0, p.imp[1], 0, 0, p.ctr[1])
		}
	})
	var el sim.Time
	err = runOn(cl, 0, func(t *freebsd.Thread) error {
		var t0 sim.Time
		for i, pg := range seq {
			if i == k {
				t0 = t.Now()
			}
			src := base + uint32(pg)*freebsd.PageSize
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
		el = t.Now() - t0
		return nil
	})
	if err != nil {
		return 0, err
	}
	return float64(el) / float64(sim.Microsecond) / float64(len(seq)-k), nil
}
