package main

import (
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"lanaiemu/dap/daptest"
)

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// netvm dap --listen: a client launches the tour's scenario, sees a
// thread per node, stops at the workloads' start, and runs it to the end:
// exit code 0.
func TestDAPCommand(t *testing.T) {
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"dap", "--listen", "127.0.0.1:0"}, io.Discard, &stderr) }()
	var addr string
	for i := 0; i < 500 && addr == ""; i++ {
		if _, a, ok := strings.Cut(stderr.String(), "listening on "); ok {
			addr = strings.TrimSpace(a)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if addr == "" {
		t.Fatalf("no address: %q", stderr.String())
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := daptest.New(conn, conn)
	do := func(cmd string, args any) godap.ResponseMessage {
		t.Helper()
		r, err := c.Do(cmd, args)
		if err != nil {
			t.Fatal(err)
		}
		return r
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
