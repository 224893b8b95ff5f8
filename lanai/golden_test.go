package lanai

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/internal/ccorpus"
)

var update = flag.Bool("update", false, "rewrite the cycle-count goldens in testdata/cycles")

// goldenCounts is the committed table of instruction and cycle counts.
const goldenCounts = "testdata/cycles/corpus.golden"

// counts runs every corpus build and the chosen functions and returns the
// lines of the golden table.
func counts(t *testing.T) []string {
	progs, err := ccorpus.Programs("../fixtures/c")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range progs {
		for _, opt := range ccorpus.Opts {
			name := p.Name + "." + opt
			img := buildProgram(t, filepath.Join("../fixtures/c/s", name+".s"))
			c, st := runImage(t, img, 1<<32)
			if st.Kind != StopExit {
				t.Fatalf("%s: %v", name, st.Kind)
			}
			lines = append(lines, fmt.Sprintf("%-28s instructions %9d  cycles %9d", name, c.Instret, c.Cycles))
			for _, fn := range chosenFunctions[name] {
				n, cy := firstCall(t, img, fn)
				lines = append(lines, fmt.Sprintf("%-28s instructions %9d  cycles %9d", name+":"+fn, n, cy))
			}
		}
	}
	sort.Strings(lines)
	return lines
}

// chosenFunctions are functions whose first call is timed on its own (from
// the call's branch to the return to its caller), so that a change to the
// runtime or the cycle model shows where it lands.
var chosenFunctions = map[string][]string{
	"int64_arith.O2": {"__divdi3", "__udivdi3", "__muldi3"},
	"div32.O2":       {"__udivsi3", "__divsi3"},
	"memops.O2":      {"memcpy", "memset", "memmove"},
	"crc32.O2":       {"main"},
	"recursion.O1":   {"main"},
}

// firstCall runs an image to the first entry of fn and then to the return
// to its caller, and gives the instructions and cycles in between.
func firstCall(t *testing.T, img []byte, fn string) (uint64, uint64) {
	c, im := load(t, img, Config{})
	addr, ok := NewSymbols(im.Symbols).Addr(fn)
	if !ok {
		t.Fatalf("no symbol %s", fn)
	}
	c.SetBreakpoint(addr, true)
	if st := c.Run(1 << 32); st.Kind != StopBreakpoint {
		t.Fatalf("%s never called (%v)", fn, st.Kind)
	}
	c.SetBreakpoint(addr, false)
	// clang's call pushed the return address: it is at 0[%sp] on entry.
	ret, err := c.Mem.Word(c.R[4])
	if err != nil {
		t.Fatal(err)
	}
	n0, c0 := c.Instret, c.Cycles
	c.SetBreakpoint(ret, true)
	if st := c.Run(1 << 32); st.Kind != StopBreakpoint || c.PC != ret {
		t.Fatalf("%s did not return to %#x (%v at %#x)", fn, ret, st.Kind, c.PC)
	}
	return c.Instret - n0, c.Cycles - c0
}

// The instruction and cycle counts of every corpus build are exact and do
// not move unless someone means them to (go test ./lanai -run Golden
// -update rewrites testdata/cycles/corpus.golden).
func TestCycleGoldens(t *testing.T) {
	got := strings.Join(counts(t), "\n") + "\n"
	if *update {
		if err := os.WriteFile(goldenCounts, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenCounts)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); d != "" {
		t.Errorf("counts moved (-golden +now):\n%s", d)
		t.Log("if the change is intended, run: go test ./lanai -run TestCycleGoldens -update")
	}
}

// Two runs of the same image give the same counts and the same trace bytes.
func TestDeterminism(t *testing.T) {
	for _, name := range []string{"vm.O2", "sha256.O0", "switch_dense.Os", "bignum.O1"} {
		img := buildProgram(t, filepath.Join("../fixtures/c/s", name+".s"))
		var traces [2]bytes.Buffer
		var cyc [2]uint64
		for i := range traces {
			c, im := load(t, img, Config{})
			st := c.RunTraced(1<<32, NewTracer(&traces[i], NewSymbols(im.Symbols)))
			if st.Kind != StopExit {
				t.Fatalf("%s: %v", name, st.Kind)
			}
			cyc[i] = c.Cycles
		}
		if cyc[0] != cyc[1] {
			t.Errorf("%s: runs differ (cycles %d vs %d)", name, cyc[0], cyc[1])
		}
		if d := cmp.Diff(traces[0].String(), traces[1].String()); d != "" {
			t.Errorf("%s: the runs' traces differ (-first +second):\n%s", name, d)
		}
		// The traced (logged) path and the fast path agree.
		c, st := runImage(t, img, 1<<32)
		if st.Kind != StopExit || c.Cycles != cyc[0] {
			t.Errorf("%s: fast path %d cycles, traced %d", name, c.Cycles, cyc[0])
		}
		if n := bytes.Count(traces[0].Bytes(), []byte("\n")); uint64(n) != c.Instret {
			t.Errorf("%s: %d trace lines for %d instructions", name, n, c.Instret)
		}
	}
}
