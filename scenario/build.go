package scenario

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/hostbus"
	"lanaiemu/internal/outfile"
	"lanaiemu/internal/readfile"
	"lanaiemu/internal/timeline"
	"lanaiemu/memsys"
	"lanaiemu/node"
	"lanaiemu/objfile"
	"lanaiemu/sim"
)

// Defaults of a node.
const (
	DefaultHostMemory = 1 << 20
	DefaultSample     = 10 * sim.Microsecond
)

// World is a built scenario: the boards, their host memories, the fabric
// and the runner.
type World struct {
	S      *Scenario
	Q      *sim.Queue
	Fabric *fabric.Fabric
	W      *node.World
	Boards []*board.Board
	Hosts  []*hostbus.HostMemory
	Syms   []map[string]uint32 // per node: firmware symbols
	Images []*memsys.Image     // per node: the loaded firmware (symbols, line table)

	dma      []dmaCounters
	tl       *timeline.Recorder
	cpuState []cpuSpan
	dmaOpen  [][board.NumChannels]uint64
	linkSeen map[fabric.LinkID]bool
	trapped  bool
	ran      bool
	hosts    []*nodeHost // per node: its host script, or nil

	consoles   []*nodeConsole // per node
	console    io.Writer      // where the console lines go (SetConsole); nil: nowhere
	consoleErr error
}

type dmaCounters struct{ bytes, descriptors, isr, faults uint64 }

// FabricConfig is fabric.DefaultConfig with the topology's link rate,
// latencies and routing.
func (s *Scenario) FabricConfig() (fabric.Config, error) {
	cfg := fabric.DefaultConfig()
	t := s.Topology
	if t.LinkRate != 0 {
		cfg.Link.Rate = uint64(t.LinkRate)
	}
	if t.LinkLatency != nil {
		if *t.LinkLatency == 0 {
			return cfg, s.Errorf("topology.link_latency: zero")
		}
		cfg.Link.Latency = sim.Time(*t.LinkLatency)
	}
	if t.SwitchLatency != nil {
		cfg.SwitchLatency = sim.Time(*t.SwitchLatency)
	}
	if t.Routing == "absolute" {
		cfg.Routing = fabric.RouteAbsolute
	}
	return cfg, nil
}

// Fabric gives the faults as the fabric takes them: a detour's delay and
// the jitter's bound are 1 us when their rate is set and they are not.
func (fl Faults) Fabric() fabric.Faults {
	ff := fabric.Faults{DropPPM: fl.DropPPM, CorruptPPM: fl.CorruptPPM, DetourPPM: fl.DetourPPM, JitterPPM: fl.JitterPPM, AltRoutePPM: fl.AltRoutePPM}
	if fl.DetourDelay != nil {
		ff.DetourDelay = sim.Time(*fl.DetourDelay)
	} else if fl.DetourPPM != 0 {
		ff.DetourDelay = sim.Microsecond
	}
	if fl.JitterMax != nil {
		ff.JitterMax = sim.Time(*fl.JitterMax)
	} else if fl.JitterPPM != 0 {
		ff.JitterMax = sim.Microsecond
	}
	return ff
}

