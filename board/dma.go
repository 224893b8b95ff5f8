package board

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"lanaiemu/sim"
)

// The host DMA engine (lanai9-hw.md section 5; docs/hardware.md).
const (
	// NumChannels is the number of descriptor chains ("channels") the
	// engine serves; their pointers are words 0..3 of the host pointer
	// bank.
	NumChannels = 4
	// DescriptorSize is the size of a descriptor (8-byte aligned).
	DescriptorSize = 24

	// Flags in the low bits of a descriptor's next_with_flags word.
	DMAE2L      uint32 = 1 // direction: 1 = host (EBUS) -> SRAM, 0 = SRAM -> host
	DMATerminal uint32 = 2 // terminal: the engine stops here; written back on completion
	DMAWake     uint32 = 4 // raise DMAWakeBit in ISR when this block completes
	dmaFlags           = DMAE2L | DMATerminal | DMAWake

	// DefaultMaxChainDescriptors bounds the descriptors a channel
	// processes without meeting a TERMINAL one before it faults (a
	// runaway chain).
	DefaultMaxChainDescriptors = 1 << 20
)

// PulseBit is one bit of the PULSE register: writing it starts a DMA
// channel.
type PulseBit struct {
	Channel int
	Doc     string // one line: the evidence for the mapping
}

// PulseBits are PULSE's bits 0..2: bit i starts channel PulseBits[i].Channel,
// as Cplant's firmware and host driver use bits 1 and 2 (lanai9-hw.md 5.3).
// Channel 3 has no PULSE bit; the host starts it (TriggerDMA).
var PulseBits = [3]PulseBit{
	{1, "starts channel 1 (a guess: no source uses bit 0)"},
	{0, "starts channel 0 (Cplant: the LANai -> host chain)"},
	{2, "starts channel 2 (Cplant: the host -> LANai chain)"},
}

// DMAWakeBit is the ISR bit a completed descriptor with the WAKE flag
// raises, on every channel: WAKE0 (GM: DMA_INT_BIT = WAKE0_INT_BIT on L8/L9).
const DMAWakeBit = Wake0IntBit

// Offsets of a descriptor's fields in SRAM (docs/hardware.md "Descriptors");
// DescriptorFields says what each holds.
const (
	DescNext  = 0
	DescCsum0 = 4
	DescCsum1 = 6
	DescLen   = 8
	DescLAR   = 12
	DescEAH   = 16
	DescEAL   = 20
)

// Field is one named value of the descriptor layout, for the generated
// firmware headers (firmware/crt/lanai9.h and lanai9.inc).
type Field struct {
	Name  string // upper case, as the headers name it after DESC_
	Value uint32 // an offset in bytes, or a flag's mask
	Size  int    // the field's size in bytes (0 for flags)
	Doc   string // one line
}

// DescriptorFields are the fields of a descriptor in address order, and
// DescriptorFlags the flags in the low bits of its next word: the one
// source of the headers' descriptor layout. A test checks them against
// ParseDescriptor.
var (
	DescriptorFields = []Field{
		{"NEXT", DescNext, 4, "next descriptor address (bits 31..3) | WAKE | TERMINAL | E2L"},
		{"CSUM0", DescCsum0, 2, "the block's ones'-complement sum (RFC 1071, not complemented), written by the engine"},
		{"CSUM1", DescCsum1, 2, "the same sum aligned to the SRAM address (byte-swapped when LAR is odd), written by the engine"},
		{"LEN", DescLen, 4, "bytes to move (any count, 0 allowed)"},
		{"LAR", DescLAR, 4, "SRAM address (any alignment)"},
		{"EAH", DescEAH, 4, "host (PCI bus) address bits 63..32"},
		{"EAL", DescEAL, 4, "host address bits 31..0"},
	}
	DescriptorFlags = []Field{
		{"E2L", DMAE2L, 0, "direction: host (EBUS) -> SRAM; clear: SRAM -> host"},
		{"TERMINAL", DMATerminal, 0, "the engine stops at this descriptor; set on each completed one"},
		{"WAKE", DMAWake, 0, "raise ISR WAKE0_INT when this block completes"},
	}
)

// Descriptor is a DMA descriptor as stored in SRAM (24 bytes, big-endian).
type Descriptor struct {
	Next uint32    // next descriptor address (bits 31..3) | DMAWake | DMATerminal | DMAE2L
	Csum [2]uint16 // written by the engine (docs/hardware.md)
	Len  uint32    // bytes to move
	LAR  uint32    // SRAM address
	PCI  uint64    // host (PCI bus) address: eah << 32 | eal
}

