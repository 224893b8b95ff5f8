package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"lanaiemu/lanai/profile"
)

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// The command's exits: help, bad command lines, a bad scenario (file and
// line), and a small stress run and scenario that succeed.
func TestCommand(t *testing.T) {
	if code, _, e := runCmd("--help"); code != 0 || !strings.Contains(e, "netvm stress") || !strings.Contains(e, "Examples") {
		t.Fatalf("help: %d %q", code, e)
	}
	// The help names run's flags as README's tool table does, and the
	// exit statuses; run's own usage error gives the same synopsis.
	_, _, help := runCmd("--help")
	_, _, runErr := runCmd("run")
	for _, w := range []string{"[--profile FILE]", "[--debug-script FILE]", "Exit status: 0", "3 a run or an output"} {
		if !strings.Contains(help, w) {
			t.Errorf("help lacks %q", w)
		}
	}
	if !strings.Contains(runErr, "usage: netvm run [--json FILE] [--trace FILE] [--profile FILE]") {
		t.Errorf("netvm run without a scenario: %q", runErr)
	}
	if code, _, _ := runCmd(); code != 2 {
		t.Fatal("no command: want exit 2")
	}
	if code, _, e := runCmd("fly"); code != 2 || !strings.Contains(e, "unknown command") {
		t.Fatalf("unknown command: %d %q", code, e)
	}
	if code, _, _ := runCmd("stress", "--nodes", "1"); code != 2 {
		t.Fatal("one node: want exit 2")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{\n  \"count\": 2, \"topology\": {\"kind\": \"star\"}, \"time\": \"1ms\",\n  \"workloads\": [{\"kind\": \"warp\"}]\n}\n"), 0o644)
	if code, _, e := runCmd("run", bad); code != 2 || !strings.Contains(e, "bad.json:3: workloads[0]") {
		t.Fatalf("bad scenario: %d %q", code, e)
	}
	code, out, e := runCmd("stress", "--quiet", "--seed", "4", "--nodes", "2", "--writes", "40")
	var res map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res["violations"].(float64) != 0 {
		t.Fatalf("stress: %d %q %q", code, out, e)
	}
	for _, k := range []string{"writes", "bytes", "redirected_pages", "src_faults", "retransmits", "lock_waits", "lost_bytes", "violations"} {
		if _, ok := res[k]; !ok {
			t.Errorf("stress JSON lacks %q", k)
		}
	}
	// The boards on two goroutines: the same JSON, byte for byte, on
	// standard output and in the --json file (which stays).
	js := filepath.Join(t.TempDir(), "stress.json")
	if code, out2, e := runCmd("stress", "--quiet", "--seed", "4", "--nodes", "2", "--writes", "40", "--jobs", "2", "--json", js); code != 0 || out2 != out {
		t.Fatalf("stress --jobs 2: %d %q %q", code, out2, e)
	}
	if b, err := os.ReadFile(js); err != nil || string(b) != out {
		t.Fatalf("--json file: %v %q", err, b)
	}
	if code, _, _ := runCmd("stress", "--jobs", "0"); code != 2 {
		t.Fatal("--jobs 0: want exit 2")
	}
	trace := filepath.Join(t.TempDir(), "t.json")
	if code, out, e := runCmd("run", "--quiet", "--trace", trace, "../../fixtures/netvm/scenarios/pingpong.json"); code != 0 || !strings.Contains(out, "one_way_latency_us") {
		t.Fatalf("run: %d %q %q", code, out, e)
	}
	if st, err := os.Stat(trace); err != nil || st.Size() == 0 {
		t.Fatal("no trace written")
	}
	// The tour's debugger session (docs/tour.md) replays through netvm run.
	code, out, e = runCmd("run", "--quiet", "--root", "../..", "--debug-script", "../../fixtures/netvm/tour/tour.dbg", "../../fixtures/netvm/scenarios/tour.json")
	if code != 0 || !strings.Contains(out, "Watchpoint 1, node 0") || !strings.Contains(out, "mb_per_s") {
		t.Fatalf("run --debug-script: %d %q %q", code, out, e)
	}
	if code, _, _ := runCmd("run", "--debug-script", "/nonexistent.dbg", "../../fixtures/netvm/scenarios/tour.json"); code != 2 {
		t.Fatalf("a missing script: exit %d, want 2", code)
	}
}

