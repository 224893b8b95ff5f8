package node

import (
	"testing"
	"unsafe"

	"lanaiemu/lanai"
	"lanaiemu/lanai/profile"
	"lanaiemu/sim"
)

// countObserver counts the instructions it is told of.
type countObserver struct{ n uint64 }

func (o *countObserver) Observe(*lanai.CPU, *profile.Step) { o.n++ }

// The world calls a board's core directly only while the board says its
// Run is the core's (board.Board.Direct): a board held in reset or
// observed after the world was made runs through the board. Were the
// world's note of it stale, a held board would execute instructions and an
// observer would miss them.
func TestRunHookKeepsDirect(t *testing.T) {
	s := world(t, build(t, "pingpong.s"), []map[string]uint32{{"role": 0, "iters": 1000, "len": 32}, {"role": 1, "iters": 1000, "len": 32}})
	b := s.w.Nodes[1].Board
	cpu := b.CPU()
	run(t, s, 20*sim.Microsecond)

	b.SetReset(true)
	i0, c0, k0 := cpu.Instret, cpu.Cycles, cpu.SkippedCycles
	run(t, s, 40*sim.Microsecond)
	if cpu.Instret != i0 || cpu.Cycles-c0 != cpu.SkippedCycles-k0 || cpu.Cycles == c0 {
		t.Fatalf("held in reset: %d instructions, %d cycles, %d skipped", cpu.Instret-i0, cpu.Cycles-c0, cpu.SkippedCycles-k0)
	}

	b.SetReset(false)
	var o countObserver
	b.Observe(&o)
	i0 = cpu.Instret
	run(t, s, 60*sim.Microsecond)
	if cpu.Instret == i0 || o.n == 0 || o.n > cpu.Instret-i0 {
		t.Fatalf("released and observed: %d instructions, the observer saw %d", cpu.Instret-i0, o.n)
	}
	for _, n := range s.w.Nodes {
		if n.direct != n.Board.Direct() {
			t.Fatalf("node %d: the world notes direct %v, the board says %v", n.ID, n.direct, n.Board.Direct())
		}
	}
}

// The world asks a link's NextSync again only after the link noted that
// its send records changed (board.LinkNotes.SyncStale): after every step
// of a stream of short packets, what the world keeps is what the link
// says. Were a change not noted, a step would end past a packet's local
// end (and the counts still pass most other tests).
func TestLinkNotesKeepNextSync(t *testing.T) {
	p := map[string]uint32{"iters": 200, "len": 256, "bufsize": 65536 + 8}
	q := map[string]uint32{"role": 1, "iters": 200, "len": 256, "bufsize": 65536 + 8}
	s := world(t, build(t, "stream.s"), []map[string]uint32{p, q})
	Q := s.w.Fabric.MinLatency()
	var checked, inFlight int
	for s.w.Running() && s.w.Now() < 10*sim.Millisecond {
		run(t, s, s.w.Now()+Q)
		for _, n := range s.w.Nodes {
			if n.notes.SyncStale {
				continue
			}
			checked++
			if want := n.link.NextSync(); n.sync != want {
				t.Fatalf("node %d at %v: the world keeps NextSync %v, the link says %v", n.ID, s.w.Now(), n.sync, want)
			}
			if n.sync != sim.Never {
				inFlight++
			}
		}
	}
	st := s.w.Stats()
	if !st.Nodes[0].Exited || st.Nodes[1].Link.PacketsRecv != 200 {
		t.Fatalf("stream did not finish: %+v", st.Nodes)
	}
	if checked == 0 || inFlight == 0 {
		t.Fatalf("checked %d steps' NextSync, %d with a packet in flight: the test saw nothing", checked, inFlight)
	}
	t.Logf("%d checks, %d with a packet in flight", checked, inFlight)
}

// A member is what every step reads of every board that does not lag
// besides the board's run: it stays within two cache lines.
func TestMemberFitsTwoLines(t *testing.T) {
	if size := unsafe.Sizeof(Member{}); size > 128 {
		t.Fatalf("Member is %d bytes, more than two cache lines", size)
	}
}
