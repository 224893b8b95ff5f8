// Package link is the LANai linker: it combines relocatable ELF objects
// (from llvm-mc, clang --target=lanai or the project's assembler) into one
// executable image for the LANai 9.2 SRAM.
//
// # Memory layout
//
// LANai 9.2 firmware runs from on-chip SRAM mapped at address 0 (the
// memory-mapped special registers live at 0xFFFFFE00 and are not part of the
// image). The default layout is:
//
//  1. .text: every executable input section (.text*), in command-line
//     order and, within an object, in section order, starting at
//     Options.TextAddr (default 0, where the LANai starts executing after
//     reset). Each input section is aligned to its sh_addralign.
//  2. .rodata: the read-only allocated sections (.rodata*, including the
//     mergeable string sections .rodata.str1.N, which are concatenated,
//     not merged), right after .text.
//  3. .data: the writable allocated sections with contents (.data*,
//     .sdata*, and any other allocated PROGBITS), right after .rodata, or
//     at Options.DataAddr when it is set.
//  4. .bss: the SHT_NOBITS allocated sections (.bss*, .sbss*), then the
//     common symbols (SHN_COMMON), each aligned to its alignment (the
//     symbol value), right after .data.
//
// Every output section starts at a multiple of the largest alignment among
// its inputs. The DWARF sections (.debug_*, from clang -g) are
// concatenated by name, in order of first appearance, outside the image:
// each starts at address 0, so a relocation against a symbol in one gives
// the offset in the output section (as DWARF's section offsets are), and
// one against code or data gives its address. Other non-allocated
// sections (.comment, .note.GNU-stack, .llvm_addrsig) are dropped. Empty output sections
// are omitted. Code must end at or below 32 MiB (0x2000000), the reach of
// the absolute 25-bit branch field (R_LANAI_25), and the whole image must
// end within Options.SRAMSize (default 2 MiB); otherwise Link fails.
//
// # Linker-defined symbols
//
// Unless an input defines them, Link defines these absolute symbols (and
// lists them in the output symbol table): _etext (end of .text), _erodata
// (end of .rodata), __data_start and _edata (start and end of .data),
// __bss_start, __bss_end and _end (start and end of .bss, where the
// start-up code zeroes memory), and __stack_top (the end of SRAM,
// Options.SRAMSize rounded down to 8). An empty section's start and end are
// both the address where it would have been placed.
//
// # Symbol resolution
//
// Global and weak symbols share one table; local symbols (including .L
// labels and section symbols, which clang's relocations use) are resolved
// within their object. A strong definition beats a common symbol, which
// beats a weak definition; two strong definitions are an error, as is a
// relocation against an undefined non-weak symbol (all such relocations
// are listed). As with lld, an undefined symbol that no relocation names
// (an object's .type, .hidden or .addrsig_sym of it) is no error; it stays
// undefined in the output's symbol table. Undefined weak symbols resolve
// to 0. Several common symbols of the same name become one block of the
// largest size and alignment.
//
// # Relocation
//
// All six Lanai relocation types are absolute and are applied with
// [objfile.RelocType.Apply] to S+A (symbol address plus addend); values
// that do not fit are reported with the object, section, offset, symbol
// and value.
//
// The output is an [objfile.File] of Kind EXEC with one section per
// non-empty output section, the entry address, and a symbol table holding
// the globals and the named locals except .L labels, all with final
// addresses. Options.MapFile receives a map listing in the style of GNU
// ld's -Map.
package link

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"lanaiemu/objfile"
)

// DefaultSRAMSize is the LANai 9.2 SRAM size assumed when Options.SRAMSize
// is zero (2 MiB, as on the PCI64B/C boards).
const DefaultSRAMSize = 2 << 20

// MaxCodeEnd is the highest address code may reach: branch targets are
// absolute 25-bit word addresses (R_LANAI_25).
const MaxCodeEnd = 1 << 25

// DefaultEntry is the entry symbol used when Options.Entry is empty.
const DefaultEntry = "_start"

