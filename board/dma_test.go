package board

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
	"lanaiemu/sim"
)

const hostBase = 1 << 32 // test host memory sits above 4 GiB (eah = 1)

// expectDone is the documented DMA timing model (docs/hardware.md, "PCI
// timing model") for one descriptor on an otherwise idle bus: the cycle at
// which a descriptor of n bytes, started by a PULSE store at core cycle w,
// is written back.
//
//	fetch ends at f = w + PulseDelay + FetchAccesses
//	burst i (k_i <= BurstBytes bytes) is ready at r_0 = Time(f) (host->SRAM)
//	  or Time(f + FIFOAccesses) (SRAM->host), r_i = end of burst i-1;
//	  it starts at the first PCI clock at or after r_i (+ ReadLatency for
//	  host->SRAM) and lasts BurstOverhead + ceil((host%8 + k_i)/8) clocks;
//	done = first core cycle at or after the last burst's end
//	  + FIFOAccesses (host->SRAM only) + WriteBackAccesses.
func expectDone(hz uint64, p PCI, w uint64, e2l bool, lar uint32, host uint64, n uint32) uint64 {
	core, bus := sim.Clock{Hz: hz}, sim.Clock{Hz: p.BusHz}
	f := w + p.PulseDelay + p.FetchAccesses
	if n == 0 {
		return f + p.WriteBackAccesses
	}
	ready := core.Time(f)
	if !e2l {
		ready = core.Time(f + p.FIFOAccesses)
	}
	var free uint64
	var end sim.Time
	var pos uint32
	for pos < n {
		k := min(n-pos, p.BurstBytes)
		bb := uint64(p.BusBytes)
		phases := ((host+uint64(pos))%bb + uint64(k) + bb - 1) / bb
		r := ready
		if e2l {
			r += p.ReadLatency
		}
		start := max(bus.Cycles(r), free)
		free = start + p.BurstOverhead + phases
		end = bus.Time(free)
		ready = end
		pos += k
	}
	done := core.Cycles(end) + p.WriteBackAccesses
	if e2l {
		done += p.FIFOAccesses
	}
	return done
}

// pattern fills n bytes deterministically.
func pattern(n int, seed uint64) []byte {
	r := sim.NewRand(seed)
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint64())
	}
	return p
}

// dmaBoard makes a board running the idle program with host memory and
// a trace of DMA completions and WAKE0 raises.
type dmaBoard struct {
	*Board
	host   *HostRAM
	done   []uint64
	wake   []uint64
	bursts int
	events []string
}

func newDMABoard(t testing.TB, cfg Config, src string) (*dmaBoard, map[string]uint32) {
	d := &dmaBoard{host: NewHostRAM(hostBase, 1<<20)}
	cfg.Host = d.host
	cfg.Trace = func(e Event) {
		d.events = append(d.events, e.String())
		switch {
		case e.Kind == EvDMADone:
			d.done = append(d.done, e.Cycle)
		case e.Kind == EvDMABurst:
			d.bursts++
		case e.Kind == EvISR && e.Bits == Wake0IntBit:
			d.wake = append(d.wake, e.Cycle)
		}
	}
	b, syms := boot(t, cfg, lanaitest.Build(t, inline(src)))
	d.Board = b
	return d, syms
}

