package objfile

import (
	"fmt"
	"strings"
)

// COFF layout constants: System V COFF, big-endian, as Myricom's lanai-gcc
// 2.95 toolchain (binutils target coff-lanai3) writes it. docs/coff.md gives
// the evidence for each size.
const (
	// COFFMagic is the f_magic of LANai COFF files.
	COFFMagic = 0x1300

	coffFileHeaderSize = 20
	coffSectHeaderSize = 40
	coffAoutHeaderSize = 28
	// Myricom's symbol entry is the usual 18 bytes plus 2 bytes of padding
	// (struct external_syment ends in char padding[2]); aux entries are
	// the same size.
	coffSymSize   = 20
	coffRelocSize = 16 // r_vaddr, r_symndx, r_type, r_spare, r_offset (the addend)
	coffLineSize  = 6  // l_addr (or l_symndx), l_lnno

	fEXEC = 0x2 // f_flags: the file is executable

	styDSECT  = 0x1
	styNOLOAD = 0x2
	styGROUP  = 0x4
	styPAD    = 0x8
	styCOPY   = 0x10
	styTEXT   = 0x20
	styDATA   = 0x40
	styBSS    = 0x80
	styINFO   = 0x200
	styOVER   = 0x400
	styLIB    = 0x800

	cEXT     = 2
	cSTAT    = 3
	cLABEL   = 6
	cFILE    = 103
	cWEAKEXT = 127
	dtFCN    = 2

	coffFileNameSize = 14 // x_fname of a .file aux entry
)

// COFFRelocType is a relocation type of Myricom's LANai COFF (the
// reloc_type enumeration of binutils' coff-lanai3).
type COFFRelocType uint16

// The LANai COFF relocation types. Objects made by lanai-gcc 2.95 use
// R_LANAI3_21, R_LANAI3_21_F, R_LANAI3_25 and R_LANAI3_32 only.
const (
	R_LANAI3_NONE   COFFRelocType = 0  // nothing
	R_LANAI3_6_S    COFFRelocType = 1  // 6-bit signed field
	R_LANAI3_10_S   COFFRelocType = 2  // 10-bit signed field
	R_LANAI3_16_S   COFFRelocType = 3  // 16-bit signed field
	R_LANAI3_LO16   COFFRelocType = 4  // low half-word of the value
	R_LANAI3_HI16   COFFRelocType = 5  // high half-word of the value
	R_LANAI3_HI16_S COFFRelocType = 6  // high half-word adjusted for a signed low half
	R_LANAI3_21     COFFRelocType = 7  // 21-bit SLS/SLI address
	R_LANAI3_21_F   COFFRelocType = 8  // 21-bit word address, low two bits kept
	R_LANAI3_25     COFFRelocType = 9  // 25-bit absolute branch target
	R_LANAI3_PC25   COFFRelocType = 10 // 25-bit pc-relative branch
	R_LANAI3_25_S   COFFRelocType = 11 // 25-bit signed field
	R_LANAI3_32     COFFRelocType = 12 // whole word
)

// coffRelocTypes names each COFF type and gives the ELF type that applies
// the same patch (the dst_mask of Myricom's howto table equals the ELF
// type's mask), or ok=false when there is none.
var coffRelocTypes = [...]struct {
	name string
	elf  RelocType
	ok   bool
}{
	R_LANAI3_NONE:   {"R_LANAI3_NONE", R_LANAI_NONE, true},
	R_LANAI3_6_S:    {"R_LANAI3_6_S", 0, false},
	R_LANAI3_10_S:   {"R_LANAI3_10_S", 0, false},
	R_LANAI3_16_S:   {"R_LANAI3_16_S", 0, false},
	R_LANAI3_LO16:   {"R_LANAI3_LO16", R_LANAI_LO16, true},
	R_LANAI3_HI16:   {"R_LANAI3_HI16", R_LANAI_HI16, true},
	R_LANAI3_HI16_S: {"R_LANAI3_HI16_S", 0, false},
	R_LANAI3_21:     {"R_LANAI3_21", R_LANAI_21, true},
	R_LANAI3_21_F:   {"R_LANAI3_21_F", R_LANAI_21_F, true},
	R_LANAI3_25:     {"R_LANAI3_25", R_LANAI_25, true},
	R_LANAI3_PC25:   {"R_LANAI3_PC25", 0, false},
	R_LANAI3_25_S:   {"R_LANAI3_25_S", 0, false},
	R_LANAI3_32:     {"R_LANAI3_32", R_LANAI_32, true},
}

