package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"lanaiemu/node"
)

// The memory estimate follows what Build allocates: measured with
// runtime.MemStats on built worlds, it is what a node takes (the figures
// below are 1 % under the estimate) and not much more. 2 MiB of SRAM measured 2794 KiB per node (8 to 64
// nodes), 256 KiB 1001 KiB, 32 MiB 33529 KiB; a host memory of 4 GiB
// adds its 8 MiB frame table.
func TestMemoryEstimate(t *testing.T) {
	for _, c := range []struct {
		n          int
		sram, host string
	}{{8, "2M", "1M"}, {32, "256K", "1M"}, {8, "32M", "1M"}, {8, "2M", "4G"}} {
		src := fmt.Sprintf(`{"count": %d, "topology": {"kind": "star"}, "defaults": {"asm": ["../fixtures/scenarios/dma.s"], "sram": %q, "host_memory": %q}, "time": "100us", "stop": "time"}`, c.n, c.sram, c.host)
		s, err := Parse("m.json", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		est := s.memory(s.NodeSpecs()) / uint64(c.n)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		w, err := s.Build()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Run(nil); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		runtime.KeepAlive(w)
		got := (m1.HeapAlloc - m0.HeapAlloc) / uint64(c.n)
		t.Logf("%d nodes, SRAM %s, host %s: %d KiB per node, estimated %d KiB", c.n, c.sram, c.host, got>>10, est>>10)
		if est < got-got/20 || est > got+got/4 { // 5 % below for the test's own noise
			t.Errorf("%d nodes, SRAM %s, host %s: %d KiB per node, estimated %d KiB (want 5 %% below to 25 %% above)", c.n, c.sram, c.host, got>>10, est>>10)
		}
	}
}

// A scenario whose nodes would take more than node.MaxMemory is refused
// by Check, with the estimate and the bound, before anything is built:
// 992 nodes at the default 2 MiB of SRAM ran the process out of memory
// under a 4 GiB limit. So are host loads and dumps that would.
func TestMemoryBound(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 200<<20); err != nil { // sparse: 200 MiB read into each host memory
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	const fw = `"asm": ["idle.s"]`
	for _, c := range []struct{ src, want string }{
		{`{"topology": {"kind": "tree", "leaves": 32, "per_leaf": 31}, "defaults": {` + fw + `}, "time": "1ms"}`,
			"count: 992 nodes would take an estimated 2730.9 MiB (2.8 MiB per node), more than the 2048.0 MiB a run may take"},
		{`{"count": 16, "topology": {"kind": "star"}, "defaults": {` + fw + `, "host_memory": "1G", "host_loads": [{"addr": 0, "file": "big.bin"}]}, "time": "1ms"}`,
			"count: 16 nodes would take an estimated 3276.0 MiB (204.8 MiB per node)"},
		// A pipe may fill the host memory past its address.
		{`{"count": 2, "topology": {"kind": "star"}, "defaults": {` + fw + `, "host_memory": "1G", "host_loads": [{"addr": 0, "file": "fifo"}]}, "time": "1ms"}`,
			"count: 2 nodes would take an estimated 2057.5 MiB (1028.8 MiB per node)"},
		{`{"count": 2, "topology": {"kind": "star"}, "defaults": {` + fw + `, "host_memory": "4G", "host_dumps": [{"addr": 0, "len": "3G", "file": "d.bin"}]}, "time": "1ms"}`,
			"count: 2 nodes would take an estimated 3093.5 MiB (1546.8 MiB per node)"},
	} {
		_, err := Parse(filepath.Join(dir, "s.json"), []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
	// Under the bound is taken: 704 nodes of 2 MiB (1938 MiB).
	src := `{"topology": {"kind": "tree", "leaves": 32, "per_leaf": 22}, "defaults": {` + fw + `}, "time": "1ms"}`
	if _, err := Parse(filepath.Join(dir, "s.json"), []byte(src)); err != nil {
		t.Errorf("704 nodes: %v", err)
	}
	if node.MaxMemory != 2<<30 {
		t.Errorf("node.MaxMemory is %d; docs/bad-input.md says 2 GiB", node.MaxMemory)
	}
}

// A host load is copied into host memory piece by piece: read whole
// first, it took twice its size and more at its peak (a 1900 MiB load,
// estimated at 1911 MiB and so under node.MaxMemory, took 4.4 GB), which
// the estimate does not count. All that Build allocates, freed or not, is
// within the estimate.
func TestHostLoadWithinEstimate(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 64<<20); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("../fixtures/scenarios/idle.s")
	if err != nil {
		t.Fatal(err)
	}
	src := `{"count": 1, "topology": {"kind": "star"}, "defaults": {"asm": [` + strconv.Quote(abs) + `], "host_memory": "128M", "host_loads": [{"addr": 0, "file": "big.bin"}]}, "time": "1us"}`
	s, err := Parse(filepath.Join(dir, "s.json"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	est := s.memory(s.NodeSpecs())
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	w, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(w)
	got := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("a 64 MiB host load: Build allocated %d KiB, estimated %d KiB", got>>10, est>>10)
	if got > est+est/8 {
		t.Errorf("a 64 MiB host load: Build allocated %d KiB, more than the estimate, %d KiB", got>>10, est>>10)
	}
}
