package asm

import (
	"fmt"
	"sort"
	"strings"

	"lanaiemu/objfile"
)

// directive handles a directive; t is the directive's name token.
type directive func(a *assembler, p *parser, t token) error

// directives is the table of directives (lower-case names).
var directives map[string]directive

// condDirectives are seen even inside skipped .if blocks.
var condDirectives = map[string]bool{".if": true, ".ifdef": true, ".ifndef": true, ".else": true, ".elseif": true, ".endif": true}

func init() {
	directives = map[string]directive{
		".text":        sectionDirective(".text"),
		".data":        sectionDirective(".data"),
		".bss":         sectionDirective(".bss"),
		".section":     dirSection,
		".pushsection": dirSection,
		".popsection":  dirPopSection,
		".previous":    dirPrevious,
		".globl":       bindDirective(objfile.STB_GLOBAL),
		".global":      bindDirective(objfile.STB_GLOBAL),
		".weak":        bindDirective(objfile.STB_WEAK),
		".local":       bindDirective(objfile.STB_LOCAL),
		".hidden":      symbolListDirective(func(s *symbol) { s.visibility = objfile.STV_HIDDEN }),
		".protected":   symbolListDirective(func(s *symbol) { s.visibility = objfile.STV_PROTECTED }),
		".internal":    symbolListDirective(func(s *symbol) { s.visibility = objfile.STV_INTERNAL }),
		".type":        dirType,
		".size":        dirSize,
		".file":        dirFile,
		".ident":       dirIdent,
		".addrsig":     dirAddrsig,
		".addrsig_sym": dirAddrsigSym,
		".loc":         dirLoc,
		".uleb128":     lebDirective(false),
		".sleb128":     lebDirective(true),
		".p2align":     alignDirective(true),
		".p2alignw":    alignDirective(true),
		".p2alignl":    alignDirective(true),
		".align":       alignDirective(false),
		".balign":      alignDirective(false),
		".byte":        dataDirective(1),
		".short":       dataDirective(2),
		".half":        dataDirective(2),
		".hword":       dataDirective(2),
		".2byte":       dataDirective(2),
		".long":        dataDirective(4),
		".int":         dataDirective(4),
		".word":        dataDirective(4),
		".4byte":       dataDirective(4),
		".quad":        dataDirective(8),
		".8byte":       dataDirective(8),
		".ascii":       stringDirective(false),
		".asciz":       stringDirective(true),
		".string":      stringDirective(true),
		".zero":        dirZero,
		".space":       dirZero,
		".skip":        dirZero,
		".fill":        dirFill,
		".set":         dirSet(false),
		".equ":         dirSet(false),
		".equiv":       dirSet(true),
		".comm":        commDirective(false),
		".lcomm":       commDirective(true),
		".include":     dirInclude,
		".macro":       dirMacro,
		".endm":        dirStrayEndm,
		".endmacro":    dirStrayEndm,
		".err":         dirErr,
		".error":       dirErr,
		".end":         func(*assembler, *parser, token) error { return nil },
	}
}

// symbolComma reads "name," at the start of a directive's operands.
func (p *parser) symbolComma() (token, error) {
	n := p.next()
	if n.kind != tIdent {
		return n, p.errAt(n, "expected a symbol name, found %v", n)
	}
	return n, p.expect(",")
}

// endStatement fails unless the statement is complete.
func endStatement(p *parser) error {
	if !p.atEnd() {
		return p.errAt(p.peek(), "unexpected %v", p.peek())
	}
	return nil
}

func sectionDirective(name string) directive {
	return func(a *assembler, p *parser, t token) error {
		// ".text N" names a subsection, which llvm-mc places after the
		// lower-numbered ones; only subsection 0, the section itself, is
		// supported.
		if !p.atEnd() {
			args, err := constArgs(a, p, 1, 1)
			if err != nil {
				return err
			}
			if args[0].v != 0 {
				return p.errAt(t, "subsection %d: subsections are not supported (only %s 0)", args[0].v, name)
			}
		}
		a.prev = a.cur
		a.cur = a.section(name, "", 0, 0)
		return nil
	}
}

