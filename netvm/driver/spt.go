package driver

import (
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/sim"
)

// The shadow page table, host side (docs/netvm.md §4): the driver keeps
// a mirror of the tags, allocates entries (the first empty or dead one of
// the probe sequence), and runs the OS side of the lock handshake (§4.3)
// from the pmap hooks of every NetVM process. The hooks sleep (PIO, the
// wait for L, kernel commands), and two threads may change the same page
// (the page daemon evicting it while a fork write-protects it): one lock
// serialises every SPT change, and each re-reads the mirror under it.

// sptHooks are the freebsd.Hooks of one endpoint's process.
type sptHooks struct {
	d    *Driver
	asid uint32
}

func (h sptHooks) Entered(t *freebsd.Thread, p *freebsd.Proc, va uint32, m *freebsd.Page, prot freebsd.Prot) {
	if !h.d.translated(h.asid, va) {
		return
	}
	h.d.sptMap(t, h.asid, va, m.PFN, prot)
}

func (h sptHooks) Removing(t *freebsd.Thread, p *freebsd.Proc, va uint32, m *freebsd.Page) bool {
	return h.d.sptUnmap(t, h.asid, va)
}

func (h sptHooks) Protecting(t *freebsd.Thread, p *freebsd.Proc, va uint32, m *freebsd.Page, prot freebsd.Prot) {
	if prot&freebsd.ProtWrite == 0 {
		h.d.sptLower(t, h.asid, va, abi.SPTV)
	}
}

func sptAddr(idx int) uint32 { return abi.SPTBase + uint32(idx)*abi.SPTEntrySize }

func hostFlags(prot freebsd.Prot) uint8 {
	f := uint8(abi.SPTV)
	if prot&freebsd.ProtWrite != 0 {
		f |= abi.SPTW
	}
	return f
}

// sptMap enters (asid, va) -> pfn: SPT_MAP into a free entry, or, for a
// live entry of the same page with more rights, a flags-byte PIO write
// (raising permissions needs no handshake, §4.3).
func (d *Driver) sptMap(t *freebsd.Thread, asid, va, pfn uint32, prot freebsd.Prot) {
	d.sptLock.acquire(t)
	defer d.sptLock.release(d.K)
	tag := va&^(freebsd.PageSize-1) | asid
	if idx, ok := d.byTag[tag]; ok {
		d.write8(t, sptAddr(idx)+abi.SPTFlagsByte, hostFlags(prot))
		return
	}
	h := abi.SPTHash(asid, va>>abi.PageShift)
	idx := -1
	for i := uint32(0); i < abi.SPTProbe; i++ {
		j := int((h + i) & (abi.SPTEntries - 1))
		if d.tags[j] == abi.SPTTagEmpty || d.tags[j] == abi.SPTTagDead {
			idx = j
			break
		}
	}
	if idx < 0 {
		d.stats.SPTFull++ // the NIC will take the non-resident path for it
		return
	}
	st := d.Kernel(t, abi.KOpSPTMap, Field{abi.KSPTIndex, 4, uint32(idx)}, Field{abi.KSPTTag, 4, tag},
		Field{abi.KSPTFrame, 4, pfn<<abi.PageShift | uint32(hostFlags(prot))})
	if st != abi.StatusOK {
		d.K.Fail("SPT_MAP of %#x at %d: status %d", tag, idx, st)
		return
	}
	d.tags[idx] = tag
	d.byTag[tag] = idx
	d.byPFN[pfn] = append(d.byPFN[pfn], idx)
	d.stats.SPTMaps++
}

// waitUnlocked is §4.3 OS steps 2-3: read the NIC word back (a non-posted
// read, so the flags write has reached SRAM) and, while L is set, spin on
// it. It returns the NIC word last read.
func (d *Driver) waitUnlocked(t *freebsd.Thread, e uint32) uint32 {
	nic := d.read32(t, e+abi.SPTNIC)
	if nic&abi.SPTL == 0 {
		return nic
	}
	d.stats.LockWaits++
	t0 := t.Now()
	for nic&abi.SPTL != 0 {
		t.Sleep(sim.Microsecond)
		nic = d.read32(t, e+abi.SPTNIC)
	}
	d.stats.LockWaitTime += t.Now() - t0
	return nic
}

// sptLower takes rights away from a live entry (W, for a write-protect):
// the new flags, then wait while the NIC holds L.
func (d *Driver) sptLower(t *freebsd.Thread, asid, va uint32, flags uint8) {
	d.sptLock.acquire(t)
	defer d.sptLock.release(d.K)
	idx, ok := d.byTag[va&^(freebsd.PageSize-1)|asid]
	if !ok {
		return
	}
	e := sptAddr(idx)
	d.write8(t, e+abi.SPTFlagsByte, flags)
	d.waitUnlocked(t, e)
	d.stats.SPTProtects++
}

