package freebsd

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/hostbus"
	"lanaiemu/sim"
)

// newHost makes a kernel managing frames pages of a fresh host memory.
func newHost(t *testing.T, frames int) *Kernel {
	t.Helper()
	hm, err := hostbus.NewHostMemory(uint64(frames+16) * PageSize)
	if err != nil {
		t.Fatal(err)
	}
	k := NewKernel(&sim.Queue{}, 0, DefaultTiming(), Memory{Host: hm, First: 16, Frames: frames})
	t.Cleanup(k.Shutdown)
	return k
}

// run runs fn as a thread to its end (or fails after limit).
func run(t *testing.T, k *Kernel, limit sim.Time, fn func(th *Thread)) {
	t.Helper()
	done := false
	k.Go("test", func(th *Thread) { fn(th); done = true })
	end := k.Now() + limit
	for !done && k.Q.Len() > 0 && k.Q.Next() <= end {
		k.Q.RunUntil(k.Q.Next())
	}
	if !done {
		t.Fatalf("thread not done by %v", end)
	}
}

// mustOK fails the test on an invariant violation.
func mustOK(t *testing.T, k *Kernel) {
	t.Helper()
	if err := k.Err(); err != nil {
		t.Fatal(err)
	}
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*13)
	}
	return b
}

// Threads share one CPU in order, sleep without it, and wait on queues;
// the order of events is the same on every run.
func TestThreads(t *testing.T) {
	k := newHost(t, 16)
	var log []string
	at := func(th *Thread, what string) { log = append(log, fmt.Sprintf("%v %s %s", th.Now(), th.Name, what)) }
	var wq WaitQueue
	k.Go("a", func(th *Thread) {
		th.Compute(10 * sim.Microsecond)
		at(th, "computed")
		th.Wait(&wq)
		at(th, "woken")
	})
	k.Go("b", func(th *Thread) {
		th.Compute(5 * sim.Microsecond) // queues behind a's 10 us
		at(th, "computed")
		th.Sleep(20 * sim.Microsecond)
		k.Wakeup(&wq, k.Timing.Wakeup)
		at(th, "woke a")
	})
	k.Q.RunUntil(sim.Millisecond)
	want := []string{"10.000us a computed", "15.000us b computed", "35.000us b woke a", "38.000us a woken"}
	if d := cmp.Diff(want, log); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
	if k.CPUBusy() != 15*sim.Microsecond {
		t.Fatalf("CPU busy %v", k.CPUBusy())
	}
}

// Zero fill, reads and writes through the process's mappings, and the
// protection checks.
func TestFaultAndAccess(t *testing.T) {
	k := newHost(t, 64)
	p := k.NewProc("p")
	run(t, k, sim.Second, func(th *Thread) {
		va, err := p.Mmap(th, 3*PageSize, ProtRW)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 100)
		if err := p.Read(th, va+PageSize+10, buf); err != nil || !bytes.Equal(buf, make([]byte, 100)) {
			t.Fatalf("fresh memory reads %x, %v", buf[:8], err)
		}
		msg := pattern(5000, 1) // crosses a page boundary
		if err := p.Write(th, va+100, msg); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if err := p.Read(th, va+100, got); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("read back differs: %v", err)
		}
		if err := p.Write(th, va+3*PageSize, []byte{1}); !errors.Is(err, ErrFault) {
			t.Fatalf("write past the mapping: %v", err)
		}
		ro, _ := p.Mmap(th, PageSize, ProtRead)
		if err := p.Write(th, ro, []byte{1}); !errors.Is(err, ErrFault) {
			t.Fatalf("write to a read-only mapping: %v", err)
		}
		if err := p.Munmap(th, va, PageSize); !errors.Is(err, ErrInval) {
			t.Fatalf("partial munmap: %v", err)
		}
		if err := p.Munmap(th, va, 3*PageSize); err != nil {
			t.Fatal(err)
		}
		if err := p.Read(th, va, buf); !errors.Is(err, ErrFault) {
			t.Fatalf("read after munmap: %v", err)
		}
	})
	mustOK(t, k)
	if s := k.VMStats(); s.ZeroFills != 2 || s.FreePages != 64 { // the read-only page was never touched
		t.Fatalf("stats %+v", s)
	}
}