// dirSection handles .section name[, "flags"[, @type[, entsize]]].
func dirSection(a *assembler, p *parser, t token) error {
	var name string
	switch n := p.next(); n.kind {
	case tStr:
		name = n.text
	case tIdent:
		// As llvm-mc (ELFAsmParser::ParseSectionName), a name goes on
		// through adjacent tokens: .note.GNU-stack.
		name = n.text
		for last := n; !p.atEnd() && !p.peek().is(",") && p.peek().kind != tStr && p.peek().col == last.col+len(last.text); {
			last = p.next()
			name += last.text
		}
	default:
		return p.errAt(n, "expected a section name, found %v", n)
	}
	var flags string
	var typ, entsize uint32
	if p.accept(",") {
		f := p.next()
		if f.kind != tStr {
			return p.errAt(f, "expected a flags string such as \"aw\", found %v", f)
		}
		for _, c := range f.text {
			switch {
			case c == 'G':
				return p.errAt(f, "section groups (flag 'G') are not supported")
			case c == 'o':
				return p.errAt(f, "sections linked to a symbol (flag 'o') are not supported")
			case !strings.ContainsRune("awxMST?", c):
				return p.errAt(f, "unknown section flag %q", c)
			}
		}
		flags = f.text
		if p.accept(",") {
			if !p.accept("@") && !p.accept("%") {
				return p.errAt(p.peek(), "expected @progbits or @nobits")
			}
			ty := p.next()
			var ok bool
			if typ, ok = sectionTypes[ty.text]; !ok {
				return p.errAt(ty, "unknown section type %q", ty.text)
			}
			if p.accept(",") {
				e, err := p.parseExpr()
				if err != nil {
					return err
				}
				v, err := a.evalConst(e)
				if err != nil {
					return err
				}
				entsize = uint32(v)
			}
		}
	}
	if err := endStatement(p); err != nil {
		return err
	}
	if flags != "" || typ != 0 || entsize != 0 {
		if err := a.checkSectionChange(name, flags, typ, entsize); err != nil {
			return p.errAt(t, "%v", err)
		}
	}
	if strings.ToLower(t.text) == ".pushsection" {
		a.stack = append(a.stack, a.cur)
	}
	a.prev = a.cur
	a.cur = a.section(name, flags, typ, entsize)
	return nil
}

// sectionTypes are the types .section takes after its flags.
var sectionTypes = map[string]uint32{
	"progbits": objfile.SHT_PROGBITS, "nobits": objfile.SHT_NOBITS, "note": objfile.SHT_NOTE,
	"init_array": objfile.SHT_INIT_ARRAY, "fini_array": objfile.SHT_FINI_ARRAY,
	"preinit_array": objfile.SHT_PREINIT_ARRAY, "llvm_addrsig": objfile.SHT_LLVM_ADDRSIG,
}

// checkSectionChange refuses, as llvm-mc does, a .section that gives a
// section that already exists (entered before, or one llvm-mc makes before
// the source: presetSections) other flags, another type or another entry
// size than it has: the section would keep its own in silence.
func (a *assembler) checkSectionChange(name, flags string, typ, entsize uint32) error {
	var has presetSection
	if s, ok := a.sectByN[name]; ok {
		has = presetSection{s.flags, s.typ, s.entsize}
	} else if ps, ok := presetSections[name]; ok {
		has = presetSection{ps.flags, ps.sectionType(), ps.entsize}
	} else {
		return nil
	}
	want, _ := nameDefaults(name)
	for _, c := range flags {
		want |= sectionFlagBits[c]
	}
	switch {
	case typ != 0 && typ != has.typ:
		return fmt.Errorf("changed section type for %s, expected: %#x", name, has.typ)
	case want != has.flags:
		return fmt.Errorf("changed section flags for %s, expected: %#x", name, has.flags)
	case entsize != has.entsize:
		return fmt.Errorf("changed section entsize for %s, expected: %d", name, has.entsize)
	}
	return nil
}

func dirPopSection(a *assembler, p *parser, t token) error {
	if len(a.stack) == 0 {
		return p.errAt(t, ".popsection without .pushsection")
	}
	a.prev = a.cur
	a.cur = a.stack[len(a.stack)-1]
	a.stack = a.stack[:len(a.stack)-1]
	return nil
}

func dirPrevious(a *assembler, p *parser, t token) error {
	if a.prev == nil {
		return p.errAt(t, ".previous without a previous section")
	}
	a.cur, a.prev = a.prev, a.cur
	return nil
}

