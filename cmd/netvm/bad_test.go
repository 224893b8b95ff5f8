package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lanaiemu/lanai/profile"
)

// netvm run on scenarios that are legitimate but were mishandled (two
// workloads sharing a node), that cannot finish, or that ask for the
// impossible: each either works or says what went wrong and exits
// non-zero.
func TestRunBadScenarios(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shared := write("shared.json", `{"count":4,"topology":{"kind":"star"},"time":"10ms","workloads":[{"kind":"stream","from":0,"to":1,"size":4,"count":1},
{"kind":"stream","from":0,"to":2,"size":4,"count":1}]}`)
	code, out, e := runCmd("run", "--quiet", shared)
	var res struct {
		Workloads []struct {
			Done  bool
			Error string
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Workloads) != 2 || !res.Workloads[0].Done || !res.Workloads[1].Done {
		t.Fatalf("two workloads on node 0: exit %d %q %q", code, out, e)
	}
	// Flags may follow the scenario (it said "usage" and exit 2).
	if code, late, e := runCmd("run", shared, "--quiet"); code != 0 || late != out {
		t.Errorf("--quiet after the scenario: exit %d, stdout %q (want %q), stderr %q", code, late, out, e)
	}
	// Seventeen workloads from node 0 need seventeen endpoints there: the
	// last set-up fails with the driver's error, and the run says so.
	var many []string
	for range 17 {
		many = append(many, `{"kind":"stream","from":0,"to":1,"size":4,"count":1}`)
	}
	crowd := write("crowd.json", `{"count":2,"topology":{"kind":"star"},"time":"20ms","workloads":[`+strings.Join(many, ",\n")+`]}`)
	if code, _, e := runCmd("run", "--quiet", crowd); code != 1 || !strings.Contains(e, "open: netvm: no free endpoint") {
		t.Errorf("seventeen endpoints on one node: exit %d %q", code, e)
	}
	// An output that cannot be written fails before the run, naming its
	// flag (--profile failed only after the run, with exit 3).
	for _, flag := range []string{"--json", "--trace", "--profile"} {
		start := time.Now()
		code, out, e := runCmd("run", "--quiet", flag, filepath.Join(shared, "x.json"), shared)
		if code != 2 || out != "" || !strings.HasPrefix(e, "netvm run: "+flag+": ") || !strings.Contains(e, "not a directory") || time.Since(start) > time.Second {
			t.Errorf("%s under a file: exit %d after %v, stdout %q, stderr %q; want exit 2 at once", flag, code, time.Since(start), out, e)
		}
	}
	prof := filepath.Join(dir, "p.pb.gz")
	if code, _, e := runCmd("run", "--quiet", "--profile", prof, shared); code != 0 {
		t.Errorf("--profile: exit %d %q", code, e)
	}
	for i := 0; i < 4; i++ {
		if st, err := os.Stat(profile.NodeFile(prof, i)); err != nil || st.Size() == 0 {
			t.Errorf("node %d's profile: %v", i, err)
		}
	}
	// An explicitly empty output path is an error, not "no output".
	for _, flag := range []string{"--json=", "--trace=", "--profile="} {
		if code, _, e := runCmd("run", "--quiet", flag, shared); code != 2 || !strings.Contains(e, "netvm run: "+strings.TrimSuffix(flag, "=")+": ") {
			t.Errorf("%s: exit %d %q; want 2", flag, code, e)
		}
	}
	// A debugger script that is a device or a directory is refused before
	// the run (/dev/zero was read as one 1 MiB line: "token too long").
	for _, script := range []string{"/dev/zero", dir} {
		if code, _, e := runCmd("run", "--quiet", "--debug-script", script, shared); code != 2 || !strings.Contains(e, "netvm run: --debug-script: read "+script+": ") {
			t.Errorf("--debug-script %s: exit %d %q", script, code, e)
		}
	}
	// 70000 workloads (4 MiB of JSON) took 1.1 GB and half a minute, most
	// failing for want of endpoints; a 64 MiB file would have run out of
	// memory. Each workload's processes and pages count in the estimate.
	horde := write("horde.json", `{"count":2,"topology":{"kind":"star"},"time":"10ms","workloads":[`+
		strings.Repeat(`{"kind":"stream","from":0,"to":1,"size":4,"count":1},`, 70000)+`{"kind":"touch","node":1,"pages":1}]}`)
	start := time.Now()
	if code, _, e := runCmd("run", "--quiet", horde); code != 2 || !strings.Contains(e, "count, frames, workloads: 2 nodes would take an estimated 2194.1 MiB") || time.Since(start) > 5*time.Second {
		t.Errorf("70000 workloads: exit %d after %v, %q; want 2 at once", code, time.Since(start), e)
	}
	// A clock past 2^63 MHz was checked after it became a float, and the
	// message showed another number.
	if code, _, e := runCmd("run", "--quiet", "--clock", "18446744073709551615", shared); code != 2 || !strings.Contains(e, "netvm run: --clock 18446744073709551615: 10..1000 MHz") {
		t.Errorf("--clock 2^64-1: exit %d %q", code, e)
	}
	// A cluster New cannot wire or that would take more memory than a run
	// may is a usage error before the run (--nodes 17 passed the check,
	// 2..64, and failed in the set-up with exit 3; so did --frames 1048576,
	// over the host's 4 GiB with the driver's pages).
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--nodes", "17"}, "netvm stress: --nodes: 17 nodes: 2..16, or a multiple of 8 up to 64"},
		{[]string{"--nodes", "2", "--frames", "1048576"}, "--frames 1048576: 0 (two thirds of what a process touches) or 1..1047552"},
		{[]string{"--nodes", "64", "--frames", "1047552"}, "netvm stress: --nodes, --frames: 64 nodes would take an estimated 6580.8 MiB"},
		// Absurd counts (docs/bad-input.md): the largest int ran 0 WRITEs
		// and exited 0 (the count per sender overflowed); 10^9 WRITEs or
		// atomics would take days; a batch's placement is quadratic (4096
		// take 1 s); the atomics' old values count in the memory.
		{[]string{"--writes", "9223372036854775807"}, "netvm stress: --writes 9223372036854775807: at most 100000000 (more would take days of host time"},
		{[]string{"--writes", "100000001"}, "netvm stress: --writes 100000001: at most 100000000"},
		{[]string{"--atomics", "100000001"}, "netvm stress: --atomics 100000001: at most 100000000"},
		{[]string{"--batch", "4097"}, "netvm stress: --batch 4097: at most 4096 (in a larger batch most WRITEs are empty"},
		{[]string{"--nodes", "64", "--frames", "200000", "--atomics", "100000000"}, "netvm stress: --nodes, --frames, --atomics: 64 nodes would take an estimated 2091.5 MiB"},
	} {
		start := time.Now()
		if code, _, e := runCmd(append([]string{"stress", "--quiet", "--writes", "10"}, c.args...)...); code != 2 || !strings.Contains(e, c.want) || time.Since(start) > time.Second {
			t.Errorf("stress %v: exit %d after %v, %q; want 2 at once and %q", c.args, code, time.Since(start), e, c.want)
		}
	}
	if code, _, e := runCmd("stress", "--quiet", "--writes", "10", "--json", "/dev/full"); code != 2 || !strings.Contains(e, "no space left on device") {
		t.Errorf("stress --json /dev/full: exit %d %q", code, e)
	}
	if code, _, e := runCmd("stress", "--quiet", "--writes", "10", "--json="); code != 2 || !strings.Contains(e, "netvm stress: --json: an empty file name") {
		t.Errorf("stress --json=: exit %d %q", code, e)
	}
	// Values the flags' types take but a run cannot: more host memory
	// than 32 bits address (once a fatal out-of-memory crash, or a host
	// memory cut to 32 bits), an eviction so frequent the run never ends.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stress", "--frames", "1099511627776"}, "--frames 1099511627776: 0 (two thirds of what a process touches) or 1..1047552"},
		{[]string{"stress", "--frames", "4294967396"}, "--frames 4294967396: 0 (two thirds of what a process touches) or 1..1047552"},
		{[]string{"stress", "--evict-every", "1ps"}, "--evict-every 1ps: 0s (never) or at least 1us"},
	} {
		if code, _, e := runCmd(append(c.args, "--quiet", "--writes", "20")...); code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("%q: exit %d %q, want 2 and %q", c.args, code, e, c.want)
		}
	}
	// A flag that was renamed names its successor, wherever it stands.
	for _, args := range [][]string{{"stress", "--evict-every-us", "200"}, {"stress", "--seed", "4", "-evict-every-us=200"}} {
		if code, _, e := runCmd(args...); code != 2 || !strings.Contains(e, "renamed: --evict-every takes a duration") {
			t.Errorf("%q: exit %d %q", args, code, e)
		}
	}
	for _, c := range []struct {
		name, src string
		code      int
		want      string
	}{
		{"never.json", `{"count":2,"topology":{"kind":"star"},"time":"20ms","faults":{"drop_ppm":1000000},
"workloads":[{"kind":"stream","from":0,"to":1,"size":4,"count":1000000000000}]}`, 1, "never.json:2: workloads[0]: stream did not finish in the scenario's time, 20000.000 us"},
		{"long.json", `{"count":2,"topology":{"kind":"star"},"time":"18446744073709us","workloads":[]}`, 2, "time = 18446744.073709s: at most one simulated hour"},
		{"frames.json", `{"count":2,"topology":{"kind":"star"},"time":"1s","frames":1000000000000}`, 2, "frames = 1000000000000: 64.."},
		{"latency.json", `{"count":2,"topology":{"kind":"star","link_latency":"18446744073709000000ps"},"time":"1s"}`, 2, "topology.link_latency: 18446744.073709s: at most one simulated day"},
		{"touch.json", `{"count":2,"topology":{"kind":"star"},"time":"1s","workloads":[{"kind":"touch","node":0,"pages":4000000000}]}`, 2, "pages = 4000000000: 1.."},
		// netvm run's format before it became an extension of lanai-sim's:
		// each old field says what replaced it.
		{"old.json", `{"nodes":2,"until_us":20000}`, 2, `old.json:1: field nodes: a number of nodes is "count"`},
		{"until.json", `{"count":2,"topology":{"kind":"star"},` + "\n" + `"until_us":20000}`, 2, `until.json:2: unknown field "until_us": renamed: write "time" with a unit ("until_us": 100000 is "time": "100ms")`},
		{"b2b.json", `{"count":2,"back_to_back":true,"time":"1ms"}`, 2, `unknown field "back_to_back": replaced: write "topology": {"kind": "b2b"}`},
		{"board.json", `{"count":2,"topology":{"kind":"star"},"time":"1ms","board":"M2L-PCI64B"}`, 2, `unknown field "board": moved: write "defaults": {"board": ...}`},
	} {
		code, _, e := runCmd("run", "--quiet", write(c.name, c.src))
		if code != c.code || !strings.Contains(e, c.want) {
			t.Errorf("%s: exit %d %q, want %d and %q", c.name, code, e, c.code, c.want)
		}
	}
}