// Options controls the layout and outputs of Link.
type Options struct {
	// TextAddr is the address of .text (default 0).
	TextAddr uint32
	// DataAddr, when not nil, is the address of .data (.bss follows it);
	// when nil .data follows .rodata.
	DataAddr *uint32
	// Entry is the entry symbol or address (decimal or 0x hex). Empty
	// means "_start"; if that is not defined the entry is the start of
	// .text and a warning is issued. A named symbol other than "_start"
	// that is not defined is an error.
	Entry string
	// MapFile, when not nil, receives the link map.
	MapFile io.Writer
	// SRAMSize is the size of the target SRAM in bytes (default
	// DefaultSRAMSize). The image must end within it.
	SRAMSize uint32
	// Warn, when not nil, receives warnings (one message per call,
	// without a trailing newline).
	Warn func(msg string)
	// Placed, when not nil, is told where each input section went: the
	// index of its object in objs, the section, and its address. Tools use
	// it to carry per-object information (such as line tables) into the
	// executable.
	Placed func(obj int, sec *objfile.Section, addr uint32)
	// Archives are the link's inputs as SelectMembers took them. Only
	// their archives' members are read, and only to explain an undefined
	// symbol that a member left out defines under the other compiler's
	// spelling (libgcc.a's ___mulsi3 for clang's __mulsi3).
	Archives []Input
}

// Output section classes, in layout order.
const (
	clsText = iota
	clsRodata
	clsData
	clsBSS
	numClasses
)

var classNames = [numClasses]string{".text", ".rodata", ".data", ".bss"}

// input is one object being linked.
type input struct {
	index int // position in Link's objs
	name  string
	file  *objfile.File
	syms  []*objfile.Symbol // file.Symbols plus unlisted relocation symbols
}

// inSec is a placed input section.
type inSec struct {
	obj  *input
	sec  *objfile.Section
	out  *outSec
	addr uint64
}

// commonBlock is a common symbol allocated in .bss.
type commonBlock struct {
	g    *global
	addr uint64
}

// outSec is an output section being built.
type outSec struct {
	class   int
	name    string // a debugging section's name
	align   uint64
	addr    uint64
	end     uint64
	ins     []*inSec
	commons []*commonBlock
	sec     *objfile.Section // in the output file; nil if empty
}

// global is an entry of the global symbol table.
type global struct {
	name string
	// def is the chosen definition and defObj its object; nil when the
	// symbol is undefined or common.
	def    *objfile.Symbol
	defObj *input
	rank   int // rankUndef, rankWeak, rankCommon, rankStrong
	// For common symbols: the largest size and alignment seen, and the
	// first object that declared it.
	commonSize, commonAlign uint32
	commonObj               *input
	common                  *commonBlock
	strongRef               bool // declared by a non-weak undefined symbol
	// undef is the first undefined symbol of this name, for the output's
	// symbol table when nothing defines it.
	undef         *objfile.Symbol
	definers      []string // objects with strong definitions (for duplicate errors)
	linkerDefined bool
	addr          uint64
	out           *outSec // output section of the definition, if any
	order         int
}

const (
	rankUndef = iota
	rankWeak
	rankCommon
	rankStrong
)

// linker holds the state of one Link call.
type linker struct {
	opt      Options
	inputs   []*input
	globals  map[string]*global
	gorder   []*global
	placed   map[secKey]*inSec
	outs     [numClasses]*outSec
	debug    []*outSec // the DWARF sections, by name
	errs     []error
	undefRef map[*global][]undefRef
	linkSyms []*global
	archived map[string]string // Options.Archives' global definitions: symbol -> "archive(member)"
}

// undefRef is a relocation against an undefined symbol.
type undefRef struct {
	in  *input
	loc string
}

type secKey struct {
	obj *input
	sec *objfile.Section
}

// maxErrors bounds the number of relocation errors reported.
const maxErrors = 100

