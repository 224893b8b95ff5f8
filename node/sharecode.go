package node

import "lanaiemu/lanai"

// ShareCode makes the cores of the boards that run on one goroutine
// (Config.Jobs, the crew's shares) share their predecoded code
// (lanai.SharedCode): boards loaded with one firmware then keep one copy
// of its predecode in the host's caches, not one each. A core whose code
// differs keeps its own; a SharedCode is never used by two goroutines at
// once. Call it after the boards are loaded; SetJobs regroups the cores.
// The results do not depend on it.
func (w *World) ShareCode() {
	w.codeShared = true
	jobs := min(w.Jobs(), len(w.Nodes))
	for k := range jobs {
		lo, hi := share(k, len(w.Nodes), jobs)
		s := &lanai.SharedCode{}
		for _, n := range w.Nodes[lo:hi] {
			n.cpu.ShareCode(s)
		}
	}
}

// share is the nodes [lo, hi) of n that goroutine k of jobs runs (the
// crew's shares, contiguous).
func share(k, n, jobs int) (lo, hi int) { return k * n / jobs, (k + 1) * n / jobs }
