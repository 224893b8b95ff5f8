package lanai

import (
	"unsafe"

	"lanaiemu/isa"
)

// The threaded run loop (run_amd64.s) runs the common instructions of
// exec's fast path: one handler per op, each ending in the dispatch of the
// next instruction through threadedTable (an indirect jump per handler, not
// one shared by every case as the Go switch has), with the loop's state
// in machine registers. Anything else it hands back to exec, which runs
// that one instruction in Go and calls it again (docs/performance.md,
// "Twelfth pass").

// useThreaded makes exec use the threaded loop; tests turn it off to run
// the Go loop, the reference the threaded one is compared with.
var useThreaded = haveThreaded

// The assembly assumes these sizes (run_amd64.h: NEXT and RECORD index by
// shifts, CODE divides by codeChunk, RECORD wraps the ring with a mask):
// a change fails to compile here.
var (
	_ [unsafe.Sizeof(uop{}) - 16]struct{}
	_ [16 - unsafe.Sizeof(uop{})]struct{}
	_ [unsafe.Sizeof(transfer{}) - 16]struct{}
	_ [16 - unsafe.Sizeof(transfer{})]struct{}
	_ [codeChunk - 256]struct{}
	_ [256 - codeChunk]struct{}
	_ [-(historySize & (historySize - 1))]struct{}
)

// threadedSlice is the most cycles one call of runThreaded runs: Go cannot
// preempt assembly, so a garbage collection waits for it to return.
const threadedSlice = 1 << 14

// threadedExit says why runThreaded returned.
type threadedExit uint64

const (
	threadedLimit threadedExit = iota // the cycle count reached the limit
	threadedHand                      // the next instruction is for execSlow
	threadedIO                        // the next instruction is for accessIO
)

// threadedTable is the address of each op's handler in run_amd64.s (the
// hand-over's for the ops it leaves to Go), filled by fillThreadedHand and
// fillThreadedGen.
var threadedTable [opCount]uintptr

// condTable is isa.Cond.Holds as a table for the threaded loop:
// condTable[c] has bit f set when condition c holds for flags f.
var condTable = func() (t [16]uint16) {
	for c := isa.Cond(0); c < 16; c++ {
		for f := isa.Flags(0); f < 16; f++ {
			if c.Holds(f) {
				t[c] |= 1 << f
			}
		}
	}
	return t
}()