// Link lays out and relocates the relocatable objects objs (named by
// names, used in messages) into an executable image. See the package
// documentation for the layout, symbol and relocation rules. The returned
// error, when several problems were found, is an errors.Join of one error
// per problem.
func Link(objs []*objfile.File, names []string, opt Options) (*objfile.File, error) {
	if opt.SRAMSize == 0 {
		opt.SRAMSize = DefaultSRAMSize
	}
	l := &linker{opt: opt, globals: map[string]*global{}, placed: map[secKey]*inSec{}, undefRef: map[*global][]undefRef{}}
	if len(objs) == 0 {
		return nil, errors.New("no input files")
	}
	for i, f := range objs {
		name := fmt.Sprintf("input #%d", i+1)
		if i < len(names) && names[i] != "" {
			name = names[i]
		}
		if f == nil {
			return nil, fmt.Errorf("%s: no object", name)
		}
		if f.Kind != objfile.REL {
			return nil, fmt.Errorf("%s: not a relocatable object (kind %v)", name, f.Kind)
		}
		l.inputs = append(l.inputs, &input{index: i, name: name, file: f})
	}
	if err := l.resolve(); err != nil {
		return nil, err
	}
	if err := l.layout(); err != nil {
		return nil, err
	}
	l.assignGlobals()
	out := l.buildOutput()
	l.relocate(out)
	l.reportUndefined()
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	entry, err := l.entry()
	if err != nil {
		return nil, err
	}
	out.Entry = entry
	out.Symbols = l.outputSymbols()
	if opt.MapFile != nil {
		if err := l.writeMap(opt.MapFile, out); err != nil {
			return nil, fmt.Errorf("writing map file: %w", err)
		}
	}
	return out, nil
}

func (l *linker) errorf(format string, args ...any) {
	if len(l.errs) == maxErrors {
		l.errs = append(l.errs, errors.New("too many errors; stopping"))
	}
	if len(l.errs) < maxErrors {
		l.errs = append(l.errs, fmt.Errorf(format, args...))
	}
}

func (l *linker) warnf(format string, args ...any) {
	if l.opt.Warn != nil {
		l.opt.Warn(fmt.Sprintf(format, args...))
	}
}

func (l *linker) lookup(name string) *global {
	g := l.globals[name]
	if g == nil {
		g = &global{name: name, order: len(l.gorder)}
		l.globals[name] = g
		l.gorder = append(l.gorder, g)
	}
	return g
}

// symbols returns the symbols of f: f.Symbols followed by the symbols that
// relocations use but f.Symbols does not list (as objfile.WriteELF does).
func symbols(f *objfile.File) []*objfile.Symbol {
	seen := make(map[*objfile.Symbol]bool, len(f.Symbols))
	for _, s := range f.Symbols {
		seen[s] = true
	}
	all := f.Symbols
	for _, sec := range f.Sections {
		if sec == nil {
			continue
		}
		for _, r := range sec.Relocs {
			if r.Sym != nil && !seen[r.Sym] {
				seen[r.Sym] = true
				all = append(all[:len(all):len(all)], r.Sym)
			}
		}
	}
	return all
}

// resolve builds the global symbol table.
func (l *linker) resolve() error {
	for _, in := range l.inputs {
		secs := make(map[*objfile.Section]bool, len(in.file.Sections))
		for _, s := range in.file.Sections {
			secs[s] = true
		}
		in.syms = symbols(in.file)
		for _, s := range in.syms {
			if s == nil {
				return fmt.Errorf("%s: nil symbol", in.name)
			}
			if s.Section != nil && !secs[s.Section] {
				return fmt.Errorf("%s: symbol %s refers to section %s, which is not in the object", in.name, s.DisplayName(), s.Section.Name)
			}
			if s.Bind == objfile.STB_LOCAL {
				if s.IsCommon() {
					l.errorf("%s: local common symbol %s is not supported", in.name, s.Name)
				}
				continue
			}
			if s.Name == "" {
				l.errorf("%s: global symbol without a name", in.name)
				continue
			}
			g := l.lookup(s.Name)
			switch {
			case s.IsUndefined():
				if g.undef == nil {
					g.undef = s
				}
				if s.Bind != objfile.STB_WEAK {
					g.strongRef = true
				}
			case s.IsCommon():
				align := s.Value
				if align == 0 {
					align = 1
				}
				if align&(align-1) != 0 {
					l.errorf("%s: common symbol %s has alignment %d, which is not a power of two", in.name, s.Name, s.Value)
					continue
				}
				switch g.rank {
				case rankUndef, rankWeak:
					g.rank, g.def, g.defObj = rankCommon, nil, nil
					g.commonSize, g.commonAlign, g.commonObj = s.Size, align, in
				case rankCommon:
					g.commonSize = max(g.commonSize, s.Size)
					g.commonAlign = max(g.commonAlign, align)
				}
			case s.Bind == objfile.STB_WEAK:
				if g.rank == rankUndef {
					g.rank, g.def, g.defObj = rankWeak, s, in
				}
			default:
				g.definers = append(g.definers, in.name)
				if g.rank != rankStrong {
					g.rank, g.def, g.defObj = rankStrong, s, in
				}
			}
		}
	}
	for _, g := range l.gorder {
		if len(g.definers) > 1 {
			var b strings.Builder
			fmt.Fprintf(&b, "duplicate symbol: %s", g.name)
			for _, d := range g.definers {
				fmt.Fprintf(&b, "\n>>> defined in %s", d)
			}
			l.errorf("%s", b.String())
		}
	}
	if len(l.errs) > 0 {
		return errors.Join(l.errs...)
	}
	return nil
}

