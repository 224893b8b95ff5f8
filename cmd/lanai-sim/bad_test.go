package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile scenarios and flags are refused before anything is built: a
// device as a host file, absurd node counts and topologies, an SRAM size
// or parameter that does not fit, a load address outside host memory.
func TestBadInputRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	base, err := os.ReadFile(filepath.Join(sc, "clos64.json"))
	if err != nil {
		t.Fatal(err)
	}
	variant := func(name, old, new string) string {
		p := filepath.Join(dir, name)
		src := strings.Replace(string(base), old, new, 1)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	abs, _ := filepath.Abs(fw) // the copies live elsewhere
	base = []byte(strings.ReplaceAll(string(base), "../firmware", abs))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--host-load", "0:0:/dev/zero", filepath.Join(sc, "stream.json")}, "/dev/zero: not a regular file"},
		{[]string{"--host-load", "0:0x7fffffff:" + filepath.Join(sc, "dma.s"), filepath.Join(sc, "stream.json")}, "outside host memory"},
		{[]string{"--topology", "tree:99999:99999", "--firmware", filepath.Join(sc, "dma.s")}, "leaves and per_leaf in 1..64"},
		// Switches larger than the routing reaches were refused only when
		// the fabric was built, as bad input (66), not usage.
		{[]string{"--nodes", "33", "--topology", "star", "--firmware", filepath.Join(sc, "idle.s")}, "topology: star: the switch would have 33 ports, at most 32 with relative routing"},
		{[]string{"--topology", "tree:33:2", "--firmware", filepath.Join(sc, "idle.s")}, "topology: tree: a spine (a port per leaf) would have 33 ports, at most 32 with relative routing"},
		{[]string{"--topology", "clos:8:30:4", "--firmware", filepath.Join(sc, "idle.s")}, "topology: clos: a leaf switch (per_leaf nodes and a port per spine) would have 34 ports"},
		// 992 nodes of 2 MiB SRAM ran the process out of memory under a
		// 4 GiB limit: refused with the estimate and the bound.
		{[]string{"--topology", "tree:32:31", "--firmware", filepath.Join(sc, "idle.s")}, "count: 992 nodes would take an estimated 2730.9 MiB (2.8 MiB per node), more than the 2048.0 MiB a run may take"},
		{[]string{variant("count.json", `"time"`, `"count": 2000000000, "time"`)}, "count: 2000000000 nodes, at most 4032"},
		{[]string{variant("sram.json", `"sram": "256K"`, `"sram": "4G"`)}, "sram: 4294967296"},
		{[]string{variant("param.json", `"0x81080001"`, `"0x1ffffffff"`)}, "txbuf = 0x1ffffffff does not fit"},
		{[]string{variant("hostmem.json", `"host_memory": "64K"`, `"host_memory": "64G"`)}, "host_memory: 68719476736"},
		// Durations that are legal numbers but that the runner's step
		// (now + the smallest link latency) or the fabric would carry past
		// 2^64 ps: once a hang, now refused by name.
		{[]string{variant("latency.json", `"spines": 8}`, `"spines": 8, "link_latency": "18446744073709000000ps"}`)}, "topology.link_latency: 18446744.073709s: at most one simulated day"},
		{[]string{variant("never.json", `"spines": 8}`, `"spines": 8, "link_latency": "18446744073709551615ps"}`)}, "topology.link_latency: 18446744073709551615ps: at most one simulated day"},
		{[]string{variant("switch.json", `"spines": 8}`, `"spines": 8, "switch_latency": "86401s"}`)}, "topology.switch_latency: 86401.000000s: at most one simulated day"},
		{[]string{variant("jitter.json", `"time"`, `"faults": {"jitter_ppm": 1, "jitter_max": "100000s"}, "time"`)}, "faults.jitter_max: 100000.000000s: at most one simulated day"},
		{[]string{variant("long.json", `"time": "5ms"`, `"time": "86401s"`)}, "time: 86401.000000s: at most one simulated day"},
		// A sample of 1ps made the 5 ms run take minutes (10^9 steps).
		{[]string{variant("sample.json", `"time": "5ms"`, `"time": "5ms", "sample": "1ps"`)}, "sample: 1ps: at least 10.000ns"},
		{[]string{"--time", "18446744s", filepath.Join(sc, "stream.json")}, "time: 18446744.000000s: at most one simulated day"},
		// A clock so slow it rounds to 0 Hz was the board's default clock.
		{[]string{variant("clock.json", `"sram": "256K"`, `"sram": "256K", "clock_mhz": 0.0000004`)}, "clock_mhz: 4e-07: 0 (the board's) or 0.000001..10000"},
	} {
		st, out := lsim(t, append([]string{"--quiet"}, c.args...)...)
		if st != 64 && st != 66 || !strings.Contains(out, c.want) {
			t.Errorf("%v: status %d %q, want 64 or 66 and %q", c.args, st, out, c.want)
		}
	}
}