// recorder is a Hooks that logs and can sleep in Removing, as a driver
// waiting for a NIC's lock would.
type recorder struct {
	log         []string
	removeSleep sim.Time
	dirty       bool
}

func (r *recorder) Entered(t *Thread, p *Proc, va uint32, m *Page, prot Prot) {
	r.log = append(r.log, fmt.Sprintf("enter %s %#x prot %d", p.Name, va, prot))
}

func (r *recorder) Removing(t *Thread, p *Proc, va uint32, m *Page) bool {
	r.log = append(r.log, fmt.Sprintf("remove %s %#x", p.Name, va))
	if r.removeSleep > 0 {
		t.Sleep(r.removeSleep)
	}
	return r.dirty
}

func (r *recorder) Protecting(t *Thread, p *Proc, va uint32, m *Page, prot Prot) {
	r.log = append(r.log, fmt.Sprintf("protect %s %#x prot %d", p.Name, va, prot))
}

// Memory pressure: a process touches twice the memory there is; the page
// daemon evicts (through the hooks) and the pager brings pages back, and
// every byte reads back as written. Wired pages are never evicted and
// stay mapped.
func TestPageoutAndSwap(t *testing.T) {
	const frames, pages = 64, 128
	k := newHost(t, frames)
	k.StartPageout()
	p := k.NewProc("big")
	rec := &recorder{}
	p.Hooks = rec
	run(t, k, 100*sim.Second, func(th *Thread) {
		w, _ := p.Mmap(th, 4*PageSize, ProtRW)
		if err := p.Write(th, w, pattern(4*PageSize, 0x55)); err != nil {
			t.Fatal(err)
		}
		if err := p.Wire(th, w, 4*PageSize, true); err != nil {
			t.Fatal(err)
		}
		va, _ := p.Mmap(th, pages*PageSize, ProtRW)
		for i := range pages {
			if err := p.Write(th, va+uint32(i)*PageSize, pattern(PageSize, byte(i))); err != nil {
				t.Fatal(err)
			}
		}
		for i := range pages {
			got := make([]byte, PageSize)
			if err := p.Read(th, va+uint32(i)*PageSize, got); err != nil || !bytes.Equal(got, pattern(PageSize, byte(i))) {
				t.Fatalf("page %d lost (%v)", i, err)
			}
		}
		for i := range 4 {
			if m, _ := p.Mapped(w + uint32(i)*PageSize); m == nil || m.Wire != 1 {
				t.Fatalf("wired page %d was evicted", i)
			}
		}
		got := make([]byte, 4*PageSize)
		if err := p.Read(th, w, got); err != nil || !bytes.Equal(got, pattern(4*PageSize, 0x55)) {
			t.Fatal("wired data changed")
		}
	})
	mustOK(t, k)
	s := k.VMStats()
	if s.Evictions < pages-frames || s.PageIns == 0 || s.PageOuts == 0 {
		t.Fatalf("stats %+v", s)
	}
	removes := 0
	for _, l := range rec.log {
		if strings.HasPrefix(l, "remove") {
			removes++
		}
	}
	if d := removes - s.Evictions; d != 0 && d != 1 { // the daemon may be writing one page out now
		t.Fatalf("%d evictions but %d Removing hooks", s.Evictions, removes)
	}
	t.Logf("%+v", s)
}

