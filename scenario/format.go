// Package scenario describes and runs a multi-board LANai simulation: a
// JSON scenario file names the nodes (firmware, board parameters, parameter
// words patched by symbol, host memory with files loaded into it and
// ranges dumped from it), the Myrinet topology, injected faults, the run
// length and the stop rule. Load reads a file, Build makes the boards,
// host memories, fabric and node.World, and (*World).Run runs it, with an
// optional timeline (package internal/timeline) and statistics (docs/lanai-sim.md).
// A node may have a host script (HostScript) that plays its driver: it
// loads the firmware through the PCI window and serves its interrupts, so
// firmware written elsewhere (Cplant's MCP, docs/cplant.md) runs with no Go
// code.
//
// The file format (docs/scenarios.md) is also the base of netvm run's: a
// Format embeds Scenario and adds its own fields and rules, and
// ParseFormat reads either.
//
// Everything a run produces, except the host timing figures, is a
// function of the scenario and its seed.
package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"lanaiemu/fabric"
	"lanaiemu/hostbus"
	"lanaiemu/internal/readfile"
	"lanaiemu/memsys"
	"lanaiemu/node"
	"lanaiemu/sim"
)

// ErrBadScenario is wrapped by every error about the scenario's contents
// (as opposed to files that cannot be read).
var ErrBadScenario = errors.New("bad scenario")

// Num is a JSON number or a string holding one: decimal, 0x hex, with an
// optional K, M or G suffix (powers of 1024).
type Num uint64

// UnmarshalJSON accepts 4096, "4096", "0x1000" or "4K".
func (n *Num) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	v, err := ParseNum(s)
	if err != nil {
		return err
	}
	*n = Num(v)
	return nil
}

// ParseNum parses decimal, 0x hex or 0b binary, with an optional K, M or
// G suffix (powers of 1024).
func ParseNum(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	mul := uint64(1)
	if l := len(s); l > 1 {
		switch s[l-1] {
		case 'K', 'k':
			mul, s = 1<<10, s[:l-1]
		case 'M':
			mul, s = 1<<20, s[:l-1]
		case 'G':
			mul, s = 1<<30, s[:l-1]
		}
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	if v != 0 && v*mul/mul != v {
		return 0, fmt.Errorf("number %q overflows", s)
	}
	return v * mul, nil
}

// Duration is a simulated time written as a string with a unit: "10ms",
// "1.5us", "100ns", "250ps", "2s" (µs is accepted for us), or a JSON
// number of picoseconds.
type Duration sim.Time

// UnmarshalJSON accepts "10ms" or a number of picoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] != '"' {
		v, err := strconv.ParseUint(string(b), 10, 64)
		if err != nil {
			return fmt.Errorf("bad duration %s", b)
		}
		*d = Duration(v)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	t, err := sim.ParseDuration(s)
	*d = Duration(t)
	return err
}

// HostLoad copies a file into a node's host memory before the run.
type HostLoad struct {
	Addr Num    `json:"addr"`
	File string `json:"file"`
}

// HostDump writes Len bytes of a node's host memory at Addr to File after
// the run.
type HostDump struct {
	Addr Num    `json:"addr"`
	Len  Num    `json:"len"`
	File string `json:"file"`
}

