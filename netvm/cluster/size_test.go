package cluster

import (
	"runtime"
	"strings"
	"testing"

	"lanaiemu/hostbus"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/driver"
	"lanaiemu/netvm/freebsd"
)

// Memory is at least what a built cluster takes and not far above it
// (runtime.MemStats after New and a millisecond of the boot), besides
// the driver's pages, which it counts written (the system buffer's
// slots fill as packets arrive) and the boot has not written yet.
func TestMemoryEstimate(t *testing.T) {
	for _, c := range []struct{ nodes, frames int }{{8, 4096}, {2, 262144}, {64, 256}} {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		cl, err := New(Config{Nodes: c.nodes, Frames: c.frames})
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.Run(cl.Now() + 1e9); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		runtime.KeepAlive(cl)
		cl.Shutdown()
		driverBytes := uint64(driver.LayoutFor(c.nodes, abi.DefaultCredits).Frames) * freebsd.PageSize
		got, est := (m1.HeapAlloc-m0.HeapAlloc)/uint64(c.nodes), Memory(c.nodes, c.frames, 0)/uint64(c.nodes)-driverBytes
		t.Logf("%d nodes of %d frames: %d KiB per node, estimated %d KiB", c.nodes, c.frames, got>>10, est>>10)
		if est < got-got/20 || est > got+got/2 { // 5 % below for the test's own noise
			t.Errorf("%d nodes of %d frames: %d KiB per node, estimated %d KiB (want 5 %% below to half as much again)", c.nodes, c.frames, got>>10, est>>10)
		}
	}
}

// The driver's pages and MaxFrames fit the 32-bit host's memory at any
// node count: MaxFrames frames made New fail (the host memory was over
// 4 GiB) although netvm run and stress took them.
func TestMaxFrames(t *testing.T) {
	if got := driver.LayoutFor(abi.MaxNodes, abi.MaxCredits).Frames; got > driverPages {
		t.Fatalf("the driver takes %d pages at %d nodes, more than driverPages %d", got, abi.MaxNodes, driverPages)
	}
	if uint64(MaxFrames+driverPages)*freebsd.PageSize > hostbus.MaxHostMemory {
		t.Fatalf("MaxFrames %d and the driver's pages are over the host's memory", MaxFrames)
	}
	if err := CheckFrames(MaxFrames + 1); err == nil {
		t.Error("CheckFrames took MaxFrames+1")
	}
	if _, err := New(Config{Nodes: 64, Frames: MaxFrames}); err == nil || !strings.Contains(err.Error(), "would take an estimated") {
		t.Errorf("64 nodes of MaxFrames: %v, want the memory bound", err)
	}
}

// CheckNodes is the one rule for a cluster's size (netvm run, stress and
// New): 17 nodes passed stress's check (2..64) and failed in New.
func TestCheckNodes(t *testing.T) {
	for n := -1; n <= abi.MaxNodes+8; n++ {
		ok := n >= 2 && (n <= MaxStarNodes || n%8 == 0 && n <= abi.MaxNodes)
		if err := CheckNodes(n); (err == nil) != ok {
			t.Errorf("CheckNodes(%d) = %v", n, err)
		}
	}
}