// classify returns the output class of an input section, or false if the
// section is not placed in the image.
func classify(s *objfile.Section) (int, bool) {
	if s.Flags&objfile.SHF_ALLOC == 0 {
		return 0, false
	}
	switch {
	case s.Type == objfile.SHT_NOBITS:
		return clsBSS, true
	case s.Flags&objfile.SHF_EXECINSTR != 0 || hasPrefix(s.Name, ".text"):
		return clsText, true
	case hasPrefix(s.Name, ".rodata"):
		return clsRodata, true
	case hasPrefix(s.Name, ".data"):
		return clsData, true
	case s.Flags&objfile.SHF_WRITE == 0:
		return clsRodata, true
	}
	return clsData, true
}

// hasPrefix reports whether name is prefix or starts with prefix + ".".
func hasPrefix(name, prefix string) bool {
	return name == prefix || strings.HasPrefix(name, prefix+".")
}

func alignUp(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) &^ (a - 1)
}

// layout assigns addresses to the input sections and common symbols.
func (l *linker) layout() error {
	for c := range l.outs {
		l.outs[c] = &outSec{class: c, align: 1}
	}
	for _, in := range l.inputs {
		for _, s := range in.file.Sections {
			if s == nil {
				return fmt.Errorf("%s: nil section", in.name)
			}
			c, ok := classify(s)
			if !ok {
				continue
			}
			if s.Align > 1 && s.Align&(s.Align-1) != 0 {
				return fmt.Errorf("%s: section %s: alignment %d is not a power of two", in.name, s.Name, s.Align)
			}
			if s.Type != objfile.SHT_NOBITS && int64(len(s.Data)) != int64(s.Size) {
				return fmt.Errorf("%s: section %s: size %d but %d bytes of contents", in.name, s.Name, s.Size, len(s.Data))
			}
			o := l.outs[c]
			is := &inSec{obj: in, sec: s, out: o}
			o.ins = append(o.ins, is)
			o.align = max(o.align, inputAlign(s))
			l.placed[secKey{in, s}] = is
		}
	}
	for _, g := range l.gorder {
		if g.rank == rankCommon {
			g.common = &commonBlock{g: g}
			o := l.outs[clsBSS]
			o.commons = append(o.commons, g.common)
			o.align = max(o.align, uint64(g.commonAlign))
		}
	}

	cur := uint64(l.opt.TextAddr)
	for c, o := range l.outs {
		given := c == clsText // an address given by the options is used as it is, or refused
		if c == clsData && l.opt.DataAddr != nil {
			cur, given = uint64(*l.opt.DataAddr), true
		}
		if given && cur%o.align != 0 {
			return fmt.Errorf("address (0x%x) of section %s is not a multiple of its alignment (%d)", cur, classNames[c], o.align)
		}
		cur = alignUp(cur, o.align)
		o.addr = cur
		for _, is := range o.ins {
			cur = alignUp(cur, inputAlign(is.sec))
			is.addr = cur
			cur += uint64(is.sec.Size)
			if l.opt.Placed != nil {
				l.opt.Placed(is.obj.index, is.sec, uint32(is.addr))
			}
		}
		for _, cb := range o.commons {
			cur = alignUp(cur, uint64(cb.g.commonAlign))
			cb.addr = cur
			cur += uint64(cb.g.commonSize)
		}
		o.end = cur
		if cur > 1<<32 {
			return fmt.Errorf("section %s ends at 0x%x, beyond the 32-bit address space", classNames[c], cur)
		}
	}

	l.layoutDebug()
	if t := l.outs[clsText]; t.end > MaxCodeEnd {
		return fmt.Errorf("code ends at 0x%x, beyond the 32 MiB (0x%x) reach of absolute branches (R_LANAI_25)", t.end, MaxCodeEnd)
	}
	for c, o := range l.outs {
		if o.end > o.addr && o.end > uint64(l.opt.SRAMSize) {
			return fmt.Errorf("section %s [0x%x, 0x%x) does not fit in the 0x%x-byte SRAM", classNames[c], o.addr, o.end, l.opt.SRAMSize)
		}
	}
	for i := range l.outs {
		for j := i + 1; j < len(l.outs); j++ {
			a, b := l.outs[i], l.outs[j]
			if a.end > a.addr && b.end > b.addr && a.addr < b.end && b.addr < a.end {
				return fmt.Errorf("sections %s [0x%x, 0x%x) and %s [0x%x, 0x%x) overlap", classNames[i], a.addr, a.end, classNames[j], b.addr, b.end)
			}
		}
	}
	return nil
}

