package freebsd

// Hooks are told of every change to a process's pmap, before it takes
// effect for removals and protections (so that a device that may be
// using the page can be stopped first: the NetVM driver runs the OS side
// of the lock handshake there, docs/netvm.md §4.3) and after it for new
// mappings. They run on the thread that changes the pmap and may sleep.
type Hooks interface {
	// Entered: va of p now maps m with prot (pmap_enter).
	Entered(t *Thread, p *Proc, va uint32, m *Page, prot Prot)
	// Removing: va of p is about to stop mapping m (pmap_remove,
	// pmap_page_protect(NONE), pmap_remove_pages). It returns whether a
	// device dirtied the page (ORed into the page's modify bit).
	Removing(t *Thread, p *Proc, va uint32, m *Page) (dirty bool)
	// Protecting: va of p is about to map m with the lesser prot
	// (pmap_protect, pmap_page_protect(READ)).
	Protecting(t *Thread, p *Proc, va uint32, m *Page, prot Prot)
}

// pte is one mapping of a pmap.
type pte struct {
	m    *Page
	prot Prot
}

// mapping is one entry of a page's reverse map (pv list).
type mapping struct {
	p  *Proc
	va uint32
}

// pmapEnter maps va of p to m with prot (pmap_enter), replacing what
// was there.
func (vm *vmState) pmapEnter(t *Thread, p *Proc, va uint32, m *Page, prot Prot) {
	if old := p.ptes[va]; old != nil {
		if old.m == m {
			if prot < old.prot && p.Hooks != nil {
				p.Hooks.Protecting(t, p, va, m, prot)
			}
			old.prot = prot
			if prot > old.prot && p.Hooks != nil {
				p.Hooks.Entered(t, p, va, m, prot)
			}
			return
		}
		vm.pmapRemove(t, p, va)
	}
	p.ptes[va] = &pte{m: m, prot: prot}
	m.pv = append(m.pv, mapping{p, va})
	if p.Hooks != nil {
		p.Hooks.Entered(t, p, va, m, prot)
	}
}

// pmapRemove unmaps va of p (pmap_remove of one page).
func (vm *vmState) pmapRemove(t *Thread, p *Proc, va uint32) {
	e := p.ptes[va]
	if e == nil {
		return
	}
	if p.Hooks != nil && p.Hooks.Removing(t, p, va, e.m) {
		e.m.Dirty = true
	}
	if p.ptes[va] != e { // the hook slept and someone else removed it
		return
	}
	delete(p.ptes, va)
	m := e.m
	for i, pv := range m.pv {
		if pv.p == p && pv.va == va {
			m.pv = append(m.pv[:i], m.pv[i+1:]...)
			break
		}
	}
}

// pmapProtect lowers the protection of va of p to prot (pmap_protect of
// one page); ProtNone removes the mapping.
func (vm *vmState) pmapProtect(t *Thread, p *Proc, va uint32, prot Prot) {
	e := p.ptes[va]
	if e == nil || e.prot&^prot == 0 {
		return
	}
	if prot == ProtNone {
		vm.pmapRemove(t, p, va)
		return
	}
	if p.Hooks != nil {
		p.Hooks.Protecting(t, p, va, e.m, prot)
	}
	e.prot &= prot
}

// pageProtect lowers every mapping of m to prot (pmap_page_protect):
// ProtNone removes them all (what the page daemon does before it frees a
// page).
func (vm *vmState) pageProtect(t *Thread, m *Page, prot Prot) {
	for _, pv := range append([]mapping(nil), m.pv...) {
		vm.pmapProtect(t, pv.p, pv.va, prot)
	}
}
