package objfile

import (
	"fmt"
)

// WriteELF encodes f as an ELF32 big-endian EM_LANAI file: ET_REL for Kind
// REL, ET_EXEC for Kind EXEC.
//
// A relocatable file is laid out as llvm-mc 14 lays out its objects
// (llvm/lib/MC/ELFObjectWriter.cpp, ELFWriter::writeObject), so that an
// object of the same sections and symbols is the same bytes. Its section
// header table holds the null section, .strtab (which names both the
// sections and the symbols; there is no .shstrtab), each section of
// f.Sections followed by its ".rela"+Name section when it has relocations
// (SHT_RELA, entry size 12, sh_link = .symtab, sh_info = target index,
// SHF_INFO_LINK), .llvm_addrsig when f.Addrsig is set, then .symtab. The
// file holds the ELF header, the sections' contents (each at its
// alignment), .symtab, the relocation sections, .llvm_addrsig, .strtab
// (tail-merged as LLVM's StringTableBuilder does) and the section headers.
//
// An executable's header table holds the null section, each section with
// its relocation section, then .symtab, .strtab and .shstrtab, in file
// order, and one PT_LOAD program header per allocated section of non-zero
// size, with p_offset ≡ p_vaddr modulo p_align.
//
// The symbol table lists the null symbol, the local symbols, then the
// global and weak ones (sh_info = index of the first non-local), each
// group in f.Symbols order. Symbols referenced by relocations or by
// f.Addrsig but missing from f.Symbols are appended (use
// [File.SectionSymbol] to relocate against a section).
//
// Sections of type SHT_LLVM_ADDRSIG and SHT_GROUP in f.Sections are
// dropped (their contents refer to symbol and section indices that the
// writer renumbers), and SHF_GROUP is cleared. For sections other than
// SHT_NOBITS the size written is len(Data); a non-zero Size that differs
// is an error. A symbol whose Section is nil must have Shndx SHN_UNDEF,
// SHN_ABS or SHN_COMMON. Sections of type SHT_SYMTAB, SHT_RELA or SHT_REL
// in f.Sections are an error: the writer generates those.
func (f *File) WriteELF() ([]byte, error) {
	b, err := f.writeELF()
	if err != nil {
		return nil, fmt.Errorf("elf: write: %w", err)
	}
	return b, nil
}

// outSection is one section header to be written.
type outSection struct {
	name    string
	hdr     elfShdr
	data    []byte // file contents (nil for NOBITS)
	falign  uint32 // file-offset alignment
	congr   bool   // offset must be congruent to addr modulo falign
	content *Section
}

// elfWriter carries one writeELF call's state from step to step.
type elfWriter struct {
	f *File
	// rel is set for a relocatable file (llvm-mc's layout).
	rel bool
	// kept are the sections written, in order; secIndex gives their
	// header indices; dropped are the ones left out.
	kept     []*Section
	secIndex map[*Section]uint32
	dropped  map[*Section]bool
	// The indices of the generated tables (addrsigIdx 0 when there is
	// none), and the number of headers.
	symtabIdx, strtabIdx, shstrtabIdx, addrsigIdx, shnum uint32
	// The symbol table: order, indices, contents, first non-local; the
	// string table that names the symbols (and, in a relocatable file,
	// the sections).
	order       []*Symbol
	symIndex    map[*Symbol]uint32
	symData     []byte
	strtab      *strtab
	firstGlobal uint32
	// outs are the section headers in index order; placed the same
	// sections in file order; loads the sections that get a PT_LOAD
	// program header.
	outs   []*outSection
	placed []*outSection
	loads  []*outSection
	// The file layout: program and section header offsets, total size.
	phoff, shoff, total uint64
}

// writeELF writes f in steps: choose the sections, order the symbols,
// name them, encode them, build the section headers (with the relocation
// sections), pick the segments, lay the file out, and write the bytes.
func (f *File) writeELF() ([]byte, error) {
	etype, err := elfType(f.Kind)
	if err != nil {
		return nil, err
	}
	w := &elfWriter{f: f, rel: f.Kind == REL}
	if err := w.chooseSections(); err != nil {
		return nil, err
	}
	if err := w.symbolOrder(); err != nil {
		return nil, err
	}
	w.nameStrings()
	if err := w.symbolTable(); err != nil {
		return nil, err
	}
	if err := w.sectionHeaders(); err != nil {
		return nil, err
	}
	w.chooseSegments()
	if err := w.layout(); err != nil {
		return nil, err
	}
	return w.write(etype)
}

