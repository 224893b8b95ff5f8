package lib

import (
	"encoding/binary"
	"errors"
	"fmt"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
)

// AtomicCounter is the counter id the library keeps for the replies of
// an endpoint's atomics (FetchAdd, CompareSwap): an application that uses
// them leaves it alone.
const AtomicCounter = abi.MaxCounters - 1

// ErrAtomic is an atomic the firmware refused (its completion status is
// in the message).
var ErrAtomic = errors.New("netvm: atomic refused")

// atomics is what an endpoint needs to receive the old values: a page of
// its process exported for the replies, and AtomicCounter exported for
// their notification.
type atomics struct {
	va, key, ctrKey uint32
	replies         uint64 // replies asked for so far
}

// PrepareAtomics sets up what the endpoint's atomics need (a reply page
// exported, AtomicCounter exported: system calls), which the first
// FetchAdd or CompareSwap would otherwise do.
func (ep *EP) PrepareAtomics(t *freebsd.Thread) error { return ep.enableAtomics(t) }

// enableAtomics sets up the reply page and counter, once.
func (ep *EP) enableAtomics(t *freebsd.Thread) error {
	if ep.atom != nil {
		return nil
	}
	va, err := ep.Proc.Mmap(t, freebsd.PageSize, freebsd.ProtRW)
	if err != nil {
		return err
	}
	if err := ep.Proc.Write(t, va, make([]byte, 4)); err != nil { // resident from the start
		return err
	}
	key, err := ep.Export(t, va, freebsd.PageSize, true)
	if err != nil {
		return err
	}
	ctrKey, err := ep.ExportCounter(t, AtomicCounter)
	if err != nil {
		return err
	}
	ep.atom = &atomics{va: va, key: key, ctrKey: ctrKey, replies: ep.Counter(AtomicCounter)}
	return nil
}

// FetchAdd adds delta to the 32-bit word at offset off of import imp (an
// import of a region exported with ExportAtomic) on its home node and
// returns the word's old value. The home NIC applies it under the SPT
// lock (docs/netvm.md §5.5); the caller waits for the reply as
// AtomicBlock says (block or busy wait). The word is big-endian in the
// home's memory, as every NetVM field.
func (ep *EP) FetchAdd(t *freebsd.Thread, imp int, off, delta uint32) (uint32, error) {
	return ep.atomic(t, imp, abi.AtomFetchAdd, off, delta, 0)
}

// CompareSwap stores swap into the word at offset off of import imp if it
// equals old, and returns the word's value before (the swap happened iff
// it equals old).
func (ep *EP) CompareSwap(t *freebsd.Thread, imp int, off, old, swap uint32) (uint32, error) {
	return ep.atomic(t, imp, abi.AtomCAS, off, old, swap)
}

// atomic posts an ATOMIC command (its request at WrInline) and waits for
// the reply's notification on AtomicCounter, then reads the old value
// from the reply page. A command the local firmware refuses completes
// with its status and gets no reply.
func (ep *EP) atomic(t *freebsd.Thread, imp int, op, off, arg0, arg1 uint32) (uint32, error) {
	if imp < 0 || imp >= abi.MaxImports || off%4 != 0 {
		return 0, ErrBadArg
	}
	if err := ep.enableAtomics(t); err != nil {
		return 0, err
	}
	a := ep.atom
	var req [32]byte // AtomReqSize, padded to whole 64-bit PIO writes
	be := binary.BigEndian
	be.PutUint32(req[abi.AtomOp:], op)
	be.PutUint32(req[abi.AtomOffset:], off)
	be.PutUint32(req[abi.AtomArg0:], arg0)
	be.PutUint32(req[abi.AtomArg1:], arg1)
	be.PutUint32(req[abi.AtomReplyKey:], a.key)
	be.PutUint32(req[abi.AtomReplyOff:], 0)
	be.PutUint32(req[abi.AtomReplyCtr:], a.ctrKey)
	tk := ep.post(t, abi.OpAtomic, 0, 0, uint32(imp), 0, 0, abi.NoCounter, req[:])
	ep.Stats.Atomics++
	// The command completes locally once its packet is built: a refused
	// one (bad import, bounds) has no reply to wait for.
	s := (ep.slot + abi.RingSlots - 1) % abi.RingSlots
	ep.spinComp(t, s, tk)
	if st, _ := ep.comp(s); st != abi.StatusOK {
		return 0, fmt.Errorf("%w: status %d", ErrAtomic, st)
	}
	// The reply's notification, or a remote error for the ticket: the
	// home refused the request (§6.1 records it in the status page, whose
	// error record the busy wait watches with the counter; the driver's
	// EvEpError wakes a block waiter).
	errs := len(ep.Errors())
	refused := func() (uint32, bool) {
		if _, st, etk := ep.ErrorRecord(); etk == tk && st != abi.StatusOK {
			return st, true
		}
		for _, e := range ep.Errors()[errs:] {
			if e.Ticket == tk {
				return e.Status, true
			}
		}
		return 0, false
	}
	failed := func() bool { _, f := refused(); return f }
	target := a.replies + 1
	if ep.AtomicBlock {
		if err := ep.WaitBlockUnless(t, AtomicCounter, target, failed); err != nil {
			return 0, err
		}
	} else {
		lo := ep.StatusPage() + abi.PageCtr + uint64(AtomicCounter)*8
		hi := ep.StatusPage() + abi.PageErr + abi.ErrTicket + 4
		ep.Stats.Polls++
		ep.Driver().Spin(t, lo, hi, func() bool { return ep.Counter(AtomicCounter) >= target || failed() })
	}
	if ep.Counter(AtomicCounter) < target {
		st, _ := refused()
		return 0, fmt.Errorf("%w: status %d (by the home)", ErrAtomic, st)
	}
	a.replies = target
	var b [4]byte
	if err := ep.Proc.Read(t, a.va, b[:]); err != nil {
		return 0, err
	}
	return be.Uint32(b[:]), nil
}
