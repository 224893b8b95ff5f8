package run

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	godap "github.com/google/go-dap"

	"lanaiemu/dap"
	"lanaiemu/dap/daptest"
)

func stop(t *testing.T, c *daptest.Client) godap.StoppedEventBody {
	t.Helper()
	e, err := c.Event("stopped", nil)
	if err != nil {
		t.Fatal(err)
	}
	return e.(*godap.StoppedEvent).Body
}

var timeRE = regexp.MustCompile(`; node 0 cycle (\d+); node 1 cycle (\d+)`)

// sameCycle checks, through the console's "time" command, that both
// boards stopped at one time: at the same cycle, or one board a cycle
// ahead because it was inside a two-cycle instruction when the other
// reached the stop (an instruction is never split; docs/debugging.md).
func sameCycle(t *testing.T, c *daptest.Client, when string) {
	t.Helper()
	r := daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "time", "context": "repl"}).Body.Result
	m := timeRE.FindStringSubmatch(r)
	t.Logf("%s: %s", when, r)
	if m == nil {
		t.Fatalf("%s: no cycles in %q", when, r)
	}
	a, _ := strconv.ParseUint(m[1], 10, 64)
	b, _ := strconv.ParseUint(m[2], 10, 64)
	if max(a, b)-min(a, b) > 1 {
		t.Errorf("%s: the boards are %d cycles apart: %q", when, max(a, b)-min(a, b), r)
	}
}

// launchTour starts the adapter on the tour scenario of the module at
// root r, launched and initialized.
func launchTour(t *testing.T, r string) (*daptest.Client, chan error) {
	t.Helper()
	c, done := daptest.Pipe(func(rd io.Reader, w io.Writer) error { return dap.Serve(rd, w, Launcher()) })
	daptest.Must[*godap.InitializeResponse](t, c, "initialize", map[string]any{"adapterID": "lanai-cluster"})
	daptest.Must[*godap.LaunchResponse](t, c, "launch", map[string]any{"scenario": filepath.Join(r, "fixtures/netvm/scenarios/tour.json")})
	if _, err := c.Event("initialized", nil); err != nil {
		t.Fatal(err)
	}
	return c, done
}