// ParseDescriptor decodes a descriptor from 24 bytes.
func ParseDescriptor(p []byte) Descriptor {
	be := binary.BigEndian
	return Descriptor{
		Next: be.Uint32(p[DescNext:]),
		Csum: [2]uint16{be.Uint16(p[DescCsum0:]), be.Uint16(p[DescCsum1:])},
		Len:  be.Uint32(p[DescLen:]),
		LAR:  be.Uint32(p[DescLAR:]),
		PCI:  uint64(be.Uint32(p[DescEAH:]))<<32 | uint64(be.Uint32(p[DescEAL:])),
	}
}

// Bytes encodes the descriptor.
func (d Descriptor) Bytes() []byte {
	p := make([]byte, DescriptorSize)
	be := binary.BigEndian
	be.PutUint32(p[DescNext:], d.Next)
	be.PutUint16(p[DescCsum0:], d.Csum[0])
	be.PutUint16(p[DescCsum1:], d.Csum[1])
	be.PutUint32(p[DescLen:], d.Len)
	be.PutUint32(p[DescLAR:], d.LAR)
	be.PutUint32(p[DescEAH:], uint32(d.PCI>>32))
	be.PutUint32(p[DescEAL:], uint32(d.PCI))
	return p
}

// Checksum is the 16-bit ones'-complement sum (RFC 1071, not complemented)
// of p taken as big-endian 16-bit words; odd says p starts at an odd
// offset of the summed stream (its first byte is a low byte). A final odd
// byte is the high byte of a word padded with zero. The engine writes this
// sum into a descriptor's csum fields; ^sum is the IP checksum field.
func Checksum(p []byte, odd bool) uint16 { return uint16(csumAdd(0, p, odd)) }

// csumAdd adds p to a running sum (at most 0xFFFF) and folds it. The
// bytes go in 64 bits at a time, added with end-around carry (ones'
// complement in 64 bits): 2^16 = 1 modulo 0xFFFF, and 0xFFFF divides
// 2^64 - 1, so the folded sum is the same as of the 16-bit words, and it
// is 0 only when everything added was 0 either way (TestCsumAddWords).
func csumAdd(sum uint64, p []byte, odd bool) uint64 {
	if odd && len(p) > 0 {
		sum += uint64(p[0])
		p = p[1:]
	}
	var c uint64
	be := binary.BigEndian
	for ; len(p) >= 32; p = p[32:] {
		sum, c = bits.Add64(sum, be.Uint64(p[0:8]), c)
		sum, c = bits.Add64(sum, be.Uint64(p[8:16]), c)
		sum, c = bits.Add64(sum, be.Uint64(p[16:24]), c)
		sum, c = bits.Add64(sum, be.Uint64(p[24:32]), c)
	}
	for ; len(p) >= 8; p = p[8:] {
		sum, c = bits.Add64(sum, be.Uint64(p), c)
	}
	for ; len(p) >= 2; p = p[2:] {
		sum, c = bits.Add64(sum, uint64(p[0])<<8|uint64(p[1]), c)
	}
	if len(p) > 0 {
		sum, c = bits.Add64(sum, uint64(p[0])<<8, c)
	}
	sum, c = bits.Add64(sum, c, 0) // the end-around carry
	sum += c                       // at most once more, onto 0
	for sum > 0xFFFF {
		sum = sum&0xFFFF + sum>>16
	}
	return sum
}

type chState uint8

const (
	chIdle   chState = iota // waiting for a PULSE
	chBusy                  // fetching or moving a descriptor
	chHalted                // faulted; a pointer write revives it
)

// channel is one descriptor chain.
type channel struct {
	b      *Board
	id     int
	ptr    uint32 // descriptor to fetch next
	state  chState
	newPtr uint32 // pointer written while busy, used after the current block
	hasNew bool
	count  int    // descriptors since the channel started
	gen    uint64 // bumped by reset and faults: their events do nothing

	addr  uint32 // descriptor being processed
	d     Descriptor
	pos   uint32 // bytes moved
	n     uint32 // bytes of the burst in flight
	sum   uint64
	ready sim.Time // when the next burst may start on the bus
	// readyP is ready's PCI clock when readyOnBus: ready is the end of
	// the previous burst, a PCI clock edge, so its clock is known.
	readyP     uint64
	readyOnBus bool
	buf        []byte
}