// Build assembles or reads the firmware, makes the host memories, boards
// and fabric, loads the firmware, patches the parameters, copies the host
// loads and connects everything in a node.World.
func (s *Scenario) Build() (*World, error) {
	cfg, err := s.FabricConfig()
	if err != nil {
		return nil, err
	}
	q := &sim.Queue{}
	rng := sim.NewRand(s.Seed)
	var f *fabric.Fabric
	switch t := s.Topology; t.Kind {
	case "b2b":
		f, err = fabric.BackToBack(q, rng, cfg)
	case "star":
		f, err = fabric.Star(q, rng, cfg, s.Count)
	case "tree":
		f, err = fabric.Tree(q, rng, cfg, t.Leaves, t.PerLeaf)
	case "clos":
		f, err = fabric.Clos(q, rng, cfg, t.Leaves, t.PerLeaf, t.Spines)
	}
	if err != nil {
		return nil, s.Errorf("topology: %v", err)
	}
	if err := f.SetFaults(s.Faults.Fabric()); err != nil {
		return nil, s.Errorf("faults: %v", err)
	}
	for _, n := range s.Topology.Unplugged {
		if _, err := f.LinkFrom(fabric.EndpointPort(n)); err != nil {
			continue // b2b: the other end's cable, already pulled
		}
		if err := f.Disconnect(fabric.EndpointPort(n)); err != nil {
			return nil, s.Errorf("topology.unplugged: %v", err)
		}
	}
	w := &World{S: s, Q: q, Fabric: f, dma: make([]dmaCounters, s.Count),
		cpuState: make([]cpuSpan, s.Count), dmaOpen: make([][board.NumChannels]uint64, s.Count)}
	images := map[string][]byte{}
	for i, n := range s.NodeSpecs() {
		img, err := s.image(n, images)
		if err != nil {
			return nil, fmt.Errorf("nodes[%d]: %w", i, err)
		}
		hsize := uint64(n.HostMemory)
		if hsize == 0 {
			hsize = DefaultHostMemory
		}
		hm, err := hostbus.NewHostMemory(hsize)
		if err != nil {
			return nil, s.Errorf("nodes[%d].host_memory: %v", i, err)
		}
		bc := board.Config{Host: hm}
		bc.ClockHz = uint64(n.ClockMHz * 1e6)
		if bc.ClockHz == 0 && n.Board != "" {
			hb, _ := hostbus.BoardFor(n.Board, 1) // checked by the parser
			bc.ClockHz = hb.ClockHz
		}
		bc.SRAMSize = uint32(n.SRAM)
		con := &nodeConsole{w: w, node: i}
		w.consoles = append(w.consoles, con)
		bc.Console = con
		id := i
		bc.Trace = func(e board.Event) { w.boardEvent(id, e) }
		var host *nodeHost
		bc.OnIRQ = func(cycle uint64, level bool) {
			if host != nil {
				host.hostIRQ(cycle, level)
			}
		}
		b, err := board.New(bc)
		if err != nil {
			return nil, s.Errorf("nodes[%d]: board: %v", i, err)
		}
		if n.LinkRate != 0 {
			b.Link().SetRate(uint64(n.LinkRate))
		} else {
			b.Link().SetRate(cfg.Link.Rate)
		}
		im, syms, err := w.loadNode(i, n, b, hm, img, &host)
		if err != nil {
			return nil, err
		}
		w.Images = append(w.Images, im)
		for j, l := range n.HostLoads {
			if uint64(l.Addr) >= hsize {
				return nil, s.Errorf("nodes[%d].host_loads[%d]: address %#x outside host memory of %#x bytes", i, j, uint64(l.Addr), hsize)
			}
			if err := loadHost(hm, uint64(l.Addr), s.resolve(l.File), hsize-uint64(l.Addr)); err != nil {
				return nil, fmt.Errorf("%s: nodes[%d].host_loads[%d]: %w", s.Path, i, j, err)
			}
		}
		for j, d := range n.HostDumps {
			if uint64(d.Addr) > hsize || uint64(d.Len) > hsize-uint64(d.Addr) {
				return nil, s.Errorf("nodes[%d].host_dumps[%d]: %#x+%#x outside host memory of %#x bytes", i, j, uint64(d.Addr), uint64(d.Len), hsize)
			}
		}
		w.Boards = append(w.Boards, b)
		w.hosts = append(w.hosts, host)
		w.Hosts = append(w.Hosts, hm)
		w.Syms = append(w.Syms, syms)
	}
	nw, err := node.New(q, f, w.Boards, node.Config{})
	if err != nil {
		return nil, s.Errorf("%v", err)
	}
	w.W = nw
	for _, h := range w.hosts {
		if h != nil {
			h.start()
		}
	}
	return w, nil
}