// Fork: the parent's writable mappings are write-protected through the
// hooks; each side's first write copies the page; neither sees the
// other's writes afterwards.
func TestForkCopyOnWrite(t *testing.T) {
	k := newHost(t, 64)
	p := k.NewProc("parent")
	rec := &recorder{}
	p.Hooks = rec
	run(t, k, sim.Second, func(th *Thread) {
		va, _ := p.Mmap(th, 2*PageSize, ProtRW)
		if err := p.Write(th, va, pattern(2*PageSize, 7)); err != nil {
			t.Fatal(err)
		}
		rec.log = nil
		c := p.Fork(th, "child")
		if want := fmt.Sprintf("protect parent %#x prot 1; protect parent %#x prot 1", va, va+PageSize); strings.Join(rec.log, "; ") != want {
			t.Fatalf("hooks at fork: %q, want %q", rec.log, want)
		}
		got := make([]byte, 2*PageSize)
		if err := c.Read(th, va, got); err != nil || !bytes.Equal(got, pattern(2*PageSize, 7)) {
			t.Fatal("child does not see the parent's data")
		}
		if m0, _ := p.Mapped(va); m0 == nil {
			t.Fatal("parent lost its mapping at fork")
		} else if mc, _ := c.Mapped(va); mc != m0 {
			t.Fatal("the child's read did not share the page")
		}
		if err := c.Write(th, va, []byte("child")); err != nil {
			t.Fatal(err)
		}
		if err := p.Write(th, va+PageSize, []byte("parent")); err != nil {
			t.Fatal(err)
		}
		pb, cb := make([]byte, 6), make([]byte, 6)
		p.Read(th, va, pb)
		c.Read(th, va+PageSize, cb)
		if !bytes.Equal(pb, pattern(6, 7)) || !bytes.Equal(cb, pattern(2*PageSize, 7)[PageSize:PageSize+6]) {
			t.Fatalf("writes leaked across the fork: parent %q child %q", pb, cb)
		}
		c.Exit(th)
		p.Exit(th)
	})
	mustOK(t, k)
	if s := k.VMStats(); s.COWCopies != 2 || s.FreePages != 64 {
		t.Fatalf("stats %+v", s)
	}
}

// A hook that sleeps (a driver waiting for the NIC's lock) holds the
// page: it is freed only after the hook returns. A checker that says the
// frame is still in use stops the run with a report.
func TestHooksHoldThePage(t *testing.T) {
	k := newHost(t, 16)
	p := k.NewProc("p")
	rec := &recorder{removeSleep: 50 * sim.Microsecond, dirty: true}
	p.Hooks = rec
	var locked uint32
	k.AddChecker(func(pfn uint32) (bool, string) { return pfn == locked, "the NIC holds L on it" })
	var freedAt sim.Time
	run(t, k, sim.Second, func(th *Thread) {
		va, _ := p.Mmap(th, PageSize, ProtRW)
		p.Write(th, va, []byte{1})
		m, _ := p.Mapped(va)
		m.Dirty = false
		t0 := th.Now()
		if !p.Evict(th, va) {
			t.Fatal("not evicted")
		}
		freedAt = th.Now() - t0
		if k.VMStats().PageOuts != 1 {
			t.Fatal("the hook's dirty bit did not make the page go to swap")
		}
		p.Write(th, va, []byte{2})
		m, _ = p.Mapped(va)
		locked = m.PFN
		p.Evict(th, va)
	})
	if freedAt < 50*sim.Microsecond {
		t.Fatalf("freed %v after the eviction began, before the hook returned", freedAt)
	}
	if err := k.Err(); err == nil || !strings.Contains(err.Error(), "the NIC holds L") {
		t.Fatalf("checker violation not reported: %v", err)
	}
}

