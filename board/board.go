// Package board is the LANai 9.2 board around the core: the on-chip devices
// that firmware drives through the special registers (docs/hardware.md).
//
//   - ISR, the interrupt/status register the firmware polls (the LANai takes
//     no interrupts), with write-1-to-clear event bits, the two signal bits
//     (HOST_SIG, LANAI_SIG) and level bits owned by the link engines;
//   - EIMR and the host interrupt line: IRQ() = ISR & EIMR != 0 (and the
//     board control register's interrupt enable), with a callback on change;
//   - RTC and the interval timers IT0..IT2, counting at 2 MHz (0.5 us) from
//     the core clock with exact tick boundaries (sim.Clock), computed lazily
//     from the cycle counter and expiring through one scheduled event each;
//   - the host DMA engine: descriptor chains in SRAM started by PULSE,
//     both directions, IP checksums, TERMINAL write-back and WAKE bits,
//     timed by a PCI model (PCI) and progressing by scheduled events;
//   - the special-register write hazard: an ISR read in the instruction
//     right after a special-register store does not yet see the ISR change
//     that store caused.
//
// The link engines (send, receive) and the fabric attach later through
// HookSpecial, RaiseISR and SetISRLevel. Host models reach the board
// through HostMemory (the board's PCI master side) and the Host* methods
// (its PCI target side).
//
// A Board owns its core: use Board.Reset and Board.Load, never CPU.Reset,
// which would drop the devices' scheduled events.
package board

import (
	"errors"
	"fmt"

	"lanaiemu/lanai"
	"lanaiemu/lanai/profile"
	"lanaiemu/memsys"
	"lanaiemu/sim"
)

// Special-register offsets from memsys.SpecialBase (lanai9-hw.md section
// 3.1). A LANai program reaches them r0-relative: ISR is -432[%r0].
const (
	RegISR     = 0x050
	RegEIMR    = 0x058
	RegIT0     = 0x060
	RegRTC     = 0x068
	RegLAR     = 0x070
	RegCPUC    = 0x078
	RegPULSE   = 0x0B8
	RegIT1     = 0x0C0
	RegIT2     = 0x0C8
	RegMYRINET = 0x130
	RegDEBUG   = 0x138
	RegLED     = 0x140
	RegCLOCK   = 0x1F8
)

// ISR bits (lanai9-hw.md section 3.2; docs/hardware.md says which device
// sets each and how it is cleared). ISRBits gives each its name and
// meaning.
const (
	HeadIntBit            uint32 = 1 << 0
	RecvIntBit            uint32 = 1 << 1
	BuffIntBit            uint32 = 1 << 2
	SendIntBit            uint32 = 1 << 3
	Wake1IntBit           uint32 = 1 << 4
	Wake2IntBit           uint32 = 1 << 5
	Time0IntBit           uint32 = 1 << 6
	Time1IntBit           uint32 = 1 << 7
	Orun1IntBit           uint32 = 1 << 8
	Orun2IntBit           uint32 = 1 << 9
	Orun4IntBit           uint32 = 1 << 10
	NresIntBit            uint32 = 1 << 11
	Wake0IntBit           uint32 = 1 << 12
	Time2IntBit           uint32 = 1 << 13
	MemIntBit             uint32 = 1 << 14
	ParIntBit             uint32 = 1 << 15
	LinkDownBit           uint32 = 1 << 16
	DataSentIntBit        uint32 = 1 << 17
	DataReceivedIntBit    uint32 = 1 << 18
	BeatReceivedIntBit    uint32 = 1 << 19
	IllegalReceivedIntBit uint32 = 1 << 20
	RxTooLongIntBit       uint32 = 1 << 21
	TxTooLongIntBit       uint32 = 1 << 22
	TxBlockedIntBit       uint32 = 1 << 23
	BeatMissedIntBit      uint32 = 1 << 24
	LanaiSigBit           uint32 = 1 << 29
	HostSigBit            uint32 = 1 << 30
	DebugBit              uint32 = 1 << 31
)

// ISRBit names one ISR bit for firmware: the generated headers
// firmware/crt/lanai9.h and lanai9.inc define ISR_<Name> from it.
type ISRBit struct {
	Name string // Myricom's name without _BIT (include/lanai9_def.h)
	Mask uint32
	Doc  string // one line: what sets it, and whether it is latched or a level
}

