package hostbus

import (
	"fmt"
	"math/bits"

	"lanaiemu/objfile"
	"lanaiemu/sim"
)

// Clock programming as Cplant's driver does it for LANai 5 and later
// (myriPut.c): the EEPROM value with bits 6-4 replaced by "2.0 X PCI".
const (
	// RegCLOCK is the offset of the CLOCK special register (lanai9-hw.md
	// section 3.1); the host writes it while the LANai is in reset.
	RegCLOCK  = 0x1F8
	clockMask = 0xFFFFFF8F
	clockPCI2 = 0xA0
)

// ClockRegister is the CLOCK special-register value a host driver derives
// from the EEPROM's lanai_clockval.
func ClockRegister(eepromClockVal uint32) uint32 {
	return eepromClockVal&clockMask | clockPCI2
}

// LoadFirmware loads an executable (our linker's ELF, or a LANai COFF
// file) into the board through the window, as a host driver does
// (Cplant mcpload.c and myriPut.c):
//
//  1. control = INT_DISABLE;
//  2. control = RESET_ON | ERESET_ON (LANai and EBUS held in reset);
//  3. CLOCK special register = ClockRegister(EEPROM lanai_clockval);
//  4. every allocated section with contents copied to its address by
//     WriteBlock, and every NOBITS section (.bss) cleared the same way;
//  5. control = RESET_OFF | ERESET_OFF | BRESET_OFF | INT_ENABLE |
//     FORCE_64BIT_MODE: the LANai starts at address 0.
//
// It returns the PIO time the host spent (the sum of the accesses' costs;
// Now advances by as much). The image is checked before any access: it
// must be an executable whose sections lie in SRAM and whose entry point
// is 0, where the LANai starts after reset.
func (w *Window) LoadFirmware(image []byte) (sim.Time, error) {
	f, err := objfile.Read(image)
	if err != nil {
		return 0, fmt.Errorf("hostbus: firmware: %w", err)
	}
	if f.Kind != objfile.EXEC {
		return 0, fmt.Errorf("hostbus: firmware: a relocatable object cannot be loaded; link it first")
	}
	if f.Entry != 0 {
		return 0, fmt.Errorf("hostbus: firmware: entry point %#x, but the LANai starts at address 0 after reset", f.Entry)
	}
	type piece struct {
		addr uint32
		data []byte
	}
	var pieces []piece
	sram := uint64(len(w.mem.SRAM))
	for _, s := range f.Sections {
		if s.Flags&objfile.SHF_ALLOC == 0 && f.Format == objfile.FormatELF {
			continue
		}
		data := s.Data
		if s.Type == objfile.SHT_NOBITS {
			data = make([]byte, s.Size)
		}
		if len(data) == 0 {
			continue
		}
		if uint64(s.Addr)+uint64(len(data)) > sram {
			return 0, fmt.Errorf("hostbus: firmware: section %s [%#x, %#x) lies outside SRAM (%#x bytes)", s.Name, s.Addr, uint64(s.Addr)+uint64(len(data)), sram)
		}
		pieces = append(pieces, piece{s.Addr, data})
	}
	start := w.now
	clock := ClockRegister(w.p.Board.ClockVal)
	steps := []func() (sim.Time, error){
		func() (sim.Time, error) { return w.Write32(ControlOff, CtlIntDisable) },
		func() (sim.Time, error) { return w.Write32(ControlOff, CtlResetOn|CtlEResetOn) },
		func() (sim.Time, error) { return w.writeSpecial(RegCLOCK, clock) },
	}
	for _, p := range pieces {
		steps = append(steps, func() (sim.Time, error) { return w.WriteBlock(p.addr, p.data) })
	}
	steps = append(steps, func() (sim.Time, error) {
		return w.Write32(ControlOff, CtlResetOff|CtlEResetOff|CtlBResetOff|CtlIntEnable|CtlForce64)
	})
	for _, step := range steps {
		if _, err := step(); err != nil {
			return w.now - start, fmt.Errorf("hostbus: firmware: %w", err)
		}
	}
	return w.now - start, nil
}

// writeSpecial writes value v (as the LANai sees it) into the special
// register at offset reg, byte-swapping it as a host driver does (htonl).
func (w *Window) writeSpecial(reg uint32, v uint32) (sim.Time, error) {
	return w.Write32(SpecialOff+reg, bits.ReverseBytes32(v))
}
