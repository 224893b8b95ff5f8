package lanai

import "lanaiemu/memsys"

// Registers of the simulation-control device (docs/runtime.md), as offsets
// from memsys.SimCtlBase; SimCtlRegisters says what each does.
const (
	SimExit     = 0x0
	SimPutc     = 0x4
	SimCyclesLo = 0x8
	SimCyclesHi = 0xC
)

// SimCtlReg is one register of the simulation-control device.
type SimCtlReg struct {
	Off  uint32 // from memsys.SimCtlBase
	Name string
	Doc  string // one line
}

// SimCtlRegisters lists the device's registers: the one source of the
// generated firmware headers' SIM_ names (firmware/crt/lanai9.h, lanai9.inc).
var SimCtlRegisters = []SimCtlReg{
	{SimExit, "EXIT", "write: stop the simulation; the value is the exit code"},
	{SimPutc, "PUTC", "write: the low byte goes to the console"},
	{SimCyclesLo, "CYCLES_LO", "read: cycle counter bits 31..0 (latches the high word)"},
	{SimCyclesHi, "CYCLES_HI", "read: cycle counter bits 63..32, as latched by CYCLES_LO"},
}

// simCtl is the simulation-control device: our own, outside the LANai's
// real memory map, so that test programs can exit, print and time
// themselves.
type simCtl struct {
	cpu      *CPU
	latchedH uint32
}

func (s *simCtl) Read32(off uint32) (uint32, error) {
	switch off {
	case SimCyclesLo:
		s.latchedH = uint32(s.cpu.Cycles >> 32)
		return uint32(s.cpu.Cycles), nil
	case SimCyclesHi:
		return s.latchedH, nil
	}
	return 0, &memsys.AccessError{Addr: memsys.SimCtlBase + off, Size: 4, Why: "no readable simulation-control register here"}
}

func (s *simCtl) Write32(off uint32, v uint32) error {
	switch off {
	case SimExit:
		s.cpu.stop = &Stop{Kind: StopExit, Code: v, Cycle: s.cpu.Cycles}
		return nil
	case SimPutc:
		if w := s.cpu.cfg.Console; w != nil {
			w.Write([]byte{byte(v)})
		}
		return nil
	}
	return &memsys.AccessError{Addr: memsys.SimCtlBase + off, Size: 4, Write: true, Why: "no writable simulation-control register here"}
}
