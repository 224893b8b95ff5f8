// Package budget holds firmware paths to cycle budgets: a budget file
// names each path by the code that starts and ends it and gives the cycles
// it may cost; a Meter measures the paths while the firmware runs (one per
// core, as a profile.Observer); Check compares, names the path, its old
// and new cycles and the routine that grew; Verify does all of that for a
// Go test, with -update rewriting the file (the Go golden-file
// convention). docs/profiling.md shows the format and a walk-through.
//
// A budget file, one path a line, then the cycles of the path's worst run
// by routine (written by -update, used to say what grew):
//
//	# name        start        end      cycles  tolerance
//	spt.lock      spt_lock     ret          23  0
//		spt_lock 23
//	send.write    send_step    ret         412  +2%
//		send_step 300
//		spt_lookup 112
//
// start is a symbol, symbol+offset or address: the path starts when the
// core begins the instruction there. end is another such place (the path
// ends when the core begins it) or "ret": the address in %rca when the
// path started (the return of a routine entered by a call; a recursive
// routine's calls are nested runs, see Meter.Observe). A path's
// cycles are those of its worst (costliest) run; it passes when they are
// at most cycles + tolerance, and tolerance is a number of cycles or a
// percentage.
package budget

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"os"
	"sort"
	"strconv"
	"strings"

	"lanaiemu/internal/readfile"
	"lanaiemu/isa"
	"lanaiemu/lanai"
	"lanaiemu/lanai/profile"
	"lanaiemu/memsys"
)

// Path is one budgeted path.
type Path struct {
	Name, Start, End string
	Cycles           uint64
	// Tolerance is in cycles, or in percent of Cycles when Percent.
	Tolerance uint64
	Percent   bool
	// Breakdown is the cycles of the worst run by routine, costliest
	// first, as of the last update.
	Breakdown []Share
	line      int
}

// Share is what one routine cost in a run of a path.
type Share struct {
	Routine string
	Cycles  uint64
}

// Limit is the most cycles the path may cost (saturating: an absurd
// tolerance allows everything rather than wrapping round).
func (p *Path) Limit() uint64 {
	extra := p.Tolerance
	if p.Percent {
		hi, lo := bits.Mul64(p.Cycles, p.Tolerance)
		if hi != 0 {
			return math.MaxUint64
		}
		extra = lo / 100
	}
	if p.Cycles > math.MaxUint64-extra {
		return math.MaxUint64
	}
	return p.Cycles + extra
}

func (p *Path) tolerance() string {
	switch {
	case p.Percent:
		return fmt.Sprintf("+%d%%", p.Tolerance)
	case p.Tolerance == 0:
		return "0"
	}
	return fmt.Sprintf("+%d", p.Tolerance)
}

// File is a budget file.
type File struct {
	Name  string
	Paths []*Path
}

// maxPaths bounds a budget file.
const maxPaths = 10_000

// Parse reads a budget file; errors name the file and line.
func Parse(name string, data []byte) (*File, error) {
	f := &File{Name: name}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		fields := strings.Fields(text)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, a...))
		}
		if text[0] == ' ' || text[0] == '\t' { // a routine's share of the last path
			if len(f.Paths) == 0 {
				return nil, bad("a routine's cycles before any path")
			}
			if len(fields) != 2 {
				return nil, bad("want: routine cycles")
			}
			c, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return nil, bad("cycles %q: %v", fields[1], err)
			}
			p := f.Paths[len(f.Paths)-1]
			p.Breakdown = append(p.Breakdown, Share{fields[0], c})
			continue
		}
		if len(fields) != 5 {
			return nil, bad("want: name start end cycles tolerance (found %d fields)", len(fields))
		}
		p := &Path{Name: fields[0], Start: fields[1], End: fields[2], line: n}
		if seen[p.Name] {
			return nil, bad("path %s given twice", p.Name)
		}
		seen[p.Name] = true
		var err error
		if p.Cycles, err = strconv.ParseUint(fields[3], 10, 64); err != nil {
			return nil, bad("cycles %q: %v", fields[3], err)
		}
		tol := strings.TrimPrefix(fields[4], "+")
		if p.Percent = strings.HasSuffix(tol, "%"); p.Percent {
			tol = strings.TrimSuffix(tol, "%")
		}
		if p.Tolerance, err = strconv.ParseUint(tol, 10, 64); err != nil || p.Percent && p.Tolerance > 1000 {
			return nil, bad("tolerance %q: cycles (+10) or a percentage up to 1000 (+2%%)", fields[4])
		}
		if len(f.Paths) == maxPaths {
			return nil, bad("more than %d paths", maxPaths)
		}
		f.Paths = append(f.Paths, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(f.Paths) == 0 { // checking nothing would pass: likely the wrong file
		return nil, fmt.Errorf("%s: no paths (a line: name start end cycles tolerance)", name)
	}
	return f, nil
}

