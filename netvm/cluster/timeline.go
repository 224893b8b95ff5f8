package cluster

import (
	"fmt"

	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/internal/timeline"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/sim"
)

// Timeline tracks of a node (the process is the node's id).
const (
	TrackCore   = 1   // the LANai core: packets stored, host interrupts raised
	TrackDMA0   = 2   // DMA channel 0: SRAM to host
	TrackDMA2   = 3   // DMA channel 2: host to SRAM
	TrackLinkTx = 4   // the link, sending
	TrackLinkRx = 5   // the link, receiving
	TrackThread = 100 // + a host thread's ID
)

// boardRecorder turns one board's device events into timeline spans.
type boardRecorder struct {
	tl    *timeline.Recorder
	n     *Node
	start [4]sim.Time // a channel's current block began (its fetch)
	bytes [4]uint32
}

func newBoardRecorder(tl *timeline.Recorder, n *Node) *boardRecorder {
	tl.NameProcess(n.ID, fmt.Sprintf("node %d", n.ID))
	for _, t := range []struct {
		id   int
		name string
	}{{TrackCore, "LANai core"}, {TrackDMA0, "DMA ch0 (to host)"}, {TrackDMA2, "DMA ch2 (from host)"},
		{TrackLinkTx, "link tx"}, {TrackLinkRx, "link rx"}} {
		tl.NameTrack(timeline.Track{Process: n.ID, Thread: t.id}, t.name)
	}
	return &boardRecorder{tl: tl, n: n}
}

func (r *boardRecorder) track(t int) timeline.Track {
	return timeline.Track{Process: r.n.ID, Thread: t}
}

func (r *boardRecorder) event(e board.Event) {
	b := r.n.Board
	at := b.Clock().Time(e.Cycle)
	switch e.Kind {
	case board.EvDMAFetch:
		if e.Channel >= 0 && e.Channel < 4 {
			r.start[e.Channel], r.bytes[e.Channel] = at, e.Bytes
		}
	case board.EvDMADone:
		if e.Channel == 0 || e.Channel == 2 {
			t := TrackDMA0
			if e.Channel == 2 {
				t = TrackDMA2
			}
			r.tl.Span(r.track(t), "dma", fmt.Sprintf("%d B", r.bytes[e.Channel]), r.start[e.Channel], at, nil)
		}
	case board.EvSend:
		end := at + fabric.WireTime(int(e.Bytes), b.Link().Rate())
		r.tl.Span(r.track(TrackLinkTx), "link", fmt.Sprintf("packet %d B", e.Bytes), at, end, nil)
	case board.EvRecv:
		r.tl.Instant(r.track(TrackLinkRx), "link", fmt.Sprintf("stored %d B", e.Bytes), at, nil)
	case board.EvIRQ:
		if e.Level {
			r.tl.Instant(r.track(TrackCore), "irq", "host interrupt", at, nil)
		}
	}
}

// traceThreads records a node's host threads: a track per thread, a span
// per stretch of CPU, sleep or wait.
func traceThreads(tl *timeline.Recorder, n *Node) {
	named := map[int]bool{}
	n.Kernel.Trace = func(t *freebsd.Thread, what string, start, end sim.Time) {
		tr := timeline.Track{Process: n.ID, Thread: TrackThread + t.ID}
		if !named[t.ID] {
			named[t.ID] = true
			tl.NameTrack(tr, fmt.Sprintf("host %s", t.Name))
		}
		tl.Span(tr, "host", what, start, end, nil)
	}
}