// Outputs that cannot be written are refused before the run, naming their
// flag (they failed after it, the summary already out); an output named as
// nothing and an explicit --nodes 0 are usage errors.
func TestUnwritableOutputsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stream := filepath.Join(sc, "stream.json")
	for _, flag := range []string{"--stats", "--timeline", "--profile"} {
		st, out := lsim(t, flag, filepath.Join(file, "x.json"), stream)
		if st != 66 || !strings.HasPrefix(out, "lanai-sim: "+flag+": ") || !strings.Contains(out, "not a directory") || strings.Contains(out, "lanai-sim: node 0:") {
			t.Errorf("%s under a file: status %d %q, want 66 before the run", flag, st, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stats=", stream}, "--stats: an empty file name"},
		{[]string{"--timeline=", stream}, "--timeline: an empty file name"},
		{[]string{"--profile=", stream}, "--profile: an empty file name"},
		// --nodes 0 was the topology's count in silence.
		{[]string{"--nodes", "0", "--firmware", filepath.Join(sc, "dma.s")}, "--nodes 0: 1..4032"},
		{[]string{"--nodes", "0", stream}, "--nodes 0: 1..4032"},
	} {
		st, out := lsim(t, c.args...)
		if st != 64 || !strings.Contains(out, c.want) || strings.Contains(out, "lanai-sim: node 0:") {
			t.Errorf("%v: status %d %q, want 64 and %q", c.args, st, out, c.want)
		}
	}
	// Host dumps, from the flag or the scenario, are opened before the run
	// too (they failed after it, the summary already out), naming the
	// dump; an existing dump keeps its contents then.
	hostio := filepath.Join(sc, "hostio.json")
	dumpScenario := filepath.Join(dir, "dump.json")
	abs, _ := filepath.Abs(sc)
	os.WriteFile(dumpScenario, []byte(`{"topology": {"kind": "b2b"}, "defaults": {"asm": ["`+filepath.Join(abs, "idle.s")+`"],
	"host_dumps": [{"addr": 0, "len": 16, "file": "`+filepath.Join(dir, "no", "d.bin")+`"}]}, "time": "20us", "stop": "time"}`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--time", "1s", "--host-dump", "1:0:16:" + filepath.Join(file, "d.bin"), hostio}, "lanai-sim: " + hostio + ": nodes[1].host_dumps[0]: open " + filepath.Join(file, "d.bin") + ": not a directory"},
		{[]string{dumpScenario}, "lanai-sim: " + dumpScenario + ": nodes[0].host_dumps[0]: open " + filepath.Join(dir, "no", "d.bin") + ": no such file or directory"},
	} {
		start := time.Now()
		st, out := lsim(t, c.args...)
		if st != 66 || !strings.HasPrefix(out, c.want) || strings.Contains(out, "lanai-sim: node 0:") || time.Since(start) > time.Second {
			t.Errorf("%v: status %d after %v %q, want 66 before the run and %q", c.args, st, time.Since(start), out, c.want)
		}
	}
	good := filepath.Join(dir, "good.bin")
	os.WriteFile(good, []byte("before"), 0o644)
	if st, out := lsim(t, "--host-dump", "0:0:16:"+good, "--host-dump", "1:0:16:"+filepath.Join(file, "d.bin"), hostio); st != 66 || strings.Contains(out, "node 0:") {
		t.Errorf("a good and a bad dump: status %d %q", st, out)
	}
	if b, _ := os.ReadFile(good); string(b) != "before" {
		t.Errorf("an existing dump file was changed by a run that did not happen: %q", b)
	}
	// A run's profiles, one per node, are written after it.
	prof := filepath.Join(dir, "p.pb.gz")
	if st, out := lsim(t, "--quiet", "--profile", prof, stream); st != 0 {
		t.Fatalf("--profile: status %d %q", st, out)
	}
	if st, err := os.Stat(filepath.Join(dir, "p-node1.pb.gz")); err != nil || st.Size() == 0 {
		t.Errorf("node 1's profile: %v", err)
	}
}

// Two outputs naming one file are refused before the run, and the file
// keeps its contents: --console and --timeline both streamed into it, so
// a console longer than the timeline's events left its lines after the
// JSON (4,000 lines: not JSON, "invalid character 'A' after top-level
// value"); --stats after the run overwrote the console.
func TestOutputsInOneFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "out")
	if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	fwFile := consoleFirmware(t, 400, 70)
	for _, args := range [][]string{
		{"--console", file, "--timeline", file},
		{"--stats", file, "--console", filepath.Join(dir, ".", "out")},
	} {
		st, out := lsim(t, append([]string{"--quiet", "--nodes", "1", "--topology", "star", "--firmware", fwFile}, args...)...)
		if st != 66 || !strings.Contains(out, " is also --") || strings.Contains(out, "lanai-sim: node 0:") {
			t.Errorf("%v: status %d %q, want 66 before the run", args, st, out)
		}
		if b, _ := os.ReadFile(file); string(b) != "keep" {
			t.Errorf("%v: the file has %.100q, want its contents kept", args, b)
		}
	}
}

