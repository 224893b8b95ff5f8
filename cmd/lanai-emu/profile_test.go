package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"

	"lanaiemu/internal/outfile/outfiletest"
)

// run --profile writes a profile whose cycles add up to the run's, with
// the run's counts unchanged; check --update writes the budgets, check
// passes on the same image, and a budget lowered by hand fails with exit
// status 1, naming the path and the routine that grew.
func TestProfileAndCheck(t *testing.T) {
	dir := t.TempDir()
	img := buildC(t, dir, "vm.O2")
	plain, prof := filepath.Join(dir, "plain.json"), filepath.Join(dir, "prof.json")
	pfile := filepath.Join(dir, "vm.pb.gz")
	st1, _, _ := emu(t, "", "run", "--quiet", "--stats", plain, img)
	st2, _, e := emu(t, "", "run", "--quiet", "--stats", prof, "--profile", pfile, img)
	if st1 != st2 {
		t.Fatalf("status %d, profiled %d: %s", st1, st2, e)
	}
	var a, b struct{ Cycles, Instructions int64 }
	da, _ := os.ReadFile(plain)
	db, _ := os.ReadFile(prof)
	json.Unmarshal(da, &a)
	json.Unmarshal(db, &b)
	if a != b || a.Cycles == 0 {
		t.Fatalf("plain %+v, profiled %+v", a, b)
	}
	f, err := os.Open(pfile)
	require.NoError(t, err)
	p, err := profile.Parse(f)
	f.Close()
	require.NoError(t, err)
	var sum int64
	for _, s := range p.Sample {
		sum += s.Value[0]
	}
	if sum != a.Cycles {
		t.Fatalf("profile %d cycles, run %d", sum, a.Cycles)
	}

	budgets := filepath.Join(dir, "vm.budgets")
	os.WriteFile(budgets, []byte("run run ret 0 0\nmain main ret 0 +1%\n"), 0o644)
	st, out, e := emu(t, "", "check", "--budgets", budgets, "--update", img)
	if st != 0 || !strings.Contains(out, "main") {
		t.Fatalf("check --update: %d %q %q", st, out, e)
	}
	// Each summary line gives the budget written (the worst run), not the
	// file's 0 before.
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 9 || f[8] != f[4] || f[8] == "0" {
			t.Errorf("check --update: summary line %q: want budget = worst", l)
		}
	}
	if st, _, e := emu(t, "", "check", "--budgets", budgets, img); st != 0 {
		t.Fatalf("check: %d %q", st, e)
	}
	data, _ := os.ReadFile(budgets)
	lines := strings.Split(string(data), "\n")
	// Lower run's budget (line 2) and run's own share in it (line 3, the
	// costliest routine first) by 100 cycles.
	path, share := strings.Fields(lines[1]), strings.Fields(lines[2])
	if path[0] != "run" || share[0] != "run" {
		t.Fatalf("budget file:\n%s", data)
	}
	budget, _ := strconv.Atoi(path[3])
	own, _ := strconv.Atoi(share[1])
	lines[1] = strings.Replace(lines[1], path[3], strconv.Itoa(budget-100), 1)
	lines[2] = "\trun " + strconv.Itoa(own-100)
	os.WriteFile(budgets, []byte(strings.Join(lines, "\n")), 0o644)
	st, _, e = emu(t, "", "check", "--budgets", budgets, img)
	if st != 1 || !strings.Contains(e, "vm.budgets:2: run: ") || !strings.Contains(e, "100 more; run grew most") {
		t.Fatalf("a lowered budget: status %d\n%s", st, e)
	}
	if st, _, _ := emu(t, "", "check", img); st != exitUsage {
		t.Fatalf("no --budgets: status %d", st)
	}
	// A budget file --update cannot write fails before the run (it failed
	// after it), and keeps its contents.
	before, _ := os.ReadFile(budgets)
	outfiletest.ReadOnly(t, budgets)
	start := time.Now()
	st, out, e = emu(t, "", "check", "--budgets", budgets, "--update", img)
	if st != exitImage || out != "" || !strings.HasPrefix(e, "lanai-emu check: --budgets: open ") || time.Since(start) > time.Second {
		t.Fatalf("an unwritable budget file: status %d after %v, stdout %q, stderr %q; want %d before the run", st, time.Since(start), out, e, exitImage)
	}
	if after, _ := os.ReadFile(budgets); string(after) != string(before) {
		t.Fatalf("the budget file changed:\n%s", after)
	}
}
