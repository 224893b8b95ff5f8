package run

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"lanaiemu/internal/timeline"
	"lanaiemu/scenario"
)

// A scenario with a ping-pong (busy wait), a stream and memory pressure
// runs to its end and reports each workload.
func TestRunScenario(t *testing.T) {
	sc, err := Parse("s.json", []byte(`{
  "count": 2, "topology": {"kind": "star"}, "frames": 1024, "seed": 1, "time": "100ms",
  "workloads": [
    {"kind": "pingpong", "from": 0, "to": 1, "size": 4, "count": 20},
    {"kind": "stream", "from": 1, "to": 0, "size": 65536, "count": 16, "wait": "block"}
  ]
}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res.Workloads)
	pp, st := res.Workloads[0], res.Workloads[1]
	if !pp.Done || pp.LatencyUS < 5 || pp.LatencyUS > 50 {
		t.Fatalf("ping-pong %+v", pp)
	}
	if !st.Done || st.MBps < 100 || st.MBps > 160 {
		t.Fatalf("stream %+v", st)
	}
	for _, n := range res.Nodes {
		if n.Violation != "" {
			t.Fatal(n.Violation)
		}
	}
}

// Bad scenarios are refused with the file, the line and what is wrong.
func TestScenarioErrors(t *testing.T) {
	const base = `"count": 2, "topology": {"kind": "star"}, "time": "1s"`
	for _, c := range []struct{ src, want string }{
		{`{` + base + `,` + "\n" + `"workloads": [}`, "s.json:2:"},
		{`{"count": "two"}`, "s.json:1: field count: json: cannot unmarshal string"},
		{`{` + base + `, "colour": 1}`, `s.json:1: unknown field "colour"`},
		{`{"count": 1, "topology": {"kind": "star"}, "time": "1s"}`, "count: 1 nodes: 2..16, or a multiple of 8 up to 64"},
		// Frames the host's 4 GiB cannot hold besides the driver's pages
		// (1048576 was taken and failed in the run), and clusters or
		// workloads whose memory is over the bound (node.MaxMemory).
		{`{` + base + `, "frames": 1048576}`, "frames = 1048576: 64..1047552"},
		{`{"count": 64, "topology": {"kind": "clos", "leaves": 8, "per_leaf": 8, "spines": 8}, "time": "1s", "frames": 1047552}`,
			"count, frames, workloads: 64 nodes would take an estimated 6448.8 MiB (100.8 MiB per node), more than the 2048.0 MiB a run may take"},
		{`{` + base + `, "workloads": [{"kind": "touch", "node": 0, "pages": 262144}, {"kind": "touch", "node": 1, "pages": 262144}]}`,
			"2 nodes would take an estimated 2054.6 MiB (1027.3 MiB per node)"},
		{`{"count": 24, "topology": {"kind": "star"}, "time": "1s"}`, "topology: star of 24 nodes"},
		{`{"count": 32, "topology": {"kind": "clos", "leaves": 8, "per_leaf": 4, "spines": 4}, "time": "1s"}`, "topology: clos of 32 nodes"},
		{`{"count": 2, "topology": {"kind": "star"}}`, `time: missing or zero`},
		{`{` + base + `, "defaults": {"asm": ["a.s"]}}`, `defaults: {"asm":["a.s"]}: netvm run takes only board and clock_mhz`},
		{`{` + base + `, "defaults": {"clock_mhz": 5}}`, `defaults.clock_mhz = 5: 10..1000`},
		{`{` + base + `, "nodes": [{"board": "M2L-PCI64B"}]}`, `nodes: netvm run's nodes are alike`},
		{`{` + base + `, "stop": "time"}`, `stop, exit_codes, sample: not netvm run's`},
		{`{"count": 2, "topology": {"kind": "star", "unplugged": [1]}, "time": "1s"}`, `topology.unplugged: not netvm run's`},
		{`{` + base + `,` + "\n" + `"workloads": [` + "\n" + `{"kind": "stream", "from": 0, "to": 1, "count": 1},` + "\n" + `  {"kind": "stream", "from": 0, "to": 7, "count": 1}]}`,
			"s.json:4: workloads[1]: to = 7, but nodes are 0..1"},
		{`{` + base + `, "workloads": [{"kind": "teleport"}]}`, `s.json:1: workloads[0]: kind = "teleport"`},
		{`{` + base + `, "workloads": [{"kind": "pingpong", "from": 0, "to": 1, "count": 1, "wait": "forever"}]}`, `wait = "forever"`},
		// The old format's fields say what replaced them.
		{`{"nodes": 2, "until_us": 1000}`, `s.json:1: field nodes: a number of nodes is "count"; "nodes" lists node descriptions`},
		{`{` + base + `,` + "\n" + `"until_us": 1000}`, `s.json:2: unknown field "until_us": renamed: write "time" with a unit`},
		{`{` + base + `, "clock_mhz": 200}`, `unknown field "clock_mhz": moved: write "defaults": {"clock_mhz": ...}`},
	} {
		_, err := Parse("s.json", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, scenario.ErrBadScenario) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
}

// failingBody is a timeline body whose writes fail after the first few.
type failingBody struct{ writes int }

func (b *failingBody) Write(p []byte) (int, error) {
	if b.writes++; b.writes > 100 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}
func (b *failingBody) Finish([]byte) error { return nil }

// A streamed timeline that cannot be written stops the run with its
// error at the next millisecond, instead of running the scenario to its
// end (here 60,000 round trips, seconds of work) for nothing; a streamed
// timeline that can be written gets the bytes of one in memory.
func TestTimelineStreamStopsRun(t *testing.T) {
	sc, err := Parse("s.json", []byte(`{"count": 2, "topology": {"kind": "star"}, "frames": 1024, "seed": 1, "time": "3600s",
  "workloads": [{"kind": "pingpong", "from": 0, "to": 1, "size": 4, "count": 60000, "wait": "busy"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tl := timeline.New()
	var body failingBody
	tl.Stream(&body)
	if _, err := Run(sc, tl, nil); err == nil || err.Error() != "disk full" {
		t.Errorf("Run with a failing trace: %v, want the trace's error", err)
	}

	sc.Workloads[0].Count = 50
	mem, str := timeline.New(), timeline.New()
	var b streamBody
	str.Stream(&b)
	if _, err := Run(sc, mem, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(sc, str, nil); err != nil {
		t.Fatal(err)
	}
	if err := str.End(); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	mem.Write(&want)
	if got := append(b.head, b.Bytes()...); mem.Len() < 100 || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("%d events: streamed %d bytes, in memory %d", mem.Len(), len(got), want.Len())
	}
}

// streamBody is a timeline body in memory.
type streamBody struct {
	bytes.Buffer
	head []byte
}

func (b *streamBody) Finish(head []byte) error { b.head = head; return nil }
