package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/scenario"
	"lanaiemu/sim"
)

func lsim(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var e bytes.Buffer
	st := run(args, io.Discard, &e)
	return st, e.String()
}

var fw = filepath.Join("..", "..", "fixtures", "firmware")
var sc = filepath.Join("..", "..", "fixtures", "scenarios")

func TestFlagsPathAndStats(t *testing.T) {
	dir := t.TempDir()
	stats := filepath.Join(dir, "s.json")
	st, out := lsim(t, "--nodes", "2", "--topology", "b2b", "--firmware", filepath.Join(fw, "pingpong.s"),
		"--param", "*:iters=10", "--param", "1:role=1", "--time", "1ms", "--exit-codes", "any", "--stats", stats)
	if st != 0 || !strings.Contains(out, "node 1: exit 0") {
		t.Fatalf("status %d\n%s", st, out)
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenario", "seed", "outcome", "status", "sim_time_ps", "sim_seconds", "steps", "fabric", "host", "nodes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no key %q", k)
		}
	}
	if m["host"].(map[string]any)["sim_seconds_per_host_second"] == nil {
		t.Error("no speed")
	}
	nodes := m["nodes"].([]any)
	n0 := nodes[0].(map[string]any)
	for _, k := range []string{"instructions", "cycles", "skipped_cycles", "dma_bytes", "isr_events", "exit_code", "sim_seconds", "link"} {
		if _, ok := n0[k]; !ok {
			t.Errorf("no node key %q", k)
		}
	}
	if n0["link"].(map[string]any)["packets_recv"].(float64) != 10 || m["fabric"].(map[string]any)["delivered"].(float64) != 20 {
		t.Errorf("stats %s", data)
	}
}

func TestStatuses(t *testing.T) {
	dir := t.TempDir()
	trap := filepath.Join(dir, "trap.s")
	os.WriteFile(trap, []byte("\t.text\n\t.globl _start\n_start:\tld 0[%r1], %r3\n\tnop\n"), 0o644)
	pp := filepath.Join(fw, "pingpong.s")
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"--firmware", trap}, 70},
		{[]string{"--firmware", pp, "--param", "1:role=1", "--param", "*:iters=3"}, 1}, // A exits with its cycle count
		{[]string{"--firmware", filepath.Join(sc, "idle.s"), "--time", "1us"}, 71},
		{[]string{"--firmware", filepath.Join(sc, "idle.s"), "--time", "1us", "--stop", "time"}, 0},
		{[]string{"--firmware", pp, "--param", "1:role=1", "--param", "*:iters=3", "--exit-codes", "any"}, 0},
		{[]string{"--bogus"}, 64},
		{[]string{}, 64},
		{[]string{"--firmware", pp, "--time", "soon"}, 64},
		{[]string{"--firmware", pp, "--param", "0:role"}, 64},
		{[]string{"--firmware", pp, "--topology", "ring"}, 64},
		{[]string{"--nodes", "2", filepath.Join(sc, "pingpong.json")}, 64},
		{[]string{filepath.Join(dir, "none.json")}, 66},
		{[]string{"--firmware", filepath.Join(dir, "none.elf")}, 66},
		{[]string{"--firmware", pp, "--param", "0:nosuch=1"}, 66},
		{[]string{filepath.Join(sc, "pingpong.json"), "--stats", filepath.Join(dir, "no", "s.json")}, 66},
	}
	for _, c := range cases {
		if st, out := lsim(t, c.args...); st != c.want {
			t.Errorf("%v: status %d, want %d\n%s", c.args, st, c.want, out)
		}
	}
}

