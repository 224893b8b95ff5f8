package stress

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"lanaiemu/fabric"
	"lanaiemu/netvm/abi"
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

// The fabric reuses its copies of packets once the receiving board has
// stored them (fabric.Recycle). With boards run on two goroutines (their
// give-backs deferred to the serial step) and every fault that changes a
// packet's path (drops, corruption, detours, jitter, other routes), a copy
// reused too early would show as lost or wrong bytes in the checker's
// shadow comparison, or as a result that differs from the one-goroutine
// run.
func TestStressRecycledCopies(t *testing.T) {
	cfg := Config{Seed: 11, Nodes: 3, Writes: 150, Atomics: 60, ForkEvery: 4, RemapEvery: 4,
		Faults: fabric.Faults{DropPPM: 20_000, CorruptPPM: 20_000, DetourPPM: 50_000, DetourDelay: 20 * sim.Microsecond,
			JitterPPM: 100_000, JitterMax: 2 * sim.Microsecond, AltRoutePPM: 100_000}}
	one, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !one.OK() {
		t.Fatalf("lost %d bytes, %d violations: %v", one.LostBytes, one.Violations, one.Problems)
	}
	if one.Retransmits == 0 || one.CRCErrors == 0 {
		t.Fatalf("the faults did not bite: %+v", *one)
	}
	cfg.Jobs = 2
	two, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(one, two, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("one and two goroutines differ (-one +two):\n%s", d)
	}
}

// Batches larger than the deferral queue (abi.DeferMax notifications per
// sender) under memory pressure: the receiver's OS services the
// redirected packets that hold the deferred notifications back slowly,
// the queue fills, and the firmware refuses the next notifying packet.
// It did so with NACK StatusResend, which the sender counted as a
// retransmission without progress, so after 16 (about 16 ms) it declared
// the peer dead (with seed 1: node 0's queue stayed full for 17 ms at
// 1,100 WRITEs). A full queue is a receiver not ready (NACK StatusRNR):
// nothing lost, nothing violated, and the run ends well within its limit.
func TestStressBatchBeyondDeferQueue(t *testing.T) {
	res, err := Run(Config{Seed: 1, Nodes: 2, Writes: 2400, Batch: 128, Clean: true, Limit: 2 * sim.Second,
		ForkEvery: 16, RemapEvery: 16, EvictEvery: 200 * sim.Microsecond}) // netvm stress's defaults
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *res)
	if !res.OK() {
		t.Fatalf("lost %d bytes, %d violations: %v", res.LostBytes, res.Violations, res.Problems)
	}
	// On a clean fabric a packet is sent again only when the receiver
	// refused it: here, for a full deferral queue.
	if res.RedirectedPages == 0 || res.Notifications < 2*abi.DeferMax || res.Retransmits == 0 {
		t.Fatalf("the run did not exercise the paths: %+v", *res)
	}
}
