package hostbus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

// Host physical memory geometry.
const (
	PageShift = 12             // i386 page: 4 KiB
	PageSize  = 1 << PageShift // bytes per page frame
	// DefaultHostMemory is the host memory of the default scenario: a
	// FreeBSD 4.6 workstation of the period.
	DefaultHostMemory = 256 << 20
	// MaxHostMemory is the largest memory accepted: the 32-bit physical
	// address space of an i386 without PAE (FreeBSD 4.6 has no PAE).
	MaxHostMemory = 4 << 30
)

// ErrWildAddress is matched (errors.Is) by every access that reaches past
// the end of host memory.
var ErrWildAddress = errors.New("wild DMA address")

// AddressError is an access outside host memory.
type AddressError struct {
	Addr  uint64 // first byte of the access
	Len   int    // bytes
	Size  uint64 // bytes of host memory
	Write bool
	DMA   bool // by a board's DMA engine (ReadHost/WriteHost), not by a host model
}

func (e *AddressError) Error() string {
	op := "read"
	if e.Write {
		op = "write"
	}
	if e.DMA {
		return fmt.Sprintf("hostbus: wild DMA address: %d-byte DMA %s at %#x, outside host memory [0, %#x)", e.Len, op, e.Addr, e.Size)
	}
	return fmt.Sprintf("hostbus: %d-byte host %s at physical %#x, outside host memory [0, %#x)", e.Len, op, e.Addr, e.Size)
}

// Unwrap makes errors.Is(err, ErrWildAddress) true.
func (e *AddressError) Unwrap() error { return ErrWildAddress }

// HostMemoryStats counts what happened to a HostMemory. "In" and "out" are
// seen from host memory: DMA in is board to host (the LANai's L2E
// direction, WriteHost), DMA out is host to board (E2L, ReadHost).
type HostMemoryStats struct {
	DMAReads    uint64 // ReadHost calls that succeeded
	DMAWrites   uint64 // WriteHost calls that succeeded
	DMABytesOut uint64 // bytes read by DMA (host -> board)
	DMABytesIn  uint64 // bytes written by DMA (board -> host)
	Wild        uint64 // accesses refused as outside memory (DMA or not)
	Frames      uint64 // page frames with backing store now
}

// HostMemory is the host's physical memory: Size bytes in 4 KiB page
// frames, sparse (a frame gets backing store when it is first written; an
// untouched frame reads as zeros). Bytes are stored as they are written:
// DMA moves bytes, and the little-endian helpers are for host models,
// which run on an i386. An access reaching past Size fails with an
// *AddressError (errors.Is ErrWildAddress) and changes nothing.
//
// HostMemory satisfies the board's DMA interface
// (ReadHost/WriteHost). It is not safe for concurrent use: a simulation
// runs one node's models on one goroutine.
type HostMemory struct {
	size   uint64
	frames []*[PageSize]byte
	stats  HostMemoryStats
}

// NewHostMemory makes a memory of size bytes: a non-zero multiple of
// PageSize, at most MaxHostMemory.
func NewHostMemory(size uint64) (*HostMemory, error) {
	if size == 0 || size%PageSize != 0 || size > MaxHostMemory {
		return nil, fmt.Errorf("hostbus: host memory size %#x must be a non-zero multiple of %#x up to %#x", size, PageSize, uint64(MaxHostMemory))
	}
	return &HostMemory{size: size, frames: make([]*[PageSize]byte, size/PageSize)}, nil
}

// MemoryFor is the memory, in bytes, that NewHostMemory allocates for
// size bytes: a pointer per frame. A frame's 4 KiB come on top when it
// is first written.
func MemoryFor(size uint64) uint64 {
	return (size + PageSize - 1) / PageSize * uint64(unsafe.Sizeof((*[PageSize]byte)(nil)))
}

// Size is the memory's size in bytes.
func (m *HostMemory) Size() uint64 { return m.size }

// Stats returns the counters.
func (m *HostMemory) Stats() HostMemoryStats {
	s := m.stats
	s.Frames = 0
	for _, f := range m.frames {
		if f != nil {
			s.Frames++
		}
	}
	return s
}

// check validates [addr, addr+n).
func (m *HostMemory) check(addr uint64, n int, write, dma bool) error {
	if addr > m.size || uint64(n) > m.size-addr {
		m.stats.Wild++
		return &AddressError{Addr: addr, Len: n, Size: m.size, Write: write, DMA: dma}
	}
	return nil
}

// read copies memory at addr into p (range already checked).
func (m *HostMemory) read(addr uint64, p []byte) {
	for len(p) > 0 {
		pfn, off := addr>>PageShift, addr&(PageSize-1)
		n := min(uint64(len(p)), PageSize-off)
		if f := m.frames[pfn]; f != nil {
			copy(p[:n], f[off:])
		} else {
			clear(p[:n])
		}
		p, addr = p[n:], addr+n
	}
}

// write copies p into memory at addr (range already checked).
func (m *HostMemory) write(addr uint64, p []byte) {
	for len(p) > 0 {
		pfn, off := addr>>PageShift, addr&(PageSize-1)
		n := min(uint64(len(p)), PageSize-off)
		f := m.frames[pfn]
		if f == nil {
			f = new([PageSize]byte)
			m.frames[pfn] = f
		}
		copy(f[off:], p[:n])
		p, addr = p[n:], addr+n
	}
}