// ISRBits lists every ISR bit constant above once, in bit order, with its
// meaning: the one source of the firmware headers' ISR masks.
var ISRBits = []ISRBit{
	{"HEAD_INT", HeadIntBit, "receive engine: a packet's header arrived (level; the model never sets it: poll RECV_INT)"},
	{"RECV_INT", RecvIntBit, "receive engine: a packet's tail arrived (level)"},
	{"BUFF_INT", BuffIntBit, "receive engine: the receive buffer is full (level)"},
	{"SEND_INT", SendIntBit, "send engine ready for the next packet (level)"},
	{"WAKE1_INT", Wake1IntBit, "DMA controller wake line 1 (latched; the DMA model never sets it)"},
	{"WAKE2_INT", Wake2IntBit, "DMA controller wake line 2 (latched; the DMA model never sets it)"},
	{"TIME0_INT", Time0IntBit, "IT0 reached 0 (latched; write 1 to clear)"},
	{"TIME1_INT", Time1IntBit, "IT1 reached 0 (latched; write 1 to clear)"},
	{"ORUN1_INT", Orun1IntBit, "receive engine: bytes missing from the last word, weight 1 (level)"},
	{"ORUN2_INT", Orun2IntBit, "receive engine: bytes missing from the last word, weight 2 (level)"},
	{"ORUN4_INT", Orun4IntBit, "receive engine: bytes missing from the last word, weight 4 (level)"},
	{"NRES_INT", NresIntBit, "network reset seen (latched; the model never sets it)"},
	{"WAKE0_INT", Wake0IntBit, "DMA: a descriptor with the WAKE flag completed, any channel (latched)"},
	{"TIME2_INT", Time2IntBit, "IT2 reached 0 (latched; write 1 to clear)"},
	{"MEM_INT", MemIntBit, "memory error: a DMA or link-engine fault (latched)"},
	{"PAR_INT", ParIntBit, "SRAM parity error (latched; never set)"},
	{"LINK_DOWN", LinkDownBit, "link engines: the port has no cable (level; docs/hardware.md)"},
	{"DATA_SENT_INT", DataSentIntBit, "link engines: data sent (latched; the model never sets it: no evidence when)"},
	{"DATA_RECEIVED_INT", DataReceivedIntBit, "link engines: data received (latched; the model never sets it: no evidence when)"},
	{"BEAT_RECEIVED_INT", BeatReceivedIntBit, "link engines: a beat received (latched; the model has no beats and never sets it)"},
	{"ILLEGAL_RECEIVED_INT", IllegalReceivedIntBit, "receive engine: a packet with a bit error arrived, if MYRINET ILLEGAL_ENABLE (latched)"},
	{"RX_TOO_LONG_INT", RxTooLongIntBit, "receive engine: a packet over 16 MiB (before its CRC trailer) arrived (latched)"},
	{"TX_TOO_LONG_INT", TxTooLongIntBit, "send engine: a send segment over 16 MiB was cut (latched)"},
	{"TX_BLOCKED_INT", TxBlockedIntBit, "send engine: a send blocked past the network timeout (latched)"},
	{"BEAT_MISSED_INT", BeatMissedIntBit, "link engines: a beat missed (latched; the model has no beats and never sets it)"},
	{"LANAI_SIG", LanaiSigBit, "host -> LANai signal: the host sets it, the LANai writes 1 to clear it"},
	{"HOST_SIG", HostSigBit, "LANai -> host signal: the LANai writes 1 to set it, the host clears it"},
	{"DEBUG", DebugBit, "debug signal (latched; never set)"},
}

// ISRLevelBits are the status bits that describe the link engines' state
// rather than latch an event: writes to ISR leave them alone; the engines
// set and clear them (SetISRLevel).
const ISRLevelBits = HeadIntBit | RecvIntBit | BuffIntBit | SendIntBit |
	Orun1IntBit | Orun2IntBit | Orun4IntBit | LinkDownBit

// isrClearable are the bits a write of 1 clears (from either side; the
// signal bits are handled per side).
const isrClearable = ^(ISRLevelBits | HostSigBit)

// SpecialWriteHazard is the number of instructions after a store to a
// special register during which an ISR read still sees ISR as it was before
// the store's effect: 1, the documented LANai 9 barrier of one nop
// (lanai9-hw.md section 3.2, "isr_barrier"; section 7.4
// special_reg_write_visibility = +1).
const SpecialWriteHazard = 1

// DMAPointerBase is where the board maps the four DMA channel pointers
// into the LANai's address space (one word per channel; reads give the
// channel's current descriptor pointer, writes set it). This is an
// emulator extension: on the real board only the host can write them
// (BAR + 0x800100, lanai9-hw.md section 5.4). It lies between the
// simulation-control device and the special registers, reachable
// r0-relative (-3840[%r0] is channel 0).
const (
	DMAPointerBase = 0xFFFFF100
	DMAPointerSize = 4 * NumChannels
)

