package asm

import (
	"fmt"
	"sort"
	"strings"

	"lanaiemu/objfile"
)

// object builds the relocatable object from the assembled sections.
func (a *assembler) object() (*objfile.File, error) {
	f := &objfile.File{Kind: objfile.REL, Format: objfile.FormatELF}
	out := map[*section]*objfile.Section{}
	a.outSects = out
	for _, s := range a.sects {
		os := &objfile.Section{Name: s.name, Type: s.typ, Flags: s.flags, Align: s.align, EntSize: s.entsize}
		if s.nobits() {
			os.Size = s.size
		} else {
			os.Data = s.data
			if os.Data == nil {
				os.Data = []byte{}
			}
			os.Size = uint32(len(s.data))
		}
		out[s] = os
		f.Sections = append(f.Sections, os)
	}
	// A section's name used as a symbol (clang -g: ".long .debug_abbrev")
	// is the section's symbol.
	for _, s := range a.sects {
		for i := range s.relocs {
			r := &s.relocs[i]
			if r.sect == nil && r.sym != nil && !r.sym.defined && !r.sym.common && !r.sym.bindSet && a.sectByN[r.sym.name] != nil {
				r.sym.inReloc, r.sym.sectionName = false, true
				r.sect, r.sym = a.sectByN[r.sym.name], nil
			}
		}
	}
	// An address-significant ".L" label stands for its section, as in
	// llvm-mc (ELFObjectWriter::executePostLayoutBinding); every other
	// address-significant symbol goes into the symbol table.
	sectUsed := map[*section]bool{}
	for _, s := range a.sects {
		for _, r := range s.relocs {
			if r.sect != nil {
				sectUsed[r.sect] = true
			}
		}
	}
	type addrsigEntry struct {
		sym  *symbol
		sect *section
	}
	var addrsig []addrsigEntry
	for _, s := range a.addrsigSyms {
		if s.defined && s.sect != nil && strings.HasPrefix(s.name, ".L") {
			sectUsed[s.sect] = true
			addrsig = append(addrsig, addrsigEntry{sect: s.sect})
			continue
		}
		s.inReloc = true
		addrsig = append(addrsig, addrsigEntry{sym: s})
	}
	var errs ErrorList
	// The symbols in llvm-mc's order (ELFWriter::computeSymbolTable): as
	// registered, a section's symbol (when a relocation needs it) where
	// the section was first entered; each .file's STT_FILE symbol before
	// the symbols registered after it (the first before all).
	seq := 0 // symbols and sections registered so far
	nextFile := 0
	addFiles := func(upTo int) {
		for ; nextFile < len(a.files); nextFile++ {
			fs := a.files[nextFile]
			if nextFile > 0 && fs.symPos+fs.sectPos > upTo {
				return
			}
			f.Symbols = append(f.Symbols, &objfile.Symbol{Name: fs.name, Type: objfile.STT_FILE, Bind: objfile.STB_LOCAL, Shndx: objfile.SHN_ABS})
		}
	}
	sectSyms := map[*section]*objfile.Symbol{}
	nextSect := 0
	addSectionSymbols := func(upTo int) {
		for ; nextSect < len(a.sects) && a.sects[nextSect].symPos <= upTo; nextSect++ {
			addFiles(seq)
			seq++
			if s := a.sects[nextSect]; sectUsed[s] {
				sectSyms[s] = &objfile.Symbol{Type: objfile.STT_SECTION, Bind: objfile.STB_LOCAL, Section: out[s]}
				f.Symbols = append(f.Symbols, sectSyms[s])
			}
		}
	}
	syms := map[*symbol]*objfile.Symbol{}
	for i, s := range a.symOrder {
		addSectionSymbols(i)
		addFiles(seq)
		seq++
		if !a.keepSymbol(s) {
			continue
		}
		o := &objfile.Symbol{Name: s.objName, Bind: s.bind, Type: s.typ, Other: s.visibility}
		switch {
		case s.common:
			o.Shndx, o.Value, o.Size = objfile.SHN_COMMON, s.calign, s.csize
		case s.isAbs:
			o.Shndx, o.Value = objfile.SHN_ABS, uint32(s.absVal)
		case s.defined && s.sect != nil:
			o.Section, o.Value = out[s.sect], s.off
		case s.equ != nil:
			v, err := a.eval(s.equ)
			if err != nil || v.variant != eNum {
				errs = append(errs, &Error{Pos: s.defPos, Msg: fmt.Sprintf("cannot give symbol %s a value: %v", s.name, err)})
				continue
			}
			if v.sym != nil && !v.sym.defined {
				// An alias of an undefined symbol: relocations already
				// name the target; keep the alias out of the table.
				continue
			}
		default:
			o.Shndx = objfile.SHN_UNDEF
			if !s.bindSet {
				o.Bind = objfile.STB_GLOBAL
			}
		}
		size := s.size
		if b := s.base; b != nil {
			// As llvm-mc (ELFWriter::writeSymbol): a symbol .set to a
			// label takes the label's type where its own is weaker and,
			// unless it has a size, the size of the first symbol with
			// one along a chain of ".set s, t", else the label's.
			o.Type = mergeSetType(s.typ, b.typ)
			if size == nil {
				size = b.size
				for t := s.setTo; t != nil; t = t.setTo {
					if t.size != nil {
						size = t.size
						break
					}
				}
			}
		}
		if size != nil {
			v, err := a.eval(size)
			if err != nil || !v.isConst() {
				errs = append(errs, &Error{Pos: size.pos, Msg: fmt.Sprintf(".size of %s must be a constant", s.name)})
			} else {
				o.Size = uint32(v.off)
			}
		}
		syms[s] = o
		f.Symbols = append(f.Symbols, o)
	}
	addSectionSymbols(len(a.symOrder))
	addFiles(len(a.symOrder) + len(a.sects))
	for _, s := range a.sects {
		os := out[s]
		for _, r := range s.relocs {
			or := objfile.Reloc{Offset: r.off, Type: r.typ, Addend: int32(r.addend)}
			if r.sect != nil {
				or.Sym = sectSyms[r.sect]
			} else {
				or.Sym = syms[r.sym]
			}
			if or.Sym == nil {
				return nil, fmt.Errorf("internal error: relocation against dropped symbol %s", r.sym.name)
			}
			os.Relocs = append(os.Relocs, or)
		}
		sort.SliceStable(os.Relocs, func(i, j int) bool { return os.Relocs[i].Offset < os.Relocs[j].Offset })
	}
	if a.addrsig {
		f.Addrsig = &objfile.Addrsig{}
		for _, e := range addrsig {
			if e.sect != nil {
				f.Addrsig.Syms = append(f.Addrsig.Syms, sectSyms[e.sect])
			} else if o := syms[e.sym]; o != nil {
				f.Addrsig.Syms = append(f.Addrsig.Syms, o)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return f, nil
}

// mergeSetType is the type of a symbol .set to a label of type base, its
// own type being own: the label's, unless own is stronger (LLVM's
// mergeTypeForSet: a function stays a function, an object stays an
// object over no type, thread-local data stays thread-local).
func mergeSetType(own, base uint8) uint8 {
	switch {
	case own == objfile.STT_FUNC && (base == objfile.STT_OBJECT || base == objfile.STT_NOTYPE || base == objfile.STT_TLS),
		own == objfile.STT_OBJECT && base == objfile.STT_NOTYPE,
		own == objfile.STT_TLS && (base == objfile.STT_OBJECT || base == objfile.STT_NOTYPE || base == objfile.STT_FUNC):
		return own
	}
	return base
}

// keepSymbol decides whether a registered symbol goes into the object's
// symbol table, as LLVM does (ELFWriter::isInSymtab): assembler-local (.L
// and temporary) symbols only when a relocation names them, every other
// one (undefined ones too); a section's name used as a symbol is the
// section's symbol.
func (a *assembler) keepSymbol(s *symbol) bool {
	switch {
	case s.sectionName:
		return false
	case s.inReloc:
		return true
	case s.temp || strings.HasPrefix(s.name, ".L"):
		return false
	}
	return true
}

// Listing returns the assembly listing: for every statement that produced
// bytes, its source position, section and offset, the bytes and the line.
func (r *Result) Listing() []byte {
	var b strings.Builder
	for _, e := range r.listing {
		data := e.sect.data
		var bytes []byte
		if !e.sect.nobits() && int(e.off+e.n) <= len(data) {
			bytes = data[e.off : e.off+e.n]
		}
		for k := uint32(0); k == 0 || k < uint32(len(bytes)); k += 8 {
			var hexs strings.Builder
			for i := k; i < k+8 && int(i) < len(bytes); i++ {
				fmt.Fprintf(&hexs, "%02x", bytes[i])
			}
			if bytes == nil {
				fmt.Fprintf(&hexs, "(%d bytes)", e.n)
			}
			src := ""
			if k == 0 {
				src = e.text
			}
			fmt.Fprintf(&b, "%s:%-5d %-8s %08x  %-16s  %s\n", e.pos.File, e.pos.Line, e.sect.name, e.off+k, hexs.String(), src)
		}
	}
	return []byte(b.String())
}
