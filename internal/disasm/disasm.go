// Package disasm is the logic of lanai-objdump: it prints LANai object
// files and executables the way llvm-objdump (version 14) prints them, so
// that the two tools' outputs can be compared line by line.
//
// [Dump] reads an ELF32 big-endian EM_LANAI file (relocatable or
// executable) or a big-endian LANai COFF executable through package
// lanaiemu/objfile and prints, in llvm-objdump's order, the section headers
// (-h), the symbol table (-t), the relocation records (-r), the full
// contents of every section (-s) and the disassembly of the executable
// sections (-d, with relocations inline when -r is also given).
// Instructions are printed by package lanaiemu/isa, whose text is that of
// LLVM's Lanai instruction printer.
//
// The output reproduces llvm-objdump 14's, including its quirks: of several
// symbols at one address only the last in (address, name, type) order labels
// the disassembly; STT_OBJECT symbols in code sections are dumped as bytes
// rather than disassembled; runs of eight or more zero bytes are shown as
// "..." unless a relocation falls inside them; words that are no valid
// instruction, and trailing bytes shorter than a word, print as
// "<unknown>"; absolute branch targets other than 0 are annotated with the
// nearest preceding symbol ("bt 0x24 <main>"), with executables looking in
// every section at the target address and relocatable files only in the
// current section; and a code section whose first symbol is not at address
// 0 gets a label named after the section.
//
// COFF files, which llvm-objdump cannot read, are printed in the same
// formats with "file format coff-lanai"; their sections are numbered from 0
// in file order and they have no relocation records.
package disasm

import (
	"bytes"
	"fmt"
	"io"
)

// Options selects what [Dump] prints. The parts are printed in
// llvm-objdump's order: section headers, symbol table, relocations (only
// when not disassembling; with Disassemble they are shown inline),
// section contents, disassembly.
type Options struct {
	// SectionHeaders prints the "Sections:" table (-h).
	SectionHeaders bool
	// Syms prints the "SYMBOL TABLE:" (-t).
	Syms bool
	// Relocs prints the relocation records (-r); with Disassemble they are
	// printed after the instructions they patch instead.
	Relocs bool
	// FullContents prints a hex dump of every non-empty section (-s).
	FullContents bool
	// Disassemble disassembles the executable sections (-d).
	Disassemble bool
	// DisassembleZeroes disables the "..." abbreviation of zero runs (-z).
	DisassembleZeroes bool
}

// Any reports whether o asks for any output at all.
func (o Options) Any() bool {
	return o.SectionHeaders || o.Syms || o.Relocs || o.FullContents || o.Disassemble
}

// Dump prints the parts of the object file data (read from the file called
// name) that opt selects to w. It returns an error, and prints nothing,
// when data is not a well-formed LANai ELF or COFF file; it never panics on
// malformed input.
func Dump(w io.Writer, name string, data []byte, opt Options) error {
	o, err := load(data)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n%s:\tfile format %s\n", name, o.format)
	if opt.SectionHeaders {
		o.printSectionHeaders(&b)
	}
	if opt.Syms {
		o.printSymbolTable(&b)
	}
	if opt.Relocs && !opt.Disassemble {
		o.printRelocations(&b)
	}
	if opt.FullContents {
		if err := o.printContents(&b); err != nil {
			return err
		}
	}
	if opt.Disassemble {
		if err := o.disassemble(&b, opt.Relocs, opt.DisassembleZeroes); err != nil {
			return err
		}
	}
	_, err = w.Write(b.Bytes())
	return err
}
