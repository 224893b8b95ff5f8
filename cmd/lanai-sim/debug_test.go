package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lanai-sim debug runs a scenario under the debugger's commands (here a
// script): a breakpoint in one node's firmware stops both boards; the
// nodes' consoles come in the transcript; the run's end is said as such,
// and the exit status is the run's. A failed command makes it 1; usage and
// bad input are 64 and 66.
func TestDebugScript(t *testing.T) {
	dir := t.TempDir()
	asm, _ := filepath.Abs(filepath.Join(fw, "console.s"))
	scen := filepath.Join(dir, "console.json")
	os.WriteFile(scen, []byte(`{"topology": {"kind": "b2b"}, "time": "1ms", "defaults": {"asm": ["`+asm+`"]},
		"nodes": [{"params": {"wait": 2000}}, {"params": {"id": 1, "wait": 100}}]}`), 0o644)
	script := filepath.Join(dir, "s.dbg")
	debug := func(text string, args ...string) (int, string, string) {
		os.WriteFile(script, []byte(text), 0o644)
		var o, e bytes.Buffer
		st := run(append([]string{"debug", "--script", script}, args...), &o, &e)
		return st, o.String(), e.String()
	}
	st, out, e := debug("# B on node 1, then the end\nthread 1\nbreak console.s:26\ncontinue\nprint %r6\ncontinue\ncontinue\n", scen)
	want := regexp.MustCompile(`(?s)^lanai-sim debugger: .*console.json, 2 nodes; node 0 selected.*` +
		`node 0: A0\nnode 1: A1\nBreakpoint 1, node 1, at [0-9.]+ us \(cycle \d+\)\n=> .*console\.s:26\n` +
		`\(lanai\) print %r6\nr6 = 0x00000031 \(49\)\n.*` +
		`node 1: B1\n\[node 1 exited with code 0x0 at .*` +
		`node 0: B0\nnode 1: C1\nnode 0: C0\n\[node 0 exited with code 0x0 at ([0-9.]+ us)\]\n\[the run is over at ([0-9.]+ us): node 0 exited 0, node 1 exited 0\]\n$`)
	if m := want.FindStringSubmatch(out); st != 0 || m == nil || m[1] != m[2] || !strings.HasPrefix(e, "lanai-sim: every node done at ") {
		t.Errorf("status %d\n%s\nstderr: %s", st, out, e)
	}
	if st, out, e := debug("continue\nnosuch\n", scen); st != 1 || !strings.Contains(out, `error: unknown command "nosuch"`) || !strings.Contains(e, "1 debugger commands failed") {
		t.Errorf("a failed command: status %d\n%s\n%s", st, out, e)
	}
	if st, _, e := debug("", "--abi", "x", scen); st != 64 || !strings.Contains(e, "--abi") {
		t.Errorf("--abi x: status %d: %s", st, e)
	}
	if st, _, _ := debug(""); st != 64 {
		t.Errorf("no scenario: status %d", st)
	}
	if st, _, e := debug("", filepath.Join(dir, "none.json")); st != 66 || !strings.Contains(e, "none.json") {
		t.Errorf("a missing scenario: status %d: %s", st, e)
	}
}
