package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/internal/outfile"
	"lanaiemu/sim"
)

func fixture(name string) string { return filepath.Join("..", "fixtures", "scenarios", name) }

func build(t *testing.T, name string) *World {
	t.Helper()
	s, err := Load(fixture(name))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestPingPong(t *testing.T) {
	w := build(t, "pingpong.json")
	if err := w.Run(nil); err != nil {
		t.Fatal(err)
	}
	st := w.Stats(0)
	if st.Status != StatusOK || st.Outcome != "exit" {
		t.Fatalf("status %d %s", st.Status, st.Outcome)
	}
	ws := w.W.Stats()
	for i, n := range st.Nodes {
		if n.Link.PacketsRecv != 100 || n.Instructions != ws.Nodes[i].Instructions || n.Cycles != ws.Nodes[i].Cycles ||
			n.SkippedCycles != ws.Nodes[i].SkippedCycles || n.Link.BytesSent != ws.Nodes[i].Link.BytesSent || n.ExitCode == nil {
			t.Fatalf("node %d: %+v", i, n)
		}
	}
	if st.Fabric.Delivered != 200 || st.Fabric.Sent != ws.Fabric.Sent {
		t.Fatalf("fabric %+v", st.Fabric)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ json, want string }{
		{"{\n\"time\": ,}", "x.json:2:"},
		{`{"topology":{"kind":"b2b"},"time":"1ms","defaults":{"asm":["a.s"]},"bogus":1}`, "bogus"},
		{`{"topology":{"kind":"ring"},"time":"1ms"}`, "topology.kind"},
		{`{"topology":{"kind":"b2b"},"defaults":{"asm":["a.s"]}}`, "time"},
		{`{"topology":{"kind":"b2b"},"time":"1 fortnight","defaults":{"asm":["a.s"]}}`, "duration"},
		{`{"topology":{"kind":"b2b"},"time":"1ms"}`, "nodes[0]: no firmware"},
		{`{"topology":{"kind":"clos","leaves":2},"time":"1ms"}`, "per_leaf"},
		{`{"topology":{"kind":"b2b"},"time":"1ms","defaults":{"asm":["a.s"]},"nodes":[{"ids":"0-5"}]}`, "nodes[0].ids"},
		{`{"topology":{"kind":"b2b"},"time":"1ms","defaults":{"asm":["a.s"],"host_memory":100}}`, "host_memory"},
		{`{"topology":{"kind":"b2b"},"time":"1ms","defaults":{"asm":["a.s"],"sram":"lots"}}`, "bad number"},
		{`{"topology":{"kind":"b2b"},"time":"1ms","stop":"never","defaults":{"asm":["a.s"]}}`, "stop"},
		{`{"topology":{"kind":"b2b"},"time":"1ms","count":3,"defaults":{"asm":["a.s"]}}`, "count"},
		{`{"topology":{"kind":"b2b"},` + "\n" + `"count":"two"}`, "x.json:2: field count: json: cannot unmarshal string"},
		{`{"topology":{"kind":"b2b"},"time":"1ms","defaults":{"asm":["a.s"]},` + "\n" + `"workloads":[]}`,
			`x.json:2: unknown field "workloads": a field of netvm run's extension: run the file with netvm run`},
		{`{"topology":{"kind":"b2b"},"defaults":{"asm":["a.s"]},"until_us":5}`, `unknown field "until_us": renamed: write "time" with a unit`},
	}
	for _, c := range cases {
		_, err := Parse("x.json", []byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrBadScenario) {
			t.Errorf("%s: %v, want %q", c.json, err, c.want)
		}
	}
	// Build errors: missing firmware, bad symbol.
	dir := t.TempDir()
	s, err := Parse(filepath.Join(dir, "s.json"), []byte(`{"topology":{"kind":"b2b"},"time":"1ms","defaults":{"firmware":"none.elf"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Build(); err == nil || !strings.Contains(err.Error(), "none.elf") {
		t.Errorf("missing firmware: %v", err)
	}
	s, err = Parse(fixture("x.json"), []byte(`{"topology":{"kind":"b2b"},"time":"1ms","defaults":{"asm":["idle.s"],"params":{"nosuch":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Build(); err == nil || !strings.Contains(err.Error(), `nodes[0].params: no symbol "nosuch"`) {
		t.Errorf("bad symbol: %v", err)
	}
}

func TestHostRoundTrip(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 10000)
	for i := range data {
		data[i] = byte(i*13 + i>>8)
	}
	in := filepath.Join(dir, "in.bin")
	os.WriteFile(in, data, 0o644)
	s, err := Load(fixture("hostio.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	s.Nodes = []NodeSpec{{IDs: "1", HostLoads: []HostLoad{{Addr: 0x3001, File: in}}, HostDumps: []HostDump{{Addr: 0x3001, Len: Num(len(data)), File: out}}}}
	w, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(nil); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(0); st.Status != StatusOK || st.Outcome != "time limit" || st.Nodes[1].Instructions == 0 {
		t.Fatalf("%+v", st)
	}
	if err := dumpHost(w); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, data) {
		t.Fatalf("dump differs from load (-loaded +dumped):\n%s", cmp.Diff(data, got))
	}
}

func runTimeline(t *testing.T, name string) ([]byte, []byte) {
	w := build(t, name)
	w.RecordTimeline()
	if err := w.Run(nil); err != nil {
		t.Fatal(err)
	}
	var tl bytes.Buffer
	if err := w.Timeline().Write(&tl); err != nil {
		t.Fatal(err)
	}
	st, _ := json.Marshal(w.Stats(0))
	return st, tl.Bytes()
}

func TestTimelineAndDeterminism(t *testing.T) {
	st1, tl1 := runTimeline(t, "stream.json")
	st2, tl2 := runTimeline(t, "stream.json")
	if d := cmp.Diff(string(st1), string(st2)); d != "" {
		t.Fatalf("the runs' statistics differ (-first +second):\n%s", d)
	}
	if d := cmp.Diff(string(tl1), string(tl2)); d != "" {
		t.Fatalf("the runs' timelines differ (-first +second):\n%s", d)
	}
	var doc struct {
		TraceEvents []struct {
			Name, Cat, Ph string
			Pid, Tid      int
			Args          map[string]any
		}
	}
	if err := json.Unmarshal(tl1, &doc); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	spans := map[string]int{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "M" {
			names[e.Args["name"].(string)] = true
		}
		if e.Ph == "X" {
			spans[e.Cat]++
		}
	}
	for _, n := range []string{"node 0", "node 1", "fabric", "cpu", "link 0 node0->node1"} {
		if !names[n] {
			t.Errorf("no %q in %v", n, names)
		}
	}
	if spans["packet"] != 50 || spans["cpu"] == 0 {
		t.Errorf("spans %v", spans)
	}
}

func TestClos64(t *testing.T) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	w := build(t, "clos64.json")
	runtime.GC()
	runtime.ReadMemStats(&m1)
	tb := time.Since(t0)
	t1 := time.Now()
	if err := w.Run(nil); err != nil {
		t.Fatal(err)
	}
	el := time.Since(t1)
	st := w.Stats(el)
	if st.Status != StatusOK || st.Fabric.Delivered != 64*500 || st.Fabric.Switches != 16 {
		t.Fatalf("status %d, %+v", st.Status, st.Fabric)
	}
	t.Logf("64 boards: heap %.1f MB after build (%v), run to %.3f ms simulated in %v (%.4f sim-s/host-s), %d steps",
		float64(m1.HeapAlloc-m0.HeapAlloc)/1e6, tb, st.SimSeconds*1e3, el, st.Host.Speed, st.Steps)
}

// The DMA firmware copies host src -> SRAM -> host dst: the dump at dst
// equals the file loaded at src, and the timeline has DMA spans.
func TestDMARoundTrip(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 512) // 8192 bytes, the scenario's len
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	os.WriteFile(in, data, 0o644)
	s, err := Load(fixture("dma.json"))
	if err != nil {
		t.Fatal(err)
	}
	s.Nodes = []NodeSpec{{IDs: "0", HostLoads: []HostLoad{{Addr: 0x1000, File: in}}, HostDumps: []HostDump{{Addr: 0x20000, Len: 8192, File: out}}}}
	w, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	w.RecordTimeline()
	if err := w.Run(nil); err != nil {
		t.Fatal(err)
	}
	st := w.Stats(0)
	if st.Status != StatusOK || st.Nodes[0].DMABytes != 16384 || st.Nodes[0].DMADescriptors != 2 {
		t.Fatalf("%+v", st.Nodes[0])
	}
	if err := dumpHost(w); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, data) {
		t.Fatalf("DMA round trip differs (-loaded +dumped):\n%s", cmp.Diff(data, got))
	}
	var tl bytes.Buffer
	w.Timeline().Write(&tl)
	if n := strings.Count(tl.String(), `"cat":"dma","ph":"X"`); n != 4 {
		t.Fatalf("%d DMA spans", n)
	}
}

// withExtra is a format that extends the base: one more field, its own
// rule, and no firmware needed.
type withExtra struct {
	Scenario
	Extra int `json:"extra"`
}

func (e *withExtra) Check() error {
	if err := e.CheckBase(); err != nil {
		return err
	}
	if e.Extra <= 0 {
		return e.Errorf("extra: %d: at least 1", e.Extra)
	}
	return nil
}

// ParseFormat reads the base's fields and an extension's from one object
// and runs the extension's Check; the base format refuses the
// extension's field.
func TestParseFormatExtension(t *testing.T) {
	src := []byte(`{"topology":{"kind":"b2b"},"time":"2ms","seed":7,"extra":3}`)
	var e withExtra
	if err := ParseFormat("dir/e.json", src, &e); err != nil {
		t.Fatal(err)
	}
	if e.Extra != 3 || e.Count != 2 || e.Seed != 7 || e.Time != Duration(2*sim.Millisecond) || e.Dir != "dir" {
		t.Fatalf("parsed %+v", e)
	}
	e = withExtra{}
	if err := ParseFormat("e.json", []byte(`{"topology":{"kind":"b2b"},"time":"2ms"}`), &e); err == nil || !strings.Contains(err.Error(), "e.json: extra: 0: at least 1") || !errors.Is(err, ErrBadScenario) {
		t.Fatalf("extension's rule: %v", err)
	}
	if _, err := Parse("e.json", src); err == nil || !strings.Contains(err.Error(), `unknown field "extra"`) {
		t.Fatalf("the base format took the extension's field: %v", err)
	}
}

// keyLine finds a key, not a string value that spells it, at any depth;
// ElementLines finds the objects of a top-level array only.
func TestJSONLines(t *testing.T) {
	doc := []byte("{\"name\": \"workloads\", \"x\": {\"workloads\": [{}]},\n\"workloads\": [\n  {\"a\": [{}]},\n\n  {}, 3]}")
	if diff := cmp.Diff([]int{3, 5}, ElementLines(doc, "workloads")); diff != "" {
		t.Errorf("ElementLines (-want +got):\n%s", diff)
	}
	// Each element's line is counted from the one before: counted from
	// the start, 30000 elements on one line of 30 MB took a minute (a
	// 64 MiB scenario of a million workloads, hours).
	many := []byte(`{"w": [` + strings.Repeat(`{"kind": "stream"}`+strings.Repeat(" ", 1000)+",", 30000) + "\n{}]}")
	t0 := time.Now()
	lines := ElementLines(many, "w")
	if len(lines) != 30001 || lines[0] != 1 || lines[29999] != 1 || lines[30000] != 2 || time.Since(t0) > 5*time.Second {
		t.Errorf("30001 elements: %d lines (last %v) in %v", len(lines), lines[len(lines)-1:], time.Since(t0))
	}
	data := []byte("{\"a\": \"until_us\",\n \"b\": [1, {\"c\": {}},\n {\"until_us\": 1}]}")
	if got := keyLine(data, "until_us"); got != 3 {
		t.Fatalf("keyLine = %d, want 3", got)
	}
	if got := keyLine(data, "zz"); got != 1 {
		t.Fatalf("keyLine of a missing key = %d, want 1", got)
	}
}

// Entries that each apply to every one of 4032 nodes are merged in one
// pass (this took minutes when every node rescanned every entry's ids),
// and a file asking for more merging than maxMergeWork is refused. (16 KiB
// of SRAM keeps 4032 nodes, MaxNodes, under node.MaxMemory.)
func TestManyEntriesBounded(t *testing.T) {
	src := func(entries int) []byte {
		var es []string
		for range entries {
			es = append(es, `{"ids":"0-4031","params":{"a":1}}`)
		}
		return []byte(`{"topology":{"kind":"tree","leaves":64,"per_leaf":63,"routing":"absolute"},"time":"1ms","defaults":{"asm":["x.s"],"sram":"16K"},"nodes":[` + strings.Join(es, ",") + `]}`)
	}
	t0 := time.Now()
	s, err := Parse("x.json", src(200))
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(t0)
	t.Logf("200 entries over 4032 nodes: %v", el)
	if el > 10*time.Second {
		t.Errorf("200 entries over 4032 nodes took %v", el)
	}
	if n := s.NodeSpecs()[4031]; n.Params["a"] != 1 || len(n.Asm) != 1 {
		t.Errorf("node 4031: %+v", n)
	}
	if _, err := Parse("x.json", src(2000)); err == nil || !strings.Contains(err.Error(), "nodes[520]: the entries so far apply over") {
		t.Errorf("2000 entries: %v", err)
	}
}

// dumpHost opens and writes w's host dumps (lanai-sim opens them before
// its run).
func dumpHost(w *World) error {
	var outs outfile.Set
	defer outs.Abandon()
	ds, err := w.OpenDumps(&outs)
	if err != nil {
		return err
	}
	return ds.Write()
}

// A parameter in .bss is refused, naming the symbol, its section and the
// fix: crt0.s clears .bss before main, so the word written after loading
// would be lost (docs/first-firmware.md). One in .data is written; so is
// the last word of .data, but not a word at a .data symbol's offset that
// reaches into .bss.
func TestParamInBSS(t *testing.T) {
	dir := t.TempDir()
	fw := filepath.Join(dir, "fw.s")
	os.WriteFile(fw, []byte(`
	.text
	.globl	_start
_start:
	st	%r0, -4096[%r0]
	bt	_start
	nop
	.data
	.globl	inData
inData:	.word	7
	.bss
	.globl	inBSS
inBSS:	.space	4
`), 0o644)
	build := func(param string) (*World, error) {
		s, err := Parse(filepath.Join(dir, "s.json"), []byte(`{"topology":{"kind":"b2b"},"time":"1ms","defaults":{"asm":["fw.s"],"params":{"`+param+`":5}}}`))
		if err != nil {
			t.Fatal(err)
		}
		return s.Build()
	}
	for _, p := range []string{"inBSS", "inData+4"} {
		_, err := build(p)
		want := `nodes[0].params: ` + p + ` is in .bss, a section without contents (NOBITS) that the start-up code (crt0.s) clears before main, so the value would be lost: put it in .data (in C, __attribute__((section(".data"))) or a non-zero initialiser) (firmware fw.s)`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant %s", p, err, want)
		}
	}
	w, err := build("inData")
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Boards[0].CPU().Mem.Read(w.Syms[0]["inData"], 4)
	if err != nil || string(got) != "\x00\x00\x00\x05" {
		t.Errorf("inData = % x, %v; want 00 00 00 05", got, err)
	}
}

// A tree has one root whatever its spines field says (Build makes a
// fabric.Tree, which does not read it): checkSwitches counted the field's
// spines on every leaf and refused a tree of 4 leaves of 4 nodes with
// "spines": 30, which ran before.
func TestTreeSwitchesIgnoreSpines(t *testing.T) {
	const tree = `{"topology": {"kind": "tree", "leaves": 4, "per_leaf": 4, "spines": 30}, "defaults": {"asm": ["x.s"]}, "time": "1ms"}`
	if _, err := Parse("t.json", []byte(tree)); err != nil {
		t.Errorf("a tree with a spines field: %v", err)
	}
	clos := strings.Replace(tree, "tree", "clos", 1)
	if _, err := Parse("t.json", []byte(clos)); err == nil || !strings.Contains(err.Error(), "a leaf switch (per_leaf nodes and a port per spine) would have 34 ports") {
		t.Errorf("a Clos of 34-port leaves: %v", err)
	}
}

// topology.unplugged pulls the listed nodes' cables before the run: their
// boards see LINK_DOWN from the start, the others do not; on b2b either
// node unplugs the one cable. Bad node lists are errors.
func TestUnplugged(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fw.s"), []byte(`
	.text
	.globl	_start
_start:
	ld	-432[%r0], %r7		! ISR
	mov	0x10000, %r8		! LINK_DOWN
	and	%r7, %r8, %r7
	st	%r7, -4096[%r0]		! exit with it
	bt	.
	nop
`), 0o644)
	for _, c := range []struct {
		topology string
		want     []uint32
	}{
		{`{"kind": "star", "unplugged": [2, 0]}`, []uint32{0x10000, 0, 0x10000}},
		{`{"kind": "star"}`, []uint32{0, 0, 0}},
		{`{"kind": "b2b", "unplugged": [1]}`, []uint32{0x10000, 0x10000}},
		{`{"kind": "b2b", "unplugged": [0, 1]}`, []uint32{0x10000, 0x10000}},
	} {
		count := len(c.want)
		s, err := Parse(filepath.Join(dir, "s.json"), []byte(`{"topology": `+c.topology+`, "count": `+strconv.Itoa(count)+
			`, "time": "1ms", "exit_codes": "any", "defaults": {"asm": ["fw.s"]}}`))
		w := runParsed(t, s, err)
		for i, n := range w.Stats(0).Nodes {
			if n.ExitCode == nil || *n.ExitCode != c.want[i] {
				t.Errorf("%s: node %d exit %v, want %#x", c.topology, i, n.ExitCode, c.want[i])
			}
		}
	}
	for bad, want := range map[string]string{`[3]`: "node 3, but nodes are 0..2", `[-1]`: "node -1, but nodes are 0..2",
		`[1, 1]`: "node 1 given twice"} {
		_, err := Parse("x.json", []byte(`{"topology": {"kind": "star", "unplugged": `+bad+`}, "count": 3, "time": "1ms", "defaults": {"asm": ["a.s"]}}`))
		if err == nil || !strings.Contains(err.Error(), "topology.unplugged: "+want) || !errors.Is(err, ErrBadScenario) {
			t.Errorf("unplugged %s: %v", bad, err)
		}
	}
}
