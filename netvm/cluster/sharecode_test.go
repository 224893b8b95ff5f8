package cluster

import (
	"testing"

	"lanaiemu/lanai"
	"lanaiemu/sim"
)

// The boards of a cluster share their predecoded firmware, one SharedCode
// per goroutine that runs them (Config.Jobs), and keep sharing while the
// firmware runs busy (a stream from node 0 to node 1; it never writes its
// code).
func TestBoardsShareCode(t *testing.T) {
	for _, jobs := range []int{1, 2} {
		c, err := New(Config{Nodes: 8, Frames: 256, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		epB := streamOn(t, c)
		if err := c.Run(c.Now() + 2*sim.Millisecond); err != nil {
			t.Fatal(err)
		}
		if epB.Counter(0) == 0 {
			t.Fatalf("jobs %d: no WRITE arrived", jobs)
		}
		sets := map[*lanai.SharedCode]int{}
		for _, n := range c.Nodes {
			s := n.Board.CPU().SharedCode()
			if s == nil {
				t.Fatalf("jobs %d: node %d shares no code", jobs, n.ID)
			}
			sets[s]++
		}
		if len(sets) != jobs {
			t.Errorf("jobs %d: %d shared sets", jobs, len(sets))
		}
		for s, n := range sets {
			if s.Members() != n || n != 8/jobs {
				t.Errorf("jobs %d: a set of %d members, %d nodes in it", jobs, s.Members(), n)
			}
		}
		c.World.SetJobs(3 - jobs) // regroups the cores
		sets = map[*lanai.SharedCode]int{}
		for _, n := range c.Nodes {
			sets[n.Board.CPU().SharedCode()]++
		}
		if len(sets) != 3-jobs {
			t.Errorf("jobs %d then %d: %d shared sets", jobs, 3-jobs, len(sets))
		}
		c.Shutdown()
	}
}