// inputAlign is the alignment an input section is placed at: its own,
// and at least a word for code, which the LANai fetches by words (llvm-mc
// gives a code section other than .text no alignment unless the source
// asks for one).
func inputAlign(s *objfile.Section) uint64 {
	a := max(uint64(s.Align), 1)
	if s.Flags&objfile.SHF_EXECINSTR != 0 {
		a = max(a, 4)
	}
	return a
}

// layoutDebug places the DWARF sections, each output section from 0.
func (l *linker) layoutDebug() {
	byName := map[string]*outSec{}
	for _, in := range l.inputs {
		for _, s := range in.file.Sections {
			if s.Flags&objfile.SHF_ALLOC != 0 || s.Type != objfile.SHT_PROGBITS || !strings.HasPrefix(s.Name, ".debug_") || int64(len(s.Data)) != int64(s.Size) {
				continue
			}
			o := byName[s.Name]
			if o == nil {
				o = &outSec{class: -1, name: s.Name, align: 1}
				byName[s.Name] = o
				l.debug = append(l.debug, o)
			}
			is := &inSec{obj: in, sec: s, out: o}
			is.addr = alignUp(o.end, max(uint64(s.Align), 1))
			o.end = is.addr + uint64(s.Size)
			o.align = max(o.align, uint64(s.Align))
			o.ins = append(o.ins, is)
			l.placed[secKey{in, s}] = is
		}
	}
}

// assignGlobals computes global symbol addresses and defines the linker
// symbols.
func (l *linker) assignGlobals() {
	for _, g := range l.gorder {
		switch {
		case g.rank == rankCommon:
			g.addr, g.out = g.common.addr, l.outs[clsBSS]
		case g.def != nil:
			g.addr, g.out = l.symAddr(g.defObj, g.def)
		}
	}
	t, r, d, b := l.outs[clsText], l.outs[clsRodata], l.outs[clsData], l.outs[clsBSS]
	stack := uint64(l.opt.SRAMSize) &^ 7
	for _, ls := range []struct {
		name string
		addr uint64
	}{
		{"_etext", t.end},
		{"_erodata", r.end},
		{"__data_start", d.addr},
		{"_edata", d.end},
		{"__bss_start", b.addr},
		{"__bss_end", b.end},
		{"_end", b.end},
		{"__stack_top", stack},
	} {
		g := l.lookup(ls.name)
		if g.rank != rankUndef {
			continue // defined by an input
		}
		g.rank, g.linkerDefined, g.addr = rankStrong, true, ls.addr
		l.linkSyms = append(l.linkSyms, g)
	}
}

// symAddr returns the address of a defined symbol of object in, and the
// output section it lies in (nil for absolute symbols and symbols in
// sections that are not placed).
func (l *linker) symAddr(in *input, s *objfile.Symbol) (uint64, *outSec) {
	if s.Section == nil {
		return uint64(s.Value), nil
	}
	is := l.placed[secKey{in, s.Section}]
	if is == nil {
		return uint64(s.Value), nil
	}
	return is.addr + uint64(s.Value), is.out
}

