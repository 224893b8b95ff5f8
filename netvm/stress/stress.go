// Package stress is `netvm stress`: random WRITEs between every pair of
// nodes of a cluster while the hosts' page daemons evict exported and
// source pages (the VM systems have less memory than the processes
// touch), source buffers are unmapped and mapped again, receivers fork
// (which write-protects their pages for copy on write), and the fabric
// drops, corrupts and reorders packets. A checker keeps a shadow copy of
// every destination region and of every counter, and checks every byte,
// every counter value and the order of every notification. With Atomics,
// a thread on every node also applies fetch-and-adds and compare-and-swaps
// to the words of the other nodes (docs/netvm.md §5.5), and the checker
// finds every update applied exactly once.
package stress

import (
	"bytes"
	"fmt"
	"io"

	"lanaiemu/fabric"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/cluster"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/internal/progress"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// Bounds of a run's counts, from measurements (docs/bad-input.md): a
// larger count is refused before anything is built.
const (
	// MaxWrites bounds Writes: at the fastest rate measured (6,300 WRITEs
	// a host second: 2 nodes, Clean, no evictions, forks or remaps)
	// 10^8 take 4.4 hours, with the defaults (110-125 a second) the
	// hour of simulated time that bounds a run ends it first. The
	// memory does not grow with the WRITEs.
	MaxWrites = 100_000_000
	// MaxAtomics bounds Atomics: about 10,000 a host second (2 nodes),
	// so 10^8 take nearly 3 hours; the checker keeps atomicBytes for
	// each (CheckSize counts them).
	MaxAtomics = 100_000_000
	// MaxBatch bounds Batch: a batch's WRITEs may not overlap in the
	// sender's part of the receiver's region (32 KiB), so in a larger
	// batch most WRITEs are empty (64: 3.3 MB in 8192 WRITEs, 8: 22 MB;
	// one batch of 4096 per sender on 2 nodes carries 54 KB, as one of
	// 16384 does), and each is placed by comparing it with the batch's
	// others: that batch of 4096 takes 1 s of host time, of 16384 15 s.
	// A batch larger than the endpoint's ring (abi.RingSlots) waits for
	// free slots (lib.EP.Write); one with more notifications than the
	// receiver's deferral queue (abi.DeferMax) gets NACK StatusRNR
	// (docs/netvm.md §9).
	MaxBatch = 4096
)

// atomicBytes is what the checker keeps for an atomic at most: a
// fetch-and-add's old value (4 bytes), and its seen flag at the end.
const atomicBytes = 5

// Config is one stress run.
type Config struct {
	// Board is every node's board (hostbus.BoardFor; the default if
	// empty), ClockHz overrides its clock if not 0.
	Board   string
	ClockHz uint64
	Seed    uint64
	Nodes   int
	Writes  int // WRITEs in all, spread over the senders
	// Batch is the WRITEs a sender posts to one receiver before it waits
	// for the batch's covering notification (8 if 0).
	Batch int
	// SubPages is each sender's part of each receiver's region, in pages
	// (8 if 0); SrcPages each sender's source buffer (16 if 0).
	SubPages, SrcPages int
	// Frames is the VM memory of each host in pages (0: two thirds of what
	// one process touches, so that pages are evicted all the time).
	Frames int
	// MaxSize is the largest WRITE (16 KiB if 0).
	MaxSize uint32
	// Faults are the fabric's (DefaultFaults if Clean is false and Faults
	// is zero).
	Faults fabric.Faults
	Clean  bool
	// ForkEvery and RemapEvery: a receiver forks (a child that lives a
	// while, then exits) and a sender remaps its source buffer, about once
	// per this many batches (0: never).
	ForkEvery, RemapEvery int
	// EvictEvery: on each host a thread forces a random page of the region
	// out about this often (besides the page daemon's evictions), so that
	// pages go while the NIC is DMAing them (0: never).
	EvictEvery sim.Time
	// Atomics is the number of atomics in all, spread over the nodes (0:
	// none): each node's atomic thread picks a node at random (its own
	// too: a loopback, docs/netvm.md §5.5) and adds 1 to its shared word
	// (every node contends for it),
	// adds a random amount to its own word there, or (one in four)
	// increments a third word by a compare-and-swap loop.
	Atomics int
	// Progress, if set, gets a progress line (package progress): a line
	// per tenth of the WRITEs.
	Progress io.Writer
	// Jobs is the number of goroutines that run the boards
	// (node.Config.Jobs); the result does not depend on it.
	Jobs int
	// Limit bounds the run in simulated time (an hour if 0).
	Limit sim.Time
}

// DefaultFaults drop 1 %, corrupt 1 % and detour 2 % of the packets.
var DefaultFaults = fabric.Faults{DropPPM: 10_000, CorruptPPM: 10_000, DetourPPM: 20_000, DetourDelay: 30 * sim.Microsecond}

// Result is what a run measured; the JSON of `netvm stress`.
type Result struct {
	Seed            uint64   `json:"seed"`
	Nodes           int      `json:"nodes"`
	Writes          int      `json:"writes"`
	Bytes           uint64   `json:"bytes"`
	Notifications   int      `json:"notifications"`
	RedirectedPages int      `json:"redirected_pages"`
	SrcFaults       int      `json:"src_faults"`
	Retransmits     int      `json:"retransmits"`
	LockWaits       int      `json:"lock_waits"`
	Evictions       int      `json:"evictions"`
	ForcedEvictions int      `json:"forced_evictions"`
	PageIns         int      `json:"page_ins"`
	COWCopies       int      `json:"cow_copies"`
	Forks           int      `json:"forks"`
	Remaps          int      `json:"remaps"`
	CRCErrors       int      `json:"crc_errors"`
	Duplicates      int      `json:"duplicates"`
	Atomics         int      `json:"atomics"`
	AtomicRNR       int      `json:"atomic_rnr"`
	SimulatedUS     uint64   `json:"simulated_us"`
	LostBytes       int      `json:"lost_bytes"`
	Violations      int      `json:"violations"`
	Problems        []string `json:"problems,omitempty"`
}

// OK reports whether nothing was lost and nothing violated.
func (r *Result) OK() bool { return r.LostBytes == 0 && r.Violations == 0 }

func (r *Result) violate(format string, a ...any) {
	r.Violations++
	if len(r.Problems) < 20 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, a...))
	}
}

