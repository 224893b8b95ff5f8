// Package asm is the LANai assembler: it reads the assembly dialect of LLVM's
// Lanai target (what clang --target=lanai -S prints and llvm-mc accepts) and
// writes relocatable ELF objects through package objfile. Beyond LLVM it
// offers what hand-written firmware needs: .include with search paths,
// .macro/.endm, .if/.else/.endif, constants from .set in any operand, and a
// listing. Instructions are encoded through package isa; sub-package link
// is the linker.
//
// Every error carries file:line:col, the source line and a caret, and all
// errors of an assembly are reported (up to a cap), never a panic.
package asm

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"lanaiemu/internal/readfile"
	"lanaiemu/objfile"
)

// Source is one input file.
type Source struct {
	Name string
	Text []byte
}

// Options control an assembly.
type Options struct {
	// IncludeDirs are searched, after the including file's directory, by
	// .include.
	IncludeDirs []string
	// ReadFile reads included files; nil reads them from disk (regular
	// files of at most 64 MiB).
	ReadFile func(name string) ([]byte, error)
	// Listing keeps what Result.Listing needs.
	Listing bool
	// LineInfo keeps the source position of every instruction
	// (Result.Lines), for debuggers.
	LineInfo bool
}

// Line is the source position of an instruction.
type Line struct {
	Section *objfile.Section
	Offset  uint32
	File    string
	Line    int
}

// Result is an assembled object and its listing.
type Result struct {
	Object  *objfile.File
	listing []listEntry
	a       *assembler
	// Lines holds, with Options.LineInfo, the source position of every
	// instruction, in order.
	Lines []Line
	// Warnings are what assembled but is likely not what was meant (each
	// Error's Warning is set).
	Warnings ErrorList
}

// Assemble assembles the sources, in order, into one relocatable object (as
// GNU as does with several inputs). On failure the error is an ErrorList.
func Assemble(srcs []Source, opt Options) (*Result, error) {
	a := newAssembler(opt)
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(errTooMany); !ok {
					panic(r)
				}
			}
		}()
		for _, s := range srcs {
			a.including = append(a.including[:0], includeKey(s.Name))
			a.file(s.Name, s.Text, 0)
		}
		a.finish()
	}()
	if len(a.errs) > 0 {
		return nil, a.errs
	}
	obj, err := a.object()
	if err != nil {
		return nil, err
	}
	res := &Result{Object: obj, listing: a.listing, a: a, Warnings: a.warns}
	for _, l := range a.lineInfo {
		res.Lines = append(res.Lines, Line{Section: a.outSects[l.sect], Offset: l.off, File: l.pos.File, Line: l.pos.Line})
	}
	return res, nil
}

// AssembleFile reads and assembles one file.
func AssembleFile(name string, opt Options) (*Result, error) {
	read := opt.ReadFile
	if read == nil {
		read = readSource
	}
	text, err := read(name)
	if err != nil {
		return nil, err
	}
	return Assemble([]Source{{name, text}}, opt)
}

// symbol is an assembler symbol.
type symbol struct {
	name    string
	sect    *section
	off     uint32
	defined bool
	isAbs   bool // defined by .set to a constant
	absVal  int64
	equ     *expr // defined by .set to a non-constant expression
	// base is, for a symbol .set to a label plus an offset, that label
	// (LLVM's MCAssembler::getBaseSymbol): the symbol takes its type and
	// size (object); setTo is the symbol a ".set s, t" names, when the
	// value is that symbol alone.
	base    *symbol
	setTo   *symbol
	bind    uint8
	bindSet bool // .globl, .weak or .local given
	typ     uint8
	// visibility is the ELF st_other visibility (.hidden, .protected,
	// .internal; the last one given wins, as in llvm-mc).
	visibility uint8
	size       *expr
	common     bool
	csize      uint32
	calign     uint32
	temp       bool // '.' and numeric local labels
	// objName is the name in the object: llvm-mc's (MCContext::
	// createSymbol): "" for an unnamed temporary, ".Ltmp<n>" for a
	// numeric local label, a ".L" name already taken by one of those
	// with a number appended.
	objName string
	inReloc bool
	defPos  Pos
	// registered is set once the symbol is in symOrder (register).
	registered bool
	// sectionName is set when the symbol is a section's name used as a
	// symbol, which is the section's symbol (object).
	sectionName bool

	evaluating bool
}

