package freebsd

import (
	"slices"
	"sort"
)

// UserBase is where a process's anonymous mappings start; UserTop ends
// them (i386 FreeBSD: user space ends at 0xBFC00000).
const (
	UserBase = 0x1000_0000
	UserTop  = 0xBFC0_0000
)

// Entry is one mapping of a process's address space (vm_map_entry).
type Entry struct {
	Start, End uint32 // [Start, End), page aligned
	Prot       Prot
	obj        *Object
}

// Proc is a process: an address space (vm_map and pmap) and its
// threads.
type Proc struct {
	k       *Kernel
	PID     int
	Name    string
	entries []*Entry // sorted by Start
	ptes    map[uint32]*pte
	nextVA  uint32
	exited  bool
	// Hooks, if set, are told of every pmap change (a NetVM process).
	Hooks Hooks
	// Parent is the process that forked this one, or nil.
	Parent *Proc
}

// NewProc makes a process with an empty address space.
func (k *Kernel) NewProc(name string) *Proc {
	k.procsMade++
	p := &Proc{k: k, PID: k.procsMade, Name: name, ptes: map[uint32]*pte{}, nextVA: UserBase}
	k.procs = append(k.procs, p)
	return p
}

// Procs lists the processes that have not exited, in the order they were
// made.
func (k *Kernel) Procs() []*Proc { return k.procs }

// ProcsMade is the number of processes made so far, the last PID.
func (k *Kernel) ProcsMade() int { return k.procsMade }

// entry is the mapping covering va, or nil.
func (p *Proc) entry(va uint32) *Entry {
	i := sort.Search(len(p.entries), func(i int) bool { return p.entries[i].End > va })
	if i < len(p.entries) && p.entries[i].Start <= va {
		return p.entries[i]
	}
	return nil
}

// Entries lists the mappings.
func (p *Proc) Entries() []Entry {
	out := make([]Entry, len(p.entries))
	for i, e := range p.entries {
		out[i] = *e
	}
	return out
}

// Mmap maps n bytes (rounded up to pages) of fresh anonymous memory
// (mmap(MAP_ANON)) and returns its address.
func (p *Proc) Mmap(t *Thread, n uint32, prot Prot) (uint32, error) {
	t.Compute(p.k.Timing.Syscall)
	size := (uint64(n) + PageSize - 1) &^ (PageSize - 1)
	if size == 0 || uint64(p.nextVA)+size > UserTop {
		return 0, ErrNoMem
	}
	e := &Entry{Start: p.nextVA, End: p.nextVA + uint32(size), Prot: prot, obj: p.k.vm.newObject(nil)}
	p.nextVA = e.End + PageSize // a guard page between mappings
	p.entries = append(p.entries, e)
	return e.Start, nil
}

// MmapAt maps n bytes of fresh anonymous memory at va (mmap with
// MAP_FIXED|MAP_ANON): va page aligned, and no mapping may overlap.
func (p *Proc) MmapAt(t *Thread, va, n uint32, prot Prot) error {
	t.Compute(p.k.Timing.Syscall)
	size := (uint64(n) + PageSize - 1) &^ (PageSize - 1)
	if va%PageSize != 0 || size == 0 || va < UserBase || uint64(va)+size > UserTop {
		return ErrInval
	}
	end := va + uint32(size)
	for _, e := range p.entries {
		if va < e.End && e.Start < end {
			return ErrInval
		}
	}
	e := &Entry{Start: va, End: end, Prot: prot, obj: p.k.vm.newObject(nil)}
	i := sort.Search(len(p.entries), func(i int) bool { return p.entries[i].Start > va })
	p.entries = append(p.entries, nil)
	copy(p.entries[i+1:], p.entries[i:])
	p.entries[i] = e
	if end+PageSize > p.nextVA {
		p.nextVA = end + PageSize
	}
	return nil
}

// Munmap removes the mapping that starts at va and is n bytes long
// (whole mappings only); its pages are unmapped (the hooks run), unwired
// and freed.
func (p *Proc) Munmap(t *Thread, va, n uint32) error {
	t.Compute(p.k.Timing.Syscall)
	e := p.entry(va)
	if e == nil || e.Start != va || (uint64(n)+PageSize-1)&^(PageSize-1) != uint64(e.End-e.Start) {
		return ErrInval
	}
	p.removeEntry(t, e)
	return nil
}