// buildOutput creates the output sections and copies the input contents.
func (l *linker) buildOutput() *objfile.File {
	out := &objfile.File{Kind: objfile.EXEC, Format: objfile.FormatELF}
	flags := [numClasses]uint32{
		objfile.SHF_ALLOC | objfile.SHF_EXECINSTR,
		objfile.SHF_ALLOC,
		objfile.SHF_ALLOC | objfile.SHF_WRITE,
		objfile.SHF_ALLOC | objfile.SHF_WRITE,
	}
	for c, o := range l.outs {
		size := o.end - o.addr
		if size == 0 {
			continue
		}
		s := &objfile.Section{
			Name: classNames[c], Type: objfile.SHT_PROGBITS, Flags: flags[c],
			Addr: uint32(o.addr), Align: uint32(o.align), Size: uint32(size),
		}
		if c == clsBSS {
			s.Type = objfile.SHT_NOBITS
		} else {
			s.Data = make([]byte, size)
			for _, is := range o.ins {
				copy(s.Data[is.addr-o.addr:], is.sec.Data)
			}
		}
		o.sec = s
		out.Sections = append(out.Sections, s)
	}
	for _, o := range l.debug {
		s := &objfile.Section{Name: o.name, Type: objfile.SHT_PROGBITS, Flags: o.ins[0].sec.Flags, EntSize: o.ins[0].sec.EntSize,
			Align: uint32(o.align), Size: uint32(o.end), Data: make([]byte, o.end)}
		for _, is := range o.ins {
			copy(s.Data[is.addr:], is.sec.Data)
		}
		o.sec = s
		out.Sections = append(out.Sections, s)
	}
	return out
}

// location formats "obj:(section+0xoff)" as lld does.
func location(in *input, s *objfile.Section, off uint32) string {
	return fmt.Sprintf("%s:(%s+0x%x)", in.name, s.Name, off)
}

// relocate applies the relocations of the placed sections and records
// references to undefined symbols from every section.
func (l *linker) relocate(out *objfile.File) {
	for _, in := range l.inputs {
		for _, s := range in.file.Sections {
			is := l.placed[secKey{in, s}]
			for _, r := range s.Relocs {
				l.relocOne(in, s, is, r)
			}
		}
	}
}

func (l *linker) relocOne(in *input, s *objfile.Section, is *inSec, r objfile.Reloc) {
	loc := location(in, s, r.Offset)
	// Symbol value.
	var S uint64
	name := "(none)"
	if r.Sym != nil {
		name = r.Sym.DisplayName()
		switch {
		case r.Sym.Bind != objfile.STB_LOCAL:
			g := l.globals[r.Sym.Name]
			switch {
			case g == nil:
				return // unnamed global, already reported
			case g.rank != rankUndef:
				S = g.addr
			case g.strongRef:
				l.undefRef[g] = append(l.undefRef[g], undefRef{in, loc})
				return
			default:
				S = 0 // undefined weak
			}
		case r.Sym.IsUndefined():
			if is != nil {
				l.errorf("%s: relocation against undefined local symbol %s", loc, name)
			}
			return
		default:
			if is == nil {
				return
			}
			if r.Sym.Section != nil && l.placed[secKey{in, r.Sym.Section}] == nil {
				l.errorf("%s: relocation %v against symbol %s in section %s, which is not loaded", loc, r.Type, name, r.Sym.Section.Name)
				return
			}
			S, _ = l.symAddr(in, r.Sym)
		}
	}
	if is == nil {
		return // section not placed: only undefined references matter
	}
	if !r.Type.Known() {
		l.errorf("%s: unknown relocation type %d", loc, uint32(r.Type))
		return
	}
	if r.Type == objfile.R_LANAI_NONE {
		return
	}
	if s.Type == objfile.SHT_NOBITS {
		l.errorf("%s: relocation in section without contents", loc)
		return
	}
	if s.Size < 4 || r.Offset > s.Size-4 {
		l.errorf("%s: relocation %v offset is outside the section (size 0x%x)", loc, r.Type, s.Size)
		return
	}
	v := uint32(S) + uint32(r.Addend)
	data := is.out.sec.Data
	off := is.addr - is.out.addr + uint64(r.Offset)
	w := binary.BigEndian.Uint32(data[off:])
	nw, err := r.Type.Apply(w, v)
	if err != nil {
		l.errorf("%s: relocation %v against symbol %s (0x%x%+d = 0x%x) out of range: %v", loc, r.Type, name, uint32(S), r.Addend, v, err)
		return
	}
	binary.BigEndian.PutUint32(data[off:], nw)
}