// Load reads a budget file from disk.
func Load(name string) (*File, error) {
	data, err := readfile.Read(name, readfile.Text)
	if err != nil {
		return nil, err
	}
	return Parse(name, data)
}

// Format writes the file back in its own format.
func (f *File) Format() []byte {
	var b bytes.Buffer
	b.WriteString("# name start end cycles tolerance (docs/profiling.md); below each path, its worst run's cycles by routine\n")
	for _, p := range f.Paths {
		fmt.Fprintf(&b, "%-24s %-20s %-20s %8d  %s\n", p.Name, p.Start, p.End, p.Cycles, p.tolerance())
		for _, s := range p.Breakdown {
			fmt.Fprintf(&b, "\t%s %d\n", s.Routine, s.Cycles)
		}
	}
	return b.Bytes()
}

// Result is what a Meter measured of one path.
type Result struct {
	Path     *Path
	Runs     int    // complete runs from start to end
	Min, Max uint64 // cycles of the cheapest and the costliest run
	Worst    []Share
}

// String is the result's line in a check's summary: the path, its runs,
// its worst and best cycles and its budget (the updated one once Update
// has run).
func (r Result) String() string {
	return fmt.Sprintf("%-24s %6d runs  worst %8d  best %8d  budget %8d", r.Path.Name, r.Runs, r.Max, r.Min, r.Path.Cycles)
}

// meterPath is a path being measured on one core.
type meterPath struct {
	res        Result
	start, end uint32
	toRet      bool
	// runs are the open runs, innermost last: one at most for a path to
	// a place; for a "ret" path, one per call of the routine still
	// running (a recursive routine's calls nest).
	runs []openRun
	// charged is the cycles charged by routine while a run was open,
	// since the outermost open run started; a run's own share is
	// charged less its base.
	charged map[string]uint64
}

// openRun is a run of a path that has started and not ended.
type openRun struct {
	since uint64            // cycle count at its start
	ret   uint32            // a "ret" path's return address (%rca at its start)
	sp    uint32            // %sp at its start: a nested call's is lower
	base  map[string]uint64 // charged at its start (nil: nothing)
}

// maxNested bounds the open runs of a "ret" path: a deeper call restarts
// the innermost run instead of nesting in it.
const maxNested = 1 << 16

// Meter measures the paths of a budget file on one core (an Observer of
// profile.Run, or of a board's run).
type Meter struct {
	paths []*meterPath
	syms  *lanai.Symbols
	// routine caches the routine of recently seen addresses.
	routine map[uint32]string
}

// NewMeter resolves the paths' places in img's symbols.
func NewMeter(f *File, img *memsys.Image) (*Meter, error) {
	m := &Meter{syms: lanai.NewSymbols(img.Symbols), routine: map[uint32]string{}}
	for _, p := range f.Paths {
		mp := &meterPath{res: Result{Path: p}, charged: map[string]uint64{}}
		var err error
		if mp.start, err = m.place(p.Start); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: start: %v", f.Name, p.line, p.Name, err)
		}
		if mp.toRet = p.End == "ret"; !mp.toRet {
			if mp.end, err = m.place(p.End); err != nil {
				return nil, fmt.Errorf("%s:%d: %s: end: %v", f.Name, p.line, p.Name, err)
			}
		}
		m.paths = append(m.paths, mp)
	}
	return m, nil
}

