// Package lib is the NetVM user library (the API of systems.md §7, in Go):
// an endpoint opened through the driver, WRITEs posted by programmed I/O
// straight into the endpoint's ring (no system call), local completions
// and counters read from the status page, and the three ways to wait for
// a counter: busy, block, handler. A wait queue and a counting semaphore
// are built on counters (sync.go); remote atomics (atomic.go) and the
// standard semaphore and ticket queue on them (atomicsync.go) are E8's
// baseline.
package lib

import (
	"encoding/binary"
	"errors"
	"math/bits"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/driver"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/sim"
)

// NoCounter names no counter in Write.
const NoCounter = -1

// ErrBadArg is a bad argument caught by the library (the firmware checks
// the rest and completes the WRITE with a status).
var ErrBadArg = errors.New("netvm: bad argument")

// EP is an open endpoint, as the process sees it.
type EP struct {
	*driver.Endpoint
	slot    int
	ticket  uint32
	tickets [abi.RingSlots]uint32 // ticket posted in each slot, 0: none
	Stats   Stats
	// NoInline makes every WRITE name its source for the NIC to DMA;
	// otherwise a WRITE of 1..abi.InlineMax bytes carries its payload in
	// the slot (abi.CmdFlagInline: no host DMA on the sender).
	NoInline bool
	// AtomicBlock makes FetchAdd and CompareSwap sleep for their reply
	// (block wait) instead of spinning on the counter.
	AtomicBlock bool
	atom        *atomics
}

// Stats count what the library did.
type Stats struct {
	Writes, Bytes, RingWaits, Polls, Atomics, AtomicPolls int
}

// Open opens an endpoint for proc (nvm_open).
func Open(t *freebsd.Thread, d *driver.Driver, proc *freebsd.Proc) (*EP, error) {
	e, err := d.Open(t, proc)
	if err != nil {
		return nil, err
	}
	return &EP{Endpoint: e}, nil
}

// comp reads the completion record of ring slot s: status, ticket.
func (ep *EP) comp(s int) (uint32, uint32) {
	var b [abi.CompSize]byte
	if err := ep.Driver().Mem.Read(ep.StatusPage()+abi.PageComp+uint64(s)*abi.CompSize, b[:]); err != nil {
		panic(err)
	}
	return binary.BigEndian.Uint32(b[abi.CompStatus:]), binary.BigEndian.Uint32(b[abi.CompTicket:])
}

// Write posts a WRITE of n bytes from the process's address src to
// offset off of import imp, naming counter import ctr (or NoCounter)
// (nvm_write). It returns the ticket Test and Quiet take. The source
// need not be resident. When the ring is full it waits for the oldest
// slot's completion.
func (ep *EP) Write(t *freebsd.Thread, src uint32, imp int, off, n uint32, ctr int) (uint32, error) {
	if imp < 0 || imp >= abi.MaxImports || ctr >= abi.MaxImports || n > abi.MaxWrite {
		return 0, ErrBadArg
	}
	c := uint32(abi.NoCounter)
	if ctr >= 0 {
		c = uint32(ctr)
	}
	// A small payload goes into the slot: read by the CPU (a source that
	// is not mapped takes the DMA path, whose source fault the firmware
	// reports).
	var inline []byte
	if !ep.NoInline && n > 0 && n <= abi.InlineMax {
		inline = make([]byte, (n+7)&^7)
		if ep.Proc.Read(t, src, inline[:n]) != nil {
			inline = nil
		}
	}
	flags := uint16(0)
	if inline != nil {
		flags = abi.CmdFlagInline
	}
	tk := ep.post(t, abi.OpWrite, flags, src, uint32(imp), off, n, c, inline)
	ep.Stats.Writes++
	ep.Stats.Bytes += int(n)
	return tk, nil
}