// NodeSpec describes one node, or (with IDs) a group of nodes. Unset
// fields take the value of Defaults, then the built-in default.
type NodeSpec struct {
	// IDs selects the nodes an entry of Nodes applies to: "3", "0-63",
	// "0-63/2" (every second), or "1,5,7". Empty: the entry's index.
	IDs string `json:"ids,omitempty"`
	// Firmware is an executable (ELF from lanai-ld, or COFF). Asm lists
	// assembly sources assembled and linked instead. Paths are relative to
	// the scenario file.
	Firmware string   `json:"firmware,omitempty"`
	Asm      []string `json:"asm,omitempty"`
	// Board is the board (hostbus.BoardFor: "M2L-PCI64B", "M2L-PCI64C-4",
	// ...): its EEPROM identity, as a host script's load reads it, and its
	// rated clock (docs/hardware.md, "Boards"). Empty: the identity of
	// hostbus.DefaultPart on a 133 MHz core, as before boards had presets.
	Board string `json:"board,omitempty"`
	// ClockMHz is the core clock (default: the board's, or 133). SRAM is
	// its size (default 2M). LinkRate is the board's link rate in bytes/s
	// (default the topology's).
	ClockMHz float64 `json:"clock_mhz,omitempty"`
	SRAM     Num     `json:"sram,omitempty"`
	LinkRate Num     `json:"link_rate,omitempty"`
	// Params are words written, big-endian, at the address of a symbol of
	// the firmware after loading ("sym" or "sym+8").
	Params map[string]Num `json:"params,omitempty"`
	// HostMemory is the size of the node's host memory (a multiple of 4K;
	// default 1M). HostLoads and HostDumps act on it.
	HostMemory Num        `json:"host_memory,omitempty"`
	HostLoads  []HostLoad `json:"host_loads,omitempty"`
	HostDumps  []HostDump `json:"host_dumps,omitempty"`
	// Host scripts the node's host side (HostScript); HostFile names a
	// JSON file holding one instead (relative to the scenario file). With
	// either, the board starts held in reset and the script's "load"
	// loads the firmware through the PCI window. HostVars are the
	// script's initial variables (merged like Params; $node is the
	// node's number).
	Host     *HostScript    `json:"host,omitempty"`
	HostFile string         `json:"host_file,omitempty"`
	HostVars map[string]Num `json:"host_vars,omitempty"`
}

// Topology is the network.
type Topology struct {
	// Kind is "b2b" (two nodes, one cable), "star" (one switch),
	// "tree" (Leaves leaf switches of PerLeaf nodes under one root) or
	// "clos" (Leaves x PerLeaf nodes, Spines spine switches).
	Kind    string `json:"kind"`
	Leaves  int    `json:"leaves,omitempty"`
	PerLeaf int    `json:"per_leaf,omitempty"`
	Spines  int    `json:"spines,omitempty"`
	// LinkRate (bytes/s, default 160e6), LinkLatency (default 100ns) and
	// SwitchLatency (default 300ns) override fabric.DefaultConfig.
	LinkRate      Num       `json:"link_rate,omitempty"`
	LinkLatency   *Duration `json:"link_latency,omitempty"`
	SwitchLatency *Duration `json:"switch_latency,omitempty"`
	// Routing is "relative" (default) or "absolute".
	Routing string `json:"routing,omitempty"`
	// Unplugged lists nodes whose cable is pulled out before the run
	// (fabric.Disconnect): their boards see LINK_DOWN, their sends are
	// refused and routes to them lead nowhere.
	Unplugged []int `json:"unplugged,omitempty"`
}

// Faults are the fabric's injected errors (fabric.Faults, applied to every
// packet on its last link), in parts per million.
type Faults struct {
	DropPPM     uint32    `json:"drop_ppm,omitempty"`
	CorruptPPM  uint32    `json:"corrupt_ppm,omitempty"`
	DetourPPM   uint32    `json:"detour_ppm,omitempty"`
	DetourDelay *Duration `json:"detour_delay,omitempty"`
	JitterPPM   uint32    `json:"jitter_ppm,omitempty"`
	JitterMax   *Duration `json:"jitter_max,omitempty"`
	AltRoutePPM uint32    `json:"alt_route_ppm,omitempty"`
}

