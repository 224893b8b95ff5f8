package freebsd

import "lanaiemu/sim"

// Timing holds the host's costs. Every field is named in docs/host.md
// with its source, or marked there as an assumption. No field is set to
// make one benchmark come out right.
type Timing struct {
	// Syscall is entering and leaving the kernel for a system call.
	Syscall sim.Time
	// InterruptEntry is from the interrupt line rising to the driver's
	// handler running.
	InterruptEntry sim.Time
	// ContextSwitch is switching the CPU to another thread.
	ContextSwitch sim.Time
	// Wakeup is from wakeup() to the woken thread running (a context
	// switch included).
	Wakeup sim.Time
	// SignalDelivery is from the kernel posting a signal to the user
	// handler running.
	SignalDelivery sim.Time
	// MemcpyBytesPerSecond is the CPU's copy bandwidth (bcopy).
	MemcpyBytesPerSecond uint64
	// PageZero is zero-filling one 4 KiB page.
	PageZero sim.Time
	// FaultEntry is the CPU cost of vm_fault besides the pager and the
	// copy: the trap, the map lookup, pmap_enter.
	FaultEntry sim.Time
	// PageIn is the swap pager's latency for one page (the disk).
	PageIn sim.Time
	// PageOut is the swap pager's latency to write one dirty page.
	PageOut sim.Time
	// WirePage is vm_page_wire plus the map walk of vslock/mlock, per
	// page (the page resident).
	WirePage sim.Time
	// PinCacheLookup is a user-level pin-down cache's lookup of one page
	// (a hash probe and an LRU update in the library), charged on every
	// WRITE under dynamic pinning, hit or miss.
	PinCacheLookup sim.Time
	// PIORead and PIOWrite are one programmed-I/O access to the board
	// (hostbus.Params: NonPostedRead, PostedWrite).
	PIORead, PIOWrite sim.Time
	// PIOLanding is how long after the CPU has issued a posted write it
	// lands in the board's SRAM: the host bridge's write buffer, PCI
	// arbitration and the transaction (0: at once). The NetVM library's
	// doorbell (a WRITE's opcode) pays it.
	PIOLanding sim.Time
}

// DefaultTiming is the host of docs/host.md: a FreeBSD 4.6 i386 machine of
// the NetVM prototype's era (about 1 GHz, PC133 memory, a 2002 disk).
func DefaultTiming() Timing {
	return Timing{
		Syscall:              700 * sim.Nanosecond,
		InterruptEntry:       5 * sim.Microsecond,
		ContextSwitch:        2 * sim.Microsecond,
		Wakeup:               3 * sim.Microsecond,
		SignalDelivery:       8 * sim.Microsecond,
		MemcpyBytesPerSecond: 300_000_000,
		PageZero:             10 * sim.Microsecond,
		FaultEntry:           3 * sim.Microsecond,
		PageIn:               8 * sim.Millisecond,
		PageOut:              8 * sim.Millisecond,
		WirePage:             1 * sim.Microsecond,
		PinCacheLookup:       150 * sim.Nanosecond,
		PIORead:              600 * sim.Nanosecond,
		PIOWrite:             100 * sim.Nanosecond,
		PIOLanding:           150 * sim.Nanosecond,
	}
}

// Memcpy is the CPU time to copy n bytes.
func (tm Timing) Memcpy(n int) sim.Time {
	return sim.Time(uint64(n) * uint64(sim.Second) / tm.MemcpyBytesPerSecond)
}