// String returns the type's name, such as "R_LANAI3_25", or
// "R_LANAI3_(n)" for unknown types.
func (t COFFRelocType) String() string {
	if int(t) < len(coffRelocTypes) {
		return coffRelocTypes[t].name
	}
	return fmt.Sprintf("R_LANAI3_(%d)", uint16(t))
}

// ELF returns the ELF relocation type that patches a word as t does, and
// false when no ELF type does (the signed, pc-relative and HI16_S types).
func (t COFFRelocType) ELF() (RelocType, bool) {
	if int(t) < len(coffRelocTypes) && coffRelocTypes[t].ok {
		return coffRelocTypes[t].elf, true
	}
	return 0, false
}

// COFFType returns the LANai COFF relocation type that patches a word as r
// does (the inverse of COFFRelocType.ELF), and false when there is none.
func (r RelocType) COFFType() (COFFRelocType, bool) {
	for t, c := range coffRelocTypes {
		if c.ok && c.elf == r {
			return COFFRelocType(t), true
		}
	}
	return 0, false
}

// COFFLineno is one COFF line-number entry. An entry with Line 0 starts a
// function: Func is that function's symbol; otherwise Addr is the address
// (section offset in relocatable files) of the first instruction of a line
// that lies Line-1 lines after the function's first line, as in all System
// V COFF.
type COFFLineno struct {
	Func *Symbol
	Addr uint32
	Line uint16
}

// ReadCOFF parses a big-endian LANai COFF file (magic 0x1300) as Myricom's
// toolchain writes it: executables such as Cplant's rtsmcp.9, and the
// relocatable objects of lanai-gcc 2.95 (crt0.o, libgcc.a's members).
// docs/coff.md documents the layout and its evidence.
//
// The file header is followed by the optional header and 40-byte section
// headers. A file whose f_flags has F_EXEC (0x2), or that has the 28-byte
// a.out optional header, is an executable (Kind EXEC): each section with contents becomes a SHT_PROGBITS Section at its
// physical address (s_paddr), and Entry comes from the 28-byte a.out
// header (otherwise the start of .text). Any other file is a relocatable
// object (Kind REL): sections have address 0 and symbol values and
// relocation offsets become section offsets. In both, .bss (STYP_BSS, or a
// loadable section without file contents) becomes SHT_NOBITS, and
// STYP_INFO/DSECT/NOLOAD/COPY/PAD/LIB sections become non-allocated ones.
//
// Symbols are 20-byte entries (Myricom pads the usual 18 to a word), each
// followed by its 20-byte aux entries. C_EXT (global), C_WEAKEXT (weak),
// C_STAT and C_LABEL (local) and C_FILE symbols are kept; section symbols
// (C_STAT named like their section) get STT_SECTION; functions (derived
// type DT_FCN) get STT_FUNC; external symbols with section number 0 and a
// non-zero value are common blocks of that size. Debugging symbols are
// skipped. Relocations (16-byte entries whose r_offset is the addend)
// become [Reloc]s of the ELF type that applies the same patch; a type with
// no ELF equivalent, or a relocation against a skipped symbol, is an error.
// Line numbers (6-byte entries) go to Section.COFFLines.
func ReadCOFF(data []byte) (*File, error) {
	f, err := readCOFF(data)
	if err != nil {
		return nil, fmt.Errorf("coff: %w", err)
	}
	return f, nil
}

// coffSection is a section header as read, with its model Section.
type coffSection struct {
	sec             *Section
	name            string
	vaddr           uint32
	relptr, lnnoptr uint32
	nreloc, nlnno   uint32
	text            bool // a loadable text section
	relocatable     bool // in a relocatable object: offsets are from vaddr
}

