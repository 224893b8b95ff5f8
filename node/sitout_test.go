package node

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/sim"
)

// straddleSeen is what TestSitOutAndRunThroughAtEveryPhase compares: the
// cycles of both cores when the shared-queue event that node 0's core
// event scheduled runs (the step's end: node 0 led up to it, node 1 sat
// the step out or ran there, and is caught up before an event of its
// own), then their cycles and the world's steps at the end.
type straddleSeen struct {
	Fired, At0, At1, Mid0, Mid1 uint64
	End0, End1                  uint64
	Steps, Lead, Breaks, Lagged uint64
	SatOut, Through             uint64
}

// Boards that sit out lead steps (World.SetSitOut) and leaders that run
// through the step of their next event (SetRunThrough) change nothing
// where it is closest: two boards in straddleLoop, whose three-cycle
// instruction straddles step ends, node 0 with a core event that acts
// outside (it schedules a shared-queue event for node 1) at each of 60
// consecutive cycles, so at every phase of the loop against the step
// grid and at every distance from a step end. Node 0 leads a step towards
// the event; with either shortcut on, both cores are at the same cycles
// when the shared event runs, and at the end, and the world took the
// same steps, as with both off. A leader that ran through the step after
// a step end one or two cycles before its event would end its lead one
// step late when the straddling instruction ran the event in the step
// before (through's margin); a board sat out whose run the shared event
// does not bring to the step's end would be behind.
func TestSitOutAndRunThroughAtEveryPhase(t *testing.T) {
	var imgs [8][]byte // the loop entered p cycles later (p nops first)
	for p := range imgs {
		src := strings.Replace(straddleLoop, "_start:\n", "_start:\n"+strings.Repeat("\tnop\n", p), 1)
		imgs[p] = buildSource(t, "straddle.s", []byte(src))
	}
	run := func(p, d uint64, outside, sitOut, through bool) straddleSeen {
		q, boards, w := straddleWorld(t, imgs[p], sitOut, through)
		c0, c1 := boards[0].CPU(), boards[1].CPU()
		if !c0.Polling() || !c1.Polling() {
			t.Fatal("the loops are not proved")
		}
		var s straddleSeen
		clk := boards[0].Clock()
		c0.Schedule(c0.Cycles+300+d, func() { s.Fired = c0.Cycles })
		c0.Schedule(c0.Cycles+360+d, func() {
			if outside {
				q.Schedule(clk.Time(c0.Cycles), 1, func() { s.At0, s.At1 = c0.Cycles, c1.Cycles })
			}
		})
		// Shared events of each node in mid-run: the lead step ends
		// before them, and each brings its own board to its step's end.
		mid := w.Now() + 5*sim.Microsecond + 37*sim.Nanosecond
		q.Schedule(mid, 0, func() { s.Mid0 = c0.Cycles })
		q.Schedule(mid, 1, func() { s.Mid1 = c1.Cycles })
		if err := w.Run(w.Now() + 10*sim.Microsecond); err != nil {
			t.Fatal(err)
		}
		st := w.Stats()
		s.End0, s.End1 = c0.Cycles, c1.Cycles
		s.Steps, s.Lead, s.Breaks, s.Lagged = st.Steps, st.LeadSteps, st.LeadBreaks, st.Lagged
		s.SatOut, s.Through = st.SatOut, st.Through
		return s
	}
	var satOut, through uint64
	for p := range uint64(8) {
		for d := range uint64(15) {
			for _, outside := range []bool{true, false} {
				want := run(p, d, outside, false, false)
				if outside && want.At0 == 0 || want.Lead == 0 || want.Mid0 == 0 {
					t.Fatalf("p %d, d %d: a shared event did not run (%d, %d) or no lead step (%d)", p, d, want.At0, want.Mid0, want.Lead)
				}
				for _, on := range [][2]bool{{true, false}, {false, true}, {true, true}} {
					got := run(p, d, outside, on[0], on[1])
					satOut += got.SatOut
					through += got.Through
					got.SatOut, got.Through = 0, 0
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("p %d, d %d, acting outside %v, sit out %v, run through %v (-both off +on):\n%s", p, d, outside, on[0], on[1], diff)
					}
				}
			}
		}
	}
	if satOut == 0 || through == 0 {
		t.Fatalf("boards sat out %d steps, leaders ran through %d: the shortcuts were not tried", satOut, through)
	}
	t.Logf("boards sat out %d steps, leaders ran through %d", satOut, through)
}

// straddleWorld makes a world of two boards that run img (straddleLoop
// or a variant), each core with an event far off for its loop to wait
// for, steps of one link latency (no idle growth: steps of Q, proved and
// lead), sitting out and running through set as given, and runs it for
// 20 us (the loops are proved by then).
func straddleWorld(t *testing.T, img []byte, sitOut, through bool) (*sim.Queue, []*board.Board, *World) {
	t.Helper()
	q := &sim.Queue{}
	f, err := fabric.BackToBack(q, nil, fabric.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	boards := []*board.Board{waitingBoard(t, img), waitingBoard(t, img)}
	w, err := New(q, f, boards, Config{MaxIdleStep: f.MinLatency()})
	if err != nil {
		t.Fatal(err)
	}
	w.SetSitOut(sitOut)
	w.SetRunThrough(through)
	if err := w.Run(20 * sim.Microsecond); err != nil {
		t.Fatal(err)
	}
	return q, boards, w
}

// waitingBoard is a board loaded with img whose core has an event far off,
// something for a polling loop to wait for.
func waitingBoard(t *testing.T, img []byte) *board.Board {
	t.Helper()
	b, err := board.New(board.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Load(img); err != nil {
		t.Fatal(err)
	}
	b.CPU().Schedule(1<<40, func() {})
	return b
}
