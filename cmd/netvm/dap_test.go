package main

import (
	"io"
	"path/filepath"
	"testing"

	godap "github.com/google/go-dap"

	"lanaiemu/dap/daptest"
)

// netvm dap --listen: a client launches the tour's scenario, sees a
// thread per node, stops at the workloads' start, and runs it to the end:
// exit code 0.
func TestDAPCommand(t *testing.T) {
	c, done, stderr := daptest.Listen(t, func(args []string, stderr io.Writer) int { return run(args, io.Discard, stderr) })
	do := func(cmd string, args any) godap.ResponseMessage {
		t.Helper()
		return daptest.Must[godap.ResponseMessage](t, c, cmd, args)
	}
	do("initialize", map[string]any{"adapterID": "lanai-cluster"})
	root, _ := filepath.Abs("../..")
	do("launch", map[string]any{"scenario": filepath.Join(root, "fixtures/netvm/scenarios/tour.json"), "stopOnEntry": true})
	do("configurationDone", nil)
	if e, err := c.Event("stopped", nil); err != nil || e.(*godap.StoppedEvent).Body.Reason != "entry" {
		t.Fatalf("stopOnEntry: %v %v", e, err)
	}
	ts := do("threads", nil).(*godap.ThreadsResponse).Body.Threads
	if len(ts) != 2 {
		t.Errorf("threads %+v", ts)
	}
	do("continue", map[string]any{"threadId": 1})
	e, err := c.Event("exited", nil)
	if err != nil || e.(*godap.ExitedEvent).Body.ExitCode != 0 {
		t.Fatalf("exited %v %v", e, err)
	}
	do("disconnect", nil)
	if st := <-done; st != 0 {
		t.Errorf("status %d: %s", st, stderr.String())
	}
	if st := run([]string{"dap", "x"}, io.Discard, io.Discard); st != 2 {
		t.Errorf("an argument: status %d", st)
	}
}
