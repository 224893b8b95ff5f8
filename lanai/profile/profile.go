// Package profile attributes a LANai program's cycles, exactly, to its
// functions, source lines and call stacks, and writes them as a pprof
// profile (github.com/google/pprof/profile), so that `go tool pprof -top`,
// `-list` and `-http` (a flame graph) read it unchanged.
//
// A Profiler steps the core one instruction at a time (lanai.CPU's
// StepSkipping, which fast-forwards idle and polling loops as a plain run
// does), so a profiled run has exactly the cycle counts of an unprofiled
// one. Each instruction's cycles go to its address under the current call
// stack; the cycles of loop iterations the core skipped go to an [idle]
// frame under the loop, so they are shown, not hidden, and the profile's
// total is the run's cycle count.
//
// The call stack is followed from the calling convention that clang's
// code and the NetVM firmware share: a call is a taken transfer to a
// target after which the return-address register %rca holds the address
// just past the branch's delay slot; a return is a transfer to the return
// address of a frame on the stack (docs/profiling.md).
package profile

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"lanaiemu/debugger"
	"lanaiemu/isa"
	"lanaiemu/lanai"
	"lanaiemu/memsys"
)

// The values of a sample, in this order.
const (
	Cycles       = iota // cycles, stalls and skipped idle cycles included
	Instructions        // instructions executed (or skipped)
	Stalls              // cycles beyond one per instruction (interlocks, memory)
	DMABusy             // cycles during which the board's host DMA engine was busy
	LinkBusy            // cycles during which the board's link send engine was busy
	numValues
)

// valueTypes name the sample values as pprof shows them.
var valueTypes = [numValues]struct{ typ, unit string }{
	{"cycles", "count"}, {"instructions", "count"}, {"stall_cycles", "count"},
	{"dma_busy", "cycles"}, {"link_busy", "cycles"},
}

// Busy reports whether the board's host DMA engine and its link send
// engine are busy now; a board supplies it (nil for a bare core).
type Busy func() (dma, link bool)

// idleAddr is the address of the [idle] pseudo-frame (no code is there).
const idleAddr = ^uint32(0)

// frame is a node of the tree of call stacks: its caller's stack and the
// address of the call that entered it.
type frame struct {
	parent int32
	call   uint32 // the call's branch; the return address is call+8
}

type sampleKey struct {
	stack int32
	pc    uint32
}

// cacheSize is the number of entries of the direct-mapped sample cache.
const cacheSize = 4096

type cacheEntry struct {
	key sampleKey
	v   *[numValues]int64
}

// Profiler collects one core's profile.
type Profiler struct {
	prog   *debugger.Program // functions, labels and source lines (lanai-as's table, C through DWARF)
	busy   Busy
	labels map[string]string
	binary string

	frames  []frame         // frames[0] is the root
	interns map[frame]int32 // child frame ids
	stack   int32           // the current stack
	samples map[sampleKey]*[numValues]int64
	cache   [cacheSize]cacheEntry // recently used samples, before the map
	last    lanai.Transfer        // the last transfer seen
	pending bool                  // the core has not reached last.To yet
	started bool                  // Observe has been called
	total   [numValues]int64      // the sums, for checks
}

// New makes a profiler for a core running img: its symbols name the
// functions, its line tables (lanai-as's, and clang -g's DWARF for C) give
// the lines, as the debugger reads them. busy may be nil.
func New(img *memsys.Image, busy Busy) *Profiler {
	return &Profiler{prog: debugger.NewProgram(img), busy: busy, labels: map[string]string{},
		frames: []frame{{parent: -1}}, interns: map[frame]int32{}, samples: map[sampleKey]*[numValues]int64{}}
}

// Binary names the image the profile is of (pprof shows it as the main
// binary; the profile is already symbolized, so pprof never reads it).
func (p *Profiler) Binary(name string) { p.binary = name }

// Label sets a label of every sample (for a cluster: node = N).
func (p *Profiler) Label(key, value string) { p.labels[key] = value }

// Total is the sum of one value over all samples: for Cycles, the cycles
// profiled.
func (p *Profiler) Total(value int) int64 { return p.total[value] }