func (ch *channel) reset() {
	ch.b.touch(&ch.b.ptrW)
	ch.gen++
	ch.ptr, ch.state, ch.hasNew, ch.count = 0, chIdle, false, 0
}

// setPointer is a write of the channel's pointer (host pointer bank, or
// the LANai-side extension window). It revives a halted channel. While
// the channel is busy the new pointer replaces the completing block's
// next pointer.
func (ch *channel) setPointer(v uint32) {
	v &^= dmaFlags // the low three bits do not exist
	if ch.state == chBusy {
		ch.newPtr, ch.hasNew = v, true
		return
	}
	ch.ptr, ch.state = v, chIdle
	ch.b.touch(&ch.b.ptrW)
}

// pulse starts the channel at core cycle c. A pulse while the channel is
// busy does nothing: the engine reads every next descriptor from SRAM when
// it gets to it, so a block appended (and its predecessor's TERMINAL
// cleared) before the pulse is seen anyway. A halted channel ignores it.
func (ch *channel) pulse(c uint64) {
	if ch.state != chIdle {
		return
	}
	ch.state, ch.count = chBusy, 0
	ch.b.trace(Event{Cycle: c, Kind: EvDMAStart, Channel: ch.id, Desc: ch.ptr})
	ch.fetchFrom(c + ch.b.pci.PulseDelay)
}

// later runs step at core cycle at unless the channel was reset or
// faulted in between.
func (ch *channel) later(at uint64, step func(*channel, uint64)) {
	ch.b.later(at, stepChannel, devArgs{ch: ch, chStep: step, gen: ch.gen, at: at})
}

func stepChannel(b *Board, a *devArgs) {
	if a.ch.gen == a.gen {
		a.chStep(a.ch, a.at)
	}
}

// fetchFrom reads the descriptor at ch.ptr in FetchAccesses SRAM cycles
// starting at core cycle c.
func (ch *channel) fetchFrom(c uint64) {
	at := c + ch.b.pci.FetchAccesses
	ch.b.takeSRAM(c, at)
	ch.later(at, (*channel).fetch)
}

func (ch *channel) fetch(f uint64) {
	b := ch.b
	ch.addr = ch.ptr
	if !b.mem.InSRAM(ch.addr, DescriptorSize) {
		ch.fault(f, "descriptor [%#x, %#x) outside SRAM (%#x bytes)", ch.addr, uint64(ch.addr)+DescriptorSize, len(b.mem.SRAM))
		return
	}
	d := ParseDescriptor(b.mem.SRAM[ch.addr:])
	if d.Next&DMATerminal != 0 {
		ch.state = chIdle
		b.trace(Event{Cycle: f, Kind: EvDMAIdle, Channel: ch.id, Desc: ch.addr})
		return
	}
	if ch.count++; ch.count > b.cfg.MaxChainDescriptors {
		ch.fault(f, "runaway chain: %d descriptors since the channel started without a TERMINAL one", b.cfg.MaxChainDescriptors)
		return
	}
	if !b.mem.InSRAM(d.LAR, d.Len) {
		ch.fault(f, "block [%#x, %#x) outside SRAM (%#x bytes)", d.LAR, uint64(d.LAR)+uint64(d.Len), len(b.mem.SRAM))
		return
	}
	if d.PCI+uint64(d.Len) < d.PCI {
		ch.fault(f, "host range %#x + %d wraps the 64-bit address space", d.PCI, d.Len)
		return
	}
	ch.d, ch.pos, ch.sum = d, 0, 0
	b.trace(Event{Cycle: f, Kind: EvDMAFetch, Channel: ch.id, Desc: ch.addr, Bytes: d.Len})
	switch {
	case d.Len == 0:
		ch.finish(f + b.pci.WriteBackAccesses)
	case d.Next&DMAE2L != 0:
		ch.ready, ch.readyOnBus = b.clock.Time(f), false
		ch.nextBurst()
	default:
		ch.readSRAM(f)
		ch.ready, ch.readyOnBus = b.clock.Time(f+b.pci.FIFOAccesses), false
		ch.nextBurst()
	}
}

// burstLen is the size of the next burst.
func (ch *channel) burstLen() uint32 {
	return min(ch.d.Len-ch.pos, ch.b.pci.BurstBytes)
}

