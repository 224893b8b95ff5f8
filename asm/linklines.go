package asm

import (
	"lanaiemu/asm/link"
	"lanaiemu/objfile"
)

// LinkWithLines links the assembled objects (names are their file names,
// for messages) and carries each instruction's source line into the
// executable's line-table section (objfile.LinesSectionName), which the
// debugger and the emulator's traces read. Results assembled without
// Options.LineInfo add no lines. opt.Placed, if set, is still called.
func LinkWithLines(results []*Result, names []string, opt link.Options) (*objfile.File, error) {
	type key struct {
		obj int
		sec *objfile.Section
	}
	placed := map[key]uint32{}
	outer := opt.Placed
	opt.Placed = func(obj int, sec *objfile.Section, addr uint32) {
		placed[key{obj, sec}] = addr
		if outer != nil {
			outer(obj, sec, addr)
		}
	}
	objs := make([]*objfile.File, len(results))
	for i, r := range results {
		objs[i] = r.Object
	}
	exe, err := link.Link(objs, names, opt)
	if err != nil {
		return nil, err
	}
	var lines []objfile.LineEntry
	for i, res := range results {
		for _, l := range res.Lines {
			if base, ok := placed[key{i, l.Section}]; ok {
				lines = append(lines, objfile.LineEntry{Addr: base + l.Offset, File: l.File, Line: l.Line})
			}
		}
	}
	if len(lines) > 0 {
		data := objfile.EncodeLines(lines)
		exe.Sections = append(exe.Sections, &objfile.Section{Name: objfile.LinesSectionName, Type: objfile.SHT_PROGBITS,
			Align: 1, Data: data, Size: uint32(len(data))})
	}
	return exe, nil
}
