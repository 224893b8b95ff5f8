package lib

import (
	"lanaiemu/netvm/freebsd"
)

// PinCache is the pin-down cache of dynamic pinning, the baseline of E5
// (UTLB, Tezuka's pin-down cache; systems.md §3, §5.3), for an endpoint
// whose driver runs in abi.ModeDynamic: before a WRITE, each source page
// is looked up; a miss pins it by a system call (wire, and enter it into
// the NIC's table), evicting the least recently used page (remove it from
// the NIC's table, unwire) when K pages are pinned already. Each lookup
// costs the host freebsd.Timing.PinCacheLookup. A page is
// never unpinned while a WRITE that reads it may still be in flight.
type PinCache struct {
	EP *EP
	K  int // capacity in pages

	pages map[uint32]*pinned // page VA -> entry
	head  pinned             // LRU list sentinel: head.next is the most recent

	Hits, Misses, Evictions int
}

type pinned struct {
	va         uint32
	ticket     uint32 // the last WRITE that read it
	prev, next *pinned
}

// NewPinCache returns an empty cache of k pages for ep.
func NewPinCache(ep *EP, k int) *PinCache {
	c := &PinCache{EP: ep, K: max(k, 1), pages: map[uint32]*pinned{}}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// Write is EP.Write with the source pages pinned first.
func (c *PinCache) Write(t *freebsd.Thread, src uint32, imp int, off, n uint32, ctr int) (uint32, error) {
	var used []*pinned
	for a := src &^ (freebsd.PageSize - 1); a < src+n; a += freebsd.PageSize {
		p, err := c.pin(t, a)
		if err != nil {
			return 0, err
		}
		used = append(used, p)
	}
	tk, err := c.EP.Write(t, src, imp, off, n, ctr)
	for _, p := range used {
		p.ticket = tk
	}
	return tk, err
}

// pin makes page va pinned and the most recently used.
func (c *PinCache) pin(t *freebsd.Thread, va uint32) (*pinned, error) {
	t.Compute(c.EP.Driver().K.Timing.PinCacheLookup)
	if p := c.pages[va]; p != nil {
		c.Hits++
		c.unlink(p)
		c.pushFront(p)
		return p, nil
	}
	c.Misses++
	if len(c.pages) >= c.K {
		v := c.head.prev
		if v.ticket != 0 {
			for done, _ := c.EP.Test(v.ticket); !done; done, _ = c.EP.Test(v.ticket) {
				c.EP.Quiet(t)
			}
		}
		c.unlink(v)
		delete(c.pages, v.va)
		c.EP.Unpin(t, v.va, freebsd.PageSize)
		c.Evictions++
	}
	if err := c.EP.Pin(t, va, freebsd.PageSize, false); err != nil {
		return nil, err
	}
	p := &pinned{va: va}
	c.pages[va] = p
	c.pushFront(p)
	return p, nil
}

func (c *PinCache) unlink(p *pinned) { p.prev.next, p.next.prev = p.next, p.prev }

func (c *PinCache) pushFront(p *pinned) {
	p.prev, p.next = &c.head, c.head.next
	c.head.next.prev = p
	c.head.next = p
}