// Scenario is a parsed scenario file.
type Scenario struct {
	Name string `json:"name,omitempty"`
	// Count is the number of nodes (default: len(Nodes), or what the
	// topology holds).
	Count    int        `json:"count,omitempty"`
	Defaults NodeSpec   `json:"defaults"`
	Nodes    []NodeSpec `json:"nodes,omitempty"`
	Topology Topology   `json:"topology"`
	Faults   Faults     `json:"faults"`
	// Seed seeds the fabric's fault generator.
	Seed uint64 `json:"seed,omitempty"`
	// Time is the simulated time limit (required).
	Time Duration `json:"time"`
	// Stop is "exit" (default: the run succeeds only if every node
	// exited; reaching Time with a node running is a failure), "time"
	// (reaching Time with no trap is a success) or "host" (the run ends
	// when every host script's main part has ended; it succeeds if none
	// failed).
	Stop string `json:"stop,omitempty"`
	// ExitCodes is "zero" (default: every exit code must be 0) or "any".
	ExitCodes string `json:"exit_codes,omitempty"`
	// Sample is the interval at which the run samples the nodes for the
	// timeline and progress (default 10us); every run uses it, so the
	// results do not depend on whether a timeline is recorded.
	Sample *Duration `json:"sample,omitempty"`

	// Dir is the directory relative paths are resolved against (the
	// scenario file's). Path is the file's name, for messages.
	Dir  string `json:"-"`
	Path string `json:"-"`
}

// A Format is a scenario format: the base format (*Scenario, what
// lanai-sim runs) or an extension of it, a struct that embeds Scenario
// and adds its own top-level fields and rules (netvm run's, package
// netvm/run). ParseFormat reads one JSON object into both parts, so a
// file of an extension is a base scenario with more fields.
type Format interface {
	// Base is the embedded base scenario.
	Base() *Scenario
	// Check validates the scenario after it is decoded; an extension's
	// calls the base's CheckBase and adds its own rules.
	Check() error
}

// Base is the scenario itself (Scenario is the base format).
func (s *Scenario) Base() *Scenario { return s }

// Load reads and checks a scenario file of the base format.
func Load(path string) (*Scenario, error) {
	data, err := readfile.Read(path, readfile.Text)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses scenario JSON of the base format; name is used in messages
// and its directory resolves relative paths.
func Parse(name string, data []byte) (*Scenario, error) {
	s := &Scenario{}
	if err := ParseFormat(name, data, s); err != nil {
		return nil, err
	}
	return s, nil
}

// ParseFormat parses scenario JSON into f (every field of the base and
// of the extension; any other is an error) and checks it. Every error
// about the contents names the file and wraps ErrBadScenario; a field
// of the formats' old spellings (renamed) says what replaced it.
func ParseFormat(name string, data []byte, f Format) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(f); err != nil {
		return decodeError(name, data, err)
	}
	s := f.Base()
	s.Path, s.Dir = name, filepath.Dir(name)
	return f.Check()
}

// renamed gives, for a field of an older scenario format, what replaced
// it: netvm run's own format before it became an extension of the base
// (its until_us, board, clock_mhz, back_to_back and a number of nodes),
// and netvm run's fields, which the base format does not have.
var renamed = map[string]string{
	"until_us":     `renamed: write "time" with a unit ("until_us": 100000 is "time": "100ms")`,
	"board":        `moved: write "defaults": {"board": ...}`,
	"clock_mhz":    `moved: write "defaults": {"clock_mhz": ...}`,
	"back_to_back": `replaced: write "topology": {"kind": "b2b"} (without it, {"kind": "star"})`,
	"nodes":        `a number of nodes is "count"; "nodes" lists node descriptions`,
	"workloads":    `a field of netvm run's extension: run the file with netvm run`,
	"frames":       `a field of netvm run's extension: run the file with netvm run`,
}

