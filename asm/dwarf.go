package asm

// DWARF from clang -g: the file table (.file N "dir" "name" md5 0x...),
// the line rows (.loc), and the call frames (.cfi_startproc/.cfi_endproc
// with .cfi_sections .debug_frame). At the end the assembler writes
// .debug_line (DWARF 5) with its strings in .debug_line_str, and
// .debug_frame, as llvm-mc 14 does (llvm/lib/MC/MCDwarf.cpp): the same
// bytes and relocations (TestDebugMatchesLLVM). clang writes the other
// .debug_* sections itself as data.

import (
	"encoding/hex"
	"fmt"
	"strings"

	"lanaiemu/objfile"
)

// The line program's parameters, llvm-mc's for Lanai.
const (
	lineMinInst  = 4 // the minimum instruction length (Lanai's MinInstAlignment)
	lineBase     = -5
	lineRange    = 14
	lineOpBase   = 13
	maxDwarfFile = 1 << 16
)

// .loc flags (MCDwarf.h's DWARF2_FLAG_*).
const (
	locIsStmt = 1 << iota
	locBasicBlock
	locPrologueEnd
	locEpilogueBegin
)

// dwarfState is what the DWARF directives collected.
type dwarfState struct {
	files   map[uint64]*dwarfFile // by number; 0 is the root (the compilation unit's file)
	maxFile uint64
	loc     *lineRow // the last .loc, waiting for an instruction
	isStmt  bool     // the is_stmt flag .loc inherits
	stmtSet bool
	rows    []lineRow
	cfi     bool // .cfi_sections .debug_frame
	frames  []cfiFrame
	open    *cfiFrame
}

// dwarfFile is an entry of the file table.
type dwarfFile struct {
	dir, name string
	md5       []byte // nil when not given
}

// lineRow is a row of the line table: the instruction at off in sect,
// where label (a temporary symbol, as llvm-mc's MCDwarfLineEntry makes)
// is defined; a sequence's first row is relocated against it.
type lineRow struct {
	sect                       *section
	off                        uint32
	label                      *symbol
	file, line, col, isa, disc uint64
	flags                      uint8
}

// cfiFrame is a .cfi_startproc/.cfi_endproc pair; begin is the
// temporary symbol at the start (the FDE is relocated against it, as in
// llvm-mc).
type cfiFrame struct {
	sect       *section
	start, end uint32
	begin      *symbol
}

// dwarfFile handles ".file N ["dir"] "name" [md5 0x...]".
func (a *assembler) dwarfFile(p *parser, n token) error {
	if n.val >= maxDwarfFile {
		return p.errAt(n, "file number %d is too large", n.val)
	}
	var strs []string
	for len(strs) < 2 && p.peek().kind == tStr {
		strs = append(strs, p.next().text)
	}
	if len(strs) == 0 {
		return p.errAt(p.peek(), "expected a file name string, found %v", p.peek())
	}
	f := &dwarfFile{name: strs[len(strs)-1]}
	if len(strs) == 2 {
		f.dir = strs[0]
	}
	for !p.atEnd() {
		kw := p.next()
		switch {
		case kw.kind == tIdent && kw.text == "md5":
			v := p.next()
			if v.kind != tBigHex && v.kind != tNum {
				return p.errAt(v, "expected the MD5 sum (0x and 32 hex digits), found %v", v)
			}
			digits := strings.TrimPrefix(strings.TrimPrefix(v.text, "0x"), "0X")
			if len(digits) > 32 {
				return p.errAt(v, "MD5 sum %s is longer than 128 bits", v.text)
			}
			sum, err := hex.DecodeString(strings.Repeat("0", 32-len(digits)) + digits)
			if err != nil {
				return p.errAt(v, "bad MD5 sum %s", v.text)
			}
			f.md5 = sum
		case kw.kind == tIdent && kw.text == "source":
			return p.errAt(kw, ".file's embedded source is not supported")
		default:
			return p.errAt(kw, "expected md5 or the end of .file, found %v", kw)
		}
	}
	d := &a.dwarf
	if d.files == nil {
		d.files = map[uint64]*dwarfFile{}
	}
	if n.val == 0 && f.dir == "" {
		return p.errAt(n, ".file 0 needs the compilation directory and the file name")
	}
	d.files[n.val] = f
	d.maxFile = max(d.maxFile, n.val)
	return nil
}

