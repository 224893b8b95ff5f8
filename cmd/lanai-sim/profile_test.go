package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// --profile writes one profile per node, labelled by node, whose cycles add
// up to that node's cycle count; the run's counts are those of a run
// without it.
func TestProfilePerNode(t *testing.T) {
	dir := t.TempDir()
	plain, prof := filepath.Join(dir, "plain.json"), filepath.Join(dir, "prof.json")
	if st, out := lsim(t, "--quiet", "--no-host-times", "--stats", plain, filepath.Join(sc, "pingpong.json")); st != 0 {
		t.Fatalf("status %d\n%s", st, out)
	}
	pfile := filepath.Join(dir, "p.pb.gz")
	if st, out := lsim(t, "--quiet", "--no-host-times", "--stats", prof, "--profile", pfile, filepath.Join(sc, "pingpong.json")); st != 0 {
		t.Fatalf("status %d\n%s", st, out)
	}
	a, _ := os.ReadFile(plain)
	b, _ := os.ReadFile(prof)
	if string(a) != string(b) {
		t.Fatal("the profiled run's statistics differ from the plain run's")
	}
	var stats struct{ Nodes []struct{ Cycles int64 } }
	if err := json.Unmarshal(a, &stats); err != nil {
		t.Fatal(err)
	}
	for i, n := range stats.Nodes {
		f, err := os.Open(filepath.Join(dir, "p-node"+string(rune('0'+i))+".pb.gz"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, s := range p.Sample {
			sum += s.Value[0]
			if s.Label["node"][0] != string(rune('0'+i)) {
				t.Fatalf("node %d's profile has a sample labelled %v", i, s.Label)
			}
		}
		if sum != n.Cycles {
			t.Errorf("node %d: profile %d cycles, run %d", i, sum, n.Cycles)
		}
	}
}