func TestHostLoadDump(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	data := []byte(strings.Repeat("LANai host memory round trip. ", 300))
	os.WriteFile(in, data, 0o644)
	st, msg := lsim(t, "--quiet", "--firmware", filepath.Join(sc, "idle.s"), "--time", "10us", "--stop", "time",
		"--host-load", "0:0x1234:"+in, "--host-dump", "0:0x1234:"+itoa(len(data))+":"+out)
	if st != 0 {
		t.Fatalf("status %d: %s", st, msg)
	}
	got, _ := os.ReadFile(out)
	if d := cmp.Diff(string(data), string(got)); d != "" {
		t.Fatalf("round trip differs (-loaded +dumped):\n%s", d)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Two runs give the same statistics and timeline byte for byte, the second
// with the boards on two goroutines (--jobs 2); so do 64 nodes on a Clos.
func TestDeterminismAndTimeline(t *testing.T) {
	dir := t.TempDir()
	var stats, tls [2][]byte
	for i := range 2 {
		s, tl := filepath.Join(dir, itoa(i)+"s.json"), filepath.Join(dir, itoa(i)+"t.json")
		st, msg := lsim(t, "--quiet", "--no-host-times", "--seed", "7", "--stats", s, "--timeline", tl, "--jobs", itoa(i+1), filepath.Join(sc, "faults.json"))
		if st != 0 {
			t.Fatalf("status %d: %s", st, msg)
		}
		stats[i], _ = os.ReadFile(s)
		tls[i], _ = os.ReadFile(tl)
	}
	if d := cmp.Diff(string(stats[0]), string(stats[1])); d != "" {
		t.Fatalf("the runs' statistics differ (-first +second):\n%s", d)
	}
	if d := cmp.Diff(string(tls[0]), string(tls[1])); d != "" {
		t.Fatalf("the runs' timelines differ (-first +second):\n%s", d)
	}
	var clos [2][]byte
	for i := range 2 {
		s := filepath.Join(dir, itoa(i)+"clos.json")
		if st, msg := lsim(t, "--quiet", "--no-host-times", "--stats", s, "--jobs", itoa(2*i+1), filepath.Join(sc, "clos64.json")); st != 0 {
			t.Fatalf("clos64 --jobs %d: status %d: %s", 2*i+1, st, msg)
		}
		clos[i], _ = os.ReadFile(s)
	}
	if len(clos[0]) == 0 || !bytes.Equal(clos[0], clos[1]) {
		t.Fatal("clos64 with --jobs 3 differs")
	}
	if st, _ := lsim(t, "--jobs", "0", filepath.Join(sc, "faults.json")); st != 64 { // scenario.StatusUsage
		t.Fatalf("--jobs 0: status %d", st)
	}
	// After "--" every argument is a file: "-q" is a second scenario file,
	// not a flag (it was read as an unknown flag).
	if st, msg := lsim(t, "--", filepath.Join(sc, "faults.json"), "-q"); st != 64 || !strings.Contains(msg, "more than one scenario file") {
		t.Errorf("a file named -q after --: status %d: %s", st, msg)
	}
	var doc struct {
		TraceEvents []struct {
			Name, Cat, Ph string
			Args          map[string]any
		}
	}
	if err := json.Unmarshal(tls[0], &doc); err != nil {
		t.Fatal(err)
	}
	names, cats := map[string]bool{}, map[string]int{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "M" {
			names[e.Args["name"].(string)] = true
		} else if e.Ph == "X" {
			cats[e.Cat]++
		}
	}
	if !names["node 0"] || !names["node 1"] || !names["fabric"] || !names["cpu"] || cats["packet"] == 0 || cats["cpu"] == 0 {
		t.Fatalf("names %v, spans %v", names, cats)
	}
	var s map[string]any
	json.Unmarshal(stats[0], &s)
	if _, ok := s["host"]; ok {
		t.Fatal("host figures with --no-host-times")
	}
	// another seed changes the fault draws
	s2 := filepath.Join(dir, "seed.json")
	lsim(t, "--quiet", "--no-host-times", "--seed", "8", "--stats", s2, filepath.Join(sc, "faults.json"))
	if b, _ := os.ReadFile(s2); bytes.Equal(b, stats[0]) {
		t.Error("seed has no effect")
	}
}

// A host script: its log lines in the summary and in --stats; a failed
// expect is status 72 with the step named; an unset ${VAR} firmware is
// bad input naming the variable.
func TestHostScript(t *testing.T) {
	dir := t.TempDir()
	asm, _ := filepath.Abs(filepath.Join(sc, "hostsig.s"))
	write := func(name, expect string) string {
		p := filepath.Join(dir, name)
		js := `{"topology":{"kind":"b2b"},"time":"50ms","stop":"host","defaults":{"asm":["` + asm + `"],"sram":"256K","host":{"main":[
			{"op":"load"},
			{"op":"wait","space":"special","reg":"ISR","mask":"0x40000000","value":"0x40000000","timeout":"1ms"},
			{"op":"sram_read","addr":"mbox","var":"magic"},
			{"op":"log","text":"magic","vars":["magic"]},
			{"op":"expect","value":"` + expect + `","text":"the magic word"}]}}}`
		if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stats := filepath.Join(dir, "s.json")
	st, out := lsim(t, "--stats", stats, write("ok.json", "$magic == 0x600dcafe"))
	if st != 0 || !strings.Contains(out, "node 1: magic magic=1611516670") || !strings.Contains(out, "host done") {
		t.Fatalf("status %d\n%s", st, out)
	}
	data, _ := os.ReadFile(stats)
	if !strings.Contains(string(data), `"host_log"`) || !strings.Contains(string(data), `"magic": 1611516670`) {
		t.Fatalf("stats %s", data)
	}
	st, out = lsim(t, write("bad.json", "$magic == 1"))
	if st != 72 || !strings.Contains(out, "host script failed") || !strings.Contains(out, "main[4] (expect): expected the magic word") {
		t.Fatalf("status %d\n%s", st, out)
	}
	os.Unsetenv("LANAI_TEST_NO_SUCH_VAR")
	p := filepath.Join(dir, "env.json")
	os.WriteFile(p, []byte(`{"topology":{"kind":"b2b"},"time":"1ms","defaults":{"firmware":"${LANAI_TEST_NO_SUCH_VAR}"}}`), 0o644)
	if st, out = lsim(t, p); st != 66 || !strings.Contains(out, "LANAI_TEST_NO_SUCH_VAR") {
		t.Fatalf("status %d\n%s", st, out)
	}
}

// A star without --nodes has one node per firmware (docs/lanai-sim.md):
// one firmware, one node; two, two. (One firmware made a scenario with no
// nodes, refused as "count: no nodes".)
func TestStarCountFromFirmware(t *testing.T) {
	idle := filepath.Join(sc, "idle.s")
	for _, c := range []struct {
		firmware string
		nodes    int
	}{{idle, 1}, {idle + "," + idle, 2}} {
		stats := filepath.Join(t.TempDir(), "s.json")
		st, out := lsim(t, "--topology", "star", "--firmware", c.firmware, "--time", "10us", "--stop", "time", "--quiet", "--stats", stats)
		if st != 0 {
			t.Fatalf("--firmware %s: status %d\n%s", c.firmware, st, out)
		}
		data, err := os.ReadFile(stats)
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Nodes []any }
		if err := json.Unmarshal(data, &m); err != nil || len(m.Nodes) != c.nodes {
			t.Errorf("--firmware %s: %d nodes, want %d (%v)", c.firmware, len(m.Nodes), c.nodes, err)
		}
	}
}

// A --firmware list whose length is neither 1 nor the node count, or with
// an empty name, is a usage error that names --firmware (it was refused
// as "nodes[2]: no firmware or asm", a field of no file).
func TestFirmwareListAgainstNodes(t *testing.T) {
	idle := filepath.Join(sc, "idle.s")
	two := idle + "," + idle
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--topology", "star", "--nodes", "3", "--firmware", two}, "--firmware names 2 firmwares for 3 nodes"},
		{[]string{"--topology", "star", "--nodes", "1", "--firmware", two}, "--firmware names 2 firmwares for 1 nodes"},
		{[]string{"--topology", "tree:2:2", "--firmware", two}, "--firmware names 2 firmwares for 4 nodes"},
		{[]string{"--firmware", two + "," + idle}, "--firmware names 3 firmwares for 2 nodes"},
		{[]string{"--topology", "star", "--firmware", idle + ","}, "an empty name"},
	} {
		st, out := lsim(t, append(c.args, "--time", "10us", "--stop", "time", "--quiet")...)
		if st != 64 || !strings.Contains(out, c.want) {
			t.Errorf("%q: status %d, want 64 and %q:\n%s", c.args, st, c.want, out)
		}
	}
	// One per node, and one for every node, still run.
	for _, args := range [][]string{{"--topology", "star", "--nodes", "2", "--firmware", two}, {"--topology", "star", "--nodes", "3", "--firmware", idle}} {
		if st, out := lsim(t, append(args, "--time", "10us", "--stop", "time", "--quiet")...); st != 0 {
			t.Errorf("%q: status %d\n%s", args, st, out)
		}
	}
}

// lanai-sim dap -h gives dap's synopsis and its flags, as lanai-sim -h
// gives the tool's (it printed Go's bare "Usage of lanai-sim dap:"); a
// stray argument gives the synopsis with status 64.
func TestDAPHelp(t *testing.T) {
	st, out := lsim(t, "dap", "-h")
	if st != 0 || !strings.Contains(out, "usage: lanai-sim dap [--listen ADDR]") || !strings.Contains(out, "Flags of dap:") || !strings.Contains(out, "-listen") {
		t.Errorf("dap -h: status %d\n%s", st, out)
	}
	if st, out := lsim(t, "dap", "scenario.json"); st != 64 || !strings.Contains(out, "usage: lanai-sim dap") {
		t.Errorf("dap scenario.json: status %d\n%s", st, out)
	}
}

// The nodes' consoles (console.s prints on both boards): a line per line
// the firmware ends, prefixed with its node, in order of simulated time
// and then of node (A0 and A1 end at the same cycle; node 1's B comes
// first, its wait being shorter; the unfinished C lines end with the run),
// on standard output, the same with --jobs 2; --console FILE writes them
// to the file instead, --no-console drops them.
func TestConsole(t *testing.T) {
	args := []string{"--quiet", "--nodes", "2", "--firmware", filepath.Join(fw, "console.s"),
		"--param", "0:wait=2000", "--param", "1:id=1", "--param", "1:wait=100"}
	want := "node 0: A0\nnode 1: A1\nnode 1: B1\nnode 0: B0\nnode 1: C1\nnode 0: C0\n"
	lsimOut := func(args ...string) (int, string, string) {
		var o, e bytes.Buffer
		st := run(args, &o, &e)
		return st, o.String(), e.String()
	}
	for _, jobs := range []string{"1", "2"} {
		st, out, e := lsimOut(append(args, "--jobs", jobs)...)
		if st != 0 || e != "" {
			t.Fatalf("--jobs %s: status %d: %s", jobs, st, e)
		}
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("--jobs %s: console (-want +got):\n%s", jobs, diff)
		}
	}
	file := filepath.Join(t.TempDir(), "console.txt")
	if st, out, e := lsimOut(append(args, "--console", file)...); st != 0 || out != "" {
		t.Fatalf("--console: status %d, stdout %q: %s", st, out, e)
	}
	if got, _ := os.ReadFile(file); string(got) != want {
		t.Errorf("--console file:\n%s", got)
	}
	if st, out, e := lsimOut(append(args, "--no-console")...); st != 0 || out != "" {
		t.Errorf("--no-console: status %d, stdout %q: %s", st, out, e)
	}
	if st, _, e := lsimOut(append(args, "--no-console", "--console", file)...); st != 64 {
		t.Errorf("--no-console --console: status %d: %s", st, e)
	}
}