func (p *Proc) removeEntry(t *Thread, e *Entry) {
	vm := &p.k.vm
	for va := e.Start; va < e.End; va += PageSize {
		if pt := p.ptes[va]; pt != nil {
			m := pt.m
			vm.pmapRemove(t, p, va)
			if m.Wire > 0 && m.obj == e.obj {
				m.Wire = 0 // munmap unwires
				p.k.vm.wired--
				vm.activate(m)
			}
		}
	}
	for i, x := range p.entries {
		if x == e {
			p.entries = append(p.entries[:i], p.entries[i+1:]...)
			break
		}
	}
	vm.release(t, e.obj)
}

// Fork makes a child with a copy-on-write copy of p's address space:
// both sides get a shadow of each object, and p's writable mappings are
// write-protected (the hooks run), so that the first write on either
// side copies the page. Wired pages stay wired in the parent only.
func (p *Proc) Fork(t *Thread, name string) *Proc {
	k := p.k
	t.Compute(k.Timing.Syscall)
	c := k.NewProc(name)
	c.Parent = p
	c.nextVA = p.nextVA
	for _, e := range p.entries {
		for va := e.Start; va < e.End; va += PageSize {
			k.vm.pmapProtect(t, p, va, ProtRead)
		}
		orig := e.obj
		k.vm.dropShadowed(orig)
		e.obj = k.vm.newObject(orig)
		c.entries = append(c.entries, &Entry{Start: e.Start, End: e.End, Prot: e.Prot, obj: k.vm.newObject(orig)})
		orig.ref-- // the two shadows hold it now
		// Pages of p's old object stay where they are; p's mappings of
		// them are read-only now, and a write faults and copies up.
	}
	return c
}

// Exit tears the address space down (pmap_remove_pages, then the
// objects).
func (p *Proc) Exit(t *Thread) {
	if p.exited {
		return
	}
	t.Compute(p.k.Timing.Syscall)
	for len(p.entries) > 0 {
		p.removeEntry(t, p.entries[0])
	}
	p.exited = true
	// The kernel forgets it (a long run forks all the time).
	k := p.k
	for i, x := range k.procs {
		if x == p {
			k.procs = slices.Delete(k.procs, i, i+1)
			break
		}
	}
}

// Mapped reports the page va maps and its protection, if any.
func (p *Proc) Mapped(va uint32) (*Page, Prot) {
	if e := p.ptes[va&^(PageSize-1)]; e != nil {
		return e.m, e.prot
	}
	return nil, ProtNone
}

// Mappings calls fn for every page p maps now, in address order.
func (p *Proc) Mappings(fn func(va uint32, m *Page, prot Prot)) {
	vas := make([]uint32, 0, len(p.ptes))
	for va := range p.ptes {
		vas = append(vas, va)
	}
	sort.Slice(vas, func(i, j int) bool { return vas[i] < vas[j] })
	for _, va := range vas {
		e := p.ptes[va]
		fn(va, e.m, e.prot)
	}
}

// Peek reads len(buf) bytes at va as they are now, wherever the pages are
// (mapped, resident in the object chain, on swap, or never touched:
// zeros), without faulting and without taking time: for checkers, not
// for the modelled programs. ErrFault outside every mapping.
func (p *Proc) Peek(va uint32, buf []byte) error {
	k := p.k
	for len(buf) > 0 {
		off := va % PageSize
		n := min(len(buf), PageSize-int(off))
		page := va &^ (PageSize - 1)
		var src []byte
		if e := p.ptes[page]; e != nil {
			src = k.Frame(e.m)
		} else if ent := p.entry(page); ent != nil {
			idx := (page - ent.Start) / PageSize
			for o := ent.obj; o != nil && src == nil; o = o.backing {
				m := o.pages[idx]
				if d, ok := o.swap[idx]; ok && (m == nil || m.Busy) {
					src = d // on swap, or being paged in
				} else if m != nil {
					src = k.Frame(m)
				}
			}
			if src == nil {
				src = make([]byte, PageSize)
			}
		} else {
			return ErrFault
		}
		copy(buf[:n], src[off:])
		va += uint32(n)
		buf = buf[n:]
	}
	return nil
}
