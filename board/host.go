package board

import "fmt"

// HostMemory is host memory as the board's DMA engine reaches it over PCI
// (package hostbus implements it for the host model). Addresses are PCI
// bus addresses. An error makes the DMA engine fault (the transfer is a
// master abort). Implementations must not keep p, and a ReadHost that
// fails leaves p as it was: the engine reads into SRAM in place.
type HostMemory interface {
	ReadHost(addr uint64, p []byte) error
	WriteHost(addr uint64, p []byte) error
}

// HostRAM is a simple HostMemory: one block of bytes at a bus address.
// Accesses outside it fail.
type HostRAM struct {
	Base uint64
	Data []byte
}

// NewHostRAM makes size bytes of host memory at bus address base.
func NewHostRAM(base uint64, size int) *HostRAM {
	return &HostRAM{Base: base, Data: make([]byte, size)}
}

func (h *HostRAM) span(addr uint64, n int, op string) ([]byte, error) {
	off := addr - h.Base
	if addr < h.Base || off > uint64(len(h.Data)) || uint64(n) > uint64(len(h.Data))-off {
		return nil, fmt.Errorf("%d-byte %s at %#x: outside host memory [%#x, %#x)", n, op, addr, h.Base, h.Base+uint64(len(h.Data)))
	}
	return h.Data[off : off+uint64(n)], nil
}

// ReadHost implements HostMemory.
func (h *HostRAM) ReadHost(addr uint64, p []byte) error {
	s, err := h.span(addr, len(p), "read")
	if err == nil {
		copy(p, s)
	}
	return err
}

// WriteHost implements HostMemory.
func (h *HostRAM) WriteHost(addr uint64, p []byte) error {
	s, err := h.span(addr, len(p), "write")
	if err == nil {
		copy(s, p)
	}
	return err
}
