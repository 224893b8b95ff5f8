package freebsd

import (
	"errors"
	"fmt"
	"slices"

	"lanaiemu/hostbus"
)

// Errors of the VM system, as FreeBSD's errno values.
var (
	// ErrFault: no mapping covers the address, or the access breaks its
	// protection (EFAULT, SIGSEGV).
	ErrFault = errors.New("freebsd: bad address (EFAULT)")
	// ErrInval: a range that is not page aligned or not one mapping
	// (EINVAL).
	ErrInval = errors.New("freebsd: invalid argument (EINVAL)")
	// ErrNoMem: no virtual address space or wiring left (ENOMEM).
	ErrNoMem = errors.New("freebsd: cannot allocate memory (ENOMEM)")
)

// PageSize is the i386 page size.
const PageSize = 4096

// Prot is a protection (VM_PROT_*).
type Prot uint8

// Protections.
const (
	ProtNone  Prot = 0
	ProtRead  Prot = 1
	ProtWrite Prot = 2
	ProtRW         = ProtRead | ProtWrite
)

// PageQueue is the queue a page is on (vm_page's queue field).
type PageQueue uint8

// Page queues. Wired, busy-for-good and kernel pages are on none.
const (
	QNone PageQueue = iota
	QFree
	QActive
	QInactive
)

// Page is a physical page (struct vm_page).
type Page struct {
	// PFN is the frame number in host memory.
	PFN uint32
	// Wire is the wire count (mlock, vslock); a wired page is on no
	// queue and never paged out.
	Wire int
	// Hold is the hold count (vm_page_hold): the page daemon skips it.
	Hold int
	// Busy is PG_BUSY: the page is being paged in or out.
	Busy bool
	// Dirty and Ref are the modified and referenced bits (harvested from
	// the pmap and the NIC's D bit).
	Dirty, Ref bool

	queue      PageQueue
	next, prev *Page
	obj        *Object
	index      uint32
	pv         []mapping // every (pmap, va) that maps the page
}

// Object is an anonymous memory object (a vm_object of type OBJT_DEFAULT
// or OBJT_SWAP), possibly a shadow of another for copy-on-write.
type Object struct {
	id      int
	pages   map[uint32]*Page
	swap    map[uint32][]byte // pages on the swap device
	backing *Object
	ref     int
}

// Memory is the physical memory the VM system manages: frames
// [First, First+Frames) of a host memory.
type Memory struct {
	Host   *hostbus.HostMemory
	First  uint32
	Frames int
}

// Stats counts what the VM system did.
type Stats struct {
	Faults, MajorFaults, ZeroFills, COWCopies int
	PageIns, PageOuts, Evictions, Reactivated int
	PageoutScans, AllocWaits, BusyWaits       int
	FreePages, ActivePages, InactivePages     int
	WiredPages                                int
}

// Checker is called before a frame is freed or reused; it reports
// whether something outside the VM (a NIC holding the page locked) still
// uses it. A true answer is an invariant violation that stops the run.
type Checker func(pfn uint32) (busy bool, why string)

type pageList struct {
	head, tail *Page
	n          int
}

func (l *pageList) push(m *Page) {
	m.prev, m.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = m
	} else {
		l.head = m
	}
	l.tail = m
	l.n++
}

func (l *pageList) remove(m *Page) {
	if m.prev != nil {
		m.prev.next = m.next
	} else {
		l.head = m.next
	}
	if m.next != nil {
		m.next.prev = m.prev
	} else {
		l.tail = m.prev
	}
	m.next, m.prev = nil, nil
	l.n--
}

type vmState struct {
	k                       *Kernel
	mem                     Memory
	pages                   []Page // indexed by PFN - First
	free, active, inactive  pageList
	freeMin, freeTarget     int
	inactiveTarget          int
	freeWQ, pageoutWQ, busy WaitQueue
	objects                 int
	stats                   Stats
	checkers                []Checker
	daemon                  *Thread
	wired, maxWired         int // pages with Wire > 0, and the limit
}

