package debugger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path"

	"lanaiemu/objfile"
)

// dwarfLines reads the DWARF line tables of an executable (clang -g's, in
// .debug_line, written by the assembler and carried through lanai-ld)
// into line entries: one per statement row, with the file's path (its
// directory joined to its name), and one with Line 0 at each sequence's
// end. It reads versions 2 to 5 of the format (DWARF 5, section 6.2)
// itself, needing no compilation unit. Go 1.26's debug/dwarf cannot be
// used: before it knows a DWARF 5 unit's DW_AT_str_offsets_base it
// resolves the unit's DW_FORM_strx attributes with base 0, reading the
// header of .debug_str_offsets as string offsets; on a big-endian target
// the version field (00 05 00 00) becomes offset 0x50000 and decoding
// fails ("decoding dwarf section str at offset 0x0: underflow"; on
// little-endian x86 it reads 5 and goes on). debug/dwarf's
// collectDwarf5BaseOffsets; checked against llvm-dwarfdump in
// TestDwarfLinesMatchLLVM.
func dwarfLines(f *objfile.File) ([]objfile.LineEntry, error) {
	sec := func(name string) []byte {
		for _, s := range f.Sections {
			if s.Name == name {
				return s.Data
			}
		}
		return nil
	}
	data, lineStr, str := sec(".debug_line"), sec(".debug_line_str"), sec(".debug_str")
	var out []objfile.LineEntry
	for len(data) > 0 {
		n, rows, err := lineUnit(data, lineStr, str)
		if err != nil {
			return out, err
		}
		out = append(out, rows...)
		data = data[n:]
	}
	return out, nil
}

// lineReader reads a big-endian byte string, remembering the first error.
type lineReader struct {
	b   []byte
	err error
}

func (r *lineReader) need(n int) bool {
	if r.err == nil && len(r.b) < n {
		r.err = errors.New("the line table is truncated")
	}
	return r.err == nil
}

func (r *lineReader) u8() uint64 {
	if !r.need(1) {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return uint64(v)
}

func (r *lineReader) u16() uint64 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.b)
	r.b = r.b[2:]
	return uint64(v)
}

func (r *lineReader) u32() uint64 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return uint64(v)
}

func (r *lineReader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.need(len(r.b) + 1)
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *lineReader) uleb() uint64 {
	var v uint64
	for shift := 0; ; shift += 7 {
		c := r.u8()
		if shift < 64 {
			v |= (c & 0x7f) << shift
		}
		if c&0x80 == 0 || r.err != nil {
			return v
		}
	}
}

