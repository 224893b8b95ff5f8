package bench

import (
	"fmt"

	pprof "github.com/google/pprof/profile"

	"lanaiemu/lanai/profile"
	"lanaiemu/netvm/cluster"
)

// MaxNodes is the most nodes an experiment's cluster has: E8's three
// (the other experiments have two). Profiles holds at most one profile
// per node of it; netvm bench opens that many --profile files before the
// run.
const MaxNodes = 3

// Profiles collects the boards' cycle profiles of every cluster a bench
// run builds (Config.Profiles; docs/profiling.md), node by node, from the
// moment each cluster has booted.
type Profiles struct {
	byNode [][]*profile.Profiler
}

// attach profiles the boards of cl, if ps is not nil.
func (ps *Profiles) attach(cl *cluster.Cluster) error {
	if ps == nil {
		return nil
	}
	profs, err := cl.Profile()
	if err != nil {
		return err
	}
	if len(profs) > MaxNodes {
		return fmt.Errorf("profiles: a cluster of %d nodes, more than MaxNodes (%d)", len(profs), MaxNodes)
	}
	for i, p := range profs {
		for len(ps.byNode) <= i {
			ps.byNode = append(ps.byNode, nil)
		}
		ps.byNode[i] = append(ps.byNode[i], p)
	}
	return nil
}

// Merged returns one profile per node, the sum over every cluster of the
// run; hz is the LANai's clock.
func (ps *Profiles) Merged(hz uint64) ([]*pprof.Profile, error) {
	var out []*pprof.Profile
	for i, profs := range ps.byNode {
		var parts []*pprof.Profile
		for _, p := range profs {
			parts = append(parts, p.Profile(hz))
		}
		m, err := pprof.Merge(parts)
		if err != nil {
			return nil, fmt.Errorf("node %d's profiles: %w", i, err)
		}
		out = append(out, m)
	}
	return out, nil
}