func (vm *vmState) init(k *Kernel, mem Memory) {
	vm.k, vm.mem = k, mem
	vm.pages = make([]Page, mem.Frames)
	for i := range vm.pages {
		m := &vm.pages[i]
		m.PFN = mem.First + uint32(i)
		m.queue = QFree
		vm.free.push(m)
	}
	// vm_pageout's defaults scale with memory: v_free_min is about 1/50
	// of the pages, the target a little above (FreeBSD 4.x vm_pageout.c).
	vm.freeMin = max(4, mem.Frames/50)
	vm.freeTarget = vm.freeMin * 3
	vm.inactiveTarget = max(8, mem.Frames/8)
	// vm_page_max_wired is a third of the pages free at boot (FreeBSD
	// 4.x vm_pageout.c); mlock and vslock fail beyond it.
	vm.maxWired = mem.Frames / 3
}

// MaxWired is the most pages that may be wired at once (a third of
// memory, as FreeBSD 4.6's vm_page_max_wired); Wire fails beyond it.
func (k *Kernel) MaxWired() int { return k.vm.maxWired }

// SetMaxWired overrides the wiring limit (the vm.max_wired sysctl).
func (k *Kernel) SetMaxWired(pages int) { k.vm.maxWired = max(pages, 0) }

// SetPageoutLevels overrides the page daemon's thresholds: it wakes when
// fewer than min pages are free and frees pages until target are.
func (k *Kernel) SetPageoutLevels(min, target int) {
	k.vm.freeMin, k.vm.freeTarget = min, max(min, target)
}

// AddChecker registers a check run on every frame before it is freed.
func (k *Kernel) AddChecker(c Checker) { k.vm.checkers = append(k.vm.checkers, c) }

// VMStats returns the VM counters and the queue lengths now.
func (k *Kernel) VMStats() Stats {
	s := k.vm.stats
	s.FreePages, s.ActivePages, s.InactivePages = k.vm.free.n, k.vm.active.n, k.vm.inactive.n
	s.WiredPages = len(k.vm.pages) - s.FreePages - s.ActivePages - s.InactivePages
	return s
}

// Frame is the contents of page m (host memory, aliased).
func (k *Kernel) Frame(m *Page) []byte {
	b, err := k.vm.mem.Host.Frame(uint64(m.PFN))
	if err != nil {
		panic(fmt.Sprintf("freebsd: frame %d: %v", m.PFN, err)) // the VM manages only frames that exist
	}
	return b
}

// PageOf is the page of frame pfn, or nil if the VM does not manage it.
func (k *Kernel) PageOf(pfn uint32) *Page {
	i := int64(pfn) - int64(k.vm.mem.First)
	if i < 0 || i >= int64(len(k.vm.pages)) {
		return nil
	}
	return &k.vm.pages[i]
}

func (vm *vmState) dequeue(m *Page) {
	switch m.queue {
	case QFree:
		vm.free.remove(m)
	case QActive:
		vm.active.remove(m)
	case QInactive:
		vm.inactive.remove(m)
	}
	m.queue = QNone
}

// activate puts an unwired page at the tail of the active queue.
func (vm *vmState) activate(m *Page) {
	if m.Wire > 0 || m.queue == QActive {
		return
	}
	vm.dequeue(m)
	m.queue = QActive
	vm.active.push(m)
}

func (vm *vmState) deactivate(m *Page) {
	if m.Wire > 0 || m.queue == QInactive {
		return
	}
	vm.dequeue(m)
	m.queue = QInactive
	vm.inactive.push(m)
}

// allocPage takes a free page (vm_page_alloc), waiting for the page
// daemon when there is none (VM_WAIT). The page is on no queue.
func (vm *vmState) allocPage(t *Thread) *Page {
	for vm.free.n == 0 {
		vm.stats.AllocWaits++
		vm.k.Wakeup(&vm.pageoutWQ, 0)
		t.Wait(&vm.freeWQ)
	}
	m := vm.free.head
	vm.dequeue(m)
	if vm.free.n < vm.freeMin {
		vm.k.Wakeup(&vm.pageoutWQ, 0)
	}
	m.Dirty, m.Ref, m.Busy = false, false, false
	return m
}

