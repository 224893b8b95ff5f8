package hostbus

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"lanaiemu/memsys"
	"lanaiemu/sim"
)

// The host's view of a PCI64-family board through BAR0 (16 MB;
// lanai9-hw.md section 2.2, MyrinetPCI.h "L5.x new-style boards").
const (
	BARSize           = 0x1000000 // bytes of BAR0
	SRAMWindowSize    = 0x800000  // SRAM: BAR offset = LANai address
	ConfigOff         = 0x800000  // "configuration register, 16 words" (not modelled)
	ConfigSize        = 0x40
	ControlOff        = 0x800040 // board control register (little-endian)
	PointerOff        = 0x800100 // pointer bank, 16 words (little-endian)
	PointerWords      = 16
	SpecialOff        = 0x804000 // LANai special registers: SpecialOff + register offset
	SpecialWindowSize = 0x4000
	DoorbellOff       = 0x808000 // doorbell region: writes from here to BARSize
	DoorbellPageSize  = 0x1000   // "4K bytes per door bell"
	EEPROMOff         = 0x880000 // EEPROM (reads), repeated every EEPROMSize bytes
	EEPROMAltOff      = 0xA00000 // EEPROM (alternate; Cplant reads here)
)

// Pointer bank words (ParaStation lanai_def.h struct DMA_FIFO).
const (
	PtrDMAChannel0 = 0 // dma_channel_base[0..3]: words 0-3 (BAR0 + 0x800100 + 4n)
	PtrFIFOBase0   = 4 // fifo_base[0..3]: words 4-7 (BAR0 + 0x800110 + 4n)
)

// Default PIO costs (lanai9-hw.md section 7.3, tagged unverified there).
const (
	DefaultPostedWrite   = 100 * sim.Nanosecond // a posted PCI write as the host CPU pays it
	DefaultNonPostedRead = 600 * sim.Nanosecond // a PCI read round trip (0.5-1 us)
)

// Params are the tunables of a Window; DefaultParams gives the documented
// defaults (docs/hostbus.md).
type Params struct {
	// Board fills the EEPROM.
	Board Board
	// PostedWrite is the host CPU's cost of one posted write transaction.
	PostedWrite sim.Time
	// NonPostedRead is the cost of one read transaction (the CPU stalls
	// until the data returns).
	NonPostedRead sim.Time
	// Bus64 says the board sits in a 64-bit slot: a 64-bit access is one
	// transaction (two otherwise) and control bit 14 (RST/REQ64 seen) reads 1.
	Bus64 bool
	// AliasSRAM makes BAR offsets between the end of SRAM and 8 MB wrap
	// onto SRAM; when false (the default) they are errors. Unknown on the
	// real boards.
	AliasSRAM bool
	// PowerOnControl is the control register after power-on and after
	// NewWindow (unknown on the real boards): by default LANai and EBUS
	// reset asserted, board reset removed, interrupts disabled.
	PowerOnControl uint32
	// DoorbellDepth, when non-zero, overrides the doorbell FIFO depth in
	// entries that control bits 2-0 select (512 << n).
	DoorbellDepth uint32
	// DoorbellOverflow says what a doorbell write does when the FIFO holds
	// DoorbellDepth unconsumed entries.
	DoorbellOverflow Overflow
	// DoorbellRegs is the LANai address of the doorbell FIFO registers
	// (an emulator extension, see DoorbellRegs*); 0 leaves them unmapped.
	DoorbellRegs uint32
}

// DefaultParams returns the defaults: the DefaultPart board with serial 1,
// 0.1 us posted writes, 0.6 us reads, a 64-bit slot, no SRAM aliasing,
// the doorbell FIFO sized by the control register, overwriting on
// overflow, and the doorbell registers at DefaultDoorbellRegs.
func DefaultParams() Params {
	b, _ := BoardFor(DefaultPart, 1)
	b.SRAMSize = 0 // follow the attached memory
	return Params{
		Board:            b,
		PostedWrite:      DefaultPostedWrite,
		NonPostedRead:    DefaultNonPostedRead,
		Bus64:            true,
		PowerOnControl:   CtlResetOn | CtlEResetOn | CtlBResetOff | CtlIntDisable,
		DoorbellOverflow: OverflowOverwrite,
		DoorbellRegs:     DefaultDoorbellRegs,
	}
}

