package hostbus

import (
	"encoding/binary"
	"fmt"

	"lanaiemu/memsys"
)

// Doorbell FIFO entries and the limit counters (ParaStation lanai_def.h
// FIFO_ENTRY and FIFO_COUNTER, mcpif.h).
const (
	DoorbellEntrySize = 8    // {u32 addr; u32 data}, in SRAM
	DoorbellMinDepth  = 512  // entries for queue size select 0 (4 KB)
	LimitCounterBytes = 4096 // counters {u8 limit; u8 count} at the end of SRAM
)

// The doorbell FIFO registers, an emulator extension (the real board's
// firmware-side interface is undocumented): a device of four words that
// NewWindow maps at Params.DoorbellRegs in the LANai's address space.
const (
	DefaultDoorbellRegs = 0xFFFFF180 // r0-relative: -3712[%r0]
	DoorbellRegsSize    = 0x10
	DoorbellRegWrite    = 0x0 // R: entries stored since reset (free-running)
	DoorbellRegRead     = 0x4 // R/W: entries the firmware has consumed (free-running)
	DoorbellRegLost     = 0x8 // R: doorbell writes lost; a write clears it
	DoorbellRegDepth    = 0xC // R: the FIFO depth in entries now
)

// Overflow is what a doorbell write does when the FIFO is full (Write -
// Read = depth).
type Overflow int

const (
	// OverflowOverwrite stores the entry anyway, overwriting the oldest
	// unconsumed one, and counts it lost: the hardware has no read
	// pointer, so its ring can only wrap (the default).
	OverflowOverwrite Overflow = iota
	// OverflowDrop discards the new entry (no SRAM write, no wake) and
	// counts it lost.
	OverflowDrop
)

func (o Overflow) String() string {
	switch o {
	case OverflowOverwrite:
		return "overwrite"
	case OverflowDrop:
		return "drop"
	}
	return fmt.Sprintf("Overflow(%d)", int(o))
}

// doorbellState is the FIFO's hardware state.
type doorbellState struct {
	write, read, lost uint32
}

// DoorbellState is a snapshot of the doorbell FIFO's pointers.
type DoorbellState struct {
	Write, Read, Lost uint32 // the extension registers
	Depth             uint32 // entries
	Base              uint32 // SRAM address of the ring (fifo_base[0])
}

// Doorbell returns the FIFO's state.
func (w *Window) Doorbell() DoorbellState {
	return DoorbellState{Write: w.db.write, Read: w.db.read, Lost: w.db.lost, Depth: w.DoorbellDepth(), Base: w.Pointer(PtrFIFOBase0)}
}

// DoorbellDepth is the FIFO depth in entries: Params.DoorbellDepth if set,
// else 512 << (control bits 2-0).
func (w *Window) DoorbellDepth() uint32 {
	if w.p.DoorbellDepth != 0 {
		return w.p.DoorbellDepth
	}
	return DoorbellMinDepth << (w.ctl & CtlQueueSize)
}

// occupied is the number of unconsumed entries (0 if the firmware's read
// count ran ahead of the write count).
func (d *doorbellState) occupied() uint32 {
	n := d.write - d.read
	if int32(n) < 0 {
		return 0
	}
	return n
}

// doorbell handles a host write of v at BAR offset off in the doorbell
// region: the entry {off, v} goes into the ring at fifo_base[0].
func (w *Window) doorbell(off, v uint32) error {
	base := w.Pointer(PtrFIFOBase0)
	depth := w.DoorbellDepth()
	size := uint64(len(w.mem.SRAM))
	switch {
	case base == 0:
		return fmt.Errorf("the FIFO base (pointer bank word %d, BAR0+%#x) is not set", PtrFIFOBase0, PointerOff+4*PtrFIFOBase0)
	case base%DoorbellEntrySize != 0:
		return fmt.Errorf("the FIFO base %#x is not 8-byte aligned", base)
	case uint64(base)+uint64(depth)*DoorbellEntrySize > size:
		return fmt.Errorf("the FIFO [%#x, %#x) does not fit in SRAM (%#x bytes)", base, uint64(base)+uint64(depth)*DoorbellEntrySize, size)
	}
	counter, limited := uint64(0), w.ctl&CtlLimitCheck != 0
	if limited {
		if size < LimitCounterBytes {
			return fmt.Errorf("SRAM (%#x bytes) has no room for the limit counters", size)
		}
		counter = size - LimitCounterBytes + 2*uint64((off-DoorbellOff)/DoorbellPageSize)
		if limit, count := w.mem.SRAM[counter], w.mem.SRAM[counter+1]; count >= limit {
			w.db.lost++
			w.stats.DoorbellLost++
			return nil
		}
	}
	if w.db.occupied() >= depth {
		w.db.lost++
		w.stats.DoorbellLost++
		if w.p.DoorbellOverflow == OverflowDrop {
			return nil
		}
	}
	var e [DoorbellEntrySize]byte
	binary.BigEndian.PutUint32(e[0:], off)  // the address: a number the board generates, as the LANai reads it
	binary.LittleEndian.PutUint32(e[4:], v) // the data: PCI byte lanes in address order
	slot := base + DoorbellEntrySize*(w.db.write%depth)
	if err := w.mem.Write(slot, e[:]); err != nil {
		return err
	}
	if limited {
		if err := w.mem.Write(uint32(counter+1), []byte{w.mem.SRAM[counter+1] + 1}); err != nil {
			return err
		}
	}
	w.db.write++
	w.stats.Doorbells++
	if w.h.Wake != nil {
		w.h.Wake()
	}
	return nil
}

// doorbellRegs is the LANai-side device of the doorbell registers.
type doorbellRegs struct{ w *Window }

func (d *doorbellRegs) err(off uint32, write bool, why string) error {
	return &memsys.AccessError{Addr: d.w.p.DoorbellRegs + off, Size: 4, Write: write, Why: why}
}

// Read32 implements memsys.Device.
func (d *doorbellRegs) Read32(off uint32) (uint32, error) {
	switch off {
	case DoorbellRegWrite:
		return d.w.db.write, nil
	case DoorbellRegRead:
		return d.w.db.read, nil
	case DoorbellRegLost:
		return d.w.db.lost, nil
	case DoorbellRegDepth:
		return d.w.DoorbellDepth(), nil
	}
	return 0, d.err(off, false, "no doorbell register here")
}

// Write32 implements memsys.Device.
func (d *doorbellRegs) Write32(off uint32, v uint32) error {
	switch off {
	case DoorbellRegRead:
		d.w.db.read = v
		return nil
	case DoorbellRegLost:
		d.w.db.lost = 0
		return nil
	case DoorbellRegWrite, DoorbellRegDepth:
		return d.err(off, true, "doorbell register is read-only")
	}
	return d.err(off, true, "no doorbell register here")
}

// StableUntil implements memsys.Stable: the registers change only when the
// host writes (an event) or the core writes them itself.
func (d *doorbellRegs) StableUntil(off uint32) uint64 { return ^uint64(0) }