// ReadHost copies len(p) bytes of host memory at addr into p: a DMA read
// (host to board), counted in the statistics. Any length and alignment;
// pages are crossed freely.
func (m *HostMemory) ReadHost(addr uint64, p []byte) error {
	if err := m.check(addr, len(p), false, true); err != nil {
		return err
	}
	m.read(addr, p)
	m.stats.DMAReads++
	m.stats.DMABytesOut += uint64(len(p))
	return nil
}

// WriteHost copies p into host memory at addr: a DMA write (board to
// host), counted in the statistics.
func (m *HostMemory) WriteHost(addr uint64, p []byte) error {
	if err := m.check(addr, len(p), true, true); err != nil {
		return err
	}
	m.write(addr, p)
	m.stats.DMAWrites++
	m.stats.DMABytesIn += uint64(len(p))
	return nil
}

// Read copies host memory at addr into p for a host model (not counted as
// DMA).
func (m *HostMemory) Read(addr uint64, p []byte) error {
	if err := m.check(addr, len(p), false, false); err != nil {
		return err
	}
	m.read(addr, p)
	return nil
}

// Write copies p into host memory at addr for a host model (not counted
// as DMA).
func (m *HostMemory) Write(addr uint64, p []byte) error {
	if err := m.check(addr, len(p), true, false); err != nil {
		return err
	}
	m.write(addr, p)
	return nil
}

// Uint8 reads the byte at addr.
func (m *HostMemory) Uint8(addr uint64) (uint8, error) {
	var b [1]byte
	err := m.Read(addr, b[:])
	return b[0], err
}

// Uint16 reads the little-endian (i386) 16-bit value at addr; any
// alignment.
func (m *HostMemory) Uint16(addr uint64) (uint16, error) {
	var b [2]byte
	err := m.Read(addr, b[:])
	return binary.LittleEndian.Uint16(b[:]), err
}

// Uint32 reads the little-endian 32-bit value at addr.
func (m *HostMemory) Uint32(addr uint64) (uint32, error) {
	var b [4]byte
	err := m.Read(addr, b[:])
	return binary.LittleEndian.Uint32(b[:]), err
}

// Uint64 reads the little-endian 64-bit value at addr.
func (m *HostMemory) Uint64(addr uint64) (uint64, error) {
	var b [8]byte
	err := m.Read(addr, b[:])
	return binary.LittleEndian.Uint64(b[:]), err
}

// PutUint8 writes the byte v at addr.
func (m *HostMemory) PutUint8(addr uint64, v uint8) error {
	return m.Write(addr, []byte{v})
}

// PutUint16 writes v little-endian at addr.
func (m *HostMemory) PutUint16(addr uint64, v uint16) error {
	var b [2]byte
	binary.LittleEndian.PutUint16(b[:], v)
	return m.Write(addr, b[:])
}

// PutUint32 writes v little-endian at addr.
func (m *HostMemory) PutUint32(addr uint64, v uint32) error {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return m.Write(addr, b[:])
}

// PutUint64 writes v little-endian at addr.
func (m *HostMemory) PutUint64(addr uint64, v uint64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return m.Write(addr, b[:])
}

// PFN is the page frame number holding physical address addr.
func PFN(addr uint64) uint64 { return addr >> PageShift }

// FrameAddr is the physical address of the first byte of frame pfn.
func FrameAddr(pfn uint64) uint64 { return pfn << PageShift }

// Frames is the number of page frames (Size / PageSize).
func (m *HostMemory) Frames() uint64 { return uint64(len(m.frames)) }

// frameErr reports a frame number beyond memory.
func (m *HostMemory) frameErr(pfn uint64, write bool) error {
	if pfn < uint64(len(m.frames)) {
		return nil
	}
	m.stats.Wild++
	return &AddressError{Addr: pfn << PageShift, Len: PageSize, Size: m.size, Write: write}
}

// Frame returns the PageSize bytes of frame pfn, giving it backing store
// if it has none. The slice aliases the memory: a VM model may read and
// write it directly (pmap_zero_page, copyin and the like), and DMA sees
// the result.
func (m *HostMemory) Frame(pfn uint64) ([]byte, error) {
	if err := m.frameErr(pfn, true); err != nil {
		return nil, err
	}
	f := m.frames[pfn]
	if f == nil {
		f = new([PageSize]byte)
		m.frames[pfn] = f
	}
	return f[:], nil
}

// FrameAllocated reports whether frame pfn has backing store (has been
// written since it was last released). Frames beyond memory report false.
func (m *HostMemory) FrameAllocated(pfn uint64) bool {
	return pfn < uint64(len(m.frames)) && m.frames[pfn] != nil
}

// ZeroFrame fills frame pfn with zeros (and releases its backing store,
// which reads as zeros).
func (m *HostMemory) ZeroFrame(pfn uint64) error {
	if err := m.frameErr(pfn, true); err != nil {
		return err
	}
	m.frames[pfn] = nil
	return nil
}

// ReleaseFrame drops the backing store of frame pfn; it reads as zeros
// afterwards. Equivalent to ZeroFrame; named for a VM model returning a
// page to the free list.
func (m *HostMemory) ReleaseFrame(pfn uint64) error { return m.ZeroFrame(pfn) }

// CopyFrame copies frame src to frame dst (pmap_copy_page).
func (m *HostMemory) CopyFrame(dst, src uint64) error {
	if err := m.frameErr(src, false); err != nil {
		return err
	}
	if err := m.frameErr(dst, true); err != nil {
		return err
	}
	if dst == src {
		return nil
	}
	if m.frames[src] == nil {
		m.frames[dst] = nil
		return nil
	}
	f := *m.frames[src]
	m.frames[dst] = &f
	return nil
}
