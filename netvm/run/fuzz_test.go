package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary JSON to the netvm run scenario parser: it must
// return a checked scenario or an error naming the file, never panic. A
// scenario it accepts is within the limits a run relies on (nodes, frames,
// until_us, workloads' nodes and sizes).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../fixtures/netvm/scenarios/*.json")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"nodes":4,"until_us":10000,"workloads":[{"kind":"stream","from":0,"to":1,"size":4,"count":1},{"kind":"stream","from":0,"to":2,"size":4,"count":1}]}`,
		`{"nodes":2,"until_us":18446744073709}`,
		`{"nodes":2,"frames":1000000000000,"workloads":[{"kind":"touch","node":1,"pages":4000000000}]}`,
		`{"nodes":2,"workloads":[{"kind":"pingpong","from":0,"to":1,"count":1,"wait":"handler","size":1048577}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("fuzz.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if sc.UntilUS == 0 || sc.UntilUS > MaxUntilUS || sc.Frames < 64 || sc.Frames > maxFrames {
			t.Fatalf("accepted until_us %d, frames %d", sc.UntilUS, sc.Frames)
		}
		for i, w := range sc.Workloads {
			for _, n := range []int{w.From, w.To, w.Node} {
				if n < 0 || n >= sc.Nodes {
					t.Fatalf("workload %d names node %d of %d", i, n, sc.Nodes)
				}
			}
			if w.Size > 1<<20 || w.Kind == "touch" && (w.Pages < 1 || w.Pages > maxTouchPages) {
				t.Fatalf("workload %d: %+v", i, w)
			}
		}
	})
}
