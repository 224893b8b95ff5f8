package objfile

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// LinesSectionName is the name of the non-allocated section in which
// lanai-as records, in a linked executable, the source line of every
// instruction (for debuggers: breakpoints at file:line, and source
// positions in reports). Its contents are text, one instruction per line:
// "<address in hex> <file>:<line>".
const LinesSectionName = ".lanai.lines"

// LineEntry is the source position of the instruction at Addr.
type LineEntry struct {
	Addr uint32
	File string
	Line int
}

// EncodeLines makes the contents of a lines section, sorted by address.
func EncodeLines(entries []LineEntry) []byte {
	es := append([]LineEntry(nil), entries...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].Addr < es[j].Addr })
	var b bytes.Buffer
	for _, e := range es {
		fmt.Fprintf(&b, "%08x %s:%d\n", e.Addr, e.File, e.Line)
	}
	return b.Bytes()
}

// DecodeLines reads the contents of a lines section.
func DecodeLines(data []byte) ([]LineEntry, error) {
	var out []LineEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		addr, pos, ok := strings.Cut(sc.Text(), " ")
		i := strings.LastIndexByte(pos, ':')
		if !ok || i < 0 {
			return nil, fmt.Errorf("%s line %d: malformed entry %q", LinesSectionName, n, sc.Text())
		}
		a, err1 := strconv.ParseUint(addr, 16, 32)
		l, err2 := strconv.Atoi(pos[i+1:])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s line %d: malformed entry %q", LinesSectionName, n, sc.Text())
		}
		out = append(out, LineEntry{Addr: uint32(a), File: pos[:i], Line: l})
	}
	return out, sc.Err()
}

// Lines returns the line table of an executable, or nil if it has none.
func (f *File) Lines() ([]LineEntry, error) {
	s := f.Section(LinesSectionName)
	if s == nil {
		return nil, nil
	}
	return DecodeLines(s.Data)
}