// Config configures a board. The embedded core configuration gives the
// clock (ClockHz, 133 MHz by default) and the SRAM size; its Contention
// field is replaced by the board's DMA arbiter (SRAMContention).
type Config struct {
	lanai.Config
	// Host is host memory as the DMA engine reaches it over PCI. Nil means
	// no host memory: every DMA data transfer faults.
	Host HostMemory
	// PCI is the DMA timing model; the zero PCI means DefaultPCI(), any
	// other value is used as given.
	PCI PCI
	// MaxChainDescriptors bounds the descriptors one channel processes
	// without reaching a TERMINAL descriptor (0: DefaultMaxChainDescriptors).
	MaxChainDescriptors int
	// OnIRQ is called whenever the host interrupt line changes, with the
	// core cycle of the change. It runs inside the core's Run (from a store
	// or a device event): it must not run the core.
	OnIRQ func(cycle uint64, level bool)
	// Trace, if set, receives every device event (ISR bits raised, IRQ
	// changes, DMA transitions and faults).
	Trace func(Event)
	// OnHostWrite, if set, is called after every DMA write into host
	// memory, with the core cycle of the write: host models that wait on
	// host memory learn of it there (deferred like OnIRQ, SetDeferred).
	OnHostWrite func(addr uint64, n int, cycle uint64)
}

// Board is a LANai 9.2 board: the core, its SRAM, and the on-chip devices.
type Board struct {
	held bool      // the LANai is held in reset (SetReset)
	free *devEvent // spent scheduled device steps (later)
	// observers see every instruction when profiling (Observe).
	observers []profile.Observer
	cfg       Config
	pci       PCI
	cpu       *lanai.CPU
	mem       *memsys.Memory
	clock     sim.Clock // the core clock
	pciClock  sim.Clock // the PCI clock

	isr  uint32
	eimr uint32
	ie   bool // board control register: host interrupt enable
	irq  bool
	hz   []isrChange // ISR changes not yet visible to core reads

	rtcVal   uint32
	rtcEpoch uint64 // tick count at which rtcVal was loaded
	timers   [3]timer

	ch      [NumChannels]*channel
	sramCal calendar // core cycles in which the DMA engine uses SRAM
	busCal  calendar // PCI clocks booked by DMA bursts
	// busPast is a core cycle from which every window of busCal has
	// ended: at or after it, pruning the bus at the core's PCI clock
	// empties the calendar, and nextBurst does so without converting
	// the core cycle to a PCI clock. busEdges says that a PCI clock edge
	// converts back to itself (pciClock.Cycles(pciClock.Time(e)) == e,
	// true for a bus period of at least a picosecond): a core cycle that
	// begins at or after a window's end has that end's PCI clock or a
	// later one. Without it (or once a burst ends past sim.Never) busPast
	// stays ^0 and every burst converts.
	busPast  uint64
	busEdges bool
	// latencyP is ReadLatency in PCI clocks after a PCI clock edge, when
	// latencyOnBus: the same for every edge (busLatency).
	latencyP     uint64
	latencyOnBus bool
	fault        *Fault

	bank [16]uint32 // host pointer bank words 4..15 (FIFO bases and unknown words)
	host bool       // the access in progress comes from the host (no hazard)

	// Change tracking for the core's polling-loop skip (see watch).
	seq               uint64
	isrW, eimrW, ptrW watch
	lastISR, lastEIMR uint32
	rtcW              watch
	rtcRead           uint64 // cycle of the last core read of RTC

	link *Link // the link engines (link.go)

	traced uint64 // events passed to Config.Trace

	// WatchStores: the core stops after a store to a device register;
	// stored and storedAt tell the first one's cycle (StoreSeen).
	watchStores, stored bool
	storedAt            uint64

	// deferring: the board runs in a parallel step (SetDeferred); its
	// calls into models other boards share wait in deferred.
	deferring bool
	deferred  []call

	runHook func() // SetRunHook
}

// call is a deferred call (SetDeferred), kept as a value so that deferring
// allocates nothing once the queue has grown.
type call struct {
	kind        callKind
	at          sim.Time // Send's start, Ready's time, SetTimeout's timeout
	route, body []byte   // Send's packet; body: Recycle's
	done        func(sim.Time, error)
	cycle       uint64 // OnIRQ's and OnHostWrite's cycle
	level       bool
	addr        uint64 // OnHostWrite's range
	n           int
	note        uint32       // Send's note (fabric.SendNoted)
	fill        func([]byte) // and its fill
	ev          Event
}

type callKind uint8

