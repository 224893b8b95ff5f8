package bench

import "testing"

// Write-after-write order under faults (docs/netvm.md §7): 16 slots
// rewritten round and round while 1 % of the packets are dropped, 1 %
// corrupted and 2 % reordered. Every time the counter moves, each WRITE
// it covers is visible (before the rule, a retransmission of write 30
// landed after write 46 to the same page); the sender did hold packets
// back, and did retransmit.
func TestWriteAfterWrite(t *testing.T) {
	o, err := orderRun(Config{}, orderingFaults, 400)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d notifications, %d violations, %d write-after-write stalls, %d retransmissions", len(o.lat), o.violations, o.wawStalls, o.retx)
	if len(o.lat) != 400 || o.violations != 0 {
		t.Fatalf("%d notifications, %d violations", len(o.lat), o.violations)
	}
	if o.wawStalls == 0 || o.retx == 0 {
		t.Fatalf("the run did not exercise the rule: %d stalls, %d retransmissions", o.wawStalls, o.retx)
	}
}
