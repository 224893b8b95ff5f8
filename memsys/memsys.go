// Package memsys is the LANai 9.2 memory system as the core sees it: the
// SRAM, the memory map, the special-register window and the devices mapped
// into it, and the loading of images into SRAM.
//
// The map (docs/memory.md):
//
//	0x00000000 .. SRAM size-1   SRAM, byte-addressed, big-endian (2 MiB by default)
//	0xFFFFF000 .. 0xFFFFF01F    simulation-control device (ours, outside the real map)
//	0xFFFFFE00 .. 0xFFFFFFFF    special registers (word access only)
//
// Everything else is unmapped: an access there is an error the core turns
// into a trap. SRAM is accessed by the core directly (see SRAM); devices are
// reached through the Device interface, off the core's fast path.
package memsys

import (
	"errors"
	"fmt"
)

// Memory-map constants.
const (
	DefaultSRAMSize = 2 << 20    // bytes of SRAM on the LANai 9.2 boards modelled
	MaxSRAMSize     = 32 << 20   // the largest SRAM the map allows (code reach of BR)
	SpecialBase     = 0xFFFFFE00 // first special register
	SpecialSize     = 0x200      // bytes of special-register window
	SimCtlBase      = 0xFFFFF000 // simulation-control device
	SimCtlSize      = 0x20
)

// Device is a memory-mapped device: word accesses at offsets from its base.
type Device interface {
	// Read32 reads the word at offset off (a multiple of 4).
	Read32(off uint32) (uint32, error)
	// Write32 writes the word at offset off.
	Write32(off uint32, v uint32) error
}

// Stable is implemented by devices that can say how long a register will
// keep its value without an event: the core uses it to skip polling loops.
type Stable interface {
	// StableUntil gives the first cycle of the core at which the register
	// at off may read differently without an event happening first (^0:
	// never; the current cycle or less: it may change at any time).
	StableUntil(off uint32) uint64
}

// mapping is a device window.
type mapping struct {
	base, size uint32
	dev        Device
	name       string
}

// Memory is the SRAM and the devices of one LANai.
type Memory struct {
	// SRAM is the LANai's local memory. The core reads and writes it
	// directly; any other writer (DMA, host programmed I/O, loaders) must
	// use Write or call Written so that predecoded instructions stay valid.
	SRAM     []byte
	maps     []mapping
	onWrite  func(addr, n uint32)
	Specials *SpecialRegs
}

// New makes a memory with size bytes of SRAM (a multiple of 4, at most
// MaxSRAMSize) and the special-register window.
func New(size uint32) (*Memory, error) {
	if size == 0 || size%4 != 0 || size > MaxSRAMSize {
		return nil, fmt.Errorf("memsys: SRAM size %#x must be a non-zero multiple of 4 up to %#x", size, MaxSRAMSize)
	}
	m := &Memory{SRAM: make([]byte, size), Specials: NewSpecialRegs()}
	m.Map(SpecialBase, SpecialSize, m.Specials, "special registers")
	return m, nil
}

// Map attaches a device at [base, base+size).
func (m *Memory) Map(base, size uint32, dev Device, name string) {
	m.maps = append(m.maps, mapping{base, size, dev, name})
}

// OnWrite installs the function told about every write that does not come
// from the core itself (the core uses it to invalidate predecoded words).
func (m *Memory) OnWrite(f func(addr, n uint32)) { m.onWrite = f }

// Written reports that n bytes at addr were written behind the core's back.
func (m *Memory) Written(addr, n uint32) {
	if m.onWrite != nil {
		m.onWrite(addr, n)
	}
}

// AccessError describes a failed access.
type AccessError struct {
	Addr  uint32
	Size  int
	Write bool
	Why   string
}

func (e *AccessError) Error() string {
	op := "read"
	if e.Write {
		op = "write"
	}
	return fmt.Sprintf("%d-byte %s at %#08x: %s", e.Size, op, e.Addr, e.Why)
}