const (
	callSend callKind = iota
	callReady
	callTimeout
	callRecycle
	callIRQ
	callHostWrite
	callTrace
)

// watch tracks whether a register changed since the core last read it, in
// a sequence shared by changes and reads. The core skips a polling loop
// when an iteration leaves its registers unchanged and the registers it
// loads say they stay stable; but a device event can run between an
// iteration's load and its branch (the core stops at the event's cycle
// wherever it is in the loop), so the value the loop read may already be
// out of date. A register that changed after the core's last read
// therefore reports itself unstable (memsys.Stable), and the loop runs
// one more iteration.
type watch struct{ changed, read uint64 }

// touch notes a change of a register the core reads, and tells the core:
// a device may change it outside the core's events (the link's send
// completion when the fabric calls back), and a proved loop that reads it
// must then be checked again before the core goes on (lanai.CPU.DeviceChanged).
func (b *Board) touch(w *watch) {
	b.seq++
	w.changed = b.seq
	b.cpu.DeviceChanged()
}

func (b *Board) saw(w *watch) {
	if !b.host {
		b.seq++
		w.read = b.seq
	}
}

func (w *watch) stale() bool { return w.changed > w.read }

// New builds a core with cfg and attaches the board's devices to it.
func New(cfg Config) (*Board, error) {
	pci, err := cfg.PCI.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.MaxChainDescriptors <= 0 {
		cfg.MaxChainDescriptors = DefaultMaxChainDescriptors
	}
	b := &Board{cfg: cfg, pci: pci, ie: true}
	cc := cfg.Config
	cc.Contention = b.SRAMContention
	cc.ContentionBooked = true // takeSRAM books with BookSRAM
	cc.NextBooked = b.sramCal.nextBusy
	cpu, err := lanai.New(cc)
	if err != nil {
		return nil, err
	}
	b.cpu, b.mem = cpu, cpu.Mem
	b.clock = sim.Clock{Hz: cpu.Config().ClockHz}
	b.pciClock = sim.Clock{Hz: pci.BusHz}
	b.busEdges = pci.BusHz <= uint64(sim.Second)
	b.latencyP, b.latencyOnBus = busLatency(pci)
	b.timers = [3]timer{{bit: Time0IntBit}, {bit: Time1IntBit}, {bit: Time2IntBit}}
	for i := range b.ch {
		b.ch[i] = &channel{b: b, id: i}
	}

	sp := b.mem.Specials
	sp.Hook(RegISR, b.readISR, b.coreWrite(b.writeISR))
	sp.HookStable(RegISR, b.isrStable)
	sp.Hook(RegEIMR, func() uint32 { b.saw(&b.eimrW); return b.eimr }, b.coreWrite(b.writeEIMR))
	sp.HookStable(RegEIMR, func() uint64 { return stableUnless(b.eimrW.stale(), ^uint64(0)) })
	sp.Hook(RegRTC, b.readRTC, b.coreWrite(b.writeRTC))
	sp.HookStable(RegRTC, func() uint64 { return stableUnless(b.rtcW.stale(), b.TickCycle(b.Ticks(b.rtcRead)+1)) })
	for i, off := range []uint32{RegIT0, RegIT1, RegIT2} {
		t := &b.timers[i]
		sp.Hook(off, func() uint32 { return b.readTimer(t) }, b.coreWrite(func(v uint32) { b.writeTimer(t, v) }))
		sp.HookStable(off, func() uint64 { return stableUnless(t.w.stale(), b.TickCycle(b.Ticks(t.readAt)+1)) })
	}
	sp.Hook(RegPULSE, func() uint32 { return 0 }, b.coreWrite(b.writePulse))
	sp.HookStable(RegPULSE, func() uint64 { return ^uint64(0) })
	b.mem.Map(DMAPointerBase, DMAPointerSize, pointerWindow{b}, "DMA channel pointers (emulator extension)")
	b.link = newLink(b)
	b.Reset(0)
	return b, nil
}

// CPU is the board's core.
func (b *Board) CPU() *lanai.CPU { return b.cpu }

// Clock is the core clock.
func (b *Board) Clock() sim.Clock { return b.clock }

// PCIParams is the DMA timing model in use (defaults filled in).
func (b *Board) PCIParams() PCI { return b.pci }

