package run

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/board"
	"lanaiemu/internal/timeline"
)

var (
	update        = flag.Bool("update", false, "TestTourScript: rewrite fixtures/netvm/tour/tour.out")
	debugScript   = flag.String("debug.script", "", "TestDebugScript: the script of debugger commands to run")
	debugScenario = flag.String("debug.scenario", "", "TestDebugScript: the scenario file")
)

// root is the module's root, from this package's directory.
func root(t testing.TB) string {
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func loadScenario(t *testing.T, path string) *Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root(t), path)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = path
	}
	sc, err := Parse(rel, data)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestDebugScript runs -debug.script on -debug.scenario (paths relative
// to the module's root, or absolute) and writes the transcript to
// standard output (go test -v):
//
//	go test ./netvm/run -run TestDebugScript -v -debug.script my.dbg -debug.scenario fixtures/netvm/scenarios/tour.json
func TestDebugScript(t *testing.T) {
	if *debugScript == "" || *debugScenario == "" {
		t.Skip("give -debug.script FILE and -debug.scenario FILE")
	}
	r := root(t)
	path := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(r, p)
	}
	sc := loadScenario(t, path(*debugScenario))
	f, err := os.Open(path(*debugScript))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, errs, err := Debug(sc, f, os.Stdout, DebugConfig{Root: r})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.Workloads)
	fmt.Printf("result: %s\n", out)
	if errs != 0 {
		t.Errorf("%d commands failed", errs)
	}
}

// TestTourScript replays the debugger session of docs/tour.md
// (fixtures/netvm/tour/tour.dbg on fixtures/netvm/scenarios/tour.json)
// and compares its transcript with fixtures/netvm/tour/tour.out (-update
// rewrites it; the numbers quoted in docs/tour.md come from it).
func TestTourScript(t *testing.T) {
	r := root(t)
	sc := loadScenario(t, filepath.Join(r, "fixtures/netvm/scenarios/tour.json"))
	script, err := os.ReadFile(filepath.Join(r, "fixtures/netvm/tour/tour.dbg"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, errs, err := Debug(sc, bytes.NewReader(script), &out, DebugConfig{Root: r})
	if err != nil {
		t.Fatal(err)
	}
	if errs != 0 {
		t.Errorf("%d commands failed:\n%s", errs, out.String())
	}
	if w := res.Workloads[0]; !w.Done || w.Bytes != 4 {
		t.Errorf("workload %+v", w)
	}
	// The stops the tour describes, in order (by routine: the offsets of
	// return points move with the code; the first stop, the watchpoint's,
	// is wherever the main loop is).
	var stops []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "=>") {
			f := strings.Fields(l)
			sym, _, _ := strings.Cut(strings.Trim(f[2], "<>"), "+")
			stops = append(stops, sym)
		}
	}
	want := []string{"write_check", "send_step", "spt_lookup", "send_step", "dma_sync", "send_step",
		"tx_new", "tx_new", "tx_new", "rx_take", "rx_data", "spt_lookup", "rx_data", "spt_lock", "spt_lock", "dma_sync",
		"rx_data", "ctr_apply", "dma_sync", "ctr_apply", "tx_ctrl", "send_range", "rx_ack", "rx_take"}
	if len(stops) == 0 {
		t.Errorf("no stops")
	} else if d := cmp.Diff(want, stops[1:]); d != "" {
		t.Errorf("stops after the watchpoint's (-want +got):\n%s", d)
	}
	for _, s := range []string{
		"link: packet of 41 B starts on the wire", "node 1 (cycle", "link: packet of 41 B stored in SRAM",
		"DMA ch2 host->SRAM: block of 4 B begins", "DMA ch0 SRAM->host: block of 8 B begins",
		"host 0x00001800: 00000000 00000001", // the counter, in the receiver's status page
		"[the workloads are done at",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the transcript lacks %q", s)
		}
	}
	golden := filepath.Join(r, "fixtures/netvm/tour/tour.out")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want2, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want2), out.String()); d != "" {
		t.Errorf("the transcript differs from %s (if the firmware changed on purpose: go test ./netvm/run -run TestTourScript -update, then update the numbers in docs/tour.md) (-golden +now):\n%s", golden, d)
	}
}

