// Package cofftest writes small LANai COFF files and `ar` archives in the
// layout of Myricom's lanai-gcc 2.95 toolchain (docs/coff.md), for tests:
// they cover the COFF reader, the disassembler and the linker in CI, where
// Myricom's own objects are absent, and seed the fuzz corpora. It is
// independent of package objfile, so that the reader is checked against a
// second reading of the layout.
package cofftest

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Section type flags (s_flags) and storage classes used by the tests.
const (
	STYP_TEXT = 0x20  // code
	STYP_DATA = 0x40  // initialised data
	STYP_BSS  = 0x80  // zero-filled data
	STYP_INFO = 0x200 // not loaded (comments, stabs)

	C_EXT     = 2   // external symbol
	C_STAT    = 3   // static symbol, section symbol
	C_LABEL   = 6   // label
	C_FILE    = 103 // source file name
	C_WEAKEXT = 127 // weak external
	DT_FCN    = 2   // derived type "function" (in bits 5..4 of the type)

	// Myricom's relocation types (R_LANAI3_*) that lanai-gcc's objects use.
	R_LANAI3_21   = 7
	R_LANAI3_21_F = 8
	R_LANAI3_25   = 9
	R_LANAI3_32   = 12

	// SymSize is the size of a symbol or aux entry in Myricom's layout:
	// the usual 18 bytes padded to a word.
	SymSize = 20
	// RelocSize is the size of a relocation entry: r_vaddr, r_symndx,
	// r_type, r_spare, r_offset (the addend).
	RelocSize = 16
	// LineSize is the size of a line-number entry.
	LineSize = 6
)

// File describes a COFF file.
type File struct {
	Aout     bool   // write the standard 28-byte a.out optional header
	Entry    uint32 // its entry field
	OptHdr   []byte // another optional header (used when !Aout)
	Object   bool   // a relocatable object: f_flags 0x0104 instead of 0x010f
	Sections []Section
	Syms     []Symbol
	NoStrtab bool // omit the string table even if names need it
}

// Section describes one section.
type Section struct {
	Name         string
	PAddr, VAddr uint32
	Size         uint32 // for sections without data
	Data         []byte
	Flags        uint32
	Relocs       []Reloc
	Lines        []Line
}

// Symbol describes one symbol and its aux entries.
type Symbol struct {
	Name  string
	Value uint32
	Scnum int16
	Type  uint16
	Class uint8
	Aux   [][]byte // each up to 20 bytes
}

// Reloc is one relocation entry.
type Reloc struct {
	VAddr, Symndx uint32
	Type          uint16 // Myricom's R_LANAI3_* number
	Addend        int32
}

// Line is one line-number entry.
type Line struct {
	Addr uint32
	Line uint16
}

var be = binary.BigEndian

// Build encodes f as big-endian System V COFF, magic 0x1300, laid out as
// Myricom's tools do: headers, then each section's contents, relocations
// and line numbers, then the symbols and the string table.
func Build(f File) []byte {
	opt := f.OptHdr
	if f.Aout {
		opt = make([]byte, 28)
		be.PutUint32(opt[16:], f.Entry)
	}
	out := make([]byte, 20+len(opt)+40*len(f.Sections))
	be.PutUint16(out[0:], 0x1300)
	be.PutUint16(out[2:], uint16(len(f.Sections)))
	be.PutUint16(out[16:], uint16(len(opt)))
	be.PutUint16(out[18:], 0x010f)
	if f.Object {
		be.PutUint16(out[18:], 0x0104)
	}
	copy(out[20:], opt)
	for i, s := range f.Sections {
		size, ptr := s.Size, 0
		if s.Data != nil {
			size, ptr = uint32(len(s.Data)), len(out)
			out = append(out, s.Data...)
		}
		relptr, lnnoptr := 0, 0
		if len(s.Relocs) > 0 {
			relptr = len(out)
			for _, r := range s.Relocs {
				var e [RelocSize]byte
				be.PutUint32(e[0:], r.VAddr)
				be.PutUint32(e[4:], r.Symndx)
				be.PutUint16(e[8:], r.Type)
				be.PutUint32(e[12:], uint32(r.Addend))
				out = append(out, e[:]...)
			}
		}
		if len(s.Lines) > 0 {
			lnnoptr = len(out)
			for _, l := range s.Lines {
				var e [LineSize]byte
				be.PutUint32(e[0:], l.Addr)
				be.PutUint16(e[4:], l.Line)
				out = append(out, e[:]...)
			}
		}
		h := out[20+len(opt)+40*i:] // after the appends, which may move out
		copy(h[:8], s.Name)
		be.PutUint32(h[8:], s.PAddr)
		be.PutUint32(h[12:], s.VAddr)
		be.PutUint32(h[16:], size)
		be.PutUint32(h[20:], uint32(ptr))
		be.PutUint32(h[24:], uint32(relptr))
		be.PutUint32(h[28:], uint32(lnnoptr))
		be.PutUint16(h[32:], uint16(len(s.Relocs)))
		be.PutUint16(h[34:], uint16(len(s.Lines)))
		be.PutUint32(h[36:], s.Flags)
	}
	if len(f.Syms) == 0 {
		return out
	}
	be.PutUint32(out[8:], uint32(len(out)))
	strtab := []byte{0, 0, 0, 0}
	n := 0
	for _, s := range f.Syms {
		var e [SymSize]byte
		if len(s.Name) > 8 {
			be.PutUint32(e[4:], uint32(len(strtab)))
			strtab = append(append(strtab, s.Name...), 0)
		} else {
			copy(e[:8], s.Name)
		}
		be.PutUint32(e[8:], s.Value)
		be.PutUint16(e[12:], uint16(s.Scnum))
		be.PutUint16(e[14:], s.Type)
		e[16] = s.Class
		e[17] = uint8(len(s.Aux))
		out = append(out, e[:]...)
		for _, a := range s.Aux {
			var ae [SymSize]byte
			copy(ae[:], a)
			out = append(out, ae[:]...)
		}
		n += 1 + len(s.Aux)
	}
	be.PutUint32(out[12:], uint32(n))
	if !f.NoStrtab {
		be.PutUint32(strtab, uint32(len(strtab)))
		out = append(out, strtab...)
	}
	return out
}