// One descriptor, started by a PULSE store at a known cycle, completes at
// the cycle the PCI model gives; the data, checksums and write-back are
// right.
func TestDMATiming(t *testing.T) {
	const descAt = 0x1000
	p512 := DefaultPCI()
	p512.BurstBytes = 512
	for _, tc := range []struct {
		name string
		hz   uint64
		pci  PCI
		e2l  bool
		lar  uint32
		off  uint64 // host offset
		n    uint32
	}{
		{"host->SRAM 4096 aligned", 133_000_000, PCI{}, true, 0x10000, 0, 4096},
		{"host->SRAM 1000 odd", 133_000_000, PCI{}, true, 0x10003, 0x105, 1000},
		{"host->SRAM 4096 burst 512", 133_000_000, p512, true, 0x10000, 0, 4096},
		{"host->SRAM 4096 at 200 MHz", 200_000_000, PCI{}, true, 0x10000, 0, 4096},
		{"SRAM->host 4096 aligned", 133_000_000, PCI{}, false, 0x10000, 0, 4096},
		{"SRAM->host 1 byte", 133_000_000, PCI{}, false, 0x10007, 0x3, 1},
		{"SRAM->host 777 odd", 133_000_000, PCI{}, false, 0x10001, 0x6, 777},
		{"zero length", 133_000_000, PCI{}, true, 0x10000, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := newDMABoard(t, Config{Config: lanai.Config{ClockHz: tc.hz}, PCI: tc.pci}, idleSrc)
			p := d.PCIParams()
			data := pattern(int(tc.n), 7)
			next := uint32(descAt+DescriptorSize) | DMAWake
			if tc.e2l {
				next |= DMAE2L
				copy(d.host.Data[tc.off:], data)
			} else {
				d.CPU().Mem.Write(tc.lar, data)
			}
			desc := Descriptor{Next: next, Len: tc.n, LAR: tc.lar, PCI: hostBase + tc.off}
			d.CPU().Mem.Write(descAt, desc.Bytes())
			d.CPU().Mem.Write(descAt+DescriptorSize, Descriptor{Next: DMATerminal}.Bytes())
			d.HostWritePointerBank(0, descAt)
			const w = 100
			at(t, d.Board, w, func() { coreWrite(t, d.Board, RegPULSE, 2) }) // channel 0
			want := expectDone(tc.hz, p, w, tc.e2l, tc.lar, hostBase+tc.off, tc.n)
			d.Run(want + 1000)
			if d.Fault() != nil {
				t.Fatal(d.Fault())
			}
			if len(d.done) != 1 || d.done[0] != want {
				t.Fatalf("done at %v, want [%d]\n%s", d.done, want, strings.Join(d.events, "\n"))
			}
			if len(d.wake) != 1 || d.wake[0] != want {
				t.Errorf("WAKE0 at %v, want [%d]", d.wake, want)
			}
			if wantBursts := (int(tc.n) + int(p.BurstBytes) - 1) / int(p.BurstBytes); d.bursts != wantBursts {
				t.Errorf("%d bursts, want %d", d.bursts, wantBursts)
			}
			var moved []byte
			if tc.e2l {
				moved, _ = d.CPU().Mem.Read(tc.lar, tc.n)
			} else {
				moved = d.host.Data[tc.off : tc.off+uint64(tc.n)]
			}
			if !bytes.Equal(moved, data) {
				t.Error("data not moved")
			}
			raw, _ := d.CPU().Mem.Read(descAt, DescriptorSize)
			got := ParseDescriptor(raw)
			if got.Next != next|DMATerminal {
				t.Errorf("written back next %#x, want %#x", got.Next, next|DMATerminal)
			}
			if c0, c1 := Checksum(data, false), Checksum(data, tc.lar&1 != 0); got.Csum != [2]uint16{c0, c1} {
				t.Errorf("csum %04x, want [%04x %04x]", got.Csum, c0, c1)
			}
			if d.HostReadPointerBank(0) != descAt+DescriptorSize {
				t.Errorf("channel pointer %#x after the chain", d.HostReadPointerBank(0))
			}
			if d.ISR()&Wake0IntBit == 0 {
				t.Error("WAKE0 not set")
			}
		})
	}
}

// The headline number, cross-checked in floating point: 4096 bytes from
// host to SRAM in 16 bursts of 256 bytes, each 0.6 us start latency plus
// 32 data phases and 2 overhead clocks at 66 MHz (rounded up to PCI clock
// edges), at 133 MHz core clock.
func TestDMATimingHeadline(t *testing.T) {
	want := expectDone(133_000_000, DefaultPCI(), 100, true, 0x10000, hostBase, 4096)
	perBurst := 0.6e-6 + 34/66e6
	approx := 100 + 3 + 16*perBurst*133e6 + 1 + 1
	// Each burst's start waits for the next PCI clock edge: up to one PCI
	// clock (2 core cycles) more per burst.
	if f := float64(want); f < approx || f > approx+16*133.0/66+2 {
		t.Fatalf("exact model %d, float estimate %.1f", want, approx)
	}
	t.Logf("4096-byte host->SRAM descriptor pulsed at cycle 100 completes at cycle %d (%.3f us, %.1f MB/s)",
		want, float64(want-100)/133, 4096/(float64(want-100)/133))
	if math.Abs(float64(want)-approx) > 40 {
		t.Fatal("estimate off")
	}
}

