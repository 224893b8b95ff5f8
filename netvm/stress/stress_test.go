package stress

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"lanaiemu/sim"
)

// A short run on 3 nodes with every kind of churn and the fabric's faults:
// nothing lost, nothing violated, and the run exercised what it claims.
func TestStressShort(t *testing.T) {
	res, err := Run(Config{Seed: 7, Nodes: 3, Writes: 150, Atomics: 150, ForkEvery: 4, RemapEvery: 4, EvictEvery: 100 * sim.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *res)
	if !res.OK() {
		t.Fatalf("lost %d bytes, %d violations: %v", res.LostBytes, res.Violations, res.Problems)
	}
	if res.RedirectedPages == 0 || res.Evictions == 0 || res.Retransmits == 0 || res.Forks == 0 || res.Remaps == 0 || res.Atomics < 150 {
		t.Fatalf("the run did not exercise the paths: %+v", *res)
	}
}

// The same seed gives the same result, field for field.
func TestStressDeterministic(t *testing.T) {
	cfg := Config{Seed: 3, Nodes: 2, Writes: 60, Atomics: 40, ForkEvery: 3, RemapEvery: 3}
	a, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, b, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("two runs differ (-first +second):\n%s", d)
	}
	if !a.OK() {
		t.Fatalf("%+v", *a)
	}
}
