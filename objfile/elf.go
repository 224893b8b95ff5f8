package objfile

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// ELF32 structure sizes and header constants.
const (
	elfHeaderSize = 52
	elfShdrSize   = 40
	elfPhdrSize   = 32
	elfSymSize    = 16
	elfRelaSize   = 12

	etRel  = 1
	etExec = 2

	ptLoad = 1
	pfX    = 1
	pfW    = 2
	pfR    = 4

	shnLoReserve = 0xff00

	// maxFileAlign caps the file-offset alignment the writer honours, so a
	// section with a huge sh_addralign cannot blow up the output size.
	maxFileAlign = 4096
)

var be = binary.BigEndian

// elfShdr is a raw ELF32 section header.
type elfShdr struct {
	name, typ, flags, addr, off, size, link, info, align, entsize uint32
}

// ReadELF parses an ELF32 big-endian EM_LANAI relocatable object (ET_REL)
// or executable (ET_EXEC). Relocation sections (SHT_RELA) become the Relocs
// of their target sections; .symtab becomes Symbols; string tables and
// section groups are dropped (SHF_GROUP is cleared); every other section,
// including unknown ones such as .comment, .note.GNU-stack and
// .llvm_addrsig, is kept as a Section. An executable without section
// headers gets one section per PT_LOAD segment ("load0", "load1", ...; a
// segment whose memory size exceeds its file size also gets a NOBITS
// section "load0.bss" for the rest). SHT_REL relocations and extended
// symbol section indices (SHN_XINDEX) are not supported.
func ReadELF(data []byte) (*File, error) {
	f, err := readELF(data)
	if err != nil {
		return nil, fmt.Errorf("elf: %w", err)
	}
	return f, nil
}

