package disasm

import (
	"encoding/binary"
	"errors"
	"fmt"

	"lanaiemu/objfile"
)

// object is the view of an input file that the printers work on. It keeps
// what llvm-objdump sees and package objfile folds away: every ELF section
// header in table order (including the null section, the string and symbol
// tables and the .rela sections), the raw relocation sections, and the
// program headers that give section load addresses.
type object struct {
	format   string // "elf32-lanai" or "coff-lanai"
	elf      bool
	rel      bool // relocatable (ELF ET_REL)
	sections []*section
	symbols  []*symbol // symbol table order, without ELF's null symbol
	phdrs    []phdr
}

// section is one section header.
type section struct {
	index       int
	name        string
	typ, flags  uint32
	addr, size  uint32
	data        []byte // contents; nil for SHT_NOBITS or when contentErr is set
	contentErr  error  // why the contents cannot be read
	relocTarget int    // SHT_RELA: index of the relocated section, else -1
	relocs      []*reloc
}

// symbol is one symbol table entry.
type symbol struct {
	name        string
	value, size uint32
	bind, typ   uint8
	other       uint8
	shndx       uint16
	sec         *section // defining section; nil if undefined, absolute or common
}

// reloc is one relocation entry.
type reloc struct {
	offset uint32
	typ    objfile.RelocType
	name   string  // the type's name as the file's format spells it
	sym    *symbol // nil for symbol index 0
	addend int32
}

// phdr is a PT_LOAD program header (the only kind used).
type phdr struct {
	vaddr, paddr, memsz uint32
}

// ELF symbol types and bindings beyond those package objfile names.
const (
	sttCommon    = 5  // STT_COMMON
	sttGNUIFunc  = 10 // STT_GNU_IFUNC
	stbGNUUnique = 10 // STB_GNU_UNIQUE
	ptLoad       = 1  // PT_LOAD
)

func (s *section) isText() bool    { return s.flags&objfile.SHF_EXECINSTR != 0 }
func (s *section) isVirtual() bool { return s.typ == objfile.SHT_NOBITS }
func (s *section) isData() bool {
	return s.typ == objfile.SHT_PROGBITS && s.flags&objfile.SHF_ALLOC != 0 && s.flags&objfile.SHF_EXECINSTR == 0
}
func (s *section) isBSS() bool {
	return s.flags&(objfile.SHF_ALLOC|objfile.SHF_WRITE) != 0 && s.typ == objfile.SHT_NOBITS
}

// contents returns the section's bytes as llvm-objdump's getContents does:
// empty for SHT_NOBITS, an error when they lie outside the file.
func (s *section) contents() ([]byte, error) {
	if s.contentErr != nil {
		return nil, fmt.Errorf("section %d (%s): %w", s.index, s.name, s.contentErr)
	}
	return s.data, nil
}

func (s *symbol) isUndefined() bool { return s.sec == nil && s.shndx == objfile.SHN_UNDEF }
func (s *symbol) isAbsolute() bool  { return s.sec == nil && s.shndx == objfile.SHN_ABS }
func (s *symbol) isCommon() bool {
	return s.typ == sttCommon || (s.sec == nil && s.shndx == objfile.SHN_COMMON)
}

// address is the symbol's address as llvm-objdump computes it
// (SymbolRef::getAddress): 0 for undefined symbols, the size for common
// ones, and in relocatable files the value plus the section address.
func (o *object) address(s *symbol) uint64 {
	switch {
	case s.isUndefined():
		return 0
	case s.isCommon():
		return uint64(s.size)
	case s.sec != nil && o.rel:
		return uint64(s.value) + uint64(s.sec.addr)
	}
	return uint64(s.value)
}

// lma returns the load address of a section: its address translated by the
// PT_LOAD segment containing it, as llvm-objdump's getELFSectionLMA.
func (o *object) lma(s *section) uint64 {
	a := uint64(s.addr)
	for _, p := range o.phdrs {
		if uint64(p.vaddr) <= a && uint64(p.vaddr)+uint64(p.memsz) > a {
			return a - uint64(p.vaddr) + uint64(p.paddr)
		}
	}
	return a
}

var be = binary.BigEndian

