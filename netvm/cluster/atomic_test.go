package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// atomicHome exports one page of a process on node home for remote
// atomics (zeroed, resident) and returns the key, the home endpoint and a
// reader of the page's big-endian words.
func atomicHome(t *testing.T, c *Cluster, home int) (uint32, *lib.EP, func(off uint32) uint32) {
	return atomicHomePage(t, c, home, true)
}

// atomicHomePage is atomicHome; resident false leaves the page never
// touched (not resident).
func atomicHomePage(t *testing.T, c *Cluster, home int, resident bool) (uint32, *lib.EP, func(off uint32) uint32) {
	t.Helper()
	p := c.Nodes[home].Kernel.NewProc("home")
	var ep *lib.EP
	var key, va uint32
	runThread(t, c, home, sim.Second, func(th *freebsd.Thread) {
		var err error
		if ep, err = lib.Open(th, c.Nodes[home].Driver, p); err != nil {
			t.Fatal(err)
		}
		va, _ = p.Mmap(th, freebsd.PageSize, freebsd.ProtRW)
		if resident {
			p.Write(th, va, make([]byte, freebsd.PageSize))
		}
		if key, err = ep.ExportAtomic(th, va, freebsd.PageSize, true); err != nil {
			t.Fatal(err)
		}
	})
	word := func(off uint32) uint32 {
		var b [4]byte
		if err := p.Peek(va+off, b[:]); err != nil {
			t.Fatal(err)
		}
		return binary.BigEndian.Uint32(b[:])
	}
	return key, ep, word
}

// atomicClients starts perNode threads on each of nodes, each with its
// own process and endpoint importing the home's atomic page, and runs fn
// in each (i numbers the threads). It returns when all are done.
func atomicClients(t *testing.T, c *Cluster, nodes []int, perNode, home int, homeEP *lib.EP, key uint32,
	fn func(th *freebsd.Thread, i int, ep *lib.EP, imp int) error) {
	t.Helper()
	done, want := 0, 0
	for _, n := range nodes {
		for k := range perNode {
			i := want
			want++
			p := c.Nodes[n].Kernel.NewProc(fmt.Sprintf("client%d", i))
			c.Nodes[n].Kernel.Go("client", func(th *freebsd.Thread) {
				defer func() { done++ }()
				ep, err := lib.Open(th, c.Nodes[n].Driver, p)
				if err != nil {
					t.Errorf("client %d: open: %v", i, err)
					return
				}
				ep.AtomicBlock = k%2 == 1 // both wait modes
				imp, err := ep.Import(th, home, homeEP.Index, key, freebsd.PageSize, abi.ExpKindAtomic)
				if err != nil {
					t.Errorf("client %d: import: %v", i, err)
					return
				}
				if err := fn(th, i, ep, imp); err != nil {
					t.Errorf("client %d: %v", i, err)
				}
			})
		}
	}
	end := c.Now() + 5*sim.Second
	for done < want {
		if c.Now() >= end {
			t.Fatalf("%d of %d clients done by %v", done, want, end)
		}
		if err := c.Run(c.Now() + 100*sim.Microsecond); err != nil {
			t.Fatal(err)
		}
	}
}

// Many threads on two nodes add to one word of a third node's memory:
// the final value is the number of increments (no update lost or applied
// twice), and the old values returned are exactly 0 .. n-1, each once
// (every fetch-and-add saw a distinct state: they were atomic). A
// compare-and-swap increment loop on a second word from the same threads
// ends at its number of successes, and each success saw the value it
// expected.
func TestAtomicContention(t *testing.T) {
	const perNode, adds, casIncs = 4, 25, 10
	c, err := New(Config{Nodes: 3, Frames: 2048})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	key, homeEP, word := atomicHome(t, c, 2)
	olds := []uint32{}
	casFails := 0
	atomicClients(t, c, []int{0, 1}, perNode, 2, homeEP, key, func(th *freebsd.Thread, i int, ep *lib.EP, imp int) error {
		for range adds {
			old, err := ep.FetchAdd(th, imp, 0, 1)
			if err != nil {
				return err
			}
			olds = append(olds, old)
		}
		guess := uint32(0)
		for n := 0; n < casIncs; {
			got, err := ep.CompareSwap(th, imp, 4, guess, guess+1)
			if err != nil {
				return err
			}
			if got == guess { // swapped: the word holds guess+1
				n++
				guess++
			} else {
				casFails++
				guess = got
			}
		}
		return nil
	})
	total := 2 * perNode * adds
	if got := word(0); got != uint32(total) {
		t.Errorf("fetch-and-add word = %d, want %d", got, total)
	}
	sort.Slice(olds, func(a, b int) bool { return olds[a] < olds[b] })
	for i, v := range olds {
		if v != uint32(i) {
			t.Fatalf("old values: position %d holds %d (want 0..%d each once)", i, v, total-1)
		}
	}
	if got := word(4); got != uint32(2*perNode*casIncs) {
		t.Errorf("compare-and-swap word = %d, want %d", got, 2*perNode*casIncs)
	}
	t.Logf("%d threads on 2 nodes: %d fetch-and-adds, %d CAS increments (%d failed CAS), at %v",
		2*perNode, total, 2*perNode*casIncs, casFails, c.Now())
}

