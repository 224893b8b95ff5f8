package bench

import (
	"fmt"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/cluster"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// syncThreads is the number of threads on each of the two client nodes in
// E8.
const syncThreads = 3

// The four synchronisation objects E8 compares.
const (
	syncNetVMSem   = "NetVM semaphore"
	syncAtomicSem  = "atomic semaphore"
	syncNetVMQueue = "NetVM wait queue"
	syncAtomicQ    = "atomic ticket queue"
	// The atomic objects again, each word on its taker's node (as a
	// NetVM object's counter is): P and wait are atomics on the thread's
	// own node (applied by its own NIC), V and wake remote.
	syncAtomicSemHome = "atomic semaphore at taker"
	syncAtomicQHome   = "atomic queue at taker"
)

// atHome reports whether kind keeps its atomic words on the takers' nodes.
func atHome(kind string) bool { return kind == syncAtomicSemHome || kind == syncAtomicQHome }

// isAtomic reports whether kind is built on atomics.
func isAtomic(kind string) bool {
	return kind == syncAtomicSem || kind == syncAtomicQ || atHome(kind)
}

// syncResult is one E8 run: the one-way handoff time a thread sees, and
// the host CPU time per handoff (every node's, the library's included).
type syncResult struct{ us, cpuUS float64 }

// sync is E8: a counting semaphore and a wait queue built on NetVM
// notifications (netvm/lib sync.go: a notify-only WRITE to the waiter's
// counter, a block wait on it) against the standard ones built on remote
// atomics (lib.AtomicSemaphore, lib.TicketQueue: fetch-and-add on words of
// a third node, waiting by reading a word). In each run syncThreads
// threads on node 0 and as many on node 1 hand off to each other through
// one object per node: a node-0 thread gives to node 1 (V, wake) and
// takes from node 0 (P, wait), a node-1 thread the other way round, for
// rounds rounds. The figure is the NetVM object's handoff time over the
// atomic one's, both with block waits (docs/reproduction.md, E8); the
// busy-wait runs are reported beside it, and the atomic objects again
// with their words on their takers' nodes (loopback atomics).
func (r *runner) sync() error {
	rounds := 40
	if r.c.Quick {
		rounds = 12
	}
	kinds := []string{syncNetVMSem, syncAtomicSem, syncNetVMQueue, syncAtomicQ, syncAtomicSemHome, syncAtomicQHome}
	res := map[string]map[bool]syncResult{}
	for _, kind := range kinds {
		res[kind] = map[bool]syncResult{}
		for _, block := range []bool{true, false} {
			x, err := syncRun(r.c, kind, block, rounds)
			if err != nil {
				return fmt.Errorf("E8 %s: %w", kind, err)
			}
			res[kind][block] = x
		}
		r.bar.step(kind)
	}
	over := func(netvm, atomic string, block bool) float64 {
		a := res[atomic][block].us
		return 100 * (res[netvm][block].us - a) / a
	}
	r.figure(Figure{ID: "E8.waitqueue_overhead_pct", Paper: 18.2, Measured: over(syncNetVMQueue, syncAtomicQ, true), Unit: "%"})
	r.figure(Figure{ID: "E8.semaphore_overhead_pct", Paper: 12.6, Measured: over(syncNetVMSem, syncAtomicSem, true), Unit: "%"})
	r.figure(Figure{ID: "E8.waitqueue_overhead_busy_pct", NoPaper: true, Measured: over(syncNetVMQueue, syncAtomicQ, false), Unit: "%"})
	r.figure(Figure{ID: "E8.semaphore_overhead_busy_pct", NoPaper: true, Measured: over(syncNetVMSem, syncAtomicSem, false), Unit: "%"})
	r.figure(Figure{ID: "E8.waitqueue_overhead_home_pct", NoPaper: true, Measured: over(syncNetVMQueue, syncAtomicQHome, true), Unit: "%"})
	r.figure(Figure{ID: "E8.semaphore_overhead_home_pct", NoPaper: true, Measured: over(syncNetVMSem, syncAtomicSemHome, true), Unit: "%"})
	ids := map[string]string{syncNetVMSem: "netvm_sem", syncAtomicSem: "atomic_sem", syncNetVMQueue: "netvm_queue", syncAtomicQ: "atomic_queue",
		syncAtomicSemHome: "atomic_sem_home", syncAtomicQHome: "atomic_queue_home"}
	var ys, cpu []float64
	var xs []float64
	for i, kind := range kinds {
		x := res[kind][true]
		r.figure(Figure{ID: "E8." + ids[kind] + "_us", NoPaper: true, Measured: x.us, Unit: "us"})
		r.figure(Figure{ID: "E8." + ids[kind] + "_cpu_us", NoPaper: true, Measured: x.cpuUS, Unit: "us"})
		xs = append(xs, float64(i))
		ys = append(ys, x.us)
		cpu = append(cpu, x.cpuUS)
	}
	r.curve(Curve{ID: "e8-sync", Title: fmt.Sprintf("E8: synchronisation, %d threads per node (block wait)", syncThreads), Bars: true,
		Cats: kinds, XLabel: "object", YLabel: "us per handoff",
		Series: []Series{{Name: "one-way handoff", X: xs, Y: ys}, {Name: "host CPU per handoff", X: xs, Y: cpu}}})
	return nil
}

// syncRun runs E8's handoff through kind on a fresh three-node cluster
// (node 2 holds the atomic objects' words) and returns the one-way
// handoff time (elapsed / 2 rounds: each thread's round is a handoff
// each way, with the other threads contending) and the host CPU time of
// all nodes per handoff.
func syncRun(c Config, kind string, block bool, rounds int) (syncResult, error) {
	cl, err := cluster.New(cluster.Config{Nodes: MaxNodes, Frames: 2048, Board: c.Board, BackToBack: false, ClockHz: c.ClockHz,
		LinkRate: c.LinkRate, Mode: abi.ModeNetVM, Seed: 1, PCI: c.pci(), Timing: c.hostTiming()})
	if err != nil {
		return syncResult{}, err
	}
	defer cl.Shutdown()
	// Each client node: a process whose home endpoint exports a page and
	// counter 0 (the NetVM objects' counter). Node 2: a page for atomics.
	var home [3]*lib.EP
	var keys, ckeys, akeys [3]uint32
	procs := [3]*freebsd.Proc{}
	for i := range 3 {
		procs[i] = cl.Nodes[i].Kernel.NewProc(fmt.Sprintf("sync%d", i))
		if err := cl.RunThread(i, "bench", func(t *freebsd.Thread) error {
			var err error
			if home[i], err = lib.Open(t, cl.Nodes[i].Driver, procs[i]); err != nil {
				return err
			}
			va, _ := procs[i].Mmap(t, freebsd.PageSize, freebsd.ProtRW)
			procs[i].Write(t, va, make([]byte, freebsd.PageSize)) // resident
			if i == 2 {
				keys[i], err = home[i].ExportAtomic(t, va, freebsd.PageSize, true)
				return err
			}
			if keys[i], err = home[i].Export(t, va, freebsd.PageSize, true); err != nil {
				return err
			}
			if ckeys[i], err = home[i].ExportCounter(t, 0); err != nil || !atHome(kind) {
				return err
			}
			// A second page for the atomic objects kept at their takers.
			ava, _ := procs[i].Mmap(t, freebsd.PageSize, freebsd.ProtRW)
			procs[i].Write(t, ava, make([]byte, freebsd.PageSize))
			akeys[i], err = home[i].ExportAtomic(t, ava, freebsd.PageSize, true)
			return err
		}); err != nil {
			return syncResult{}, err
		}
	}
	netvmSem := [2]*lib.Semaphore{{EP: home[0], Ctr: 0, Block: block}, {EP: home[1], Ctr: 0, Block: block}}
	netvmQ := [2]*lib.WaitQueue{{EP: home[0], Ctr: 0, Block: block}, {EP: home[1], Ctr: 0, Block: block}}
	objOff := func(node int) uint32 { return uint32(node) * 64 } // node's object on node 2's page
	var errs []error
	done, ready := 0, 0
	cpuBusy := func() sim.Time {
		return cl.Nodes[0].Kernel.CPUBusy() + cl.Nodes[1].Kernel.CPUBusy() + cl.Nodes[2].Kernel.CPUBusy()
	}
	var t0, end, cpu0 sim.Time
	// start is the threads' barrier after their setup: the last to
	// arrive starts the clock and the CPU count.
	start := func(t *freebsd.Thread) {
		if ready++; ready == 2*syncThreads {
			t0, cpu0 = t.Now(), cpuBusy()
		}
		for ready < 2*syncThreads {
			t.Sleep(5 * sim.Microsecond)
		}
	}
	for n := range 2 {
		other := 1 - n
		for k := range syncThreads {
			cl.Nodes[n].Kernel.Go(fmt.Sprintf("sync%d.%d", n, k), func(t *freebsd.Thread) {
				defer func() {
					done++
					end = max(end, t.Now())
				}()
				err := syncThread(t, cl, n, other, procs[n], home, keys, ckeys, akeys, kind, block, rounds, netvmSem, netvmQ, objOff, start)
				if err != nil {
					errs = append(errs, err)
				}
			})
		}
	}
	for done < 2*syncThreads {
		if err := cl.Run(cl.Now() + 100*sim.Microsecond); err != nil {
			return syncResult{}, err
		}
		if cl.Now() > 10*sim.Second {
			return syncResult{}, fmt.Errorf("the handoffs did not finish")
		}
	}
	if len(errs) > 0 {
		return syncResult{}, errs[0]
	}
	cpu := cpuBusy() - cpu0
	us := float64(sim.Microsecond)
	return syncResult{us: float64(end-t0) / us / float64(2*rounds),
		cpuUS: float64(cpu) / us / float64(2*syncThreads*rounds)}, nil
}

// syncThread is one E8 thread on node n: it opens its own endpoint,
// imports what kind needs (the other node's page and counter, or node 2's
// atomic page), and does its rounds of handoffs: node 0 gives then takes,
// node 1 takes then gives.
func syncThread(t *freebsd.Thread, cl *cluster.Cluster, n, other int, proc *freebsd.Proc, home [3]*lib.EP, keys, ckeys, akeys [3]uint32,
	kind string, block bool, rounds int, netvmSem [2]*lib.Semaphore, netvmQ [2]*lib.WaitQueue, objOff func(int) uint32,
	start func(*freebsd.Thread)) error {
	// Its own process: the driver gives a process one endpoint (one
	// ASID). The NetVM objects' waits go through the node's home endpoint,
	// as threads of its process would.
	ep, err := lib.Open(t, cl.Nodes[n].Driver, cl.Nodes[n].Kernel.NewProc(proc.Name+"t"))
	if err != nil {
		return err
	}
	ep.AtomicBlock = block
	var give, take func() error
	switch kind {
	case syncNetVMSem, syncNetVMQueue:
		imp, err := ep.Import(t, other, home[other].Index, keys[other], freebsd.PageSize, abi.ExpKindRegion)
		if err != nil {
			return err
		}
		ctr, err := ep.Import(t, other, home[other].Index, ckeys[other], 0, abi.ExpKindCounter)
		if err != nil {
			return err
		}
		give = func() error { _, err := ep.Post(t, imp, ctr); return err }
		if kind == syncNetVMSem {
			take = func() error { return netvmSem[n].P(t) }
		} else {
			take = func() error { return netvmQ[n].Wait(t) }
		}
	default:
		// The node's own object and the other node's: on node 2's page,
		// or each on its taker's own atomic page.
		var mineImp, theirsImp int
		mineOff, theirsOff := objOff(n), objOff(other)
		if atHome(kind) {
			if mineImp, err = ep.Import(t, n, home[n].Index, akeys[n], freebsd.PageSize, abi.ExpKindAtomic); err != nil {
				return err
			}
			if theirsImp, err = ep.Import(t, other, home[other].Index, akeys[other], freebsd.PageSize, abi.ExpKindAtomic); err != nil {
				return err
			}
			mineOff, theirsOff = 0, 0
		} else {
			if mineImp, err = ep.Import(t, 2, home[2].Index, keys[2], freebsd.PageSize, abi.ExpKindAtomic); err != nil {
				return err
			}
			theirsImp = mineImp
		}
		if kind == syncAtomicSem || kind == syncAtomicSemHome {
			mine := &lib.AtomicSemaphore{EP: ep, Imp: mineImp, Off: mineOff}
			theirs := &lib.AtomicSemaphore{EP: ep, Imp: theirsImp, Off: theirsOff}
			give = func() error { return theirs.V(t) }
			take = func() error { return mine.P(t) }
		} else {
			mine := &lib.TicketQueue{EP: ep, Imp: mineImp, Off: mineOff}
			theirs := &lib.TicketQueue{EP: ep, Imp: theirsImp, Off: theirsOff}
			give = func() error { return theirs.Wake(t) }
			take = func() error { _, err := mine.Wait(t); return err }
		}
	}
	if isAtomic(kind) {
		if err := ep.PrepareAtomics(t); err != nil { // the reply page and counter, before the clock
			return err
		}
	}
	start(t)
	for range rounds {
		first, second := give, take
		if n == 1 {
			first, second = take, give
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
	}
	return nil
}
