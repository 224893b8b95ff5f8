package node

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/board"
	"lanaiemu/sim"
)

// A board whose fabric interactions were noted while it was not running
// (a host write of its receive limit re-arms its link between steps) and
// that then lags, sitting a lead step out, and leads the next: as a
// leader it starts where it lags, and its first run must not take the
// old interaction for one of its own (which ends the lead step after
// its first step of length Q). With sitting out on or off the world
// takes the same steps and both cores end at the same cycles.
func TestLaggingLeaderIgnoresOldNotes(t *testing.T) {
	img := buildSource(t, "straddle.s", []byte(straddleLoop))
	type seen struct {
		End0, End1, Fired1                  uint64
		Steps, Lead, Breaks, Lagged, Proved uint64
	}
	run := func(sitOut bool) (seen, Stats) {
		q, boards, w := straddleWorld(t, img, sitOut, true)
		var s seen
		c0, c1 := boards[0].CPU(), boards[1].CPU()
		mid := w.Now() + 1*sim.Microsecond + 37*sim.Nanosecond
		// The host arms node 1's receive buffer: a fabric interaction
		// noted on its link.
		q.Schedule(mid, 1, func() {
			if err := boards[1].HostWriteSpecial(board.RegRML, 0x1000); err != nil {
				t.Error(err)
			}
		})
		clk := boards[0].Clock()
		// Node 0 leads first (its event is nearer); node 1 sits that
		// step out and leads the next.
		c0.Schedule(clk.Cycles(mid+2*sim.Microsecond), func() {})
		c1.Schedule(clk.Cycles(mid+6*sim.Microsecond), func() { s.Fired1 = c1.Cycles })
		if err := w.Run(w.Now() + 12*sim.Microsecond); err != nil {
			t.Fatal(err)
		}
		st := w.Stats()
		s.End0, s.End1 = c0.Cycles, c1.Cycles
		s.Steps, s.Lead, s.Breaks, s.Lagged, s.Proved = st.Steps, st.LeadSteps, st.LeadBreaks, st.Lagged, st.ProvedSteps
		return s, st
	}
	off, _ := run(false)
	on, st := run(true)
	if off.Fired1 == 0 {
		t.Fatal("node 1's event did not run")
	}
	if d := cmp.Diff(off, on); d != "" {
		t.Errorf("sitting out changes the run (-off +on):\n%s", d)
	}
	if st.SatOut == 0 {
		t.Errorf("no board sat a lead step out")
	}
	t.Logf("off %+v, on %+v (%d sat out)", off, on, st.SatOut)
}

// A leader whose link noted an interaction just before its lead (a host
// write of its receive limit at a step's end that falls on a cycle
// boundary: the link's fabric call is made and run at that end) finds it
// after its first run and ends the lead step there: a leader that sits
// the rest of the step out (no event of its own before the step's end)
// counts the step as ended early (Stats.LeadBreaks), and one that could
// run through its event's step ends the step where its first run would
// have. With sitting out, running through or both, the cores' cycles and
// the world's steps are those with both off, with the host write and
// without it (where the leaders run through their events' steps).
func TestLeaderCountsOldNotes(t *testing.T) {
	img := buildSource(t, "straddle.s", []byte(straddleLoop))
	var sat, through uint64
	for k := range uint64(40) { // node 1's event k cycles after a step end
		for _, gap := range []uint64{10, 40} { // node 0's event after node 1's
			for _, write := range []bool{true, false} {
				var want [6]uint64
				for i, on := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
					q, boards, w := straddleWorld(t, img, on[0], on[1])
					c0, c1 := boards[0].CPU(), boards[1].CPU()
					clk := boards[0].Clock()
					mid := clk.Time(clk.Cycles(w.Now() + 1*sim.Microsecond))
					q.Schedule(mid, 1, func() {
						if !write {
							return
						}
						if err := boards[1].HostWriteSpecial(board.RegRML, 0x1000); err != nil {
							t.Error(err)
						}
					})
					x := clk.Cycles(mid+3*sim.Microsecond) + k
					c1.Schedule(x, func() {})     // node 1 leads
					c0.Schedule(x+gap, func() {}) // node 0's event bounds the lead step
					if err := w.Run(w.Now() + 12*sim.Microsecond); err != nil {
						t.Fatal(err)
					}
					st := w.Stats()
					got := [6]uint64{c0.Cycles, c1.Cycles, st.Steps, st.LeadSteps, st.LeadBreaks, st.Lagged}
					if write && st.SatOut > st.LeadSteps {
						sat++ // some lead step's two boards sat out: its leader too
					}
					if !write {
						through += st.Through
					}
					if i == 0 {
						want = got
					} else if got != want {
						t.Errorf("event %d cycles on, node 0's %d after, host write %v, sit out %v, run through %v: cycles, steps, lead steps, ended early, lagged %v, with both off %v", k, gap, write, on[0], on[1], got, want)
					}
				}
			}
		}
	}
	if sat == 0 || through == 0 {
		t.Errorf("leaders sat out %d times after the write, ran through %d without it", sat, through)
	}
}
