package debugger

import (
	"sort"
	"strings"

	"lanaiemu/lanai"
	"lanaiemu/memsys"
	"lanaiemu/objfile"
)

// Program is what the debugger knows of an image: its symbols, its line
// table (lanai-as's, or DWARF's from clang -g) and the frame convention of
// its code. Threads running the same image share one.
type Program struct {
	img    *memsys.Image
	syms   *lanai.Symbols      // one name per code address, the best: labels, routines
	named  []symbol            // defined, named symbols by address (no .L labels)
	funcs  []symbol            // function symbols by address
	lines  []objfile.LineEntry // the line table by address
	imgEnd uint32              // end of the loaded sections (symbol labels stop here)
	clines []objfile.LineEntry // DWARF's line table (clang -g): an entry covers up to the next; Line 0 ends a sequence
	// ABI is the frame convention backtrace, finish and next follow.
	ABI ABI
}

// symbol is a named address of the image.
type symbol struct {
	addr, size uint32
	name       string
	fn         bool
}

// NewProgram reads the symbols and the line table of an image (img may be
// nil, or lack them: commands that need them say so). The frame
// convention is clang's (ABIClang); set ABI for other code.
func NewProgram(img *memsys.Image) *Program {
	if img == nil {
		img = &memsys.Image{}
	}
	p := &Program{img: img, ABI: ABIClang}
	p.syms = lanai.NewSymbols(img.Symbols)
	for _, s := range img.Symbols {
		if s.Name == "" || s.Type == objfile.STT_SECTION || s.Type == objfile.STT_FILE || s.IsUndefined() || s.IsCommon() || strings.HasPrefix(s.Name, ".L") {
			continue
		}
		sym := symbol{addr: s.Value, size: s.Size, name: s.Name, fn: s.Type == objfile.STT_FUNC}
		p.named = append(p.named, sym)
		if sym.fn {
			p.funcs = append(p.funcs, sym)
		}
	}
	sort.SliceStable(p.named, func(i, j int) bool { return p.named[i].addr < p.named[j].addr })
	sort.SliceStable(p.funcs, func(i, j int) bool { return p.funcs[i].addr < p.funcs[j].addr })
	if f := img.File; f != nil {
		if ls, err := f.Lines(); err == nil {
			p.lines = ls
		}
		p.clines, _ = dwarfLines(f)
		for _, s := range f.Sections {
			if s.Flags&objfile.SHF_ALLOC != 0 || f.Format == objfile.FormatCOFF {
				if end := s.Addr + s.Size; end > p.imgEnd && end >= s.Addr {
					p.imgEnd = end
				}
			}
		}
	}
	sort.SliceStable(p.lines, func(i, j int) bool { return p.lines[i].Addr < p.lines[j].Addr })
	sort.SliceStable(p.clines, func(i, j int) bool {
		a, b := p.clines[i], p.clines[j]
		return a.Addr < b.Addr || a.Addr == b.Addr && a.Line == 0 && b.Line != 0 // a sequence's end before the next one's start
	})
	return p
}

// Entry is the image's entry point.
func (p *Program) Entry() uint32 { return p.img.Entry }

// Lines gives the line tables, lanai-as's then DWARF's, each by address
// (DWARF's entries cover the addresses up to the next; Line 0 ends a
// sequence).
func (p *Program) Lines() []objfile.LineEntry {
	return append(append([]objfile.LineEntry(nil), p.lines...), p.clines...)
}

// lineTables gives the line tables in Lines' order, without its copy (for
// the loops that look at every entry).
func (p *Program) lineTables() [2][]objfile.LineEntry {
	return [2][]objfile.LineEntry{p.lines, p.clines}
}

// Symbol gives the address and size of a defined symbol.
func (p *Program) Symbol(name string) (addr, size uint32, ok bool) {
	for _, s := range p.named {
		if s.name == name {
			return s.addr, s.size, true
		}
	}
	a, ok := p.syms.Addr(name)
	return a, 0, ok
}

// Globals gives the named data symbols (objects, and other symbols that
// are not functions), by address.
func (p *Program) Globals() []Global {
	var g []Global
	for _, s := range p.named {
		if !s.fn && s.addr < p.imgEnd {
			g = append(g, Global{Name: s.name, Addr: s.addr, Size: s.size})
		}
	}
	return g
}

// Global is a data symbol.
type Global struct {
	Name       string
	Addr, Size uint32
}
