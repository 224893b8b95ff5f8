package disasm

import (
	"bytes"
	"fmt"
	"strings"

	"lanaiemu/objfile"
)

// printSectionHeaders prints the -h table. The LMA column appears only when
// some section's load address differs from its address.
func (o *object) printSectionHeaders(b *bytes.Buffer) {
	width := 13
	showLMA := false
	for _, s := range o.sections {
		width = max(width, len(s.name))
		if o.elf && o.lma(s) != uint64(s.addr) {
			showLMA = true
		}
	}
	fmt.Fprintf(b, "\nSections:\nIdx %-*s Size     VMA      ", width, "Name")
	if showLMA {
		b.WriteString("LMA      ")
	}
	b.WriteString("Type\n")
	for _, s := range o.sections {
		var typ []string
		if s.isText() {
			typ = append(typ, "TEXT")
		}
		if s.isData() {
			typ = append(typ, "DATA")
		}
		if s.isBSS() {
			typ = append(typ, "BSS")
		}
		if o.elf && (strings.HasPrefix(s.name, ".debug") || strings.HasPrefix(s.name, ".zdebug") || s.name == ".gdb_index") {
			typ = append(typ, "DEBUG") // llvm-objdump's ELFObjectFile::isDebugSection
		}
		fmt.Fprintf(b, "%3d %-*s %08x %08x ", s.index, width, s.name, s.size, s.addr)
		if showLMA {
			fmt.Fprintf(b, "%08x ", o.lma(s))
		}
		b.WriteString(strings.Join(typ, " "))
		b.WriteByte('\n')
	}
}

// printSymbolTable prints the -t table in symbol table order.
func (o *object) printSymbolTable(b *bytes.Buffer) {
	b.WriteString("\nSYMBOL TABLE:\n")
	for _, s := range o.symbols {
		global := s.bind != objfile.STB_LOCAL
		weak := s.bind == objfile.STB_WEAK
		globLoc := byte(' ')
		if (s.sec != nil || s.isAbsolute()) && !weak {
			globLoc = 'l'
			if global {
				globLoc = 'g'
			}
		}
		if s.bind == stbGNUUnique {
			globLoc = 'u'
		}
		weakc := byte(' ')
		if weak {
			weakc = 'w'
		}
		ifunc := byte(' ')
		if s.typ == sttGNUIFunc {
			ifunc = 'i'
		}
		debug, kind := byte(' '), byte(' ')
		switch s.typ {
		case objfile.STT_SECTION:
			debug = 'd'
		case objfile.STT_FILE:
			debug, kind = 'd', 'f'
		case objfile.STT_FUNC:
			kind = 'F'
		case objfile.STT_OBJECT, sttCommon:
			kind = 'O'
		}
		name := s.name
		if s.typ == objfile.STT_SECTION && s.sec != nil {
			name = s.sec.name
		}
		fmt.Fprintf(b, "%08x %c%c  %c%c%c ", o.address(s), globLoc, weakc, ifunc, debug, kind)
		val := s.size
		switch {
		case s.isAbsolute():
			b.WriteString("*ABS*")
		case s.isCommon():
			b.WriteString("*COM*")
			val = 0
			if s.shndx == objfile.SHN_COMMON {
				val = s.value // the alignment
			}
		case s.sec == nil:
			b.WriteString("*UND*")
		default:
			b.WriteString(s.sec.name)
		}
		fmt.Fprintf(b, "\t%08x", val)
		switch s.other {
		case 0:
		case 1:
			b.WriteString(" .internal")
		case 2:
			b.WriteString(" .hidden")
		case 3:
			b.WriteString(" .protected")
		default:
			fmt.Fprintf(b, " 0x%02x", s.other)
		}
		b.WriteString(" " + name + "\n")
	}
}

// relocTypeName is the name llvm-objdump prints for a relocation type.
func relocTypeName(t objfile.RelocType) string {
	if t.Known() {
		return t.String()
	}
	return "Unknown"
}

// relocValue is the VALUE column of a relocation: the symbol (or, for a
// section symbol, the section) name, or *ABS* without a symbol, then the
// addend as +0x.. or -0x.. when it is not zero.
func relocValue(r *reloc) string {
	v := "*ABS*"
	if r.sym != nil {
		v = r.sym.name
		if r.sym.typ == objfile.STT_SECTION && r.sym.sec != nil {
			v = r.sym.sec.name
		}
	}
	switch {
	case r.addend > 0:
		v += fmt.Sprintf("+0x%x", r.addend)
	case r.addend < 0:
		v += fmt.Sprintf("-0x%x", -int64(r.addend))
	}
	return v
}

// printRelocations prints the -r records of a relocatable file, one block
// per relocated section in the order of its first relocation section.
func (o *object) printRelocations(b *bytes.Buffer) {
	if !o.rel {
		return
	}
	var targets []int
	byTarget := map[int][]*section{}
	for _, s := range o.sections {
		if s.relocTarget < 0 || len(s.relocs) == 0 {
			continue
		}
		if byTarget[s.relocTarget] == nil {
			targets = append(targets, s.relocTarget)
		}
		byTarget[s.relocTarget] = append(byTarget[s.relocTarget], s)
	}
	for _, t := range targets {
		fmt.Fprintf(b, "\nRELOCATION RECORDS FOR [%s]:\n", o.sections[t].name)
		b.WriteString("OFFSET   TYPE                     VALUE\n")
		for _, rs := range byTarget[t] {
			for _, r := range rs.relocs {
				fmt.Fprintf(b, "%08x %-24s %s\n", r.offset, r.name, relocValue(r))
			}
		}
	}
}

// printContents prints the -s hex dump of every non-empty section.
func (o *object) printContents(b *bytes.Buffer) error {
	for _, s := range o.sections {
		if s.size == 0 {
			continue
		}
		fmt.Fprintf(b, "Contents of section %s:\n", s.name)
		if s.isBSS() {
			fmt.Fprintf(b, "<skipping contents of bss section at [%04x, %04x)>\n", s.addr, uint64(s.addr)+uint64(s.size))
			continue
		}
		data, err := s.contents()
		if err != nil {
			return err
		}
		for off := 0; off < len(data); off += 16 {
			fmt.Fprintf(b, " %04x ", uint64(s.addr)+uint64(off))
			for i := 0; i < 16; i++ {
				if i != 0 && i%4 == 0 {
					b.WriteByte(' ')
				}
				if off+i < len(data) {
					fmt.Fprintf(b, "%02x", data[off+i])
				} else {
					b.WriteString("  ")
				}
			}
			b.WriteString("  ")
			for i := 0; i < 16 && off+i < len(data); i++ {
				b.WriteByte(printable(data[off+i]))
			}
			b.WriteByte('\n')
		}
	}
	return nil
}

// printable returns c if it is a printable ASCII character, else '.'.
func printable(c byte) byte {
	if c >= 0x20 && c < 0x7f {
		return c
	}
	return '.'
}