// symbolList parses a comma-separated list of symbol names.
func symbolList(p *parser) ([]token, error) {
	var names []token
	for {
		n := p.next()
		if n.kind != tIdent {
			return nil, p.errAt(n, "expected a symbol name, found %v", n)
		}
		names = append(names, n)
		if !p.accept(",") {
			return names, endStatement(p)
		}
	}
}

func symbolListDirective(f func(*symbol)) directive {
	return func(a *assembler, p *parser, t token) error {
		names, err := symbolList(p)
		if err != nil {
			return err
		}
		for _, n := range names {
			f(a.lookup(n.text))
		}
		return nil
	}
}

func bindDirective(bind uint8) directive {
	return func(a *assembler, p *parser, t token) error {
		names, err := symbolList(p)
		if err != nil {
			return err
		}
		for _, n := range names {
			s := a.lookup(n.text)
			s.bind, s.bindSet = bind, true
		}
		return nil
	}
}

// dirType handles .type sym, @function|@object|@notype.
func dirType(a *assembler, p *parser, t token) error {
	n, err := p.symbolComma()
	if err != nil {
		return err
	}
	p.accept("@")
	p.accept("%")
	ty := p.next()
	v, ok := symbolTypes[ty.text]
	if !ok {
		return p.errAt(ty, "unknown symbol type %v", ty)
	}
	s := a.lookup(n.text)
	s.typ = combineTypes(s.typ, v)
	return endStatement(p)
}

// symbolTypes are the types .type takes (ELFAsmParser's MCAttrForString;
// "common" makes an object, as in llvm-mc).
var symbolTypes = map[string]uint8{
	"function": objfile.STT_FUNC, "object": objfile.STT_OBJECT, "notype": objfile.STT_NOTYPE,
	"tls_object": objfile.STT_TLS, "common": objfile.STT_OBJECT,
	"STT_FUNC": objfile.STT_FUNC, "STT_OBJECT": objfile.STT_OBJECT, "STT_NOTYPE": objfile.STT_NOTYPE,
	"STT_TLS": objfile.STT_TLS, "STT_COMMON": objfile.STT_OBJECT,
}

// typeRank orders symbol types as llvm-mc's CombineSymbolTypes does.
var typeRank = map[uint8]int{objfile.STT_NOTYPE: 0, objfile.STT_OBJECT: 1, objfile.STT_FUNC: 2, objfile.STT_TLS: 4}

// combineTypes is a symbol's type after a .type of newType: the stronger
// of the two (no type < object < function < thread-local), so a later
// .type never weakens an earlier one (MCELFStreamer::emitSymbolAttribute).
func combineTypes(old, newType uint8) uint8 {
	if typeRank[old] > typeRank[newType] {
		return old
	}
	return newType
}

func dirSize(a *assembler, p *parser, t token) error {
	n, err := p.symbolComma()
	if err != nil {
		return err
	}
	// llvm-mc only evaluates .size: it registers no symbol.
	a.quiet = true
	e, err := p.parseExpr()
	a.quiet = false
	if err != nil {
		return err
	}
	a.symbolNamed(n.text).size = e
	return endStatement(p)
}

func dirFile(a *assembler, p *parser, t token) error {
	n := p.next()
	if n.kind == tNum { // ".file N ["dir"] "name" [md5 0x...]": DWARF's file table
		return a.dwarfFile(p, n)
	}
	if n.kind != tStr {
		return p.errAt(n, "expected a file name string, found %v", n)
	}
	a.files = append(a.files, fileSymbol{name: n.text, symPos: len(a.symOrder), sectPos: len(a.sects)})
	return endStatement(p)
}

// dirIdent handles .ident "string": as llvm-mc (MCELFStreamer::emitIdent),
// the string and a NUL go to .comment (mergeable strings, entry size 1),
// which the first .ident starts with a NUL.
func dirIdent(a *assembler, p *parser, t token) error {
	n := p.next()
	if n.kind != tStr {
		return p.errAt(n, "expected a string, found %v", n)
	}
	if err := endStatement(p); err != nil {
		return err
	}
	saved := a.cur
	a.cur = a.section(".comment", "MS", objfile.SHT_PROGBITS, 1)
	if !a.seenIdent {
		a.emit(0)
		a.seenIdent = true
	}
	a.emit([]byte(n.text)...)
	a.emit(0)
	a.cur = saved
	return nil
}