// countWrites counts the writes made to it.
type countWrites struct {
	bytes.Buffer
	writes int
}

func (c *countWrites) Write(p []byte) (int, error) { c.writes++; return c.Buffer.Write(p) }

// consoleFirmware writes an assembly firmware that prints n lines of
// width 'A's (each ended with a newline), then "B" and a newline, and
// exits 0.
func consoleFirmware(t *testing.T, n, width int) string {
	t.Helper()
	src := fmt.Sprintf(`	.text
	.globl	_start
_start:
	mov	%d, %%r7		! lines
	mov	0x41, %%r5
	mov	0xa, %%r8
2:	mov	%d, %%r6		! bytes in a line
1:	st	%%r5, -4092[%%r0]	! PUTC
	sub.f	%%r6, 1, %%r6
	bne	1b
	nop
	st	%%r8, -4092[%%r0]
	sub.f	%%r7, 1, %%r7
	bne	2b
	nop
	mov	0x42, %%r5
	st	%%r5, -4092[%%r0]
	st	%%r8, -4092[%%r0]
	st	%%r0, -4096[%%r0]	! exit 0
	bt	.
	nop
`, n, width)
	path := filepath.Join(t.TempDir(), "lines.s")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A line of exactly MaxConsoleLine bytes is one line, not that line and
// an empty one (its newline came after the cut); the lines of a sample
// step reach standard output in one write, not a write(2) each.
func TestConsoleFullLineAndWrites(t *testing.T) {
	var o countWrites
	var e bytes.Buffer
	fwFile := consoleFirmware(t, 1, scenario.MaxConsoleLine)
	if st := run([]string{"--quiet", "--nodes", "2", "--firmware", fwFile}, &o, &e); st != 0 {
		t.Fatalf("status %d: %s", st, e.String())
	}
	full := strings.Repeat("A", scenario.MaxConsoleLine)
	want := "node 0: " + full + "\nnode 1: " + full + "\nnode 0: B\nnode 1: B\n"
	if diff := cmp.Diff(want, o.String()); diff != "" {
		t.Errorf("a full line (-want +got):\n%.600s", diff)
	}

	o = countWrites{}
	fwFile = consoleFirmware(t, 400, 4)
	if st := run([]string{"--quiet", "--nodes", "2", "--firmware", fwFile}, &o, &e); st != 0 {
		t.Fatalf("status %d: %s", st, e.String())
	}
	if lines := strings.Count(o.String(), "\n"); lines != 802 || o.writes > lines/10 {
		t.Errorf("%d lines in %d writes, want 802 lines in at most %d", lines, o.writes, lines/10)
	}
}

// --console to a device or pipe gets the lines only: no newline probe
// before them (a blank first line).
func TestConsoleToPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "console")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader, before lanai-sim opens it
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var e bytes.Buffer
	args := []string{"--quiet", "--nodes", "2", "--firmware", filepath.Join(fw, "console.s"), "--console", fifo}
	if st := run(args, io.Discard, &e); st != 0 {
		t.Fatalf("status %d: %s", st, e.String())
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "node 0: A0\nnode 1: A0\nnode 0: B0\nnode 1: B0\nnode 0: C0\nnode 1: C0\n"; string(got) != want {
		t.Errorf("--console FIFO: %q, want %q", got, want)
	}
}