// loadNode loads node i's firmware and patches its parameters, or, for a
// node with a host script, attaches the script (*host), which loads the
// firmware itself. It returns the firmware's symbols.
func (w *World) loadNode(i int, n NodeSpec, b *board.Board, hm *hostbus.HostMemory, img []byte, host **nodeHost) (*memsys.Image, map[string]uint32, error) {
	s := w.S
	h, err := w.buildHost(i, n, b, hm, img)
	if err != nil {
		return nil, nil, err
	}
	if h != nil { // the host script loads it through the window later
		*host = h
		f, err := objfile.Read(img)
		if err != nil {
			return nil, nil, s.Errorf("nodes[%d]: firmware: %v", i, err)
		}
		return &memsys.Image{Entry: f.Entry, Symbols: f.Symbols, File: f}, h.syms, nil
	}
	im, err := b.Load(img)
	if err != nil {
		return nil, nil, s.Errorf("nodes[%d]: loading firmware: %v", i, err)
	}
	syms := map[string]uint32{}
	for _, sy := range im.Symbols {
		syms[sy.Name] = sy.Value
	}
	for _, k := range sortedKeys(n.Params) {
		a, err := symAddr(syms, k)
		if err != nil {
			return nil, nil, s.Errorf("nodes[%d].params: %v (firmware %s)", i, err, firmwareName(n))
		}
		if sec := nobitsAt(im.File, a); sec != nil {
			return nil, nil, s.Errorf("nodes[%d].params: %s is in %s, a section without contents (NOBITS) that the start-up code (crt0.s) clears before main, so the value would be lost: put it in .data (in C, __attribute__((section(\".data\"))) or a non-zero initialiser) (firmware %s)", i, k, sec.Name, firmwareName(n))
		}
		if err := b.CPU().Mem.Write(a, binary.BigEndian.AppendUint32(nil, uint32(n.Params[k]))); err != nil {
			return nil, nil, s.Errorf("nodes[%d].params: %s: %v", i, k, err)
		}
	}
	return im, syms, nil
}