// place resolves "sym", "sym+off" or an address.
func (m *Meter) place(s string) (uint32, error) {
	name, off := s, uint64(0)
	if i := strings.LastIndex(s, "+"); i > 0 {
		v, err := strconv.ParseUint(s[i+1:], 0, 32)
		if err != nil {
			return 0, fmt.Errorf("bad offset in %q", s)
		}
		name, off = s[:i], v
	}
	if a, ok := m.syms.Addr(name); ok {
		return a + uint32(off), nil
	}
	if v, err := strconv.ParseUint(name, 0, 32); err == nil && off == 0 {
		return uint32(v), nil
	}
	return 0, fmt.Errorf("no symbol %q in the firmware", name)
}

// Observe follows one instruction: it ends the runs whose end it is,
// starts those whose start it is, and charges its cycles to the open runs.
//
// A path to a place has one run at a time: its start reached again
// starts it again. A "ret" path's run ends at its own return address:
// a call of the routine made while a run is open (at a lower %sp) nests
// in it, and the inner run ends first, so a recursive routine's run
// includes its recursive calls; reaching the start again at the same or
// a higher %sp (a jump, not a call, or runs that never returned) starts
// again from there.
func (m *Meter) Observe(c *lanai.CPU, s *profile.Step) {
	for _, p := range m.paths {
		if n := len(p.runs); n > 0 && s.PC == p.endOf(&p.runs[n-1]) {
			p.finish(s.Start)
		}
		if s.PC == p.start {
			p.begin(c, s.Start)
		}
		if len(p.runs) > 0 {
			p.charged[m.routineOf(s.PC)] += s.Cycles + s.SkippedCycles
		}
	}
}

// endOf is where run r ends.
func (p *meterPath) endOf(r *openRun) uint32 {
	if p.toRet {
		return r.ret
	}
	return p.end
}

// begin starts a run at cycle now.
func (p *meterPath) begin(c *lanai.CPU, now uint64) {
	r := openRun{since: now}
	if p.toRet {
		r.ret, r.sp = c.Reg(isa.RCA), c.Reg(isa.SP)
		// Runs at or below this call's level did not return: drop them.
		for n := len(p.runs); n > 0 && (p.runs[n-1].sp <= r.sp || n >= maxNested); n-- {
			p.runs = p.runs[:n-1]
		}
	} else {
		p.runs = p.runs[:0]
	}
	if len(p.runs) == 0 {
		clear(p.charged)
	} else {
		r.base = maps.Clone(p.charged)
	}
	p.runs = append(p.runs, r)
}

func (m *Meter) routineOf(pc uint32) string {
	if r, ok := m.routine[pc]; ok {
		return r
	}
	r, _, ok := m.syms.Func(pc)
	if !ok {
		r = fmt.Sprintf("%#08x", pc)
	}
	m.routine[pc] = r
	return r
}

// finish ends the innermost open run at cycle now.
func (p *meterPath) finish(now uint64) {
	run := p.runs[len(p.runs)-1]
	p.runs = p.runs[:len(p.runs)-1]
	d := now - run.since
	r := &p.res
	if r.Runs == 0 || d < r.Min {
		r.Min = d
	}
	if r.Runs == 0 || d > r.Max {
		r.Max = d
		r.Worst = r.Worst[:0]
		for k, v := range p.charged {
			if v -= run.base[k]; v > 0 {
				r.Worst = append(r.Worst, Share{k, v})
			}
		}
		sort.Slice(r.Worst, func(i, j int) bool {
			if r.Worst[i].Cycles != r.Worst[j].Cycles {
				return r.Worst[i].Cycles > r.Worst[j].Cycles
			}
			return r.Worst[i].Routine < r.Worst[j].Routine
		})
	}
	r.Runs++
}