// netvm bench: bad flags (a board no product names, on every command) exit
// 2; the quick run prints the table, writes
// the JSON with the config and every figure the issue names, and draws
// each curve as SVG and PNG.
func TestBenchCommand(t *testing.T) {
	for _, args := range [][]string{{"bench", "--clock", "5"}, {"bench", "--link-rate", "0"}, {"bench", "--pin-cache", "0"}, {"bench", "--warp"},
		{"bench", "--host-timing", "signal=17us"}, {"bench", "--host-timing", "wakeup=9999s"}, {"bench", "--host-timing", "syscall=1ps,syscall=2ps"},
		{"bench", "--board", "M9X-PCI64Z"}, {"stress", "--board", "PCI64"}, {"run", "--board", "M2L", "../../fixtures/netvm/scenarios/tour.json"},
		{"run", "--clock", "5000", "../../fixtures/netvm/scenarios/tour.json"}} {
		if code, _, _ := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, e := runCmd("bench", "quick"); code != 2 || !strings.Contains(e, `unexpected argument "quick"`) {
		t.Errorf("a stray argument: exit %d, %q; want 2", code, e)
	}
	// Outputs that cannot be written fail before the run, with one line.
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	bad := [][]string{
		{"--json", filepath.Join(file, "b.json")},
		{"--plots", filepath.Join(file, "plots")},
		{"--json", filepath.Join(dir, "new.json"), "--plots", filepath.Join(file, "plots")},
		{"--profile", filepath.Join(file, "p.pb.gz")},
		{"--json", filepath.Join(dir, "new.json"), "--profile", filepath.Join(file, "p.pb.gz")},
		{"--json="}, {"--plots="}, {"--profile="},
		// Node 2's profile (E8 has three nodes) was opened only after the
		// run, so it failed then with exit 3.
		{"--profile", filepath.Join(dir, "p.pb.gz")},
		// So was every plot file: the directory could be written, one of
		// its plots not.
		{"--plots", filepath.Join(dir, "plots")},
	}
	if err := os.Mkdir(profile.NodeFile(filepath.Join(dir, "p.pb.gz"), 2), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "plots", "e8-sync.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		bad = append(bad, []string{"--json", "/dev/full"})
	}
	for _, args := range bad {
		start := time.Now()
		code, out, e := runCmd(append([]string{"bench", "--quick"}, args...)...)
		if code != 2 || out != "" || strings.Count(e, "\n") != 1 || !strings.HasPrefix(e, "netvm bench: --") || time.Since(start) > 5*time.Second {
			t.Errorf("%v: exit %d after %v, stdout %q, stderr %q; want exit 2 at once with one line", args, code, time.Since(start), out, e)
		}
	}
	for _, left := range []string{"new.json", "p-node0.pb.gz", filepath.Join("plots", "e1-latency.svg")} {
		if _, err := os.Stat(filepath.Join(dir, left)); err == nil {
			t.Errorf("%s, which a failed start created, was left behind", left)
		}
	}
	// A usage error found after the outputs were opened left the
	// --plots directory made; existing plots keep their contents.
	newPlots, oldPlots := filepath.Join(dir, "new-plots"), filepath.Join(dir, "old-plots")
	os.Mkdir(oldPlots, 0o755)
	os.WriteFile(filepath.Join(oldPlots, "e1-latency.svg"), []byte("old plot"), 0o644)
	for _, p := range []string{newPlots, oldPlots} {
		if code, _, e := runCmd("bench", "--quick", "--plots", p, "--host-timing", "signal=17us"); code != 2 || !strings.Contains(e, "--host-timing") {
			t.Errorf("--plots %s with a bad --host-timing: exit %d, %q", p, code, e)
		}
	}
	if _, err := os.Stat(newPlots); err == nil {
		t.Error("a usage error left the --plots directory made")
	}
	if b, _ := os.ReadFile(filepath.Join(oldPlots, "e1-latency.svg")); string(b) != "old plot" {
		t.Errorf("a usage error changed an existing plot: %q", b)
	}
	if testing.Short() {
		t.Skip("the quick bench takes about 20 s")
	}
	dir = t.TempDir()
	js, plots := filepath.Join(dir, "b.json"), filepath.Join(dir, "plots")
	code, out, e := runCmd("bench", "--quick", "--json", js, "--plots", plots)
	if code != 0 || !strings.Contains(out, "E1.min_latency_us") || !strings.Contains(e, "100%") || strings.Contains(out, "-0.00") {
		t.Fatalf("bench: %d\n%s\n%s", code, out, e)
	}
	var res struct {
		Config  map[string]any `json:"config"`
		Figures []struct {
			ID       string   `json:"id"`
			Paper    *float64 `json:"paper"`
			Measured *float64 `json:"measured"`
			Unit     string   `json:"unit"`
		} `json:"figures"`
	}
	b, err := os.ReadFile(js)
	if err != nil || json.Unmarshal(b, &res) != nil || res.Config["clock_hz"] == nil {
		t.Fatalf("JSON: %v %s", err, b)
	}
	ids := map[string]bool{}
	for _, f := range res.Figures {
		if f.Paper == nil || f.Measured == nil || f.Unit == "" {
			t.Errorf("figure %+v lacks a field", f)
		}
		ids[f.ID] = true
	}
	for _, id := range []string{"E1.min_latency_us", "E2.max_throughput_MBps", "E2.link_pct", "E3.notify_busy_us",
		"E3.notify_block_us", "E3.notify_handler_us", "E4.max_overhead_vs_static_pct", "E5.netvm_cheaper_up_to_hit_pct",
		"E8.waitqueue_overhead_pct", "E8.semaphore_overhead_pct", "E9.overcommit_speedup"} {
		if !ids[id] {
			t.Errorf("JSON lacks %s", id)
		}
	}
	files, _ := filepath.Glob(filepath.Join(plots, "*"))
	if len(files) < 20 {
		t.Errorf("%d plot files", len(files))
	}
}

// Progress into a log (not a terminal): plain lines, a few of them, no
// carriage return.
func TestProgressInLog(t *testing.T) {
	for _, args := range [][]string{
		{"stress", "--seed", "4", "--nodes", "2", "--writes", "100"},
		{"run", "../../fixtures/netvm/scenarios/redirect.json"}, // 200 ms simulated: lines at 10 and 100 ms
	} {
		code, _, e := runCmd(args...)
		lines := strings.Count(e, "\n")
		if code != 0 || strings.Contains(e, "\r") || lines == 0 || lines > 12 {
			t.Errorf("%v: exit %d, %d progress lines %q", args, code, lines, e)
		}
	}
}

// The tool's help names every flag of run and bench, as `-h` of each
// lists them (it left out run's --quiet and --root and bench's
// --profile, --host-timing, --back-to-back and --no-inline).
func TestHelpNamesEveryFlag(t *testing.T) {
	_, _, help := runCmd("--help")
	flagName := regexp.MustCompile(`(?m)^  -([a-z-]+)`)
	for _, cmd := range []string{"run", "bench"} {
		code, _, flags := runCmd(cmd, "-h")
		names := flagName.FindAllStringSubmatch(flags, -1)
		if code != 0 || len(names) < 5 {
			t.Fatalf("netvm %s -h: status %d, %d flags:\n%s", cmd, code, len(names), flags)
		}
		for _, m := range names {
			if !strings.Contains(help, "[--"+m[1]) {
				t.Errorf("netvm --help does not name %s's --%s", cmd, m[1])
			}
		}
	}
}

// netvm dap -h gives dap's synopsis and its flags (it printed Go's bare
// "Usage of netvm dap:"); a stray argument gives the synopsis with status 2.
func TestDAPHelp(t *testing.T) {
	code, _, e := runCmd("dap", "-h")
	if code != 0 || !strings.Contains(e, "usage: netvm dap [--listen ADDR]") || !strings.Contains(e, "Flags of dap:") || !strings.Contains(e, "-listen") {
		t.Errorf("dap -h: status %d\n%s", code, e)
	}
	if code, _, e := runCmd("dap", "scenario.json"); code != 2 || !strings.Contains(e, "usage: netvm dap") {
		t.Errorf("dap scenario.json: status %d\n%s", code, e)
	}
}
