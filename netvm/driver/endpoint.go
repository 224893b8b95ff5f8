package driver

import (
	"fmt"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
)

// RemoteError is a remote error recorded for an endpoint (§6.1).
type RemoteError struct {
	Ticket, Status uint32
	Node           int
}

// Endpoint is an open endpoint: a process's connection to the board
// (its ASID, ring, status page, exports and imports, counter waiters).
type Endpoint struct {
	d      *Driver
	Index  int
	ASID   uint32
	Proc   *freebsd.Proc
	errors []RemoteError

	ctrWait  [abi.MaxCounters]freebsd.WaitQueue
	handlers [abi.MaxCounters]func(t *freebsd.Thread, ctr int, value uint64)
	// blockTargets are the targets of the threads in WaitBlock, per counter.
	blockTargets [abi.MaxCounters][]uint64
	// errorWaiters counts, per counter, the threads in WaitBlockUnless
	// that a remote error must wake (EvEpError).
	errorWaiters [abi.MaxCounters]int
}

// Driver is the endpoint's driver.
func (e *Endpoint) Driver() *Driver { return e.d }

// StatusPage is the host physical address of the endpoint's status page
// (mapped read-only into the process, §6.1).
func (e *Endpoint) StatusPage() uint64 { return frameAddr(e.d.Layout.StatusPages + uint32(e.Index)) }

// Ring is the SRAM address of the endpoint's command ring (mapped into the
// process through the board's window, §3.1).
func (e *Endpoint) Ring() uint32 { return abi.EPRingBase + uint32(e.Index)*abi.EPRingStride }

// Errors returns the remote errors recorded so far.
func (e *Endpoint) Errors() []RemoteError { return e.errors }

// ErrorRecord reads the status page's remote-error record (§6.1), as the
// process would: how many remote errors so far, the last one's status and
// ticket.
func (e *Endpoint) ErrorRecord() (count, status, ticket uint32) {
	a := e.StatusPage() + abi.PageErr
	return e.d.hostWord(a + abi.ErrCount), e.d.hostWord(a + abi.ErrStatus), e.d.hostWord(a + abi.ErrTicket)
}

// syscall charges the system call's entry and exit.
func (d *Driver) syscall(t *freebsd.Thread) { t.Compute(d.K.Timing.Syscall) }

// Open opens an endpoint for proc (the ioctl behind nvm_open): EP_OPEN,
// then the process's pmap hooks, and an SPT entry for every page it maps
// already.
func (d *Driver) Open(t *freebsd.Thread, proc *freebsd.Proc) (*Endpoint, error) {
	d.syscall(t)
	idx := -1
	for i, e := range d.eps {
		if e == nil {
			idx = i
			break
		}
	}
	if idx < 0 {
		return nil, ErrNoEndpoint
	}
	asid := uint32(proc.PID)
	if asid == 0 || asid > abi.MaxASID || d.byASID[asid] != nil {
		return nil, fmt.Errorf("netvm: process %d: ASID in use or out of range", proc.PID)
	}
	e := &Endpoint{d: d, Index: idx, ASID: asid, Proc: proc}
	// The slot and the ASID are taken before the command: the command
	// sleeps, and another process's Open must not pick the same slot.
	d.eps[idx] = e
	d.byASID[asid] = e
	release := func() {
		d.eps[idx] = nil
		delete(d.byASID, asid)
	}
	page := e.StatusPage()
	if err := d.Mem.Write(page, make([]byte, freebsd.PageSize)); err != nil {
		release()
		return nil, err
	}
	if st := d.Kernel(t, abi.KOpEPOpen, abi.Field32(abi.KEp, uint32(idx)), abi.Field32(abi.KOpenASID, asid), abi.Field32(abi.KOpenPage, uint32(page))); st != abi.StatusOK {
		release()
		return nil, fmt.Errorf("%w: EP_OPEN %d", ErrStatus, st)
	}
	proc.Hooks = sptHooks{d, asid}
	proc.Mappings(func(va uint32, m *freebsd.Page, prot freebsd.Prot) {
		if d.translated(asid, va) {
			d.sptMap(t, asid, va, m.PFN, prot)
		}
	})
	return e, nil
}

// Close closes the endpoint (nvm_close): EP_CLOSE, its exports and
// imports go with it; its SPT entries are removed (with the handshake)
// and the process's hooks with them.
func (e *Endpoint) Close(t *freebsd.Thread) {
	d := e.d
	d.syscall(t)
	d.Kernel(t, abi.KOpEPClose, abi.Field32(abi.KEp, uint32(e.Index)))
	e.Proc.Mappings(func(va uint32, m *freebsd.Page, prot freebsd.Prot) { d.sptUnmap(t, e.ASID, va) })
	e.Proc.Hooks = nil
	for k := range d.exportGen {
		if d.exportOwner[k] == e {
			d.exportOwner[k] = nil
		}
	}
	for i, o := range d.importOwner {
		if o == e {
			d.importOwner[i] = nil
		}
	}
	d.eps[e.Index] = nil
	delete(d.byASID, e.ASID)
}

