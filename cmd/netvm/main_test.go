package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	os.WriteFile(bad, []byte("{\n  \"nodes\": 2,\n  \"workloads\": [{\"kind\": \"warp\"}]\n}\n"), 0o644)
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
	trace := filepath.Join(t.TempDir(), "t.json")
	if code, out, e := runCmd("run", "--quiet", "--trace", trace, "../../fixtures/netvm/scenarios/pingpong.json"); code != 0 || !strings.Contains(out, "one_way_latency_us") {
		t.Fatalf("run: %d %q %q", code, out, e)
	}
	if st, err := os.Stat(trace); err != nil || st.Size() == 0 {
		t.Fatal("no trace written")
	}
}