// sptUnmap is the whole OS side of §4.3 for an unmap: P = 1, wait for L =
// 0, V = 0, harvest D, SPT_UNMAP. It reports D (the NIC wrote the page).
func (d *Driver) sptUnmap(t *freebsd.Thread, asid, va uint32) bool {
	d.sptLock.acquire(t)
	defer d.sptLock.release(d.K)
	tag := va&^(freebsd.PageSize-1) | asid
	idx, ok := d.byTag[tag]
	if !ok {
		return false
	}
	e := sptAddr(idx)
	d.write8(t, e+abi.SPTFlagsByte, abi.SPTV|abi.SPTP) // step 1: no new locks
	d.waitUnlocked(t, e)                               // steps 2-3
	d.write8(t, e+abi.SPTFlagsByte, 0)                 // step 4
	nic := d.read32(t, e+abi.SPTNIC)
	if st := d.Kernel(t, abi.KOpSPTUnmap, Field{abi.KSPTIndex, 4, uint32(idx)}); st != abi.StatusOK {
		d.K.Fail("SPT_UNMAP of %#x at %d: status %d", tag, idx, st)
	}
	d.forget(idx, tag)
	d.stats.SPTUnmaps++
	return nic&abi.SPTD != 0
}

// forget drops entry idx from the mirror.
func (d *Driver) forget(idx int, tag uint32) {
	d.tags[idx] = abi.SPTTagDead
	delete(d.byTag, tag)
	for pfn, list := range d.byPFN {
		for i, j := range list {
			if j == idx {
				list = append(list[:i], list[i+1:]...)
				if len(list) == 0 {
					delete(d.byPFN, pfn)
				} else {
					d.byPFN[pfn] = list
				}
				return
			}
		}
	}
}

// checkFrame is the VM's invariant check before it frees a frame: no
// live SPT entry may still map it, and none may hold L on it.
func (d *Driver) checkFrame(pfn uint32) (bool, string) {
	for _, idx := range d.byPFN[pfn] {
		return true, "a live SPT entry (" + itoa(idx) + ") still maps it"
	}
	return false, ""
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	return string(b)
}

// ---- the redirect service (§8, sys §1.3.5) --------------------------------

type redirect struct {
	slot, asid, va, len uint32
}

// redirectThread serves EvRedirect events in order: fault the page in
// for writing in the owner's address space, copy the payload out of the
// system-buffer slot, then REDIR_DONE (batched).
func (d *Driver) redirectThread(t *freebsd.Thread) {
	for {
		for len(d.redirQ) == 0 {
			t.Wait(&d.redirWQ)
		}
		n := min(len(d.redirQ), abi.KRedirMax)
		batch := append([]redirect(nil), d.redirQ[:n]...)
		d.redirQ = d.redirQ[n:]
		fields := []Field{{abi.KRedirCount, 4, uint32(n)}}
		for i, r := range batch {
			if e := d.byASID[r.asid]; e != nil && r.len <= abi.SysBufSlot {
				data := make([]byte, r.len)
				if err := d.Mem.Read(frameAddr(d.Layout.SysBuf)+uint64(r.slot)*abi.SysBufSlot, data); err == nil {
					if err := e.Proc.Write(t, r.va, data); err == nil { // vm_fault + copyout
						d.stats.RedirectedBytes += int(r.len)
					}
				}
			}
			fields = append(fields, Field{abi.KRedirSlots + uint32(2*i), 2, r.slot})
			if int(r.slot) < len(d.slotBusy) && d.slotBusy[r.slot] {
				d.slotBusy[r.slot] = false // the firmware may reuse it once it reads this
				d.slotsBusy--
			}
		}
		if st := d.Kernel(t, abi.KOpRedirDone, fields...); st != abi.StatusOK {
			d.K.Fail("REDIR_DONE: status %d", st)
		}
	}
}

// serveSrcFault brings a WRITE's source page in (a read fault in the
// owner's address space) and resumes the endpoint, or fails the WRITE
// if the address is bad.
func (d *Driver) serveSrcFault(t *freebsd.Thread, e *Endpoint, va uint32) {
	st := uint32(abi.StatusOK)
	if d.Cfg.Mode == abi.ModeDynamic {
		st = abi.StatusSrcFault // the source was not pinned (registered)
	} else if err := e.Proc.Fault(t, va, false); err != nil {
		st = abi.StatusSrcFault
	}
	d.Kernel(t, abi.KOpSrcFaultDone, Field{abi.KEp, 4, uint32(e.Index)}, Field{abi.KFaultStatus, 4, st})
}