// export allocates an export slot and a key (generation << 8 | index).
func (d *Driver) allocExport(e *Endpoint) (uint32, bool) {
	for i := range d.exportOwner {
		if d.exportOwner[i] == nil {
			d.exportOwner[i] = e
			d.exportGen[i]++
			if d.exportGen[i] >= 1<<24 {
				d.exportGen[i] = 1
			}
			return d.exportGen[i]<<8 | uint32(i), true
		}
	}
	return 0, false
}

// Export exports [va, va+n) of the process for remote writes (nvm_export;
// va page aligned) and returns its key. Nothing is pinned.
func (e *Endpoint) Export(t *freebsd.Thread, va, n uint32, writable bool) (uint32, error) {
	return e.exportRegion(t, va, n, abi.ExpKindRegion, writable)
}

// ExportAtomic exports [va, va+n) of the process for remote atomics
// (abi.ExpKindAtomic, docs/netvm.md §5.5; va page aligned) and returns its
// key. Without writable the home NIC refuses them (StatusPerm). The same
// memory may also be exported for WRITEs under another key.
func (e *Endpoint) ExportAtomic(t *freebsd.Thread, va, n uint32, writable bool) (uint32, error) {
	return e.exportRegion(t, va, n, abi.ExpKindAtomic, writable)
}

// exportRegion is Export and ExportAtomic: kind is the export's kind.
func (e *Endpoint) exportRegion(t *freebsd.Thread, va, n, kind uint32, writable bool) (uint32, error) {
	d := e.d
	d.syscall(t)
	if va%freebsd.PageSize != 0 || n == 0 {
		return 0, freebsd.ErrInval
	}
	key, ok := d.allocExport(e)
	if !ok {
		return 0, ErrTable
	}
	if writable {
		kind |= abi.ExpPermW
	}
	if d.Cfg.Mode == abi.ModeDynamic { // registration wires the region
		if err := e.Pin(t, va, n, writable); err != nil {
			d.exportOwner[key&abi.ExpKeyIndexMask] = nil
			return 0, err
		}
		d.pinnedExports[key] = [2]uint32{va, n}
	}
	if st := d.Kernel(t, abi.KOpExport, abi.Field32(abi.KEp, uint32(e.Index)), abi.Field32(abi.KExpKey, key),
		abi.Field32(abi.KExpBase, va), abi.Field32(abi.KExpLen, n), abi.Field32(abi.KExpKind, kind)); st != abi.StatusOK {
		d.exportOwner[key&abi.ExpKeyIndexMask] = nil
		return 0, fmt.Errorf("%w: EXPORT %d", ErrStatus, st)
	}
	return key, nil
}

// ExportCounter lets peers name counter id of this endpoint
// (nvm_ctr_export) and returns its key.
func (e *Endpoint) ExportCounter(t *freebsd.Thread, id int) (uint32, error) {
	d := e.d
	d.syscall(t)
	if id < 0 || id >= abi.MaxCounters {
		return 0, freebsd.ErrInval
	}
	key, ok := d.allocExport(e)
	if !ok {
		return 0, ErrTable
	}
	if st := d.Kernel(t, abi.KOpExport, abi.Field32(abi.KEp, uint32(e.Index)), abi.Field32(abi.KExpKey, key),
		abi.Field32(abi.KExpBase, uint32(id)), abi.Field32(abi.KExpKind, abi.ExpKindCounter)); st != abi.StatusOK {
		d.exportOwner[key&abi.ExpKeyIndexMask] = nil
		return 0, fmt.Errorf("%w: EXPORT %d", ErrStatus, st)
	}
	return key, nil
}

// Unexport withdraws an export (nvm_unexport).
func (e *Endpoint) Unexport(t *freebsd.Thread, key uint32) error {
	d := e.d
	d.syscall(t)
	i := key & abi.ExpKeyIndexMask
	if d.exportOwner[i] != e || d.exportGen[i] != key>>8 {
		return freebsd.ErrInval
	}
	if st := d.Kernel(t, abi.KOpUnexport, abi.Field32(abi.KExpKey, key)); st != abi.StatusOK {
		return fmt.Errorf("%w: UNEXPORT %d", ErrStatus, st)
	}
	d.exportOwner[i] = nil
	if r, ok := d.pinnedExports[key]; ok {
		delete(d.pinnedExports, key)
		e.Unpin(t, r[0], r[1])
	}
	return nil
}

// Import imports a remote region or counter (nvm_import) and returns the
// import index the endpoint's WRITEs name. kind is abi.ExpKindRegion or
// abi.ExpKindCounter; n is the region's length.
func (e *Endpoint) Import(t *freebsd.Thread, node, ep int, key, n, kind uint32) (int, error) {
	d := e.d
	d.syscall(t)
	idx := -1
	for i := range d.importOwner {
		if d.importOwner[i] == nil {
			idx = i
			break
		}
	}
	if idx < 0 {
		return 0, ErrTable
	}
	d.importOwner[idx] = e // taken before the command sleeps (see Open)
	if st := d.Kernel(t, abi.KOpImport, abi.Field32(abi.KEp, uint32(e.Index)), abi.Field32(abi.KImpIndex, uint32(idx)),
		abi.Field32(abi.KImpNode, uint32(node)), abi.Field32(abi.KImpEp, uint32(ep)), abi.Field32(abi.KImpKey, key),
		abi.Field32(abi.KImpLen, n), abi.Field32(abi.KImpKind, kind)); st != abi.StatusOK {
		d.importOwner[idx] = nil
		return 0, fmt.Errorf("%w: IMPORT %d", ErrStatus, st)
	}
	return idx, nil
}