// Reset resets the core (starting at entry) and the devices: ISR, EIMR,
// RTC and the timers are zero, the DMA channels idle with pointer 0, the
// fault cleared. SRAM and the plain special registers (LED, MYRINET,
// CLOCK, ...) keep their values.
func (b *Board) Reset(entry uint32) {
	b.cpu.Reset(entry) // also drops every scheduled event
	b.isr, b.eimr, b.hz = 0, 0, nil
	b.rtcVal, b.rtcEpoch, b.rtcRead = 0, 0, 0
	for _, w := range []*watch{&b.isrW, &b.eimrW, &b.ptrW, &b.rtcW} {
		b.touch(w)
	}
	for i := range b.timers {
		t := &b.timers[i]
		t.val, t.epoch, t.readAt = 0, 0, 0
		b.touch(&t.w)
		b.armTimer(t, expiryTick(0, 0))
	}
	for _, ch := range b.ch {
		ch.reset()
	}
	b.sramCal, b.busCal, b.busPast, b.fault = calendar{}, calendar{}, 0, nil
	b.bank = [16]uint32{}
	b.link.reset()
	b.updateIRQ(0)
}

// Load loads an executable image (ELF or LANai COFF, memsys.LoadFile) and
// resets the board to run it from its entry point.
func (b *Board) Load(img []byte) (*memsys.Image, error) {
	im, err := b.mem.LoadFile(img)
	if err != nil {
		return nil, err
	}
	b.Reset(im.Entry)
	return im, nil
}

// Run runs the core for at most budget cycles (lanai.CPU.Run). While the
// LANai is held in reset (SetReset) no instruction runs: the cycles pass
// as idle ones (counted skipped).
//
// While Direct reports true, Run is the core's Run: a runner that keeps
// Direct's answer (SetRunHook tells it of every change) may call the
// core's Run itself and not read the board.
func (b *Board) Run(budget uint64) *lanai.Stop {
	if b.held {
		b.cpu.Cycles += budget
		b.cpu.SkippedCycles += budget
		return lanai.CycleLimit
	}
	if len(b.observers) > 0 {
		return profile.Run(b.cpu, budget, b.observers)
	}
	return b.cpu.Run(budget)
}

// Observe makes Run step the core and tell o about every instruction (a
// profiler, a budget meter; docs/profiling.md). The counts of an observed
// run are those of a plain one.
func (b *Board) Observe(o profile.Observer) {
	b.observers = append(b.observers, o)
	b.runChanged()
}

// Direct reports whether Run is the core's Run: the LANai is not held in
// reset and nothing observes it.
func (b *Board) Direct() bool { return !b.held && len(b.observers) == 0 }

// SetRunHook sets a function called whenever Direct's answer may have
// changed (a runner that keeps it: node.World).
func (b *Board) SetRunHook(f func()) { b.runHook = f }

func (b *Board) runChanged() {
	if b.runHook != nil {
		b.runHook()
	}
}

// Busy reports whether the host DMA engine (any channel) is moving or
// fetching a descriptor, and whether the link's send engine is sending
// (SEND_INT clear): a profiler's DMA-busy and link-busy time.
func (b *Board) Busy() (dma, link bool) {
	for _, ch := range b.ch {
		if ch != nil && ch.state == chBusy {
			dma = true
		}
	}
	return dma, b.link != nil && !b.link.sendIdle
}

// SetReset holds the LANai in reset (on) or lets it go (off): what the
// board control register's LANai reset pair does (docs/hostbus.md). Held,
// the core runs nothing and the devices are reset; released, the core
// starts at address 0 (docs/hardware.md).
func (b *Board) SetReset(on bool) {
	if on == b.held {
		return
	}
	b.held = on
	b.runChanged()
	c := b.cpu
	cycles, instret, skipped, skippedI := c.Cycles, c.Instret, c.SkippedCycles, c.SkippedInstret
	b.Reset(0)
	c.Cycles, c.Instret, c.SkippedCycles, c.SkippedInstret = cycles, instret, skipped, skippedI // time goes on
}

// InReset reports whether the LANai is held in reset.
func (b *Board) InReset() bool { return b.held }

// ---- ISR, EIMR and the host interrupt line ----

// isrChange is an ISR change made by a core store to a special register,
// hidden from core ISR reads until instruction number visible.
type isrChange struct {
	visible  uint64
	set, clr uint32
}

// ISR is the register's true value (what the host and the IRQ logic see).
func (b *Board) ISR() uint32 { return b.isr }

// EIMR is the external interrupt mask.
func (b *Board) EIMR() uint32 { return b.eimr }

// IRQ reports the host interrupt line: ISR & EIMR != 0 while the board
// control register's interrupt enable is on.
func (b *Board) IRQ() bool { return b.irq }

// SetHostInterruptEnable sets the board control register's interrupt enable
// (BAR + 0x800040 bits 25/24, lanai9-hw.md section 2.3). It is on after New.
func (b *Board) SetHostInterruptEnable(on bool) {
	b.ie = on
	b.updateIRQ(b.cpu.Cycles)
}