func (r *lineReader) sleb() int64 {
	var v int64
	shift := 0
	for {
		c := r.u8()
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 || r.err != nil {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (r *lineReader) cstring() string {
	for i, c := range r.b {
		if c == 0 {
			s := string(r.b[:i])
			r.b = r.b[i+1:]
			return s
		}
	}
	r.need(len(r.b) + 1)
	return ""
}

// strAt reads the null-terminated string at off of a string section.
func strAt(sec []byte, off uint64) (string, error) {
	if off >= uint64(len(sec)) {
		return "", fmt.Errorf("string offset %#x outside its section", off)
	}
	for i, c := range sec[off:] {
		if c == 0 {
			return string(sec[off : off+uint64(i)]), nil
		}
	}
	return "", fmt.Errorf("unterminated string at %#x", off)
}

// DWARF forms the v5 directory and file tables use.
const (
	formString   = 0x08
	formLineStrp = 0x1f
	formStrp     = 0x0e
	formUdata    = 0x0f
	formData1    = 0x0b
	formData2    = 0x05
	formData16   = 0x1e
)

// entryField reads one field of a v5 directory or file entry: a string,
// or a number (hashes and sizes are skipped).
func entryField(r *lineReader, form uint64, lineStr, str []byte) (string, uint64, error) {
	switch form {
	case formString:
		return r.cstring(), 0, r.err
	case formLineStrp:
		s, err := strAt(lineStr, r.u32())
		return s, 0, err
	case formStrp:
		s, err := strAt(str, r.u32())
		return s, 0, err
	case formUdata:
		return "", r.uleb(), r.err
	case formData1:
		return "", r.u8(), r.err
	case formData2:
		return "", r.u16(), r.err
	case formData16:
		r.bytes(16)
		return "", 0, r.err
	}
	return "", 0, fmt.Errorf("unsupported form %#x in the line table's header", form)
}

// lineUnit reads one line table: its length and rows.
func lineUnit(data, lineStr, str []byte) (int, []objfile.LineEntry, error) {
	r := &lineReader{b: data}
	length := r.u32()
	if length == 0xffffffff {
		return 0, nil, errors.New("64-bit DWARF line tables are not supported")
	}
	if r.err != nil || length > uint64(len(r.b)) {
		return 0, nil, errors.New("the line table's length is outside .debug_line")
	}
	total := int(4 + length)
	r.b = r.b[:length]
	version := r.u16()
	if version < 2 || version > 5 {
		return 0, nil, fmt.Errorf("line table version %d", version)
	}
	if version >= 5 {
		if r.u8() != 4 { // address size
			return 0, nil, errors.New("the line table's address size is not 4")
		}
		r.u8() // segment selector size
	}
	hlen := r.u32()
	if r.err != nil || hlen > uint64(len(r.b)) {
		return 0, nil, errors.New("the line table's header is truncated")
	}
	prog := r.b[hlen:]
	minInst := r.u8()
	if version >= 4 {
		r.u8() // maximum operations per instruction
	}
	defStmt := r.u8() != 0
	lbase := int64(int8(r.u8()))
	lrange := r.u8()
	opBase := r.u8()
	if lrange == 0 || opBase == 0 {
		return 0, nil, errors.New("the line table's line range or opcode base is 0")
	}
	opLens := r.bytes(opBase - 1)
	var dirs, files []string
	if version >= 5 {
		readEntries := func() ([]string, []uint64, error) {
			nf := r.u8()
			forms := make([][2]uint64, nf)
			for i := range forms {
				forms[i] = [2]uint64{r.uleb(), r.uleb()}
			}
			n := r.uleb()
			if r.err != nil || n > uint64(len(r.b)) {
				return nil, nil, errors.New("bad directory or file table")
			}
			names, dirIdx := make([]string, n), make([]uint64, n)
			for i := range names {
				for _, f := range forms {
					s, v, err := entryField(r, f[1], lineStr, str)
					if err != nil {
						return nil, nil, err
					}
					switch f[0] {
					case 1: // DW_LNCT_path
						names[i] = s
					case 2: // DW_LNCT_directory_index
						dirIdx[i] = v
					}
				}
			}
			return names, dirIdx, r.err
		}
		var err error
		if dirs, _, err = readEntries(); err != nil {
			return 0, nil, err
		}
		names, dirIdx, err := readEntries()
		if err != nil {
			return 0, nil, err
		}
		for i, n := range names {
			files = append(files, joinDir(dirs, dirIdx[i], n))
		}
	} else {
		dirs = append(dirs, "")
		for d := r.cstring(); d != "" && r.err == nil; d = r.cstring() {
			dirs = append(dirs, d)
		}
		files = append(files, "") // file numbers start at 1
		for n := r.cstring(); n != "" && r.err == nil; n = r.cstring() {
			di := r.uleb()
			r.uleb()
			r.uleb()
			files = append(files, joinDir(dirs, di, n))
		}
	}
	if r.err != nil {
		return 0, nil, r.err
	}

	// The state machine (section 6.2.2).
	p := &lineReader{b: prog}
	var rows []objfile.LineEntry
	var addr uint64
	file, line, stmt := uint64(1), int64(1), defStmt
	reset := func() { addr, file, line, stmt = 0, 1, 1, defStmt }
	emit := func() {
		if stmt && line > 0 && file < uint64(len(files)) {
			rows = append(rows, objfile.LineEntry{Addr: uint32(addr), File: files[file], Line: int(line)})
		}
	}
	for len(p.b) > 0 && p.err == nil {
		op := p.u8()
		switch {
		case op >= opBase:
			adj := op - opBase
			addr += adj / lrange * minInst
			line += lbase + int64(adj%lrange)
			emit()
		case op == 0: // extended
			n := p.uleb()
			body := &lineReader{b: p.bytes(n)}
			switch body.u8() {
			case 1: // end_sequence
				rows = append(rows, objfile.LineEntry{Addr: uint32(addr)})
				reset()
			case 2: // set_address
				addr = body.u32()
			}
		case op == 1: // copy
			emit()
		case op == 2:
			addr += p.uleb() * minInst
		case op == 3:
			line += p.sleb()
		case op == 4:
			file = p.uleb()
		case op == 5:
			p.uleb() // column
		case op == 6:
			stmt = !stmt
		case op == 7, op == 10, op == 11: // basic_block, prologue_end, epilogue_begin
		case op == 8:
			addr += (255 - opBase) / lrange * minInst
		case op == 9:
			addr += p.u16()
		default: // unknown standard opcode: skip its operands
			for i := uint64(0); i < uint64(opLens[op-1]); i++ {
				p.uleb()
			}
		}
	}
	if p.err != nil {
		return 0, rows, p.err
	}
	return total, rows, nil
}

// joinDir gives a file's path from its directory.
func joinDir(dirs []string, i uint64, name string) string {
	if path.IsAbs(name) || i >= uint64(len(dirs)) || dirs[i] == "" || dirs[i] == "." {
		return name
	}
	return path.Join(dirs[i], name)
}