// Two channels share the PCI bus: their bursts are serialised, so 2 x 4096
// bytes SRAM->host take at least the bus time of 32 bursts of 34 clocks.
func TestDMASharedBus(t *testing.T) {
	d, _ := newDMABoard(t, Config{}, idleSrc)
	for i, a := range []uint32{0x1000, 0x1100} {
		d.CPU().Mem.Write(a, Descriptor{Next: a + 0x30 | DMAWake, Len: 4096, LAR: 0x10000, PCI: hostBase + uint64(i)*0x2000}.Bytes())
		d.CPU().Mem.Write(a+0x30, Descriptor{Next: DMATerminal}.Bytes())
	}
	d.HostWritePointerBank(0, 0x1000)
	d.HostWritePointerBank(2, 0x1100)
	at(t, d.Board, 100, func() { coreWrite(t, d.Board, RegPULSE, 6) }) // channels 0 and 2
	d.Run(100_000)
	single := expectDone(133_000_000, DefaultPCI(), 100, false, 0x10000, hostBase, 4096)
	bus := sim.Clock{Hz: 66_000_000}
	minEnd := d.Clock().Cycles(d.Clock().Time(100+3+1) + bus.Time(32*34))
	if len(d.done) != 2 || d.done[0] <= single || d.done[1] < minEnd {
		t.Fatalf("done at %v; one channel alone: %d; the bus alone needs until %d", d.done, single, minEnd)
	}
}

// SRAM contention: the arbiter reports the engine's SRAM cycles.
func TestSRAMContention(t *testing.T) {
	d, _ := newDMABoard(t, Config{}, idleSrc)
	d.CPU().Mem.Write(0x1000, Descriptor{Next: 0x1030 | DMAE2L, Len: 256, LAR: 0x10000, PCI: hostBase}.Bytes())
	d.CPU().Mem.Write(0x1030, Descriptor{Next: DMATerminal}.Bytes())
	d.HostWritePointerBank(0, 0x1000)
	at(t, d.Board, 100, func() { coreWrite(t, d.Board, RegPULSE, 2) })
	// Fetch: SRAM cycles 101 and 102.
	d.Run(102 - d.CPU().Cycles)
	for _, tc := range []struct {
		cycle uint64
		addr  uint32
		stall uint64
	}{
		{100, 0x2000, 0}, {101, 0x2000, 2}, {102, 0x2000, 1}, {101, 0xFFFFFE50, 0},
	} {
		if got := d.SRAMContention(tc.cycle, tc.addr, false); got != tc.stall {
			t.Errorf("cycle %d addr %#x: stall %d, want %d", tc.cycle, tc.addr, got, tc.stall)
		}
	}
	// The burst's 32 SRAM writes and the write-back end at the completion.
	want := expectDone(133_000_000, DefaultPCI(), 100, true, 0x10000, hostBase, 256)
	d.Run(want - 20 - d.CPU().Cycles)
	if got := d.SRAMContention(want-20, 0, true); got != 20 {
		t.Errorf("during the burst's SRAM writes: stall %d, want 20", got)
	}
	var c calendar
	c.add(10, 20)
	c.add(30, 40)
	c.add(20, 25)
	if s := c.reserve(0, 5); s != 0 {
		t.Errorf("reserve at 0: %d", s)
	}
	if s := c.reserve(22, 5); s != 25 { // the gap [25, 30) fits exactly
		t.Errorf("reserve at 22: %d (%v)", s, c.iv)
	}
	if s := c.reserve(11, 3); s != 40 {
		t.Errorf("reserve at 11: %d (%v)", s, c.iv)
	}
	if fmt.Sprint(c.iv) != "[{0 5} {10 43}]" {
		t.Errorf("calendar %v", c.iv)
	}
}

