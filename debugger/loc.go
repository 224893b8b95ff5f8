package debugger

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"lanaiemu/isa"
	"lanaiemu/objfile"
)

// eval evaluates an expression (expr.go) on the selected thread: an
// address, for the commands that take one.
func (d *Debugger) eval(expr string) (uint32, error) { return d.evalIn(d.cur, expr) }

// evalIn evaluates an address expression on thread th: its program's
// symbols, its core's registers and memory.
func (d *Debugger) evalIn(th int, expr string) (uint32, error) {
	v, err := compile(d.threads[th].Program, expr)
	if err != nil {
		return 0, err
	}
	return v(d.cpuOf(th))
}

// evalKind evaluates an expression on the selected thread and says
// whether it is a value rather than an address (expr.go).
func (d *Debugger) evalKind(expr string) (v uint32, isValue bool, err error) {
	f, isValue, err := compileKind(d.p(), expr)
	if err != nil {
		return 0, false, err
	}
	v, err = f(d.cpu())
	return v, isValue, err
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$'
}

// parseNumber reads 0x hex or decimal.
func parseNumber(s string) (uint32, error) {
	var v uint64
	var err error
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		v, err = strconv.ParseUint(s[2:], 16, 32)
	} else {
		v, err = strconv.ParseUint(s, 10, 32)
	}
	if err != nil {
		return 0, fmt.Errorf("bad number %q (use 0x hex or decimal, at most 32 bits)", s)
	}
	return uint32(v), nil
}

// parseCount reads a positive count.
func parseCount(s string, max int) (int, error) {
	v, err := parseNumber(s)
	if err != nil || v == 0 || int64(v) > int64(max) {
		return 0, fmt.Errorf("bad count %q (1 to %d)", s, max)
	}
	return int(v), nil
}

// regByName accepts the register names of package isa in any case.
func regByName(name string) (isa.Reg, bool) {
	return isa.RegByName(strings.ToLower(name))
}

// location resolves a breakpoint location in the selected thread's
// program: FILE:LINE through the line table, or an address expression. It
// also describes the location.
func (d *Debugger) location(arg string) (uint32, string, error) {
	pl, err := d.locationIn(d.cur, arg)
	if err != nil {
		return 0, "", err
	}
	return pl.Addr, d.p().describe(pl.Addr), nil
}

// Place is a location resolved in one thread's program.
type Place struct {
	Thread int
	Addr   uint32
	// Line is the source line found for FILE:LINE (the first with code at
	// or after the one asked for), 0 for other locations.
	Line int
}

// locationIn resolves a breakpoint location in thread th's program:
// FILE:LINE through its line table, or an address expression with its
// symbols and its core's registers.
func (d *Debugger) locationIn(th int, arg string) (Place, error) {
	if file, line, ok := splitFileLine(arg); ok {
		e, err := d.threads[th].Program.lineAddr(file, line)
		if err != nil {
			return Place{}, err
		}
		return Place{Thread: th, Addr: e.Addr, Line: e.Line}, nil
	}
	a, err := d.evalIn(th, arg)
	if err != nil {
		return Place{}, err
	}
	return Place{Thread: th, Addr: a}, nil
}

// Places resolves a location in every thread's program (a cluster's nodes
// can run different programs, where a symbol or a line has different
// addresses or none): resolve resolves it in thread th's. Places gives the
// places where it resolved, in thread order, and for each thread the
// reason it did not (nil where it did).
func (d *Debugger) Places(resolve func(th int) (Place, error)) (at []Place, missing []error) {
	missing = make([]error, len(d.threads))
	for th := range d.threads {
		pl, err := resolve(th)
		if err != nil {
			missing[th] = err
			continue
		}
		pl.Thread = th
		at = append(at, pl)
	}
	return at, missing
}

// NotInProgram marks err as saying that a thread's program does not have
// a location's file at all (its line table has no such file, or it has no
// line table), for Reason.
func NotInProgram(err error) error { return notInProgram{err} }

// notInProgram is an error of NotInProgram.
type notInProgram struct{ error }

func (e notInProgram) Unwrap() error { return e.error }

// Reason gives why a location resolved in no thread, from Places'
// reasons: thread first's, unless its program does not have the
// location's file (NotInProgram) and another thread's does; then the
// first of those ("no code at or after twoprog-b.s:99" from the node
// that runs twoprog-b.s, not "no file" from one that does not).
func Reason(missing []error, first int) error {
	lacks := func(err error) bool { return errors.As(err, new(notInProgram)) }
	if !lacks(missing[first]) {
		return missing[first]
	}
	for _, err := range missing {
		if err != nil && !lacks(err) {
			return err
		}
	}
	return missing[first]
}

