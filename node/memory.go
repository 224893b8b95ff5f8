package node

import (
	"fmt"

	"lanaiemu/hostbus"
	"lanaiemu/lanai"
)

// MaxMemory bounds the memory a simulation's nodes may be estimated to
// take (BoardMemory and what the caller adds): 2 GiB, so that a run fits
// with the Go runtime's own reserve and the run's growth (predecode past
// 64 KiB of code, packets, a timeline) in a 4 GiB machine or ulimit. A
// scenario or command line over it is refused before anything is built
// (docs/bad-input.md); 992 nodes at the default 2 MiB of SRAM once ran a
// process out of memory instead.
const MaxMemory = 2 << 30

// boardOverhead is what a built node takes besides its core (SRAM and
// predecode) and its host memory's frame table: the board's devices, its
// link and the world's state for it. Measured with runtime.MemStats on
// lanai-sim's worlds of 8 to 64 nodes: 137 KiB, rounded up.
const boardOverhead = 160 << 10

// BoardMemory estimates the memory, in bytes, that one node takes when
// built: a board with sramSize bytes of SRAM (0: the default) whose core
// has its first predecode arrays (lanai.MemoryFor), and a host memory of
// hostSize bytes whose frames are not yet written (hostbus.MemoryFor).
// Each host frame written during the run adds 4 KiB.
func BoardMemory(sramSize uint32, hostSize uint64) uint64 {
	return lanai.MemoryFor(sramSize) + boardOverhead + hostbus.MemoryFor(hostSize)
}

// CheckMemory refuses a run of nodes nodes estimated to take total bytes
// when that is over MaxMemory. The error gives the estimate, the share of
// one node and the bound.
func CheckMemory(nodes int, total uint64) error {
	if total <= MaxMemory {
		return nil
	}
	return fmt.Errorf("%d nodes would take an estimated %s (%s per node), more than the %s a run may take (docs/bad-input.md)",
		nodes, mib(total), mib(total/uint64(max(nodes, 1))), mib(MaxMemory))
}

// mib writes a number of bytes in MiB with one decimal.
func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