// dirLoc handles ".loc file line [column] [options]": a row for the next
// instruction. Options: basic_block, prologue_end, epilogue_begin,
// is_stmt 0|1 (inherited by the next .loc), isa N, discriminator N.
func dirLoc(a *assembler, p *parser, t token) error {
	d := &a.dwarf
	if !d.stmtSet {
		d.isStmt, d.stmtSet = true, true
	}
	var nums []uint64
	for len(nums) < 3 && p.peek().kind == tNum {
		nums = append(nums, p.next().val)
	}
	if len(nums) < 2 {
		return p.errAt(p.peek(), "usage: .loc FILE LINE [COLUMN] [options]")
	}
	if _, ok := d.files[nums[0]]; !ok {
		return p.errAt(t, ".loc refers to file %d, which no .file names", nums[0])
	}
	r := lineRow{file: nums[0], line: nums[1]}
	if len(nums) == 3 {
		r.col = nums[2]
	}
	stmt := d.isStmt
	for !p.atEnd() {
		kw := p.next()
		if kw.kind != tIdent {
			return p.errAt(kw, "expected a .loc option, found %v", kw)
		}
		switch kw.text {
		case "basic_block":
			r.flags |= locBasicBlock
		case "prologue_end":
			r.flags |= locPrologueEnd
		case "epilogue_begin":
			r.flags |= locEpilogueBegin
		case "is_stmt", "isa", "discriminator":
			v := p.next()
			if v.kind != tNum {
				return p.errAt(v, "%s needs a number", kw.text)
			}
			switch kw.text {
			case "is_stmt":
				if v.val > 1 {
					return p.errAt(v, "is_stmt is 0 or 1")
				}
				stmt = v.val == 1
			case "isa":
				r.isa = v.val
			default:
				r.disc = v.val
			}
		default:
			return p.errAt(kw, "unknown .loc option %s", kw.text)
		}
	}
	d.isStmt = stmt
	if stmt {
		r.flags |= locIsStmt
	}
	d.loc = &r
	return nil
}

// lineRow records the pending .loc's row at the instruction about to be
// emitted.
func (a *assembler) lineRow() {
	if l := a.dwarf.loc; l != nil {
		l.sect, l.off = a.cur, a.cur.offset()
		l.label = a.here()
		a.dwarf.rows = append(a.dwarf.rows, *l)
		a.dwarf.loc = nil
	}
}

// lebDirective handles .uleb128 and .sleb128: constants (label
// differences included) known where they appear.
func lebDirective(signed bool) directive {
	return func(a *assembler, p *parser, t token) error {
		for {
			e, err := p.parseExpr()
			if err != nil {
				return err
			}
			v, err := a.evalConst(e)
			if err != nil {
				return err
			}
			if signed {
				a.emit(sleb(nil, v)...)
			} else {
				if v < 0 {
					return p.errAt(t, ".uleb128 of a negative value %d", v)
				}
				a.emit(uleb(nil, uint64(v))...)
			}
			if !p.accept(",") {
				return endStatement(p)
			}
		}
	}
}