// sramWords is the SRAM accesses that move n bytes at SRAM address a.
func (b *Board) sramWords(a, n uint32) uint64 {
	w := uint64(b.pci.SRAMBytes)
	return (uint64(a)%w + uint64(n) + w - 1) / w
}

// readSRAM reads the next burst's bytes from SRAM (SRAM -> host) at core
// cycle c; the SRAM reads occupy the cycles from c on.
func (ch *channel) readSRAM(c uint64) {
	n := ch.burstLen()
	a := ch.d.LAR + ch.pos
	ch.buf = append(ch.buf[:0], ch.b.mem.SRAM[a:a+n]...)
	ch.b.takeSRAM(c, c+ch.b.sramWords(a, n))
}

// nextBurst books the bus for the next burst and schedules its end. A
// host->SRAM burst waits ReadLatency before its data phases; an SRAM->host
// burst is a posted write. Each burst occupies BurstOverhead + data-phase
// PCI clocks, starting at the first PCI clock edge at or after it is ready
// at which the bus is free.
func (ch *channel) nextBurst() {
	b := ch.b
	p := &b.pci
	n := ch.burstLen()
	ch.n = n
	host := ch.d.PCI + uint64(ch.pos)
	phases := (host%uint64(p.BusBytes) + uint64(n) + uint64(p.BusBytes) - 1) / uint64(p.BusBytes)
	// The PCI clock at which the burst may start: from the previous
	// burst's end edge where its clocks are known, else converted.
	e2l := ch.d.Next&DMAE2L != 0
	var ready uint64
	switch {
	case ch.readyOnBus && !e2l:
		ready = ch.readyP
	case ch.readyOnBus && b.latencyOnBus:
		ready = ch.readyP + b.latencyP
	case e2l:
		ready = b.pciClock.Cycles(ch.ready + p.ReadLatency)
	default:
		ready = b.pciClock.Cycles(ch.ready)
	}
	// Forget the bus windows that ended by the core's cycle (all of them
	// from busPast on).
	if b.cpu.Cycles >= b.busPast {
		b.busCal.iv, b.busPast = b.busCal.iv[:0], 0
	} else {
		b.busCal.prune(b.pciClock.Cycles(b.clock.Time(b.cpu.Cycles)))
	}
	start := b.busCal.reserve(ready, p.BurstOverhead+phases)
	endP := start + p.BurstOverhead + phases
	end := b.pciClock.Time(endP)
	ch.ready, ch.readyP, ch.readyOnBus = end, endP, b.busEdges && end < sim.Never-p.ReadLatency
	at := b.clock.Cycles(end)
	if b.busEdges && end < sim.Never {
		b.busPast = max(b.busPast, at) // (at begins at or after end)
	} else { // (an end past the timeline's saturates: at bounds nothing)
		b.busPast = ^uint64(0)
	}
	// Book the burst's SRAM cycles now: the arbiter must know them before
	// the core gets there. Host->SRAM writes stream behind the data phases,
	// the last one landing FIFOAccesses after the bus; the last burst is
	// followed by the write-back.
	last := at
	if e2l {
		last = at + p.FIFOAccesses
		b.takeSRAM(last-min(last, b.sramWords(ch.d.LAR+ch.pos, n)), last)
	}
	if ch.pos+n == ch.d.Len {
		b.takeSRAM(last, last+p.WriteBackAccesses)
	}
	ch.later(at, (*channel).burstDone)
}

func (ch *channel) burstDone(at uint64) {
	b, d := ch.b, &ch.d
	n := ch.n
	host := d.PCI + uint64(ch.pos)
	sa := d.LAR + ch.pos
	odd := ch.pos&1 != 0
	if d.Next&DMAE2L != 0 {
		data := b.mem.SRAM[sa : sa+n] // in SRAM: checked at fetch
		if err := b.readHost(host, data); err != nil {
			ch.fault(at, "host read failed: %v", err) // (data is unchanged: HostMemory)
			return
		}
		b.mem.Written(sa, n)
		ch.sum = csumAdd(ch.sum, data, odd)
		ch.pos += n
		b.trace(Event{Cycle: at, Kind: EvDMABurst, Channel: ch.id, Desc: ch.addr, Bytes: n})
		if ch.pos < d.Len {
			ch.nextBurst()
		} else {
			ch.finish(at + b.pci.FIFOAccesses + b.pci.WriteBackAccesses)
		}
		return
	}
	if err := b.writeHost(host, ch.buf); err != nil {
		ch.fault(at, "host write failed: %v", err)
		return
	}
	ch.sum = csumAdd(ch.sum, ch.buf, odd)
	ch.pos += n
	b.trace(Event{Cycle: at, Kind: EvDMABurst, Channel: ch.id, Desc: ch.addr, Bytes: n})
	if ch.pos < d.Len {
		ch.readSRAM(at) // the next burst's data streams from SRAM as it goes out
		ch.nextBurst()
	} else {
		ch.finish(at + b.pci.WriteBackAccesses)
	}
}