// breakPlaces resolves the location of break and log: in the selected
// thread's program; where that has no such symbol or line, in each other
// thread's program that has it (in a cluster of different programs). The
// error is the selected thread's, or Reason's.
func (d *Debugger) breakPlaces(arg string) ([]Place, error) {
	pl, err := d.locationIn(d.cur, arg)
	if err == nil {
		return []Place{pl}, nil
	}
	at, missing := d.Places(func(th int) (Place, error) { return d.locationIn(th, arg) })
	if len(at) == 0 {
		return nil, Reason(missing, d.cur)
	}
	return at, nil
}

// splitFileLine recognises FILE:LINE.
func splitFileLine(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return s[:i], n, true
}

// matchFile reports whether the line table's file name names the file
// the user wrote: the same base name when the user gave a bare name, the
// same path (or a path ending in the user's) otherwise.
func matchFile(table, user string) bool {
	if table == user { // the common case (a front end gives the table's name), without Clean's copies
		return true
	}
	if !strings.ContainsRune(user, '/') {
		return filepath.Base(table) == user
	}
	t, u := filepath.Clean(table), filepath.Clean(user)
	if t == u || strings.HasSuffix(t, "/"+strings.TrimPrefix(u, "./")) {
		return true
	}
	if at, err := filepath.Abs(t); err == nil {
		if au, err := filepath.Abs(u); err == nil && at == au {
			return true
		}
	}
	return false
}

// lineAddr finds the first instruction of FILE:LINE, or of the first line
// after it that has code.
func (p *Program) lineAddr(file string, line int) (objfile.LineEntry, error) {
	if len(p.lines) == 0 && len(p.clines) == 0 {
		return objfile.LineEntry{}, NotInProgram(fmt.Errorf("the image has no line table (build it with lanai-as, which records one)"))
	}
	var best objfile.LineEntry
	found, known := false, false
	for _, table := range p.lineTables() {
		for _, e := range table {
			if e.Line == 0 || !matchFile(e.File, file) {
				continue
			}
			known = true
			if e.Line < line {
				continue
			}
			if !found || e.Line < best.Line || e.Line == best.Line && e.Addr < best.Addr {
				best, found = e, true
			}
		}
	}
	if !known {
		return best, NotInProgram(fmt.Errorf("no file %q in the line table", file))
	}
	if !found {
		return best, fmt.Errorf("no code at or after %s:%d", file, line)
	}
	return best, nil
}

// lineAt gives the source position of the instruction at pc: the DWARF
// row covering pc (C code built with clang -g), else the entry at pc in
// lanai-as's table (one entry per instruction of assembly).
func (p *Program) lineAt(pc uint32) (objfile.LineEntry, bool) {
	if e, ok := lastAtOrBefore(p.clines, pc); ok && e.Line != 0 {
		return e, true
	}
	i := sort.Search(len(p.lines), func(i int) bool { return p.lines[i].Addr >= pc })
	if i < len(p.lines) && p.lines[i].Addr == pc {
		return p.lines[i], true
	}
	return objfile.LineEntry{}, false
}

// lineBefore gives the position of pc or, failing that, of the last
// instruction before it that has one.
func (p *Program) lineBefore(pc uint32) (objfile.LineEntry, bool) {
	if e, ok := p.lineAt(pc); ok {
		return e, true
	}
	return lastAtOrBefore(p.lines, pc)
}

// lastAtOrBefore gives the last entry of a table at or before pc.
func lastAtOrBefore(t []objfile.LineEntry, pc uint32) (objfile.LineEntry, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].Addr > pc }) - 1
	if i < 0 {
		return objfile.LineEntry{}, false
	}
	return t[i], true
}

// posString gives "file:line" (base name) for pc, or "".
func (p *Program) posString(pc uint32) string {
	if e, ok := p.lineAt(pc); ok {
		return fmt.Sprintf("%s:%d", filepath.Base(e.File), e.Line)
	}
	return ""
}

// label gives "name+0xoff" for an address inside the image, or "".
func (p *Program) label(a uint32) string {
	if a >= p.imgEnd && p.img.File != nil {
		return ""
	}
	return p.syms.Lookup(a)
}

// addrName gives "0x00001234 <name+0x4>" or "0x00001234".
func (p *Program) addrName(a uint32) string {
	if l := p.label(a); l != "" {
		return fmt.Sprintf("0x%08x <%s>", a, l)
	}
	return fmt.Sprintf("0x%08x", a)
}

// describe gives an address with its symbol and source position.
func (p *Program) describe(a uint32) string {
	s := p.addrName(a)
	if p := p.posString(a); p != "" {
		s += " at " + p
	}
	return s
}

// funcAt finds the function containing pc: the function symbol whose range
// holds it, or (for symbols without sizes) the nearest one before it.
func (p *Program) funcAt(pc uint32) (symbol, bool) {
	i := sort.Search(len(p.funcs), func(i int) bool { return p.funcs[i].addr > pc }) - 1
	for j := i; j >= 0 && p.funcs[j].addr == p.funcs[i].addr; j-- {
		if f := p.funcs[j]; f.size == 0 || pc-f.addr < f.size {
			return f, true
		}
	}
	return symbol{}, false
}