// runTraced runs sc as Run does, with every board event and the timeline
// recorded.
func runTraced(t *testing.T, sc *Scenario) (*Result, []string, []byte) {
	var evs []string
	tl := timeline.New()
	c, res, t0, err := begin(sc, tl, func(node int, e board.Event) { evs = append(evs, fmt.Sprint(node, " ", e)) })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	res, err = finish(sc, c, res, t0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tl.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return res, evs, buf.Bytes()
}

// Stopping at breakpoints and watchpoints, stepping and waiting change
// nothing: every device event of every board (cycle-exact), the timeline
// (host threads included) and the result are those of a run without the
// debugger. The watchpoint on node 1's NVM_STAT_RX_DATA counter
// (NVM_GLOB_BASE + NVM_GLOB_STATS 0x40 + 4, firmware/netvm/src/abi.inc),
// which changes, has a condition that never holds there.
func TestDebugDoesNotPerturb(t *testing.T) {
	for _, name := range []string{"tour.json", "pingpong.json"} {
		t.Run(name, func(t *testing.T) {
			sc := loadScenario(t, filepath.Join(root(t), "fixtures/netvm/scenarios", name))
			if name == "pingpong.json" {
				sc.Workloads[0].Count = 3 // a short one: the first round trip is redirected, the others are not
			}
			res, evs, tl := runTraced(t, sc)
			script := `
watch NVM_EP_RING_BASE+0x3f 1
continue
delete
break spt_lock
continue
step 50
node 1
break rx_data
break ctr_apply
node 0
break engines if [node_id] != 0
log rx_ack ack on node {[node_id]}, r8 {%r8:x}
node 1
break engines if [node_id] != 1 && [0x40000000] == 0
break main_loop
ignore 8 1000000000
log rx_data data on node {[node_id]}
watch NVM_GLOB_BASE+0x44 4 if [node_id] == 7
continue
wait 1.5us
continue
continue
step 3
until tx_ctrl
info breakpoints
delete 2
node 0
until rx_ack
regs
x/8 NVM_SPT_BASE
`
			var devs []string
			dtl := timeline.New()
			var out bytes.Buffer
			dres, errs, err := Debug(sc, strings.NewReader(script), &out, DebugConfig{Root: root(t), Timeline: dtl,
				Trace: func(node int, e board.Event) { devs = append(devs, fmt.Sprint(node, " ", e)) }})
			if err != nil {
				t.Fatal(err)
			}
			if errs != 0 {
				t.Fatalf("%d commands failed:\n%s", errs, out.String())
			}
			if n := strings.Count(out.String(), "Breakpoint "); n < 4 {
				t.Fatalf("%d breakpoint stops:\n%s", n, out.String())
			}
			// The conditions are evaluated on the board that reached
			// the breakpoint: on its own node_id, never true there.
			for _, never := range []string{"Breakpoint 5,", "Breakpoint 7,", "Breakpoint 8,", "Watchpoint 10,"} {
				if strings.Contains(out.String(), never) {
					t.Errorf("a breakpoint that never holds stopped (%s):\n%s", never, out.String())
				}
			}
			if !strings.Contains(out.String(), "Watchpoint 10: node 1, 4 bytes at ") || !strings.Contains(out.String(), " if [node_id] == 7\n") {
				t.Errorf("the conditional watchpoint was not set:\n%s", out.String())
			}
			if !strings.Contains(out.String(), "\nnode 1: data on node 1\n") || name == "tour.json" && !regexp.MustCompile(`\nnode 0: ack on node 0, r8 0x[0-9a-f]{8}\n`).MatchString(out.String()) {
				t.Errorf("the logpoints' lines are missing:\n%s", out.String())
			}
			if d := cmp.Diff(evs, devs); d != "" {
				t.Fatalf("events differ (-plain run +with the debugger):\n%s", d)
			}
			var dbuf bytes.Buffer
			if err := dtl.Write(&dbuf); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(tl), dbuf.String()); d != "" {
				t.Errorf("the timelines differ (-plain run +with the debugger):\n%s", d)
			}
			a, _ := json.MarshalIndent(res, "", "\t")
			b, _ := json.MarshalIndent(dres, "", "\t")
			if d := cmp.Diff(string(a), string(b)); d != "" {
				t.Errorf("results differ (-plain run +with the debugger):\n%s", d)
			}
			t.Logf("%d events, %d timeline bytes, the same with the debugger", len(evs), len(tl))
		})
	}
}

