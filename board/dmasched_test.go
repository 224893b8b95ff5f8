package board

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
	"lanaiemu/sim"
)

// busySrc keeps the core loading and storing SRAM (so that DMA SRAM
// cycles stall it and device events run after their cycle) in a loop that
// never settles.
const busySrc = `
	.globl	_start
_start:
	mov	0x8000, %sp
	mov	0x20000, %r9
.Lb:
	ld	0[%r9], %r7
	add	%r7, 1, %r7
	st	%r7, 0[%r9]
	ld	4[%r9], %r8
	add	%r8, %r7, %r8
	st	%r8, 8[%r9]
	bt	.Lb
	nop
`

// runDMAMix runs random descriptor chains on all four channels at once
// (both directions, odd lengths and addresses, started at random cycles
// while the core runs busySrc) and returns everything the board did: its
// trace, SRAM, host memory and the core's counts. The core's cycle count
// is set to from first (from > 0 puts the run near the end of the
// picosecond timeline). plain turns off the burst schedule's shortcuts
// (busEdges: every burst prunes the bus at the core's PCI clock and
// converts its ready time); otherwise every 1-40 cycles the run checks
// busPast's promise (busPastHolds).
func runDMAMix(t *testing.T, hz uint64, pci PCI, seed, from uint64, plain bool) string {
	t.Helper()
	host := NewHostRAM(hostBase, 1<<20)
	copy(host.Data, pattern(len(host.Data), seed))
	var trace bytes.Buffer
	var b *Board
	cfg := Config{Config: lanai.Config{ClockHz: hz}, PCI: pci, Host: host, Trace: func(e Event) {
		fmt.Fprintf(&trace, "%s (at %d)\n", e, b.CPU().Cycles)
	}}
	b, _ = boot(t, cfg, lanaitest.Build(t, inline(busySrc)))
	b.CPU().Cycles = from
	if plain {
		b.busEdges = false
	}
	r := sim.NewRand(seed)
	mem := b.CPU().Mem
	for ch := 0; ch < NumChannels; ch++ {
		base := uint32(0x1000 + ch*0x400)
		n := 1 + int(r.Uint64()%6)
		for i := 0; i < n; i++ {
			d := Descriptor{Next: base + uint32(i+1)*DescriptorSize}
			if r.Uint64()%2 == 0 {
				d.Next |= DMAE2L
			}
			d.Len = uint32(r.Uint64() % 1500)
			d.LAR = 0x40000 + uint32(ch)*0x10000 + uint32(r.Uint64()%0x8000)
			d.PCI = hostBase + uint64(ch)*0x40000 + r.Uint64()%0x30000
			mem.Write(base+uint32(i)*DescriptorSize, d.Bytes())
		}
		mem.Write(base+uint32(n)*DescriptorSize, Descriptor{Next: DMATerminal}.Bytes())
		b.HostWritePointerBank(ch, base)
		start := from + 50 + r.Uint64()%3000
		if ch == 3 {
			b.CPU().Schedule(start, func() { b.TriggerDMA(3) })
			continue
		}
		bit := uint32(0)
		for k, p := range PulseBits {
			if p.Channel == ch {
				bit = 1 << k
			}
		}
		b.CPU().Schedule(start, func() {
			if err := mem.WriteIO(0xFFFFFE00+RegPULSE, 4, bit); err != nil {
				t.Error(err)
			}
		})
	}
	for b.CPU().Cycles < from+60_000 {
		b.Run(1 + r.Uint64()%40)
		if !plain {
			if err := busPastHolds(b); err != nil {
				t.Fatalf("seed %d, cycle %d: %v", seed, b.CPU().Cycles, err)
			}
		}
	}
	if b.Fault() != nil {
		t.Fatalf("seed %d: fault %v", seed, b.Fault())
	}
	return fmt.Sprintf("%s\ncycles %d instret %d\nSRAM %x\nhost %x", trace.String(), b.CPU().Cycles, b.CPU().Instret,
		sha256.Sum256(b.CPU().Mem.SRAM), sha256.Sum256(host.Data))
}