// Firmware: dmachain.s gathers 12 pieces host->SRAM and scatters them
// SRAM->host in 5 pieces, then exits with the sum of the engine's
// checksums, which must be the checksum of the whole buffer.
func TestFirmwareDMAChain(t *testing.T) {
	img := lanaitest.Build(t, testdata(t, "dmachain.s"))
	lens := []int{1, 7, 256, 255, 513, 4096, 3, 1000, 64, 2, 300, 8}
	var traces []string
	var cycles []uint64
	for run := 0; run < 2; run++ {
		host := NewHostRAM(hostBase, 1<<16)
		src := pattern(0x2000, 99)
		copy(host.Data, src)
		var trace []string
		b, syms := boot(t, Config{Host: host, Trace: func(e Event) { trace = append(trace, e.String()) }}, img)
		code := runExit(t, b, 10_000_000)
		var want []byte
		off := 0
		for i, n := range lens {
			want = append(want, src[off+3*i:off+3*i+n]...)
			off += n
		}
		got, _ := b.CPU().Mem.Read(syms["buf"], uint32(len(want)))
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("gathered buffer (-want +got):\n%s", d)
		}
		if d := cmp.Diff(want, host.Data[0x8001:0x8001+len(want)]); d != "" {
			t.Fatalf("scattered host data (-want +got):\n%s", d)
		}
		if sum := uint32(Checksum(want, false)); code != sum {
			t.Fatalf("firmware's checksum %#x, want %#x", code, sum)
		}
		// Every descriptor was written back TERMINAL with its checksums.
		off = 0
		for i, n := range lens {
			raw, _ := b.CPU().Mem.Read(syms["e2l0"]+uint32(24*i), 24)
			d := ParseDescriptor(raw)
			piece := want[off : off+n]
			if d.Next&DMATerminal == 0 || d.Csum != [2]uint16{Checksum(piece, false), Checksum(piece, (syms["buf"]+uint32(off))&1 != 0)} {
				t.Errorf("descriptor %d: %+v", i, d)
			}
			off += n
		}
		if b.Fault() != nil {
			t.Fatal(b.Fault())
		}
		traces = append(traces, strings.Join(trace, "\n"))
		cycles = append(cycles, b.CPU().Cycles)
	}
	if traces[0] != traces[1] || cycles[0] != cycles[1] {
		t.Fatalf("not deterministic: %v", cycles)
	}
}