// A mapping torn down (munmap) while the page daemon is writing one of
// its pages out: the release waits for the busy page and finds it gone,
// instead of freeing it a second time (found by netvm stress seed 11: a
// frame in use twice). Also two faults on one page: one page-in.
func TestReleaseDuringPageout(t *testing.T) {
	k := newHost(t, 16)
	p := k.NewProc("p")
	p.Hooks = &recorder{removeSleep: 50 * sim.Microsecond}
	var va uint32
	run(t, k, sim.Second, func(th *Thread) {
		va, _ = p.Mmap(th, PageSize, ProtRW)
		p.Write(th, va, []byte{1, 2, 3})
	})
	k.Go("evictor", func(th *Thread) { p.Evict(th, va) })
	run(t, k, sim.Second, func(th *Thread) {
		th.Sleep(10 * sim.Microsecond) // the evictor is in its hook
		if err := p.Munmap(th, va, PageSize); err != nil {
			t.Fatal(err)
		}
	})
	k.Q.RunUntil(k.Now() + 20*sim.Millisecond)
	mustOK(t, k)
	if s := k.VMStats(); s.FreePages != 16 {
		t.Fatalf("free pages %d, want 16", s.FreePages)
	}
	// Two threads fault the same swapped-out page: one page-in.
	q := k.NewProc("q")
	run(t, k, sim.Second, func(th *Thread) {
		va, _ = q.Mmap(th, PageSize, ProtRW)
		q.Write(th, va, []byte{9})
		q.Evict(th, va)
	})
	before := k.VMStats().PageIns
	got := make([][]byte, 2)
	for i := range 2 {
		k.Go("reader", func(th *Thread) {
			got[i] = make([]byte, 1)
			q.Read(th, va, got[i])
		})
	}
	k.Q.RunUntil(k.Now() + 50*sim.Millisecond)
	mustOK(t, k)
	if n := k.VMStats().PageIns - before; n != 1 || got[0][0] != 9 || got[1][0] != 9 {
		t.Fatalf("%d page-ins, read %v", n, got)
	}
}

// Wiring stops at a third of memory (vm_page_max_wired): a Wire that
// would pass it fails with ErrNoMem and wires nothing; pages wired twice
// count once; Unwire and munmap give the room back.
func TestWireLimit(t *testing.T) {
	k := newHost(t, 300)
	if k.MaxWired() != 100 {
		t.Errorf("MaxWired %d, want 100", k.MaxWired())
	}
	p := k.NewProc("locker")
	run(t, k, sim.Second, func(th *Thread) {
		a, _ := p.Mmap(th, 90*PageSize, ProtRW)
		b, _ := p.Mmap(th, 20*PageSize, ProtRW)
		if err := p.Wire(th, a, 90*PageSize, true); err != nil {
			t.Error(err)
			return
		}
		if err := p.Wire(th, a, 90*PageSize, true); err != nil { // again: no new pages
			t.Errorf("wiring wired pages again: %v", err)
		}
		if err := p.Wire(th, b, 20*PageSize, true); !errors.Is(err, ErrNoMem) {
			t.Errorf("past the limit: %v, want ErrNoMem", err)
		}
		if m, _ := p.Mapped(b); m != nil && m.Wire > 0 {
			t.Error("a failed Wire wired a page")
		}
		p.Unwire(th, a, 90*PageSize)
		p.Unwire(th, a+80*PageSize, 10*PageSize) // the second wiring of the last 10 pages
		if err := p.Wire(th, b, 20*PageSize, true); err != nil {
			t.Errorf("after unwiring 10 pages: %v", err)
		}
		if err := p.Munmap(th, b, 20*PageSize); err != nil {
			t.Error(err)
			return
		}
		c, _ := p.Mmap(th, 20*PageSize, ProtRW)
		if err := p.Wire(th, c, 20*PageSize, true); err != nil {
			t.Errorf("after munmap of 20 wired pages: %v", err)
		}
	})
	mustOK(t, k)
}