// dirCFI handles the call-frame directives clang emits for Lanai.
func dirCFI(a *assembler, p *parser, t token) error {
	d := &a.dwarf
	switch strings.ToLower(t.text) {
	case ".cfi_sections":
		for {
			n := p.next()
			switch {
			case n.kind == tIdent && n.text == ".debug_frame":
				d.cfi = true
			case n.kind == tIdent && n.text == ".eh_frame":
				return p.errAt(n, ".eh_frame is not supported (clang -g for Lanai uses .debug_frame)")
			default:
				return p.errAt(n, "expected .debug_frame, found %v", n)
			}
			if !p.accept(",") {
				return endStatement(p)
			}
		}
	case ".cfi_startproc":
		if d.open != nil {
			return p.errAt(t, ".cfi_startproc inside another (missing .cfi_endproc)")
		}
		if !p.atEnd() && p.peek().text != "simple" {
			return p.errAt(p.peek(), "unexpected %v after .cfi_startproc", p.peek())
		}
		d.open = &cfiFrame{sect: a.cur, start: a.cur.offset(), begin: a.here()}
		return nil
	case ".cfi_endproc":
		if d.open == nil || d.open.sect != a.cur {
			return p.errAt(t, ".cfi_endproc without .cfi_startproc in this section")
		}
		d.open.end = a.cur.offset()
		d.frames = append(d.frames, *d.open)
		d.open = nil
		return endStatement(p)
	}
	return p.errAt(t, "%s is not supported (clang -g for Lanai emits only .cfi_sections, .cfi_startproc and .cfi_endproc)", t.text)
}

// uleb appends v in unsigned LEB128.
func uleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// sleb appends v in signed LEB128.
func sleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// addSectReloc adds a relocation against a section's symbol.
func addSectReloc(s *section, r reloc) { s.relocs = append(s.relocs, r) }

// addSymReloc adds a relocation against r.sym, which goes into the
// symbol table.
func addSymReloc(s *section, r reloc) {
	r.sym.inReloc = true
	s.relocs = append(s.relocs, r)
}

// be32 appends a big-endian word.
func be32(b []byte, v uint32) []byte { return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v)) }

// emitDwarf writes .debug_frame and .debug_line at the end of assembly.
func (a *assembler) emitDwarf() {
	d := &a.dwarf
	if d.open != nil {
		a.errorf(a.line.pos, ".cfi_startproc without .cfi_endproc at end of input")
	}
	// llvm-mc writes the frames first (MCELFStreamer::finishImpl), so
	// .debug_frame comes before a .debug_line the source did not start.
	if d.cfi && len(d.frames) > 0 {
		a.emitDebugFrame()
	}
	if len(d.files) > 0 || len(d.rows) > 0 {
		if _, ok := d.files[0]; !ok {
			if len(d.rows) > 0 {
				a.errorf(a.line.pos, "a line table from .loc needs DWARF 5's .file 0 (clang 14 -g emits it)")
			}
		} else {
			a.emitLineTable()
		}
	}
}

// lineStrings is .debug_line_str: null-terminated, each once, in order.
type lineStrings struct {
	sect *section
	off  map[string]uint32
}

func (ls *lineStrings) ref(a *assembler, b []byte, lineSect *section, s string) []byte {
	o, ok := ls.off[s]
	if !ok {
		o = uint32(len(ls.sect.data))
		ls.off[s] = o
		ls.sect.data = append(append(ls.sect.data, s...), 0)
	}
	addSectReloc(lineSect, reloc{off: lineSect.offset() + uint32(len(b)), typ: objfile.R_LANAI_32, sect: ls.sect, addend: int64(o)})
	return be32(b, 0)
}