// Bad descriptors stop the channel with a Fault and MEM_INT, never hang.
func TestFirmwareBadDescriptors(t *testing.T) {
	img := lanaitest.Build(t, testdata(t, "baddesc.s"))
	const sram = 2 << 20
	type setup func(descs, buf uint32, host *HostRAM) (head uint32, ds []Descriptor)
	for _, tc := range []struct {
		name   string
		max    int
		nohost bool
		setup  setup
		exit   uint32 // ISR bits the firmware saw
		reason string // "" for no fault
	}{
		{"descriptor outside SRAM", 0, false, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			return sram - 8, nil
		}, MemIntBit, "descriptor [0x1ffff8, 0x200010) outside SRAM"},
		{"next pointer outside SRAM", 0, false, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			return descs, []Descriptor{{Next: 0x7FFFFFF8 | DMAE2L, Len: 16, LAR: buf, PCI: hostBase}}
		}, MemIntBit, "descriptor [0x7ffffff8, 0x80000010) outside SRAM"},
		{"block outside SRAM", 0, false, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			return descs, []Descriptor{{Next: (descs + 24) | DMAE2L | DMAWake, Len: 16, LAR: sram - 8, PCI: hostBase}, {Next: DMATerminal}}
		}, MemIntBit, "block [0x1ffff8, 0x200008) outside SRAM"},
		{"length beyond SRAM", 0, false, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			return descs, []Descriptor{{Next: (descs + 24) | DMAWake, Len: 0xFFFFFFFF, LAR: buf, PCI: hostBase}, {Next: DMATerminal}}
		}, MemIntBit, "outside SRAM"},
		{"host read outside host memory", 0, false, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			return descs, []Descriptor{{Next: (descs + 24) | DMAE2L | DMAWake, Len: 64, LAR: buf, PCI: hostBase + uint64(len(h.Data)) - 32}, {Next: DMATerminal}}
		}, MemIntBit, "host read failed: 64-byte read at 0x10000ffe0: outside host memory"},
		{"host write outside host memory", 0, false, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			return descs, []Descriptor{{Next: (descs + 24) | DMAWake, Len: 64, LAR: buf, PCI: 0x1000}, {Next: DMATerminal}}
		}, MemIntBit, "host write failed: 64-byte write at 0x1000: outside host memory"},
		{"host address wraps", 0, false, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			return descs, []Descriptor{{Next: (descs + 24) | DMAWake, Len: 64, LAR: buf, PCI: ^uint64(0) - 16}, {Next: DMATerminal}}
		}, MemIntBit, "wraps the 64-bit address space"},
		{"no host memory", 0, true, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			return descs, []Descriptor{{Next: (descs + 24) | DMAWake, Len: 8, LAR: buf, PCI: hostBase}, {Next: DMATerminal}}
		}, MemIntBit, "no host memory attached"},
		{"runaway chain", 1000, false, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			// Each block rewrites the other's next word, clearing the
			// TERMINAL the engine wrote back: the chain never ends.
			a1, a2 := descs, descs+24
			be32(h.Data[0:], a1|DMAE2L)
			be32(h.Data[8:], a2|DMAE2L)
			return a1, []Descriptor{
				{Next: a2 | DMAE2L, Len: 4, LAR: a2, PCI: hostBase},
				{Next: a1 | DMAE2L, Len: 4, LAR: a1, PCI: hostBase + 8},
			}
		}, MemIntBit, "runaway chain: 1000 descriptors"},
		{"ring of three ends at its first completed block", 0, false, func(descs, buf uint32, h *HostRAM) (uint32, []Descriptor) {
			return descs, []Descriptor{
				{Next: (descs + 24) | DMAE2L, Len: 8, LAR: buf, PCI: hostBase},
				{Next: (descs + 48) | DMAE2L, Len: 8, LAR: buf + 8, PCI: hostBase},
				{Next: descs | DMAE2L | DMAWake, Len: 8, LAR: buf + 16, PCI: hostBase},
			}
		}, Wake0IntBit, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := NewHostRAM(hostBase, 1<<16)
			cfg := Config{Host: host, MaxChainDescriptors: tc.max}
			if tc.nohost {
				cfg.Host = nil
			}
			var done int
			var idle []uint32
			cfg.Trace = func(e Event) {
				switch e.Kind {
				case EvDMADone:
					done++
				case EvDMAIdle:
					idle = append(idle, e.Desc)
				}
			}
			b, syms := boot(t, cfg, img)
			head, ds := tc.setup(syms["descs"], syms["buf"], host)
			var hb [4]byte
			be32(hb[:], head)
			b.CPU().Mem.Write(syms["head"], hb[:])
			for i, d := range ds {
				b.CPU().Mem.Write(syms["descs"]+uint32(24*i), d.Bytes())
			}
			pattern := bytes.Repeat([]byte{0xA5, 0x5A}, 32) // unlike host memory's zeros
			b.CPU().Mem.Write(syms["buf"], pattern)
			if code := runExit(t, b, 1<<22); code != tc.exit {
				t.Fatalf("exit %#x, want %#x (fault %v)", code, tc.exit, b.Fault())
			}
			// A host read that failed wrote none of the block's SRAM.
			keeps := strings.HasPrefix(tc.reason, "host read failed")
			if got := b.CPU().Mem.SRAM[syms["buf"]:][:len(pattern)]; keeps && !bytes.Equal(got, pattern) {
				t.Fatalf("the block's SRAM after the failed read: % x", got)
			}
			f := b.Fault()
			switch {
			case tc.reason == "" && f != nil:
				t.Fatalf("fault %v", f)
			case tc.reason == "":
				if done != 3 || len(idle) != 1 || idle[0] != syms["descs"] {
					t.Fatalf("ring: %d blocks done, idle at %#x", done, idle)
				}
			case f == nil:
				t.Fatal("no fault")
			case !strings.Contains(f.Reason, tc.reason) || f.Channel != 2:
				t.Fatalf("fault %v, want %q", f, tc.reason)
			default:
				t.Log(f)
				// The channel is halted: a PULSE does nothing until the
				// pointer is written again, which revives it.
				b.ISR()
				ch := b.ch[2]
				if ch.state != chHalted {
					t.Fatal("channel not halted")
				}
				b.HostWritePointerBank(2, syms["descs"]+24*6)
				if ch.state != chIdle {
					t.Fatal("pointer write did not revive the channel")
				}
			}
		})
	}
}

func be32(p []byte, v uint32) { p[0], p[1], p[2], p[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v) }

