package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/driver"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/sim"
)

// Two processes opened and imported through the shared helpers, for each
// way of waiting: A writes a pattern into B's region with B's counter and
// B, waiting that way (its wait begun before the WRITE), wakes with the
// counter at 1 and every byte in place; B answers into A's region the
// same way. The WRITEs come from the separate source buffers.
func TestProcessPair(t *testing.T) {
	for _, mode := range []string{WaitBusy, WaitBlock, WaitHandler} {
		t.Run(mode, func(t *testing.T) { testProcessPair(t, mode) })
	}
}

func testProcessPair(t *testing.T, mode string) {
	c, err := New(Config{Nodes: 2, Frames: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	const size = 3000
	var ps [2]*Process
	if err := c.RunOnEach("open", func(th *freebsd.Thread, m *Machine) error {
		var err error
		ps[m.ID], err = OpenProcess(th, m, m.Kernel.NewProc(fmt.Sprintf("p%d", m.ID)), size,
			ProcessOptions{Resident: true, SeparateSource: true, Handler: mode == WaitHandler})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.RunOnEach("import", func(th *freebsd.Thread, m *Machine) error { return ps[m.ID].Import(th, ps[1-m.ID]) }); err != nil {
		t.Fatal(err)
	}
	a, b := ps[0], ps[1]
	if a.Size != freebsd.PageSize || a.Src == a.Region {
		t.Fatalf("size %d, source %#x, region %#x: want a page and two buffers", a.Size, a.Src, a.Region)
	}
	for _, dir := range [][2]*Process{{a, b}, {b, a}} {
		from, to := dir[0], dir[1]
		msg := bytes.Repeat([]byte{0x5A, byte(from.Machine.ID)}, size/2)
		woke := false
		var waitErr error
		to.Machine.Kernel.Go("reader", func(th *freebsd.Thread) { waitErr = to.WaitCounter(th, 1, mode); woke = true })
		if err := c.RunThread(from.Machine.ID, "writer", func(th *freebsd.Thread) error {
			if err := from.Proc.Write(th, from.Src, msg); err != nil {
				return err
			}
			_, err := from.EP.Write(th, from.Src, from.PeerRegion, 0, size, from.PeerCounter)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if err := c.Run(c.Now() + sim.Millisecond); err != nil || !woke || waitErr != nil {
			t.Fatalf("node %d's reader woke %v (%v, %v)", to.Machine.ID, woke, err, waitErr)
		}
		if n := to.EP.Counter(0); n != 1 {
			t.Fatalf("node %d's counter %d, want 1", to.Machine.ID, n)
		}
		buf := make([]byte, size)
		if err := to.Proc.Peek(to.Region, buf); err != nil || !bytes.Equal(buf, msg) {
			t.Fatalf("node %d's region differs from the WRITE (%v)", to.Machine.ID, err)
		}
	}
}

// A thread's error comes back with its node's number, and an endpoint the
// driver cannot give fails OpenProcess with the driver's error, named by
// its step.
func TestProcessErrors(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	boom := errors.New("boom")
	if err := c.RunThread(1, "fails", func(*freebsd.Thread) error { return boom }); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "node 1: ") {
		t.Fatalf("RunThread: %v", err)
	}
	m := c.Nodes[0]
	err = c.RunThread(0, "crowd", func(th *freebsd.Thread) error {
		for i := range abi.MaxEndpoints + 1 {
			if _, err := OpenProcess(th, m, m.Kernel.NewProc(fmt.Sprintf("p%d", i)), 0, ProcessOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, driver.ErrNoEndpoint) || !strings.Contains(err.Error(), "node 0: open: ") {
		t.Fatalf("the 17th endpoint: %v", err)
	}
}

// RunUntil stops at what it waits for, or one step past its limit.
func TestRunUntil(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	start := c.Now()
	at := start + 350*sim.Microsecond
	inTime, err := c.RunUntil(func() bool { return c.Now() >= at }, start+sim.Millisecond)
	if err != nil || !inTime || c.Now() < at || c.Now() >= at+ThreadStep {
		t.Fatalf("until %v: in time %v at %v (%v)", at, inTime, c.Now(), err)
	}
	limit := c.Now() + sim.Millisecond
	inTime, err = c.RunUntil(func() bool { return false }, limit)
	if err != nil || inTime || c.Now() <= limit || c.Now() > limit+ThreadStep {
		t.Fatalf("never: in time %v at %v, limit %v (%v)", inTime, c.Now(), limit, err)
	}
}