// location gives a defined label's section and offset.
func (s *symbol) location() (*section, uint32, bool) {
	return s.sect, s.off, s.defined && s.sect != nil
}

func (s *symbol) location2() bool { return s.defined }

// baseSymbol is the label a symbol stands for: its base, or itself.
func (s *symbol) baseSymbol() *symbol {
	if s.base != nil {
		return s.base
	}
	return s
}

// section is an output section being assembled.
type section struct {
	name    string
	typ     uint32
	flags   uint32
	entsize uint32
	align   uint32
	data    []byte
	size    uint32 // for SHT_NOBITS
	fixups  []fixup
	relocs  []reloc
	order   int
	// symPos is the number of symbols known when the section was first
	// entered: llvm-mc registers a section's symbol then, so it precedes
	// the symbols named later (symbolTable).
	symPos int
}

func (s *section) nobits() bool { return s.typ == objfile.SHT_NOBITS }

func (s *section) offset() uint32 {
	if s.nobits() {
		return s.size
	}
	return uint32(len(s.data))
}

func (s *section) isCode() bool { return s.flags&objfile.SHF_EXECINSTR != 0 }

type reloc struct {
	off    uint32
	typ    objfile.RelocType
	sym    *symbol
	sect   *section // relocation against a section symbol instead
	addend int64
}

// macro is a .macro definition.
type macro struct {
	name   string
	params []macroParam
	body   []srcLine
}

type macroParam struct{ name, def string }

// srcLine is a line of input with its position.
type srcLine struct {
	text string
	pos  Pos // Col unused
}

// cond is an open .if block.
type cond struct {
	active    bool // lines are assembled
	taken     bool // some branch of this block was taken
	seenElse  bool
	outerLive bool
}

// fileSymbol is a .file "name": an STT_FILE symbol, placed before the
// local symbols registered after it (symPos symbols and sectPos sections
// were registered before it), as llvm-mc 14 places them.
type fileSymbol struct {
	name            string
	symPos, sectPos int
}

type lineEntry struct {
	sect *section
	off  uint32
	pos  Pos
}

type listEntry struct {
	pos  Pos
	text string
	sect *section
	off  uint32
	n    uint32
}

type assembler struct {
	opt      Options
	errs     ErrorList
	warns    ErrorList // warnings (warnf), in source order
	syms     map[string]*symbol
	symOrder []*symbol // registered symbols, in order (register)
	// quiet is set while an expression that llvm-mc only evaluates (.size,
	// .if) is parsed: the symbols it names are not registered.
	quiet   bool
	sects   []*section
	sectByN map[string]*section
	cur     *section
	prev    *section
	stack   []*section
	macros  map[string]*macro
	conds   []cond
	locals  map[string]int // numeric local label definitions so far
	temps   int
	// usedNames and nextID name symbols in the object (uniqueName).
	usedNames map[string]bool
	nextID    map[string]int
	expand    int   // macro expansions so far (for \@)
	contents  int64 // bytes of contents in all sections (at most maxSection)
	// including is the chain of files being included (absolute paths),
	// outermost first, for cycle detection.
	including []string
	// files are the .file "name" directives (STT_FILE symbols), in order.
	files    []fileSymbol
	listing  []listEntry
	line     srcLine  // the line being assembled
	linePtr  *srcLine // where it is kept (fixups refer to it)
	defining *macro   // a .macro being collected
	defDepth int
	calls    []Pos     // positions of the macro invocations being expanded
	expanded bool      // the statement just assembled was a macro invocation
	parsers  []*parser // one per nesting level of statements
	nesting  int
	lineInfo []lineEntry
	outSects map[*section]*objfile.Section
	dwarf    dwarfState // .file, .loc and .cfi_* (dwarf.go)
	// seenIdent is set by the first .ident (which starts .comment with a
	// NUL); addrsig by .addrsig; addrsigSyms lists the .addrsig_sym names.
	seenIdent   bool
	addrsig     bool
	addrsigSyms []*symbol
	stmtBuf     []string
	offBuf      []int
	exprSlab    []expr
}