// emitLineTable appends the DWARF 5 line table to .debug_line.
func (a *assembler) emitLineTable() {
	d := &a.dwarf
	ls := a.section(".debug_line", "", objfile.SHT_PROGBITS, 0)
	strs := &lineStrings{sect: a.section(".debug_line_str", "MS", objfile.SHT_PROGBITS, 1), off: map[string]uint32{}}
	base := ls.offset()
	root := d.files[0]
	// Directories: the compilation directory, then the others in order of
	// first use by a file.
	dirs := []string{root.dir}
	dirIndex := func(dir string) uint64 {
		if dir == "" || dir == root.dir {
			return 0
		}
		for i, x := range dirs[1:] {
			if x == dir {
				return uint64(i + 1)
			}
		}
		dirs = append(dirs, dir)
		return uint64(len(dirs) - 1)
	}
	files := make([]*dwarfFile, d.maxFile+1)
	allMD5 := true
	for i := range files {
		f := d.files[uint64(i)]
		if f == nil {
			f = &dwarfFile{}
		}
		files[i] = f
		allMD5 = allMD5 && f.md5 != nil
	}
	fileDirs := make([]uint64, len(files))
	for i, f := range files {
		fileDirs[i] = dirIndex(f.dir)
	}

	// The header after header_length; string references are relocated
	// at their final offset, so the header is built in place.
	var h []byte
	h = append(h, lineMinInst, 1, 1, byte(0x100+lineBase), lineRange, lineOpBase)
	h = append(h, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1) // standard opcode lengths
	const pre = 4 + 2 + 1 + 1 + 4                     // unit_length, version, sizes, header_length
	h = append(h, 1)                                  // directory entry format count
	h = uleb(uleb(h, 1), 0x1f)                        // DW_LNCT_path, DW_FORM_line_strp
	h = uleb(h, uint64(len(dirs)))                    // directories
	ls.data = append(ls.data, make([]byte, pre)...)
	for _, dir := range dirs {
		h = strs.ref(a, h, ls, dir)
	}
	n := 2
	if allMD5 {
		n++
	}
	h = append(h, byte(n))
	h = uleb(uleb(h, 1), 0x1f) // DW_LNCT_path, DW_FORM_line_strp
	h = uleb(uleb(h, 2), 0x0f) // DW_LNCT_directory_index, DW_FORM_udata
	if allMD5 {
		h = uleb(uleb(h, 5), 0x1e) // DW_LNCT_MD5, DW_FORM_data16
	}
	h = uleb(h, uint64(len(files)))
	for i, f := range files {
		h = strs.ref(a, h, ls, f.name)
		h = uleb(h, fileDirs[i])
		if allMD5 {
			h = append(h, f.md5...)
		}
	}
	ls.data = ls.data[:base]

	// The program: one sequence per section, in order of first row.
	var prog []byte
	progBase := base + pre + uint32(len(h))
	var order []*section
	for _, r := range d.rows {
		found := false
		for _, s := range order {
			found = found || s == r.sect
		}
		if !found {
			order = append(order, r.sect)
		}
	}
	for _, s := range order {
		file, col, line, flags := uint64(1), uint64(0), uint64(1), uint8(locIsStmt)
		var isa uint64
		first := true
		var last uint32
		for _, r := range d.rows {
			if r.sect != s {
				continue
			}
			if r.file != file {
				file = r.file
				prog = uleb(append(prog, 4), file) // DW_LNS_set_file
			}
			if r.col != col {
				col = r.col
				prog = uleb(append(prog, 5), col) // DW_LNS_set_column
			}
			if r.disc != 0 {
				sz := len(uleb(nil, r.disc))
				prog = uleb(append(uleb(append(prog, 0), uint64(sz+1)), 4), r.disc) // DW_LNE_set_discriminator
			}
			if r.isa != isa {
				isa = r.isa
				prog = uleb(append(prog, 12), isa) // DW_LNS_set_isa
			}
			if (r.flags^flags)&locIsStmt != 0 {
				flags = r.flags
				prog = append(prog, 6) // DW_LNS_negate_stmt
			}
			if r.flags&locBasicBlock != 0 {
				prog = append(prog, 7)
			}
			if r.flags&locPrologueEnd != 0 {
				prog = append(prog, 10)
			}
			if r.flags&locEpilogueBegin != 0 {
				prog = append(prog, 11)
			}
			delta := int64(r.line) - int64(line)
			if first {
				prog = append(prog, 0, 5, 2) // DW_LNE_set_address
				addSymReloc(ls, reloc{off: progBase + uint32(len(prog)), typ: objfile.R_LANAI_32, sym: r.label})
				prog = be32(prog, 0)
				prog = lineAdvance(prog, delta, 0, false)
				first = false
			} else {
				prog = lineAdvance(prog, delta, uint64(r.off-last)/lineMinInst, false)
			}
			line, last = r.line, r.off
		}
		prog = lineAdvance(prog, 0, uint64(s.offset()-last)/lineMinInst, true)
	}

	headerLen := uint32(len(h))
	unitLen := 2 + 1 + 1 + 4 + headerLen + uint32(len(prog))
	var top []byte
	top = be32(top, unitLen)
	top = append(top, 0, 5, 4, 0)
	top = be32(top, headerLen)
	ls.data = append(append(append(ls.data, top...), h...), prog...)
}

