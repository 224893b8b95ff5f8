package netvm_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/lanai/budget"
	"lanaiemu/lanai/profile"
	"lanaiemu/memsys"
	"lanaiemu/netvm/abi"
	"lanaiemu/objfile"
	"lanaiemu/sim"
)

// budgetFile holds the cycle budgets of the firmware's hot paths: sending
// a WRITE, receiving DATA, notifying, redirecting, and the SPT routines.
var budgetFile = filepath.Join("testdata", "budgets.txt")

// The firmware's hot paths stay within their cycle budgets, measured on
// both boards while a 4-byte WRITE with a counter goes to a resident page
// and another to a non-resident one (redirected): go test ./firmware/netvm
// -run Budgets -update rewrites testdata/budgets.txt (docs/profiling.md).
func TestFirmwareBudgets(t *testing.T) {
	f, err := budget.Load(budgetFile)
	if err != nil {
		t.Fatal(err)
	}
	img := Build(t)
	obj, err := objfile.Read(img)
	if err != nil {
		t.Fatal(err)
	}
	im := &memsys.Image{Entry: obj.Entry, Symbols: obj.Symbols, File: obj}
	w, src, _ := setupWith(t, Options{})
	var meters []*budget.Meter
	for _, n := range w.Nodes {
		m, err := budget.NewMeter(f, im)
		if err != nil {
			t.Fatal(err)
		}
		n.Board.Observe(m)
		meters = append(meters, m)
	}
	n0, n1 := w.Nodes[0], w.Nodes[1]
	copy(n0.HostBytes(src[0], 4), []byte{1, 2, 3, 4})
	n0.Write(0, srcVA, 4, 0, impRegion, impCtr)
	w.RunUntil("counter", 100*sim.Nanosecond, sim.Millisecond, func() bool { return n1.Counter(0, ctrID) == 1 })
	// The same to a page that is not resident: redirected.
	e := sptEntry(t, n1, dstVA+abi.PageSize)
	n1.PIO(e+abi.SPTFlagsByte, []byte{abi.SPTV | abi.SPTW | abi.SPTP})
	n1.PIO(e+abi.SPTFlagsByte, []byte{0})
	w.MustKernel(n1, abi.KOpSPTUnmap, abi.Field32(abi.KSPTIndex, (e-abi.SPTBase)/abi.SPTEntrySize))
	n0.Write(0, srcVA, 4, abi.PageSize, impRegion, abi.NoCounter)
	w.RunEvents(n1, sim.Millisecond)
	w.W.Run(w.Now() + 20*sim.Microsecond)
	var sets [][]budget.Result
	for _, m := range meters {
		sets = append(sets, m.Results())
	}
	results := budget.Merge(sets...)
	for _, r := range results {
		t.Logf("%-18s %3d runs, worst %5d cycles, best %5d", r.Path.Name, r.Runs, r.Max, r.Min)
	}
	if err := budget.Verify(f, results, *update); err != nil {
		t.Fatal(err)
	}
}

// flameDir holds docs/profiling.md's flame graphs of a 4-byte WRITE.
var flameDir = filepath.Join("..", "..", "docs", "profiling")

// Where a 4-byte WRITE's cycles go, on both boards from the doorbell to
// the counter in the receiver's host: each board's profile adds up to the
// cycles of that span, and its flame graph is docs/profiling's
// write4-nodeN.svg (rewritten with -update, compared otherwise).
func TestWrite4Profile(t *testing.T) {
	img := Build(t)
	obj, err := objfile.Read(img)
	if err != nil {
		t.Fatal(err)
	}
	im := &memsys.Image{Entry: obj.Entry, Symbols: obj.Symbols, File: obj}
	w, src, _ := setupWith(t, Options{})
	n0, n1 := w.Nodes[0], w.Nodes[1]
	copy(n0.HostBytes(src[0], 4), []byte{1, 2, 3, 4})
	w.W.Run(w.Now() + 10*sim.Microsecond) // both idle in their loops
	var profs []*profile.Profiler
	var start []uint64
	for _, n := range w.Nodes {
		p := profile.New(im, n.Board.Busy)
		p.Binary("firmware/netvm")
		n.Board.Observe(p)
		profs = append(profs, p)
		start = append(start, n.Board.CPU().Cycles)
	}
	n0.Write(0, srcVA, 4, 0, impRegion, impCtr)
	w.RunUntil("counter", 100*sim.Nanosecond, sim.Millisecond, func() bool { return n1.Counter(0, ctrID) == 1 })
	for i, p := range profs {
		ran := int64(w.Nodes[i].Board.CPU().Cycles - start[i])
		if p.Total(profile.Cycles) != ran {
			t.Fatalf("node %d: profile %d cycles, board ran %d", i, p.Total(profile.Cycles), ran)
		}
		var buf bytes.Buffer
		title := []string{"sender (node 0)", "receiver (node 1)"}[i] + ": a 4-byte WRITE with a counter, doorbell to counter"
		if err := profile.WriteFlame(&buf, p.Profile(ClockHz), profile.Cycles, title); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(flameDir, fmt.Sprintf("write4-node%d.svg", i))
		if *update {
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(want), buf.String()); d != "" {
			t.Errorf("%s differs from this run's flame graph (rerun with -update if meant) (-file +run):\n%s", name, d)
		}
		t.Logf("node %d: %d cycles", i, ran)
	}
}
