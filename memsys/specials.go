package memsys

import "fmt"

// SpecialReg describes a special register of the LANai 9 (lanai9-hw.md
// section 3.1): its offset from SpecialBase and name.
type SpecialReg struct {
	Off  uint32
	Name string
	Doc  string
}

// SpecialRegisters is the LANai 9 special-register table: the one source of
// the register names the debugger knows and of the firmware headers
// firmware/crt/lanai9.h and lanai9.inc.
var SpecialRegisters = []SpecialReg{
	{0x050, "ISR", "interrupt status; write 1 to clear"},
	{0x058, "EIMR", "external interrupt mask"},
	{0x060, "IT0", "interval timer 0: counts down at 2 MHz, sets ISR TIME0_INT at 0"},
	{0x068, "RTC", "real-time clock (counts up at 2 MHz)"},
	{0x070, "LAR", "EBUS-DMA local address"},
	{0x078, "CPUC", "CPU cycle counter (low 32 bits)"},
	{0x0B8, "PULSE", "pulses to the DMA controller: a 1 in a PULSE bit starts a channel"},
	{0x0C0, "IT1", "interval timer 1: as IT0, sets ISR TIME1_INT"},
	{0x0C8, "IT2", "interval timer 2: as IT0, sets ISR TIME2_INT"},
	{0x0D0, "RMW", "receive-DMA CRC pointer without CRC-32"},
	{0x0D8, "RMC", "receive-DMA header CRC-32 pointer"},
	{0x0E0, "RMP", "receive-DMA pointer"},
	{0x0E8, "RML", "receive-DMA limit"},
	{0x0F0, "SMP", "send-DMA pointer"},
	{0x0F8, "SMH", "send-DMA routing header end"},
	{0x100, "SML", "send-DMA limit"},
	{0x108, "SMLT", "send-DMA limit with tail"},
	{0x110, "SMC", "send-DMA header CRC-32 pointer"},
	{0x118, "SA", "send align"},
	{0x130, "MYRINET", "link control"},
	{0x138, "DEBUG", "hardware debugging"},
	{0x140, "LED", "board LED (bit 0)"},
	{0x150, "GM_MP", "memory protection (unknown on LANai 9)"},
	{0x1F8, "CLOCK", "clock/PLL control"},
}

// SpecialByName finds a special register by name.
func SpecialByName(name string) (SpecialReg, bool) {
	for _, r := range SpecialRegisters {
		if r.Name == name {
			return r, true
		}
	}
	return SpecialReg{}, false
}

// SpecialAt names the special register at a LANai address.
func SpecialAt(addr uint32) (SpecialReg, bool) {
	for _, r := range SpecialRegisters {
		if SpecialBase+r.Off == addr {
			return r, true
		}
	}
	return SpecialReg{}, false
}

// SpecialRegs is the special-register window. Until the board's engines
// are attached (they register hooks for their registers), every listed
// register holds what was last written to it; offsets not in the table are
// errors.
type SpecialRegs struct {
	regs   [SpecialSize / 4]specialReg
	peek   func(off uint32) (uint32, error)
	writes uint64
}

// specialReg is one register: what a read looks at comes first, in one
// cache line (the firmware reads ISR and RTC in every pass of its main
// loop).
type specialReg struct {
	read   func() uint32
	val    uint32
	known  bool
	write  func(uint32)
	stable func() uint64
}

// NewSpecialRegs makes the window with every register zero.
func NewSpecialRegs() *SpecialRegs {
	s := &SpecialRegs{}
	for _, r := range SpecialRegisters {
		s.regs[r.Off/4].known = true
	}
	return s
}

// Hook makes a device serve a register: read (if not nil) gives its value,
// write (if not nil) takes writes.
func (s *SpecialRegs) Hook(off uint32, read func() uint32, write func(uint32)) {
	r := &s.regs[off/4]
	r.read, r.write, r.known = read, write, true
}

// HookStable tells how long a hooked register keeps its value without an
// event (see Stable): a register with a read hook but no stable hook is
// taken to change at any time; a plain stored register never changes by
// itself.
func (s *SpecialRegs) HookStable(off uint32, until func() uint64) {
	s.regs[off/4].stable = until
}

// StableUntil implements Stable.
func (s *SpecialRegs) StableUntil(off uint32) uint64 {
	r := s.reg(off)
	switch {
	case r == nil:
		return 0
	case r.stable != nil:
		return r.stable()
	case r.read != nil:
		return 0
	}
	return ^uint64(0)
}

// reg is the register at offset off, or nil if none is there.
func (s *SpecialRegs) reg(off uint32) *specialReg {
	if i := off / 4; off%4 == 0 && i < uint32(len(s.regs)) && s.regs[i].known {
		return &s.regs[i]
	}
	return nil
}

// Read32 implements Device.
func (s *SpecialRegs) Read32(off uint32) (uint32, error) {
	r := s.reg(off)
	if r == nil {
		return 0, &AccessError{SpecialBase + off, 4, false, "no special register here"}
	}
	if r.read != nil {
		return r.read(), nil
	}
	return r.val, nil
}

// Write32 implements Device.
func (s *SpecialRegs) Write32(off uint32, v uint32) error {
	r := s.reg(off)
	if r == nil {
		return &AccessError{SpecialBase + off, 4, true, "no special register here"}
	}
	s.writes++
	if r.write != nil {
		r.write(v)
		return nil
	}
	r.val = v
	return nil
}

// Writes counts the writes to the window (by the core or the host): the
// core's loop skipping sees by it that a register may have changed.
func (s *SpecialRegs) Writes() uint64 { return s.writes }

// SetPeek installs the owner's side-effect-free reader (a board's devices
// treat a core read as an observation: it may end a hidden write hazard or
// count for polling-loop skipping; a tool's look must not).
func (s *SpecialRegs) SetPeek(peek func(off uint32) (uint32, error)) { s.peek = peek }

// Peek reads a register for a tool (debugger, report) without the side
// effects of a core read, when the owner installed a peek (SetPeek).
func (s *SpecialRegs) Peek(off uint32) (uint32, error) {
	if s.peek != nil {
		return s.peek(off)
	}
	return s.Read32(off)
}

// String lists the registers and values, for trap reports and debuggers
// (read with Peek).
func (s *SpecialRegs) String() string {
	out := ""
	for _, r := range SpecialRegisters {
		v, _ := s.Peek(r.Off)
		out += fmt.Sprintf("%-8s %08x\n", r.Name, v)
	}
	return out
}