// RaiseISR sets latched ISR bits on behalf of a device (the link engines,
// the doorbell logic). Called from a special-register write hook, the
// change is subject to the write hazard like any other.
func (b *Board) RaiseISR(bits uint32) { b.raise(b.cpu.Cycles, bits) }

// SetISRLevel sets or clears level (status) bits on behalf of a device.
func (b *Board) SetISRLevel(bits uint32, on bool) {
	if on {
		b.isr |= bits
	} else {
		b.isr &^= bits
	}
	b.updateIRQ(b.cpu.Cycles)
}

// raise sets bits at the given (model) cycle.
func (b *Board) raise(cycle uint64, bits uint32) {
	b.isr |= bits
	b.trace(Event{Cycle: cycle, Kind: EvISR, Channel: -1, Bits: bits})
	b.updateIRQ(cycle)
}

// updateIRQ recomputes the host interrupt line.
func (b *Board) updateIRQ(cycle uint64) {
	if b.isr != b.lastISR {
		b.lastISR = b.isr
		b.touch(&b.isrW)
	}
	if b.eimr != b.lastEIMR {
		b.lastEIMR = b.eimr
		b.touch(&b.eimrW)
	}
	level := b.ie && b.isr&b.eimr != 0
	if level == b.irq {
		return
	}
	b.irq = level
	b.trace(Event{Cycle: cycle, Kind: EvIRQ, Channel: -1, Level: level})
	if f := b.cfg.OnIRQ; f != nil {
		if b.deferring {
			b.deferred = append(b.deferred, call{kind: callIRQ, cycle: cycle, level: level})
		} else {
			f(cycle, level)
		}
	}
}

// readISR serves core (and host) reads of ISR: a core read does not see the
// changes of special-register stores made within the last
// SpecialWriteHazard instructions.
func (b *Board) readISR() uint32 {
	b.saw(&b.isrW)
	v := b.isr
	if b.host || len(b.hz) == 0 {
		return v
	}
	b.pruneHazards()
	for i := len(b.hz) - 1; i >= 0; i-- {
		v = v&^b.hz[i].set | b.hz[i].clr
	}
	return v
}

// pruneHazards forgets the hidden ISR changes that the core can now see.
func (b *Board) pruneHazards() {
	in := b.cpu.Instret
	keep := b.hz[:0]
	for _, h := range b.hz {
		if in < h.visible {
			keep = append(keep, h)
		}
	}
	b.hz = keep
}

// isrStable: ISR changes only in device events, except while a store's
// change is still hidden.
func (b *Board) isrStable() uint64 {
	if len(b.hz) > 0 {
		b.pruneHazards() // those the core sees already are no hazard
	}
	if len(b.hz) > 0 || b.isrW.stale() {
		return 0
	}
	return ^uint64(0)
}

// coreWrite wraps a special-register write handler so that the ISR change
// it makes is hidden from core ISR reads for SpecialWriteHazard
// instructions. The core has synced Instret to the storing instruction's
// number before calling a device, so the change becomes visible to
// instruction Instret+1+SpecialWriteHazard.
func (b *Board) coreWrite(f func(uint32)) func(uint32) {
	return func(v uint32) {
		if b.host {
			f(v)
			return
		}
		if b.watchStores {
			if !b.stored {
				b.stored, b.storedAt = true, b.cpu.Cycles
			}
			b.cpu.Halt(storeStop)
		}
		before := b.isr
		f(v)
		if after := b.isr; after != before {
			b.pruneHazards()
			b.hz = append(b.hz, isrChange{
				visible: b.cpu.Instret + 1 + SpecialWriteHazard,
				set:     after &^ before,
				clr:     before &^ after,
			})
		}
	}
}

// writeISR: the core writes 1s to clear event bits and LANAI_SIG, and to
// set HOST_SIG.
func (b *Board) writeISR(v uint32) {
	if b.host {
		b.isr &^= v & (isrClearable | HostSigBit) &^ LanaiSigBit
		b.isr |= v & LanaiSigBit
	} else {
		b.isr &^= v & isrClearable
		b.isr |= v & HostSigBit
	}
	b.updateIRQ(b.cpu.Cycles)
}

func (b *Board) writeEIMR(v uint32) {
	b.eimr = v
	b.updateIRQ(b.cpu.Cycles)
}