// Hooks connect the window to the board's devices, which live below this
// package and cannot import it. Every field may be nil. The signatures
// match the board's PCI-target methods, so that method values plug in
// directly (Hooks{ReadSpecial: b.HostReadSpecial, ...}).
type Hooks struct {
	// ReadSpecial and WriteSpecial are the host's access to the LANai
	// special registers (offsets 0x000-0x1FC, values as the LANai sees
	// them). Nil means the memory's own register file
	// (memsys.Memory.Specials). A board whose registers treat host writes
	// differently from LANai writes (ISR: the host clears HOST_SIG and sets
	// LANAI_SIG) supplies its host view here.
	ReadSpecial  func(off uint32) (uint32, error)
	WriteSpecial func(off, v uint32) error
	// ReadPointer and WritePointer serve the pointer bank (words 0-15).
	// The window keeps its own copy of every written word and reads that
	// copy when ReadPointer is nil; a board whose DMA channel pointers
	// advance supplies ReadPointer. The doorbell FIFO takes its base from
	// word 4 through the same path.
	ReadPointer  func(word int) uint32
	WritePointer func(word int, v uint32)
	// TriggerDMA is called for each DMA trigger bit (23-20) set in a
	// control write, with the channel number (bit 20 = channel 0).
	TriggerDMA func(ch int)
	// InterruptEnable is told the control register's host interrupt enable
	// at NewWindow and whenever a control write changes it.
	InterruptEnable func(on bool)
	// Reset is told the reset lines whenever a control write changes one.
	Reset func(ResetLines)
	// Wake is told that a doorbell entry was stored; the board sets
	// WAKE0_INT_BIT in ISR (ParaStation: "FIFO -> new entry: WAKE_INT_BIT").
	Wake func()
}

// ResetLines are the three reset outputs of the control register (true =
// asserted).
type ResetLines struct {
	LANai, EBUS, Board bool
}

// WindowStats counts the window's PIO traffic.
type WindowStats struct {
	Writes       uint64   // write transactions (a 64-bit access on a 32-bit bus is two)
	Reads        uint64   // read transactions
	BytesWritten uint64   // bytes written by the host
	BytesRead    uint64   // bytes read by the host
	PIOTime      sim.Time // sum of the costs of all accesses
	Doorbells    uint64   // doorbell entries stored in the FIFO
	DoorbellLost uint64   // doorbell writes dropped or overwritten unread (overflow, limit check)
}

// BusError is a PIO access the window refuses: outside every region, of a
// width or alignment the region does not take, or refused by the region.
type BusError struct {
	Off   uint32 // BAR0 offset
	Size  int    // bytes
	Write bool
	Why   string
	Err   error // underlying error, if any
}

func (e *BusError) Error() string {
	op := "read"
	if e.Write {
		op = "write"
	}
	s := fmt.Sprintf("hostbus: %d-byte PIO %s at BAR0+%#07x: %s", e.Size, op, e.Off, e.Why)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *BusError) Unwrap() error { return e.Err }

// Window is the host's view of one board through its 16 MB PCI BAR0: SRAM,
// the board control register, the pointer bank, the LANai special
// registers, the doorbell region with its FIFO, and the EEPROM; plus the
// board's interrupt line as the host sees it.
//
// Every access returns the time it completes. The window keeps the host's
// time as far as PIO is concerned (Now): an access starts at Now and
// advances it by its cost, so a host model that calls At with its own
// time before a burst of accesses gets back the time each one finishes.
// Effects are applied when the access is called. A Window is not safe for
// concurrent use.
type Window struct {
	mem    *memsys.Memory
	p      Params
	h      Hooks
	eeprom [EEPROMSize]byte

	ctl uint32 // stored control bits (pairs and plain bits)
	ptr [PointerWords]uint32
	db  doorbellState

	line bool // the board's interrupt output: (ISR & EIMR) != 0
	irq  bool // INTA# as the host sees it: line AND interrupt enable
	obs  []func(bool)

	now   sim.Time
	stats WindowStats
}

