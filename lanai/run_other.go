//go:build !amd64 || purego

package lanai

// haveThreaded reports that this build has no threaded run loop (it is
// written for amd64 only): exec runs every instruction in Go.
const haveThreaded = false

// runThreaded is never called in this build (useThreaded is false).
func runThreaded(c *CPU, sram *byte, limit uint64) threadedExit { panic("lanai: no threaded run loop") }