// PULSE bits start channels 1, 0 and 2; the host starts any channel; a
// pointer written while a channel is busy is used after the block in
// flight.
func TestDMAChannels(t *testing.T) {
	for _, tc := range []struct {
		ch    int
		start func(b *Board)
	}{
		{0, func(b *Board) { coreWrite(t, b, RegPULSE, 2) }},
		{1, func(b *Board) { coreWrite(t, b, RegPULSE, 1) }},
		{2, func(b *Board) { coreWrite(t, b, RegPULSE, 4) }},
		{3, func(b *Board) { b.TriggerDMA(3) }},
		{0, func(b *Board) { coreWrite(t, b, RegPULSE, 0xFFFFFFF8|2) }}, // other bits ignored
	} {
		var chans []int
		d, _ := newDMABoard(t, Config{}, idleSrc)
		d.cfg.Trace = func(e Event) {
			if e.Kind == EvDMADone {
				chans = append(chans, e.Channel)
			}
		}
		d.CPU().Mem.Write(0x1000, Descriptor{Next: 0x1030 | DMAE2L, Len: 8, LAR: 0x10000, PCI: hostBase}.Bytes())
		d.CPU().Mem.Write(0x1030, Descriptor{Next: DMATerminal}.Bytes())
		d.HostWritePointerBank(tc.ch, 0x1000)
		at(t, d.Board, 10, func() { tc.start(d.Board) })
		d.Run(10_000)
		if len(chans) != 1 || chans[0] != tc.ch {
			t.Errorf("channel %d: blocks done on %v", tc.ch, chans)
		}
	}

	var descs []uint32
	d, _ := newDMABoard(t, Config{}, idleSrc)
	d.cfg.Trace = func(e Event) {
		if e.Kind == EvDMADone {
			descs = append(descs, e.Desc)
		}
	}
	mem := d.CPU().Mem
	mem.Write(0x1000, Descriptor{Next: 0x1030 | DMAE2L, Len: 1024, LAR: 0x10000, PCI: hostBase}.Bytes())
	mem.Write(0x1030, Descriptor{Next: 0x1060 | DMAE2L, Len: 8, LAR: 0x10000, PCI: hostBase}.Bytes())
	mem.Write(0x1060, Descriptor{Next: DMATerminal}.Bytes())
	mem.Write(0x2000, Descriptor{Next: 0x1060 | DMAE2L, Len: 8, LAR: 0x10000, PCI: hostBase}.Bytes())
	d.HostWritePointerBank(0, 0x1000)
	at(t, d.Board, 10, func() { coreWrite(t, d.Board, RegPULSE, 2) })
	at(t, d.Board, 500, func() {
		coreWrite(t, d.Board, RegPULSE, 2) // busy: no effect
		require.NoError(t, mem.WriteIO(DMAPointerBase, 4, 0x2000))
	})
	d.Run(100_000)
	if fmt.Sprint(descs) != "[4096 8192]" {
		t.Errorf("blocks done: %v, want [0x1000 0x2000]", descs)
	}
	if v, _ := mem.ReadIO(DMAPointerBase, 4); v != 0x1060 {
		t.Errorf("channel 0 rests at %#x, want 0x1060", v)
	}
}

// Plain registers hold what was written; the pointer bank's other words
// are stored.
func TestPlainRegisters(t *testing.T) {
	b, _ := New(Config{})
	coreWrite(t, b, RegLED, 1)
	coreWrite(t, b, RegMYRINET, 0x20E)
	require.NoError(t, b.HostWriteSpecial(RegCLOCK, 0x12345678))
	if b.LED() != 1 || coreRead(t, b, RegMYRINET) != 0x20E || coreRead(t, b, RegCLOCK) != 0x12345678 {
		t.Fatalf("LED %#x MYRINET %#x CLOCK %#x", b.LED(), b.Special(RegMYRINET), b.Special(RegCLOCK))
	}
	if coreRead(t, b, RegPULSE) != 0 {
		t.Error("PULSE reads non-zero")
	}
	b.HostWritePointerBank(4, 0xABC)
	if b.HostReadPointerBank(4) != 0xABC || b.HostReadPointerBank(16) != 0 {
		t.Error("pointer bank")
	}
	if _, err := New(Config{PCI: PCI{BusHz: 66_000_000}}); err == nil {
		t.Error("a PCI model without bus width was accepted")
	}
}

