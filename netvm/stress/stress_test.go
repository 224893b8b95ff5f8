package stress

import "testing"

// A short run on 3 nodes with every kind of churn and the fabric's faults:
// nothing lost, nothing violated, and the run exercised what it claims.
func TestStressShort(t *testing.T) {
	res, err := Run(Config{Seed: 7, Nodes: 3, Writes: 150, ForkEvery: 4, RemapEvery: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *res)
	if !res.OK() {
		t.Fatalf("lost %d bytes, %d violations: %v", res.LostBytes, res.Violations, res.Problems)
	}
	if res.RedirectedPages == 0 || res.Evictions == 0 || res.Retransmits == 0 || res.Forks == 0 || res.Remaps == 0 {
		t.Fatalf("the run did not exercise the paths: %+v", *res)
	}
}