// elfType is the e_type of a file kind.
func elfType(k Kind) (uint16, error) {
	switch k {
	case REL:
		return etRel, nil
	case EXEC:
		return etExec, nil
	}
	return 0, fmt.Errorf("unknown file kind %v", k)
}

// chooseSections checks f.Sections, keeps the ones to write and gives
// them header indices (each followed by its relocation section), and
// places the generated tables: .strtab first in a relocatable file,
// .llvm_addrsig and .symtab last; .symtab, .strtab and .shstrtab last in
// an executable.
func (w *elfWriter) chooseSections() error {
	f := w.f
	w.secIndex = map[*Section]uint32{}
	w.dropped = map[*Section]bool{}
	secIndex, dropped := w.secIndex, w.dropped
	idx := uint32(1)
	if w.rel {
		w.strtabIdx, w.shstrtabIdx = idx, idx
		idx++
	}
	for i, s := range f.Sections {
		if s == nil {
			return fmt.Errorf("section %d is nil", i)
		}
		switch s.Type {
		case SHT_LLVM_ADDRSIG, SHT_GROUP:
			dropped[s] = true
			continue
		case SHT_SYMTAB, SHT_RELA, SHT_REL, SHT_SYMTAB_SHNDX, SHT_NULL:
			return fmt.Errorf("section %s: type %d sections are generated by the writer, not written from File.Sections", s.Name, s.Type)
		}
		if s.Align > 1 && s.Align&(s.Align-1) != 0 {
			return fmt.Errorf("section %s: alignment %d is not a power of two", s.Name, s.Align)
		}
		if s.Type != SHT_NOBITS && s.Size != 0 && int64(s.Size) != int64(len(s.Data)) {
			return fmt.Errorf("section %s: Size %d differs from len(Data) %d", s.Name, s.Size, len(s.Data))
		}
		if s.Type != SHT_NOBITS && uint64(len(s.Data)) > 0xffffffff {
			return fmt.Errorf("section %s: contents larger than 4 GiB", s.Name)
		}
		if _, dup := secIndex[s]; dup {
			return fmt.Errorf("section %s appears twice in File.Sections", s.Name)
		}
		w.kept = append(w.kept, s)
		secIndex[s] = idx
		idx++
		if len(s.Relocs) > 0 {
			idx++
		}
	}
	if w.rel {
		if f.Addrsig != nil {
			w.addrsigIdx = idx
			idx++
		}
		w.symtabIdx = idx
		w.shnum = idx + 1
	} else {
		w.symtabIdx = idx
		w.strtabIdx = idx + 1
		w.shstrtabIdx = idx + 2
		w.shnum = idx + 3
	}
	if w.shnum >= shnLoReserve {
		return fmt.Errorf("too many sections (%d)", w.shnum)
	}
	return nil
}

