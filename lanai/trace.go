package lanai

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"lanaiemu/isa"
	"lanaiemu/objfile"
)

// Symbols maps addresses to names for traces, debuggers and reports.
type Symbols struct {
	addrs  []uint32
	names  []string
	byName map[string]uint32
}

// NewSymbols indexes the defined, named symbols of an executable (section
// and file symbols excluded).
func NewSymbols(syms []*objfile.Symbol) *Symbols {
	s := &Symbols{byName: map[string]uint32{}}
	type entry struct {
		a    uint32
		name string
		rank int
	}
	var es []entry
	for _, sym := range syms {
		if sym.Name == "" || sym.Type == objfile.STT_SECTION || sym.Type == objfile.STT_FILE || sym.IsUndefined() || sym.IsCommon() {
			continue
		}
		// Prefer functions, then data objects, then other globals (such as
		// the linker's _edata), then other locals; .L labels last.
		rank := 3
		switch {
		case strings.HasPrefix(sym.Name, ".L"):
			rank = 4
		case sym.Type == objfile.STT_FUNC:
			rank = 0
		case sym.Type == objfile.STT_OBJECT:
			rank = 1
		case sym.Bind != objfile.STB_LOCAL:
			rank = 2
		}
		if _, dup := s.byName[sym.Name]; !dup || rank < 3 {
			s.byName[sym.Name] = sym.Value
		}
		if sym.Shndx == objfile.SHN_ABS {
			continue // a constant (.set), not a place in memory: it names no code
		}
		es = append(es, entry{sym.Value, sym.Name, rank})
	}
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].a != es[j].a {
			return es[i].a < es[j].a
		}
		return es[i].rank < es[j].rank
	})
	for i, e := range es {
		if i > 0 && es[i-1].a == e.a {
			continue // keep the preferred name for an address
		}
		if e.rank == 4 {
			continue // local labels do not name code in traces
		}
		s.addrs = append(s.addrs, e.a)
		s.names = append(s.names, e.name)
	}
	return s
}

// Lookup gives "name+0xoff" for an address, or "" if no symbol precedes it.
func (s *Symbols) Lookup(a uint32) string {
	name, start, ok := s.Func(a)
	if !ok {
		return ""
	}
	if off := a - start; off != 0 {
		return fmt.Sprintf("%s+%#x", name, off)
	}
	return name
}

// Func names the code at an address: the nearest symbol at or before it
// (a function, or a label of hand-written assembly) and its address;
// false if no symbol precedes it.
func (s *Symbols) Func(a uint32) (name string, start uint32, ok bool) {
	if s == nil {
		return "", 0, false
	}
	i := sort.Search(len(s.addrs), func(i int) bool { return s.addrs[i] > a }) - 1
	if i < 0 {
		return "", 0, false
	}
	return s.names[i], s.addrs[i], true
}

// Addr finds a symbol's address.
func (s *Symbols) Addr(name string) (uint32, bool) {
	if s == nil {
		return 0, false
	}
	a, ok := s.byName[name]
	return a, ok
}

// Tracer writes one line per executed instruction: cycle, pc,
// symbol+offset, encoding, disassembly, then the registers, flags and
// memory the instruction wrote. Tracing steps the core one instruction at a
// time (the logged path); a run without a tracer takes the fast path, and
// both execute the same instruction handlers.
type Tracer struct {
	w    *bufio.Writer
	syms *Symbols
	buf  []byte
	err  error // the first write error
}

// Err is the first error writing the trace (a full disk, a closed pipe),
// or nil.
func (tr *Tracer) Err() error { return tr.err }

// NewTracer makes a tracer writing to w.
func NewTracer(w io.Writer, syms *Symbols) *Tracer {
	return &Tracer{w: bufio.NewWriterSize(w, 1<<16), syms: syms}
}

// RunTraced is Run with a line of trace per instruction. When the trace
// cannot be written it stops at once with StopNone; tr.Err says why.
func (c *CPU) RunTraced(budget uint64, tr *Tracer) *Stop {
	defer func() {
		if err := tr.w.Flush(); err != nil && tr.err == nil {
			tr.err = err
		}
	}()
	limit := c.Cycles + budget
	if limit < c.Cycles {
		limit = ^uint64(0)
	}
	for {
		if c.Cycles >= limit {
			c.stop = CycleLimit
			return c.stop
		}
		var before [sink + 1]uint32
		copy(before[:], c.R[:])
		flags, stores, pc, cycle := c.Flags, c.stores, c.PC, c.Cycles
		word, _ := c.Mem.Word(pc)
		st := c.Step()
		if st.Kind == StopTrap {
			return st // the instruction did not execute; the trap report says why
		}
		tr.line(c, cycle, pc, word, &before, flags, stores)
		if st.Kind != StopStep {
			return st
		}
		if tr.err != nil {
			return &Stop{Kind: StopNone}
		}
	}
}

func (tr *Tracer) line(c *CPU, cycle uint64, pc, word uint32, before *[sink + 1]uint32, flags isa.Flags, stores uint64) {
	text, _ := isa.Disassemble(word)
	text = strings.ReplaceAll(text, "\t", " ")
	tr.buf = fmt.Appendf(tr.buf[:0], "%10d %08x %-20s %08x  %-28s", cycle, pc, tr.syms.Lookup(pc), word, text)
	for r := 3; r < 32; r++ {
		if c.R[r] != before[r] {
			tr.buf = fmt.Appendf(tr.buf, " %s=%08x", isa.Reg(r), c.R[r])
		}
	}
	if c.Flags != flags {
		tr.buf = fmt.Appendf(tr.buf, " flags=%s", flagString(c.Flags))
	}
	if c.stores != stores {
		if b, err := c.Mem.Read(c.storeAddr, uint32(c.storeSize)); err == nil {
			tr.buf = fmt.Appendf(tr.buf, " [%08x]=%x", c.storeAddr, b)
		} else {
			tr.buf = fmt.Appendf(tr.buf, " [%08x] written", c.storeAddr)
		}
	}
	tr.buf = append(bytes.TrimRight(tr.buf, " "), '\n')
	if _, err := tr.w.Write(tr.buf); err != nil && tr.err == nil {
		tr.err = err
	}
}