// ErrStop is returned by a device to stop the machine (the exit register).
var ErrStop = errors.New("stop requested")

// device finds the device mapped at addr.
func (m *Memory) device(addr uint32) (Device, uint32, bool) {
	for i := range m.maps {
		mp := &m.maps[i]
		if addr-mp.base < mp.size {
			return mp.dev, addr - mp.base, true
		}
	}
	return nil, 0, false
}

// InSRAM reports whether [addr, addr+n) lies in SRAM.
func (m *Memory) InSRAM(addr, n uint32) bool {
	return uint64(addr)+uint64(n) <= uint64(len(m.SRAM))
}

// StableUntil says until which core cycle a word read at addr keeps its
// value if no event happens: SRAM forever (only events and the core's own
// stores change it), devices as they say (see Stable), 0 if they cannot.
func (m *Memory) StableUntil(addr uint32) uint64 {
	if m.InSRAM(addr, 4) {
		return ^uint64(0)
	}
	dev, off, ok := m.device(addr)
	if !ok {
		return 0
	}
	if s, ok := dev.(Stable); ok {
		return s.StableUntil(off)
	}
	return 0
}

// ReadIO reads a word of a device: the slow path of a core load outside
// SRAM. Only word accesses reach devices.
func (m *Memory) ReadIO(addr uint32, size int) (uint32, error) {
	if off := addr - SpecialBase; off < SpecialSize && size == 4 {
		return m.Specials.Read32(off) // the window New maps first: what mapRead finds, without the interface
	}
	return m.mapRead(addr, size)
}

// mapRead is ReadIO through the map search, for any address.
func (m *Memory) mapRead(addr uint32, size int) (uint32, error) {
	dev, off, ok := m.device(addr)
	if !ok {
		return 0, &AccessError{addr, size, false, "unmapped address"}
	}
	if size != 4 {
		return 0, &AccessError{addr, size, false, "devices take word accesses only"}
	}
	return dev.Read32(off)
}

// WriteIO writes a word of a device.
func (m *Memory) WriteIO(addr uint32, size int, v uint32) error {
	if off := addr - SpecialBase; off < SpecialSize && size == 4 {
		return m.Specials.Write32(off, v) // as in ReadIO
	}
	return m.mapWrite(addr, size, v)
}

// mapWrite is WriteIO through the map search, for any address.
func (m *Memory) mapWrite(addr uint32, size int, v uint32) error {
	dev, off, ok := m.device(addr)
	if !ok {
		return &AccessError{addr, size, true, "unmapped address"}
	}
	if size != 4 {
		return &AccessError{addr, size, true, "devices take word accesses only"}
	}
	return dev.Write32(off, v)
}

// Write copies data into SRAM at addr (for loaders, DMA and the host) and
// reports the write.
func (m *Memory) Write(addr uint32, data []byte) error {
	if !m.InSRAM(addr, uint32(len(data))) || uint64(len(data)) > uint64(len(m.SRAM)) {
		return &AccessError{addr, len(data), true, fmt.Sprintf("outside SRAM (%#x bytes)", len(m.SRAM))}
	}
	copy(m.SRAM[addr:], data)
	m.Written(addr, uint32(len(data)))
	return nil
}

// Read copies n bytes of SRAM at addr.
func (m *Memory) Read(addr, n uint32) ([]byte, error) {
	if !m.InSRAM(addr, n) {
		return nil, &AccessError{addr, int(n), false, fmt.Sprintf("outside SRAM (%#x bytes)", len(m.SRAM))}
	}
	return append([]byte(nil), m.SRAM[addr:addr+n]...), nil
}

// Word reads the big-endian word at addr of SRAM (for tools; the core has its
// own fast path).
func (m *Memory) Word(addr uint32) (uint32, error) {
	if addr%4 != 0 || !m.InSRAM(addr, 4) {
		return 0, &AccessError{addr, 4, false, "not a word of SRAM"}
	}
	b := m.SRAM[addr : addr+4]
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), nil
}