// lineAdvance appends the opcodes that advance the line by lineDelta and
// the address by addrDelta instructions and append a row (or, with end,
// end the sequence): MCDwarfLineAddr::encode.
func lineAdvance(b []byte, lineDelta int64, addrDelta uint64, end bool) []byte {
	maxSpecial := uint64((255 - lineOpBase) / lineRange)
	if end {
		if addrDelta == maxSpecial {
			b = append(b, 8) // DW_LNS_const_add_pc
		} else if addrDelta != 0 {
			b = uleb(append(b, 2), addrDelta) // DW_LNS_advance_pc
		}
		return append(b, 0, 1, 1) // DW_LNE_end_sequence
	}
	tmp := uint64(lineDelta - lineBase)
	needCopy := false
	if tmp >= lineRange || tmp+lineOpBase > 255 {
		b = sleb(append(b, 3), lineDelta) // DW_LNS_advance_line
		lineDelta = 0
		tmp = uint64(0 - lineBase)
		needCopy = true
	}
	if lineDelta == 0 && addrDelta == 0 {
		return append(b, 1) // DW_LNS_copy
	}
	tmp += lineOpBase
	if addrDelta < 256+maxSpecial {
		if op := tmp + addrDelta*lineRange; op <= 255 {
			return append(b, byte(op))
		}
		if op := tmp + (addrDelta-maxSpecial)*lineRange; op <= 255 {
			return append(b, 8, byte(op))
		}
	}
	b = uleb(append(b, 2), addrDelta)
	if needCopy {
		return append(b, 1)
	}
	return append(b, byte(tmp))
}

// emitDebugFrame writes .debug_frame: llvm-mc's CIE for Lanai (version 4,
// code alignment 4, data alignment -4, return address in r15 (rca), no
// initial instructions) and one FDE per .cfi_startproc/.cfi_endproc.
func (a *assembler) emitDebugFrame() {
	fs := a.section(".debug_frame", "", objfile.SHT_PROGBITS, 0)
	if fs.align < 4 {
		fs.align = 4
	}
	for fs.offset()%4 != 0 {
		fs.data = append(fs.data, 0)
	}
	// As llvm-mc, relocate against a temporary label at the CIE.
	cie := a.newTemp()
	cie.sect, cie.off, cie.defined = fs, fs.offset(), true
	fs.data = append(fs.data, 0, 0, 0, 12, 0xff, 0xff, 0xff, 0xff, 4, 0, 4, 0, 4, 0x7c, 15, 0)
	for _, f := range a.dwarf.frames {
		fs.data = be32(fs.data, 12)
		addSymReloc(fs, reloc{off: fs.offset(), typ: objfile.R_LANAI_32, sym: cie})
		fs.data = be32(fs.data, 0)
		addSymReloc(fs, reloc{off: fs.offset(), typ: objfile.R_LANAI_32, sym: f.begin})
		fs.data = be32(fs.data, 0)
		fs.data = be32(fs.data, f.end-f.start)
	}
}

// String describes a row (for tests and messages).
func (r lineRow) String() string {
	return fmt.Sprintf("%s+%#x file %d line %d col %d flags %#x", r.sect.name, r.off, r.file, r.line, r.col, r.flags)
}