// The cluster through the adapter: each board a thread, a stop stops all
// at one cycle; a watchpoint fired by the host's PIO write on node 0; a
// function breakpoint in rx_data and a source breakpoint in recv.s on
// node 1; the firmware's stack; the SPT entry read after spt_lookup; the
// exit code from the workloads.
func TestDAPCluster(t *testing.T) {
	r := root(t)
	c, done := launchTour(t, r)
	ts := daptest.Must[*godap.ThreadsResponse](t, c, "threads", nil).Body.Threads
	if len(ts) != 2 || ts[0].Name != "node 0" || ts[1].Name != "node 1" {
		t.Fatalf("threads %+v", ts)
	}
	// Node 0's frames give the variables reference of its thread.
	fs := daptest.Must[*godap.StackTraceResponse](t, c, "stackTrace", map[string]any{"threadId": 1}).Body.StackFrames
	sc := daptest.Must[*godap.ScopesResponse](t, c, "scopes", map[string]any{"frameId": fs[0].Id}).Body.Scopes
	info := daptest.Must[*godap.DataBreakpointInfoResponse](t, c, "dataBreakpointInfo", map[string]any{"name": "NVM_EP_RING_BASE+0x3f", "variablesReference": sc[0].VariablesReference}).Body
	dbs := daptest.Must[*godap.SetDataBreakpointsResponse](t, c, "setDataBreakpoints", map[string]any{"breakpoints": []map[string]any{{"dataId": info.DataId}}}).Body.Breakpoints
	fbs := daptest.Must[*godap.SetFunctionBreakpointsResponse](t, c, "setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{{"name": "rx_data"}}}).Body.Breakpoints
	if len(dbs) != 1 || !dbs[0].Verified || len(fbs) != 1 || !fbs[0].Verified {
		t.Fatalf("data %+v, function %+v", dbs, fbs)
	}
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)

	// 1. The library's PIO write of the op byte into node 0's ring.
	// The same stop as the tour's session at the prompt (fixtures/netvm/tour/tour.out).
	tour, err := os.ReadFile(filepath.Join(r, "fixtures/netvm/tour/tour.out"))
	if err != nil {
		t.Fatal(err)
	}
	at := regexp.MustCompile(`Watchpoint 1, node 0, (at [0-9.]+ us \(cycle \d+\))`).FindSubmatch(tour)
	st := stop(t, c)
	if at == nil || st.Reason != "data breakpoint" || st.ThreadId != 1 || !st.AllThreadsStopped || !strings.Contains(st.Description, "on node 0 "+string(at[1])) {
		t.Errorf("watchpoint stop: %+v", st)
	}
	sameCycle(t, c, "at the watchpoint")
	daptest.Must[*godap.SetDataBreakpointsResponse](t, c, "setDataBreakpoints", map[string]any{"breakpoints": []any{}})

	// 2. rx_data on node 1, the packet's receiver.
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	st = stop(t, c)
	if st.Reason != "function breakpoint" || st.ThreadId != 2 || !strings.Contains(st.Description, "on node 1 at") {
		t.Errorf("rx_data stop: %+v", st)
	}
	sameCycle(t, c, "at rx_data")
	fs = daptest.Must[*godap.StackTraceResponse](t, c, "stackTrace", map[string]any{"threadId": 2}).Body.StackFrames
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "rx_data rx_take engines main_loop" || fs[0].Source == nil || fs[0].Source.Path != filepath.Join(r, "firmware/netvm/src/recv.s") {
		t.Errorf("node 1's stack: %v %+v", names, fs[0].Source)
	}
	line := fs[0].Line
	t.Logf("rx_data stop: %s; frames %v at recv.s:%d", st.Description, names, line)

	// 3. Into spt_lookup and out: r8 is the SPT entry.
	daptest.Must[*godap.SetFunctionBreakpointsResponse](t, c, "setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{{"name": "spt_lookup"}}})
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 2})
	if st = stop(t, c); st.ThreadId != 2 {
		t.Errorf("spt_lookup stop: %+v", st)
	}
	daptest.Must[*godap.SetFunctionBreakpointsResponse](t, c, "setFunctionBreakpoints", map[string]any{"breakpoints": []any{}})
	daptest.Must[*godap.StepOutResponse](t, c, "stepOut", map[string]any{"threadId": 2})
	stop(t, c)
	sameCycle(t, c, "after stepOut")
	fs = daptest.Must[*godap.StackTraceResponse](t, c, "stackTrace", map[string]any{"threadId": 2}).Body.StackFrames
	ev := daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "%r8", "frameId": fs[0].Id}).Body
	mem := daptest.Must[*godap.ReadMemoryResponse](t, c, "readMemory", map[string]any{"memoryReference": ev.MemoryReference, "count": 16}).Body
	b, _ := base64.StdEncoding.DecodeString(mem.Data)
	x := daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "x/4 r8", "context": "repl", "frameId": fs[0].Id}).Body.Result
	t.Logf("after spt_lookup: %s, r8 = %s, the entry: % x\n%s", fs[0].Name, ev.Result, b, x)
	if fs[0].Name != "rx_data" || len(b) != 16 || !strings.Contains(x, fmt.Sprintf("%x", b[:4])) ||
		!strings.HasPrefix(ev.MemoryReference, "node1:0x") || ev.MemoryReference == "node1:0x00000000" { // node 1's (each board its own SRAM)
		t.Errorf("the SPT entry: frame %s, r8 %s at %s, % x, x/4: %q", fs[0].Name, ev.Result, ev.MemoryReference, b, x)
	}

	// 4. A breakpoint by line in recv.s: rx_data's first line, on both nodes.
	bps := daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": map[string]any{"path": filepath.Join(r, "firmware/netvm/src/recv.s")},
		"breakpoints": []map[string]any{{"line": line}}}).Body.Breakpoints
	if len(bps) != 1 || !bps[0].Verified || bps[0].Line != line {
		t.Errorf("setBreakpoints %+v", bps)
	}
	daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": map[string]any{"path": filepath.Join(r, "firmware/netvm/src/recv.s")}, "breakpoints": []any{}})

	// 5. To the scenario's end: the workloads are done, exit code 0.
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 2})
	var out strings.Builder
	e, err := c.Event("exited", func(e godap.EventMessage) {
		if o, ok := e.(*godap.OutputEvent); ok {
			out.WriteString(o.Body.Output)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if code := e.(*godap.ExitedEvent).Body.ExitCode; code != 0 || !strings.Contains(out.String(), `"done": true`) {
		t.Errorf("exit code %d, output:\n%s", code, out.String())
	}
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// Conditions in a cluster: a function breakpoint is set in every node,
// and each node's point evaluates its condition on its own board: one on
// the firmware's node_id stops on node 1 only (node 0 reaches main_loop
// at the same cycles, its condition false), at the hit its hit
// condition names, node 0's point never hit; a logpoint in recv.s prints
// node 1's node_id as an output event.
func TestDAPClusterConditions(t *testing.T) {
	r := root(t)
	c, done := launchTour(t, r)
	fbs := daptest.Must[*godap.SetFunctionBreakpointsResponse](t, c, "setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{
		{"name": "main_loop", "condition": "[node_id] == 1", "hitCondition": "5"}}}).Body.Breakpoints
	recv := filepath.Join(r, "firmware/netvm/src/recv.s")
	bps := daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": map[string]any{"path": recv},
		"breakpoints": []map[string]any{{"line": 132, "logMessage": "rx_data on node_id {[node_id]}"}}}).Body.Breakpoints
	if len(fbs) != 1 || !fbs[0].Verified || len(bps) != 1 || !bps[0].Verified {
		t.Fatalf("function %+v, source %+v", fbs, bps)
	}
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	var out strings.Builder
	output := func(e godap.EventMessage) {
		if o, ok := e.(*godap.OutputEvent); ok {
			out.WriteString(o.Body.Output)
		}
	}
	e, err := c.Event("stopped", output)
	if err != nil {
		t.Fatal(err)
	}
	st := e.(*godap.StoppedEvent).Body
	if st.Reason != "function breakpoint" || st.ThreadId != 2 || st.HitBreakpointIds[0] != fbs[0].Id {
		t.Fatalf("stop: %+v", st)
	}
	info := daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "info breakpoints", "context": "repl"}).Body.Result
	if !regexp.MustCompile(`node 0 breakpoint at 0x[0-9a-f]{8} <main_loop> at netvm.s:\d+, hit 0 times`).MatchString(info) ||
		!regexp.MustCompile(`node 1 breakpoint at 0x[0-9a-f]{8} <main_loop> at netvm.s:\d+, hit 5 times`).MatchString(info) ||
		!strings.Contains(info, "4   node 1 logpoint at") {
		t.Errorf("info breakpoints:\n%s", info)
	}
	t.Logf("stop: %s\n%s", st.Description, info)
	// The logpoint printed when node 1 took the write's data; the run
	// goes on to its end.
	daptest.Must[*godap.SetFunctionBreakpointsResponse](t, c, "setFunctionBreakpoints", map[string]any{"breakpoints": []any{}})
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 2})
	if _, err := c.Event("exited", output); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "node 1: rx_data on node_id 1\n") || strings.Contains(out.String(), "node 0: rx_data") {
		t.Errorf("output:\n%s", out.String())
	}
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// A launch naming a device or a bad scenario fails at once with the
// reason (the scenario is read with readfile's bounds).
func TestDAPLaunchBadScenario(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(`{"nodes": 2, "until_us": 1000}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ scenario, want string }{
		{"/dev/zero", "not a regular file"},
		{old, `field nodes: a number of nodes is "count"`},
	} {
		raw, _ := json.Marshal(map[string]string{"scenario": c.scenario})
		_, err := Launcher()(raw, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.scenario, err, c.want)
		}
	}
}