// Atomics the firmware must refuse: a misaligned word, a word past the
// region, an import of a plain region, a home export without write
// permission. Each fails with an error and changes nothing.
func TestAtomicRefused(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	key, homeEP, word := atomicHome(t, c, 1)
	atomicClients(t, c, []int{0}, 1, 1, homeEP, key, func(th *freebsd.Thread, _ int, ep *lib.EP, imp int) error {
		if _, err := ep.FetchAdd(th, imp, 2, 1); !errors.Is(err, lib.ErrBadArg) {
			return fmt.Errorf("misaligned: %v", err)
		}
		if _, err := ep.FetchAdd(th, imp, freebsd.PageSize, 1); !errors.Is(err, lib.ErrAtomic) {
			return fmt.Errorf("past the region: %v", err)
		}
		t0 := th.Now()
		if old, err := ep.FetchAdd(th, imp, freebsd.PageSize-4, 7); err != nil || old != 0 {
			return fmt.Errorf("last word: %d, %v", old, err)
		}
		t.Logf("one uncontended fetch-and-add (busy wait): %v", th.Now()-t0)
		return nil
	})
	if got := word(freebsd.PageSize - 4); got != 7 {
		t.Errorf("last word = %d, want 7", got)
	}
}

// An atomic on a word whose page is not resident is not redirected: the
// home NACKs it (StatusRNR) and asks its host to fault the page in
// (EvRecvFault); the requester's retransmission then applies it, once.
func TestAtomicNonResident(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	key, homeEP, word := atomicHomePage(t, c, 1, false)
	atomicClients(t, c, []int{0}, 1, 1, homeEP, key, func(th *freebsd.Thread, _ int, ep *lib.EP, imp int) error {
		for i := range 3 {
			if old, err := ep.FetchAdd(th, imp, 8, 5); err != nil || old != uint32(5*i) {
				return fmt.Errorf("fetch-and-add %d: old %d, %v", i, old, err)
			}
		}
		return nil
	})
	if got := word(8); got != 15 {
		t.Errorf("word = %d, want 15", got)
	}
	if st := c.Nodes[1].Driver.Stats(); st.RecvFaults == 0 || st.RecvFaultsServed == 0 {
		t.Errorf("home driver: %d EvRecvFault, %d served; want the page faulted in", st.RecvFaults, st.RecvFaultsServed)
	}
}