// dirAddrsig handles .addrsig: the object gets LLVM's address-significance
// table (.llvm_addrsig).
func dirAddrsig(a *assembler, p *parser, t token) error {
	a.addrsig = true
	return endStatement(p)
}

// dirAddrsigSym handles .addrsig_sym name: name is address-significant,
// so it goes into the symbol table (with or without .addrsig) and, with
// .addrsig, into the table.
func dirAddrsigSym(a *assembler, p *parser, t token) error {
	n := p.next()
	if n.kind != tIdent {
		return p.errAt(n, "expected a symbol name, found %v", n)
	}
	if err := endStatement(p); err != nil {
		return err
	}
	a.addrsigSyms = append(a.addrsigSyms, a.lookup(n.text))
	return nil
}

// alignDirective handles .p2align (power of two) and .align/.balign (bytes,
// as LLVM's Lanai target reads .align).
func alignDirective(pow2 bool) directive {
	return func(a *assembler, p *parser, t token) error {
		args, err := constArgs(a, p, 1, 3)
		if err != nil {
			return err
		}
		n := args[0].v
		if pow2 {
			if n < 0 || n > 31 {
				return p.errAt(t, "alignment power %d out of range", n)
			}
			n = 1 << n
		}
		if n < 1 || n > 1<<30 {
			return p.errAt(t, "alignment %d out of range", n)
		}
		var fill *byte
		if len(args) > 1 && args[1].given {
			f := byte(args[1].v)
			fill = &f
		}
		var maxSkip int64
		if len(args) > 2 {
			maxSkip = args[2].v
		}
		a.alignTo(uint32(n), fill, maxSkip)
		return nil
	}
}

type constArg struct {
	v     int64
	given bool
}

// constArgs parses between min and max comma-separated constant
// expressions; empty arguments ("a,,b") are allowed after the first.
func constArgs(a *assembler, p *parser, min, max int) ([]constArg, error) {
	var args []constArg
	for {
		if len(args) > 0 && (p.peek().is(",") || p.atEnd()) {
			args = append(args, constArg{})
		} else {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			v, err := a.evalConst(e)
			if err != nil {
				return nil, err
			}
			args = append(args, constArg{v, true})
		}
		if len(args) > max {
			return nil, p.errAt(p.peek(), "too many arguments")
		}
		if !p.accept(",") {
			break
		}
	}
	if len(args) < min {
		return nil, p.errAt(p.peek(), "expected %d arguments", min)
	}
	return args, endStatement(p)
}

// dataDirective handles .byte/.short/.long/.quad: each value is emitted now
// as zero and patched when every symbol is known.
func dataDirective(size int) directive {
	return func(a *assembler, p *parser, t token) error {
		if p.atEnd() {
			return nil
		}
		for {
			e, err := p.parseExpr()
			if err != nil {
				return err
			}
			a.addFixup(fixup{kind: fixData, size: uint8(size), e: e, col: int32(e.pos.Col)})
			a.emit(make([]byte, size)...)
			if !p.accept(",") {
				return endStatement(p)
			}
		}
	}
}

func stringDirective(nul bool) directive {
	return func(a *assembler, p *parser, t token) error {
		for {
			s := p.next()
			if s.kind != tStr {
				return p.errAt(s, "expected a string, found %v", s)
			}
			a.emit([]byte(s.text)...)
			if nul {
				a.emit(0)
			}
			if !p.accept(",") {
				return endStatement(p)
			}
		}
	}
}

// dirZero handles .zero/.space/.skip size[, fill].
func dirZero(a *assembler, p *parser, t token) error {
	args, err := constArgs(a, p, 1, 2)
	if err != nil {
		return err
	}
	var fill byte
	if len(args) > 1 {
		fill = byte(args[1].v)
	}
	a.emitFill(args[0].v, fill)
	return nil
}

// dirFill handles .fill repeat[, size[, value]].
func dirFill(a *assembler, p *parser, t token) error {
	args, err := constArgs(a, p, 1, 3)
	if err != nil {
		return err
	}
	repeat, size, val := args[0].v, int64(1), int64(0)
	if len(args) > 1 && args[1].given {
		size = args[1].v
	}
	if len(args) > 2 {
		val = args[2].v
	}
	if size < 0 || size > 8 {
		return p.errAt(t, ".fill size %d out of range 0..8", size)
	}
	if repeat < 0 || repeat*size > maxSection {
		return p.errAt(t, ".fill repeat count %d out of range", repeat)
	}
	for i := int64(0); i < repeat; i++ {
		for k := size - 1; k >= 0; k-- {
			if k >= 4 {
				a.emit(0) // GNU as fills above four bytes with zeros
			} else {
				a.emit(byte(val >> (8 * k)))
			}
		}
	}
	return nil
}