// decodeError describes a decoding error with the file, the line and,
// for a field of an old format, what replaced it.
func decodeError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s:%d: %v: %w", name, lineOf(data, se.Offset), err, ErrBadScenario)
	case errors.As(err, &te):
		field := strings.TrimPrefix(te.Field, "Scenario.") // an extension embeds Scenario
		if field == "nodes" && te.Value == "number" {
			return fmt.Errorf("%s:%d: field nodes: %s: %w", name, lineOf(data, te.Offset), renamed["nodes"], ErrBadScenario)
		}
		return fmt.Errorf("%s:%d: field %s: %v: %w", name, lineOf(data, te.Offset), field, err, ErrBadScenario)
	}
	if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		key, _ = strconv.Unquote(key)
		if hint, ok := renamed[key]; ok {
			return fmt.Errorf("%s:%d: unknown field %q: %s: %w", name, keyLine(data, key), key, hint, ErrBadScenario)
		}
		return fmt.Errorf("%s:%d: unknown field %q: %w", name, keyLine(data, key), key, ErrBadScenario)
	}
	return fmt.Errorf("%s: %v: %w", name, err, ErrBadScenario)
}

// ElementLines gives the line of each object of the top-level array key
// (an extension's errors name the line of an element: netvm run's
// workloads).
func ElementLines(data []byte, key string) []int {
	var lines []int
	line, counted := 1, int64(0) // the line at offset counted: counting from the last element, not the start
	walkJSON(data, func(t jsonToken) bool {
		if t.tok == json.Delim('{') && t.depth == 2 && t.in == key {
			line += bytes.Count(data[counted:t.end], []byte("\n"))
			counted = t.end
			lines = append(lines, line)
		}
		return true
	})
	return lines
}

// lineOf is the line of byte offset off of data.
func lineOf(data []byte, off int64) int {
	return 1 + bytes.Count(data[:max(0, min(int(off), len(data)))], []byte("\n"))
}

// keyLine is the line of the first object key named key in data (1 if
// there is none).
func keyLine(data []byte, key string) int {
	line := 1
	walkJSON(data, func(t jsonToken) bool {
		if t.key && t.tok == key {
			line = lineOf(data, t.end)
			return false
		}
		return true
	})
	return line
}

// jsonToken is a token of walkJSON's walk.
type jsonToken struct {
	tok   json.Token
	key   bool   // an object's key (else a value, or a value's opening delimiter)
	in    string // the key whose value is the innermost container around it
	depth int    // the containers around it
	end   int64  // the offset just after it
}

// walkJSON calls visit with each token of data but the closing
// delimiters, until visit returns false or the JSON ends or breaks.
func walkJSON(data []byte, visit func(jsonToken) bool) {
	type open struct {
		object, atKey bool // atKey: an object's next token is a key
		key           string
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []open
	lastKey := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		t := jsonToken{tok: tok, depth: len(stack), end: dec.InputOffset()}
		var top *open
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
			t.in = top.key
		}
		if top != nil && top.object && top.atKey {
			t.key, lastKey, top.atKey = true, tok.(string), false
			if !visit(t) {
				return
			}
			continue
		}
		opener := ""
		if top != nil && top.object {
			top.atKey = true // a value: a key comes next
			opener = lastKey
		}
		if !visit(t) {
			return
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, open{object: d == '{', atKey: d == '{', key: opener})
		}
	}
}

// Errorf makes an error about the scenario's contents: it names the
// file and wraps ErrBadScenario.
func (s *Scenario) Errorf(format string, a ...any) error {
	return fmt.Errorf("%s: %s: %w", s.Path, fmt.Sprintf(format, a...), ErrBadScenario)
}

// Limits that Check enforces before anything is built.
const (
	// MaxNodes is the most nodes a scenario may have: the largest
	// topology the fabric builds, a tree of 64 leaf switches of 63 nodes
	// and an uplink each under a 64-port root (absolute routing;
	// checkSwitches).
	MaxNodes = maxSwitchPorts * (maxSwitchPorts - 1)
	// maxSwitchPorts is the largest switch the fabric builds (absolute
	// routing; relative routing reaches 32: checkSwitches).
	maxSwitchPorts = fabric.MaxSwitchPorts
	// maxLinkRate is 10 GB/s, far above any Myrinet link.
	maxLinkRate = 10_000_000_000
	// MaxDuration bounds every duration of the base format (time,
	// sample, the latencies and fault delays): one simulated day, so that
	// the runner's sums of a time and a step stay far below 2^64 ps (a
	// link latency near it once made the runner loop for ever).
	MaxDuration = 24 * 3600 * sim.Second
	// minClockMHz is 1 Hz: a slower clock would round to 0 Hz.
	minClockMHz = 0.000001
	// minInterval is the shortest interval at which a run samples
	// (sample) or a host script polls (poll, every): 10 ns, so that a
	// simulated second takes at most 10^8 of them (a sample of 1ps made a
	// 10 ms run take half an hour).
	minInterval = 10 * sim.Nanosecond
)

