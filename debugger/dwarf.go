package debugger

import (
	"debug/dwarf"
	"errors"
	"io"

	"lanaiemu/objfile"
)

// dwarfLines reads the DWARF line table of an executable (clang -g's
// .debug_line, carried through lanai-ld) into line entries: one per row
// that starts a statement, the file by its full name.
func dwarfLines(f *objfile.File) ([]objfile.LineEntry, error) {
	sec := func(name string) []byte {
		for _, s := range f.Sections {
			if s.Name == name {
				return s.Data
			}
		}
		return nil
	}
	info := sec(".debug_info")
	if info == nil {
		return nil, errors.New("no .debug_info")
	}
	d, err := dwarf.New(sec(".debug_abbrev"), sec(".debug_aranges"), nil, info, sec(".debug_line"), nil, sec(".debug_ranges"), sec(".debug_str"))
	if err != nil {
		return nil, err
	}
	for _, name := range []string{".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists"} {
		if b := sec(name); b != nil {
			if err := d.AddSection(name, b); err != nil {
				return nil, err
			}
		}
	}
	var out []objfile.LineEntry
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return out, err
		}
		if e == nil {
			return out, nil
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		lr, err := d.LineReader(e)
		if err != nil || lr == nil {
			r.SkipChildren()
			continue
		}
		var le dwarf.LineEntry
		for {
			if err := lr.Next(&le); err != nil {
				if err != io.EOF {
					return out, err
				}
				break
			}
			if le.EndSequence {
				out = append(out, objfile.LineEntry{Addr: uint32(le.Address)})
				continue
			}
			if !le.IsStmt || le.File == nil || le.Line == 0 {
				continue
			}
			out = append(out, objfile.LineEntry{Addr: uint32(le.Address), File: le.File.Name, Line: le.Line})
		}
		r.SkipChildren()
	}
}
