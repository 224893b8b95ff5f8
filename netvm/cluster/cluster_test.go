package cluster

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"lanaiemu/lanai"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*11)
	}
	return b
}

// runThread runs fn as a thread of node n's kernel until it returns
// (RunUntil), which must be within limit.
func runThread(t *testing.T, c *Cluster, n int, limit sim.Time, fn func(th *freebsd.Thread)) {
	t.Helper()
	done := false
	c.Nodes[n].Kernel.Go("test", func(th *freebsd.Thread) { fn(th); done = true })
	end := c.Now() + limit
	if inTime, err := c.RunUntil(func() bool { return done }, end); err != nil {
		t.Fatal(err)
	} else if !inTime {
		t.Fatalf("node %d thread not done by %v", n, end)
	}
}

// End to end on two nodes: a process on node 1 exports a region it has
// never touched (not one page resident) and a counter; a process on node
// 0 writes 64 KiB into it with the counter; node 1's process waits for the
// counter (block wait) and finds every byte. The data came through the
// redirect path (node 1's driver faulted the pages in and copied), and a
// second write finds the pages resident and goes direct.
func TestEndToEnd(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 2048})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	const size = 64 << 10
	a := c.Nodes[0].Kernel.NewProc("writer")
	b := c.Nodes[1].Kernel.NewProc("reader")
	var (
		epA, epB       *lib.EP
		region, ctrKey uint32
		dstVA, srcVA   uint32
	)
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		var err error
		if epB, err = lib.Open(th, c.Nodes[1].Driver, b); err != nil {
			t.Fatal(err)
		}
		dstVA, _ = b.Mmap(th, size, freebsd.ProtRW)
		if region, err = epB.Export(th, dstVA, size, true); err != nil {
			t.Fatal(err)
		}
		if ctrKey, err = epB.ExportCounter(th, 3); err != nil {
			t.Fatal(err)
		}
	})
	msg := pattern(size, 5)
	var imp, impCtr int
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		var err error
		if epA, err = lib.Open(th, c.Nodes[0].Driver, a); err != nil {
			t.Fatal(err)
		}
		srcVA, _ = a.Mmap(th, size, freebsd.ProtRW)
		if err := a.Write(th, srcVA, msg); err != nil {
			t.Fatal(err)
		}
		if imp, err = epA.Import(th, 1, epB.Index, region, size, abi.ExpKindRegion); err != nil {
			t.Fatal(err)
		}
		if impCtr, err = epA.Import(th, 1, epB.Index, ctrKey, 0, abi.ExpKindCounter); err != nil {
			t.Fatal(err)
		}
	})
	var waited sim.Time
	c.Nodes[1].Kernel.Go("waiter", func(th *freebsd.Thread) {
		t0 := th.Now()
		if err := epB.WaitBlock(th, 3, 1); err != nil {
			t.Error(err)
		}
		waited = th.Now() - t0
	})
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		tk, err := epA.Write(th, srcVA, imp, 0, size, impCtr)
		if err != nil {
			t.Fatal(err)
		}
		epA.Quiet(th)
		if done, st := epA.Test(tk); !done || st != abi.StatusOK {
			t.Fatalf("write: done %v status %d", done, st)
		}
	})
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB.WaitBusy(th, 3, 1)
		got := make([]byte, size)
		if err := b.Read(th, dstVA, got); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("the region differs (%v)", err)
		}
	})
	ds := c.Nodes[1].Driver.Stats()
	if ds.Redirects != size/freebsd.PageSize || ds.RedirectedBytes != size || waited == 0 {
		t.Fatalf("driver stats %+v, waited %v", ds, waited)
	}
	t.Logf("64 KiB into a non-resident region: %d redirects, waiter woke after %v", ds.Redirects, waited)
	// Again: the pages are resident now, the data goes direct.
	msg2 := pattern(size, 77)
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		a.Write(th, srcVA, msg2)
		epA.Write(th, srcVA, imp, 0, size, impCtr)
	})
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB.WaitBusy(th, 3, 2)
		got := make([]byte, size)
		b.Read(th, dstVA, got)
		if !bytes.Equal(got, msg2) {
			t.Fatal("second write differs")
		}
	})
	if ds2 := c.Nodes[1].Driver.Stats(); ds2.Redirects != ds.Redirects {
		t.Fatalf("resident pages were redirected: %d more", ds2.Redirects-ds.Redirects)
	}
}