// HookSpecial attaches a device (a link engine) to a special register. A
// write handler runs under the write hazard (an ISR change it makes is
// hidden from the next instruction's ISR read); stable says until which
// cycle the register keeps its value without an event (nil: a register
// with a read hook may change at any time, which disables polling-loop
// skipping over it; see memsys.SpecialRegs.HookStable).
func (b *Board) HookSpecial(off uint32, read func() uint32, write func(uint32), stable func() uint64) {
	var w func(uint32)
	if write != nil {
		w = b.coreWrite(write)
	}
	b.mem.Specials.Hook(off, read, w)
	b.mem.Specials.HookStable(off, stable)
	b.mem.Specials.SetPeek(b.HostReadSpecial) // tools look as the host does: no side effects
}

// Special reads a special register as the host would (no hazard): for
// devices and tools, e.g. Special(RegLED).
func (b *Board) Special(off uint32) uint32 {
	v, _ := b.HostReadSpecial(off)
	return v
}

// HostReadSpecial is a host read through the PCI window (BAR + 0x804000 +
// off): the true register value.
func (b *Board) HostReadSpecial(off uint32) (uint32, error) {
	b.host = true
	v, err := b.mem.Specials.Read32(off) // (the read hooks do not panic: no defer, a proof's check peeks here after every event)
	b.host = false
	return v, err
}

// HostWriteSpecial is a host write through the PCI window. For ISR the host
// side's semantics apply: 1s clear event bits and HOST_SIG, and set
// LANAI_SIG. Host writes are not subject to the core's write hazard.
func (b *Board) HostWriteSpecial(off, v uint32) error {
	b.host = true
	defer func() { b.host = false }()
	return b.mem.Specials.Write32(off, v)
}

// LED is the LED register (bit 0 drives the board LED).
func (b *Board) LED() uint32 { return b.Special(RegLED) }

// ---- the host pointer bank and DMA triggers ----

// HostReadPointerBank reads word i (0..15) of the pointer bank at BAR +
// 0x800100 (lanai9-hw.md section 5.4): words 0..3 are the DMA channel
// pointers (the channel's current descriptor), the others are stored.
func (b *Board) HostReadPointerBank(i int) uint32 {
	if i < 0 || i >= len(b.bank) {
		return 0
	}
	if i < NumChannels {
		return b.ch[i].ptr
	}
	return b.bank[i]
}

// HostWritePointerBank writes word i of the pointer bank; writing a channel
// pointer sets where the channel fetches its next descriptor.
func (b *Board) HostWritePointerBank(i int, v uint32) {
	if i < 0 || i >= len(b.bank) {
		return
	}
	if i < NumChannels {
		b.ch[i].setPointer(v)
		return
	}
	b.bank[i] = v
}

// TriggerDMA starts channel ch as a host write of the board control
// register's "DMA trigger" bit for it would (bits 23..20, lanai9-hw.md
// section 2.3), at the current cycle.
func (b *Board) TriggerDMA(ch int) {
	if ch >= 0 && ch < NumChannels {
		b.ch[ch].pulse(b.cpu.Cycles)
	}
}

// pointerWindow is the LANai-side view of the channel pointers.
type pointerWindow struct{ b *Board }

func (w pointerWindow) Read32(off uint32) (uint32, error) {
	w.b.saw(&w.b.ptrW)
	return w.b.ch[off/4].ptr, nil
}

func (w pointerWindow) Write32(off uint32, v uint32) error {
	w.b.ch[off/4].setPointer(v)
	return nil
}

// StableUntil implements memsys.Stable: pointers change only in events.
func (w pointerWindow) StableUntil(uint32) uint64 { return stableUnless(w.b.ptrW.stale(), ^uint64(0)) }

// stableUnless is until, or 0 (unstable) if stale.
func stableUnless(stale bool, until uint64) uint64 {
	if stale {
		return 0
	}
	return until
}

// ---- faults and tracing ----

// Fault reports a DMA engine error: the channel stopped (until its pointer
// is written again) and MEM_INT was raised.
type Fault struct {
	Channel    int
	Descriptor uint32 // SRAM address of the descriptor being processed
	Cycle      uint64 // core cycle of the fault
	Reason     string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("DMA channel %d, descriptor at %#08x, cycle %d: %s", f.Channel, f.Descriptor, f.Cycle, f.Reason)
}

// Fault is the first DMA fault since reset, or nil.
func (b *Board) Fault() *Fault { return b.fault }

// ErrNoHostMemory is the error of DMA transfers on a board without host
// memory.
var ErrNoHostMemory = errors.New("no host memory attached")

// EventKind says what a trace event is.
type EventKind uint8