// reportUndefined adds one error per undefined non-weak global that a
// relocation names, listing every such relocation. As lld
// (RelocationScanner::maybeReportUndefined), a symbol no relocation names
// is no error.
func (l *linker) reportUndefined() {
	for _, g := range l.gorder {
		refs := l.undefRef[g]
		if g.rank != rankUndef || len(refs) == 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "undefined symbol: %s", g.name)
		for _, r := range refs {
			fmt.Fprintf(&b, "\n>>> referenced by %s", r.loc)
		}
		b.WriteString(l.conventionHint(g))
		l.errorf("%s", b.String())
	}
}

// conventionHint explains an undefined symbol that the other object
// format defines under its own spelling: lanai-gcc's COFF objects prefix C
// names with '_' (gcc's ___mulsi3 is clang's __mulsi3), and the two
// compilers pass arguments differently (docs/runtime.md), so the linker
// does not bind one to the other.
// An archive member that was not linked counts too: nothing asked for its
// spelling, which is why it was left out.
func (l *linker) conventionHint(g *global) string {
	for _, other := range []string{"_" + g.name, strings.TrimPrefix(g.name, "_")} {
		if other == g.name {
			continue
		}
		definer := ""
		if d := l.globals[other]; d != nil && d.defObj != nil {
			definer = d.defObj.name
		} else {
			if l.archived == nil {
				l.archived = archiveDefinitions(l.opt.Archives)
			}
			definer = l.archived[other]
		}
		if definer == "" {
			continue
		}
		return fmt.Sprintf("\n>>> %s defines %s: lanai-gcc 2.95 (COFF) prefixes C names with '_' and passes arguments on the stack, clang (ELF) in r6, r7, r18, r19; "+
			"code that calls across must use the callee's convention and spelling (docs/runtime.md)", definer, other)
	}
	return ""
}

// entry returns the entry address.
func (l *linker) entry() (uint32, error) {
	name := l.opt.Entry
	explicit := name != "" && name != DefaultEntry
	if name == "" {
		name = DefaultEntry
	}
	if g := l.globals[name]; g != nil && g.rank != rankUndef {
		return uint32(g.addr), nil
	}
	if n, err := ParseNumber(name); err == nil {
		return n, nil
	}
	if explicit {
		return 0, fmt.Errorf("entry symbol %s is not defined", name)
	}
	start := uint32(l.outs[clsText].addr)
	l.warnf("cannot find entry symbol %s; defaulting to 0x%08x (start of .text)", name, start)
	return start, nil
}

// outputSymbols builds the symbol table of the executable: named locals
// (except .L labels and section symbols) per object, then the globals in
// first-seen order, then the linker-defined symbols.
func (l *linker) outputSymbols() []*objfile.Symbol {
	var syms []*objfile.Symbol
	mk := func(s *objfile.Symbol, addr uint64, o *outSec) *objfile.Symbol {
		n := &objfile.Symbol{Name: s.Name, Value: uint32(addr), Size: s.Size, Bind: s.Bind, Type: s.Type, Other: s.Other}
		switch {
		case o != nil && o.sec != nil:
			n.Section = o.sec
		case s.Section == nil && s.Shndx == objfile.SHN_UNDEF:
			n.Shndx = objfile.SHN_UNDEF
		default:
			n.Shndx = objfile.SHN_ABS
		}
		return n
	}
	for _, in := range l.inputs {
		for _, s := range in.syms {
			if s.Bind != objfile.STB_LOCAL || !keepLocal(s) {
				continue
			}
			if s.Section != nil && l.placed[secKey{in, s.Section}] == nil {
				continue // in a section that is not loaded
			}
			addr, o := l.symAddr(in, s)
			syms = append(syms, mk(s, addr, o))
		}
	}
	for _, g := range l.gorder {
		switch {
		case g.linkerDefined:
			continue
		case g.rank == rankCommon:
			syms = append(syms, &objfile.Symbol{Name: g.name, Value: uint32(g.addr), Size: g.commonSize,
				Bind: objfile.STB_GLOBAL, Type: objfile.STT_OBJECT, Section: l.outs[clsBSS].sec})
		case g.def != nil:
			if g.def.Section != nil && l.placed[secKey{g.defObj, g.def.Section}] == nil {
				syms = append(syms, &objfile.Symbol{Name: g.name, Value: uint32(g.addr), Bind: g.def.Bind, Shndx: objfile.SHN_ABS})
				continue
			}
			syms = append(syms, mk(g.def, g.addr, g.out))
		case g.strongRef: // undefined, named by no relocation: kept, as lld keeps it
			syms = append(syms, &objfile.Symbol{Name: g.name, Bind: objfile.STB_GLOBAL, Type: g.undef.Type, Other: g.undef.Other})
		default: // undefined weak
			syms = append(syms, &objfile.Symbol{Name: g.name, Bind: objfile.STB_WEAK})
		}
	}
	for _, g := range l.linkSyms {
		syms = append(syms, &objfile.Symbol{Name: g.name, Value: uint32(g.addr), Bind: objfile.STB_GLOBAL, Shndx: objfile.SHN_ABS})
	}
	return syms
}