// Bad commands are refused with a message and counted; the session goes
// on.
func TestDebugCommandErrors(t *testing.T) {
	sc := loadScenario(t, filepath.Join(root(t), "fixtures/netvm/scenarios/tour.json"))
	script := `
node 2
node x
watch
break no_such_symbol
break nosuchfile.s:3
break NVM_EP_RING_BASE+2
watch 0x7ffffff0 64
next
trace on
step 0
wait forever
wait 0us
hostx 0x10000000000 2
delete 99
events maybe
frobnicate
until spt_lookup
step 2
info breakpoints
`
	var out bytes.Buffer
	_, errs, err := Debug(sc, strings.NewReader(script), &out, DebugConfig{Root: root(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`node: "2": nodes are 0..1`, `node: "x"`, "usage: watch ADDR [LEN]", `break: no symbol "no_such_symbol"`, `no file "nosuchfile.s"`,
		"is not an instruction address", "is not in SRAM",
		"(lanai) next\nnode 0 at ", // next runs in a cluster too (the one command set)
		"trace is not available in a cluster run",
		`step: bad count "0"`, `wait: bad duration "forever"`, `wait: duration "0us" is not positive`, "hostx:", `delete: no breakpoint or watchpoint "99"`,
		"usage: events on|off", `unknown command "frobnicate"`,
		"<spt_lookup>", "No breakpoints or watchpoints.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the transcript lacks %q:\n%s", want, out.String())
		}
	}
	if errs != 15 {
		t.Errorf("%d errors, want 15:\n%s", errs, out.String())
	}
	if n := strings.Count(out.String(), "\n  ["); n != 2 { // step 2 shows two instructions, a line each
		t.Errorf("%d stepped instructions, want 2:\n%s", n, out.String())
	}
}

// "warm": the receiver's pages are resident before the WRITE, so it is
// placed directly; without it, it takes the redirect path.
func TestWarm(t *testing.T) {
	sc := loadScenario(t, filepath.Join(root(t), "fixtures/netvm/scenarios/tour.json"))
	if !sc.Workloads[0].Warm {
		t.Fatal("tour.json is not warm")
	}
	for _, warm := range []bool{true, false} {
		sc.Workloads[0].Warm = warm
		res, err := Run(sc, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		rx := res.Nodes[1]
		want := 0
		if !warm {
			want = 1
		}
		if !res.Workloads[0].Done || rx.Firmware["redirected"] != want || rx.Redirects != want || rx.Firmware["notifications"] != 1 {
			t.Errorf("warm %v: %+v, node 1 %+v", warm, res.Workloads[0], rx)
		}
	}
}

// The one command set on a cluster: backtrace follows the firmware's
// convention (rca pushed by routines that call others) through several
// routines, finish returns to the caller it names, and next runs a CALL
// as one step.
func TestClusterFramesAndNext(t *testing.T) {
	sc := loadScenario(t, filepath.Join(root(t), "fixtures/netvm/scenarios/tour.json"))
	script := `
node 1
until rx_data
until spt_lookup
backtrace
finish
backtrace
until spt_lock
until rx_data+0x1c0
`
	var out bytes.Buffer
	_, errs, err := Debug(sc, strings.NewReader(script), &out, DebugConfig{Root: root(t)})
	if err != nil || errs != 0 {
		t.Fatalf("%v, %d errors:\n%s", err, errs, out.String())
	}
	var bts [][]string
	for _, block := range strings.Split(out.String(), "(lanai) backtrace\n")[1:] {
		var names []string
		for _, l := range strings.Split(block, "\n") {
			if !strings.HasPrefix(l, "#") {
				break
			}
			sym, _, _ := strings.Cut(strings.Trim(strings.Fields(l)[2], "<>"), "+")
			names = append(names, sym)
		}
		bts = append(bts, names)
	}
	want := [][]string{{"spt_lookup", "rx_data", "rx_take", "engines", "main_loop"}, {"rx_data", "rx_take", "engines", "main_loop"}}
	if d := cmp.Diff(want, bts); d != "" {
		t.Errorf("backtraces (-want +got):\n%s\n%s", d, out.String())
	}
	if !strings.Contains(out.String(), "Run till the return address in rca, 0x") {
		t.Errorf("finish:\n%s", out.String())
	}
	// next at rx_data's CALL of spt_lookup (bt; add %pc, 4, %rca in the
	// delay slot) runs the routine and stops after the slot.
	out.Reset()
	_, errs, err = Debug(sc, strings.NewReader("node 1\nuntil rx_data+0x174\nnext\n"), &out, DebugConfig{Root: root(t)})
	if err != nil || errs != 0 || !strings.Contains(out.String(), "<rx_data+0x174>") ||
		!regexp.MustCompile(`\(lanai\) next\nnode 1 at [0-9.]+ us \(cycle \d+\)\n=>  0x[0-9a-f]{8} <rx_data\+0x17c>`).MatchString(out.String()) {
		t.Errorf("next over CALL: %v, %d errors:\n%s", err, errs, out.String())
	}
}

// The exercises' scripts of docs/tour.md (redirect.dbg on the cold
// scenario, drop.dbg on the lossy one) run without a failed command and
// show the stops the tour quotes.
func TestTourExerciseScripts(t *testing.T) {
	r := root(t)
	for _, c := range []struct {
		script string
		edit   func(*Scenario)
		want   []string
	}{
		{"redirect.dbg", func(sc *Scenario) { sc.Workloads[0].Warm = false },
			[]string{"Watchpoint 1, node 1, at 3781.265 us"}}, // the packet stored (docs/tour.md)
		{"drop.dbg", func(sc *Scenario) { sc.Seed = 2; sc.Faults.DropPPM = 500000 },
			[]string{"node 0 at 4812.505 us", "[4813.410 us] node 0 (cycle 962682) link: packet of 41 B starts on the wire"}}, // retx_start, then the copy (docs/tour.md)
	} {
		t.Run(c.script, func(t *testing.T) {
			sc := loadScenario(t, filepath.Join(r, "fixtures/netvm/scenarios/tour.json"))
			c.edit(sc)
			script, err := os.ReadFile(filepath.Join(r, "fixtures/netvm/tour", c.script))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, errs, err := Debug(sc, bytes.NewReader(script), &out, DebugConfig{Root: r})
			if err != nil || errs != 0 {
				t.Fatalf("%v, %d commands failed:\n%s", err, errs, out.String())
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("the transcript lacks %q", w)
				}
			}
		})
	}
}

