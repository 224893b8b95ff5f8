package cluster

import (
	"fmt"
	"unsafe"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/driver"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/node"
)

// MaxStarNodes is the most nodes a cluster hangs from one switch; more
// form a Clos of 8-node leaves and 8 spines.
const MaxStarNodes = 16

// driverPages bounds the host pages the driver takes before the VM's
// frames (driver.LayoutFor at abi.MaxNodes and abi.MaxCredits: status,
// completion and event pages and the system buffer; TestMaxFrames).
const driverPages = 1024

// MaxFrames is the most VM memory a host may have, in pages: the 32-bit
// host's 4 GiB of physical memory less the driver's pages.
const MaxFrames = 1<<20 - driverPages

// CheckNodes refuses a number of nodes New cannot wire: 2..16 hang from
// one switch, more must be a multiple of 8 (a Clos of 8-node leaves) up
// to abi.MaxNodes. netvm run, stress and New share it.
func CheckNodes(n int) error {
	if n < 2 || n > abi.MaxNodes || n > MaxStarNodes && n%8 != 0 {
		return fmt.Errorf("%d nodes: 2..%d, or a multiple of 8 up to %d (a Clos of 8-node leaves)", n, MaxStarNodes, abi.MaxNodes)
	}
	return nil
}

// CheckFrames refuses a host's VM memory in pages outside 1..MaxFrames.
func CheckFrames(frames int) error {
	if frames < 1 || frames > MaxFrames {
		return fmt.Errorf("%d frames per host: 1..%d (4 KiB pages: 4 GiB less the driver's %d)", frames, MaxFrames, driverPages)
	}
	return nil
}

// Memory estimates the memory, in bytes, a cluster of nodes hosts with
// frames pages of VM memory each (0: New's default) takes when built and
// run: every board and its host memory (node.BoardMemory), the VM's page
// structures, the driver's pages, written, and extra bytes: what the
// workloads add over the hosts (the pages they write, resident or in
// swap, their processes and threads).
func Memory(nodes, frames int, extra uint64) uint64 {
	if frames <= 0 {
		frames = DefaultFrames
	}
	lay := driver.LayoutFor(nodes, abi.DefaultCredits)
	host := uint64(lay.Frames+uint32(frames)) * freebsd.PageSize
	perNode := node.BoardMemory(0, host) + uint64(frames)*uint64(unsafe.Sizeof(freebsd.Page{})) + uint64(lay.Frames)*freebsd.PageSize
	return uint64(nodes)*perNode + extra
}

// CheckSize refuses a cluster New would refuse (CheckNodes, CheckFrames)
// or one estimated to take more memory than node.MaxMemory (Memory, with
// the workloads' extra bytes).
func CheckSize(nodes, frames int, extra uint64) error {
	if err := CheckNodes(nodes); err != nil {
		return err
	}
	if frames != 0 {
		if err := CheckFrames(frames); err != nil {
			return err
		}
	}
	return node.CheckMemory(nodes, Memory(nodes, frames, extra))
}

// DefaultFrames is a host's VM memory in pages when Config.Frames is 0
// (16 MiB), and netvm run's when a scenario gives no frames.
const DefaultFrames = 4096