// NewWindow attaches a window to a board's memory. It builds the EEPROM
// from p.Board and, when p.DoorbellRegs is non-zero, maps the doorbell
// registers into mem (attach one Window per Memory).
func NewWindow(mem *memsys.Memory, p Params, h Hooks) (*Window, error) {
	if mem == nil {
		return nil, fmt.Errorf("hostbus: NewWindow needs the board's memory")
	}
	sram := uint32(len(mem.SRAM))
	if p.Board.SRAMSize != 0 && p.Board.SRAMSize != sram {
		return nil, fmt.Errorf("hostbus: board %s declares %#x bytes of SRAM but the memory has %#x", p.Board.Part, p.Board.SRAMSize, sram)
	}
	if sram > SRAMWindowSize {
		return nil, fmt.Errorf("hostbus: %#x bytes of SRAM do not fit the %#x-byte SRAM window of BAR0", sram, SRAMWindowSize)
	}
	if err := checkPairs(p.PowerOnControl); err != nil {
		return nil, fmt.Errorf("hostbus: PowerOnControl %#08x: %v", p.PowerOnControl, err)
	}
	e, err := p.Board.EEPROMImage(sram)
	if err != nil {
		return nil, err
	}
	w := &Window{mem: mem, p: p, h: h, eeprom: e}
	if (w.h.ReadSpecial == nil || w.h.WriteSpecial == nil) && mem.Specials == nil {
		return nil, fmt.Errorf("hostbus: the memory has no special registers and Hooks supply none")
	}
	if w.h.ReadSpecial == nil {
		w.h.ReadSpecial = mem.Specials.Read32
	}
	if w.h.WriteSpecial == nil {
		w.h.WriteSpecial = mem.Specials.Write32
	}
	w.ctl = p.PowerOnControl & ctlStored
	if p.DoorbellRegs != 0 {
		b := uint64(p.DoorbellRegs)
		end := b + DoorbellRegsSize
		switch {
		case b%4 != 0:
			return nil, fmt.Errorf("hostbus: doorbell registers at %#x are not word-aligned", b)
		case b < uint64(sram) || end > 1<<32 || (b < memsys.SpecialBase+memsys.SpecialSize && end > memsys.SpecialBase):
			return nil, fmt.Errorf("hostbus: doorbell registers at %#x overlap SRAM or the special registers", b)
		}
		mem.Map(p.DoorbellRegs, DoorbellRegsSize, &doorbellRegs{w}, "doorbell FIFO registers (emulator extension)")
	}
	if w.h.InterruptEnable != nil {
		w.h.InterruptEnable(w.InterruptEnabled())
	}
	return w, nil
}

// Params returns the window's parameters.
func (w *Window) Params() Params { return w.p }

// EEPROM returns the EEPROM image.
func (w *Window) EEPROM() [EEPROMSize]byte { return w.eeprom }

// Now is the completion time of the last access (or the time given to At).
func (w *Window) Now() sim.Time { return w.now }

// At tells the window the host's time: the next access starts at t, or
// when the previous one completed if that is later (PCI is one bus).
func (w *Window) At(t sim.Time) {
	if t > w.now {
		w.now = t
	}
}

// Stats returns the counters.
func (w *Window) Stats() WindowStats { return w.stats }

// Pointer returns pointer bank word i (0-15) as a host read would see it
// (through Hooks.ReadPointer if set); out of range reads 0.
func (w *Window) Pointer(i int) uint32 {
	if i < 0 || i >= PointerWords {
		return 0
	}
	if w.h.ReadPointer != nil {
		return w.h.ReadPointer(i)
	}
	return w.ptr[i]
}

// charge accounts n transactions of one kind and returns the completion
// time.
func (w *Window) charge(write bool, n uint64, bytes int) sim.Time {
	c := w.p.NonPostedRead
	if write {
		c = w.p.PostedWrite
		w.stats.Writes += n
		w.stats.BytesWritten += uint64(bytes)
	} else {
		w.stats.Reads += n
		w.stats.BytesRead += uint64(bytes)
	}
	d := c * sim.Time(n)
	w.stats.PIOTime += d
	w.now += d
	return w.now
}

// transactions is the number of PCI transactions one access of n bytes
// takes.
func (w *Window) transactions(n int) uint64 {
	if n == 8 && !w.p.Bus64 {
		return 2
	}
	return 1
}

// do performs one access and charges it if it succeeds.
func (w *Window) do(off uint32, n int, write bool, v uint64) (uint64, sim.Time, error) {
	r, err := w.access(off, n, write, v)
	if err != nil {
		return 0, w.now, err
	}
	return r, w.charge(write, w.transactions(n), n), nil
}

// Read8 reads a byte (SRAM, EEPROM).
func (w *Window) Read8(off uint32) (uint8, sim.Time, error) {
	v, t, err := w.do(off, 1, false, 0)
	return uint8(v), t, err
}

// Read16 reads a naturally aligned 16-bit value as the little-endian host
// sees it (SRAM, EEPROM).
func (w *Window) Read16(off uint32) (uint16, sim.Time, error) {
	v, t, err := w.do(off, 2, false, 0)
	return uint16(v), t, err
}