// finish writes the descriptor back at core cycle c (the write-back's SRAM
// accesses end there), raises WAKE, and goes on to the next descriptor.
func (ch *channel) finish(c uint64) {
	ch.b.takeSRAM(c-ch.b.pci.WriteBackAccesses, c)
	ch.later(c, (*channel).complete)
}

func (ch *channel) complete(c uint64) {
	b, d := ch.b, &ch.d
	c0 := uint16(ch.sum)
	c1 := c0
	if d.LAR&1 != 0 {
		c1 = c0<<8 | c0>>8
	}
	var wb [DescLen]byte // the next word and the checksums
	binary.BigEndian.PutUint32(wb[DescNext:], d.Next|DMATerminal)
	binary.BigEndian.PutUint16(wb[DescCsum0:], c0)
	binary.BigEndian.PutUint16(wb[DescCsum1:], c1)
	b.mem.Write(ch.addr, wb[:])
	b.trace(Event{Cycle: c, Kind: EvDMADone, Channel: ch.id, Desc: ch.addr, Bytes: d.Len})
	if d.Next&DMAWake != 0 {
		b.raise(c, DMAWakeBit)
	}
	ch.ptr = d.Next &^ dmaFlags
	if ch.hasNew {
		ch.ptr, ch.hasNew = ch.newPtr, false
	}
	b.touch(&b.ptrW)
	ch.fetchFrom(c)
}

// fault stops the channel, records the fault and raises MEM_INT.
func (ch *channel) fault(c uint64, format string, args ...any) {
	b := ch.b
	ch.state, ch.hasNew = chHalted, false
	ch.gen++
	f := &Fault{Channel: ch.id, Descriptor: ch.addr, Cycle: c, Reason: fmt.Sprintf(format, args...)}
	if b.fault == nil {
		b.fault = f
	}
	b.trace(Event{Cycle: c, Kind: EvDMAFault, Channel: ch.id, Desc: ch.addr, Fault: f})
	b.raise(c, MemIntBit)
}

func (b *Board) readHost(addr uint64, p []byte) error {
	if b.cfg.Host == nil {
		return ErrNoHostMemory
	}
	return b.cfg.Host.ReadHost(addr, p)
}

func (b *Board) writeHost(addr uint64, p []byte) error {
	if b.cfg.Host == nil {
		return ErrNoHostMemory
	}
	if err := b.cfg.Host.WriteHost(addr, p); err != nil {
		return err
	}
	if f := b.cfg.OnHostWrite; f != nil {
		if b.deferring {
			b.deferred = append(b.deferred, call{kind: callHostWrite, addr: addr, n: len(p), cycle: b.cpu.Cycles})
		} else {
			f(addr, len(p), b.cpu.Cycles)
		}
	}
	return nil
}

// writePulse starts the channels whose PULSE bits are set.
func (b *Board) writePulse(v uint32) {
	for bit, p := range PulseBits {
		if v&(1<<bit) != 0 {
			b.ch[p.Channel].pulse(b.cpu.Cycles)
		}
	}
}

// takeSRAM records that the DMA engine uses SRAM in core cycles [from, to).
func (b *Board) takeSRAM(from, to uint64) {
	b.sramCal.prune(b.cpu.Cycles)
	b.sramCal.add(from, to)
	b.cpu.BookSRAM(to)
}

// SRAMContention is the board's SRAM arbiter, in the form of the core's
// lanai.SRAMContention hook: the DMA engine has priority, so a core access
// to SRAM in a cycle the engine uses waits until the engine's run of SRAM
// cycles ends. It returns the stall in cycles (0 outside SRAM or when the
// engine is not using SRAM).
func (b *Board) SRAMContention(cycle uint64, addr uint32, write bool) uint64 {
	if !b.mem.InSRAM(addr, 1) {
		return 0
	}
	if until := b.sramCal.busyUntil(cycle); until > cycle {
		return until - cycle
	}
	return 0
}