// Unimport drops an import (nvm_unimport).
func (e *Endpoint) Unimport(t *freebsd.Thread, idx int) error {
	d := e.d
	d.syscall(t)
	if idx < 0 || idx >= abi.MaxImports || d.importOwner[idx] != e {
		return freebsd.ErrInval
	}
	d.Kernel(t, abi.KOpUnimport, abi.Field32(abi.KImpIndex, uint32(idx)))
	d.importOwner[idx] = nil
	return nil
}

// Counter is counter id's value in the status page (what the process
// reads with a load).
func (e *Endpoint) Counter(id int) uint64 {
	a := e.StatusPage() + abi.PageCtr + uint64(id)*8
	return uint64(e.d.hostWord(a))<<32 | uint64(e.d.hostWord(a+4))
}

// WaitBlock sleeps until counter id reaches target (nvm_wait_block: a
// system call, CTR_ARM once, the interrupt, the wake-up).
func (e *Endpoint) WaitBlock(t *freebsd.Thread, id int, target uint64) error {
	return e.WaitBlockUnless(t, id, target, nil)
}

// WaitBlockUnless is WaitBlock that also returns (nil) once failed
// reports true; the endpoint's remote errors (EvEpError) wake it to ask.
// A nil failed is WaitBlock.
func (e *Endpoint) WaitBlockUnless(t *freebsd.Thread, id int, target uint64, failed func() bool) error {
	d := e.d
	d.syscall(t)
	if id < 0 || id >= abi.MaxCounters {
		return freebsd.ErrInval
	}
	if failed == nil {
		failed = func() bool { return false }
	} else {
		e.errorWaiters[id]++
		defer func() { e.errorWaiters[id]-- }()
	}
	// The counter has one armed target: with several waiters it is the
	// lowest of theirs not reached yet, or a later waiter's higher target
	// would hide an earlier one's.
	e.blockTargets[id] = append(e.blockTargets[id], target)
	defer func() {
		ts := e.blockTargets[id]
		for i, x := range ts {
			if x == target {
				e.blockTargets[id] = append(ts[:i], ts[i+1:]...)
				break
			}
		}
	}()
	for e.Counter(id) < target && !failed() {
		arm, now := target, e.Counter(id)
		for _, x := range e.blockTargets[id] {
			if x > now && x < arm {
				arm = x
			}
		}
		if st := d.Kernel(t, abi.KOpCtrArm, abi.Field32(abi.KEp, uint32(e.Index)), abi.Field32(abi.KCtr, uint32(id)),
			abi.Field32(abi.KCtrTarget, uint32(arm)), abi.Field32(abi.KCtrMode, abi.CtrModeOnce)); st != abi.StatusOK {
			return fmt.Errorf("%w: CTR_ARM %d", ErrStatus, st)
		}
		if e.Counter(id) >= target || failed() {
			break
		}
		t.Wait(&e.ctrWait[id])
	}
	return nil
}

// SetHandler runs fn on a new thread of the process (after the signal
// delivery cost) on every increment of counter id (nvm_handler_set:
// CTR_ARM every); nil clears it.
func (e *Endpoint) SetHandler(t *freebsd.Thread, id int, fn func(t *freebsd.Thread, ctr int, value uint64)) error {
	d := e.d
	d.syscall(t)
	if id < 0 || id >= abi.MaxCounters {
		return freebsd.ErrInval
	}
	e.handlers[id] = fn
	mode := uint32(abi.CtrModeEvery)
	if fn == nil {
		mode = abi.CtrModeOff
	}
	if st := d.Kernel(t, abi.KOpCtrArm, abi.Field32(abi.KEp, uint32(e.Index)), abi.Field32(abi.KCtr, uint32(id)),
		abi.Field32(abi.KCtrMode, mode)); st != abi.StatusOK {
		return fmt.Errorf("%w: CTR_ARM %d", ErrStatus, st)
	}
	return nil
}

// ctrWake is an EvCtrWake for counter id: wake the block waiters, run the
// handler.
func (e *Endpoint) ctrWake(t *freebsd.Thread, id int, value uint64, mode uint32) {
	if id < 0 || id >= abi.MaxCounters {
		return
	}
	d := e.d
	d.K.Wakeup(&e.ctrWait[id], d.K.Timing.Wakeup)
	if fn := e.handlers[id]; fn != nil && mode == abi.CtrModeEvery {
		d.stats.SignalsDelivered++
		d.K.Go(fmt.Sprintf("%s handler", e.Proc.Name), func(ht *freebsd.Thread) {
			ht.Sleep(d.K.Timing.SignalDelivery)
			fn(ht, id, value)
		})
	}
}
