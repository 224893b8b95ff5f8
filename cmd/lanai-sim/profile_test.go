package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/pprof/profile"

	"lanaiemu/internal/outfile/outfiletest"
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
	if d := cmp.Diff(string(a), string(b)); d != "" {
		t.Fatalf("the profiled run's statistics differ from the plain run's (-plain +profiled):\n%s", d)
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

// lanai-sim check measures a budget file's paths on every node: --update
// writes them, a plain check passes, a lowered budget exits 1 naming the
// path; check without --budgets is a usage error.
func TestCheckBudgets(t *testing.T) {
	dir := t.TempDir()
	fw := filepath.Join(dir, "fw.s")
	os.WriteFile(fw, []byte(`
	.text
	.globl	_start
_start:
	mov	0x8000, %sp
	mov	3, %r9
again:	bt	work
	add	%pc, 4, %rca
	sub.f	%r9, 1, %r9
	bne	again
	nop
	st	%r0, -4096[%r0]
	bt	.
	nop
work:
	mov	200, %r6
.Lw:	sub.f	%r6, 1, %r6
	bne	.Lw
	nop
	add	%rca, 0, %pc
	nop
`), 0o644)
	budgets := filepath.Join(dir, "b.txt")
	os.WriteFile(budgets, []byte("work work ret 0 0\n"), 0o644)
	args := []string{"--quiet", "--nodes", "2", "--firmware", fw}
	// The summary gives the budget written, not the file's 0 before.
	if st, out := lsim(t, append([]string{"check", "--budgets", budgets, "--update"}, args...)...); st != 0 || !strings.Contains(out, "worst      603  best      603  budget      603\n") {
		t.Fatalf("check --update: %d\n%s", st, out)
	}
	data, _ := os.ReadFile(budgets)
	if f := strings.Fields(strings.Split(string(data), "\n")[1]); len(f) != 5 || f[3] != "603" {
		t.Fatalf("budget file:\n%s", data) // mov, 200 x 3, return 2
	}
	if st, out := lsim(t, append([]string{"check", "--budgets", budgets}, args...)...); st != 0 || !strings.Contains(out, "6 runs") {
		t.Fatalf("check: %d\n%s", st, out)
	}
	os.WriteFile(budgets, []byte(strings.Replace(string(data), "603", "600", 1)), 0o644)
	if st, out := lsim(t, append([]string{"check", "--budgets", budgets}, args...)...); st != 1 || !strings.Contains(out, "b.txt:2: work: 603 cycles, budget 600 0 (limit 600): 3 more") {
		t.Fatalf("a lowered budget: %d\n%s", st, out)
	}
	if st, _ := lsim(t, append([]string{"check"}, args...)...); st != 64 {
		t.Fatalf("check without --budgets: %d", st)
	}
	// A budget file --update cannot write fails before the run (it failed
	// after it), and keeps its contents.
	before, _ := os.ReadFile(budgets)
	outfiletest.ReadOnly(t, budgets)
	start := time.Now()
	st, out := lsim(t, append([]string{"check", "--budgets", budgets, "--update"}, args...)...)
	if st != 66 || !strings.HasPrefix(out, "lanai-sim: --budgets: open ") || strings.Contains(out, "runs") || time.Since(start) > time.Second {
		t.Fatalf("an unwritable budget file: status %d after %v %q; want 66 before the run", st, time.Since(start), out)
	}
	if after, _ := os.ReadFile(budgets); string(after) != string(before) {
		t.Fatalf("the budget file changed:\n%s", after)
	}
}
