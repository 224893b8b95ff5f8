package objfile

import (
	"fmt"
	"strings"
)

// COFF layout constants (System V COFF as written by Myricom's lanai-gcc).
const (
	// COFFMagic is the f_magic of LANai COFF files.
	COFFMagic = 0x1300

	coffFileHeaderSize = 20
	coffSectHeaderSize = 40
	coffSymSize        = 18
	coffAoutHeaderSize = 28

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
)

// ReadCOFF parses a big-endian LANai COFF executable (magic 0x1300, see the
// package documentation and lanai9-hw.md §9 of the research notes). The file header is
// followed by the optional header and 40-byte section headers; each section
// with contents becomes a SHT_PROGBITS Section at its physical address
// (s_paddr), .bss (STYP_BSS, or a loadable section without file contents)
// becomes SHT_NOBITS, and STYP_INFO/DSECT/NOLOAD/COPY/PAD/LIB sections
// become non-allocated sections. The result has Kind EXEC and Format
// FormatCOFF. Entry comes from the optional header when it is the standard
// 28-byte a.out header (entry at offset 16), otherwise it is the start of
// .text.
//
// The symbol table, if present, is read best effort: C_EXT (global),
// C_WEAKEXT (weak), C_STAT and C_LABEL (local) and C_FILE symbols are
// kept; section symbols (C_STAT named like their section) get STT_SECTION;
// functions (derived type DT_FCN) get STT_FUNC; external symbols with
// section number 0 and a non-zero value are common blocks of that size.
// Debugging symbols and auxiliary entries are skipped. Relocation and
// line-number entries are ignored.
func ReadCOFF(data []byte) (*File, error) {
	f, err := readCOFF(data)
	if err != nil {
		return nil, fmt.Errorf("coff: %w", err)
	}
	return f, nil
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

	if !inBounds(data, coffFileHeaderSize, uint64(opthdr)) {
		return nil, fmt.Errorf("optional header (%d bytes) extends past the end of the file", opthdr)
	}
	shoff := coffFileHeaderSize + opthdr
	if !inBounds(data, shoff, uint64(nscns)*coffSectHeaderSize) {
		return nil, fmt.Errorf("section headers (%d at 0x%x) extend past the end of the file", nscns, shoff)
	}

	f := &File{Kind: EXEC, Format: FormatCOFF}
	secs := make([]*Section, nscns)
	var copied uint64
	var text *Section
	for i := uint32(0); i < nscns; i++ {
		h := data[shoff+i*coffSectHeaderSize:]
		name := cString(h[:8])
		paddr, size, scnptr, flags := be.Uint32(h[8:]), be.Uint32(h[16:]), be.Uint32(h[20:]), be.Uint32(h[36:])
		if uint64(paddr)+uint64(size) > 1<<32 {
			return nil, fmt.Errorf("section %d (%s): 0x%x bytes at 0x%x wrap around the address space", i+1, name, size, paddr)
		}
		s := &Section{Name: name, Addr: paddr, Size: size, Align: 1}
		if paddr%4 == 0 {
			s.Align = 4
		}
		noload := flags&(styDSECT|styNOLOAD|styINFO|styCOPY|styPAD|styLIB|styOVER|styGROUP) != 0
		isBSS := flags&styBSS != 0 || (flags&(styTEXT|styDATA) == 0 && (name == ".bss" || strings.HasPrefix(name, ".bss.")))
		isText := flags&styTEXT != 0 || (flags&(styDATA|styBSS) == 0 && (name == ".text" || strings.HasPrefix(name, ".text.")))
		switch {
		case noload:
			s.Type = SHT_PROGBITS
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
		if isText && text == nil && !noload {
			text = s
		}
		secs[i] = s
		f.Sections = append(f.Sections, s)
	}

	if opthdr == coffAoutHeaderSize {
		f.Entry = be.Uint32(data[coffFileHeaderSize+16:])
	} else if text != nil {
		f.Entry = text.Addr
	}

	if symptr == 0 || nsyms == 0 {
		return f, nil
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
	for i := uint32(0); i < nsyms; i++ {
		e := data[symptr+i*coffSymSize:]
		numaux := uint32(e[17])
		sclass := e[16]
		scnum := int16(be.Uint16(e[12:]))
		ntype := be.Uint16(e[14:])
		value := be.Uint32(e[8:])
		var name string
		if be.Uint32(e) == 0 {
			off := be.Uint32(e[4:])
			if off < 4 || uint64(off) >= uint64(len(strtab)) {
				return nil, fmt.Errorf("symbol %d: name offset 0x%x outside the string table (0x%x bytes)", i, off, len(strtab))
			}
			end := strings.IndexByte(strtab[off:], 0)
			if end < 0 {
				return nil, fmt.Errorf("symbol %d: name at string offset 0x%x is not NUL-terminated", i, off)
			}
			name = strtab[off : off+uint32(end)]
		} else {
			name = cString(e[:8])
		}
		if uint64(i)+uint64(numaux) >= uint64(nsyms) && numaux > 0 {
			return nil, fmt.Errorf("symbol %d (%s): %d auxiliary entries run past the symbol table", i, name, numaux)
		}
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
			if numaux > 0 && name == ".file" {
				s.Name = cString(aux[:coffSymSize])
			}
			f.Symbols = append(f.Symbols, s)
			continue
		default:
			continue // debugging and other symbols
		}
		switch {
		case scnum > 0:
			if int(scnum) > len(secs) {
				return nil, fmt.Errorf("symbol %d (%s): section number %d out of range (%d sections)", i, name, scnum, len(secs))
			}
			s.Section = secs[scnum-1]
			s.Shndx = uint16(scnum)
			if sclass == cSTAT && name == s.Section.Name && value == s.Section.Addr {
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
		f.Symbols = append(f.Symbols, s)
	}
	return f, nil
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