func newAssembler(opt Options) *assembler {
	a := &assembler{
		opt:     opt,
		syms:    map[string]*symbol{},
		sectByN: map[string]*section{},
		macros:  map[string]*macro{},
		locals:  map[string]int{},
	}
	// As llvm-mc (MCELFStreamer::InitSections), .text is entered first
	// and aligned to 4; other sections take the alignment that alignment
	// directives give them (instructions do not raise it).
	a.cur = a.section(".text", "", 0, 0)
	a.cur.align = 4
	return a
}

// errorf records an error at a position.
func (a *assembler) errorf(pos Pos, format string, args ...any) {
	a.addErr(&Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Source: a.sourceOf(pos)})
}

// warnf records a warning at a position: the assembly goes on and its
// bytes do not change (Result.Warnings).
func (a *assembler) warnf(pos Pos, format string, args ...any) {
	a.warns = append(a.warns, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...), Source: a.sourceOf(pos), Warning: true})
}

func (a *assembler) addErr(e *Error) {
	a.errs = append(a.errs, e)
	if len(a.errs) >= maxErrors {
		a.errs = append(a.errs, &Error{Pos: e.Pos, Msg: fmt.Sprintf("too many errors (%d); stopping", maxErrors)})
		panic(errTooMany{})
	}
}

// sourceOf returns the text of the line being assembled if pos is on it.
func (a *assembler) sourceOf(pos Pos) string {
	if pos.File == a.line.pos.File && pos.Line == a.line.pos.Line {
		return a.line.text
	}
	return ""
}

// report turns an error from parsing or evaluation into a recorded error.
func (a *assembler) report(err error, fallback Pos) {
	if pe, ok := err.(*posError); ok {
		a.errorf(pe.pos, "%s", pe.msg)
		return
	}
	a.errorf(fallback, "%s", err.Error())
}

// lookup returns the symbol of a name, creating an undefined one, and
// registers it (unless a.quiet).
func (a *assembler) lookup(name string) *symbol {
	s := a.symbolNamed(name)
	if !a.quiet {
		a.register(s)
	}
	return s
}

// symbolNamed returns the symbol of a name, creating an undefined one,
// without registering it.
func (a *assembler) symbolNamed(name string) *symbol {
	if s, ok := a.syms[name]; ok {
		return s
	}
	s := &symbol{name: name, objName: a.uniqueName(name, false)}
	a.syms[name] = s
	return s
}

// register enters a symbol in symOrder, the order of the symbol table, the
// first time the source uses it as llvm-mc registers symbols
// (MCAssembler::registerSymbol): a label, a directive that gives it an
// attribute (.globl, .type, .hidden, ...), an operand of an instruction,
// data or .set. An undefined symbol that was never registered (named only
// by .size or .if) stays out of the table.
func (a *assembler) register(s *symbol) {
	if !s.registered {
		s.registered = true
		a.symOrder = append(a.symOrder, s)
	}
}

// uniqueName gives a new symbol's name in the object as llvm-mc's
// MCContext::createSymbol does: name itself if no symbol has it yet (or,
// with suffix, name followed by a number), otherwise name followed by the
// next number (counted per name) that makes it unique.
func (a *assembler) uniqueName(name string, suffix bool) string {
	if a.usedNames == nil {
		a.usedNames = map[string]bool{}
		a.nextID = map[string]int{}
	}
	n := name
	for {
		if suffix {
			n = name + strconv.Itoa(a.nextID[name])
			a.nextID[name]++
		}
		if !a.usedNames[n] {
			a.usedNames[n] = true
			return n
		}
		suffix = true
	}
}

// localLabel returns the symbol of the k-th definition of the numeric
// local label n ("1:"), named in the object as llvm-mc names it.
func (a *assembler) localLabel(n string, k int) *symbol {
	key := fmt.Sprintf(".L%s$%d", n, k)
	if s, ok := a.syms[key]; ok {
		return s
	}
	s := &symbol{name: key, temp: true, objName: a.uniqueName(".Ltmp", true)}
	a.syms[key] = s
	a.register(s)
	return s
}

// newTemp makes an unnamed temporary symbol (as llvm-mc's
// createTempSymbol): it takes its place in the symbol order, but no name
// can refer to it, so a label the source calls ".Ltmp0" is another symbol.
// Its name, for messages, cannot be written in the source.
func (a *assembler) newTemp() *symbol {
	s := &symbol{name: ".Ltmp$" + strconv.Itoa(a.temps), temp: true}
	a.temps++
	a.register(s)
	return s
}