// keepLocal reports whether a local symbol goes into the output symbol
// table.
func keepLocal(s *objfile.Symbol) bool {
	return s.Name != "" && s.Type != objfile.STT_SECTION && !strings.HasPrefix(s.Name, ".L")
}

// writeMap writes the link map.
func (l *linker) writeMap(w io.Writer, out *objfile.File) error {
	var b strings.Builder
	b.WriteString("Memory map\n\n")
	fmt.Fprintf(&b, "%-16s %-10s %-10s %s\n", "Section", "Address", "Size", "Input / symbol")
	type msym struct {
		addr uint64
		name string
	}
	// Symbols by input section, and common blocks.
	bySec := map[secKey][]msym{}
	for _, in := range l.inputs {
		for _, s := range in.syms {
			if s.Section == nil || (s.Bind == objfile.STB_LOCAL && !keepLocal(s)) {
				continue
			}
			if s.Bind != objfile.STB_LOCAL {
				if g := l.globals[s.Name]; g == nil || g.def != s {
					continue // not the chosen definition
				}
			}
			k := secKey{in, s.Section}
			if is := l.placed[k]; is != nil {
				bySec[k] = append(bySec[k], msym{is.addr + uint64(s.Value), s.Name})
			}
		}
	}
	for c, o := range l.outs {
		if o.sec == nil {
			continue
		}
		fmt.Fprintf(&b, "\n%-16s 0x%08x 0x%08x\n", classNames[c], o.addr, o.end-o.addr)
		for _, is := range o.ins {
			fmt.Fprintf(&b, " %-15s 0x%08x 0x%08x %s\n", is.sec.Name, is.addr, is.sec.Size, is.obj.name)
			ms := bySec[secKey{is.obj, is.sec}]
			sort.SliceStable(ms, func(i, j int) bool {
				if ms[i].addr != ms[j].addr {
					return ms[i].addr < ms[j].addr
				}
				return ms[i].name < ms[j].name
			})
			for _, m := range ms {
				fmt.Fprintf(&b, " %-15s 0x%08x %-10s %s\n", "", m.addr, "", m.name)
			}
		}
		for _, cb := range o.commons {
			fmt.Fprintf(&b, " %-15s 0x%08x 0x%08x %s\n", "COMMON", cb.addr, cb.g.commonSize, cb.g.commonObj.name)
			fmt.Fprintf(&b, " %-15s 0x%08x %-10s %s\n", "", cb.addr, "", cb.g.name)
		}
	}
	var abs []msym
	for _, g := range l.gorder {
		if g.def != nil && g.def.IsAbs() {
			abs = append(abs, msym{g.addr, g.name})
		}
	}
	if len(abs) > 0 {
		b.WriteString("\nAbsolute symbols\n")
		for _, m := range abs {
			fmt.Fprintf(&b, " %-15s 0x%08x %-10s %s\n", "", m.addr, "", m.name)
		}
	}
	b.WriteString("\nLinker-defined symbols\n")
	for _, g := range l.linkSyms {
		fmt.Fprintf(&b, " %-15s 0x%08x %-10s %s\n", "", g.addr, "", g.name)
	}
	fmt.Fprintf(&b, "\nEntry point: 0x%08x\n", out.Entry)
	_, err := io.WriteString(w, b.String())
	return err
}

// ParseNumber parses an address or size in decimal or 0x hexadecimal (as
// accepted by lanai-ld's -Ttext, -Tdata and -e).
func ParseNumber(s string) (uint32, error) {
	base, digits := 10, s
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		base, digits = 16, s[2:]
	}
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil || digits == "" || digits[0] == '+' || digits[0] == '-' {
		return 0, fmt.Errorf("bad number %q (want decimal or 0x hex, below 2^32)", s)
	}
	return uint32(v), nil
}