func readELF(data []byte) (*File, error) {
	if len(data) < elfHeaderSize {
		return nil, fmt.Errorf("file too short for an ELF header (%d bytes)", len(data))
	}
	if string(data[:4]) != "\x7fELF" {
		return nil, fmt.Errorf("bad magic % x", data[:4])
	}
	if data[4] != 1 {
		return nil, fmt.Errorf("not a 32-bit ELF file (class %d)", data[4])
	}
	if data[5] != 2 {
		return nil, fmt.Errorf("not a big-endian ELF file (data encoding %d)", data[5])
	}
	if data[6] != 1 {
		return nil, fmt.Errorf("unknown ELF version %d", data[6])
	}
	f := &File{Format: FormatELF}
	switch t := be.Uint16(data[16:]); t {
	case etRel:
		f.Kind = REL
	case etExec:
		f.Kind = EXEC
	default:
		return nil, fmt.Errorf("unsupported ELF file type %d (want ET_REL or ET_EXEC)", t)
	}
	if m := be.Uint16(data[18:]); m != EM_LANAI {
		return nil, fmt.Errorf("machine %d is not EM_LANAI (%d)", m, EM_LANAI)
	}
	f.Entry = be.Uint32(data[24:])
	phoff := be.Uint32(data[28:])
	shoff := be.Uint32(data[32:])
	phentsize := be.Uint16(data[42:])
	phnum := uint32(be.Uint16(data[44:]))
	shentsize := be.Uint16(data[46:])
	shnum := uint32(be.Uint16(data[48:]))
	shstrndx := uint32(be.Uint16(data[50:]))

	if shoff == 0 {
		if shnum != 0 {
			return nil, fmt.Errorf("%d section headers at offset 0", shnum)
		}
		if f.Kind == EXEC && phnum > 0 {
			if err := readSegments(f, data, phoff, phentsize, phnum); err != nil {
				return nil, err
			}
		}
		return f, nil
	}
	if shentsize != elfShdrSize {
		return nil, fmt.Errorf("section header size %d, want %d", shentsize, elfShdrSize)
	}
	if !inBounds(data, shoff, elfShdrSize) {
		return nil, fmt.Errorf("section header table offset 0x%x is outside the file", shoff)
	}
	// Extended numbering: the real counts live in section header 0.
	sh0 := parseShdr(data[shoff:])
	if shnum == 0 {
		shnum = sh0.size
	}
	if shstrndx == SHN_XINDEX {
		shstrndx = sh0.link
	}
	if uint64(shnum)*elfShdrSize > uint64(len(data)) || !inBounds(data, shoff, uint64(shnum)*elfShdrSize) {
		return nil, fmt.Errorf("section header table (%d entries at 0x%x) extends past the end of the file", shnum, shoff)
	}
	shdrs := make([]elfShdr, shnum)
	for i := range shdrs {
		shdrs[i] = parseShdr(data[shoff+uint32(i)*elfShdrSize:])
	}

	// Section names.
	var shstr string
	if shstrndx != 0 {
		if shstrndx >= shnum {
			return nil, fmt.Errorf("section name table index %d out of range (%d sections)", shstrndx, shnum)
		}
		b, err := sectionBytes(data, &shdrs[shstrndx])
		if err != nil {
			return nil, fmt.Errorf("section name table: %w", err)
		}
		shstr = string(b)
	}
	names := make([]string, shnum)
	for i := 1; i < int(shnum); i++ {
		n, err := strAt(shstr, shdrs[i].name)
		if err != nil {
			return nil, fmt.Errorf("section %d name: %w", i, err)
		}
		names[i] = n
	}

	// Locate the symbol table and its string table.
	symtab := uint32(0)
	for i := uint32(1); i < shnum; i++ {
		switch shdrs[i].typ {
		case SHT_SYMTAB:
			if symtab != 0 {
				return nil, fmt.Errorf("more than one symbol table (sections %d and %d)", symtab, i)
			}
			symtab = i
		case SHT_REL:
			return nil, fmt.Errorf("section %d (%s): SHT_REL relocations are not supported (Lanai uses SHT_RELA)", i, names[i])
		}
	}
	strtab := uint32(0)
	if symtab != 0 {
		strtab = shdrs[symtab].link
		if strtab == 0 || strtab >= shnum || shdrs[strtab].typ != SHT_STRTAB {
			return nil, fmt.Errorf("symbol table's string table index %d is not a string table", strtab)
		}
	}

	// Content sections.
	secs := make([]*Section, shnum) // by index; nil for dropped ones
	var copied uint64
	for i := uint32(1); i < shnum; i++ {
		h := &shdrs[i]
		switch {
		case i == symtab || i == strtab || i == shstrndx:
			continue
		case h.typ == SHT_RELA || h.typ == SHT_NULL || h.typ == SHT_GROUP || h.typ == SHT_SYMTAB_SHNDX:
			continue
		}
		if h.align > 1 && h.align&(h.align-1) != 0 {
			return nil, fmt.Errorf("section %d (%s): alignment %d is not a power of two", i, names[i], h.align)
		}
		s := &Section{
			Name: names[i], Type: h.typ, Flags: h.flags &^ SHF_GROUP, Addr: h.addr,
			Align: h.align, EntSize: h.entsize, Size: h.size,
		}
		if h.typ != SHT_NOBITS {
			b, err := sectionBytes(data, h)
			if err != nil {
				return nil, fmt.Errorf("section %d (%s): %w", i, names[i], err)
			}
			copied += uint64(len(b))
			if copied > uint64(len(data)) {
				return nil, fmt.Errorf("section %d (%s): section contents overlap", i, names[i])
			}
			s.Data = append([]byte{}, b...)
		}
		secs[i] = s
		f.Sections = append(f.Sections, s)
	}

	// Symbols.
	var syms []*Symbol // by index; syms[0] is nil (the null symbol)
	if symtab != 0 {
		h := &shdrs[symtab]
		if h.entsize != elfSymSize {
			return nil, fmt.Errorf("symbol table entry size %d, want %d", h.entsize, elfSymSize)
		}
		if h.size%elfSymSize != 0 {
			return nil, fmt.Errorf("symbol table size %d is not a multiple of %d", h.size, elfSymSize)
		}
		b, err := sectionBytes(data, h)
		if err != nil {
			return nil, fmt.Errorf("symbol table: %w", err)
		}
		sb, err := sectionBytes(data, &shdrs[strtab])
		if err != nil {
			return nil, fmt.Errorf("string table: %w", err)
		}
		str := string(sb)
		n := len(b) / elfSymSize
		syms = make([]*Symbol, n)
		if n > 0 {
			f.Symbols = make([]*Symbol, 0, n-1)
		}
		for i := 1; i < n; i++ {
			e := b[i*elfSymSize:]
			name, err := strAt(str, be.Uint32(e))
			if err != nil {
				return nil, fmt.Errorf("symbol %d name: %w", i, err)
			}
			s := &Symbol{
				Name: name, Value: be.Uint32(e[4:]), Size: be.Uint32(e[8:]),
				Bind: e[12] >> 4, Type: e[12] & 0xf, Other: e[13], Shndx: be.Uint16(e[14:]),
			}
			switch x := uint32(s.Shndx); {
			case x == SHN_UNDEF || x == SHN_ABS || x == SHN_COMMON:
			case x == SHN_XINDEX:
				return nil, fmt.Errorf("symbol %d (%s): extended section indices (SHN_XINDEX) are not supported", i, name)
			case x >= shnLoReserve:
				return nil, fmt.Errorf("symbol %d (%s): unsupported special section index 0x%x", i, name, x)
			case x >= shnum || secs[x] == nil:
				return nil, fmt.Errorf("symbol %d (%s): section index %d is not a content section", i, name, x)
			default:
				s.Section = secs[x]
			}
			syms[i] = s
			f.Symbols = append(f.Symbols, s)
		}
	}

	// Relocations.
	for i := uint32(1); i < shnum; i++ {
		h := &shdrs[i]
		if h.typ != SHT_RELA {
			continue
		}
		if h.entsize != elfRelaSize {
			return nil, fmt.Errorf("relocation section %d (%s): entry size %d, want %d", i, names[i], h.entsize, elfRelaSize)
		}
		if h.size%elfRelaSize != 0 {
			return nil, fmt.Errorf("relocation section %d (%s): size %d is not a multiple of %d", i, names[i], h.size, elfRelaSize)
		}
		if h.info == 0 || h.info >= shnum || secs[h.info] == nil {
			return nil, fmt.Errorf("relocation section %d (%s): target section index %d is not a content section", i, names[i], h.info)
		}
		target := secs[h.info]
		if target.Type == SHT_NOBITS {
			return nil, fmt.Errorf("relocation section %d (%s): target section %s has no contents (SHT_NOBITS)", i, names[i], target.Name)
		}
		b, err := sectionBytes(data, h)
		if err != nil {
			return nil, fmt.Errorf("relocation section %d (%s): %w", i, names[i], err)
		}
		n := len(b) / elfRelaSize
		if n > 0 && (symtab == 0 || h.link != symtab) {
			// LLVM always links .rela sections to the one .symtab.
			return nil, fmt.Errorf("relocation section %d (%s): link %d is not the symbol table", i, names[i], h.link)
		}
		relocs := make([]Reloc, 0, n)
		for j := 0; j < n; j++ {
			e := b[j*elfRelaSize:]
			info := be.Uint32(e[4:])
			r := Reloc{Offset: be.Uint32(e), Type: RelocType(info & 0xff), Addend: int32(be.Uint32(e[8:]))}
			if si := info >> 8; si != 0 {
				if si >= uint32(len(syms)) {
					return nil, fmt.Errorf("relocation section %d (%s) entry %d: symbol index %d out of range (%d symbols)", i, names[i], j, si, len(syms))
				}
				r.Sym = syms[si]
			}
			if r.Type != R_LANAI_NONE && (target.Size < 4 || r.Offset > target.Size-4) {
				return nil, fmt.Errorf("relocation section %d (%s) entry %d: offset 0x%x is outside section %s (size 0x%x)", i, names[i], j, r.Offset, target.Name, target.Size)
			}
			relocs = append(relocs, r)
		}
		target.Relocs = append(target.Relocs, relocs...)
	}
	return f, nil
}