// here returns a temporary symbol at the current location ('.').
func (a *assembler) here() *symbol {
	s := a.newTemp()
	s.sect, s.off, s.defined = a.cur, a.cur.offset(), true
	return s
}

// localRef resolves a numeric local label reference such as 1f or 2b.
func (a *assembler) localRef(ref string) (*symbol, error) {
	n, dir := ref[:len(ref)-1], ref[len(ref)-1]
	k := a.locals[n]
	if dir == 'b' {
		if k == 0 {
			return nil, fmt.Errorf("no previous definition of local label %s", n)
		}
	} else {
		k++
	}
	return a.localLabel(n, k), nil
}

// sectionFlagBits maps the letters of a .section flags string.
var sectionFlagBits = map[rune]uint32{'a': objfile.SHF_ALLOC, 'w': objfile.SHF_WRITE, 'x': objfile.SHF_EXECINSTR,
	'M': objfile.SHF_MERGE, 'S': objfile.SHF_STRINGS, 'T': objfile.SHF_TLS}

// section finds or creates a section. A new section gets the flags and
// type llvm-mc 14 gives it: those of a section llvm-mc has made before the
// source starts (presetSections), else the flags of its name
// (nameDefaults) with the letters of flags added, the type typ or, when
// typ is 0, its name's. A section already entered keeps what it has.
func (a *assembler) section(name, flags string, typ, entsize uint32) *section {
	if s, ok := a.sectByN[name]; ok {
		return s
	}
	s := &section{name: name, typ: typ, align: 1, entsize: entsize, order: len(a.sects), symPos: len(a.symOrder)}
	if p, ok := presetSections[name]; ok {
		s.flags, s.typ, s.entsize = p.flags, p.sectionType(), p.entsize
	} else {
		defFlags, defType := nameDefaults(name)
		s.flags = defFlags
		for _, c := range flags {
			s.flags |= sectionFlagBits[c]
		}
		if typ == 0 {
			s.typ = defType
		}
	}
	a.sects = append(a.sects, s)
	a.sectByN[name] = s
	return s
}

// presetSection is a section llvm-mc makes before it reads the source:
// its flags, type (0: SHT_PROGBITS) and entry size.
type presetSection struct{ flags, typ, entsize uint32 }

// sectionType is the preset's section type.
func (p presetSection) sectionType() uint32 {
	if p.typ == 0 {
		return objfile.SHT_PROGBITS
	}
	return p.typ
}

// presetSections are the sections llvm-mc 14 makes before it reads the
// source (MCObjectFileInfo::initELFMCObjectFileInfo): a .section of one
// of these names gets these attributes whatever its flags string says,
// and one that asks for others is refused (checkSectionChange).
var presetSections = map[string]presetSection{
	".text":             {objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, 0, 0},
	".data":             {objfile.SHF_ALLOC | objfile.SHF_WRITE, 0, 0},
	".bss":              {objfile.SHF_ALLOC | objfile.SHF_WRITE, objfile.SHT_NOBITS, 0},
	".rodata":           {objfile.SHF_ALLOC, 0, 0},
	".tdata":            {objfile.SHF_ALLOC | objfile.SHF_WRITE | objfile.SHF_TLS, 0, 0},
	".tbss":             {objfile.SHF_ALLOC | objfile.SHF_WRITE | objfile.SHF_TLS, objfile.SHT_NOBITS, 0},
	".data.rel.ro":      {objfile.SHF_ALLOC | objfile.SHF_WRITE, 0, 0},
	".rodata.cst4":      {objfile.SHF_ALLOC | objfile.SHF_MERGE, 0, 4},
	".rodata.cst8":      {objfile.SHF_ALLOC | objfile.SHF_MERGE, 0, 8},
	".rodata.cst16":     {objfile.SHF_ALLOC | objfile.SHF_MERGE, 0, 16},
	".rodata.cst32":     {objfile.SHF_ALLOC | objfile.SHF_MERGE, 0, 32},
	".eh_frame":         {objfile.SHF_ALLOC, 0, 0},
	".gcc_except_table": {objfile.SHF_ALLOC, 0, 0},
	".llvm_stackmaps":   {objfile.SHF_ALLOC, 0, 0},
	".llvm_faultmaps":   {objfile.SHF_ALLOC, 0, 0},
	".debug_str":        {objfile.SHF_MERGE | objfile.SHF_STRINGS, 0, 1},
	".debug_line_str":   {objfile.SHF_MERGE | objfile.SHF_STRINGS, 0, 1},
	".debug_str.dwo":    {objfile.SHF_MERGE | objfile.SHF_STRINGS | objfile.SHF_EXCLUDE, 0, 1},
}