// load reads an ELF or COFF file into an object. Package objfile checks the
// file and decodes symbols and relocations; for ELF files the section and
// program header tables are then read again here, because objfile folds
// away sections that llvm-objdump lists.
func load(data []byte) (*object, error) {
	f, err := objfile.Read(data)
	if err != nil {
		return nil, err
	}
	if f.Format == objfile.FormatCOFF {
		return fromCOFF(f), nil
	}
	return fromELF(f, data)
}

// fromCOFF builds the view of a COFF executable or object: its sections
// numbered from 0 in file order, its symbols, and each section's
// relocations (COFF keeps them with the section, so a section is its own
// relocation target here), named as Myricom's tools name them
// (R_LANAI3_25 and so on; docs/coff.md).
func fromCOFF(f *objfile.File) *object {
	o := &object{format: objfile.FormatCOFF, rel: f.Kind == objfile.REL}
	idx := map[*objfile.Section]*section{}
	for i, s := range f.Sections {
		sec := &section{
			index: i, name: s.Name, typ: s.Type, flags: s.Flags, addr: s.Addr,
			size: s.Size, data: s.Data, relocTarget: -1,
		}
		o.sections = append(o.sections, sec)
		idx[s] = sec
	}
	syms := map[*objfile.Symbol]*symbol{}
	for _, s := range f.Symbols {
		sym := &symbol{
			name: s.Name, value: s.Value, size: s.Size, bind: s.Bind, typ: s.Type,
			other: s.Other, shndx: s.Shndx, sec: idx[s.Section],
		}
		o.symbols = append(o.symbols, sym)
		syms[s] = sym
	}
	for i, s := range f.Sections {
		if len(s.Relocs) == 0 {
			continue
		}
		sec := o.sections[i]
		sec.relocTarget = i
		for _, r := range s.Relocs {
			name := relocTypeName(r.Type)
			if t, ok := r.Type.COFFType(); ok {
				name = t.String() // Myricom's name, as in the file
			}
			sec.relocs = append(sec.relocs, &reloc{offset: r.Offset, typ: r.Type, name: name, sym: syms[r.Sym], addend: r.Addend})
		}
	}
	return o
}

// errInternal reports a disagreement between objfile's model and the raw
// section table; it would be a bug in one of the two readers.
var errInternal = errors.New("internal error: object model and section table disagree")

