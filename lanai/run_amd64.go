//go:build amd64 && !purego

package lanai

// haveThreaded reports that this build has the threaded run loop in
// assembly (run_amd64.s); build with -tags purego to leave it out.
const haveThreaded = true

// runThreaded runs the common instructions from c's state (c.NNPC is
// c.NPC+4) until the cycle count reaches limit, or an instruction the
// threaded loop does not do, or one of its fast conditions fails, comes
// next (run_amd64.s). It writes the state back and says which; a return
// whose first delay slot it leaves to Go hands over after the return
// (c.NNPC its target), as exec's Go loop does.
//
//go:noescape
func runThreaded(c *CPU, sram *byte, limit uint64) threadedExit

// fillThreadedHand writes the hand-over to Go into every entry of t, then
// the handlers written in run_amd64.s; fillThreadedGen the generated ones
// (run_gen_amd64.s).
//
//go:noescape
func fillThreadedHand(t *[opCount]uintptr)

//go:noescape
func fillThreadedGen(t *[opCount]uintptr)

func init() {
	fillThreadedHand(&threadedTable)
	fillThreadedGen(&threadedTable)
}
