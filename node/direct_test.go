package node

import (
	"testing"

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
