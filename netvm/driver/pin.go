package driver

import (
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
)

// Dynamic pinning (abi.ModeDynamic), the baseline of E5 (systems.md §2,
// §3 UTLB, §5.3 the pin-down cache): the NIC translates only pages the
// host has pinned. Pin is the system call behind a registration or a
// pin-down-cache miss: it wires the pages (vslock) and enters them into
// the SPT; Unpin removes them from the SPT (with the §4.3 handshake, as
// every unmap) and unwires them. In the other modes every resident page
// of a NetVM process is translated and Pin only wires.

// translated reports whether the SPT should hold (asid, va) when it is
// mapped: always, except in ModeDynamic, where only pinned pages are.
func (d *Driver) translated(asid, va uint32) bool {
	return d.Cfg.Mode != abi.ModeDynamic || d.pins[va&^(freebsd.PageSize-1)|asid] > 0
}

// Pin wires [va, va+n) of the endpoint's process and, in ModeDynamic,
// enters each page into the SPT (one system call; a page pinned twice
// needs two Unpins).
func (e *Endpoint) Pin(t *freebsd.Thread, va, n uint32, write bool) error {
	d := e.d
	if err := e.Proc.Wire(t, va, n, write); err != nil { // the system call, vslock
		return err
	}
	for a := va &^ (freebsd.PageSize - 1); a < va+n; a += freebsd.PageSize {
		tag := a | e.ASID
		d.pins[tag]++
		d.stats.Pins++
		if d.Cfg.Mode != abi.ModeDynamic || d.pins[tag] > 1 {
			continue
		}
		if m, prot := e.Proc.Mapped(a); m != nil {
			d.sptMap(t, e.ASID, a, m.PFN, prot)
		}
	}
	return nil
}

// Unpin undoes one Pin of [va, va+n): a page whose last pin goes leaves
// the SPT (ModeDynamic) and is unwired.
func (e *Endpoint) Unpin(t *freebsd.Thread, va, n uint32) {
	d := e.d
	for a := va &^ (freebsd.PageSize - 1); a < va+n; a += freebsd.PageSize {
		tag := a | e.ASID
		if d.pins[tag] == 0 {
			continue
		}
		d.pins[tag]--
		d.stats.Unpins++
		if d.pins[tag] == 0 {
			delete(d.pins, tag)
			if d.Cfg.Mode == abi.ModeDynamic {
				d.sptUnmap(t, e.ASID, a)
			}
		}
	}
	e.Proc.Unwire(t, va, n) // the system call (vsunlock)
}

// recvFault serves an EvRecvFault (abi.ModeNPF): the NIC dropped a packet
// for (asid, va) and asked for the page; a thread faults it in for
// writing (its pmap_enter hook enters it into the SPT), once however many
// drops the NIC reports meanwhile. The sender retries on its own.
func (d *Driver) recvFault(asid, va uint32) {
	d.stats.RecvFaults++
	e := d.byASID[asid]
	tag := va&^(freebsd.PageSize-1) | asid
	if e == nil || d.faulting[tag] {
		return
	}
	d.faulting[tag] = true
	d.K.Go("netvm recvfault", func(t *freebsd.Thread) {
		d.stats.RecvFaultsServed++
		e.Proc.Fault(t, va, true)
		delete(d.faulting, tag)
	})
}
