package lanai

import (
	"unsafe"

	"lanaiemu/isa"
	"lanaiemu/memsys"
)

// MemoryFor is the memory, in bytes, that New allocates for a core with
// sramSize bytes of SRAM: the SRAM and the predecode arrays at their first
// size (they grow, doubling, only as the core runs code past the first
// 64 KiB). Estimates of a cluster's memory (node.BoardMemory) start from it.
func MemoryFor(sramSize uint32) uint64 {
	if sramSize == 0 {
		sramSize = memsys.DefaultSRAMSize
	}
	n := uint64(min(sramSize/4, initialUops))
	perWord := uint64(unsafe.Sizeof(uop{}) + unsafe.Sizeof(isa.Inst{}) + unsafe.Sizeof(op(0)) + 1) // pre, ins, decoded, poll
	chunks := (uint64(sramSize) + codeChunk - 1) / codeChunk
	return uint64(sramSize) + n*perWord + (chunks+63)/64*8
}
