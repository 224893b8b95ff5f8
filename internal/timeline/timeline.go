// Package timeline writes what happened in a simulation as a Chrome
// trace-event JSON file (the format Perfetto and chrome://tracing open): a
// process per node (and one for the fabric), a track per engine (CPU busy
// and idle, each DMA channel, each link), spans for what took time and
// instants for what happened at a point, all in simulated time.
//
// The output is deterministic: events are written in the order they were
// recorded, with times printed from integer picoseconds.
package timeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"lanaiemu/sim"
)

// Track names a row of the timeline: a process (a node, the fabric) and a
// thread within it (an engine).
type Track struct {
	Process int
	Thread  int
}

// Recorder collects events in memory until Write.
type Recorder struct {
	procs   map[int]string
	threads map[Track]string
	events  []event
}

type event struct {
	name, cat, ph string
	track         Track
	ts, dur       sim.Time
	args          map[string]any
}

// New makes an empty recorder.
func New() *Recorder {
	return &Recorder{procs: map[int]string{}, threads: map[Track]string{}}
}

// NameProcess names a process (a node or the fabric).
func (r *Recorder) NameProcess(pid int, name string) { r.procs[pid] = name }

// NameTrack names a thread of a process (an engine).
func (r *Recorder) NameTrack(t Track, name string) { r.threads[t] = name }

// Span records something that took time on a track, from start to end.
func (r *Recorder) Span(t Track, cat, name string, start, end sim.Time, args map[string]any) {
	if end < start {
		end = start
	}
	r.events = append(r.events, event{name: name, cat: cat, ph: "X", track: t, ts: start, dur: end - start, args: args})
}

// Instant records something that happened at a point in time.
func (r *Recorder) Instant(t Track, cat, name string, at sim.Time, args map[string]any) {
	r.events = append(r.events, event{name: name, cat: cat, ph: "i", track: t, ts: at, args: args})
}

// Len is the number of events recorded.
func (r *Recorder) Len() int { return len(r.events) }

// micros prints picoseconds as microseconds with six decimals, exactly.
func micros(t sim.Time) string {
	return fmt.Sprintf("%d.%06d", uint64(t)/1_000_000, uint64(t)%1_000_000)
}

// Write writes the trace as JSON.
func (r *Recorder) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
	first := true
	sep := func() {
		if !first {
			bw.WriteString(",\n")
		}
		first = false
	}
	var pids []int
	for p := range r.procs {
		pids = append(pids, p)
	}
	sort.Ints(pids)
	for _, p := range pids {
		sep()
		name, _ := json.Marshal(r.procs[p])
		fmt.Fprintf(bw, `{"name":"process_name","ph":"M","pid":%d,"tid":0,"args":{"name":%s}}`, p, name)
	}
	var tracks []Track
	for t := range r.threads {
		tracks = append(tracks, t)
	}
	sort.Slice(tracks, func(i, j int) bool {
		return tracks[i].Process < tracks[j].Process || tracks[i].Process == tracks[j].Process && tracks[i].Thread < tracks[j].Thread
	})
	for _, t := range tracks {
		sep()
		name, _ := json.Marshal(r.threads[t])
		fmt.Fprintf(bw, `{"name":"thread_name","ph":"M","pid":%d,"tid":%d,"args":{"name":%s}}`, t.Process, t.Thread, name)
	}
	for _, e := range r.events {
		sep()
		name, _ := json.Marshal(e.name)
		cat, _ := json.Marshal(e.cat)
		fmt.Fprintf(bw, `{"name":%s,"cat":%s,"ph":"%s","pid":%d,"tid":%d,"ts":%s`, name, cat, e.ph, e.track.Process, e.track.Thread, micros(e.ts))
		if e.ph == "X" {
			fmt.Fprintf(bw, `,"dur":%s`, micros(e.dur))
		} else {
			bw.WriteString(`,"s":"t"`)
		}
		if len(e.args) > 0 {
			args, err := json.Marshal(e.args) // map keys are sorted: deterministic
			if err != nil {
				return err
			}
			fmt.Fprintf(bw, `,"args":%s`, args)
		}
		bw.WriteString("}")
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}
