package lanai

import "lanaiemu/memsys"

// Registers of the simulation-control device (docs/runtime.md), as offsets
// from memsys.SimCtlBase.
const (
	SimExit     = 0x0 // write: stop with this exit code
	SimPutc     = 0x4 // write: the low byte goes to the console
	SimCyclesLo = 0x8 // read: cycle counter, low word (latches the high word)
	SimCyclesHi = 0xC // read: the latched high word
)

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
		s.cpu.stop = &Stop{Kind: StopExit, Code: v}
		return nil
	case SimPutc:
		if w := s.cpu.cfg.Console; w != nil {
			w.Write([]byte{byte(v)})
		}
		return nil
	}
	return &memsys.AccessError{Addr: memsys.SimCtlBase + off, Size: 4, Write: true, Why: "no writable simulation-control register here"}
}