// Results are the measurements, path by path.
func (m *Meter) Results() []Result {
	out := make([]Result, len(m.paths))
	for i, p := range m.paths {
		out[i] = p.res
		out[i].Worst = append([]Share(nil), p.res.Worst...)
	}
	return out
}

// Merge combines the results of several meters of one file (the cores of
// a cluster): the runs add up, the worst run is the worst of all.
func Merge(sets ...[]Result) []Result {
	if len(sets) == 0 {
		return nil
	}
	out := append([]Result(nil), sets[0]...)
	for _, set := range sets[1:] {
		for i, r := range set {
			o := &out[i]
			if r.Runs == 0 {
				continue
			}
			if o.Runs == 0 || r.Min < o.Min {
				o.Min = r.Min
			}
			if o.Runs == 0 || r.Max > o.Max {
				o.Max, o.Worst = r.Max, r.Worst
			}
			o.Runs += r.Runs
		}
	}
	return out
}

// ErrOverBudget is wrapped by Check's error when a path costs more than
// its budget or never ran.
var ErrOverBudget = errors.New("over budget")

// Check compares the results with the budgets: a path that never ran, or
// whose worst run costs more than its limit, fails; the error says, for
// each, its old and new cycles and the routine that grew most.
func (f *File) Check(results []Result) error {
	var msgs []string
	for _, r := range results {
		p := r.Path
		switch {
		case r.Runs == 0:
			msgs = append(msgs, fmt.Sprintf("%s:%d: %s: never ran from %s to %s", f.Name, p.line, p.Name, p.Start, p.End))
		case r.Max > p.Limit():
			msg := fmt.Sprintf("%s:%d: %s: %d cycles, budget %d %s (limit %d): %d more", f.Name, p.line, p.Name, r.Max, p.Cycles, p.tolerance(), p.Limit(), r.Max-p.Cycles)
			if g := grew(p.Breakdown, r.Worst); g != "" {
				msg += "; " + g
			}
			msgs = append(msgs, msg)
		}
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%w:\n%s", ErrOverBudget, strings.Join(msgs, "\n"))
	}
	return nil
}

// grew names the routine whose cycles grew most from old to new.
func grew(old, new []Share) string {
	before := map[string]uint64{}
	for _, s := range old {
		before[s.Routine] = s.Cycles
	}
	best, growth := "", int64(0)
	for _, s := range new {
		if d := int64(s.Cycles) - int64(before[s.Routine]); d > growth || d == growth && best != "" && s.Routine < best {
			best, growth = s.Routine, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("%s grew most: %d -> %d cycles", best, before[best], before[best]+uint64(growth))
}

// Update sets every measured path's budget to its worst run (tolerances
// stay) and records its breakdown.
func (f *File) Update(results []Result) {
	for _, r := range results {
		if r.Runs > 0 {
			r.Path.Cycles, r.Path.Breakdown = r.Max, append([]Share(nil), r.Worst...)
		}
	}
}

// Verify checks results against the budget file name, or with update
// rewrites it first: what a Go test calls, passing its -update flag.
func Verify(f *File, results []Result, update bool) error {
	var save func([]byte) error
	if update {
		save = func(b []byte) error { return os.WriteFile(f.Name, b, 0o644) }
	}
	return VerifySave(f, results, save)
}

// VerifySave is Verify for a tool that opened the budget file for
// writing before its run (internal/outfile), so that one that cannot be
// written fails before a long run: save, if not nil, gets the updated
// file's contents (the opened file's Write) before the check.
func VerifySave(f *File, results []Result, save func([]byte) error) error {
	if save != nil {
		f.Update(results)
		if err := save(f.Format()); err != nil {
			return err
		}
	}
	return f.Check(results)
}