// checkDurations refuses a duration over MaxDuration, naming its field.
func (s *Scenario) checkDurations() error {
	for _, d := range []struct {
		name string
		v    *Duration
	}{
		{"time", &s.Time}, {"sample", s.Sample},
		{"topology.link_latency", s.Topology.LinkLatency}, {"topology.switch_latency", s.Topology.SwitchLatency},
		{"faults.detour_delay", s.Faults.DetourDelay}, {"faults.jitter_max", s.Faults.JitterMax},
	} {
		if d.v != nil && sim.Time(*d.v) > MaxDuration {
			shown := fmt.Sprint(sim.Time(*d.v))
			if sim.Time(*d.v) == sim.Never { // which String calls "never"
				shown = fmt.Sprintf("%dps", uint64(*d.v))
			}
			return s.Errorf("%s: %s: at most one simulated day", d.name, shown)
		}
	}
	return nil
}

// Check validates a scenario of the base format: CheckBase, and every
// node has firmware.
func (s *Scenario) Check() error {
	specs, err := s.checkBase()
	if err != nil {
		return err
	}
	for i, n := range specs {
		if n.Firmware == "" && len(n.Asm) == 0 {
			return s.Errorf("nodes[%d]: no firmware or asm", i)
		}
	}
	if err := node.CheckMemory(len(specs), s.memory(specs)); err != nil {
		return s.Errorf("count: %v", err)
	}
	return nil
}

// memory estimates the memory the nodes take when Build makes them and
// DumpHost writes their dumps: each board and its host memory
// (node.BoardMemory), the host frames the host loads fill (the files'
// sizes, as far as they fit; a pipe may fill the rest) and the largest
// dump's buffer.
func (s *Scenario) memory(specs []NodeSpec) uint64 {
	var total, dump uint64
	for _, n := range specs {
		hsize := uint64(n.HostMemory)
		if hsize == 0 {
			hsize = DefaultHostMemory
		}
		total += node.BoardMemory(uint32(n.SRAM), hsize)
		for _, l := range n.HostLoads {
			if st, err := os.Stat(s.resolve(l.File)); err == nil && uint64(l.Addr) < hsize {
				size := hsize - uint64(l.Addr) // a pipe: as much as may be read
				if st.Mode().IsRegular() {
					size = min(uint64(max(st.Size(), 0)), size)
				}
				total += size
			}
		}
		for _, d := range n.HostDumps {
			dump = max(dump, uint64(d.Len))
		}
	}
	return total + dump
}

// CheckBase validates what every format shares and fills in Count. It
// does not ask for firmware, which an extension may supply itself.
func (s *Scenario) CheckBase() error {
	_, err := s.checkBase()
	return err
}