// host is one node's process and what the checker knows of it.
type host struct {
	n       *cluster.Machine
	proc    *freebsd.Proc
	ep      *lib.EP
	key     uint32
	ctrKeys []uint32            // counter s's key (counter s counts sender s's notifications)
	imp     []int               // import of node j's region
	impCtr  []int               // import of node j's counter for us
	srcData []byte              // the checker's copy of the source buffer
	shadow  []byte              // the checker's copy of the region
	expect  []uint64            // notifications expected on counter s
	seen    []uint64            // notifications seen (handler) on counter s
	pending [][]span            // per sender: the current batch's writes, for the covering check
	mark    []uint64            // per sender: counter value that covers pending
	notify  []freebsd.WaitQueue // per sender: woken by the handler
	// Atomics: the page exported for them, the atomic thread's endpoint
	// (its own process) and its imports of the other nodes' pages, and
	// what the checker expects of this node's words.
	atomKey   uint32
	atomEP    *lib.EP
	atomImp   []int
	sharedOld []uint32 // old values the fetch-and-adds of the shared word returned
	adds      []uint32 // per node s: the sum s added to its own word here
	casIncs   uint32   // compare-and-swap increments that succeeded here
}

// The atomic page's words: the one all nodes add 1 to, node s's own word,
// the compare-and-swap counter.
const atomShared, atomCAS = 0, 4

func atomOwn(s int) uint32 { return 8 + 4*uint32(s) }

type span struct{ off, n uint32 }

const regionBase, srcBase, atomBase = 0x4000_0000, 0x2000_0000, 0x6000_0000

// withDefaults fills in c's defaults; touched is the pages each host's
// processes write (each sender's part of the region and its source
// buffer).
func (c Config) withDefaults() (_ Config, touched int) {
	if c.Batch <= 0 {
		c.Batch = 8
	}
	if c.SubPages <= 0 {
		c.SubPages = 8
	}
	if c.SrcPages <= 0 {
		c.SrcPages = 16
	}
	if c.MaxSize == 0 {
		c.MaxSize = 16 << 10
	}
	touched = c.Nodes*c.SubPages + c.SrcPages
	if c.Frames <= 0 {
		c.Frames = max(24, touched*2/3)
	}
	return c, touched
}