// freePage returns a page to the free queue (vm_page_free), after the
// invariant checks: no mapping, not wired, held or busy, and nothing
// outside the VM still using the frame.
func (vm *vmState) freePage(m *Page) {
	k := vm.k
	switch {
	case m.queue == QFree:
		k.Fail("frame %d freed twice", m.PFN)
		return
	case len(m.pv) > 0:
		k.Fail("frame %d freed while mapped (%d mappings)", m.PFN, len(m.pv))
	case m.Wire > 0 || m.Hold > 0:
		k.Fail("frame %d freed while wired (%d) or held (%d)", m.PFN, m.Wire, m.Hold)
	}
	for _, c := range vm.checkers {
		if busy, why := c(m.PFN); busy {
			k.Fail("frame %d freed while %s", m.PFN, why)
		}
	}
	if m.obj != nil {
		delete(m.obj.pages, m.index)
		m.obj = nil
	}
	vm.dequeue(m)
	m.queue = QFree
	vm.free.push(m)
	k.Wakeup(&vm.freeWQ, 0)
}

// newObject makes an anonymous object, a shadow of backing if not nil.
func (vm *vmState) newObject(backing *Object) *Object {
	vm.objects++
	o := &Object{id: vm.objects, pages: map[uint32]*Page{}, swap: map[uint32][]byte{}, backing: backing, ref: 1}
	if backing != nil {
		backing.ref++
	}
	return o
}

// dropShadowed gives back what no lookup can reach under o any more. A
// swap copy in an object below o is shadowed for good when an object
// above it holds the same page (resident or on swap) and every object
// from o's backing down to it has one holder (ref 1, the object above):
// every chain that reaches it passes the one holding the page, and an
// object that is not the front of an entry gains no pages but by paging
// in its own swap. Such copies are dropped, and an object left with
// nothing is taken out of the chain. Resident pages stay (their frames
// are the page daemon's to free), so lookups, page-ins and the page
// daemon do just what they did. (FreeBSD's vm_object_collapse merges the
// chain instead, which would move pages.) Fork calls it: without it each
// fork left a level in the chain, and each shadowed page the daemon
// evicted from one a swap copy, for the life of the process
// (docs/bad-input.md).
func (vm *vmState) dropShadowed(o *Object) {
	held := map[uint32]bool{} // pages held above the object looked at
	hold := func(x *Object) {
		for i := range x.pages {
			held[i] = true
		}
		for i := range x.swap {
			held[i] = true
		}
	}
	hold(o)
	for above := o; above.backing != nil && above.backing.ref == 1; {
		b := above.backing
		for i := range b.swap {
			if held[i] {
				delete(b.swap, i)
			}
		}
		if len(b.pages) == 0 && len(b.swap) == 0 {
			above.backing, b.backing, b.ref = b.backing, nil, 0 // b's hold on its backing passes to above
			continue
		}
		hold(b)
		above = b
	}
}

// insert puts page m into object o at index i.
func (o *Object) insert(m *Page, i uint32) {
	m.obj, m.index = o, i
	o.pages[i] = m
}

// release drops a reference to o; the last one frees its pages and swap
// and releases its backing object.
func (vm *vmState) release(t *Thread, o *Object) {
	for o != nil {
		o.ref--
		if o.ref > 0 {
			return
		}
		idx := make([]uint32, 0, len(o.pages)) // in index order: deterministic
		for i := range o.pages {
			idx = append(idx, i)
		}
		slices.Sort(idx)
		for _, i := range idx {
			for { // look again after every sleep: the page may be gone, or another
				m := o.pages[i]
				if m == nil {
					break
				}
				if m.Busy { // being paged out (the pager frees it) or in
					vm.stats.BusyWaits++
					t.Wait(&vm.busy)
					continue
				}
				vm.pageProtect(t, m, ProtNone) // the hooks may sleep
				if o.pages[i] != m || m.Busy || len(m.pv) > 0 {
					continue
				}
				vm.freePage(m)
				break
			}
		}
		o.swap = nil
		o = o.backing
	}
}