// checkBase is CheckBase; it also gives the nodes' descriptions.
func (s *Scenario) checkBase() ([]NodeSpec, error) {
	switch s.Topology.Kind {
	case "b2b", "back-to-back":
		s.Topology.Kind = "b2b"
	case "star":
	case "tree", "clos":
		t := s.Topology
		if t.Leaves <= 0 || t.PerLeaf <= 0 || t.Leaves > maxSwitchPorts || t.PerLeaf > maxSwitchPorts {
			return nil, s.Errorf("topology: %s needs leaves and per_leaf in 1..%d (a switch's ports)", t.Kind, maxSwitchPorts)
		}
		if t.Kind == "clos" && (t.Spines <= 0 || t.Spines > maxSwitchPorts) {
			return nil, s.Errorf("topology: clos needs spines in 1..%d", maxSwitchPorts)
		}
	case "":
		return nil, s.Errorf("topology.kind: missing (b2b, star, tree or clos)")
	default:
		return nil, s.Errorf("topology.kind: unknown %q (b2b, star, tree or clos)", s.Topology.Kind)
	}
	switch s.Topology.Routing {
	case "", "relative", "absolute":
	default:
		return nil, s.Errorf("topology.routing: %q (relative or absolute)", s.Topology.Routing)
	}
	if s.Count == 0 {
		switch s.Topology.Kind {
		case "b2b":
			s.Count = 2
		case "tree", "clos":
			s.Count = s.Topology.Leaves * s.Topology.PerLeaf
		default:
			s.Count = len(s.Nodes)
		}
	}
	if s.Count <= 0 {
		return nil, s.Errorf("count: no nodes")
	}
	if s.Count > MaxNodes {
		return nil, s.Errorf("count: %d nodes, at most %d", s.Count, MaxNodes)
	}
	if err := s.checkSwitches(); err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, n := range s.Topology.Unplugged {
		if n < 0 || n >= s.Count {
			return nil, s.Errorf("topology.unplugged: node %d, but nodes are 0..%d", n, s.Count-1)
		}
		if seen[n] {
			return nil, s.Errorf("topology.unplugged: node %d given twice", n)
		}
		seen[n] = true
	}
	switch k := s.Topology.Kind; {
	case k == "b2b" && s.Count != 2:
		return nil, s.Errorf("count: b2b has 2 nodes, not %d", s.Count)
	case (k == "tree" || k == "clos") && s.Count != s.Topology.Leaves*s.Topology.PerLeaf:
		return nil, s.Errorf("count: %s of %dx%d has %d nodes, not %d", k, s.Topology.Leaves, s.Topology.PerLeaf, s.Topology.Leaves*s.Topology.PerLeaf, s.Count)
	}
	if s.Time == 0 {
		return nil, s.Errorf("time: missing or zero (e.g. \"10ms\")")
	}
	switch s.Stop {
	case "", "exit", "time", "host":
	default:
		return nil, s.Errorf("stop: %q (exit, time or host)", s.Stop)
	}
	switch s.ExitCodes {
	case "", "zero", "any":
	default:
		return nil, s.Errorf("exit_codes: %q (zero or any)", s.ExitCodes)
	}
	if s.Sample != nil && sim.Time(*s.Sample) < minInterval {
		return nil, s.Errorf("sample: %v: at least %v", sim.Time(*s.Sample), minInterval)
	}
	if err := s.checkDurations(); err != nil {
		return nil, err
	}
	if err := s.checkEntries(); err != nil {
		return nil, err
	}
	checked := hostChecks{}
	specs := s.NodeSpecs()
	for i, n := range specs {
		if n.Firmware != "" && len(n.Asm) > 0 {
			return nil, s.Errorf("nodes[%d]: both firmware and asm", i)
		}
		if n.ClockMHz != 0 && (n.ClockMHz < minClockMHz || n.ClockMHz > 10000) {
			return nil, s.Errorf("nodes[%d].clock_mhz: %v: 0 (the board's) or 0.000001..10000", i, n.ClockMHz)
		}
		if n.Board != "" {
			if _, err := hostbus.BoardFor(n.Board, 1); err != nil {
				return nil, s.Errorf("nodes[%d].board: %v", i, err)
			}
		}
		if n.HostMemory%4096 != 0 || n.HostMemory > hostbus.MaxHostMemory {
			return nil, s.Errorf("nodes[%d].host_memory: %d: a multiple of 4096 up to %d", i, n.HostMemory, uint64(hostbus.MaxHostMemory))
		}
		if n.SRAM%4 != 0 || n.SRAM > memsys.MaxSRAMSize {
			return nil, s.Errorf("nodes[%d].sram: %d: a multiple of 4 up to %d", i, n.SRAM, memsys.MaxSRAMSize)
		}
		if n.LinkRate > maxLinkRate {
			return nil, s.Errorf("nodes[%d].link_rate: %d bytes/s: at most %d", i, n.LinkRate, uint64(maxLinkRate))
		}
		for _, k := range sortedKeys(n.Params) {
			if v := n.Params[k]; v > 0xFFFFFFFF {
				return nil, s.Errorf("nodes[%d].params: %s = %#x does not fit in a 32-bit word", i, k, uint64(v))
			}
		}
		for j, d := range n.HostDumps {
			if d.File == "" {
				return nil, s.Errorf("nodes[%d].host_dumps[%d].file: missing", i, j)
			}
		}
		for j, d := range n.HostLoads {
			if d.File == "" {
				return nil, s.Errorf("nodes[%d].host_loads[%d].file: missing", i, j)
			}
		}
		if err := s.checkHost(i, n, checked); err != nil {
			return nil, err
		}
	}
	if s.Stop == "host" {
		for i, n := range specs {
			if n.Host == nil && n.HostFile == "" {
				return nil, s.Errorf("stop: \"host\" but node %d has no host script", i)
			}
		}
	}
	return specs, nil
}

