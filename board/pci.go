package board

import (
	"fmt"
	"math/bits"

	"lanaiemu/sim"
)

// PCI is the timing model of the host DMA engine (docs/hardware.md,
// "PCI timing model"). The zero PCI means DefaultPCI(); any other value
// is used as given.
type PCI struct {
	// BusHz is the PCI clock: 66 MHz (PCI64 boards, lanai9-hw.md 5.6).
	BusHz uint64
	// BusBytes is the width of the data path: 8 (64-bit). The peak rate
	// is BusHz * BusBytes = 528 MB/s.
	BusBytes uint32
	// BurstBytes is the most bytes one PCI transaction moves before the
	// engine gives up the bus: 256 (GM's default, 32 data phases;
	// lanai9-hw.md 5.6 and 7.4).
	BurstBytes uint32
	// ReadLatency is how long the host takes to deliver the first data of
	// a read transaction, paid by every host->SRAM burst: 0.6 us
	// (lanai9-hw.md 7.4 pci_read_start_latency; Myricom: hosts delay the
	// beginning of DMA reads by ~60 PCI-X clocks).
	ReadLatency sim.Time
	// BurstOverhead is the PCI clocks a burst occupies besides its data
	// phases (arbitration and address phase, turnaround): 2 [U].
	BurstOverhead uint64
	// PulseDelay is the core cycles from a PULSE store to the engine's
	// first SRAM access: 1 (the store completes at the end of its cycle).
	PulseDelay uint64
	// FetchAccesses is the SRAM accesses (core cycles) to read a
	// descriptor: 2 (lanai9-hw.md 7.4).
	FetchAccesses uint64
	// WriteBackAccesses is the SRAM accesses to write a completed
	// descriptor back (its first 8 bytes: next|TERMINAL and the
	// checksums): 1 (lanai9-hw.md 7.4).
	WriteBackAccesses uint64
	// SRAMBytes is the bytes the engine moves to or from SRAM per core
	// cycle: 8 (the 64-bit SRAM path at the core clock, lanai9-hw.md 7.1).
	SRAMBytes uint32
	// FIFOAccesses is the SRAM latency of the engine's data FIFO: SRAM
	// moves 8 bytes per core cycle, faster than the bus, so data streams
	// between them and only the first SRAM read of an SRAM->host transfer
	// and the last SRAM write of a host->SRAM burst add latency: 1 [U].
	FIFOAccesses uint64
}

// DefaultPCI is the model of a PCI64B/C board in a 64-bit/66 MHz slot.
func DefaultPCI() PCI {
	return PCI{
		BusHz:             66_000_000,
		BusBytes:          8,
		BurstBytes:        256,
		ReadLatency:       600 * sim.Nanosecond,
		BurstOverhead:     2,
		PulseDelay:        1,
		FetchAccesses:     2,
		WriteBackAccesses: 1,
		SRAMBytes:         8,
		FIFOAccesses:      1,
	}
}

func (p PCI) withDefaults() (PCI, error) {
	if p == (PCI{}) {
		return DefaultPCI(), nil
	}
	if p.BusHz == 0 || p.BusBytes == 0 || p.BurstBytes == 0 || p.SRAMBytes == 0 {
		return p, fmt.Errorf("board: PCI model needs non-zero BusHz, BusBytes, BurstBytes and SRAMBytes: %+v", p)
	}
	return p, nil
}

// busLatency is the PCI clocks from a PCI clock edge e to the first edge
// at or after ReadLatency later, when it is the same for every e: the
// start of a host->SRAM burst that follows the previous one's end
// (bus.Cycles(bus.Time(e)+ReadLatency) - e). With S = 1e12 ps and
// rem = e*S mod BusHz (the part of a picosecond bus.Time(e) drops),
// that is ceil((ReadLatency*BusHz - rem)/S); write ReadLatency*BusHz as
// q*S + r: it is q when r is 0 and q+1 when r >= BusHz > rem, whatever
// rem is. Otherwise (0 < r < BusHz, a latency within a picosecond's
// worth of a whole number of clocks, or a bus faster than 1 THz) ok is
// false and every burst converts.
func busLatency(p PCI) (clocks uint64, ok bool) {
	hi, lo := bits.Mul64(uint64(p.ReadLatency), p.BusHz)
	if hi >= uint64(sim.Second) || p.BusHz > uint64(sim.Second) {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, uint64(sim.Second))
	switch {
	case r == 0:
		return q, true
	case r >= p.BusHz:
		return q + 1, true
	}
	return 0, false
}

// window is a half-open interval [from, to) of clock cycles.
type window struct{ from, to uint64 }

// calendar is a set of disjoint busy intervals, sorted: the PCI bus (in
// PCI clocks) and the DMA engine's SRAM cycles (in core cycles).
type calendar struct{ iv []window }

// prune forgets intervals that end at or before t.
func (c *calendar) prune(t uint64) {
	i := 0
	for i < len(c.iv) && c.iv[i].to <= t {
		i++
	}
	if i > 0 {
		c.iv = append(c.iv[:0], c.iv[i:]...)
	}
}

// reserve books the first free stretch of n cycles starting at or after
// ready and returns its start.
func (c *calendar) reserve(ready, n uint64) uint64 {
	s := ready
	for _, w := range c.iv {
		if w.to <= s {
			continue
		}
		if s+n <= w.from {
			break
		}
		s = w.to
	}
	c.add(s, s+n)
	return s
}

// add marks [from, to) busy, merging with what it touches.
func (c *calendar) add(from, to uint64) {
	if to <= from {
		return
	}
	i := 0
	for i < len(c.iv) && c.iv[i].to < from {
		i++
	}
	j := i
	for j < len(c.iv) && c.iv[j].from <= to {
		from = min(from, c.iv[j].from)
		to = max(to, c.iv[j].to)
		j++
	}
	// c.iv[i:j] becomes the one window, in place (no allocation once the
	// slice has grown).
	switch {
	case j == i:
		c.iv = append(c.iv, window{})
		copy(c.iv[i+1:], c.iv[i:])
	case j > i+1:
		c.iv = append(c.iv[:i+1], c.iv[j:]...)
	}
	c.iv[i] = window{from, to}
}

// nextBusy is the first busy cycle at or after t, or ^0 when none is.
func (c *calendar) nextBusy(t uint64) uint64 {
	for _, w := range c.iv {
		if w.to > t {
			return max(w.from, t)
		}
	}
	return ^uint64(0)
}

// busyUntil is the end of the interval holding t, or 0 if t is free.
func (c *calendar) busyUntil(t uint64) uint64 {
	for _, w := range c.iv {
		if w.from > t {
			break
		}
		if t < w.to {
			return w.to
		}
	}
	return 0
}
