package memsys

import (
	"fmt"

	"lanaiemu/objfile"
)

// Image is what a loader placed in SRAM.
type Image struct {
	Entry   uint32
	Symbols []*objfile.Symbol // absolute addresses (executables only)
	File    *objfile.File     // nil for raw images
}

// LoadFile loads an executable (ELF from our linker, or LANai COFF): every
// allocated section is copied to its address and NOBITS sections are zeroed.
// A relocatable object is refused: link it first.
func (m *Memory) LoadFile(data []byte) (*Image, error) {
	f, err := objfile.Read(data)
	if err != nil {
		return nil, err
	}
	if f.Kind != objfile.EXEC {
		return nil, fmt.Errorf("load: a relocatable object cannot be run; link it with lanai-ld first")
	}
	for _, s := range f.Sections {
		if s.Flags&objfile.SHF_ALLOC == 0 && f.Format == objfile.FormatELF {
			continue
		}
		size := s.Size
		if s.Type != objfile.SHT_NOBITS {
			size = uint32(len(s.Data))
		}
		if size == 0 {
			continue
		}
		if !m.InSRAM(s.Addr, size) {
			return nil, fmt.Errorf("load: section %s [%#x, %#x) lies outside SRAM (%#x bytes)", s.Name, s.Addr, uint64(s.Addr)+uint64(size), len(m.SRAM))
		}
		if s.Type == objfile.SHT_NOBITS {
			clear(m.SRAM[s.Addr : s.Addr+size])
			m.Written(s.Addr, size)
			continue
		}
		if err := m.Write(s.Addr, s.Data); err != nil {
			return nil, err
		}
	}
	if f.Entry%4 != 0 || !m.InSRAM(f.Entry, 4) {
		return nil, fmt.Errorf("load: entry point %#x is not a word of SRAM", f.Entry)
	}
	return &Image{Entry: f.Entry, Symbols: f.Symbols, File: f}, nil
}

// LoadRaw copies a raw image to addr; execution starts at addr.
func (m *Memory) LoadRaw(data []byte, addr uint32) (*Image, error) {
	if addr%4 != 0 {
		return nil, fmt.Errorf("load: raw image address %#x is not word-aligned", addr)
	}
	if err := m.Write(addr, data); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	return &Image{Entry: addr}, nil
}
