// Package timeline writes what happened in a simulation as a Chrome
// trace-event JSON file (the format Perfetto and chrome://tracing open): a
// process per node (and one for the fabric), a track per engine (CPU busy
// and idle, each DMA channel, each link), spans for what took time and
// instants for what happened at a point, all in simulated time.
//
// The output is deterministic: events are written in the order they were
// recorded, with times printed from integer picoseconds. A recorder keeps
// its events in memory until Write or, streaming (Recorder.Stream), writes
// each as it is recorded, so that a long run's timeline does not stay in
// memory; both give the same bytes.
package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
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

// Recorder collects events in memory until Write or, streaming
// (Stream), writes each one as it is recorded and keeps only the names.
type Recorder struct {
	procs   map[int]string
	threads map[Track]string
	events  []event // in memory (not streaming)
	out     Body    // streaming: the events go here
	n       int     // events recorded
	err     error   // the first error streaming
}

// Body is where a streaming recorder writes its events as the run goes,
// the head (the names) coming before them at the end (outfile.Stream from
// StreamHeadLast).
type Body interface {
	io.Writer
	Finish(head []byte) error
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

// Stream makes r write each event to body as it is recorded, instead of
// keeping it, so that its memory does not grow with the run; End writes
// the rest. The file's bytes are those Write gives. Call it before
// recording anything.
func (r *Recorder) Stream(body Body) { r.out = body }

// End ends a streaming recorder's file: the closing bracket after the
// events, and the head (the process and track names) before them. Its
// error is the first of the stream's.
func (r *Recorder) End() error {
	if r.out == nil {
		return errors.New("timeline: End of a recorder that is not streaming (Write writes its file)")
	}
	if r.err == nil {
		_, r.err = io.WriteString(r.out, tail)
	}
	if err := r.out.Finish(r.head()); r.err == nil {
		r.err = err
	}
	return r.err
}

// Err is the first error writing a streaming recorder's events (nil for
// one in memory, or for nil).
func (r *Recorder) Err() error {
	if r == nil {
		return nil
	}
	return r.err
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
	r.record(event{name: name, cat: cat, ph: "X", track: t, ts: start, dur: end - start, args: args})
}

// Instant records something that happened at a point in time.
func (r *Recorder) Instant(t Track, cat, name string, at sim.Time, args map[string]any) {
	r.record(event{name: name, cat: cat, ph: "i", track: t, ts: at, args: args})
}

// record keeps e, or writes it to the stream (after the separator from
// the event before).
func (r *Recorder) record(e event) {
	r.n++
	if r.out == nil {
		r.events = append(r.events, e)
		return
	}
	if r.err != nil {
		return
	}
	if r.n > 1 {
		_, r.err = io.WriteString(r.out, sep)
	}
	if r.err == nil {
		r.err = e.write(r.out)
	}
}

// Len is the number of events recorded.
func (r *Recorder) Len() int { return r.n }

// micros prints picoseconds as microseconds with six decimals, exactly.
func micros(t sim.Time) string {
	return fmt.Sprintf("%d.%06d", uint64(t)/1_000_000, uint64(t)%1_000_000)
}

// The file: header, the names and the events separated by sep, tail.
const (
	header = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
	sep    = ",\n"
	tail   = "\n]}\n"
)

// head is what comes before the events: the header and the names, sorted
// (with the separator before the first event, if any).
func (r *Recorder) head() []byte {
	var b bytes.Buffer
	b.WriteString(header)
	first := true
	next := func() {
		if !first {
			b.WriteString(sep)
		}
		first = false
	}
	var pids []int
	for p := range r.procs {
		pids = append(pids, p)
	}
	sort.Ints(pids)
	for _, p := range pids {
		next()
		name, _ := json.Marshal(r.procs[p])
		fmt.Fprintf(&b, `{"name":"process_name","ph":"M","pid":%d,"tid":0,"args":{"name":%s}}`, p, name)
	}
	var tracks []Track
	for t := range r.threads {
		tracks = append(tracks, t)
	}
	sort.Slice(tracks, func(i, j int) bool {
		return tracks[i].Process < tracks[j].Process || tracks[i].Process == tracks[j].Process && tracks[i].Thread < tracks[j].Thread
	})
	for _, t := range tracks {
		next()
		name, _ := json.Marshal(r.threads[t])
		fmt.Fprintf(&b, `{"name":"thread_name","ph":"M","pid":%d,"tid":%d,"args":{"name":%s}}`, t.Process, t.Thread, name)
	}
	if !first && r.n > 0 {
		b.WriteString(sep)
	}
	return b.Bytes()
}

// write writes the event as a JSON object.
func (e *event) write(w io.Writer) error {
	name, _ := json.Marshal(e.name)
	cat, _ := json.Marshal(e.cat)
	_, err := fmt.Fprintf(w, `{"name":%s,"cat":%s,"ph":"%s","pid":%d,"tid":%d,"ts":%s`, name, cat, e.ph, e.track.Process, e.track.Thread, micros(e.ts))
	if err == nil && e.ph == "X" {
		_, err = fmt.Fprintf(w, `,"dur":%s`, micros(e.dur))
	} else if err == nil {
		_, err = io.WriteString(w, `,"s":"t"`)
	}
	if err == nil && len(e.args) > 0 {
		args, jerr := json.Marshal(e.args) // map keys are sorted: deterministic
		if jerr != nil {
			return jerr
		}
		_, err = fmt.Fprintf(w, `,"args":%s`, args)
	}
	if err == nil {
		_, err = io.WriteString(w, "}")
	}
	return err
}

// Write writes the trace of a recorder in memory as JSON.
func (r *Recorder) Write(w io.Writer) error {
	if r.out != nil {
		return errors.New("timeline: Write of a streaming recorder (End writes its file)")
	}
	bw := bufio.NewWriter(w)
	bw.Write(r.head())
	for i := range r.events {
		if i > 0 {
			bw.WriteString(sep)
		}
		if err := r.events[i].write(bw); err != nil {
			return err
		}
	}
	bw.WriteString(tail)
	return bw.Flush()
}