// Step is one instruction of a stepped run, as an Observer sees it.
type Step struct {
	PC    uint32 // the instruction's address
	Start uint64 // the cycle count when it began
	// Cycles and Instructions are what it cost; SkippedCycles and
	// SkippedInstructions the idle-loop iterations the core fast-forwarded
	// after it (its branch's loop), which are counted apart.
	Cycles, Instructions               uint64
	SkippedCycles, SkippedInstructions uint64
}

// An Observer is told about every instruction of a stepped run: a
// Profiler, a budget meter.
type Observer interface {
	Observe(c *lanai.CPU, s *Step)
}

// Run runs the core for at most budget cycles one instruction at a time,
// telling each observer about every instruction, and says why it stopped
// (as lanai.CPU.Run does, except that breakpoints do not stop it). Idle
// loops are fast-forwarded as in a plain run, so the counts are the same.
func Run(c *lanai.CPU, budget uint64, obs []Observer) *lanai.Stop {
	limit := c.Cycles + budget
	if limit < c.Cycles {
		limit = ^uint64(0)
	}
	var s Step
	for {
		if c.Cycles >= limit {
			return c.Run(0) // the events due now run, as in a plain run's end
		}
		s.PC, s.Start = c.PC, c.Cycles
		ins, skc, ski := c.Instret, c.SkippedCycles, c.SkippedInstret
		st := c.StepSkipping(limit)
		if st.Kind == lanai.StopTrap && c.Cycles == s.Start {
			return st // the instruction did not execute
		}
		s.SkippedCycles, s.SkippedInstructions = c.SkippedCycles-skc, c.SkippedInstret-ski
		s.Cycles, s.Instructions = c.Cycles-s.Start-s.SkippedCycles, c.Instret-ins-s.SkippedInstructions
		for _, o := range obs {
			o.Observe(c, &s)
		}
		if st.Kind != lanai.StopStep {
			return st
		}
	}
}

// Run runs the core under this profiler alone (the package's Run).
func (p *Profiler) Run(c *lanai.CPU, budget uint64) *lanai.Stop {
	return Run(c, budget, []Observer{p})
}

// Observe accounts one instruction to the current call stack, then
// follows the stack across a call or return whose target comes next.
func (p *Profiler) Observe(c *lanai.CPU, s *Step) {
	if !p.started {
		p.started = true
		if t, ok := c.LastTransfer(); ok && s.Start > t.Cycle {
			p.last = t // taken before profiling began
		}
	}
	var dma, link bool
	if p.busy != nil {
		dma, link = p.busy()
	}
	p.add(p.stack, s.PC, s.Cycles, s.Instructions, dma, link)
	if s.SkippedCycles > 0 { // an [idle] frame under the loop's branch (an odd key)
		p.add(p.stack, s.PC|1, s.SkippedCycles, s.SkippedInstructions, dma, link)
	}
	if t, ok := c.LastTransfer(); ok && t != p.last {
		p.last = t
		p.pending = true
	}
	if p.pending && c.PC == p.last.To {
		p.pending = false
		p.arrive(c)
	}
}

// arrive updates the call stack as the core reaches the target of the
// last transfer, its delay slots done: a call (%rca holds the address past
// the delay slot) pushes a frame, a return to a frame's return address
// pops to its caller.
func (p *Profiler) arrive(c *lanai.CPU) {
	t := p.last
	if c.Reg(isa.RCA) == t.From+8 && t.To != t.From+8 {
		p.stack = p.child(p.stack, t.From)
		return
	}
	for s := p.stack; s > 0; s = p.frames[s].parent {
		if p.frames[s].call+8 == t.To {
			p.stack = p.frames[s].parent
			return
		}
	}
}

// child is the stack of parent with one more frame, entered by the call
// at address call.
func (p *Profiler) child(parent int32, call uint32) int32 {
	f := frame{parent: parent, call: call}
	if id, ok := p.interns[f]; ok {
		return id
	}
	if len(p.frames) > 1<<20 {
		return parent // a runaway recursion: stop growing the tree
	}
	id := int32(len(p.frames))
	p.frames = append(p.frames, f)
	p.interns[f] = id
	return id
}