func init() {
	// DWARF's other sections have no flags; split DWARF's are excluded
	// from links.
	for _, n := range []string{"abbrev", "info", "line", "frame", "pubnames", "pubtypes", "gnu_pubnames", "gnu_pubtypes",
		"loc", "aranges", "ranges", "macinfo", "macro", "names", "str_offsets", "addr", "rnglists", "loclists", "cu_index", "tu_index"} {
		presetSections[".debug_"+n] = presetSection{}
	}
	for _, n := range []string{".apple_names", ".apple_types", ".apple_objc", ".stack_sizes", ".pseudo_probe"} {
		presetSections[n] = presetSection{}
	}
	for _, n := range []string{"info", "types", "abbrev", "line", "loc", "str_offsets", "rnglists", "macinfo", "macro", "loclists"} {
		presetSections[".debug_"+n+".dwo"] = presetSection{flags: objfile.SHF_EXCLUDE}
	}
}

// sectionNameRule gives the sections whose name is prefix (exact), or
// prefix or prefix followed by a dot (family), or starts with prefix
// (any), their default flags and type (0: SHT_PROGBITS).
type sectionNameRule struct {
	prefix     string
	match      int
	flags, typ uint32
}

const (
	matchExact = iota
	matchFamily
	matchAny
)

// sectionNameRules are llvm-mc 14's defaults by section name
// (ELFAsmParser::ParseSectionArguments); a name matches at most one.
var sectionNameRules = []sectionNameRule{
	{".rodata", matchFamily, objfile.SHF_ALLOC, 0},
	{".rodata1", matchExact, objfile.SHF_ALLOC, 0},
	{".text", matchFamily, objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, 0},
	{".init", matchExact, objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, 0},
	{".fini", matchExact, objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, 0},
	{".data", matchFamily, objfile.SHF_ALLOC | objfile.SHF_WRITE, 0},
	{".data1", matchExact, objfile.SHF_ALLOC | objfile.SHF_WRITE, 0},
	{".bss", matchFamily, objfile.SHF_ALLOC | objfile.SHF_WRITE, objfile.SHT_NOBITS},
	{".init_array", matchFamily, objfile.SHF_ALLOC | objfile.SHF_WRITE, objfile.SHT_INIT_ARRAY},
	{".fini_array", matchFamily, objfile.SHF_ALLOC | objfile.SHF_WRITE, objfile.SHT_FINI_ARRAY},
	{".preinit_array", matchFamily, objfile.SHF_ALLOC | objfile.SHF_WRITE, objfile.SHT_PREINIT_ARRAY},
	{".tdata", matchFamily, objfile.SHF_ALLOC | objfile.SHF_WRITE | objfile.SHF_TLS, 0},
	{".tbss", matchFamily, objfile.SHF_ALLOC | objfile.SHF_WRITE | objfile.SHF_TLS, objfile.SHT_NOBITS},
	{".note", matchAny, 0, objfile.SHT_NOTE},
}

// nameDefaults gives the default flags and type of a section name.
func nameDefaults(name string) (flags, typ uint32) {
	for _, r := range sectionNameRules {
		ok := name == r.prefix
		switch r.match {
		case matchFamily:
			ok = ok || strings.HasPrefix(name, r.prefix+".")
		case matchAny:
			ok = strings.HasPrefix(name, r.prefix)
		}
		if ok {
			if r.typ == 0 {
				return r.flags, objfile.SHT_PROGBITS
			}
			return r.flags, r.typ
		}
	}
	return 0, objfile.SHT_PROGBITS
}

// emit appends bytes to the current section.
func (a *assembler) emit(b ...byte) {
	s := a.cur
	if int64(s.offset())+int64(len(b)) > maxSection {
		a.errorf(a.line.pos, "section %s exceeds %d MiB", s.name, maxSection>>20)
		return
	}
	if s.nobits() {
		for _, c := range b {
			if c != 0 {
				a.errorf(a.line.pos, "non-zero data in section %s, which has no contents (nobits)", s.name)
				return
			}
		}
		s.size += uint32(len(b))
		return
	}
	if a.contents+int64(len(b)) > maxSection {
		a.errorf(a.line.pos, "section %s: the sections hold more than %d MiB in all", s.name, maxSection>>20)
		return
	}
	a.contents += int64(len(b))
	s.data = append(s.data, b...)
}

