package bench

import (
	"fmt"

	"lanaiemu/freebsd"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// waitQueueWaiters is the number of threads waiting in E8's wait queue.
const waitQueueWaiters = 4

// sync is E8: a wait queue and a counting semaphore (netvm/lib, built on
// counters) against the raw primitive, a notify-only WRITE answered by a
// block wait on the counter. Each is a ping-pong between the two nodes;
// the figure is the one-way latency's overhead over the raw primitive's.
// The semaphore's P is a block wait on its counter past the units taken;
// the wait queue has four threads blocked on one counter, each woken in
// its turn by a notify-only WRITE from the other node.
func (r *runner) sync() error {
	rounds := 200
	if r.c.Quick {
		rounds = 60
	}
	var lat [3]float64
	for i, kind := range []string{"raw", "semaphore", "waitqueue"} {
		l, err := syncRun(r.c, kind, rounds)
		if err != nil {
			return err
		}
		r.bar.step(kind)
		lat[i] = l
	}
	r.figure(Figure{ID: "E8.raw_us", NoPaper: true, Measured: lat[0], Unit: "us"})
	r.figure(Figure{ID: "E8.waitqueue_overhead_pct", Paper: 18.2, Measured: 100 * (lat[2] - lat[0]) / lat[0], Unit: "%"})
	r.figure(Figure{ID: "E8.semaphore_overhead_pct", Paper: 12.6, Measured: 100 * (lat[1] - lat[0]) / lat[0], Unit: "%"})
	r.curve(Curve{ID: "e8-sync", Title: "E8: synchronisation (block wait)", Bars: true,
		Cats:   []string{"raw notify + wait", "counting semaphore", fmt.Sprintf("wait queue (%d waiters)", waitQueueWaiters)},
		XLabel: "primitive", YLabel: "one-way latency (us)",
		Series: []Series{{Name: "one-way latency", X: []float64{0, 1, 2}, Y: lat[:]}}})
	return nil
}

// syncRun returns the one-way latency (half the mean round trip) of the
// ping-pong through kind: raw, semaphore or waitqueue.
func syncRun(c Config, kind string, rounds int) (float64, error) {
	p, err := openPair(c, abi.ModeNetVM, faultsNone, freebsd.PageSize, false)
	if err != nil {
		return 0, err
	}
	defer p.c.Shutdown()
	cl := p.c
	post := func(t *freebsd.Thread, i int) { p.ep[i].Post(t, p.imp[i], p.ctr[i]) }
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	// Node 1's side: answer each message.
	switch kind {
	case "raw":
		cl.Nodes[1].Kernel.Go("raw", func(t *freebsd.Thread) {
			for r := range rounds {
				check(p.ep[1].WaitBlock(t, 0, uint64(r+1)))
				post(t, 1)
			}
		})
	case "semaphore":
		sem := &lib.Semaphore{EP: p.ep[1], Ctr: 0, Block: true}
		cl.Nodes[1].Kernel.Go("P", func(t *freebsd.Thread) {
			for range rounds {
				check(sem.P(t))
				post(t, 1)
			}
		})
	case "waitqueue":
		q := &lib.WaitQueue{EP: p.ep[1], Ctr: 0, Block: true}
		for w := range waitQueueWaiters {
			cl.Nodes[1].Kernel.Go(fmt.Sprintf("waiter%d", w), func(t *freebsd.Thread) {
				t.Sleep(sim.Time(w+1) * sim.Microsecond) // they arrive in order
				for range rounds / waitQueueWaiters {
					check(q.Wait(t))
					post(t, 1)
				}
			})
		}
		rounds = rounds / waitQueueWaiters * waitQueueWaiters
	}
	var el sim.Time
	err = runOn(cl, 0, func(t *freebsd.Thread) error {
		t.Sleep(50 * sim.Microsecond)
		t0 := t.Now()
		own := &lib.Semaphore{EP: p.ep[0], Ctr: 0, Block: true}
		for r := range rounds {
			post(t, 0)
			if kind == "raw" {
				check(p.ep[0].WaitBlock(t, 0, uint64(r+1)))
			} else {
				check(own.P(t))
			}
		}
		el = t.Now() - t0
		return nil
	})
	if err == nil && len(errs) > 0 {
		err = errs[0]
	}
	if err != nil {
		return 0, err
	}
	return float64(el) / float64(sim.Microsecond) / float64(2*rounds), nil
}