// symbolOrder lists the symbols to write: f.Symbols, then relocation
// targets and address-significant symbols not listed, locals first;
// firstGlobal is the index of the first non-local.
func (w *elfWriter) symbolOrder() error {
	f := w.f
	all := make([]*Symbol, 0, len(f.Symbols))
	seen := map[*Symbol]bool{}
	for i, s := range f.Symbols {
		if s == nil {
			return fmt.Errorf("symbol %d is nil", i)
		}
		if seen[s] {
			return fmt.Errorf("symbol %q appears twice in File.Symbols", s.Name)
		}
		seen[s] = true
		all = append(all, s)
	}
	add := func(s *Symbol) {
		if s != nil && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	for _, sec := range w.kept {
		for _, r := range sec.Relocs {
			add(r.Sym)
		}
	}
	if w.rel && f.Addrsig != nil {
		for i, s := range f.Addrsig.Syms {
			if s == nil {
				return fmt.Errorf("address-significant symbol %d is nil", i)
			}
			add(s)
		}
	}
	order := make([]*Symbol, 0, len(all))
	for _, s := range all {
		if s.Bind == STB_LOCAL {
			order = append(order, s)
		}
	}
	firstGlobal := uint32(len(order)) + 1
	for _, s := range all {
		if s.Bind != STB_LOCAL {
			order = append(order, s)
		}
	}
	w.order, w.firstGlobal = order, firstGlobal
	return nil
}

// nameStrings builds the string table of the symbol names: in a
// relocatable file also of the section names, tail-merged as llvm-mc's
// is; in an executable each name once, in symbol order.
func (w *elfWriter) nameStrings() {
	var names []string
	if w.rel {
		names = append(names, ".strtab")
		for _, s := range w.kept {
			names = append(names, s.Name)
			if len(s.Relocs) > 0 {
				names = append(names, ".rela"+s.Name)
			}
		}
		if w.addrsigIdx != 0 {
			names = append(names, ".llvm_addrsig")
		}
		names = append(names, ".symtab")
	}
	for _, s := range w.order {
		if !w.rel || s.Type != STT_SECTION {
			names = append(names, s.Name)
		}
	}
	if w.rel {
		w.strtab = tailMergedStrtab(names)
	} else {
		w.strtab = appendedStrtab(names)
	}
}

// symbolTable encodes the symbols in order into .symtab. In a
// relocatable file a section's symbol is unnamed, as LLVM writes it.
func (w *elfWriter) symbolTable() error {
	dropped, secIndex, order := w.dropped, w.secIndex, w.order
	w.symIndex = make(map[*Symbol]uint32, len(order))
	symData := make([]byte, elfSymSize, (len(order)+1)*elfSymSize)
	for i, s := range order {
		w.symIndex[s] = uint32(i + 1)
		var shndx uint32
		switch {
		case s.Section != nil:
			if dropped[s.Section] {
				return fmt.Errorf("symbol %q is defined in dropped section %s", s.DisplayName(), s.Section.Name)
			}
			x, ok := secIndex[s.Section]
			if !ok {
				return fmt.Errorf("symbol %q refers to section %s, which is not in File.Sections", s.DisplayName(), s.Section.Name)
			}
			shndx = x
		case s.Shndx == SHN_UNDEF || s.Shndx == SHN_ABS || s.Shndx == SHN_COMMON:
			shndx = uint32(s.Shndx)
		default:
			return fmt.Errorf("symbol %q has no Section but Shndx 0x%x (want SHN_UNDEF, SHN_ABS or SHN_COMMON)", s.DisplayName(), s.Shndx)
		}
		if s.Bind > 15 || s.Type > 15 {
			return fmt.Errorf("symbol %q: binding %d or type %d does not fit in 4 bits", s.DisplayName(), s.Bind, s.Type)
		}
		var name uint32
		if !w.rel || s.Type != STT_SECTION {
			name = w.strtab.offset(s.Name)
		}
		var e [elfSymSize]byte
		be.PutUint32(e[0:], name)
		be.PutUint32(e[4:], s.Value)
		be.PutUint32(e[8:], s.Size)
		e[12] = s.Bind<<4 | s.Type
		e[13] = s.Other
		be.PutUint16(e[14:], uint16(shndx))
		symData = append(symData, e[:]...)
	}
	w.symData = symData
	return nil
}

// sectionHeaders builds the headers in index order: the null section,
// each kept section and its relocation section, and the generated
// tables, and lists them in file order.
func (w *elfWriter) sectionHeaders() error {
	f, secIndex, shnum := w.f, w.secIndex, w.shnum
	outs := make([]*outSection, 0, shnum)
	outs = append(outs, &outSection{}) // null section
	strtab := &outSection{name: ".strtab", hdr: elfShdr{typ: SHT_STRTAB, size: uint32(len(w.strtab.buf)), align: 1}, data: w.strtab.buf, falign: 1}
	if w.rel {
		outs = append(outs, strtab)
	}
	var contents, relas []*outSection
	for _, s := range w.kept {
		o := &outSection{
			name:    s.Name,
			content: s,
			hdr: elfShdr{
				typ: s.Type, flags: s.Flags &^ SHF_GROUP, addr: s.Addr, size: s.Size,
				align: s.Align, entsize: s.EntSize,
			},
			falign: max(s.Align, 1),
		}
		if o.falign > maxFileAlign {
			o.falign = maxFileAlign
		}
		if s.Type != SHT_NOBITS {
			o.data = s.Data
			o.hdr.size = uint32(len(s.Data))
		}
		if f.Kind == EXEC && s.Flags&SHF_ALLOC != 0 {
			o.congr = true
		}
		outs = append(outs, o)
		contents = append(contents, o)
		if len(s.Relocs) == 0 {
			continue
		}
		rd, err := w.relaData(s, o.hdr.size)
		if err != nil {
			return err
		}
		rela := &outSection{
			name: ".rela" + s.Name,
			hdr: elfShdr{
				typ: SHT_RELA, flags: SHF_INFO_LINK, size: uint32(len(rd)), link: w.symtabIdx,
				info: secIndex[s], align: 4, entsize: elfRelaSize,
			},
			data: rd, falign: 4,
		}
		outs = append(outs, rela)
		relas = append(relas, rela)
	}
	symtab := &outSection{name: ".symtab", hdr: elfShdr{typ: SHT_SYMTAB, size: uint32(len(w.symData)), link: w.strtabIdx, info: w.firstGlobal, align: 4, entsize: elfSymSize}, data: w.symData, falign: 4}
	if w.rel {
		var addrsig []*outSection
		if w.addrsigIdx != 0 {
			data := w.addrsigData()
			addrsig = append(addrsig, &outSection{name: ".llvm_addrsig", hdr: elfShdr{typ: SHT_LLVM_ADDRSIG, flags: SHF_EXCLUDE, size: uint32(len(data)), link: w.symtabIdx, align: 1}, data: data, falign: 1})
			outs = append(outs, addrsig...)
		}
		outs = append(outs, symtab)
		// llvm-mc's file order: contents, .symtab, relocations,
		// .llvm_addrsig, .strtab.
		w.placed = append(append(append(append(contents, symtab), relas...), addrsig...), strtab)
		for _, o := range outs[1:] {
			o.hdr.name = w.strtab.offset(o.name)
		}
	} else {
		outs = append(outs, symtab, strtab)
		shstr := &outSection{name: ".shstrtab", hdr: elfShdr{typ: SHT_STRTAB, align: 1}, falign: 1}
		outs = append(outs, shstr)
		names := make([]string, 0, len(outs)-1)
		for _, o := range outs[1:] {
			names = append(names, o.name)
		}
		shstrtab := appendedStrtab(names)
		for _, o := range outs[1:] {
			o.hdr.name = shstrtab.offset(o.name)
		}
		shstr.data = shstrtab.buf
		shstr.hdr.size = uint32(len(shstrtab.buf))
		w.placed = outs[1:]
	}
	if uint32(len(outs)) != shnum {
		return fmt.Errorf("internal error: %d section headers, expected %d", len(outs), shnum)
	}
	w.outs = outs
	return nil
}

// addrsigData encodes f.Addrsig: each symbol's index in ULEB128.
func (w *elfWriter) addrsigData() []byte {
	var b []byte
	for _, s := range w.f.Addrsig.Syms {
		for v := w.symIndex[s]; ; {
			c := byte(v & 0x7f)
			v >>= 7
			if v == 0 {
				b = append(b, c)
				break
			}
			b = append(b, c|0x80)
		}
	}
	return b
}

// relaData encodes a section's relocations (SHT_RELA entries); size is the
// section's size in the file.
func (w *elfWriter) relaData(s *Section, size uint32) ([]byte, error) {
	rd := make([]byte, 0, len(s.Relocs)*elfRelaSize)
	for j, r := range s.Relocs {
		if r.Type > 0xff {
			return nil, fmt.Errorf("section %s relocation %d: type %d does not fit in 8 bits", s.Name, j, uint32(r.Type))
		}
		if r.Type != R_LANAI_NONE && (size < 4 || r.Offset > size-4) {
			return nil, fmt.Errorf("section %s relocation %d (%v): offset 0x%x is outside the section (size 0x%x)", s.Name, j, r.Type, r.Offset, size)
		}
		if s.Type == SHT_NOBITS {
			return nil, fmt.Errorf("section %s: relocations in a SHT_NOBITS section", s.Name)
		}
		var si uint32
		if r.Sym != nil {
			si = w.symIndex[r.Sym]
		}
		var e [elfRelaSize]byte
		be.PutUint32(e[0:], r.Offset)
		be.PutUint32(e[4:], si<<8|uint32(r.Type))
		be.PutUint32(e[8:], uint32(r.Addend))
		rd = append(rd, e[:]...)
	}
	return rd, nil
}

// chooseSegments picks the sections that get a PT_LOAD program header:
// in an executable, the allocated ones of non-zero size.
func (w *elfWriter) chooseSegments() {
	if w.f.Kind != EXEC {
		return
	}
	for _, o := range w.outs {
		if o.congr && o.hdr.size > 0 {
			w.loads = append(w.loads, o)
		}
	}
}

// layout places the header, the program headers, the contents (in file
// order, each at its alignment) and the section headers in the file.
func (w *elfWriter) layout() error {
	loads, shnum := w.loads, w.shnum
	pos := uint64(elfHeaderSize)
	phoff := uint64(0)
	if len(loads) > 0 {
		phoff = pos
		pos += uint64(len(loads)) * elfPhdrSize
	}
	for _, o := range w.placed {
		a := uint64(o.falign)
		if o.congr {
			// Make the offset congruent to the address modulo the alignment.
			want := uint64(o.hdr.addr) % a
			pos += (want - pos%a + a) % a
		} else {
			pos = alignUp64(pos, a)
		}
		o.hdr.off = uint32(pos)
		if o.hdr.typ != SHT_NOBITS {
			pos += uint64(len(o.data))
		}
		if pos > 0xffffffff {
			return fmt.Errorf("output larger than 4 GiB")
		}
	}
	shoff := alignUp64(pos, 4)
	total := shoff + uint64(shnum)*elfShdrSize
	if total > 0xffffffff {
		return fmt.Errorf("output larger than 4 GiB")
	}
	w.phoff, w.shoff, w.total = phoff, shoff, total
	return nil
}

// write encodes the ELF header, the program headers, the contents and the
// section headers.
func (w *elfWriter) write(etype uint16) ([]byte, error) {
	f, loads, outs := w.f, w.loads, w.outs
	phoff, shoff, total, shnum, shstrtabIdx := w.phoff, w.shoff, w.total, w.shnum, w.shstrtabIdx
	out := make([]byte, total)
	copy(out, "\x7fELF")
	out[4] = 1 // ELFCLASS32
	out[5] = 2 // ELFDATA2MSB
	out[6] = 1 // EV_CURRENT
	be.PutUint16(out[16:], etype)
	be.PutUint16(out[18:], EM_LANAI)
	be.PutUint32(out[20:], 1)
	be.PutUint32(out[24:], f.Entry)
	be.PutUint32(out[28:], uint32(phoff))
	be.PutUint32(out[32:], uint32(shoff))
	be.PutUint16(out[40:], elfHeaderSize)
	if len(loads) > 0 {
		be.PutUint16(out[42:], elfPhdrSize)
		be.PutUint16(out[44:], uint16(len(loads)))
	}
	be.PutUint16(out[46:], elfShdrSize)
	be.PutUint16(out[48:], uint16(shnum))
	be.PutUint16(out[50:], uint16(shstrtabIdx))

	if len(loads) > 0xffff {
		return nil, fmt.Errorf("too many segments (%d)", len(loads))
	}
	for i, o := range loads {
		p := out[phoff+uint64(i)*elfPhdrSize:]
		s := o.content
		filesz := uint32(len(s.Data))
		if s.Type == SHT_NOBITS {
			filesz = 0
		}
		flags := uint32(pfR)
		if s.Flags&SHF_WRITE != 0 {
			flags |= pfW
		}
		if s.Flags&SHF_EXECINSTR != 0 {
			flags |= pfX
		}
		be.PutUint32(p[0:], ptLoad)
		be.PutUint32(p[4:], o.hdr.off)
		be.PutUint32(p[8:], s.Addr)
		be.PutUint32(p[12:], s.Addr)
		be.PutUint32(p[16:], filesz)
		be.PutUint32(p[20:], o.hdr.size)
		be.PutUint32(p[24:], flags)
		be.PutUint32(p[28:], o.falign)
	}
	for i, o := range outs {
		if o.hdr.typ != SHT_NOBITS {
			copy(out[o.hdr.off:], o.data)
		}
		h := out[shoff+uint64(i)*elfShdrSize:]
		for k, v := range []uint32{o.hdr.name, o.hdr.typ, o.hdr.flags, o.hdr.addr, o.hdr.off, o.hdr.size, o.hdr.link, o.hdr.info, o.hdr.align, o.hdr.entsize} {
			be.PutUint32(h[4*k:], v)
		}
	}
	return out, nil
}

func alignUp64(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) &^ (a - 1)
}