// The atomic semaphore as a mutex (one unit) between threads of two
// nodes: inside, each thread adds 1 to an occupancy word and must find it
// 0 (nobody else inside), then takes it back; every P returns, and the
// semaphore's count ends at its one unit. Then the ticket queue: waiters
// on both nodes, woken one by one from node 0: after the k-th wake
// exactly k waiters have left, in ticket order.
func TestAtomicSemaphoreAndTicketQueue(t *testing.T) {
	const perNode, rounds = 3, 6
	c, err := New(Config{Nodes: 3, Frames: 2048})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	key, homeEP, word := atomicHome(t, c, 2)
	const sem, occ, queue = 0, 64, 128
	entries, inside := 0, 0
	atomicClients(t, c, []int{0}, 1, 2, homeEP, key, func(th *freebsd.Thread, _ int, ep *lib.EP, imp int) error {
		return (&lib.AtomicSemaphore{EP: ep, Imp: imp, Off: sem}).V(th) // one unit
	})
	atomicClients(t, c, []int{0, 1}, perNode, 2, homeEP, key, func(th *freebsd.Thread, _ int, ep *lib.EP, imp int) error {
		s := &lib.AtomicSemaphore{EP: ep, Imp: imp, Off: sem}
		for range rounds {
			if err := s.P(th); err != nil {
				return err
			}
			if old, err := ep.FetchAdd(th, imp, occ, 1); err != nil || old != 0 {
				inside++
				return fmt.Errorf("entered with occupancy %d (%v)", old, err)
			}
			entries++
			th.Sleep(3 * sim.Microsecond)
			if _, err := ep.FetchAdd(th, imp, occ, ^uint32(0)); err != nil {
				return err
			}
			if err := s.V(th); err != nil {
				return err
			}
		}
		return nil
	})
	if entries != 2*perNode*rounds || inside != 0 || int32(word(sem)) != 1 {
		t.Errorf("semaphore: %d entries (want %d), %d overlaps, count %d (want 1)", entries, 2*perNode*rounds, inside, int32(word(sem)))
	}
	t.Logf("semaphore: %d threads on 2 nodes, %d exclusive entries, %d waits (tickets), at %v", 2*perNode, entries, word(sem+4), c.Now())

	// The ticket queue.
	left := []uint32{}
	waiting := 0
	const waiters = 2 * perNode
	for _, n := range []int{0, 1} {
		for range perNode {
			p := c.Nodes[n].Kernel.NewProc("waiter")
			c.Nodes[n].Kernel.Go("waiter", func(th *freebsd.Thread) {
				ep, err := lib.Open(th, c.Nodes[n].Driver, p)
				if err == nil {
					var imp int
					if imp, err = ep.Import(th, 2, homeEP.Index, key, freebsd.PageSize, abi.ExpKindAtomic); err == nil {
						waiting++
						var tk uint32
						tk, err = (&lib.TicketQueue{EP: ep, Imp: imp, Off: queue}).Wait(th)
						left = append(left, tk)
					}
				}
				if err != nil {
					t.Errorf("waiter: %v", err)
				}
			})
		}
	}
	atomicClients(t, c, []int{0}, 1, 2, homeEP, key, func(th *freebsd.Thread, _ int, ep *lib.EP, imp int) error {
		q := &lib.TicketQueue{EP: ep, Imp: imp, Off: queue}
		for word(queue) < waiters { // every waiter has its ticket
			th.Sleep(20 * sim.Microsecond)
			if th.Now() > 100*sim.Millisecond {
				for i, nd := range c.Nodes {
					t.Logf("node %d: tx %d rx %d retx %d dup %d nack %d waw %d rnr %d credit %d peerdead %d remoteerr %d", i,
						nd.Stat(abi.StatTxData), nd.Stat(abi.StatRxData), nd.Stat(abi.StatRetx), nd.Stat(abi.StatDup), nd.Stat(abi.StatNack),
						nd.Stat(abi.StatWAWStall), nd.Stat(abi.StatRecvFault), nd.Stat(abi.StatCreditStall), nd.Stat(abi.StatPeerDead), nd.Stat(abi.StatRemoteErr))
				}
				return fmt.Errorf("tickets %d serving %d waiting %d", word(queue), word(queue+4), waiting)
			}
		}
		for k := 1; k <= waiters; k++ {
			if err := q.Wake(th); err != nil {
				return err
			}
			th.Sleep(200 * sim.Microsecond) // time for the woken one's next poll
			if len(left) != k {
				return fmt.Errorf("after wake %d: %d waiters left", k, len(left))
			}
			if left[k-1] != uint32(k-1) {
				return fmt.Errorf("wake %d let ticket %d go", k, left[k-1])
			}
		}
		return nil
	})
	if len(left) != waiters {
		t.Errorf("%d of %d waiters left", len(left), waiters)
	}
}