// checkSwitches refuses a topology with a switch larger than the
// routing reaches (fabric.RouteMode.MaxPorts), before anything is built:
// a star's count, a tree's or Clos' leaf (its nodes and its uplinks) and
// its root or spines (a port per leaf).
func (s *Scenario) checkSwitches() error {
	mode := fabric.RouteRelative
	if s.Topology.Routing == "absolute" {
		mode = fabric.RouteAbsolute
	}
	t := s.Topology
	ports, what := 0, ""
	switch t.Kind {
	case "star":
		ports, what = s.Count, "the switch"
	case "tree", "clos":
		spines := 1 // a tree is a Clos with one spine, its root (fabric.Tree; a spines field is not used)
		if t.Kind == "clos" {
			spines = t.Spines
		}
		if t.PerLeaf+spines > t.Leaves {
			ports, what = t.PerLeaf+spines, "a leaf switch (per_leaf nodes and a port per spine)"
		} else {
			ports, what = t.Leaves, "a spine (a port per leaf)"
		}
	}
	if ports > mode.MaxPorts() {
		return s.Errorf("topology: %s: %s would have %d ports, at most %d with %v routing", t.Kind, what, ports, mode.MaxPorts(), mode)
	}
	return nil
}

// idRange is the nodes lo..hi, every step-th.
type idRange struct{ lo, hi, step int }

// ranges parses the ids of entry i of Nodes (none: node i).
func (s *Scenario) ranges(i int, n NodeSpec) ([]idRange, error) {
	if n.IDs == "" {
		if i >= s.Count {
			return nil, s.Errorf("nodes[%d]: only %d nodes", i, s.Count)
		}
		return []idRange{{i, i, 1}}, nil
	}
	var out []idRange
	for _, part := range strings.Split(n.IDs, ",") {
		rng, step := part, "1"
		if a, b, ok := strings.Cut(part, "/"); ok {
			rng, step = a, b
		}
		lo, hi, ok := strings.Cut(rng, "-")
		if !ok {
			hi = lo
		}
		a, e1 := strconv.Atoi(strings.TrimSpace(lo))
		b, e2 := strconv.Atoi(strings.TrimSpace(hi))
		st, e3 := strconv.Atoi(strings.TrimSpace(step))
		if e1 != nil || e2 != nil || e3 != nil || st <= 0 || a < 0 || b < a {
			return nil, s.Errorf("nodes[%d].ids: bad %q (want 3, 0-63, 0-63/2 or 1,5,7)", i, part)
		}
		if b >= s.Count {
			return nil, s.Errorf("nodes[%d].ids: node %d out of range (%d nodes)", i, b, s.Count)
		}
		out = append(out, idRange{a, b, st})
	}
	return out, nil
}