func dirSet(once bool) directive {
	return func(a *assembler, p *parser, t token) error {
		n, err := p.symbolComma()
		if err != nil {
			return err
		}
		return a.assign(p, n, once)
	}
}

// commDirective handles .comm and .lcomm sym, size[, align].
func commDirective(local bool) directive {
	return func(a *assembler, p *parser, t token) error {
		n, err := p.symbolComma()
		if err != nil {
			return err
		}
		args, err := constArgs(a, p, 1, 2)
		if err != nil {
			return err
		}
		size, align := args[0].v, int64(1)
		if len(args) > 1 {
			align = args[1].v
		}
		if size < 0 || size > 1<<30 || align < 1 || align > 1<<20 || align&(align-1) != 0 {
			return p.errAt(t, "bad size %d or alignment %d", size, align)
		}
		s := a.lookup(n.text)
		if s.defined {
			return p.errAt(n, "symbol %s is already defined", s.name)
		}
		// As llvm-mc: a common block is an object of its size (a .size
		// before it gives way, one after it wins).
		s.typ = objfile.STT_OBJECT
		// ".local sym" then ".comm sym" (as clang writes file-scope
		// statics) is a local common block: allocate it in .bss.
		if local || s.bindSet && s.bind == objfile.STB_LOCAL {
			saved := a.cur
			a.cur = a.section(".bss", "", 0, 0)
			a.alignTo(uint32(align), nil, 0)
			a.defineLabel(s, p.at(n))
			a.emitFill(size, 0)
			a.cur = saved
			s.size = a.newExpr(expr{op: eNum, val: size, pos: p.at(n)})
			return nil
		}
		s.common, s.csize, s.calign = true, uint32(size), uint32(align)
		if !s.bindSet {
			s.bind = objfile.STB_GLOBAL
		}
		return nil
	}
}

func dirInclude(a *assembler, p *parser, t token) error {
	n := p.next()
	if n.kind != tStr {
		return p.errAt(n, "expected a file name string, found %v", n)
	}
	if err := endStatement(p); err != nil {
		return err
	}
	return a.include(n.text, p, t)
}

func dirErr(a *assembler, p *parser, t token) error {
	msg := ".err encountered"
	if n := p.peek(); n.kind == tStr {
		msg = n.text
	}
	return p.errAt(t, "%s", msg)
}

func dirStrayEndm(a *assembler, p *parser, t token) error {
	return p.errAt(t, "%s without .macro", t.text)
}

// conditional handles .if, .ifdef, .ifndef, .elseif, .else and .endif.
func (a *assembler) conditional(name string, p *parser, t token) error {
	switch name {
	case ".if", ".ifdef", ".ifndef":
		outer := a.live()
		c := cond{outerLive: outer}
		if outer {
			ok, err := a.condValue(name, p)
			if err != nil {
				a.conds = append(a.conds, cond{outerLive: outer, taken: true})
				return err
			}
			c.active, c.taken = ok, ok
		}
		a.conds = append(a.conds, c)
		return nil
	case ".else", ".elseif":
		if len(a.conds) == 0 {
			return p.errAt(t, "%s without .if", name)
		}
		c := &a.conds[len(a.conds)-1]
		if c.seenElse {
			return p.errAt(t, "%s after .else", name)
		}
		if name == ".else" {
			c.seenElse = true
			c.active = c.outerLive && !c.taken
			c.taken = true
			return endStatement(p)
		}
		c.active = false
		if c.outerLive && !c.taken {
			ok, err := a.condValue(".if", p)
			if err != nil {
				c.taken = true
				return err
			}
			c.active, c.taken = ok, ok
		}
		return nil
	default: // .endif
		if len(a.conds) == 0 {
			return p.errAt(t, ".endif without .if")
		}
		a.conds = a.conds[:len(a.conds)-1]
		return endStatement(p)
	}
}