func (p *Profiler) add(stack int32, pc uint32, cycles, instr uint64, dma, link bool) {
	k := sampleKey{stack, pc}
	ce := &p.cache[(pc>>2^uint32(stack)*0x9e37)%cacheSize]
	v := ce.v
	if v == nil || ce.key != k {
		if v = p.samples[k]; v == nil {
			v = new([numValues]int64)
			p.samples[k] = v
		}
		*ce = cacheEntry{k, v}
	}
	d := [numValues]int64{Cycles: int64(cycles), Instructions: int64(instr)}
	if cycles > instr {
		d[Stalls] = int64(cycles - instr)
	}
	if dma {
		d[DMABusy] = int64(cycles)
	}
	if link {
		d[LinkBusy] = int64(cycles)
	}
	for i := range d {
		v[i] += d[i]
		p.total[i] += d[i]
	}
}

// Profile builds the pprof profile. hz is the core's clock (the period of
// a cycle, for pprof's time display).
func (p *Profiler) Profile(hz uint64) *profile.Profile {
	pr := &profile.Profile{
		PeriodType:        &profile.ValueType{Type: "cycles", Unit: "count"},
		Period:            1,
		DefaultSampleType: "cycles",
		Comments:          []string{fmt.Sprintf("LANai core at %d Hz", hz)},
	}
	for _, vt := range valueTypes {
		pr.SampleType = append(pr.SampleType, &profile.ValueType{Type: vt.typ, Unit: vt.unit})
	}
	m := &profile.Mapping{ID: 1, Start: 0, Limit: 1 << 32, File: p.binary,
		HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	pr.Mapping = []*profile.Mapping{m}
	funcs := map[string]*profile.Function{}
	locs := map[uint32]*profile.Location{}
	function := func(name, file string) *profile.Function {
		key := name + "\x00" + file
		if f := funcs[key]; f != nil {
			return f
		}
		f := &profile.Function{ID: uint64(len(pr.Function) + 1), Name: name, SystemName: name, Filename: file}
		funcs[key] = f
		pr.Function = append(pr.Function, f)
		return f
	}
	location := func(addr uint32) *profile.Location {
		if l := locs[addr]; l != nil {
			return l
		}
		l := &profile.Location{ID: uint64(len(pr.Location) + 1), Address: uint64(addr), Mapping: m}
		if addr == idleAddr {
			l.Address = 0
			l.Line = []profile.Line{{Function: function("[idle: polling loop skipped]", "")}}
		} else {
			name := p.prog.FuncName(addr)
			if name == "" {
				var ok bool
				if name, _, ok = p.prog.Symbols().Func(addr); !ok {
					name = fmt.Sprintf("%#08x", addr)
				}
			}
			file, line := p.line(addr)
			l.Line = []profile.Line{{Function: function(name, file), Line: int64(line)}}
		}
		locs[addr] = l
		pr.Location = append(pr.Location, l)
		return l
	}
	keys := make([]sampleKey, 0, len(p.samples))
	for k := range p.samples {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].stack != keys[j].stack {
			return keys[i].stack < keys[j].stack
		}
		return keys[i].pc < keys[j].pc
	})
	for _, k := range keys {
		v := p.samples[k]
		s := &profile.Sample{Value: append([]int64(nil), v[:]...)}
		if k.pc&1 != 0 { // skipped iterations of the loop whose branch is at pc-1
			s.Location = append(s.Location, location(idleAddr))
		}
		s.Location = append(s.Location, location(k.pc&^1))
		for f := k.stack; f > 0; f = p.frames[f].parent {
			s.Location = append(s.Location, location(p.frames[f].call))
		}
		if len(p.labels) > 0 {
			s.Label = map[string][]string{}
			for key, val := range p.labels {
				s.Label[key] = []string{val}
			}
		}
		pr.Sample = append(pr.Sample, s)
	}
	return pr
}

// line is the source position of an address, as the debugger gives it.
func (p *Profiler) line(addr uint32) (string, int) {
	file, line, _ := p.prog.LineAt(addr)
	return file, line
}

// NodeFile names node n's profile in a cluster: "-node" and the number
// before the extension of name ("p.pb.gz" gives "p-node3.pb.gz").
func NodeFile(name string, n int) string {
	dir, base := filepath.Split(name)
	stem, ext := base, ""
	if i := strings.Index(base, "."); i > 0 {
		stem, ext = base[:i], base[i:]
	}
	return filepath.Join(dir, fmt.Sprintf("%s-node%d%s", stem, n, ext))
}

// Write writes the profile, gzipped, as pprof reads it.
func (p *Profiler) Write(w io.Writer, hz uint64) error {
	return p.Profile(hz).Write(w)
}