// The calendar's intervals, built in place, are those of a map of busy
// cycles after any sequence of adds, and nextBusy finds the first busy
// cycle from any point.
func TestCalendarAgainstCycleMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var c calendar
		var busy [300]bool
		for k := 0; k < 12; k++ {
			from := r.Uint64N(280)
			to := from + r.Uint64N(20)
			c.add(from, to)
			for x := from; x < to; x++ {
				busy[x] = true
			}
		}
		var want []window
		for x := 0; x < len(busy); x++ {
			if busy[x] {
				if n := len(want); n > 0 && want[n-1].to == uint64(x) {
					want[n-1].to++
				} else {
					want = append(want, window{uint64(x), uint64(x) + 1})
				}
			}
		}
		if fmt.Sprint(c.iv) != fmt.Sprint(want) && !(len(c.iv) == 0 && len(want) == 0) {
			t.Fatalf("round %d: calendar %v, cycle map %v", round, c.iv, want)
		}
		for x := uint64(0); x < uint64(len(busy)); x++ {
			next := ^uint64(0)
			for y := x; y < uint64(len(busy)); y++ {
				if busy[y] {
					next = y
					break
				}
			}
			if got := c.nextBusy(x); got != next {
				t.Fatalf("round %d: nextBusy(%d) = %d, want %d (%v)", round, x, got, next, c.iv)
			}
		}
	}
}

// csumAdd16 is csumAdd as it was before it took eight bytes at a time.
func csumAdd16(sum uint64, p []byte, odd bool) uint64 {
	i := 0
	if odd && len(p) > 0 {
		sum += uint64(p[0])
		i = 1
	}
	for ; i+1 < len(p); i += 2 {
		sum += uint64(p[i])<<8 | uint64(p[i+1])
	}
	if i < len(p) {
		sum += uint64(p[i]) << 8
	}
	for sum > 0xFFFF {
		sum = sum&0xFFFF + sum>>16
	}
	return sum
}

// csumAdd's eight bytes at a time give the sum of the 16-bit words, for
// every length, start parity and running sum, on random, all-zero and
// all-ones data (where 0 and 0xFFFF, the two zeros of ones' complement,
// must not be confused).
func TestCsumAddWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		for _, fill := range []int{-1, 0x00, 0xFF} {
			p := make([]byte, n)
			for i := range p {
				if fill < 0 {
					p[i] = byte(rng.Uint32())
				} else {
					p[i] = byte(fill)
				}
			}
			for _, sum := range []uint64{0, 1, 0xFFFE, 0xFFFF, uint64(rng.Uint32() & 0xFFFF)} {
				for _, odd := range []bool{false, true} {
					if got, want := csumAdd(sum, p, odd), csumAdd16(sum, p, odd); got != want {
						t.Fatalf("csumAdd(%#x, %d bytes of fill %d, odd %v) = %#x, want %#x", sum, n, fill, odd, got, want)
					}
				}
			}
		}
	}
}

// BenchmarkCsumAdd sums one 256-byte DMA burst (docs/performance.md,
// "Device events").
func BenchmarkCsumAdd(b *testing.B) {
	p := make([]byte, 256)
	for i := range p {
		p[i] = byte(i * 13)
	}
	var s uint64
	for range b.N {
		s = csumAdd(s, p, false)
	}
	sinkSum = s
}

var sinkSum uint64

// A host->SRAM block whose second burst reaches past the end of host
// memory: the first burst's bytes are in SRAM, the failed burst and the
// rest of the block leave SRAM as it was (the engine reads host memory
// into SRAM in place), the channel faults on that burst and the core
// polling ISR sees MEM_INT.
func TestDMAHostReadFailsInALaterBurst(t *testing.T) {
	img := lanaitest.Build(t, testdata(t, "baddesc.s"))
	host := NewHostRAM(hostBase, 1<<16)
	for i := range host.Data {
		host.Data[i] = byte(i*7 + 3)
	}
	var bursts int
	b, syms := boot(t, Config{Host: host, Trace: func(e Event) {
		if e.Kind == EvDMABurst {
			bursts++
		}
	}}, img)
	const n = 768 // three bursts of 256
	from := hostBase + uint64(len(host.Data)) - 300
	descs, buf := syms["descs"], syms["buf"]
	var hb [4]byte
	be32(hb[:], descs)
	b.CPU().Mem.Write(syms["head"], hb[:])
	b.CPU().Mem.Write(descs, Descriptor{Next: (descs + 24) | DMAE2L | DMAWake, Len: n, LAR: buf, PCI: from}.Bytes())
	b.CPU().Mem.Write(descs+24, Descriptor{Next: DMATerminal}.Bytes())
	pattern := bytes.Repeat([]byte{0xA5, 0x5A}, n/2)
	b.CPU().Mem.Write(buf, pattern)
	if code := runExit(t, b, 1<<22); code != MemIntBit {
		t.Fatalf("exit %#x, want MEM_INT %#x (fault %v)", code, MemIntBit, b.Fault())
	}
	burst := b.pci.BurstBytes
	want := append(bytes.Clone(host.Data[len(host.Data)-300:][:burst]), pattern[burst:]...)
	if got := b.CPU().Mem.SRAM[buf:][:n]; !bytes.Equal(got, want) {
		t.Fatalf("the block's SRAM:\n% x\nwant\n% x", got, want)
	}
	f := b.Fault()
	if f == nil || f.Channel != 2 || !strings.Contains(f.Reason, fmt.Sprintf("host read failed: %d-byte read at %#x: outside host memory", burst, from+uint64(burst))) {
		t.Fatalf("fault %v", f)
	}
	if bursts != 1 {
		t.Fatalf("%d bursts done, want 1", bursts)
	}
}