// maxSection caps a section's size, and the contents of all sections
// together: far above the LANai's 32 MiB code reach, low enough that bad
// input cannot exhaust memory.
const maxSection = 64 << 20

// emitFill appends n fill bytes.
func (a *assembler) emitFill(n int64, fill byte) {
	s := a.cur
	if n < 0 || int64(s.offset())+n > maxSection {
		a.errorf(a.line.pos, "fill size %d out of range (a section may hold at most %d MiB)", n, maxSection>>20)
		return
	}
	if s.nobits() {
		if fill != 0 {
			a.errorf(a.line.pos, "non-zero fill in section %s, which has no contents (nobits)", s.name)
		}
		s.size += uint32(n)
		return
	}
	if a.contents+n > maxSection {
		a.errorf(a.line.pos, "fill size %d out of range (the sections may hold at most %d MiB in all)", n, maxSection>>20)
		return
	}
	a.contents += n
	for i := int64(0); i < n; i++ {
		s.data = append(s.data, fill)
	}
}

// codePad is the word LLVM's assembler pads code with: "addc %r0, 0x0, %rr1".
const codePad = 0x15000000

// alignTo pads the current section to a multiple of n bytes.
func (a *assembler) alignTo(n uint32, fill *byte, maxSkip int64) {
	if n == 0 || n&(n-1) != 0 {
		a.errorf(a.line.pos, "alignment %d is not a power of two", n)
		return
	}
	s := a.cur
	if n > s.align {
		s.align = n
	}
	off := s.offset()
	pad := (n - off%n) % n
	if maxSkip > 0 && int64(pad) > maxSkip {
		return
	}
	if !s.nobits() && (int64(off)+int64(pad) > maxSection || a.contents+int64(pad) > maxSection) {
		a.errorf(a.line.pos, "alignment %d: %d bytes of padding out of range (the sections may hold at most %d MiB)", n, pad, maxSection>>20)
		return
	}
	if s.isCode() && fill == nil && !s.nobits() {
		start := len(s.data)
		for pad > 0 && off%4 != 0 {
			s.data = append(s.data, 0)
			off++
			pad--
		}
		for ; pad >= 4; pad -= 4 {
			s.data = append(s.data, codePad>>24, codePad>>16&255, codePad>>8&255, codePad&255)
		}
		a.contents += int64(len(s.data) - start)
		a.emitFill(int64(pad), 0)
		return
	}
	var f byte
	if fill != nil {
		f = *fill
	}
	a.emitFill(int64(pad), f)
}