func firmwareName(n NodeSpec) string {
	if n.Firmware != "" {
		return n.Firmware
	}
	return strings.Join(n.Asm, ",")
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

// nobitsAt gives the allocated section without contents (.bss) that the
// parameter word at a overlaps, or nil. A parameter there is refused:
// crt0.s clears .bss before main, so the word written after loading would
// be lost (no firmware in fixtures/ runs without crt0 and keeps a
// parameter in .bss).
func nobitsAt(f *objfile.File, a uint32) *objfile.Section {
	if f == nil {
		return nil
	}
	for _, sec := range f.Sections {
		if sec.Type == objfile.SHT_NOBITS && sec.Flags&objfile.SHF_ALLOC != 0 &&
			uint64(a) < uint64(sec.Addr)+uint64(sec.Size) && uint64(sec.Addr) < uint64(a)+4 {
			return sec
		}
	}
	return nil
}

// symAddr resolves "sym" or "sym+off".
func symAddr(syms map[string]uint32, k string) (uint32, error) {
	name, off := k, uint64(0)
	if a, b, ok := strings.Cut(k, "+"); ok {
		v, err := strconv.ParseUint(b, 0, 32)
		if err != nil {
			return 0, fmt.Errorf("%q: bad offset", k)
		}
		name, off = a, v
	}
	a, ok := syms[name]
	if !ok {
		return 0, fmt.Errorf("no symbol %q", name)
	}
	return a + uint32(off), nil
}

// image returns the node's executable, reading or assembling it once per
// distinct firmware.
func (s *Scenario) image(n NodeSpec, cache map[string][]byte) ([]byte, error) {
	key := n.Firmware + "\x00" + strings.Join(n.Asm, "\x00")
	if img, ok := cache[key]; ok {
		return img, nil
	}
	var img []byte
	if n.Firmware != "" {
		var err error
		path := os.ExpandEnv(n.Firmware)
		if path == "" {
			return nil, s.Errorf("firmware %q names an environment variable that is not set", n.Firmware)
		}
		img, err = readfile.Read(s.resolve(path), readfile.Binary)
		if err != nil {
			return nil, fmt.Errorf("%s: firmware: %w", s.Path, err)
		}
	} else {
		var srcs []asm.Source
		var names []string
		for _, p := range n.Asm {
			text, err := readfile.Read(s.resolve(p), readfile.Text)
			if err != nil {
				return nil, fmt.Errorf("%s: asm: %w", s.Path, err)
			}
			srcs = append(srcs, asm.Source{Name: s.resolve(p), Text: text})
			names = append(names, p)
		}
		var results []*asm.Result
		for _, src := range srcs {
			res, err := asm.Assemble([]asm.Source{src}, asm.Options{LineInfo: true})
			if err != nil {
				return nil, s.Errorf("asm: %v", err)
			}
			results = append(results, res)
		}
		// With the line table, for traces, profiles and the debugger
		// (lanai-sim dap).
		exe, err := asm.LinkWithLines(results, names, link.Options{})
		if err != nil {
			return nil, s.Errorf("asm: link: %v", err)
		}
		img, err = exe.WriteELF()
		if err != nil {
			return nil, s.Errorf("asm: %v", err)
		}
	}
	cache[key] = img
	return img, nil
}

// loadHost copies the file name, of at most limit bytes, into host
// memory at addr piece by piece: read whole first, a load took twice its
// size at its peak (1900 MiB took 4.4 GB), which the memory estimate
// (Scenario.memory) does not count.
func loadHost(hm *hostbus.HostMemory, addr uint64, name string, limit uint64) error {
	r, err := readfile.Open(name, int64(limit))
	if err != nil {
		return err
	}
	defer r.Close()
	buf := make([]byte, 1<<20)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if werr := hm.Write(addr, buf[:n]); werr != nil {
				return fmt.Errorf("%s: %w", name, werr)
			}
			addr += uint64(n)
		}
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			return nil
		default:
			return err
		}
	}
}

// Dumps are the host dumps of a run: their files, opened before it
// (OpenDumps), and written after it (Write).
type Dumps struct {
	w     *World
	files []dumpFile
}

// dumpFile is host dump index of node.
type dumpFile struct {
	node, index int
	d           HostDump
	out         *outfile.File
}

// OpenDumps opens the file of every host dump of the scenario before the
// run (package internal/outfile): one that cannot be written fails now,
// naming the dump, not after the run, and one that exists keeps its
// contents until Write. outs gets the files, so that its Abandon closes
// them (and removes those it made) if the run goes wrong.
func (w *World) OpenDumps(outs *outfile.Set) (*Dumps, error) {
	ds := &Dumps{w: w}
	for i, n := range w.S.NodeSpecs() {
		for j, d := range n.HostDumps {
			o, err := outfile.Create(w.S.resolve(d.File))
			if err != nil {
				return nil, fmt.Errorf("%s: nodes[%d].host_dumps[%d]: %w", w.S.Path, i, j, err)
			}
			outs.Add(o)
			ds.files = append(ds.files, dumpFile{i, j, d, o})
		}
	}
	return ds, nil
}

// Write writes every host dump from the host memories as they are now.
func (ds *Dumps) Write() error {
	w := ds.w
	for _, f := range ds.files {
		buf := make([]byte, f.d.Len)
		if err := w.Hosts[f.node].Read(uint64(f.d.Addr), buf); err != nil {
			return w.S.Errorf("nodes[%d].host_dumps[%d]: %v", f.node, f.index, err)
		}
		if err := f.out.Write(buf); err != nil {
			return fmt.Errorf("%s: nodes[%d].host_dumps[%d]: %w", w.S.Path, f.node, f.index, err)
		}
	}
	return nil
}