// A kernel keeps only the threads that have not ended: it held every
// thread it ever made, which in a long stress run (a handler per
// notification, forks' children) grew without bound.
func TestFinishedThreadsDropped(t *testing.T) {
	k := newHost(t, 64)
	run(t, k, sim.Second, func(th *Thread) {
		for range 10000 {
			k.Go("short", func(*Thread) {})
			th.Sleep(sim.Microsecond)
		}
	})
	if n := len(k.threads); n > 64 {
		t.Errorf("the kernel holds %d threads after 10000 ended", n)
	}
}

// A process that forks again and again (netvm stress's receivers) keeps
// a bounded object chain and swap: each fork used to leave a level in
// the chain, and every page of it the page daemon wrote out a swap copy
// that no lookup could reach, for the process's life; the kernel also
// kept every exited child. The data reads back as written throughout.
// The bounds hold for any number of forks.
func TestForksLeaveBoundedChains(t *testing.T) {
	const frames, pages, forks = 24, 16, 300
	k := newHost(t, frames)
	k.StartPageout()
	p := k.NewProc("parent")
	rng := sim.NewRand(1)
	run(t, k, 1000*sim.Second, func(th *Thread) {
		va, _ := p.Mmap(th, pages*PageSize, ProtRW)
		want := make([]byte, pages*PageSize)
		for i := range want {
			want[i] = byte(rng.Uint64())
		}
		if err := p.Write(th, va, want); err != nil {
			t.Fatal(err)
		}
		var child *Proc
		for f := range forks {
			if child != nil && rng.Intn(2) == 0 { // sometimes the child outlives the next fork
				child.Exit(th)
				child = nil
			}
			c := p.Fork(th, "child")
			for range 1 + rng.Intn(pages) { // the parent copies some pages up
				off := uint32(rng.Intn(pages*PageSize - 64))
				for i := range 64 {
					want[off+uint32(i)] = byte(rng.Uint64())
				}
				if err := p.Write(th, va+off, want[off:off+64]); err != nil {
					t.Fatal(err)
				}
			}
			buf := make([]byte, PageSize)
			c.Read(th, va+uint32(rng.Intn(pages))*PageSize, buf) // the child pages some in
			if child != nil {
				child.Exit(th)
			}
			child = c
			got := make([]byte, len(want))
			if err := p.Peek(va, got); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("fork %d: the parent's data changed", f)
			}
			levels, swapped := 0, 0
			for o := p.entries[0].obj; o != nil; o = o.backing {
				levels++
				swapped += len(o.swap)
			}
			// (300 levels and about 1900 copies without the pruning; the
			// live children's levels and the copies written since the
			// last fork are pruned at the next)
			if levels > 2*pages || swapped > 4*pages || len(k.Procs()) > 3 {
				t.Fatalf("fork %d: %d objects in the chain holding %d swap copies, %d processes", f, levels, swapped, len(k.Procs()))
			}
		}
	})
	mustOK(t, k)
	if s := k.VMStats(); s.PageOuts == 0 || s.PageIns == 0 || s.COWCopies == 0 {
		t.Fatalf("the test did not page: %+v", s)
	}
}

// Dropping the ended threads costs O(1) per thread made, also when the
// live ones fill the list: with 511 live threads in a list of 512, each
// new thread rescanned all of them to drop the one ended before it.
func TestFinishedThreadsDroppedCheaply(t *testing.T) {
	k := newHost(t, 64)
	var q WaitQueue
	const short = 2000
	scanned := 0
	run(t, k, sim.Second, func(th *Thread) {
		for len(k.threads) < 500 || len(k.threads) != cap(k.threads)-1 {
			k.Go("live", func(lt *Thread) { lt.Wait(&q) })
		}
		th.Sleep(sim.Microsecond)
		for range short {
			if len(k.threads) == cap(k.threads) {
				scanned += len(k.threads)
			}
			k.Go("short", func(*Thread) {})
			th.Sleep(sim.Microsecond)
		}
	})
	if scanned > 4*short {
		t.Errorf("%d threads made with %d live: %d threads scanned, want O(1) per thread", short, q.Waiting(), scanned)
	}
}
