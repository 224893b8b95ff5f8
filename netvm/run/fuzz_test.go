package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lanaiemu/netvm/cluster"
	"lanaiemu/scenario"
	"lanaiemu/sim"
)

// FuzzParse feeds arbitrary JSON to the netvm run scenario parser (the
// base format's, scenario.ParseFormat, with netvm run's extension): it
// must return a checked scenario or a bad-scenario error naming the file,
// never panic. A scenario it accepts is within the limits a run relies on
// (count, frames, time, workloads' nodes and sizes).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../fixtures/netvm/scenarios/*.json")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"count":4,"topology":{"kind":"star"},"time":"10ms","workloads":[{"kind":"stream","from":0,"to":1,"size":4,"count":1},{"kind":"stream","from":0,"to":2,"size":4,"count":1}]}`,
		`{"count":2,"topology":{"kind":"star"},"time":"18446744073709us"}`,
		`{"count":2,"topology":{"kind":"star"},"time":"1s","frames":1000000000000,"workloads":[{"kind":"touch","node":1,"pages":4000000000}]}`,
		`{"count":2,"topology":{"kind":"b2b"},"time":"1s","workloads":[{"kind":"pingpong","from":0,"to":1,"count":1,"wait":"handler","size":1048577}]}`,
		`{"count":64,"topology":{"kind":"clos","leaves":8,"per_leaf":8,"spines":8},"time":"1s","defaults":{"board":"M2L-PCI64B","clock_mhz":66}}`,
		`{"nodes":2,"until_us":100000,"back_to_back":true,"board":"M2L-PCI64B"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("fuzz.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") || !errors.Is(err, scenario.ErrBadScenario) {
				t.Fatalf("error does not name the file or is not a bad scenario: %v", err)
			}
			return
		}
		if sc.Time == 0 || sim.Time(sc.Time) > MaxTime || sc.Frames < 64 || sc.Frames > cluster.MaxFrames {
			t.Fatalf("accepted time %v, frames %d", sim.Time(sc.Time), sc.Frames)
		}
		if cluster.CheckNodes(sc.Count) != nil || len(sc.Nodes) > 0 {
			t.Fatalf("accepted count %d, nodes %v", sc.Count, sc.Nodes)
		}
		if err := cluster.CheckSize(sc.Count, sc.Frames, 0); err != nil {
			t.Fatalf("accepted a cluster over the bound: %v", err)
		}
		for i, w := range sc.Workloads {
			for _, n := range []int{w.From, w.To, w.Node} {
				if n < 0 || n >= sc.Count {
					t.Fatalf("workload %d names node %d of %d", i, n, sc.Count)
				}
			}
			if w.Size > 1<<20 || w.Kind == "touch" && (w.Pages < 1 || w.Pages > maxTouchPages) {
				t.Fatalf("workload %d: %+v", i, w)
			}
		}
	})
}