// SampleObject is a relocatable object in Myricom's layout (like lanai-gcc's
// crt0.o): .text calling an external _main, data with a pointer, .bss, a
// .stab section with its own relocation, labels, an undefined symbol, a
// common block, a skipped debugging symbol and line numbers. Every
// relocation type that lanai-gcc's objects use appears. vaddr shifts
// .data's and .bss's addresses, which an object's symbols and relocations
// are relative to.
func SampleObject(vaddr uint32) File {
	text := []byte{
		0xf7, 0x82, 0x00, 0x00, // mov .text+0x14, %rca   R_LANAI3_21
		0xe0, 0x00, 0x00, 0x00, // bt _main               R_LANAI3_25
		0x97, 0x93, 0xff, 0xfc, // st %rca, [--%sp]
		0xf7, 0x00, 0x00, 0x00, // ld [_counter], %r14    R_LANAI3_21_F
		0x00, 0x00, 0x00, 0x01, // nop
		0xe0, 0x00, 0x00, 0x00, // bt .                   R_LANAI3_25
		0x00, 0x00, 0x00, 0x01, // nop
		0x00, 0x00, 0x00, 0x01, // nop
	}
	return File{
		Object: true,
		Sections: []Section{
			{Name: ".text", Data: text, Flags: STYP_TEXT,
				Relocs: []Reloc{
					{VAddr: 0x0, Symndx: 2, Type: R_LANAI3_21, Addend: 0x14},
					{VAddr: 0x4, Symndx: 11, Type: R_LANAI3_25},
					{VAddr: 0xc, Symndx: 10, Type: R_LANAI3_21_F},
					{VAddr: 0x14, Symndx: 2, Type: R_LANAI3_25, Addend: 0x14},
				},
				Lines: []Line{{Addr: 8, Line: 0}, {Addr: 0x4, Line: 2}},
			},
			{Name: ".data", PAddr: vaddr, VAddr: vaddr, Data: []byte{0, 0, 0, 0, 0, 0, 0, 42}, Flags: STYP_DATA,
				Relocs: []Reloc{{VAddr: vaddr, Symndx: 8, Type: R_LANAI3_32, Addend: -4}}},
			{Name: ".bss", PAddr: vaddr + 8, VAddr: vaddr + 8, Size: 0x10, Flags: STYP_BSS},
			{Name: ".stab", Data: make([]byte, 12), Flags: STYP_INFO,
				Relocs: []Reloc{{VAddr: 4, Symndx: 2, Type: R_LANAI3_32, Addend: 8}}},
		},
		Syms: []Symbol{
			{Name: ".file", Class: C_FILE, Scnum: -2, Aux: [][]byte{[]byte("own.s")}},
			{Name: ".text", Class: C_STAT, Scnum: 1, Aux: [][]byte{{0, 0, 0, 0x20, 0, 4}}},
			{Name: ".data", Value: vaddr, Class: C_STAT, Scnum: 2, Aux: [][]byte{{0, 0, 0, 8, 0, 1}}},
			{Name: ".bss", Value: vaddr + 8, Class: C_STAT, Scnum: 3, Aux: [][]byte{{0, 0, 0, 0x10}}},
			{Name: "_start", Scnum: 1, Type: DT_FCN << 4, Class: C_EXT},
			{Name: "L1", Value: 0x14, Scnum: 1, Class: C_LABEL},
			{Name: "_counter", Value: vaddr + 4, Scnum: 2, Class: C_EXT},
			{Name: "_main", Class: C_EXT},
			{Name: "_a_long_common_name", Value: 16, Class: C_EXT},
			{Name: "x", Value: 4, Class: 9}, // C_ARG: skipped
		},
	}
}

// Member is one file of an archive.
type Member struct {
	Name string
	Data []byte
}

// BuildArchive writes members as an `ar` archive in the layout of
// Myricom's lanai-ar: a "/" symbol index, then each member, padded to an
// even offset. Names longer than 15 bytes go to a "//" name table.
func BuildArchive(members []Member) []byte {
	var b strings.Builder
	b.WriteString("!<arch>\n")
	header := func(name string, size int) {
		fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", name, 970762030, 0, 0, 0o100644, size)
	}
	body := func(data []byte) {
		b.Write(data)
		if len(data)%2 == 1 {
			b.WriteByte('\n')
		}
	}
	header("/", 4)
	body([]byte{0, 0, 0, 0}) // an empty symbol index
	var long strings.Builder
	offsets := map[string]int{}
	for _, m := range members {
		if len(m.Name) > 15 {
			offsets[m.Name] = long.Len()
			long.WriteString(m.Name + "/\n")
		}
	}
	if long.Len() > 0 {
		header("//", long.Len())
		body([]byte(long.String()))
	}
	for _, m := range members {
		name := m.Name + "/"
		if off, ok := offsets[m.Name]; ok {
			name = fmt.Sprintf("/%d", off)
		}
		header(name, len(m.Data))
		body(m.Data)
	}
	return []byte(b.String())
}