func readCOFF(data []byte) (*File, error) {
	if len(data) < coffFileHeaderSize {
		return nil, fmt.Errorf("file too short for a COFF header (%d bytes)", len(data))
	}
	if m := be.Uint16(data); m != COFFMagic {
		return nil, fmt.Errorf("magic 0x%04x is not LANai COFF (0x%04x)", m, COFFMagic)
	}
	nscns := uint32(be.Uint16(data[2:]))
	symptr := be.Uint32(data[8:])
	nsyms := be.Uint32(data[12:])
	opthdr := uint32(be.Uint16(data[16:]))
	// An executable says so in its flags; one with an a.out header is
	// taken for one even without the flag (objects have no optional header).
	exec := be.Uint16(data[18:])&fEXEC != 0 || opthdr == coffAoutHeaderSize

	if !inBounds(data, coffFileHeaderSize, uint64(opthdr)) {
		return nil, fmt.Errorf("optional header (%d bytes) extends past the end of the file", opthdr)
	}
	shoff := coffFileHeaderSize + opthdr
	if !inBounds(data, shoff, uint64(nscns)*coffSectHeaderSize) {
		return nil, fmt.Errorf("section headers (%d at 0x%x) extend past the end of the file", nscns, shoff)
	}

	f := &File{Kind: REL, Format: FormatCOFF}
	if exec {
		f.Kind = EXEC
	}
	secs, err := readCOFFSections(f, data, shoff, nscns, exec)
	if err != nil {
		return nil, err
	}
	if exec {
		f.Entry = coffEntry(data, opthdr, secs)
	}

	syms, err := readCOFFSymbols(f, data, symptr, nsyms, secs)
	if err != nil {
		return nil, err
	}
	for i, cs := range secs {
		if err := readCOFFRelocs(data, i, cs, syms); err != nil {
			return nil, err
		}
		if err := readCOFFLines(data, i, cs, syms); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// readCOFFSections reads the section headers and contents into f.
func readCOFFSections(f *File, data []byte, shoff, nscns uint32, exec bool) ([]*coffSection, error) {
	secs := make([]*coffSection, nscns)
	var copied uint64
	for i := uint32(0); i < nscns; i++ {
		h := data[shoff+i*coffSectHeaderSize:]
		name := cString(h[:8])
		paddr, vaddr, size, scnptr := be.Uint32(h[8:]), be.Uint32(h[12:]), be.Uint32(h[16:]), be.Uint32(h[20:])
		flags := be.Uint32(h[36:])
		cs := &coffSection{
			name: name, vaddr: vaddr,
			relptr: be.Uint32(h[24:]), lnnoptr: be.Uint32(h[28:]),
			nreloc: uint32(be.Uint16(h[32:])), nlnno: uint32(be.Uint16(h[34:])),
		}
		addr := paddr
		if !exec {
			addr = 0
		}
		if uint64(addr)+uint64(size) > 1<<32 {
			return nil, fmt.Errorf("section %d (%s): 0x%x bytes at 0x%x wrap around the address space", i+1, name, size, addr)
		}
		s := &Section{Name: name, Addr: addr, Size: size, Align: 4}
		if exec && paddr%4 != 0 {
			s.Align = 1
		}
		noload := flags&(styDSECT|styNOLOAD|styINFO|styCOPY|styPAD|styLIB|styOVER|styGROUP) != 0
		isBSS := flags&styBSS != 0 || (flags&(styTEXT|styDATA) == 0 && (name == ".bss" || strings.HasPrefix(name, ".bss.")))
		isText := flags&styTEXT != 0 || (flags&(styDATA|styBSS) == 0 && (name == ".text" || strings.HasPrefix(name, ".text.")))
		switch {
		case noload:
			s.Type, s.Align = SHT_PROGBITS, 1
		case isBSS:
			s.Type, s.Flags = SHT_NOBITS, SHF_ALLOC|SHF_WRITE
		case isText:
			s.Type, s.Flags = SHT_PROGBITS, SHF_ALLOC|SHF_EXECINSTR
		default:
			s.Type, s.Flags = SHT_PROGBITS, SHF_ALLOC|SHF_WRITE
		}
		switch {
		case s.Type != SHT_PROGBITS:
		case scnptr == 0 && size > 0 && noload:
			// Informational section without contents in the file.
			s.Size, s.Data = 0, []byte{}
		case scnptr == 0 && size > 0:
			// Loadable but no contents in the file: zero-filled.
			s.Type = SHT_NOBITS
		default:
			if !inBounds(data, scnptr, uint64(size)) {
				return nil, fmt.Errorf("section %d (%s): contents (0x%x bytes at 0x%x) extend past the end of the file (0x%x bytes)", i+1, name, size, scnptr, len(data))
			}
			copied += uint64(size)
			if copied > uint64(len(data)) {
				return nil, fmt.Errorf("section %d (%s): section contents overlap", i+1, name)
			}
			s.Data = append([]byte{}, data[scnptr:scnptr+size]...)
		}
		cs.sec, cs.text, cs.relocatable = s, isText && !noload, !exec
		secs[i] = cs
		f.Sections = append(f.Sections, s)
	}
	return secs, nil
}

// coffEntry returns an executable's entry point: the a.out header's entry
// field, or the start of the first loadable text section.
func coffEntry(data []byte, opthdr uint32, secs []*coffSection) uint32 {
	if opthdr == coffAoutHeaderSize {
		return be.Uint32(data[coffFileHeaderSize+16:])
	}
	for _, cs := range secs {
		if cs.text {
			return cs.sec.Addr
		}
	}
	return 0
}

// readCOFFSymbols reads the symbol and string tables into f. It returns the
// model symbol of every raw symbol-table index (nil for aux entries and
// skipped symbols), for the relocations and line numbers.
func readCOFFSymbols(f *File, data []byte, symptr, nsyms uint32, secs []*coffSection) ([]*Symbol, error) {
	if symptr == 0 || nsyms == 0 {
		return nil, nil
	}
	if !inBounds(data, symptr, uint64(nsyms)*coffSymSize) {
		return nil, fmt.Errorf("symbol table (%d entries at 0x%x) extends past the end of the file", nsyms, symptr)
	}
	strOff := uint64(symptr) + uint64(nsyms)*coffSymSize
	var strtab string
	if strOff+4 <= uint64(len(data)) {
		n := uint64(be.Uint32(data[strOff:]))
		if n >= 4 {
			if strOff+n > uint64(len(data)) {
				return nil, fmt.Errorf("string table (0x%x bytes at 0x%x) extends past the end of the file", n, strOff)
			}
			strtab = string(data[strOff : strOff+n])
		}
	}
	byIndex := make([]*Symbol, nsyms)
	for i := uint32(0); i < nsyms; i++ {
		e := data[symptr+i*coffSymSize:]
		numaux := uint32(e[17])
		sclass := e[16]
		scnum := int16(be.Uint16(e[12:]))
		ntype := be.Uint16(e[14:])
		value := be.Uint32(e[8:])
		name, err := coffName(e[:8], strtab)
		if err != nil {
			return nil, fmt.Errorf("symbol %d: %w", i, err)
		}
		if numaux > 0 && uint64(i)+uint64(numaux) >= uint64(nsyms) {
			return nil, fmt.Errorf("symbol %d (%s): %d auxiliary entries run past the symbol table", i, name, numaux)
		}
		index := i
		aux := e[coffSymSize:]
		i += numaux

		s := &Symbol{Name: name, Value: value}
		switch sclass {
		case cEXT:
			s.Bind = STB_GLOBAL
		case cWEAKEXT:
			s.Bind = STB_WEAK
		case cSTAT, cLABEL:
			s.Bind = STB_LOCAL
		case cFILE:
			s.Bind, s.Type, s.Shndx, s.Value = STB_LOCAL, STT_FILE, SHN_ABS, 0
			if numaux > 0 && name == ".file" && (be.Uint32(aux) != 0 || be.Uint32(aux[4:]) != 0) {
				if s.Name, err = coffName(aux[:coffFileNameSize], strtab); err != nil {
					return nil, fmt.Errorf("symbol %d: file name: %w", index, err)
				}
			}
			byIndex[index] = s
			f.Symbols = append(f.Symbols, s)
			continue
		default:
			continue // debugging and other symbols
		}
		switch {
		case scnum > 0:
			if int(scnum) > len(secs) {
				return nil, fmt.Errorf("symbol %d (%s): section number %d out of range (%d sections)", index, name, scnum, len(secs))
			}
			cs := secs[scnum-1]
			s.Section, s.Shndx = cs.sec, uint16(scnum)
			if cs.relocatable {
				s.Value -= cs.vaddr
			}
			if sclass == cSTAT && name == cs.name && value == cs.vaddr {
				s.Type = STT_SECTION
			}
		case scnum == 0:
			if s.Bind == STB_LOCAL {
				continue
			}
			if value != 0 && s.Bind == STB_GLOBAL {
				// Common block of size value.
				s.Shndx, s.Size, s.Value = SHN_COMMON, value, commonAlign(value)
			}
		case scnum == -1:
			s.Shndx = SHN_ABS
		default:
			continue // N_DEBUG and friends
		}
		if s.Type == STT_NOTYPE && (ntype>>4)&3 == dtFCN {
			s.Type = STT_FUNC
		}
		byIndex[index] = s
		f.Symbols = append(f.Symbols, s)
	}
	return byIndex, nil
}

// coffName decodes an 8-byte (or, for file names, 14-byte) name field:
// the name itself, NUL-padded, or four zero bytes and an offset into the
// string table.
func coffName(field []byte, strtab string) (string, error) {
	if be.Uint32(field) != 0 {
		return cString(field), nil
	}
	off := be.Uint32(field[4:])
	if off < 4 || uint64(off) >= uint64(len(strtab)) {
		return "", fmt.Errorf("name offset 0x%x outside the string table (0x%x bytes)", off, len(strtab))
	}
	end := strings.IndexByte(strtab[off:], 0)
	if end < 0 {
		return "", fmt.Errorf("name at string offset 0x%x is not NUL-terminated", off)
	}
	return strtab[off : off+uint32(end)], nil
}

// readCOFFRelocs reads section i's relocation entries into its Relocs.
func readCOFFRelocs(data []byte, i int, cs *coffSection, syms []*Symbol) error {
	if cs.nreloc == 0 {
		return nil
	}
	s := cs.sec
	if !inBounds(data, cs.relptr, uint64(cs.nreloc)*coffRelocSize) {
		return fmt.Errorf("section %d (%s): relocations (%d at 0x%x) extend past the end of the file", i+1, s.Name, cs.nreloc, cs.relptr)
	}
	s.Relocs = make([]Reloc, 0, cs.nreloc)
	for k := uint32(0); k < cs.nreloc; k++ {
		e := data[cs.relptr+k*coffRelocSize:]
		vaddr, symndx, typ, addend := be.Uint32(e), be.Uint32(e[4:]), COFFRelocType(be.Uint16(e[8:])), int32(be.Uint32(e[12:]))
		where := fmt.Sprintf("section %d (%s): relocation %d (%v at 0x%x)", i+1, s.Name, k, typ, vaddr)
		elf, ok := typ.ELF()
		if !ok {
			return fmt.Errorf("%s: type %d has no equivalent in this toolchain", where, uint16(typ))
		}
		off := vaddr - cs.vaddr
		if s.Size < 4 || off > s.Size-4 {
			return fmt.Errorf("%s: offset 0x%x outside the section (0x%x bytes)", where, off, s.Size)
		}
		if uint64(symndx) >= uint64(len(syms)) || syms[symndx] == nil {
			return fmt.Errorf("%s: symbol index %d is not a symbol this reader keeps", where, symndx)
		}
		s.Relocs = append(s.Relocs, Reloc{Offset: off, Type: elf, Sym: syms[symndx], Addend: addend})
	}
	return nil
}

// readCOFFLines reads section i's line-number entries into its COFFLines.
func readCOFFLines(data []byte, i int, cs *coffSection, syms []*Symbol) error {
	if cs.nlnno == 0 {
		return nil
	}
	s := cs.sec
	if !inBounds(data, cs.lnnoptr, uint64(cs.nlnno)*coffLineSize) {
		return fmt.Errorf("section %d (%s): line numbers (%d at 0x%x) extend past the end of the file", i+1, s.Name, cs.nlnno, cs.lnnoptr)
	}
	s.COFFLines = make([]COFFLineno, 0, cs.nlnno)
	for k := uint32(0); k < cs.nlnno; k++ {
		e := data[cs.lnnoptr+k*coffLineSize:]
		l := COFFLineno{Addr: be.Uint32(e), Line: be.Uint16(e[4:])}
		if l.Line == 0 {
			if uint64(l.Addr) >= uint64(len(syms)) || syms[l.Addr] == nil {
				return fmt.Errorf("section %d (%s): line number %d: symbol index %d is not a symbol this reader keeps", i+1, s.Name, k, l.Addr)
			}
			l.Func, l.Addr = syms[l.Addr], 0
		} else if cs.relocatable {
			l.Addr -= cs.vaddr
		}
		s.COFFLines = append(s.COFFLines, l)
	}
	return nil
}

// commonAlign guesses the alignment of a COFF common block from its size:
// the largest power of two not above the size, at most 8.
func commonAlign(size uint32) uint32 {
	a := uint32(1)
	for a < 8 && a*2 <= size {
		a *= 2
	}
	return a
}

// cString returns b up to its first NUL byte.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