// Read32 reads a naturally aligned 32-bit value as the little-endian host
// sees it: SRAM and EEPROM bytes are not swapped, so a big-endian word
// 0x11223344 reads as 0x44332211; a special register reads byte-swapped;
// the control register and the pointer bank read as they are.
func (w *Window) Read32(off uint32) (uint32, sim.Time, error) {
	v, t, err := w.do(off, 4, false, 0)
	return uint32(v), t, err
}

// Read64 reads a naturally aligned 64-bit value (SRAM, EEPROM): bytes
// off..off+7 taken little-endian.
func (w *Window) Read64(off uint32) (uint64, sim.Time, error) {
	return w.do(off, 8, false, 0)
}

// Write8 writes a byte (SRAM).
func (w *Window) Write8(off uint32, v uint8) (sim.Time, error) {
	_, t, err := w.do(off, 1, true, uint64(v))
	return t, err
}

// Write16 writes a naturally aligned 16-bit value (SRAM), little-endian.
func (w *Window) Write16(off uint32, v uint16) (sim.Time, error) {
	_, t, err := w.do(off, 2, true, uint64(v))
	return t, err
}

// Write32 writes a naturally aligned 32-bit value: into SRAM as four bytes
// little-endian (the LANai reads the word byte-swapped), into a special
// register byte-swapped, into the control register or the pointer bank as
// it is, or into the doorbell region as a FIFO entry.
func (w *Window) Write32(off uint32, v uint32) (sim.Time, error) {
	_, t, err := w.do(off, 4, true, uint64(v))
	return t, err
}

// Write64 writes a naturally aligned 64-bit value into SRAM, little-endian.
func (w *Window) Write64(off uint32, v uint64) (sim.Time, error) {
	_, t, err := w.do(off, 8, true, v)
	return t, err
}

// blockTransactions is what a host bcopy of n bytes costs: FreeBSD 4.6's
// i386 bcopy moves n/4 words with rep movsl, then n%4 bytes with rep movsb.
func blockTransactions(n int) uint64 { return uint64(n/4 + n%4) }

// WriteBlock copies p into SRAM at off as a host bcopy would (n/4 32-bit
// stores and n%4 byte stores, each a posted write). The whole block must
// lie in the board's SRAM.
func (w *Window) WriteBlock(off uint32, p []byte) (sim.Time, error) {
	if len(p) == 0 {
		return w.now, nil
	}
	if uint64(off)+uint64(len(p)) > uint64(len(w.mem.SRAM)) {
		return w.now, &BusError{Off: off, Size: len(p), Write: true, Why: fmt.Sprintf("block copies must lie in the board's SRAM [0, %#x)", len(w.mem.SRAM))}
	}
	if err := w.mem.Write(off, p); err != nil {
		return w.now, &BusError{Off: off, Size: len(p), Write: true, Why: "SRAM refused the write", Err: err}
	}
	return w.charge(true, blockTransactions(len(p)), len(p)), nil
}

// ReadBlock copies len(p) bytes at off into p as a host bcopy would (each
// transaction a non-posted read). The block must lie in SRAM or in the
// EEPROM range.
func (w *Window) ReadBlock(off uint32, p []byte) (sim.Time, error) {
	if len(p) == 0 {
		return w.now, nil
	}
	end := uint64(off) + uint64(len(p))
	switch {
	case end <= uint64(len(w.mem.SRAM)):
		copy(p, w.mem.SRAM[off:])
	case off >= EEPROMOff && end <= BARSize:
		for i := range p {
			p[i] = w.eeprom[(off-EEPROMOff+uint32(i))%EEPROMSize]
		}
	default:
		return w.now, &BusError{Off: off, Size: len(p), Why: fmt.Sprintf("block reads must lie in the board's SRAM [0, %#x) or the EEPROM range [%#x, %#x)", len(w.mem.SRAM), EEPROMOff, BARSize)}
	}
	return w.charge(false, blockTransactions(len(p)), len(p)), nil
}

