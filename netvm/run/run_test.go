package run

import (
	"strings"
	"testing"
)

// A scenario with a ping-pong (busy wait), a stream and memory pressure
// runs to its end and reports each workload.
func TestRunScenario(t *testing.T) {
	sc, err := Parse("s.json", []byte(`{
  "nodes": 2, "frames": 1024, "seed": 1, "until_us": 100000,
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
	for _, c := range []struct{ src, want string }{
		{`{"nodes": 2,` + "\n" + `"workloads": [}`, "s.json:2:"},
		{`{"nodes": "two"}`, "s.json:1: json: cannot unmarshal string"},
		{`{"nodes": 2, "colour": 1}`, `unknown field "colour"`},
		{`{"nodes": 1}`, "nodes = 1"},
		{`{"nodes": 2,` + "\n" + `"workloads": [` + "\n" + `{"kind": "stream", "from": 0, "to": 1, "count": 1},` + "\n" + `  {"kind": "stream", "from": 0, "to": 7, "count": 1}]}`,
			"s.json:4: workloads[1]: to = 7, but nodes are 0..1"},
		{`{"nodes": 2, "workloads": [{"kind": "teleport"}]}`, `s.json:1: workloads[0]: kind = "teleport"`},
		{`{"nodes": 2, "workloads": [{"kind": "pingpong", "from": 0, "to": 1, "count": 1, "wait": "forever"}]}`, `wait = "forever"`},
	} {
		_, err := Parse("s.json", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
}