// --console FILE is written as the run goes, not kept in memory until its
// end (81 MB of console took 311 MB): a console that cannot be written
// (/dev/full) stops the run at the sample after its first buffer (64 KiB,
// about 1.5 ms of this firmware's printing), not at the time limit, and
// the summary says how far it went; the file the run wrote to holds the
// lines before the run ends.
func TestConsoleStreams(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	fwFile := consoleFirmware(t, 60000, 70) // 4.3 MB: more than the run can print in 20 ms
	var e bytes.Buffer
	st := run([]string{"--nodes", "1", "--topology", "star", "--firmware", fwFile, "--time", "20ms", "--console", "/dev/full"}, io.Discard, &e)
	if st != 66 || !strings.Contains(e.String(), "lanai-sim: --console: write /dev/full: no space left on device") {
		t.Fatalf("status %d: %s", st, e.String())
	}
	m := regexp.MustCompile(`after (\S+) simulated`).FindStringSubmatch(e.String())
	if m == nil {
		t.Fatalf("no summary: %s", e.String())
	}
	if at, err := sim.ParseDuration(m[1]); err != nil || at > 5*sim.Millisecond {
		t.Errorf("the run went on to %s (%v) after the console failed, want it to stop within 5ms", m[1], err)
	}
}

// A timeline streamed to its file (--timeline) has the bytes of the
// scenario's recorder in memory.
func TestTimelineStreamedBytes(t *testing.T) {
	path := filepath.Join(sc, "faults.json")
	file := filepath.Join(t.TempDir(), "tl.json")
	if st, msg := lsim(t, "--quiet", "--seed", "7", "--timeline", file, path); st != 0 {
		t.Fatalf("status %d: %s", st, msg)
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Seed = 7
	w, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	w.RecordTimeline()
	if err := w.Run(nil); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := w.Timeline().Write(&want); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	if w.Timeline().Len() < 100 || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("%d events; the streamed file has %d bytes, the recorder's Write %d", w.Timeline().Len(), len(got), want.Len())
	}
}