// Two boards that reach their breakpoints in one instant (the nodes run
// main_loop in step) both stop: the second stop comes with the next
// continue, without running, at the same time; each point counts its
// hits. A condition false on node 0 leaves node 1's stop alone, and a
// breakpoint deleted before the next continue drops its pending stop.
func TestSimultaneousStops(t *testing.T) {
	sc := loadScenario(t, filepath.Join(root(t), "fixtures/netvm/scenarios/tour.json"))
	script := "break main_loop\nnode 1\nbreak main_loop\ncontinue\ncontinue\ncontinue\ncontinue\ninfo breakpoints\n" +
		"continue\ndelete 2\ncontinue\ninfo breakpoints\n"
	var out bytes.Buffer
	if _, errs, err := Debug(sc, strings.NewReader(script), &out, DebugConfig{Root: root(t)}); err != nil || errs != 0 {
		t.Fatalf("%v, %d errors:\n%s", err, errs, out.String())
	}
	stops := regexp.MustCompile(`Breakpoint (\d), node (\d), at ([0-9.]+ us)`).FindAllStringSubmatch(out.String(), -1)
	if len(stops) != 6 {
		t.Fatalf("%d stops, want 6:\n%s", len(stops), out.String())
	}
	for i, s := range stops[:4] {
		if want := fmt.Sprint(i%2 + 1); s[1] != want || s[2] != fmt.Sprint(i%2) || i%2 == 1 && s[3] != stops[i-1][3] {
			t.Errorf("stop %d: %v; want breakpoint %s, the pairs at one time:\n%s", i, s[0], want, out.String())
		}
	}
	// Breakpoint 2's pending stop deleted: the next continue runs node 0
	// to its next stop.
	if stops[4][1] != "1" || stops[5][1] != "1" || stops[5][3] == stops[4][3] {
		t.Errorf("after delete 2: %v %v:\n%s", stops[4][0], stops[5][0], out.String())
	}
	if !strings.Contains(out.String(), "node 0 breakpoint at 0x000001d8 <main_loop> at netvm.s:448, hit 2 times\n2   node 1 breakpoint at 0x000001d8 <main_loop> at netvm.s:448, hit 2 times") {
		t.Errorf("hit counts:\n%s", out.String())
	}
}