// maxMergeWork bounds the work of making the nodes' descriptions (the
// nodes each entry of Nodes applies to, times the settings it carries,
// summed), so that a small file cannot ask for hours of merging: 4M,
// thousands of times what the largest fixture needs.
const maxMergeWork = 1 << 22

// checkEntries checks every entry's ids and the merging work.
func (s *Scenario) checkEntries() error {
	work := 0
	for j, n := range s.Nodes {
		rs, err := s.ranges(j, n)
		if err != nil {
			return err
		}
		settings := 1 + len(n.Params) + len(n.HostVars) + len(n.HostLoads) + len(n.HostDumps)
		for _, r := range rs {
			if work += ((r.hi-r.lo)/r.step + 1) * settings; work > maxMergeWork {
				return s.Errorf("nodes[%d]: the entries so far apply over %d settings to nodes, at most %d: use fewer entries or defaults", j, work, maxMergeWork)
			}
		}
	}
	return nil
}

// NodeSpecs gives every node's effective description: Defaults, then
// every entry of Nodes that applies to the node, in order (set fields
// override, Params and HostVars merge, host loads and dumps add up). The
// scenario must have passed CheckBase.
func (s *Scenario) NodeSpecs() []NodeSpec {
	entries := make([][]int, s.Count) // per node, the entries that apply
	for j, n := range s.Nodes {
		rs, _ := s.ranges(j, n)
		for _, r := range rs {
			for k := r.lo; k <= r.hi; k += r.step {
				if l := len(entries[k]); l == 0 || entries[k][l-1] != j {
					entries[k] = append(entries[k], j)
				}
			}
		}
	}
	out := make([]NodeSpec, s.Count)
	for i := range out {
		out[i] = s.merge(entries[i])
	}
	return out
}

// merge applies the entries of Nodes to Defaults.
func (s *Scenario) merge(entries []int) NodeSpec {
	r := s.Defaults
	r.Params = map[string]Num{}
	for k, v := range s.Defaults.Params {
		r.Params[k] = v
	}
	r.HostVars = map[string]Num{}
	for k, v := range s.Defaults.HostVars {
		r.HostVars[k] = v
	}
	r.HostLoads = append([]HostLoad(nil), s.Defaults.HostLoads...)
	r.HostDumps = append([]HostDump(nil), s.Defaults.HostDumps...)
	for _, j := range entries {
		n := s.Nodes[j]
		if n.Firmware != "" {
			r.Firmware, r.Asm = n.Firmware, nil
		}
		if len(n.Asm) > 0 {
			r.Asm, r.Firmware = n.Asm, ""
		}
		if n.ClockMHz != 0 {
			r.ClockMHz = n.ClockMHz
		}
		if n.Board != "" {
			r.Board = n.Board
		}
		if n.SRAM != 0 {
			r.SRAM = n.SRAM
		}
		if n.LinkRate != 0 {
			r.LinkRate = n.LinkRate
		}
		for k, v := range n.Params {
			r.Params[k] = v
		}
		if n.HostMemory != 0 {
			r.HostMemory = n.HostMemory
		}
		if n.Host != nil {
			r.Host, r.HostFile = n.Host, ""
		}
		if n.HostFile != "" {
			r.HostFile, r.Host = n.HostFile, nil
		}
		for k, v := range n.HostVars {
			r.HostVars[k] = v
		}
		r.HostLoads = append(r.HostLoads, n.HostLoads...)
		r.HostDumps = append(r.HostDumps, n.HostDumps...)
	}
	r.IDs = ""
	return r
}

// Path resolves a path of the scenario against its directory.
func (s *Scenario) resolve(p string) string {
	if filepath.IsAbs(p) || s.Dir == "" {
		return p
	}
	return filepath.Join(s.Dir, p)
}
