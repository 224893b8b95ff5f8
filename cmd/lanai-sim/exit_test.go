package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"lanaiemu/debugger"
	"lanaiemu/scenario"
	"lanaiemu/sim"
)

// A node stops where its EXIT store completes, and a run in which every
// node stopped ends at the instant the last one did (docs/timeline.md,
// "The end of a run"): the plain run's per-node cycles, instructions and
// end time are the debugger's, which runs the boards an instruction at a
// time. A lead step's leader that exited inside a watched run was run on
// past its exit: pingpong.json's pinger, which exits at cycle 10938
// (82.241 us), was reported at 11966 cycles and the run at 89.967 us; a
// lone core that exits after a long loop, at 61180 cycles instead of
// 60004.
func TestExitInstant(t *testing.T) {
	dir := t.TempDir()
	lone := filepath.Join(dir, "lone.s")
	inc, _ := filepath.Abs(filepath.Join("..", "..", "firmware", "crt", "lanai9.inc"))
	os.WriteFile(lone, []byte(`	.include "`+inc+`"
	.text
	.globl	_start
_start:	mov	20000, %r5
1:	sub.f	%r5, 1, %r5
	bne	1b
	nop
	ld	CPUC[%r0], %r6
	nop
	st	%r6, SIM_EXIT[%r0]	! ld at c, nop at c+1, the store c+2: it completes at c+3
	bt	.
	nop
`), 0o644)
	loneScen := filepath.Join(dir, "lone.json")
	os.WriteFile(loneScen, []byte(`{"topology": {"kind": "star"}, "count": 1, "time": "1ms", "exit_codes": "any",
		"defaults": {"asm": ["lone.s"]}, "nodes": [{}]}`), 0o644)
	pingpong, _ := filepath.Abs(filepath.Join(sc, "pingpong.json"))

	for _, c := range []struct {
		name, path string
		cycles     []uint64 // where each node's exit store completed
	}{
		{"pingpong", pingpong, []uint64{10938, 10910}},
		{"lone core", loneScen, []uint64{60001 + 3}},
	} {
		stats := plainStats(t, c.path, filepath.Join(dir, c.name+".json"))
		var end uint64
		for i, n := range stats.Nodes {
			if n.Stop != "exit" || n.Cycles != c.cycles[i] {
				t.Errorf("%s: node %d: %s at cycle %d, want an exit at %d", c.name, i, n.Stop, n.Cycles, c.cycles[i])
			}
			end = max(end, uint64(sim.Clock{Hz: n.ClockHz}.Time(n.Cycles)))
		}
		if stats.SimTimePS != end {
			t.Errorf("%s: the run ends at %d ps, the last exit is at %d ps", c.name, stats.SimTimePS, end)
		}

		// The debugger: each node's exit, the run's end, and each
		// node's cycles and instructions after it.
		script := filepath.Join(dir, "s.dbg")
		text := ""
		for i := range stats.Nodes {
			text = "continue\n" + text + "thread " + strconv.Itoa(i) + "\ncycles\n"
		}
		os.WriteFile(script, []byte(text), 0o644)
		var o, e bytes.Buffer
		if st := run([]string{"debug", "--script", script, c.path}, &o, &e); st != 0 {
			t.Fatalf("%s: debug: status %d\n%s\n%s", c.name, st, o.String(), e.String())
		}
		out := o.String()
		for i, n := range stats.Nodes {
			at := debugger.FormatTime(sim.Clock{Hz: n.ClockHz}.Time(n.Cycles))
			if !regexp.MustCompile(`\[node ` + strconv.Itoa(i) + ` exited with code 0x[0-9a-f]+ at ` + regexp.QuoteMeta(at) + `\]`).MatchString(out) {
				t.Errorf("%s: node %d: the debugger does not say it exited at %s (the plain run's cycle %d):\n%s", c.name, i, at, n.Cycles, out)
			}
			if !regexp.MustCompile(`node ` + strconv.Itoa(i) + `: cycle \d+.*\n\(lanai\) cycles\ncycles ` + strconv.FormatUint(n.Cycles, 10) +
				`, instructions ` + strconv.FormatUint(n.Instructions, 10) + `,`).MatchString(out) {
				t.Errorf("%s: node %d: the debugger's counts differ from the plain run's (%d cycles, %d instructions):\n%s", c.name, i, n.Cycles, n.Instructions, out)
			}
		}
		over := "[the run is over at " + debugger.FormatTime(sim.Time(stats.SimTimePS)) + ":"
		if !bytes.Contains(o.Bytes(), []byte(over)) {
			t.Errorf("%s: the debugger's end is not the plain run's %q:\n%s", c.name, over, out)
		}
	}
}

// plainStats runs lanai-sim on the scenario at path (with --jobs 1 and 2:
// the same figures) and returns its --stats.
func plainStats(t *testing.T, path, out string) scenario.Stats {
	t.Helper()
	var first []byte
	for _, jobs := range []string{"1", "2"} {
		if st, e := lsim(t, "--quiet", "--no-host-times", "--jobs", jobs, "--stats", out, path); st != 0 {
			t.Fatalf("%s: status %d: %s", path, st, e)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if first != nil && !bytes.Equal(first, data) {
			t.Errorf("%s: --jobs 2 gives other stats:\n%s\n%s", path, first, data)
		}
		first = data
	}
	var s scenario.Stats
	if err := json.Unmarshal(first, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// A trap is said once: "trap: " is the lanai.Trap's own prefix, and the
// summary, the timeline's instant and the debugger's report said it
// twice ("node 0: trap: trap: unaligned ...", "trapped: trap: ...").
func TestTrapSaidOnce(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "trap.s")
	inc, _ := filepath.Abs(filepath.Join("..", "..", "firmware", "crt", "lanai9.inc"))
	os.WriteFile(src, []byte(`	.include "`+inc+`"
	.text
	.globl	_start
_start:	nop
	ld	2[%r0], %r6		! unaligned: a trap at cycle 1
	nop
`), 0o644)
	scen := filepath.Join(dir, "trap.json")
	os.WriteFile(scen, []byte(`{"topology": {"kind": "b2b"}, "time": "1ms", "exit_codes": "any",
		"defaults": {"asm": ["trap.s"]}, "nodes": [{}, {}]}`), 0o644)
	tl := filepath.Join(dir, "tl.json")
	_, summary := lsim(t, "--no-host-times", "--timeline", tl, scen)
	timeline, err := os.ReadFile(tl)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "s.dbg")
	os.WriteFile(script, []byte("continue\n"), 0o644)
	var o, e bytes.Buffer
	run([]string{"debug", "--script", script, scen}, &o, &e)
	for _, c := range []struct{ what, text, want string }{
		{"the summary", summary, "lanai-sim: node 0: trap: unaligned 4-byte read at 0x00000002; 1 instructions, 1 cycles"},
		{"the timeline", string(timeline), `"name":"trap: unaligned 4-byte read at 0x00000002"`},
		{"the debugger", o.String(), "[node 0 trapped: unaligned 4-byte read at 0x00000002 at 0.008 us]"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s does not say %q:\n%s", c.what, c.want, c.text)
		}
	}
}