// The burst schedule's shortcuts (the bus calendar emptied without
// converting the core cycle once every window has ended, a burst's start
// taken from the previous burst's end clock and busLatency) give what the
// plain conversions give: four channels sharing the bus, on four clock and
// latency models.
func TestBurstScheduleShortcuts(t *testing.T) {
	slow := DefaultPCI()
	slow.BusHz, slow.ReadLatency = 33_000_000, sim.Microsecond // busLatency: r == 0
	odd := DefaultPCI()
	odd.ReadLatency = 15152 // busLatency: every burst converts
	for _, tc := range []struct {
		hz  uint64
		pci PCI
	}{{200_000_000, PCI{}}, {133_000_000, PCI{}}, {133_000_000, slow}, {200_000_000, odd},
		{50_000_000, PCI{}}, {66_000_000, PCI{}}, {33_333_333, odd}} { // (cores no faster than the bus)
		var bursts int
		for seed := uint64(1); seed <= 12; seed++ {
			fast := runDMAMix(t, tc.hz, tc.pci, seed, 0, false)
			plain := runDMAMix(t, tc.hz, tc.pci, seed, 0, true)
			if fast != plain {
				t.Fatalf("%d Hz, bus %d Hz, seed %d: the shortcuts differ from the plain schedule:\n%s", tc.hz, tc.pci.BusHz, seed, firstDiff(fast, plain))
			}
			bursts += bytes.Count([]byte(fast), []byte(" dma-burst "))
		}
		if bursts < 500 {
			t.Errorf("%d Hz: only %d bursts", tc.hz, bursts)
		}
	}
}

// busPastHolds checks busPast's promise: pruning the bus at busPast's
// PCI clock would empty the calendar (every window ends at or before it).
func busPastHolds(b *Board) error {
	if b.busPast == ^uint64(0) {
		return nil
	}
	at := b.pciClock.Cycles(b.clock.Time(b.busPast))
	for _, w := range b.busCal.iv {
		if w.to > at {
			return fmt.Errorf("busPast %d (PCI clock %d), but a bus window [%d, %d) is still open", b.busPast, at, w.from, w.to)
		}
	}
	return nil
}

// The shortcuts give the plain schedule's results at the end of the
// picosecond timeline too, where a burst's end saturates to sim.Never
// (its PCI clock no longer converts back to itself): the core starts a
// few thousand cycles before its clock reaches sim.Never.
func TestBurstScheduleShortcutsAtTheEndOfTime(t *testing.T) {
	for _, hz := range []uint64{200_000_000, 133_000_000} {
		from := sim.Clock{Hz: hz}.Cycles(sim.Never) - 2_000
		for seed := uint64(1); seed <= 4; seed++ {
			fast := runDMAMix(t, hz, PCI{}, seed, from, false)
			plain := runDMAMix(t, hz, PCI{}, seed, from, true)
			if fast != plain {
				t.Fatalf("%d Hz, seed %d: the shortcuts differ from the plain schedule:\n%s", hz, seed, firstDiff(fast, plain))
			}
		}
	}
}

// firstDiff shows the first line at which a and b differ.
func firstDiff(a, b string) string {
	al, bl := bytes.Split([]byte(a), []byte("\n")), bytes.Split([]byte(b), []byte("\n"))
	for i := 0; i < min(len(al), len(bl)); i++ {
		if !bytes.Equal(al[i], bl[i]) {
			return fmt.Sprintf("line %d: %s\n  plain: %s", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// busLatency's clocks are the conversions' for every edge, and it says so
// only when they are.
func TestBusLatency(t *testing.T) {
	for _, tc := range []struct {
		hz uint64
		l  sim.Time
		ok bool
	}{
		{66_000_000, 600 * sim.Nanosecond, true},  // r >= BusHz: q+1
		{33_000_000, sim.Microsecond, true},       // r == 0: q
		{66_000_000, 0, true},                     // no latency
		{66_000_000, 15152, false},                // 0 < r < BusHz: depends on the edge
		{100_000_000, 600 * sim.Nanosecond, true}, // a whole number of periods
		{2 * uint64(sim.Second), 7, false},        // faster than 1 THz
	} {
		clocks, ok := busLatency(PCI{BusHz: tc.hz, ReadLatency: tc.l})
		if ok != tc.ok {
			t.Errorf("%d Hz, %v: ok %v, want %v", tc.hz, tc.l, ok, tc.ok)
		}
		bus := sim.Clock{Hz: tc.hz}
		varies := false
		for e := uint64(0); e < 5000; e++ {
			want := bus.Cycles(bus.Time(e)+tc.l) - e
			if ok && want != clocks {
				t.Fatalf("%d Hz, %v, edge %d: %d clocks, busLatency says %d", tc.hz, tc.l, e, want, clocks)
			}
			varies = varies || want != bus.Cycles(bus.Time(0)+tc.l)
		}
		if !ok && tc.hz <= uint64(sim.Second) && !varies {
			t.Errorf("%d Hz, %v: not taken, though the same for every edge", tc.hz, tc.l)
		}
	}
}