// An atomic the home refuses (its export is read-only: StatusPerm) comes
// back as a remote error: FetchAdd returns ErrAtomic with the status, in
// both wait modes, instead of waiting for a reply that never comes; the
// word is unchanged, and the endpoint's next atomic, on a writable
// export, works.
func TestAtomicRefusedByHome(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	key, writableEP, word := atomicHome(t, c, 1)
	p := c.Nodes[1].Kernel.NewProc("home-ro")
	var roKey uint32
	var roEP *lib.EP
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		ep, err := lib.Open(th, c.Nodes[1].Driver, p)
		if err != nil {
			t.Fatal(err)
		}
		va, _ := p.Mmap(th, freebsd.PageSize, freebsd.ProtRW)
		p.Write(th, va, make([]byte, freebsd.PageSize))
		if roKey, err = ep.ExportAtomic(th, va, freebsd.PageSize, false); err != nil {
			t.Fatal(err)
		}
		roEP = ep
	})
	atomicClients(t, c, []int{0}, 2, 1, roEP, roKey, func(th *freebsd.Thread, i int, ep *lib.EP, imp int) error {
		t0 := th.Now()
		_, err := ep.FetchAdd(th, imp, 0, 1)
		if !errors.Is(err, lib.ErrAtomic) || !strings.Contains(err.Error(), fmt.Sprint("status ", abi.StatusPerm)) {
			return fmt.Errorf("refused fetch-and-add (block %v): got %v, want ErrAtomic with status %d", ep.AtomicBlock, err, abi.StatusPerm)
		}
		if d := th.Now() - t0; d > sim.Millisecond {
			return fmt.Errorf("the refusal took %v", d)
		}
		t.Logf("refused by the home (block %v) in %v: %v", ep.AtomicBlock, th.Now()-t0, err)
		good, err := ep.Import(th, 1, writableEP.Index, key, freebsd.PageSize, abi.ExpKindAtomic)
		if err != nil {
			return err
		}
		if _, err := ep.FetchAdd(th, good, 0, 1); err != nil {
			return fmt.Errorf("the next atomic: %v", err)
		}
		return nil
	})
	if got := word(0); got != 2 {
		t.Errorf("writable word = %d, want 2 (one add per client)", got)
	}
}

// Atomics on a word of the requester's own node (a loopback): the NIC
// applies them itself, under the SPT lock, and writes the reply into the
// requester's reply page with its counter, as the home of a remote
// requester would. Threads on the home node and on a remote node contend
// for the same word, on a switch and back to back (where there is no
// route to self): no update is lost or applied twice, and a word past
// the region or on a page that is not resident behaves as remotely.
func TestAtomicLoopback(t *testing.T) {
	for _, b2b := range []bool{false, true} {
		t.Run(fmt.Sprintf("back-to-back=%v", b2b), func(t *testing.T) {
			const perNode, adds, casIncs = 2, 20, 8
			c, err := New(Config{Nodes: 2, Frames: 2048, BackToBack: b2b})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Shutdown()
			key, homeEP, word := atomicHome(t, c, 1)
			olds := []uint32{}
			atomicClients(t, c, []int{1, 0}, perNode, 1, homeEP, key, func(th *freebsd.Thread, i int, ep *lib.EP, imp int) error {
				for range adds {
					old, err := ep.FetchAdd(th, imp, 0, 1)
					if err != nil {
						return err
					}
					olds = append(olds, old)
				}
				for n, guess := 0, uint32(0); n < casIncs; {
					got, err := ep.CompareSwap(th, imp, 4, guess, guess+1)
					if err != nil {
						return err
					}
					if got == guess {
						n++
						guess++
					} else {
						guess = got
					}
				}
				if _, err := ep.FetchAdd(th, imp, freebsd.PageSize, 1); !errors.Is(err, lib.ErrAtomic) {
					return fmt.Errorf("past the region: %v", err)
				}
				return nil
			})
			total := 2 * perNode * adds
			if got := word(0); got != uint32(total) {
				t.Errorf("fetch-and-add word = %d, want %d", got, total)
			}
			sort.Slice(olds, func(a, b int) bool { return olds[a] < olds[b] })
			for i, v := range olds {
				if v != uint32(i) {
					t.Fatalf("old values: position %d holds %d (want 0..%d each once)", i, v, total-1)
				}
			}
			if got := word(4); got != uint32(2*perNode*casIncs) {
				t.Errorf("compare-and-swap word = %d, want %d", got, 2*perNode*casIncs)
			}
			if n := c.Nodes[1].Stat(abi.StatPeerDead); n != 0 {
				t.Errorf("home: %d peers declared dead", n)
			}
		})
	}
}

// A loopback atomic on a page that is not resident: the NIC asks its
// host to fault the page in (EvRecvFault) and applies the atomic once it
// is.
func TestAtomicLoopbackNonResident(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	key, homeEP, word := atomicHomePage(t, c, 1, false)
	atomicClients(t, c, []int{1}, 1, 1, homeEP, key, func(th *freebsd.Thread, _ int, ep *lib.EP, imp int) error {
		for i := range 3 {
			if old, err := ep.FetchAdd(th, imp, 8, 5); err != nil || old != uint32(5*i) {
				return fmt.Errorf("fetch-and-add %d: old %d, %v", i, old, err)
			}
		}
		return nil
	})
	if got := word(8); got != 15 {
		t.Errorf("word = %d, want 15", got)
	}
	if n := c.Nodes[1].Stat(abi.StatRecvFault); n == 0 {
		t.Errorf("no EvRecvFault counted for the page that was not resident")
	}
}
