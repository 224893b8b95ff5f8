package timeline

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/sim"
)

func TestWrite(t *testing.T) {
	build := func() []byte {
		r := New()
		r.NameProcess(1, "node 1")
		r.NameTrack(Track{1, 1}, "cpu")
		r.NameTrack(Track{1, 2}, "dma0")
		r.Span(Track{1, 1}, "cpu", "busy", 0, 1500*sim.Nanosecond, nil)
		r.Span(Track{1, 2}, "dma", "host->sram", 7518, 2*sim.Microsecond+1, map[string]any{"bytes": 4096, "desc": "0x100"})
		r.Instant(Track{1, 1}, "isr", "RECV", 3*sim.Microsecond, nil)
		var b bytes.Buffer
		if err := r.Write(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	out := build()
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.TraceEvents) != 6 {
		t.Errorf("%d events", len(doc.TraceEvents))
	}
	dma := doc.TraceEvents[4]
	if dma["ts"].(float64) != 0.007518 || dma["dur"].(float64) != 1.992483 || dma["ph"] != "X" {
		t.Errorf("dma span %v", dma)
	}
	if d := cmp.Diff(string(out), string(build())); d != "" {
		t.Errorf("not deterministic (-first +second):\n%s", d)
	}
}