func (a *assembler) condValue(name string, p *parser) (bool, error) {
	if name == ".if" {
		a.quiet = true // llvm-mc only evaluates the condition
		e, err := p.parseExpr()
		a.quiet = false
		if err != nil {
			return false, err
		}
		v, err := a.evalConst(e)
		if err != nil {
			return false, err
		}
		return v != 0, endStatement(p)
	}
	n := p.next()
	if n.kind != tIdent {
		return false, p.errAt(n, "expected a symbol name, found %v", n)
	}
	s, ok := a.syms[n.text]
	def := ok && (s.defined || s.common)
	if name == ".ifndef" {
		def = !def
	}
	return def, endStatement(p)
}

// dirMacro starts a macro definition: .macro name [param[=default]][, ...].
func dirMacro(a *assembler, p *parser, t token) error {
	n := p.next()
	if n.kind != tIdent {
		return p.errAt(n, "expected a macro name, found %v", n)
	}
	m := &macro{name: n.text}
	for !p.atEnd() {
		pt := p.next()
		if pt.kind != tIdent {
			return p.errAt(pt, "expected a parameter name, found %v", pt)
		}
		mp := macroParam{name: pt.text}
		if p.accept("=") {
			var parts []string
			for !p.atEnd() && !p.peek().is(",") {
				parts = append(parts, p.next().text)
			}
			mp.def = strings.Join(parts, "")
		}
		m.params = append(m.params, mp)
		p.accept(",")
	}
	if _, ok := directives[strings.ToLower(n.text)]; ok {
		return p.errAt(n, "macro name %s is a directive", n.text)
	}
	a.defining, a.defDepth = m, 0
	return nil
}

// collectMacroLine adds a line to the macro being defined, or ends it.
func (a *assembler) collectMacroLine(l srcLine) {
	word := strings.ToLower(firstWord(l.text))
	switch word {
	case ".macro":
		a.defDepth++
	case ".endm", ".endmacro":
		if a.defDepth == 0 {
			m := a.defining
			a.defining = nil
			if _, dup := a.macros[m.name]; dup {
				a.line = l
				a.errorf(l.pos, "macro %s is already defined", m.name)
				return
			}
			a.macros[m.name] = m
			return
		}
		a.defDepth--
	}
	a.defining.body = append(a.defining.body, l)
}

func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t;!")
	if i < 0 {
		return s
	}
	return s[:i]
}

// maxExpansions caps the macro expansions of one assembly.
const maxExpansions = 100000

// expandMacro substitutes the arguments into a macro's body and assembles it.
func (a *assembler) expandMacro(m *macro, p *parser, t token, depth int) error {
	if depth > 100 {
		return p.errAt(t, "macro expansion nests too deeply (recursive macro %s?)", m.name)
	}
	if a.expand >= maxExpansions {
		return p.errAt(t, "more than %d macro expansions", maxExpansions)
	}
	// Arguments are the raw text between commas.
	var args []string
	var cur []string
	for !p.atEnd() {
		tk := p.next()
		if tk.is(",") {
			args = append(args, strings.Join(cur, " "))
			cur = nil
			continue
		}
		txt := tk.text
		if tk.kind == tStr {
			txt = fmt.Sprintf("%q", tk.text)
		}
		cur = append(cur, txt)
	}
	if len(cur) > 0 || len(args) > 0 {
		args = append(args, strings.Join(cur, " "))
	}
	if len(args) > len(m.params) {
		return p.errAt(t, "macro %s takes %d arguments, got %d", m.name, len(m.params), len(args))
	}
	a.expand++
	repl := []string{`\@`, fmt.Sprint(a.expand)}
	// Longer names first, so that \ab is not read as \a followed by b.
	order := make([]int, len(m.params))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return len(m.params[order[x]].name) > len(m.params[order[y]].name) })
	for _, i := range order {
		mp := m.params[i]
		v := mp.def
		if i < len(args) && args[i] != "" {
			v = args[i]
		}
		repl = append(repl, `\`+mp.name, v)
	}
	r := strings.NewReplacer(repl...)
	body := make([]srcLine, len(m.body))
	for i, l := range m.body {
		body[i] = srcLine{text: r.Replace(l.text), pos: l.pos}
	}
	saved, savedPtr := a.line, a.linePtr
	a.calls = append(a.calls, p.at(t))
	a.lines(body, depth+1)
	a.calls = a.calls[:len(a.calls)-1]
	a.line, a.linePtr = saved, savedPtr
	a.expanded = true
	return nil
}
