package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	godap "github.com/google/go-dap"

	"lanaiemu/dap/daptest"
)

// lanai-sim dap: the pingpong scenario's two boards are threads; a
// breakpoint by line in pingpong.s stops the ping node after its first
// reply with both boards at one cycle; the run goes on to its end with
// lanai-sim's exit status.
func TestDAPCommand(t *testing.T) {
	c, done, stderr := daptest.Listen(t, func(args []string, stderr io.Writer) int { return run(args, io.Discard, stderr) })
	do := func(cmd string, args any) godap.ResponseMessage {
		t.Helper()
		return daptest.Must[godap.ResponseMessage](t, c, cmd, args)
	}
	src, _ := filepath.Abs("../../fixtures/firmware/pingpong.s")
	text, _ := os.ReadFile(src)
	line := 0
	for i, l := range strings.Split(string(text), "\n") {
		if strings.Contains(l, "! re-arm") && line == 0 {
			line = i + 1
		}
	}
	scen, _ := filepath.Abs("../../fixtures/scenarios/pingpong.json")
	do("initialize", map[string]any{"adapterID": "lanai-sim"})
	do("launch", map[string]any{"scenario": scen})
	bps := do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []map[string]any{{"line": line}}}).(*godap.SetBreakpointsResponse).Body.Breakpoints
	if len(bps) != 1 || !bps[0].Verified || bps[0].Line != line {
		t.Fatalf("setBreakpoints pingpong.s:%d: %+v", line, bps)
	}
	do("configurationDone", nil)
	e, err := c.Event("stopped", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := e.(*godap.StoppedEvent).Body
	if st.Reason != "breakpoint" || st.ThreadId != 1 || !strings.Contains(st.Description, "on node 0 at ") {
		t.Errorf("stop: %+v", st)
	}
	fs := do("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse).Body.StackFrames
	if len(fs) == 0 || fs[0].Line != line || fs[0].Source == nil || fs[0].Source.Path != src {
		t.Errorf("stack: %+v", fs)
	}
	cyc := regexp.MustCompile(`^cycles (\d+),`)
	var cycles []string
	for th := 1; th <= 2; th++ {
		f := do("stackTrace", map[string]any{"threadId": th}).(*godap.StackTraceResponse).Body.StackFrames
		r := do("evaluate", map[string]any{"expression": "cycles", "context": "repl", "frameId": f[0].Id}).(*godap.EvaluateResponse).Body.Result
		m := cyc.FindStringSubmatch(r)
		if m == nil {
			t.Fatalf("cycles: %q", r)
		}
		cycles = append(cycles, m[1])
	}
	if cycles[0] != cycles[1] || !strings.Contains(st.Description, "(cycle "+cycles[0]+")") {
		t.Errorf("the boards' cycles %v; stop %q", cycles, st.Description)
	}
	do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{}})
	do("continue", map[string]any{"threadId": 1})
	var output strings.Builder
	x, err := c.Event("exited", func(e godap.EventMessage) {
		if o, ok := e.(*godap.OutputEvent); ok {
			output.WriteString(o.Body.Output)
		}
	})
	if err != nil || x.(*godap.ExitedEvent).Body.ExitCode != 0 {
		t.Fatalf("exited %v %v", x, err)
	}
	// A normal end is said once, as such, with how each node stopped; it
	// is no error (it was: "error: the run is over (every node has
	// stopped)").
	end := regexp.MustCompile(`\[node 0 exited with code 0x[0-9a-f]+ at ([0-9.]+ us)\]\n\[the run is over at ([0-9.]+ us): node 0 exited \d+, node 1 exited 0\]\n`)
	if m := end.FindStringSubmatch(output.String()); m == nil || m[1] != m[2] || strings.Contains(output.String(), "error") {
		t.Errorf("the end's output:\n%s", output.String())
	}
	do("disconnect", nil)
	if st := <-done; st != 0 {
		t.Errorf("status %d: %s", st, stderr.String())
	}
	t.Logf("stopped at pingpong.s:%d on node 0 at cycle %s (both boards)", line, cycles[0])
}

// lanai-sim dap sends the nodes' consoles to the editor's console (output
// events of category stdout), as lanai-sim prints them.
func TestDAPConsole(t *testing.T) {
	c, done, stderr := daptest.Listen(t, func(args []string, stderr io.Writer) int { return run(args, io.Discard, stderr) })
	asm, _ := filepath.Abs("../../fixtures/firmware/console.s")
	scen := filepath.Join(t.TempDir(), "console.json")
	os.WriteFile(scen, []byte(`{"topology": {"kind": "b2b"}, "time": "1ms", "defaults": {"asm": ["`+asm+`"]},
		"nodes": [{"params": {"wait": 2000}}, {"params": {"id": 1, "wait": 100}}]}`), 0o644)
	daptest.Must[godap.ResponseMessage](t, c, "initialize", map[string]any{"adapterID": "lanai-sim"})
	daptest.Must[godap.ResponseMessage](t, c, "launch", map[string]any{"scenario": scen})
	daptest.Must[godap.ResponseMessage](t, c, "configurationDone", nil)
	var console strings.Builder
	if _, err := c.Event("exited", func(e godap.EventMessage) {
		if o, ok := e.(*godap.OutputEvent); ok && o.Body.Category == "stdout" {
			console.WriteString(o.Body.Output)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if want := "node 0: A0\nnode 1: A1\nnode 1: B1\nnode 0: B0\nnode 1: C1\nnode 0: C0\n"; console.String() != want {
		t.Errorf("console:\n%s\nwant:\n%s", console.String(), want)
	}
	daptest.Must[godap.ResponseMessage](t, c, "disconnect", nil)
	if st := <-done; st != 0 {
		t.Errorf("status %d: %s", st, stderr.String())
	}
}