// A timeline to a device or pipe waits in a temporary file; when $TMPDIR
// cannot take one the run is refused, and an existing --console file
// keeps its contents (the console's stream was started first and had
// made it empty).
func TestTimelineSpillRefusedKeepsConsole(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "console")
	if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	st, out := lsim(t, "--quiet", "--nodes", "1", "--topology", "star", "--firmware", filepath.Join(fw, "console.s"),
		"--console", file, "--timeline", os.DevNull)
	if st != 66 || !strings.HasPrefix(out, "lanai-sim: --timeline: ") || !strings.Contains(out, "no such file or directory") {
		t.Errorf("status %d %q, want 66 and the temporary file's error", st, out)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep" {
		t.Errorf("the console file has %q, want its contents kept", b)
	}
}

// --console and --timeline to two FIFOs that one reader reads in turn,
// the console first: the console is streamed, the timeline (which waits
// in a temporary file anyway) opens its FIFO only at the end, after the
// console's has been closed. Both were opened when the run started, so
// the run waited for a reader of the timeline while the reader waited for
// the console's end: for ever.
func TestConsoleAndTimelineFIFOsReadInTurn(t *testing.T) {
	dir := t.TempDir()
	con, tl := filepath.Join(dir, "console"), filepath.Join(dir, "timeline")
	for _, p := range []string{con, tl} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip("no FIFO:", err)
		}
	}
	got := make(chan [2][]byte, 1)
	go func() {
		var b [2][]byte
		for i, p := range []string{con, tl} {
			b[i], _ = os.ReadFile(p)
		}
		got <- b
	}()
	done := make(chan string, 1)
	go func() {
		st, out := lsim(t, "--quiet", "--nodes", "2", "--firmware", filepath.Join(fw, "console.s"), "--console", con, "--timeline", tl)
		done <- fmt.Sprintf("status %d %s", st, out)
	}()
	select {
	case r := <-done:
		if r != "status 0 " {
			t.Fatal(r)
		}
	case <-time.After(20 * time.Second):
		for _, p := range []string{tl, con} { // let the run and the reader end
			if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
				defer f.Close()
			}
		}
		t.Fatal("the run waited for ever on two FIFOs read in turn")
	}
	b := <-got
	if want := "node 0: A0\nnode 1: A0\nnode 0: B0\nnode 1: B0\nnode 0: C0\nnode 1: C0\n"; string(b[0]) != want {
		t.Errorf("console %q, want %q", b[0], want)
	}
	if !bytes.HasPrefix(b[1], []byte(`{"displayTimeUnit":"ns"`)) || !bytes.HasSuffix(b[1], []byte("\n]}\n")) {
		t.Errorf("timeline %.80q...", b[1])
	}
}
