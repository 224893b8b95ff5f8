package scenario

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse feeds arbitrary JSON to the scenario parser: it must return a
// checked scenario or an error wrapping ErrBadScenario (or, for a file the
// scenario names, such as a host script, the error reading it, naming the
// scenario), never panic, and
// never spend time or memory in proportion to a number in the file (a
// count of two billion nodes is refused, not iterated). A scenario it
// accepts has its nodes in range and their descriptions computable.
func FuzzParse(f *testing.F) {
	// netvm run's scenarios extend the base: here their own fields are
	// refused, with a hint.
	files, _ := filepath.Glob("../fixtures/scenarios/*.json")
	more, _ := filepath.Glob("../fixtures/netvm/scenarios/*.json")
	files = append(files, more...)
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"topology":{"kind":"tree","leaves":99999,"per_leaf":99999},"defaults":{"asm":["x.s"]},"time":"1ms"}`,
		`{"count":2000000000,"topology":{"kind":"star"},"defaults":{"asm":["x.s"]},"time":"1ms"}`,
		`{"topology":{"kind":"b2b"},"defaults":{"firmware":"x","sram":"4G","params":{"a":"0x1ffffffff"}},"time":"1ms"}`,
		`{"topology":{"kind":"star"},"nodes":[{"ids":"0-3/0","asm":["x"]}],"count":4,"time":"10ms"}`,
		`{"topology":{"kind":"star"},"time":"18446744073709551615s"}`,
		`{"topology":{"kind":"star","unplugged":[0,3,-1,0]},"count":3,"defaults":{"asm":["x.s"]},"time":"1ms"}`,
		`{"topology":{"kind":"b2b","link_latency":"18446744073709000000ps"},"defaults":{"asm":["x.s"],"clock_mhz":0.0000004},"time":"1ms","sample":"86401s"}`,
		`{"nodes":2,"until_us":100000,"back_to_back":true,"board":"M2L-PCI64B","workloads":[]}`,
		"{\"topology\":{\"kind\":\"b2b\"},\"defaults\":{\"asm\":[\"x.s\"]},\"time\":\"1ms\",\n\"faults\":{\"until_us\":1}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.json", data)
		if err != nil {
			var pe *fs.PathError
			if !errors.Is(err, ErrBadScenario) && !(errors.As(err, &pe) && strings.HasPrefix(err.Error(), "fuzz.json: ")) {
				t.Fatalf("error is neither a bad scenario nor a file the scenario names: %v", err)
			}
			return
		}
		if s.Count <= 0 || s.Count > MaxNodes {
			t.Fatalf("accepted %d nodes", s.Count)
		}
		specs := s.NodeSpecs()
		if len(specs) != s.Count {
			t.Fatalf("%d descriptions of %d nodes", len(specs), s.Count)
		}
		for i := range min(s.Count, 64) {
			if diff := cmp.Diff(nodeByScan(s, i), specs[i]); diff != "" {
				t.Fatalf("node %d (-scan +NodeSpecs):\n%s", i, diff)
			}
		}
	})
}

// nodeByScan is node i's description made the slow way NodeSpecs avoids:
// every entry's ranges tested against i.
func nodeByScan(s *Scenario, i int) NodeSpec {
	var entries []int
	for j, n := range s.Nodes {
		rs, _ := s.ranges(j, n)
		for _, r := range rs {
			if i >= r.lo && i <= r.hi && (i-r.lo)%r.step == 0 {
				entries = append(entries, j)
				break
			}
		}
	}
	return s.merge(entries)
}
