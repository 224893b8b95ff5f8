package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
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

// body is a Body in memory that counts the bytes it got before Finish.
type body struct {
	bytes.Buffer
	head     []byte
	finished bool
}

func (b *body) Finish(head []byte) error { b.head, b.finished = head, true; return nil }

// record records n events and names, some names after the events that
// use them (as a DMA channel's track is named at its first block).
func record(r *Recorder, n int) {
	r.NameProcess(2, "node 1")
	r.NameProcess(1, "node \"0\"")
	r.NameTrack(Track{1, 0}, "cpu")
	for i := range n {
		tr := Track{1 + i%2, i % 3}
		r.Span(tr, "cpu", fmt.Sprintf("span %d", i), sim.Time(i)*sim.Nanosecond, sim.Time(i+7)*sim.Nanosecond, map[string]any{"i": i})
		r.Instant(tr, "isr", "<bit>", sim.Time(i)*sim.Nanosecond+3, nil)
		if i == n/2 {
			r.NameTrack(Track{2, 2}, "dma ch1")
		}
	}
}

// A streaming recorder gives the bytes Write gives (names after events,
// no names at all, no events), writes each event as it is recorded
// rather than keeping it, and puts the names in the head at End.
func TestStreamSameBytes(t *testing.T) {
	for _, c := range []struct {
		events int
		names  bool
	}{{0, true}, {0, false}, {1, false}, {1, true}, {1000, true}} {
		mem, str := New(), New()
		var b body
		str.Stream(&b)
		if c.names {
			record(mem, c.events)
			record(str, c.events)
		} else {
			for i := range c.events {
				mem.Instant(Track{1, 1}, "x", "y", sim.Time(i), nil)
				str.Instant(Track{1, 1}, "x", "y", sim.Time(i), nil)
			}
		}
		if str.Len() != mem.Len() || len(str.events) != 0 {
			t.Errorf("%+v: Len %d, want %d; %d events kept", c, str.Len(), mem.Len(), len(str.events))
		}
		if c.events == 1000 && b.Len() < 100*c.events {
			t.Errorf("%+v: the body got %d bytes before End", c, b.Len())
		}
		if err := str.End(); err != nil || !b.finished {
			t.Fatalf("End: %v (finished %v)", err, b.finished)
		}
		var want bytes.Buffer
		if err := mem.Write(&want); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.String(), string(b.head)+b.String()); d != "" {
			t.Errorf("%+v: streamed (-Write +stream):\n%.2000s", c, d)
		}
	}
}

// A streaming recorder's memory does not grow with its events: 200,000
// events (with their args) kept 54 MB in memory until Write.
func TestStreamBoundedMemory(t *testing.T) {
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	r := New()
	r.Stream(discard{})
	before := heap()
	record(r, 100_000)
	after := heap()
	if grew := int64(after) - int64(before); grew > 1<<20 {
		t.Errorf("200,000 events streamed: the live heap grew by %d bytes", grew)
	}
	runtime.KeepAlive(r)
}

// discard is a Body that keeps nothing.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Finish([]byte) error         { return nil }

// The first error writing the stream stops its writing and is End's.
func TestStreamError(t *testing.T) {
	r := New()
	w := &failing{after: 3}
	r.Stream(w)
	record(r, 10)
	if r.Err() == nil || w.writes > 4 {
		t.Errorf("Err %v after %d writes", r.Err(), w.writes)
	}
	if err := r.End(); err != r.Err() {
		t.Errorf("End: %v", err)
	}
	if New().End() == nil {
		t.Error("End of a recorder in memory succeeded")
	}
	if (*Recorder)(nil).Err() != nil {
		t.Error("a nil recorder has an error")
	}
}

type failing struct{ after, writes int }

func (f *failing) Write(p []byte) (int, error) {
	if f.writes++; f.writes > f.after {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}
func (f *failing) Finish([]byte) error { return nil }