// file assembles one source file.
func (a *assembler) file(name string, text []byte, depth int) {
	lines := strings.Split(string(text), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	src := make([]srcLine, len(lines))
	for i, l := range lines {
		src[i] = srcLine{text: strings.TrimRight(l, "\r"), pos: Pos{File: name, Line: i + 1}}
	}
	a.lines(src, depth)
}

// lines assembles lines, with conditionals and macro definitions.
func (a *assembler) lines(src []srcLine, depth int) {
	inBlock := false
	for i := range src {
		l := src[i]
		if a.defining != nil {
			a.collectMacroLine(l)
			continue
		}
		a.line, a.linePtr = l, &src[i]
		stmts, offs, notEq := splitStatements(a.stmtBuf[:0], a.offBuf[:0], l.text, &inBlock)
		a.stmtBuf, a.offBuf = stmts[:0], offs[:0]
		if notEq >= 0 && a.live() {
			a.warnf(Pos{File: l.pos.File, Line: l.pos.Line, Col: notEq + 1}, "'!' starts a comment, so '!=' and the rest of the line are ignored (as llvm-mc ignores them); write '<>' for not-equal")
		}
		for k, st := range stmts {
			a.statement(st, offs[k], depth)
			if a.defining != nil && k+1 < len(stmts) {
				a.errorf(l.pos, "statements after .macro on the same line are not supported")
				break
			}
		}
	}
}

// live reports whether lines are being assembled (not skipped by .if).
func (a *assembler) live() bool {
	return len(a.conds) == 0 || a.conds[len(a.conds)-1].active
}

// statement assembles one statement.
func (a *assembler) statement(st string, off int, depth int) {
	// One parser (and token buffer) per nesting level, reused from
	// statement to statement: a macro expansion nests statements.
	if len(a.parsers) <= a.nesting {
		a.parsers = append(a.parsers, &parser{a: a})
	}
	p := a.parsers[a.nesting]
	a.nesting++
	a.statementAt(p, st, off, depth)
	a.nesting--
}

func (a *assembler) statementAt(p *parser, st string, off int, depth int) {
	pos := a.line.pos
	toks, lerr := lexStatement(p.toks, st, off)
	p.toks, p.i, p.pos = toks, 0, pos
	if lerr != nil {
		if a.live() {
			pos.Col = lerr.col
			a.errorf(pos, "%s", lerr.msg)
		}
		return
	}
	first := p.peek()
	// Conditionals are seen even in skipped blocks.
	if first.kind == tIdent && condDirectives[strings.ToLower(first.text)] {
		p.next()
		if err := a.conditional(strings.ToLower(first.text), p, first); err != nil {
			a.report(err, p.at(first))
		}
		return
	}
	if !a.live() {
		return
	}
	start := a.cur.offset()
	startSect := a.cur
	if err := a.statementTokens(p, depth); err != nil {
		a.report(err, p.at(first))
	}
	if a.opt.Listing && a.cur == startSect && a.cur.offset() > start && !a.expanded {
		// Bytes of an expanded macro body are listed against the
		// invocation, line by line.
		if n := len(a.calls); n > 0 {
			pos = a.calls[0]
		}
		a.listing = append(a.listing, listEntry{pos: pos, text: a.line.text, sect: a.cur, off: start, n: a.cur.offset() - start})
	}
	a.expanded = false
}

func (a *assembler) statementTokens(p *parser, depth int) error {
	// Labels: "name:" and "1:", possibly several, then a statement.
	for {
		t := p.peek()
		if p.i+1 < len(p.toks) && p.toks[p.i+1].is(":") && (t.kind == tIdent || t.kind == tNum && allDigits(t.text)) {
			p.next()
			p.next()
			if t.kind == tNum {
				a.locals[t.text]++
				a.defineLabel(a.localLabel(t.text, a.locals[t.text]), p.at(t))
			} else {
				a.defineLabel(a.lookup(t.text), p.at(t))
			}
			continue
		}
		break
	}
	if p.atEnd() {
		return nil
	}
	t := p.next()
	if t.kind != tIdent {
		return p.errAt(t, "expected a label, directive or instruction, found %v", t)
	}
	// "sym = expr"
	if p.peek().is("=") {
		p.next()
		return a.assign(p, t, false)
	}
	name := strings.ToLower(t.text)
	if strings.HasPrefix(name, ".") {
		if d, ok := directives[name]; ok {
			return d(a, p, t)
		}
		if strings.HasPrefix(name, ".cfi_") {
			return dirCFI(a, p, t)
		}
		return p.errAt(t, "unknown directive %s", t.text)
	}
	if len(a.macros) > 0 {
		if m, ok := a.macros[t.text]; ok {
			return a.expandMacro(m, p, t, depth)
		}
	}
	return a.instruction(p, t)
}

// defineLabel defines a label at the current location.
func (a *assembler) defineLabel(s *symbol, pos Pos) {
	if s.defined || s.equ != nil || s.isAbs {
		a.errorf(pos, "symbol %s is already defined (at %v)", s.name, s.defPos)
		return
	}
	if s.common {
		a.errorf(pos, "symbol %s is already a common symbol", s.name)
		return
	}
	s.sect, s.off, s.defined, s.defPos = a.cur, a.cur.offset(), true, pos
	if a.cur.flags&objfile.SHF_TLS != 0 {
		s.typ = objfile.STT_TLS // as MCELFStreamer::emitLabel
	}
}

// assign handles "sym = expr", .set and .equ.
func (a *assembler) assign(p *parser, name token, once bool) error {
	s := a.lookup(name.text) // registered before the symbols of its value, as in llvm-mc
	e, err := p.parseExpr()
	if err != nil {
		return err
	}
	if !p.atEnd() {
		return p.errAt(p.peek(), "unexpected %v after expression", p.peek())
	}
	if s.defined && !s.isAbs && s.equ == nil || once && (s.defined || s.isAbs || s.equ != nil) {
		return p.errAt(name, "symbol %s is already defined", s.name)
	}
	v, err := a.eval(e)
	s.setTo = nil
	if e.op == eSym {
		s.setTo = e.sym
	}
	switch {
	case err == nil && v.isConst() && v.variant == eNum:
		s.isAbs, s.absVal, s.equ = true, v.off, nil
	case err == nil && v.variant == eNum:
		if ls, lo, ok := v.sym.location(); ok {
			s.sect, s.off, s.equ, s.isAbs = ls, uint32(int64(lo)+v.off), nil, false
			s.base = v.sym.baseSymbol()
		} else {
			s.equ, s.isAbs = e, false
		}
	default:
		s.equ, s.isAbs = e, false
	}
	s.defined, s.defPos = true, p.at(name)
	return nil
}

// maxIncludeDepth bounds the nesting of .include.
const maxIncludeDepth = 20

// include assembles an included file. A file that includes itself, directly
// or through others, is an error naming the chain.
func (a *assembler) include(name string, p *parser, t token) error {
	if len(a.including) >= maxIncludeDepth {
		return p.errAt(t, ".include nests more than %d deep", maxIncludeDepth)
	}
	read := a.opt.ReadFile
	if read == nil {
		read = readSource
	}
	var tried []string
	dirs := append([]string{filepath.Dir(a.line.pos.File)}, a.opt.IncludeDirs...)
	if filepath.IsAbs(name) {
		dirs = []string{""}
	}
	for _, d := range dirs {
		path := filepath.Join(d, name)
		text, err := read(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				tried = append(tried, path)
				continue
			}
			return p.errAt(t, "cannot include %q: %v", name, err)
		}
		key := includeKey(path)
		for i, f := range a.including {
			if f == key {
				chain := append(append([]string(nil), a.including[i:]...), key)
				return p.errAt(t, ".include cycle: %s", strings.Join(chain, " -> "))
			}
		}
		saved, savedPtr := a.line, a.linePtr
		a.including = append(a.including, key)
		a.file(path, text, len(a.including))
		a.including = a.including[:len(a.including)-1]
		a.line, a.linePtr = saved, savedPtr
		return nil
	}
	return p.errAt(t, "cannot find include file %q (tried %s)", name, strings.Join(tried, ", "))
}