// fromELF builds the view of an ELF file that objfile.Read accepted as f.
func fromELF(f *objfile.File, data []byte) (*object, error) {
	o := &object{format: objfile.FormatELF, elf: true, rel: f.Kind == objfile.REL}
	if len(data) < 52 {
		return nil, errInternal
	}
	phoff, shoff := be.Uint32(data[28:]), be.Uint32(data[32:])
	phentsize, phnum := uint64(be.Uint16(data[42:])), uint64(be.Uint16(data[44:]))
	shnum, shstrndx := uint64(be.Uint16(data[48:])), uint32(be.Uint16(data[50:]))

	// Program headers: only used for load addresses; a malformed table is
	// ignored rather than fatal.
	if phoff != 0 && phentsize >= 32 && uint64(phoff)+phnum*phentsize <= uint64(len(data)) {
		for i := uint64(0); i < phnum; i++ {
			p := data[uint64(phoff)+i*phentsize:]
			if be.Uint32(p) == ptLoad {
				o.phdrs = append(o.phdrs, phdr{vaddr: be.Uint32(p[8:]), paddr: be.Uint32(p[12:]), memsz: be.Uint32(p[20:])})
			}
		}
	}
	if shoff == 0 {
		// No section headers: llvm-objdump shows no sections (objfile's
		// segment-derived sections are not part of the file).
		o.symbols = nil
		return o, nil
	}

	// Section headers (objfile has checked the table's bounds and names).
	if uint64(shoff)+40 > uint64(len(data)) {
		return nil, errInternal
	}
	if shnum == 0 {
		shnum = uint64(be.Uint32(data[shoff+20:]))
	}
	if shstrndx == objfile.SHN_XINDEX {
		shstrndx = be.Uint32(data[shoff+24:])
	}
	if uint64(shoff)+shnum*40 > uint64(len(data)) {
		return nil, errInternal
	}
	type raw struct{ name, typ, flags, addr, off, size, link, info uint32 }
	hdrs := make([]raw, shnum)
	for i := range hdrs {
		h := data[uint64(shoff)+uint64(i)*40:]
		hdrs[i] = raw{be.Uint32(h), be.Uint32(h[4:]), be.Uint32(h[8:]), be.Uint32(h[12:]),
			be.Uint32(h[16:]), be.Uint32(h[20:]), be.Uint32(h[24:]), be.Uint32(h[28:])}
	}
	var shstr []byte
	if shstrndx != 0 && uint64(shstrndx) < shnum {
		h := hdrs[shstrndx]
		if uint64(h.off)+uint64(h.size) <= uint64(len(data)) {
			shstr = data[h.off : h.off+h.size]
		}
	}
	symtab := uint32(0)
	for i := range hdrs {
		if i > 0 && hdrs[i].typ == objfile.SHT_SYMTAB {
			symtab = uint32(i)
			break
		}
	}
	strtab := uint32(0)
	if symtab != 0 {
		strtab = hdrs[symtab].link
	}

	// Pair objfile's content sections with their headers, skipping the
	// same sections objfile's reader drops.
	next := 0
	content := map[int]*objfile.Section{}
	for i := range hdrs {
		h := hdrs[i]
		name := ""
		if i > 0 {
			name = cstring(shstr, h.name)
		}
		s := &section{index: i, name: name, typ: h.typ, flags: h.flags, addr: h.addr, size: h.size, relocTarget: -1}
		if h.typ != objfile.SHT_NOBITS {
			if uint64(h.off)+uint64(h.size) <= uint64(len(data)) {
				s.data = data[h.off : h.off+h.size]
			} else {
				s.contentErr = fmt.Errorf("contents (0x%x bytes at offset 0x%x) extend past the end of the file (0x%x bytes)", h.size, h.off, len(data))
			}
		}
		o.sections = append(o.sections, s)
		skip := i == 0 || uint32(i) == symtab || uint32(i) == strtab || uint32(i) == shstrndx
		switch h.typ {
		case objfile.SHT_RELA:
			s.relocTarget = int(h.info)
			skip = true
		case objfile.SHT_NULL, objfile.SHT_GROUP, objfile.SHT_SYMTAB_SHNDX:
			skip = true
		}
		if skip {
			continue
		}
		if next >= len(f.Sections) || f.Sections[next].Name != name || f.Sections[next].Size != h.size {
			return nil, errInternal
		}
		content[i] = f.Sections[next]
		next++
	}
	if next != len(f.Sections) {
		return nil, errInternal
	}

	// Symbols, in table order; objfile's Shndx is the raw section index.
	symOf := map[*objfile.Symbol]*symbol{}
	for _, s := range f.Symbols {
		sym := &symbol{name: s.Name, value: s.Value, size: s.Size, bind: s.Bind, typ: s.Type, other: s.Other, shndx: s.Shndx}
		if s.Section != nil {
			if int(s.Shndx) >= len(o.sections) || content[int(s.Shndx)] != s.Section {
				return nil, errInternal
			}
			sym.sec = o.sections[s.Shndx]
		}
		o.symbols = append(o.symbols, sym)
		symOf[s] = sym
	}

	// Relocations: objfile appends the entries of each .rela section, in
	// section order, to its target's Relocs.
	used := map[int]int{}
	for _, s := range o.sections {
		if s.relocTarget < 0 {
			continue
		}
		n := int(s.size / 12)
		t := content[s.relocTarget]
		if t == nil || used[s.relocTarget]+n > len(t.Relocs) {
			return nil, errInternal
		}
		for _, r := range t.Relocs[used[s.relocTarget] : used[s.relocTarget]+n] {
			rr := &reloc{offset: r.Offset, typ: r.Type, name: relocTypeName(r.Type), addend: r.Addend}
			if r.Sym != nil {
				rr.sym = symOf[r.Sym]
				if rr.sym == nil {
					return nil, errInternal
				}
			}
			s.relocs = append(s.relocs, rr)
		}
		used[s.relocTarget] += n
	}
	return o, nil
}

// cstring returns the NUL-terminated string at off in tab ("" if off is out
// of range).
func cstring(tab []byte, off uint32) string {
	if uint64(off) >= uint64(len(tab)) {
		return ""
	}
	b := tab[off:]
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