// A core polls a word of SRAM that a host->SRAM block fills (the loop is
// proved and skipped between bursts): with the block's first burst ending
// inside the word (the two halves come in two bursts, the first half
// zero) and with the word inside one burst, bursts before it leave the
// proof, the burst that writes it ends it, and a run gives the exit code,
// counts and SRAM that stepping the core gives.
func TestDMAIntoPolledWordRunEqualsStep(t *testing.T) {
	const src = `
	.globl _start
_start:
	mov 0x8000, %sp
	mov 0x10000, %r20
.Lw:
	ld -392[%r0], %r7
	st %r7, 0x1000[%r0]
	bt poll
	add %pc, 4, %rca
	ld 0x100[%r20], %r8
	sub.f %r8, 0, %r0
	beq .Lw
	mov 0, %r7
	st %r8, -4096[%r0]
poll:
	st %rca, [--%sp]
	ld [%sp++], %rca
	add %rca, 0, %pc
	nop
`
	const descAt, word = 0x2000, 0x10100
	for _, lar := range []uint32{0x10002, 0x10000, 0x0ff00} {
		var atPulse uint64 // cycles skipped before the PULSE
		run := func(step bool) (*dmaBoard, uint32) {
			d, _ := newDMABoard(t, Config{}, src)
			data := pattern(4096, 3)
			for i := range data {
				data[i] |= 1 // no zero byte ...
			}
			data[word-lar], data[word-lar+1] = 0, 0 // ... but the word's first half
			copy(d.host.Data, data)
			d.CPU().Mem.Write(descAt, Descriptor{Next: (descAt + DescriptorSize) | DMAE2L, Len: 4096, LAR: lar, PCI: hostBase}.Bytes())
			d.CPU().Mem.Write(descAt+DescriptorSize, Descriptor{Next: DMATerminal}.Bytes())
			d.HostWritePointerBank(0, descAt)
			at(t, d.Board, 20_000, func() {
				coreWrite(t, d.Board, RegPULSE, 2)
				if !step {
					atPulse = d.CPU().SkippedCycles
				}
			})
			if !step {
				return d, runExit(t, d.Board, 1<<24)
			}
			st := d.CPU().Step()
			for st.Kind == lanai.StopStep {
				st = d.CPU().Step()
			}
			if st.Kind != lanai.StopExit {
				t.Fatalf("stepping stopped: %s", stopText(st))
			}
			return d, st.Code
		}
		fast, code1 := run(false)
		slow, code2 := run(true)
		f, s := fast.CPU(), slow.CPU()
		if code1 != code2 || f.Cycles != s.Cycles || f.Instret != s.Instret || !bytes.Equal(f.Mem.SRAM, s.Mem.SRAM) {
			t.Fatalf("LAR %#x: run exits %#x after %d cycles %d instructions; stepping %#x after %d cycles %d instructions (SRAM the same: %v)",
				lar, code1, f.Cycles, f.Instret, code2, s.Cycles, s.Instret, bytes.Equal(f.Mem.SRAM, s.Mem.SRAM))
		}
		if f.SkippedCycles-atPulse < 100 || fast.bursts < 2 {
			t.Errorf("LAR %#x: %d cycles skipped after the PULSE, %d bursts", lar, f.SkippedCycles-atPulse, fast.bursts)
		}
		t.Logf("LAR %#x: exit %#x at cycle %d, %d skipped (%d after the PULSE), %d bursts", lar, code1, f.Cycles, f.SkippedCycles, f.SkippedCycles-atPulse, fast.bursts)
	}
}