// access decodes one access to its region.
func (w *Window) access(off uint32, n int, write bool, v uint64) (uint64, error) {
	fail := func(why string, err error) (uint64, error) {
		return 0, &BusError{Off: off, Size: n, Write: write, Why: why, Err: err}
	}
	if uint64(off)+uint64(n) > BARSize {
		return fail("beyond the 16 MB BAR0", nil)
	}
	if off%uint32(n) != 0 {
		return fail("not naturally aligned", nil)
	}
	switch {
	case off < SRAMWindowSize:
		return w.sram(off, n, write, v)
	case off < ConfigOff+ConfigSize:
		return fail("the configuration register block (BAR0+0x800000, 16 words) is not modelled: its contents are unknown", nil)
	case off >= ControlOff && off < ControlOff+4:
		if n != 4 {
			return fail("the board control register takes 32-bit accesses only", nil)
		}
		if write {
			if err := w.writeControl(uint32(v)); err != nil {
				return fail("board control register", err)
			}
			return 0, nil
		}
		return uint64(w.Control()), nil
	case off >= PointerOff && off < PointerOff+4*PointerWords:
		if n != 4 {
			return fail("the pointer bank takes 32-bit accesses only", nil)
		}
		i := int(off-PointerOff) / 4
		if write {
			w.ptr[i] = uint32(v)
			if w.h.WritePointer != nil {
				w.h.WritePointer(i, uint32(v))
			}
			return 0, nil
		}
		return uint64(w.Pointer(i)), nil
	case off >= SpecialOff && off < SpecialOff+SpecialWindowSize:
		reg := off - SpecialOff
		if reg >= memsys.SpecialSize {
			return fail(fmt.Sprintf("no LANai special register at offset %#x (registers end at %#x)", reg, memsys.SpecialSize), nil)
		}
		if n != 4 {
			return fail("LANai special registers take 32-bit accesses only", nil)
		}
		if write {
			if err := w.h.WriteSpecial(reg, bits.ReverseBytes32(uint32(v))); err != nil {
				return fail("special register", err)
			}
			return 0, nil
		}
		r, err := w.h.ReadSpecial(reg)
		if err != nil {
			return fail("special register", err)
		}
		return uint64(bits.ReverseBytes32(r)), nil
	case off >= DoorbellOff:
		if write {
			if n != 4 {
				return fail("doorbell writes are 32-bit", nil)
			}
			if err := w.doorbell(off, uint32(v)); err != nil {
				return fail("doorbell", err)
			}
			return 0, nil
		}
		if off < EEPROMOff {
			return fail(fmt.Sprintf("the doorbell region below the EEPROM (%#x) is write-only", EEPROMOff), nil)
		}
		var b [8]byte
		for i := range n {
			b[i] = w.eeprom[(off-EEPROMOff+uint32(i))%EEPROMSize]
		}
		return binary.LittleEndian.Uint64(b[:]), nil
	}
	return fail("no register here", nil)
}

// sram performs an access in the SRAM window.
func (w *Window) sram(off uint32, n int, write bool, v uint64) (uint64, error) {
	size := uint64(len(w.mem.SRAM))
	addr := uint64(off)
	if addr+uint64(n) > size {
		if !w.p.AliasSRAM || size == 0 {
			return 0, &BusError{Off: off, Size: n, Write: write, Why: fmt.Sprintf("beyond the board's %#x bytes of SRAM", size)}
		}
		addr %= size
		if addr+uint64(n) > size {
			return 0, &BusError{Off: off, Size: n, Write: write, Why: "aliased access straddles the end of SRAM"}
		}
	}
	if write {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		if err := w.mem.Write(uint32(addr), b[:n]); err != nil {
			return 0, &BusError{Off: off, Size: n, Write: true, Why: "SRAM refused the write", Err: err}
		}
		return 0, nil
	}
	var b [8]byte
	copy(b[:n], w.mem.SRAM[addr:])
	return binary.LittleEndian.Uint64(b[:]), nil
}

// SetIRQ is the board's interrupt output: true while (ISR & EIMR) != 0.
// The host sees it only while the control register's interrupt enable is
// on.
func (w *Window) SetIRQ(level bool) {
	w.line = level
	w.updateIRQ()
}

// IRQ is the level of the PCI interrupt line as the host sees it: the
// board's output AND the interrupt enable.
func (w *Window) IRQ() bool { return w.irq }

// OnIRQ subscribes f to changes of the host-visible interrupt line; f is
// called with the new level, subscribers in the order they subscribed.
func (w *Window) OnIRQ(f func(level bool)) {
	if f != nil {
		w.obs = append(w.obs, f)
	}
}

// updateIRQ recomputes the host-visible line and tells the subscribers.
func (w *Window) updateIRQ() {
	out := w.line && w.ctl&CtlIntEnable != 0
	if out == w.irq {
		return
	}
	w.irq = out
	for _, f := range w.obs {
		f(out)
	}
}
