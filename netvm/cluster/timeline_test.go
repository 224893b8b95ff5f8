package cluster

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"lanaiemu/internal/timeline"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/sim"
)

// traceOneWrite runs one 16 KiB WRITE into a region that is not resident,
// with a block-waiting reader, and returns the timeline's JSON.
func traceOneWrite(t *testing.T) []byte {
	tl := timeline.New()
	c, err := New(Config{Nodes: 2, Frames: 512, Timeline: tl})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	a, b := c.Nodes[0].Kernel.NewProc("writer"), c.Nodes[1].Kernel.NewProc("reader")
	var epA, epB *lib.EP
	var key, ck, dst, src uint32
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		epB, _ = lib.Open(th, c.Nodes[1].Driver, b)
		dst, _ = b.Mmap(th, 16<<10, freebsd.ProtRW)
		key, _ = epB.Export(th, dst, 16<<10, true)
		ck, _ = epB.ExportCounter(th, 0)
	})
	c.Nodes[1].Kernel.Go("reader", func(th *freebsd.Thread) { epB.WaitBlock(th, 0, 1) })
	runThread(t, c, 0, sim.Second, func(th *freebsd.Thread) {
		epA, _ = lib.Open(th, c.Nodes[0].Driver, a)
		src, _ = a.Mmap(th, 16<<10, freebsd.ProtRW)
		a.Write(th, src, make([]byte, 16<<10))
		imp, _ := epA.Import(th, 1, epB.Index, key, 16<<10, abi.ExpKindRegion)
		ic, _ := epA.Import(th, 1, epB.Index, ck, 0, abi.ExpKindCounter)
		epA.Write(th, src, imp, 0, 16<<10, ic)
		epA.Quiet(th)
	})
	c.Run(c.Now() + 200*sim.Millisecond)
	if epB.Counter(0) != 1 {
		t.Fatal("the write did not arrive")
	}
	var buf bytes.Buffer
	if err := tl.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The timeline of one write parses as Chrome trace JSON and holds a track
// for every host thread that ran, the LANai core, both DMA channels and
// both link directions, on both nodes; two runs give the same bytes.
func TestTimeline(t *testing.T) {
	out := traceOneWrite(t)
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	tracks := map[string]bool{}
	spans := map[int]int{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			tracks[e.Args["name"].(string)+"@"+string(rune('0'+e.Pid))] = true
		}
		if e.Ph == "X" {
			spans[e.Pid*1000+e.Tid]++
		}
	}
	for _, want := range []string{"LANai core@1", "DMA ch0 (to host)@1", "DMA ch2 (from host)@0", "link tx@0", "link rx@1",
		"host netvm1 redirect@1", "host netvm1 intr@1", "host reader@1", "host test@0"} {
		if !tracks[want] {
			t.Errorf("no track %q", want)
		}
	}
	if spans[0*1000+TrackDMA2] == 0 || spans[0*1000+TrackLinkTx] == 0 || spans[1*1000+TrackDMA0] == 0 {
		t.Errorf("spans %v", spans)
	}
	if !strings.Contains(string(out), `"cpu"`) || !strings.Contains(string(out), `"wait"`) {
		t.Error("no host thread activity")
	}
	if again := traceOneWrite(t); !bytes.Equal(out, again) {
		t.Fatal("two runs gave different timelines")
	}
}