// Trace event kinds.
const (
	EvISR      EventKind = iota // a device raised Bits in ISR
	EvIRQ                       // the host interrupt line changed to Level
	EvDMAStart                  // a channel started (PULSE or host trigger)
	EvDMAFetch                  // a descriptor was fetched (Desc; Bytes = its length)
	EvDMABurst                  // a PCI burst of Bytes ended
	EvDMADone                   // a descriptor completed (written back)
	EvDMAIdle                   // the channel reached a TERMINAL descriptor (Desc) and stopped
	EvDMAFault                  // the channel faulted (Fault)
	EvSend                      // the send engine started a packet (Cycle: its first byte; Bytes on the wire)
	EvRecv                      // the receive engine stored a packet (Bytes received, trailer included)
)

var evNames = [...]string{"isr", "irq", "dma-start", "dma-fetch", "dma-burst", "dma-done", "dma-idle", "dma-fault", "send", "recv"}

func (k EventKind) String() string { return evNames[k] }

// Event is a device event, at the core cycle the model assigns to it (a
// device event runs at the first instruction boundary at or after it).
type Event struct {
	Cycle   uint64
	Kind    EventKind
	Channel int // DMA channel, -1 for others
	Desc    uint32
	Bytes   uint32
	Bits    uint32
	Level   bool
	Fault   *Fault
}

func (e Event) String() string {
	switch e.Kind {
	case EvISR:
		return fmt.Sprintf("%d %v %#08x", e.Cycle, e.Kind, e.Bits)
	case EvIRQ:
		return fmt.Sprintf("%d %v %v", e.Cycle, e.Kind, e.Level)
	case EvDMAFault:
		return fmt.Sprintf("%d %v %v", e.Cycle, e.Kind, e.Fault)
	case EvSend, EvRecv:
		return fmt.Sprintf("%d %v bytes=%d", e.Cycle, e.Kind, e.Bytes)
	}
	return fmt.Sprintf("%d %v ch%d desc=%#x bytes=%d", e.Cycle, e.Kind, e.Channel, e.Desc, e.Bytes)
}

func (b *Board) trace(e Event) {
	if f := b.cfg.Trace; f != nil {
		b.traced++
		if b.deferring {
			b.deferred = append(b.deferred, call{kind: callTrace, ev: e})
		} else {
			f(e)
		}
	}
}

// Traced counts the device events passed to Config.Trace (none without
// one): a runner that lets a board run ahead of the others stops it at the
// first, so that the call-back sees the events in the order of short steps.
func (b *Board) Traced() uint64 { return b.traced }

// storeStop ends a run after a device-register store while WatchStores is
// on (a watched write).
var storeStop = &lanai.Stop{Kind: lanai.StopWatchpoint}

// WatchStores makes every core store to a special register (everything
// through which the core acts on the devices, and through them on the
// fabric and the host) end the run after the storing instruction, with
// a watchpoint stop, and note the cycle at which the first one began
// (StoreSeen). A runner that runs a board ahead of the others uses it to
// find the step in which the board first acted.
func (b *Board) WatchStores(on bool) { b.watchStores = on }

// StoreSeen reports the cycle at which the storing instruction of the
// first device-register store since the last call began, if there was
// one while WatchStores was on, and forgets it.
func (b *Board) StoreSeen() (uint64, bool) {
	c, ok := b.storedAt, b.stored
	b.stored = false
	return c, ok
}

// SetDeferred turns deferral on or off. While it is on, the calls the
// board makes into models it may share with other boards (the fabric, the
// OnIRQ, OnHostWrite and Trace call-backs) wait, in the order made, until
// RunDeferred: a runner turns it on for a step in which boards run in
// parallel, and replays every board's calls in node order after the step,
// which gives exactly what running the boards one after the other gives
// (docs/timeline.md, "Both cores").
func (b *Board) SetDeferred(on bool) { b.deferring = on }

// RunDeferred runs the queued calls in order and forgets them.
func (b *Board) RunDeferred() {
	for i := range b.deferred {
		c := &b.deferred[i]
		switch c.kind {
		case callSend:
			b.link.fab.SendNoted(b.link.node, c.route, c.body, c.note, c.fill, c.at, c.done) // checked when made: cannot fail
			b.link.giveBack(c.route)                                                         // the packet's buffer: route is its start
		case callReady:
			b.link.fab.Ready(b.link.node, c.at)
		case callTimeout:
			b.link.fab.SetTimeout(b.link.node, c.at)
		case callRecycle:
			b.link.fab.Recycle(c.body)
		case callIRQ:
			b.cfg.OnIRQ(c.cycle, c.level)
		case callHostWrite:
			b.cfg.OnHostWrite(c.addr, c.n, c.cycle)
		case callTrace:
			b.cfg.Trace(c.ev)
		}
		*c = call{} // drop the references
	}
	b.deferred = b.deferred[:0]
}
