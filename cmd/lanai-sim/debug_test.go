package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	// A condition on node 0's loop counter, logpoints on both nodes: each
	// evaluated on its own board. Node 0 stops at its breakpoint after
	// node 1 has exited (an exited board is not waited for to align the
	// boards after the stop).
	st, out, e = debug("break console.s:23 if %r7 == 1000\nlog console.s:26 B next on {[id]}, r7 {%r7}\nthread 1\nlog console.s:26 B next on {[id]}\n"+
		"continue\nthread 0\ncontinue\nprint %r7\ncontinue\n", scen)
	want = regexp.MustCompile(`(?s)\nnode 1: B next on 1\n.*\[node 1 exited .*Breakpoint 1, node 0, at [0-9.]+ us \(cycle \d+\)\n=>  0x00000028 <_start\+0x28> .*` +
		`\(lanai\) print %r7\nr7 = 0x000003e8 \(1000\)\n.*\nnode 0: B next on 0, r7 0\n`)
	if st != 0 || !want.MatchString(out) || len(regexp.MustCompile(`(?m)^node \d: B next on`).FindAllString(out, -1)) != 2 {
		t.Errorf("conditions and logpoints: status %d\n%s\nstderr: %s", st, out, e)
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

// A run under the debugger ends where lanai-sim's does: with stop "host"
// when every host script is done (it went on to the time limit), and the
// line on standard error says why a run of status 0 ended (it said
// "every node done" at a time limit with stop "time", and when the host
// scripts were done).
func TestDebugEnds(t *testing.T) {
	dir := t.TempDir()
	asm, _ := filepath.Abs(filepath.Join(sc, "hostsig.s"))
	host := filepath.Join(dir, "host.json")
	os.WriteFile(host, []byte(`{"topology":{"kind":"b2b"},"time":"50ms","stop":"host","defaults":{"asm":["`+asm+`"],"sram":"256K","host":{"main":[
		{"op":"load"},
		{"op":"wait","space":"special","reg":"ISR","mask":"0x40000000","value":"0x40000000","timeout":"1ms"}]}}}`), 0o644)
	idle, _ := filepath.Abs(filepath.Join(sc, "idle.s"))
	timed := filepath.Join(dir, "time.json")
	os.WriteFile(timed, []byte(`{"topology":{"kind":"b2b"},"time":"20us","stop":"time","defaults":{"asm":["`+idle+`"]}}`), 0o644)
	script := filepath.Join(dir, "s.dbg")
	os.WriteFile(script, []byte("continue\n"), 0o644)
	for _, c := range []struct{ scen, out, err string }{
		{host, `\[the run is over at ([0-9.]+) us: every host script done\]\n$`, `^lanai-sim: every host script done at ([0-9.]+) us\n$`},
		{timed, `\[the run is over at (20\.000) us: the time limit\]\n$`, `^lanai-sim: the time limit, no trap at (20\.000) us\n$`},
	} {
		var o, e bytes.Buffer
		st := run([]string{"debug", "--script", script, c.scen}, &o, &e)
		mo := regexp.MustCompile(c.out).FindStringSubmatch(o.String())
		me := regexp.MustCompile(c.err).FindStringSubmatch(e.String())
		if st != 0 || mo == nil || me == nil || mo[1] != me[1] {
			t.Errorf("%s: status %d\n%s\nstderr: %s", filepath.Base(c.scen), st, o.String(), e.String())
			continue
		}
		if at, _ := strconv.ParseFloat(mo[1], 64); at >= 50000 {
			t.Errorf("%s: the run went on to %s us", filepath.Base(c.scen), mo[1])
		}
	}
}

// Nodes that run different programs (fixtures/scenarios/twoprog.json):
// break and log resolve their location in the selected node's program,
// and where that has no such symbol or line, in each node's program that
// has it, at that program's address, with the condition compiled against
// it. They said "no symbol" (only_b is node 1's) and "no file" (node 1's
// source).
func TestDebugTwoPrograms(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.dbg")
	os.WriteFile(script, []byte("break only_b\nbreak twoprog-b.s:14 if %r6 == 2\nlog twoprog-b.s:15 b r6 {%r6}\n"+
		"break shared\nbreak nosuch\ninfo breakpoints\ncontinue\nnode 1\nprint only_b\ncontinue\ncontinue\ncontinue\ncontinue\n"), 0o644)
	var o, e bytes.Buffer
	st := run([]string{"debug", "--script", script, filepath.Join(sc, "twoprog.json")}, &o, &e)
	want := regexp.MustCompile(`(?s)\(lanai\) break only_b\nBreakpoint 1 at node 1 0x0000000c <only_b> at twoprog-b\.s:10\n` +
		`\(lanai\) break twoprog-b.s:14 if %r6 == 2\nBreakpoint 2 at node 1 0x00000018 <shared> at twoprog-b\.s:14 if %r6 == 2\n` +
		`\(lanai\) log twoprog-b.s:15 b r6 \{%r6\}\nLogpoint 3 at node 1 0x0000001c <shared\+0x4> at twoprog-b\.s:15: b r6 \{%r6\}\n` +
		`\(lanai\) break shared\nBreakpoint 4 at node 0 0x00000014 <shared> at twoprog-a\.s:15\n` +
		`\(lanai\) break nosuch\nerror: break: no symbol "nosuch"\n` +
		`\(lanai\) info breakpoints\n1   node 1 breakpoint at 0x0000000c <only_b> at twoprog-b\.s:10, hit 0 times\n` +
		`2   node 1 breakpoint at 0x00000018 <shared> at twoprog-b\.s:14, hit 0 times\n\tstop only if %r6 == 2\n` +
		`3   node 1 logpoint at 0x0000001c <shared\+0x4> at twoprog-b\.s:15, hit 0 times\n\tlog b r6 \{%r6\}\n` +
		`4   node 0 breakpoint at 0x00000014 <shared> at twoprog-a\.s:15, hit 0 times\n` +
		`\(lanai\) continue\n\[Switching to node 1\]\nBreakpoint 1, node 1, at [0-9.]+ us \(cycle 3\)\n=> .*twoprog-b\.s:10\n` +
		`\(lanai\) node 1\n.*\(lanai\) print only_b\n\[0x0000000c <only_b>\] = 0x03800005 .*` +
		`\(lanai\) continue\nBreakpoint 2, node 1, at [0-9.]+ us \(cycle 6\)\n=>  0x00000018 <shared> .*twoprog-b\.s:14\n` +
		`\(lanai\) continue\nnode 1: b r6 3\n\[node 1 exited with code 0xb at [0-9.]+ us\]\n` +
		`\(lanai\) continue\n\[Switching to node 0\]\nBreakpoint 4, node 0, at [0-9.]+ us \(cycle 11\)\n=>  0x00000014 <shared> .*twoprog-a\.s:15\n` +
		`\(lanai\) continue\n\[node 0 exited with code 0xa at [0-9.]+ us\]\n` +
		`\[the run is over at [0-9.]+ us: node 0 exited 10, node 1 exited 11\]`)
	if st != 1 || !want.MatchString(o.String()) || !strings.Contains(e.String(), "1 debugger commands failed") {
		t.Errorf("status %d\n%s\nstderr: %s", st, o.String(), e.String())
	}
}

// until and info line resolve LOC as break does: in the selected node's
// program, else in each node's that has it. until then runs until that
// node reaches it and selects it; when several nodes have it, it names them
// and runs nothing. They said "no symbol" (only_b is node 1's).
func TestDebugTwoProgramsUntil(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.dbg")
	os.WriteFile(script, []byte("info line only_b\ninfo line shared\nuntil only_b\nbt\ninfo line twoprog-a.s:15\nuntil nosuch\n"), 0o644)
	var o, e bytes.Buffer
	st := run([]string{"debug", "--script", script, filepath.Join(sc, "twoprog.json")}, &o, &e)
	want := regexp.MustCompile(`(?s)\(lanai\) info line only_b\nnode 1 0x0000000c is \S*twoprog-b\.s:10\n` +
		`\(lanai\) info line shared\n0x00000014 is \S*twoprog-a\.s:15\n` +
		`\(lanai\) until only_b\nRun until node 1 reaches 0x0000000c <only_b> at twoprog-b\.s:10\n\[Switching to node 1\]\nnode 1 at [0-9.]+ us \(cycle 3\)\n=>  0x0000000c <only_b> .*twoprog-b\.s:10\n` +
		`\(lanai\) bt\n#0  0x0000000c <only_b> at twoprog-b\.s:10\n` +
		`\(lanai\) info line twoprog-a.s:15\nnode 0 0x00000014 is \S*twoprog-a\.s:15\n` +
		`\(lanai\) until nosuch\nerror: until: no symbol "nosuch"\n`)
	if st != 1 || !want.MatchString(o.String()) {
		t.Errorf("status %d\n%s\nstderr: %s", st, o.String(), e.String())
	}

	// Three nodes, two of which run twoprog-b.s: until only_b from node 0
	// names them and leaves the run where it is.
	dir := t.TempDir()
	fwAbs, _ := filepath.Abs(fw)
	three := filepath.Join(dir, "three.json")
	os.WriteFile(three, []byte(`{"topology": {"kind": "star"}, "count": 3, "time": "1ms", "nodes": [{"asm": ["`+fwAbs+`/twoprog-a.s"]}, {"asm": ["`+fwAbs+`/twoprog-b.s"]}, {"asm": ["`+fwAbs+`/twoprog-b.s"]}]}`), 0o644)
	os.WriteFile(script, []byte("until only_b\ninfo line only_b\nprint $pc\n"), 0o644)
	o.Reset()
	st = run([]string{"debug", "--script", script, three}, &o, &e)
	want = regexp.MustCompile(`(?s)\(lanai\) until only_b\nerror: until: node 0's program has no only_b; node 1 has it at 0x0000000c, node 2 at 0x0000000c: select one with "node N"\n` +
		`\(lanai\) info line only_b\nnode 1 0x0000000c is \S*twoprog-b\.s:10\nnode 2 0x0000000c is \S*twoprog-b\.s:10\n` +
		`\(lanai\) print \$pc\npc = 0x00000000 `)
	if st != 1 || !want.MatchString(o.String()) {
		t.Errorf("three nodes: status %d\n%s\nstderr: %s", st, o.String(), e.String())
	}
}

// A stop selects the node that stopped, as gdb switches to the thread
// that stopped, and says so: after node 1's breakpoint, bt and list show
// node 1's code (they showed node 0's, the node selected before); a
// second stop in the selected node says nothing.
func TestDebugStopSelectsNode(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.dbg")
	os.WriteFile(script, []byte("break only_b\nbreak twoprog-b.s:14\ncontinue\nbt\nlist\ncontinue\nbt\n"), 0o644)
	var o, e bytes.Buffer
	st := run([]string{"debug", "--script", script, filepath.Join(sc, "twoprog.json")}, &o, &e)
	want := regexp.MustCompile(`\(lanai\) continue\n\[Switching to node 1\]\nBreakpoint 1, node 1, at [0-9.]+ us \(cycle 3\)\n.*\n` +
		`\(lanai\) bt\n#0  0x0000000c <only_b> at twoprog-b\.s:10\n` +
		`\(lanai\) list\n(.*\n)*=>    10          mov     5, %r7\n(.*\n)*` +
		`\(lanai\) continue\nBreakpoint 2, node 1, at [0-9.]+ us \(cycle 6\)\n.*\n` +
		`\(lanai\) bt\n#0  0x00000018 <shared> at twoprog-b\.s:14\n`)
	if st != 0 || !want.MatchString(o.String()) || strings.Count(o.String(), "Switching") != 1 {
		t.Errorf("status %d\n%s\nstderr: %s", st, o.String(), e.String())
	}
}

// A line past the end of a file only node 1's program has is refused
// with the reason of the node that has the file (its line has no code),
// not the selected node's "no file" (which it said); a file no node has
// is "no file".
func TestDebugTwoProgramsReason(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.dbg")
	os.WriteFile(script, []byte("break twoprog-b.s:99\nlog twoprog-b.s:99 x\nbreak nosuch.s:3\nnode 1\nbreak twoprog-a.s:99\n"), 0o644)
	var o, e bytes.Buffer
	run([]string{"debug", "--script", script, filepath.Join(sc, "twoprog.json")}, &o, &e)
	for _, want := range []string{
		"(lanai) break twoprog-b.s:99\nerror: break: no code at or after twoprog-b.s:99\n",
		"(lanai) log twoprog-b.s:99 x\nerror: log: no code at or after twoprog-b.s:99\n",
		"(lanai) break nosuch.s:3\nerror: break: no file \"nosuch.s\" in the line table\n",
		"(lanai) break twoprog-a.s:99\nerror: break: no code at or after twoprog-a.s:99\n",
	} {
		if !strings.Contains(o.String(), want) {
			t.Errorf("want %q in:\n%s", want, o.String())
		}
	}
	if !strings.Contains(e.String(), "4 debugger commands failed") {
		t.Errorf("stderr: %s", e.String())
	}
}