// readSegments builds sections from the PT_LOAD program headers of an
// executable that has no section headers.
func readSegments(f *File, data []byte, phoff uint32, phentsize uint16, phnum uint32) error {
	if phentsize != elfPhdrSize {
		return fmt.Errorf("program header size %d, want %d", phentsize, elfPhdrSize)
	}
	if !inBounds(data, phoff, uint64(phnum)*elfPhdrSize) {
		return fmt.Errorf("program header table (%d entries at 0x%x) extends past the end of the file", phnum, phoff)
	}
	var copied uint64
	for i := uint32(0); i < phnum; i++ {
		p := data[phoff+i*elfPhdrSize:]
		if be.Uint32(p) != ptLoad {
			continue
		}
		off, vaddr, filesz, memsz, flags, align := be.Uint32(p[4:]), be.Uint32(p[8:]), be.Uint32(p[16:]), be.Uint32(p[20:]), be.Uint32(p[24:]), be.Uint32(p[28:])
		if filesz > memsz {
			return fmt.Errorf("segment %d: file size 0x%x exceeds memory size 0x%x", i, filesz, memsz)
		}
		if !inBounds(data, off, uint64(filesz)) {
			return fmt.Errorf("segment %d: contents (0x%x bytes at 0x%x) extend past the end of the file", i, filesz, off)
		}
		if uint64(vaddr)+uint64(memsz) > 1<<32 {
			return fmt.Errorf("segment %d: 0x%x bytes at 0x%x wrap around the address space", i, memsz, vaddr)
		}
		if align > 1 && align&(align-1) != 0 {
			align = 1
		}
		copied += uint64(filesz)
		if copied > uint64(len(data)) {
			return fmt.Errorf("segment %d: segment contents overlap", i)
		}
		sf := uint32(SHF_ALLOC)
		if flags&pfW != 0 {
			sf |= SHF_WRITE
		}
		if flags&pfX != 0 {
			sf |= SHF_EXECINSTR
		}
		name := fmt.Sprintf("load%d", i)
		if filesz > 0 || memsz == 0 {
			f.Sections = append(f.Sections, &Section{
				Name: name, Type: SHT_PROGBITS, Flags: sf, Addr: vaddr, Align: align,
				Data: append([]byte{}, data[off:off+filesz]...), Size: filesz,
			})
		}
		if memsz > filesz {
			f.Sections = append(f.Sections, &Section{
				Name: name + ".bss", Type: SHT_NOBITS, Flags: sf, Addr: vaddr + filesz, Align: 1, Size: memsz - filesz,
			})
		}
	}
	return nil
}

