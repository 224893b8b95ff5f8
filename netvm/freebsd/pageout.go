package freebsd

import "lanaiemu/sim"

// StartPageout starts the page daemon (vm_pageout): it sleeps until fewer
// than the minimum of pages are free, then scans the inactive queue
// oldest first. It skips wired, held and busy pages, gives referenced
// ones another round on the active queue, and evicts the others: every
// mapping removed (pmap_page_protect(NONE): the hooks run, so a NetVM
// process's driver waits for the NIC's lock first), dirty pages written
// to swap, the frame freed. It refills the inactive queue from the
// active one. A scan that frees nothing waits a pause before the next.
func (k *Kernel) StartPageout() {
	vm := &k.vm
	if vm.daemon != nil {
		return
	}
	vm.daemon = k.Go("pagedaemon", func(t *Thread) {
		for {
			for vm.free.n >= vm.freeMin {
				t.Wait(&vm.pageoutWQ)
			}
			vm.stats.PageoutScans++
			if vm.scan(t) == 0 && vm.free.n < vm.freeMin {
				t.Sleep(pageoutPause)
			}
		}
	})
}

// pageoutPause is how long the daemon waits after a scan that freed
// nothing (FreeBSD's vm_pageout sleeps hz/2 when it cannot make
// progress): every page was wired, held or busy.
const pageoutPause = 10 * sim.Millisecond

// scan runs one pass and returns the pages it freed.
func (vm *vmState) scan(t *Thread) int {
	freed := 0
	// Refill the inactive queue from the oldest active pages.
	for n := vm.active.n; n > 0 && vm.active.head != nil && vm.inactive.n < vm.inactiveTarget; n-- {
		m := vm.active.head
		m.Ref = false
		vm.deactivate(m)
	}
	// The hooks and the pager sleep: the queues change under the scan, so
	// it looks at the head each time and stops when the queue is empty.
	for n := vm.inactive.n; n > 0 && vm.inactive.head != nil && vm.free.n < vm.freeTarget; n-- {
		m := vm.inactive.head
		switch {
		case m.Wire > 0 || m.Hold > 0 || m.Busy:
			vm.inactive.remove(m) // skipped: to the tail
			vm.inactive.push(m)
			continue
		case m.Ref:
			m.Ref = false
			vm.activate(m)
			vm.stats.Reactivated++
			continue
		}
		if vm.evict(t, m) {
			freed++
		}
	}
	return freed
}

// evict takes m out of every address space and frees it, writing it to
// swap first if it is dirty. It gives up (false) if the page was wired
// or held while the hooks or the pager slept.
func (vm *vmState) evict(t *Thread, m *Page) bool {
	k := vm.k
	m.Busy = true
	vm.dequeue(m)
	vm.pageProtect(t, m, ProtNone)
	o, idx := m.obj, m.index
	if m.Dirty && o != nil {
		data := append([]byte(nil), k.Frame(m)...)
		t.Sleep(k.Timing.PageOut)
		o.swap[idx] = data
		vm.stats.PageOuts++
	}
	m.Busy = false
	k.Wakeup(&vm.busy, 0)
	if m.Wire > 0 || m.Hold > 0 || len(m.pv) > 0 {
		if o != nil && m.Dirty {
			delete(o.swap, idx) // the page stays: its memory is the truth
		}
		vm.activate(m)
		return false
	}
	vm.freePage(m)
	vm.stats.Evictions++
	return true
}

// Evict forces page va of p out (as the page daemon would under
// pressure), for tests and workloads that want a page gone now. It
// reports whether the page was evicted (false: not resident, or wired,
// held or busy).
func (p *Proc) Evict(t *Thread, va uint32) bool {
	e := p.ptes[va&^(PageSize-1)]
	var m *Page
	if e != nil {
		m = e.m
	} else if ent := p.entry(va); ent != nil {
		m = ent.obj.pages[(va&^(PageSize-1)-ent.Start)/PageSize]
	}
	if m == nil || m.Wire > 0 || m.Hold > 0 || m.Busy {
		return false
	}
	return p.k.vm.evict(t, m)
}