// CheckSize refuses a run whose cluster New would refuse or would take
// more memory than a run may (cluster.CheckSize, with the pages the
// hosts' processes write and what the checker keeps of the atomics),
// before anything is built.
func (c Config) CheckSize() error {
	c, touched := c.withDefaults()
	return cluster.CheckSize(c.Nodes, c.Frames, uint64(c.Nodes*touched)*freebsd.PageSize+uint64(c.Atomics)*atomicBytes)
}

// Run runs c and returns what it measured; err is a setup failure.
func Run(c Config) (*Result, error) {
	c, _ = c.withDefaults()
	faults := c.Faults
	if faults == (fabric.Faults{}) && !c.Clean {
		faults = DefaultFaults
	}
	cl, err := cluster.New(cluster.Config{Nodes: c.Nodes, Frames: c.Frames, Seed: c.Seed, Faults: faults, Board: c.Board, ClockHz: c.ClockHz, Jobs: c.Jobs})
	if err != nil {
		return nil, err
	}
	defer cl.Shutdown()
	res := &Result{Seed: c.Seed, Nodes: c.Nodes}
	rng := sim.NewRand(c.Seed)
	N := c.Nodes
	sub := uint32(c.SubPages * freebsd.PageSize)
	hs := make([]*host, N)
	for i, n := range cl.Nodes {
		hs[i] = &host{n: n, proc: n.Kernel.NewProc(fmt.Sprintf("app%d", i)), ctrKeys: make([]uint32, N),
			imp: make([]int, N), impCtr: make([]int, N), shadow: make([]byte, N*int(sub)),
			srcData: make([]byte, c.SrcPages*freebsd.PageSize), expect: make([]uint64, N), seen: make([]uint64, N),
			pending: make([][]span, N), mark: make([]uint64, N), notify: make([]freebsd.WaitQueue, N),
			atomImp: make([]int, N), adds: make([]uint32, N)}
		for k := range hs[i].srcData {
			hs[i].srcData[k] = byte(rng.Uint64())
		}
	}
	// Phase 1: every process opens, maps and exports; handlers check the
	// order and the covering rule of every notification.
	if err := cl.RunOnEach("setup", func(t *freebsd.Thread, m *cluster.Machine) error {
		h := hs[m.ID]
		var err error
		if h.ep, err = lib.Open(t, h.n.Driver, h.proc); err != nil {
			return err
		}
		if err := h.proc.MmapAt(t, regionBase, uint32(N)*sub, freebsd.ProtRW); err != nil {
			return err
		}
		if err := h.proc.MmapAt(t, srcBase, uint32(len(h.srcData)), freebsd.ProtRW); err != nil {
			return err
		}
		if err := h.proc.Write(t, srcBase, h.srcData); err != nil {
			return err
		}
		if h.key, err = h.ep.Export(t, regionBase, uint32(N)*sub, true); err != nil {
			return err
		}
		if c.Atomics > 0 {
			if err := h.proc.MmapAt(t, atomBase, freebsd.PageSize, freebsd.ProtRW); err != nil {
				return err
			}
			if h.atomKey, err = h.ep.ExportAtomic(t, atomBase, freebsd.PageSize, true); err != nil {
				return err
			}
		}
		for s := range N {
			if h.ctrKeys[s], err = h.ep.ExportCounter(t, s); err != nil {
				return err
			}
			s := s
			if err := h.ep.SetHandler(t, s, func(_ *freebsd.Thread, ctr int, v uint64) { notified(res, h, hs[s], s, v, sub) }); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	// Phase 2: imports.
	if err := cl.RunOnEach("setup", func(t *freebsd.Thread, m *cluster.Machine) error {
		h := hs[m.ID]
		if c.Atomics > 0 {
			var err error
			if h.atomEP, err = lib.Open(t, h.n.Driver, h.n.Kernel.NewProc(h.proc.Name+"-atomics")); err != nil {
				return err
			}
			for j, o := range hs {
				if h.atomImp[j], err = h.atomEP.Import(t, j, o.ep.Index, o.atomKey, freebsd.PageSize, abi.ExpKindAtomic); err != nil {
					return err
				}
			}
		}
		for j, o := range hs {
			if o == h {
				continue
			}
			var err error
			if h.imp[j], err = h.ep.Import(t, j, o.ep.Index, o.key, uint32(N)*sub, abi.ExpKindRegion); err != nil {
				return err
			}
			me := h.n.ID
			if h.impCtr[j], err = h.ep.Import(t, j, o.ep.Index, o.ctrKeys[me], 0, abi.ExpKindCounter); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	// Phase 3: the senders, and the receivers' forks.
	t0 := cl.Now()
	stop := false
	if c.EvictEvery > 0 {
		for i, h := range hs {
			erng := sim.NewRand(c.Seed*7919 + uint64(i))
			h.n.Kernel.Go("evictor", func(t *freebsd.Thread) {
				pages := N * c.SubPages
				for !stop {
					t.Sleep(c.EvictEvery/2 + sim.Time(erng.Intn(int(c.EvictEvery))))
					va := regionBase + uint32(erng.Intn(pages))*freebsd.PageSize
					// Half the time a page the current batches are writing:
					// where the NIC's DMAs are.
					if s := erng.Intn(2 * N); s < N && len(h.pending[s]) > 0 {
						sp := h.pending[s][erng.Intn(len(h.pending[s]))]
						va = regionBase + (uint32(s)*sub+sp.off+uint32(erng.Intn(int(sp.n)+1)))&^(freebsd.PageSize-1)
					}
					if h.proc.Evict(t, va) {
						res.ForcedEvictions++
					}
				}
			})
		}
	}
	perSender := (c.Writes + N - 1) / N
	done := 0
	for i := range N {
		h := hs[i]
		srng := sim.NewRand(c.Seed*1000 + uint64(i) + 1)
		h.n.Kernel.Go(fmt.Sprintf("sender%d", i), func(t *freebsd.Thread) {
			defer func() { done++ }()
			sendLoop(t, c, res, h, hs, srng, perSender, sub)
		})
	}
	threads := N
	if c.Atomics > 0 {
		threads += N
		for i := range N {
			h := hs[i]
			arng := sim.NewRand(c.Seed*31337 + uint64(i) + 1)
			h.n.Kernel.Go(fmt.Sprintf("atomics%d", i), func(t *freebsd.Thread) {
				defer func() { done++ }()
				atomicLoop(t, res, h, hs, arng, (c.Atomics+N-1)/N)
			})
		}
	}
	limit, within := c.Limit, c.Limit.String()
	if limit <= 0 {
		limit, within = 3600*sim.Second, "an hour"
	}
	line := progress.New(c.Progress)
	lastShown := -1
	inTime, err := cl.RunUntil(func() bool {
		if done >= threads {
			return true
		}
		if tenth := res.Writes * 10 / max(1, c.Writes); tenth != lastShown {
			lastShown = tenth
			line.Show(tenth, fmt.Sprintf("%d of %d WRITEs, %v simulated", res.Writes, c.Writes, cl.Now()-t0))
		}
		return false
	}, t0+limit)
	switch {
	case err != nil:
		res.violate("%v", err)
	case !inTime:
		res.violate("the run did not finish in %s of simulated time", within)
	}
	stop = true
	line.End()
	if err := cl.Run(cl.Now() + 5*sim.Millisecond); err != nil { // late handlers
		res.violate("%v", err)
	}
	res.SimulatedUS = uint64((cl.Now() - t0) / sim.Microsecond)
	// Final checks: every region, every counter.
	for j, h := range hs {
		got := make([]byte, len(h.shadow))
		if err := h.proc.Peek(regionBase, got); err != nil {
			res.violate("node %d: region unreadable: %v", j, err)
			continue
		}
		first := -1
		for k := range got {
			if got[k] != h.shadow[k] {
				res.LostBytes++
				if first < 0 {
					first = k
				}
			}
		}
		if first >= 0 {
			res.violate("node %d: region byte %#x (sender %d's part, offset %#x) is %#x, want %#x",
				j, first, first/int(sub), first%int(sub), got[first], h.shadow[first])
		}
		for s := range N {
			if v := h.ep.Counter(s); v != h.expect[s] {
				res.violate("node %d: counter %d = %d, want %d", j, s, v, h.expect[s])
			}
			if h.seen[s] != h.expect[s] {
				res.violate("node %d: %d notifications on counter %d seen by the handler, want %d", j, h.seen[s], s, h.expect[s])
			}
		}
	}
	if res.LostBytes > 0 {
		res.violate("%d bytes differ from the shadow copies", res.LostBytes)
	}
	if c.Atomics > 0 {
		checkAtomics(res, hs)
	}
	for _, n := range cl.Nodes {
		fw := n.Stat
		res.RedirectedPages += fw(abi.StatRedirect)
		res.SrcFaults += fw(abi.StatSrcFault)
		res.Retransmits += fw(abi.StatRetx)
		res.CRCErrors += fw(abi.StatCRC)
		res.Duplicates += fw(abi.StatDup)
		res.AtomicRNR += fw(abi.StatRecvFault)
		if fw(abi.StatPeerDead) != 0 || fw(abi.StatRemoteErr) != 0 {
			res.violate("node %d: %d dead peers, %d remote errors", n.ID, fw(abi.StatPeerDead), fw(abi.StatRemoteErr))
		}
		res.LockWaits += n.Driver.Stats().LockWaits
		vs := n.Kernel.VMStats()
		res.Evictions += vs.Evictions
		res.PageIns += vs.PageIns
		res.COWCopies += vs.COWCopies
		if err := n.Kernel.Err(); err != nil {
			res.violate("%v", err)
		}
	}
	return res, nil
}

// notified is a receiver's handler: counter s (sender s's) has value v.
// Values come one by one, in order; when v reaches the value that covers
// sender s's current batch, every write of the batch must be in memory.
func notified(res *Result, h *host, sender *host, s int, v uint64, sub uint32) {
	if v != h.seen[s]+1 {
		res.violate("node %d: counter %d went from %d to %d (out of order or twice)", h.n.ID, s, h.seen[s], v)
	}
	h.seen[s] = v
	sender.n.Kernel.Wakeup(&h.notify[s], 0) // the checker's barrier (no cost: not the model's)
	if v == h.mark[s] {
		for _, sp := range h.pending[s] {
			got := make([]byte, sp.n)
			a := uint32(s)*sub + sp.off
			h.proc.Peek(regionBase+a, got)
			if !bytes.Equal(got, h.shadow[a:a+sp.n]) {
				res.violate("node %d: counter %d = %d before sender %d's write at %#x (%d bytes) was in memory", h.n.ID, s, v, s, a, sp.n)
			}
		}
	}
}

// sendLoop is one sender: batches of WRITEs to random receivers, each
// batch into disjoint ranges of the sender's part of the receiver's
// region, the last WRITE notifying; then the sender waits until the
// receiver's handler has seen the batch's notification.
func sendLoop(t *freebsd.Thread, c Config, res *Result, h *host, hs []*host, rng *sim.Rand, count int, sub uint32) {
	me := h.n.ID
	N := len(hs)
	srcLen := uint32(len(h.srcData))
	batches := 0
	for sent := 0; sent < count; batches++ {
		j := rng.Intn(N - 1)
		if j >= me {
			j++
		}
		r := hs[j]
		k := min(c.Batch, count-sent)
		type plan struct {
			so, do, size uint32
			ctr          int
		}
		var spans []span
		var plans []plan
		for w := range k {
			size := uint32(1 + rng.Intn(int(c.MaxSize)))
			if rng.Intn(8) == 0 {
				size = 0
			}
			size = min(size, sub)
			var do uint32
			for try := 0; ; try++ {
				do = uint32(rng.Intn(int(sub - size + 1)))
				free := true
				for _, sp := range spans {
					if do < sp.off+sp.n && sp.off < do+size {
						free = false
					}
				}
				if free {
					break
				}
				if try > 20 {
					size, do = 0, 0
					break
				}
			}
			spans = append(spans, span{do, size})
			so := uint32(rng.Intn(int(srcLen - size + 1)))
			ctr := lib.NoCounter
			if w == k-1 || rng.Intn(4) == 0 {
				ctr = h.impCtr[j]
				r.expect[me]++
				res.Notifications++
			}
			plans = append(plans, plan{so, do, size, ctr})
			a := uint32(me)*sub + do
			copy(r.shadow[a:a+size], h.srcData[so:so+size])
		}
		r.pending[me], r.mark[me] = spans, r.expect[me] // before any of it can arrive
		for _, pl := range plans {
			if _, err := h.ep.Write(t, srcBase+pl.so, h.imp[j], uint32(me)*sub+pl.do, pl.size, pl.ctr); err != nil {
				res.violate("node %d: write: %v", me, err)
			}
			res.Writes++
			res.Bytes += uint64(pl.size)
		}
		sent += k
		h.ep.Quiet(t)
		for r.seen[me] < r.expect[me] { // the checker's barrier
			t.Wait(&r.notify[me])
		}
		for _, e := range h.ep.Errors() {
			res.violate("node %d: remote error %+v", me, e)
		}
		// Churn between batches.
		if c.RemapEvery > 0 && rng.Intn(c.RemapEvery) == 0 {
			if err := h.proc.Munmap(t, srcBase, srcLen); err != nil {
				res.violate("node %d: munmap: %v", me, err)
			}
			for k := range h.srcData {
				h.srcData[k] = byte(rng.Uint64())
			}
			if err := h.proc.MmapAt(t, srcBase, srcLen, freebsd.ProtRW); err != nil {
				res.violate("node %d: mmap: %v", me, err)
			}
			h.proc.Write(t, srcBase, h.srcData)
			res.Remaps++
		} else if rng.Intn(3) == 0 { // fresh data in one source page
			p := uint32(rng.Intn(int(srcLen / freebsd.PageSize)))
			for k := p * freebsd.PageSize; k < (p+1)*freebsd.PageSize; k++ {
				h.srcData[k] = byte(rng.Uint64())
			}
			h.proc.Write(t, srcBase+p*freebsd.PageSize, h.srcData[p*freebsd.PageSize:(p+1)*freebsd.PageSize])
		}
		if c.ForkEvery > 0 && rng.Intn(c.ForkEvery) == 0 { // the receiver forks, on its own host
			life := sim.Time(1+rng.Intn(5)) * sim.Millisecond
			res.Forks++
			r.n.Kernel.Go("fork", func(ft *freebsd.Thread) {
				child := r.proc.Fork(ft, r.proc.Name+"-child")
				ft.Sleep(life)
				child.Exit(ft)
			})
		}
	}
}

// atomicLoop is one node's atomic thread: count atomics on the pages of
// random nodes (its own included), each recorded for the checker once its
// reply is in.
func atomicLoop(t *freebsd.Thread, res *Result, h *host, hs []*host, rng *sim.Rand, count int) {
	me := h.n.ID
	N := len(hs)
	for range count {
		j := rng.Intn(N)
		r, imp, ep := hs[j], h.atomImp[j], h.atomEP
		ep.AtomicBlock = rng.Intn(2) == 0
		switch rng.Intn(4) {
		case 0, 1:
			old, err := ep.FetchAdd(t, imp, atomShared, 1)
			if err != nil {
				res.violate("node %d: fetch-and-add: %v", me, err)
				return
			}
			r.sharedOld = append(r.sharedOld, old)
		case 2:
			d := uint32(1 + rng.Intn(1000))
			old, err := ep.FetchAdd(t, imp, atomOwn(me), d)
			if err != nil {
				res.violate("node %d: fetch-and-add: %v", me, err)
				return
			}
			if old != r.adds[me] { // only this thread adds to it
				res.violate("node %d: its word on node %d was %d, want %d", me, j, old, r.adds[me])
			}
			r.adds[me] += d
		default:
			guess := uint32(0)
			for {
				got, err := ep.CompareSwap(t, imp, atomCAS, guess, guess+1)
				if err != nil {
					res.violate("node %d: compare-and-swap: %v", me, err)
					return
				}
				if got == guess {
					r.casIncs++
					break
				}
				guess = got
			}
		}
		res.Atomics++
	}
}

// checkAtomics: on every node, the shared word is the number of its
// fetch-and-adds and their old values are 0 .. n-1 once each; each
// node's own word is the sum it added; the compare-and-swap word is the
// number of successful increments.
func checkAtomics(res *Result, hs []*host) {
	word := func(h *host, off uint32) uint32 {
		var b [4]byte
		if err := h.proc.Peek(atomBase+off, b[:]); err != nil {
			res.violate("node %d: atomic page unreadable: %v", h.n.ID, err)
		}
		return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	}
	for j, h := range hs {
		n := len(h.sharedOld)
		if got := word(h, atomShared); got != uint32(n) {
			res.violate("node %d: shared word %d after %d fetch-and-adds", j, got, n)
		}
		seen := make([]bool, n)
		for _, v := range h.sharedOld {
			if v >= uint32(n) || seen[v] {
				res.violate("node %d: fetch-and-add returned %d twice or out of 0..%d", j, v, n-1)
				break
			}
			seen[v] = true
		}
		for s := range hs {
			if got := word(h, atomOwn(s)); got != h.adds[s] {
				res.violate("node %d: node %d's word is %d, want %d", j, s, got, h.adds[s])
			}
		}
		if got := word(h, atomCAS); got != h.casIncs {
			res.violate("node %d: compare-and-swap word %d after %d increments", j, got, h.casIncs)
		}
	}
}
