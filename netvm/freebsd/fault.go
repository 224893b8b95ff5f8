package freebsd

// Fault resolves a fault at va of p for a read or a write (vm_fault): it
// finds the page in the mapping's object chain, pages it in from swap (a
// major fault: the thread sleeps for the pager) or zero-fills it, copies
// it up for a write to a page of a backing object (copy on write), and
// enters it in the pmap. ErrFault if no mapping covers va or it forbids
// the access.
func (p *Proc) Fault(t *Thread, va uint32, write bool) error {
	k := p.k
	vm := &k.vm
	va &^= PageSize - 1
	t.Compute(k.Timing.FaultEntry)
	vm.stats.Faults++
retry:
	e := p.entry(va)
	if e == nil || p.exited {
		return ErrFault
	}
	if write && e.Prot&ProtWrite == 0 || !write && e.Prot&ProtRead == 0 {
		return ErrFault
	}
	idx := (va - e.Start) / PageSize
	m, owner, swapObj := e.lookup(idx)
	if m != nil && m.Busy { // being paged in or out: wait, then look again
		vm.stats.BusyWaits++
		t.Wait(&vm.busy)
		goto retry
	}
	if m == nil {
		// Not resident: a frame first (this may sleep for the page daemon),
		// then look again, since another thread may have brought the page
		// in meanwhile; the page goes in busy before anything else sleeps,
		// so that every other fault on it waits for this one.
		n := vm.allocPage(t)
		if m2, _, so2 := e.lookup(idx); p.entry(va) != e || m2 != nil || so2 != swapObj {
			vm.freePage(n)
			goto retry
		}
		n.Busy = true
		if swapObj != nil { // on swap: page it in (a major fault)
			swapObj.insert(n, idx)
			t.Sleep(k.Timing.PageIn)
			data, ok := swapObj.swap[idx]
			if !ok {
				k.Fail("page-in of object %d page %d: its swap copy vanished while the pager ran", swapObj.id, idx)
			}
			copy(k.Frame(n), data)
			delete(swapObj.swap, idx)
			n.Dirty = true // its swap copy is gone
			vm.stats.PageIns++
			vm.stats.MajorFaults++
			owner = swapObj
		} else { // never touched: zero-fill in the front object
			e.obj.insert(n, idx)
			clear(k.Frame(n))
			t.Compute(k.Timing.PageZero)
			vm.stats.ZeroFills++
			owner = e.obj
		}
		n.Busy = false
		vm.activate(n)
		k.Wakeup(&vm.busy, 0)
		m = n
		if p.entry(va) != e || n.obj != owner {
			goto retry
		}
	}
	if owner != e.obj && write { // copy on write
		src := m
		src.Hold++
		n := vm.allocPage(t)
		copy(k.Frame(n), k.Frame(src))
		t.Compute(k.Timing.Memcpy(PageSize))
		src.Hold--
		if e.obj.pages[idx] != nil || p.entry(va) != e { // someone else copied meanwhile
			vm.freePage(n)
			goto retry
		}
		e.obj.insert(n, idx)
		m, owner = n, e.obj
		vm.stats.COWCopies++
	}
	prot := e.Prot
	if owner != e.obj {
		prot &^= ProtWrite // a backing object's page is shared: read only
	}
	m.Ref = true
	if write {
		m.Dirty = true
	}
	vm.pmapEnter(t, p, va, m, prot)
	vm.activate(m)
	return nil
}

// lookup finds page idx in the entry's object chain: the page and the
// object holding it, or the object whose swap holds it, or nothing.
func (e *Entry) lookup(idx uint32) (*Page, *Object, *Object) {
	for o := e.obj; o != nil; o = o.backing {
		if pg := o.pages[idx]; pg != nil {
			return pg, o, nil
		}
		if _, ok := o.swap[idx]; ok {
			return nil, nil, o
		}
	}
	return nil, nil, nil
}

// resolve makes sure va is mapped with at least the access asked,
// faulting if not, and returns its page.
func (p *Proc) resolve(t *Thread, va uint32, write bool) (*Page, error) {
	for {
		if e := p.ptes[va&^(PageSize-1)]; e != nil && (!write || e.prot&ProtWrite != 0) {
			e.m.Ref = true
			if write {
				e.m.Dirty = true
			}
			return e.m, nil
		}
		if err := p.Fault(t, va, write); err != nil {
			return nil, err
		}
	}
}

// Read copies len(buf) bytes at va into buf as the process's CPU would
// (faulting pages in; the copy costs CPU time).
func (p *Proc) Read(t *Thread, va uint32, buf []byte) error {
	return p.access(t, va, buf, false)
}

// Write copies data to va as the process's CPU would.
func (p *Proc) Write(t *Thread, va uint32, data []byte) error {
	return p.access(t, va, data, true)
}

func (p *Proc) access(t *Thread, va uint32, b []byte, write bool) error {
	k := p.k
	for len(b) > 0 {
		off := va % PageSize
		n := min(len(b), PageSize-int(off))
		m, err := p.resolve(t, va, write)
		if err != nil {
			return err
		}
		f := k.Frame(m)
		if write {
			copy(f[off:], b[:n])
		} else {
			copy(b[:n], f[off:])
		}
		t.Compute(k.Timing.Memcpy(n))
		va += uint32(n)
		b = b[n:]
	}
	return nil
}

// Wire faults the pages of [va, va+n) in and wires them (mlock, vslock):
// they stay resident and mapped until Unwire. ErrFault if some page is
// not mapped or not accessible; ErrNoMem, with nothing wired, if the
// pages would take the kernel past its wiring limit (MaxWired: mlock's
// EAGAIN in FreeBSD 4.6).
func (p *Proc) Wire(t *Thread, va, n uint32, write bool) error {
	k := p.k
	t.Compute(k.Timing.Syscall)
	more := 0
	for a := va &^ (PageSize - 1); a < va+n; a += PageSize {
		if e := p.ptes[a]; e == nil || e.m.Wire == 0 {
			more++
		}
	}
	if k.vm.wired+more > k.vm.maxWired {
		return ErrNoMem
	}
	for a := va &^ (PageSize - 1); a < va+n; a += PageSize {
		m, err := p.resolve(t, a, write)
		if err != nil {
			return err
		}
		if m.Wire == 0 {
			k.vm.dequeue(m)
			k.vm.wired++
		}
		m.Wire++
		t.Compute(k.Timing.WirePage)
	}
	return nil
}

// Unwire undoes one Wire of [va, va+n) (munlock, vsunlock).
func (p *Proc) Unwire(t *Thread, va, n uint32) {
	k := p.k
	t.Compute(k.Timing.Syscall)
	for a := va &^ (PageSize - 1); a < va+n; a += PageSize {
		if e := p.ptes[a]; e != nil && e.m.Wire > 0 {
			e.m.Wire--
			if e.m.Wire == 0 {
				k.vm.wired--
				k.vm.activate(e.m)
			}
		}
	}
}