// A counting semaphore and a wait queue homed on node 1, released from
// node 0: P never returns before the matching V, and the waiters of the
// queue leave in the order they came.
func TestSemaphoreAndWaitQueue(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	a := c.Nodes[0].Kernel.NewProc("poster")
	b := c.Nodes[1].Kernel.NewProc("waiter")
	var epA, epB *lib.EP
	var region, semKey, wqKey uint32
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB, _ = lib.Open(th, c.Nodes[1].Driver, b)
		va, _ := b.Mmap(th, freebsd.PageSize, freebsd.ProtRW)
		region, _ = epB.Export(th, va, freebsd.PageSize, true)
		semKey, _ = epB.ExportCounter(th, 5)
		wqKey, _ = epB.ExportCounter(th, 6)
	})
	var imp, impSem, impWQ int
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		epA, _ = lib.Open(th, c.Nodes[0].Driver, a)
		imp, _ = epA.Import(th, 1, epB.Index, region, freebsd.PageSize, abi.ExpKindRegion)
		impSem, _ = epA.Import(th, 1, epB.Index, semKey, 0, abi.ExpKindCounter)
		impWQ, _ = epA.Import(th, 1, epB.Index, wqKey, 0, abi.ExpKindCounter)
	})
	sem := &lib.Semaphore{EP: epB, Ctr: 5, Block: true}
	wq := &lib.WaitQueue{EP: epB, Ctr: 6}
	var order []int
	var pTimes []sim.Time
	c.Nodes[1].Kernel.Go("P", func(th *freebsd.Thread) {
		for range 3 {
			sem.P(th)
			pTimes = append(pTimes, th.Now())
		}
	})
	for i := range 3 {
		i := i
		c.Nodes[1].Kernel.Go("wq", func(th *freebsd.Thread) {
			th.Sleep(sim.Time(i) * sim.Microsecond) // arrive in order 0, 1, 2
			wq.Wait(th)
			order = append(order, i)
		})
	}
	var vTimes []sim.Time
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		for range 3 {
			th.Sleep(100 * sim.Microsecond)
			vTimes = append(vTimes, th.Now())
			epA.Post(th, imp, impSem)
			epA.Post(th, imp, impWQ)
		}
	})
	c.Run(c.Now() + 2*sim.Millisecond)
	if len(pTimes) != 3 || len(order) != 3 {
		t.Fatalf("P returned %d times, %d waiters left", len(pTimes), len(order))
	}
	for i := range 3 {
		if pTimes[i] <= vTimes[i] {
			t.Fatalf("P %d at %v, before its V at %v", i, pTimes[i], vTimes[i])
		}
		if order[i] != i {
			t.Fatalf("wait queue order %v", order)
		}
	}
	if sem.TryP() {
		t.Fatal("TryP took a unit nobody posted")
	}
	t.Logf("V -> P: %v, %v, %v", pTimes[0]-vTimes[0], pTimes[1]-vTimes[1], pTimes[2]-vTimes[2])
}

// A cluster whose boards have all stopped cannot reach a later time: Run
// says so instead of calling World.Run for ever (the world's time stays
// at the last stop).
func TestRunEveryBoardStopped(t *testing.T) {
	c, err := New(Config{Nodes: 2, Frames: 1024})
	require.NoError(t, err)
	defer c.Shutdown()
	require.NoError(t, c.Run(c.Now()+sim.Millisecond))
	for _, n := range c.World.Nodes {
		n.Stop = &lanai.Stop{Kind: lanai.StopExit, Cycle: n.Board.CPU().Cycles}
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(c.Now() + sim.Millisecond) }()
	select {
	case err := <-done:
		require.ErrorContains(t, err, "every board has stopped")
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return with every board stopped")
	}
}