func parseShdr(b []byte) elfShdr {
	return elfShdr{
		name: be.Uint32(b), typ: be.Uint32(b[4:]), flags: be.Uint32(b[8:]), addr: be.Uint32(b[12:]),
		off: be.Uint32(b[16:]), size: be.Uint32(b[20:]), link: be.Uint32(b[24:]), info: be.Uint32(b[28:]),
		align: be.Uint32(b[32:]), entsize: be.Uint32(b[36:]),
	}
}

// inBounds reports whether [off, off+n) lies inside data.
func inBounds(data []byte, off uint32, n uint64) bool {
	return uint64(off)+n <= uint64(len(data))
}

// sectionBytes returns the file bytes of a section (empty for NOBITS),
// checking that they lie inside the file.
func sectionBytes(data []byte, h *elfShdr) ([]byte, error) {
	if h.typ == SHT_NOBITS {
		return nil, nil
	}
	if !inBounds(data, h.off, uint64(h.size)) {
		return nil, fmt.Errorf("contents (0x%x bytes at offset 0x%x) extend past the end of the file (0x%x bytes)", h.size, h.off, len(data))
	}
	return data[h.off : h.off+h.size], nil
}

// strAt returns the NUL-terminated string at off in a string table. The
// result shares memory with tab, so many symbols naming overlapping strings
// cost no extra memory.
func strAt(tab string, off uint32) (string, error) {
	if off == 0 && len(tab) == 0 {
		return "", nil
	}
	if uint64(off) >= uint64(len(tab)) {
		return "", fmt.Errorf("string offset 0x%x outside the string table (0x%x bytes)", off, len(tab))
	}
	end := strings.IndexByte(tab[off:], 0)
	if end < 0 {
		return "", fmt.Errorf("string at offset 0x%x is not NUL-terminated", off)
	}
	return tab[off : off+uint32(end)], nil
}