// post writes one command into the next ring slot (waiting for the slot
// to be free): ticket, source, length, offset, import, counter import,
// the inline bytes (a multiple of 8) at WrInline, then the flags and the
// opcode. It returns the ticket.
func (ep *EP) post(t *freebsd.Thread, opcode byte, flags uint16, src, imp, off, n, c uint32, inline []byte) uint32 {
	s := ep.slot
	if tk := ep.tickets[s]; tk != 0 {
		if _, got := ep.comp(s); got != tk {
			ep.Stats.RingWaits++
			ep.spinComp(t, s, tk)
		}
	}
	ep.slot = (s + 1) % abi.RingSlots
	ep.ticket++
	if ep.ticket == 0 {
		ep.ticket++
	}
	ep.tickets[s] = ep.ticket
	// The slot by 64-bit PIO writes (big-endian fields), the opcode last
	// with the flags byte: 4 transactions, and one per 8 inline bytes.
	d := ep.Driver()
	slot := ep.Ring() + uint32(s)*abi.CmdSize
	w := d.W
	w.At(t.Now())
	for i := 0; i < len(inline); i += 8 {
		if _, err := w.Write64(slot+abi.WrInline+uint32(i), bits.ReverseBytes64(binary.BigEndian.Uint64(inline[i:]))); err != nil {
			panic(err)
		}
	}
	put64 := func(off uint32, hi, lo uint32) {
		if _, err := w.Write64(slot+off, bits.ReverseBytes64(uint64(hi)<<32|uint64(lo))); err != nil {
			panic(err)
		}
	}
	put64(abi.CmdTicket, ep.ticket, src) // ticket, source VA
	put64(abi.WrLen, n, off)             // length, destination offset
	fields, err := w.Write32(slot+abi.WrImport, bits.ReverseBytes32(imp<<16|c))
	if err != nil {
		panic(err)
	}
	// The opcode (with the flags byte) lands in SRAM PIOLanding after the
	// CPU has issued it (docs/host.md); the CPU pays the transaction.
	op := func() (sim.Time, error) {
		return w.Write16(slot+abi.CmdFlags, uint16(opcode)<<8|flags) // flags (byte 0x3E), op (0x3F)
	}
	var end sim.Time
	if k := d.K; k.Timing.PIOLanding > 0 {
		end = fields + k.Timing.PIOWrite
		k.Q.Schedule(end+k.Timing.PIOLanding, k.Node, func() {
			w.At(fields)
			if _, err := op(); err != nil {
				panic(err)
			}
		})
	} else if end, err = op(); err != nil {
		panic(err)
	}
	if end > t.Now() {
		t.Compute(end - t.Now())
	}
	return ep.ticket
}

// Test reports whether the WRITE with ticket tk has completed locally
// (its source may be reused) and its status (nvm_test).
func (ep *EP) Test(tk uint32) (bool, uint32) {
	for s, x := range ep.tickets {
		if x == tk {
			st, got := ep.comp(s)
			return got == tk, st
		}
	}
	return true, abi.StatusOK // an old ticket: its slot was reused, so it completed
}

// Quiet waits until every WRITE posted has completed locally
// (nvm_quiet).
func (ep *EP) Quiet(t *freebsd.Thread) {
	for s, tk := range ep.tickets {
		if tk != 0 {
			ep.spinComp(t, s, tk)
		}
	}
}

// spinComp spins until ring slot s's completion record shows ticket tk.
func (ep *EP) spinComp(t *freebsd.Thread, s int, tk uint32) {
	a := ep.StatusPage() + abi.PageComp + uint64(s)*abi.CompSize
	ep.Driver().Spin(t, a, a+abi.CompSize, func() bool { _, got := ep.comp(s); return got == tk })
}

// WaitBusy spins on counter id until it reaches target (nvm_wait_busy).
func (ep *EP) WaitBusy(t *freebsd.Thread, id int, target uint64) {
	a := ep.StatusPage() + abi.PageCtr + uint64(id)*8
	ep.Stats.Polls++
	ep.Driver().Spin(t, a, a+8, func() bool { return ep.Counter(id) >= target })
}