// includeKey names a file for cycle detection: its absolute, clean path.
func includeKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// readSource reads a source file from disk: a regular file or pipe of at
// most readfile.Text bytes.
func readSource(name string) ([]byte, error) { return readfile.Read(name, readfile.Text) }

// finish checks what can only be checked at the end, then resolves fixups.
func (a *assembler) finish() {
	if a.defining != nil {
		a.errorf(a.defining.body0(), "unterminated .macro %s", a.defining.name)
	}
	if len(a.conds) > 0 {
		a.errorf(a.line.pos, "unterminated .if at end of input")
	}
	a.emitDwarf()
	a.resolveSets()
	for _, s := range a.sects {
		for i := range s.fixups {
			a.resolve(s, &s.fixups[i])
		}
	}
}

// resolveSets gives each symbol .set to an expression that could not be
// evaluated where it stood (".set g, f" before "f:") its value now that
// every label is defined, as llvm-mc evaluates assignments when it writes
// the object: a label plus an offset makes the symbol a label there (so
// relocations name the symbol, and it is defined in the object), a
// constant an absolute symbol. What still names an undefined symbol, or
// fails, stays for object() to drop or report.
func (a *assembler) resolveSets() {
	for _, s := range a.symOrder {
		if s.equ == nil {
			continue
		}
		v, err := a.eval(s.equ)
		if err != nil || v.variant != eNum {
			continue
		}
		if v.isConst() {
			s.isAbs, s.absVal, s.equ = true, v.off, nil
			continue
		}
		if ls, lo, ok := v.sym.location(); ok {
			s.sect, s.off, s.equ = ls, uint32(int64(lo)+v.off), nil
			s.base = v.sym.baseSymbol()
		}
	}
}

func (m *macro) body0() Pos {
	if len(m.body) > 0 {
		return m.body[0].pos
	}
	return Pos{}
}
