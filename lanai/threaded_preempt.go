package lanai

// Go cannot preempt a goroutine inside assembly, and the few Go
// instructions between two slices of the threaded loop are almost never
// where a preemption signal lands: a goroutine spinning in the guest kept
// every garbage collection (which stops the world) waiting for the end of
// its run. exec calls preemptPoint between slices (threadedSlice cycles):
// its stack check is where the runtime stops a goroutine it asked to stop
// (cooperative preemption), at the cost of two calls per slice.

// preemptPoint is a function the compiler gives a stack check (it calls
// another, so it is not a leaf, which would get none).
//
//go:noinline
func preemptPoint() { preemptLeaf() }

// preemptLeaf does nothing: preemptPoint's call.
//
//go:noinline
func preemptLeaf() {}
