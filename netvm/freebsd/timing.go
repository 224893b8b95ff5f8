package freebsd

import (
	"fmt"
	"slices"
	"strings"

	"lanaiemu/sim"
)

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

// timingCost is one named duration of Timing.
type timingCost struct {
	name  string
	field func(*Timing) *sim.Time
}

// timingCosts names the durations of Timing for Set, in the order
// docs/host.md lists them (MemcpyBytesPerSecond, a rate, is not one).
var timingCosts = []timingCost{
	{"syscall", func(t *Timing) *sim.Time { return &t.Syscall }},
	{"interrupt-entry", func(t *Timing) *sim.Time { return &t.InterruptEntry }},
	{"context-switch", func(t *Timing) *sim.Time { return &t.ContextSwitch }},
	{"wakeup", func(t *Timing) *sim.Time { return &t.Wakeup }},
	{"signal-delivery", func(t *Timing) *sim.Time { return &t.SignalDelivery }},
	{"page-zero", func(t *Timing) *sim.Time { return &t.PageZero }},
	{"fault-entry", func(t *Timing) *sim.Time { return &t.FaultEntry }},
	{"page-in", func(t *Timing) *sim.Time { return &t.PageIn }},
	{"page-out", func(t *Timing) *sim.Time { return &t.PageOut }},
	{"wire-page", func(t *Timing) *sim.Time { return &t.WirePage }},
	{"pin-cache-lookup", func(t *Timing) *sim.Time { return &t.PinCacheLookup }},
	{"pio-read", func(t *Timing) *sim.Time { return &t.PIORead }},
	{"pio-write", func(t *Timing) *sim.Time { return &t.PIOWrite }},
	{"pio-landing", func(t *Timing) *sim.Time { return &t.PIOLanding }},
}

// maxCost bounds a cost given to Set: a second is already absurd for any
// of them (a disk access is milliseconds).
const maxCost = sim.Second

// Set parses assignments of costs, "name=duration" separated by commas
// ("signal-delivery=17us,wakeup=5us"; sim.ParseDuration's syntax), into
// tm. A name it does not know, a name given twice, a bad duration or one
// over a second is an error naming the cost, and leaves tm unchanged.
func (tm *Timing) Set(list string) error {
	next := *tm
	given := make([]bool, len(timingCosts))
	for _, item := range strings.Split(list, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return fmt.Errorf("host cost %q: want name=duration", item)
		}
		i := slices.IndexFunc(timingCosts, func(c timingCost) bool { return c.name == name })
		if i < 0 {
			return fmt.Errorf("host cost %q: unknown (known: %s)", name, strings.Join(TimingCostNames(), ", "))
		}
		if given[i] {
			return fmt.Errorf("host cost %s: given twice", name)
		}
		given[i] = true
		d, err := sim.ParseDuration(val)
		if err != nil {
			return fmt.Errorf("host cost %s: %v", name, err)
		}
		if d > maxCost {
			return fmt.Errorf("host cost %s = %s: over a second", name, val)
		}
		*timingCosts[i].field(&next) = d
	}
	*tm = next
	return nil
}

// TimingCostNames lists the names Set knows.
func TimingCostNames() []string {
	names := make([]string, len(timingCosts))
	for i, c := range timingCosts {
		names[i] = c.name
	}
	return names
}
