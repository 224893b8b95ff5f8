package hostbus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/memsys"
	"lanaiemu/sim"
)

// newWindow makes a 2 MiB board memory and a window with the default
// parameters changed by edit.
func newWindow(t *testing.T, edit func(*Params), h Hooks) (*Window, *memsys.Memory) {
	t.Helper()
	mem, err := memsys.New(memsys.DefaultSRAMSize)
	require.NoError(t, err)
	p := DefaultParams()
	if edit != nil {
		edit(&p)
	}
	w, err := NewWindow(mem, p, h)
	require.NoError(t, err)
	return w, mem
}

// lanaiStore stores v big-endian at SRAM addr, as a LANai st does.
func lanaiStore(mem *memsys.Memory, addr, v uint32) {
	binary.BigEndian.PutUint32(mem.SRAM[addr:], v)
}

func TestRegionBoundaries(t *testing.T) {
	w, mem := newWindow(t, nil, Hooks{})
	sram := uint32(len(mem.SRAM))
	if _, err := w.Write32(PointerOff+4*PtrFIFOBase0, 0x10000); err != nil {
		t.Fatal(err)
	}
	type acc struct {
		off   uint32
		size  int
		write bool
		ok    bool
		what  string
	}
	cases := []acc{
		{0, 4, false, true, "first SRAM word"},
		{sram - 4, 4, false, true, "last SRAM word"},
		{sram - 1, 1, true, true, "last SRAM byte"},
		{sram - 8, 8, true, true, "last SRAM doubleword"},
		{sram, 4, false, false, "first word past SRAM"},
		{sram, 1, true, false, "first byte past SRAM"},
		{SRAMWindowSize - 4, 4, false, false, "last word of the SRAM window (2 MiB board)"},
		{ConfigOff, 4, false, false, "configuration register block"},
		{ConfigOff + ConfigSize - 4, 4, true, false, "last configuration word"},
		{ControlOff, 4, false, true, "control register"},
		{ControlOff, 4, true, true, "control register write"},
		{ControlOff - 4, 4, false, false, "just below the control register"},
		{ControlOff + 4, 4, false, false, "just above the control register"},
		{PointerOff - 4, 4, false, false, "just below the pointer bank"},
		{PointerOff, 4, true, true, "first pointer word"},
		{PointerOff + 4*PointerWords - 4, 4, false, true, "last pointer word"},
		{PointerOff + 4*PointerWords, 4, false, false, "just above the pointer bank"},
		{SpecialOff - 4, 4, false, false, "just below the special registers"},
		{SpecialOff + 0x050, 4, false, true, "ISR"},
		{SpecialOff + 0x1F8, 4, true, true, "CLOCK"},
		{SpecialOff + 0x000, 4, false, false, "special offset 0 (no register)"},
		{SpecialOff + 0x200, 4, false, false, "past the last special register"},
		{SpecialOff + SpecialWindowSize - 4, 4, false, false, "end of the special window"},
		{DoorbellOff - 4, 4, true, false, "just below the doorbell region"},
		{DoorbellOff, 4, true, true, "first doorbell"},
		{DoorbellOff, 4, false, false, "doorbell read"},
		{EEPROMOff - 4, 4, false, false, "last doorbell word below the EEPROM (read)"},
		{EEPROMOff - 4, 4, true, true, "last doorbell word below the EEPROM (write)"},
		{EEPROMOff, 4, false, true, "EEPROM"},
		{EEPROMOff, 4, true, true, "write at the EEPROM: a doorbell"},
		{EEPROMAltOff, 8, false, true, "alternate EEPROM"},
		{BARSize - 4, 4, false, true, "last BAR word (EEPROM)"},
		{BARSize - 4, 4, true, true, "last BAR word (doorbell)"},
		{BARSize, 4, false, false, "past the BAR"},
		{^uint32(0) - 3, 4, true, false, "far past the BAR"},
		// widths and alignment
		{2, 4, false, false, "unaligned word"},
		{1, 2, true, false, "unaligned half"},
		{4, 8, false, false, "unaligned doubleword"},
		{ControlOff, 1, false, false, "byte read of the control register"},
		{ControlOff, 8, true, false, "doubleword write of the control register"},
		{PointerOff, 2, false, false, "half read of the pointer bank"},
		{SpecialOff + 0x050, 8, false, false, "doubleword read of ISR"},
		{SpecialOff + 0x050, 1, true, false, "byte write of ISR"},
		{DoorbellOff, 8, true, false, "doubleword doorbell"},
		{DoorbellOff, 1, true, false, "byte doorbell"},
		{EEPROMOff + 3, 1, false, true, "EEPROM byte"},
		{EEPROMOff, 1, true, false, "EEPROM byte write (a byte doorbell)"},
	}
	for _, c := range cases {
		before := w.Now()
		var err error
		var done sim.Time
		switch {
		case c.write && c.size == 1:
			done, err = w.Write8(c.off, 0x5A)
		case c.write && c.size == 2:
			done, err = w.Write16(c.off, 0x5A5A)
		case c.write && c.size == 4:
			done, err = w.Write32(c.off, 0)
		case c.write && c.size == 8:
			done, err = w.Write64(c.off, 0)
		case c.size == 1:
			_, done, err = w.Read8(c.off)
		case c.size == 2:
			_, done, err = w.Read16(c.off)
		case c.size == 4:
			_, done, err = w.Read32(c.off)
		case c.size == 8:
			_, done, err = w.Read64(c.off)
		}
		if c.ok != (err == nil) {
			t.Errorf("%s (%d-byte %v at %#x): error %v, want ok=%v", c.what, c.size, map[bool]string{true: "write", false: "read"}[c.write], c.off, err, c.ok)
			continue
		}
		if err != nil {
			var be *BusError
			if !errors.As(err, &be) || be.Off != c.off || be.Size != c.size || be.Write != c.write {
				t.Errorf("%s: error %v is not a matching *BusError", c.what, err)
			}
			if done != before || w.Now() != before {
				t.Errorf("%s: a refused access took time", c.what)
			}
		} else if done <= before {
			t.Errorf("%s: access took no time", c.what)
		}
	}
}

func TestSRAMAlias(t *testing.T) {
	w, mem := newWindow(t, func(p *Params) { p.AliasSRAM = true }, Hooks{})
	sram := uint32(len(mem.SRAM))
	lanaiStore(mem, 0x40, 0xA1B2C3D4)
	for _, off := range []uint32{0x40, sram + 0x40, 3*sram + 0x40} {
		v, _, err := w.Read32(off)
		if err != nil || v != 0xD4C3B2A1 {
			t.Errorf("Read32(%#x) = %#x, %v", off, v, err)
		}
	}
	if _, err := w.Write32(sram+0x80, 0x01020304); err != nil {
		t.Fatal(err)
	}
	if got, _ := mem.Word(0x80); got != 0x04030201 {
		t.Errorf("aliased write landed as %#x", got)
	}
}

// TestByteOrder: a word the LANai stores as 0x11223344 at SRAM 0x100 reads
// as 0x44332211 in a 32-bit host read (byte lanes pass straight through;
// lanai9-hw.md section 2.4).
func TestByteOrder(t *testing.T) {
	w, mem := newWindow(t, nil, Hooks{})
	lanaiStore(mem, 0x100, 0x11223344)
	lanaiStore(mem, 0x104, 0x55667788)
	if v, _, err := w.Read32(0x100); err != nil || v != 0x44332211 {
		t.Errorf("Read32 = %#x, %v; want 0x44332211", v, err)
	}
	if v, _, _ := w.Read16(0x100); v != 0x2211 {
		t.Errorf("Read16 = %#x", v)
	}
	if v, _, _ := w.Read16(0x102); v != 0x4433 {
		t.Errorf("Read16(+2) = %#x", v)
	}
	if v, _, _ := w.Read8(0x101); v != 0x22 {
		t.Errorf("Read8(+1) = %#x", v)
	}
	if v, _, _ := w.Read64(0x100); v != 0x8877665544332211 {
		t.Errorf("Read64 = %#x", v)
	}
	// A host write of 0x11223344 is seen by the LANai as 0x44332211; a host
	// that wants the LANai to see X writes htonl(X).
	if _, err := w.Write32(0x200, 0x11223344); err != nil {
		t.Fatal(err)
	}
	if v, _ := mem.Word(0x200); v != 0x44332211 {
		t.Errorf("LANai sees %#x", v)
	}
	if _, err := w.Write16(0x206, 0xBEEF); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write64(0x208, 0x0807060504030201); err != nil {
		t.Fatal(err)
	}
	if got := mem.SRAM[0x204:0x210]; fmt.Sprintf("% x", got) != "00 00 ef be 01 02 03 04 05 06 07 08" {
		t.Errorf("SRAM bytes % x", got)
	}
	// Special registers: the same lanes, so the host sees them swapped.
	const led = 0x140
	require.NoError(t, mem.Specials.Write32(led, 0x11223344))
	if v, _, _ := w.Read32(SpecialOff + led); v != 0x44332211 {
		t.Errorf("host reads LED as %#x", v)
	}
	if _, err := w.Write32(SpecialOff+led, 0x01000000); err != nil { // htonl(1)
		t.Fatal(err)
	}
	if v, _ := mem.Specials.Read32(led); v != 1 {
		t.Errorf("LANai sees LED %#x", v)
	}
	// The control register and the pointer bank are little-endian: values
	// read back as written.
	if _, err := w.Write32(PointerOff, 0x00012345); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := w.Read32(PointerOff); v != 0x00012345 {
		t.Errorf("pointer word reads %#x", v)
	}
	if v, _, _ := w.Read32(ControlOff); v != w.Control() {
		t.Errorf("control reads %#x, Control() %#x", v, w.Control())
	}
}

func TestWritesInvalidate(t *testing.T) {
	w, mem := newWindow(t, nil, Hooks{})
	var got []string
	mem.OnWrite(func(addr, n uint32) { got = append(got, fmt.Sprintf("%#x+%d", addr, n)) })
	w.Write8(0x11, 1)
	w.Write16(0x12, 2)
	w.Write32(0x14, 3)
	w.Write64(0x18, 4)
	w.WriteBlock(0x21, make([]byte, 9))
	want := []string{"0x11+1", "0x12+2", "0x14+4", "0x18+8", "0x21+9"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("OnWrite saw (-want +got):\n%s", d)
	}
}

func TestSpecialHooks(t *testing.T) {
	regs := map[uint32]uint32{0x50: 0x40000000}
	var writes []string
	w, _ := newWindow(t, nil, Hooks{
		ReadSpecial: func(off uint32) (uint32, error) {
			v, ok := regs[off]
			if !ok {
				return 0, errors.New("none")
			}
			return v, nil
		},
		WriteSpecial: func(off, v uint32) error {
			writes = append(writes, fmt.Sprintf("%#x=%#x", off, v))
			return nil
		},
	})
	if v, _, err := w.Read32(SpecialOff + 0x50); err != nil || v != 0x40 {
		t.Errorf("ISR via hook = %#x, %v", v, err)
	}
	if _, _, err := w.Read32(SpecialOff + 0x58); err == nil || !errors.As(err, new(*BusError)) {
		t.Errorf("hook error not passed on: %v", err)
	}
	w.Write32(SpecialOff+0x50, 0x40) // host clears HOST_SIG: htonl(0x40000000)
	if fmt.Sprint(writes) != "[0x50=0x40000000]" {
		t.Errorf("writes %v", writes)
	}
}

func TestControlRegister(t *testing.T) {
	var resets []ResetLines
	var triggers []int
	var ies []bool
	w, _ := newWindow(t, nil, Hooks{
		Reset:           func(r ResetLines) { resets = append(resets, r) },
		TriggerDMA:      func(ch int) { triggers = append(triggers, ch) },
		InterruptEnable: func(on bool) { ies = append(ies, on) },
	})
	read := func() uint32 {
		v, _, err := w.Read32(ControlOff)
		require.NoError(t, err)
		return v
	}
	// Power-on: LANai and EBUS in reset, board out of reset, interrupts
	// off, 64-bit slot detected.
	if v, want := read(), uint32(CtlResetOn|CtlEResetOn|CtlBResetOff|CtlIntDisable|CtlReq64); v != want {
		t.Fatalf("power-on control %#08x, want %#08x", v, want)
	}
	if r := w.Resets(); !r.LANai || !r.EBUS || r.Board {
		t.Errorf("power-on resets %+v", r)
	}
	if fmt.Sprint(ies) != "[false]" {
		t.Errorf("InterruptEnable at NewWindow: %v", ies)
	}
	// Release the LANai only: the other pairs keep their last values.
	w.Write32(ControlOff, CtlResetOff)
	if v, want := read(), uint32(CtlResetOff|CtlEResetOn|CtlBResetOff|CtlIntDisable|CtlReq64); v != want {
		t.Errorf("after RESET_OFF %#08x, want %#08x", v, want)
	}
	if d := cmp.Diff([]ResetLines{{LANai: false, EBUS: true, Board: false}}, resets); d != "" {
		t.Errorf("Reset hook (-want +got):\n%s", d)
	}
	// Writing a pair's bit again changes nothing and tells nobody.
	w.Write32(ControlOff, CtlResetOff)
	if len(resets) != 1 {
		t.Errorf("Reset hook told of no change: %v", resets)
	}
	// Both bits of a pair: refused, nothing changes, no time.
	before, now := read(), w.Now()
	if _, err := w.Write32(ControlOff, CtlIntEnable|CtlIntDisable|CtlEResetOff); err == nil {
		t.Error("writing both bits of a pair succeeded")
	}
	if read() != before || w.Now() != now+w.p.NonPostedRead {
		t.Error("a refused control write had an effect")
	}
	// DMA triggers are write-only pulses.
	w.Write32(ControlOff, CtlDMA0|CtlDMA2)
	if fmt.Sprint(triggers) != "[0 2]" {
		t.Errorf("DMA triggers %v", triggers)
	}
	if read()&CtlDMATrigger != 0 {
		t.Error("DMA trigger bits read back")
	}
	// Plain bits take the written value; the read-only bits do not.
	w.Write32(ControlOff, CtlQueueSize&3|CtlLimitCheck|CtlUC1Out|CtlUCClock|CtlUC2In|CtlUC1In|1<<19|1<<8|1<<5)
	v := read()
	if v&(ctlPlain|CtlUC2In|CtlUC1In|1<<19|1<<8|1<<5) != 3|CtlLimitCheck|CtlUC1Out|CtlUCClock {
		t.Errorf("plain bits %#08x", v)
	}
	if w.DoorbellDepth() != 512<<3 {
		t.Errorf("queue size 3 gives depth %d", w.DoorbellDepth())
	}
	w.Write32(ControlOff, CtlResetOn) // zeros in the plain bits clear them
	if read()&ctlPlain != 0 || w.DoorbellDepth() != 512 {
		t.Errorf("plain bits not cleared: %#08x", read())
	}
	// Interrupt enable and 64/32-bit mode pairs.
	w.Write32(ControlOff, CtlIntEnable|CtlForce64)
	if !w.InterruptEnabled() || read()&(CtlForce64|CtlForce32) != CtlForce64 {
		t.Error("INT_ENABLE | FORCE_64BIT not taken")
	}
	if fmt.Sprint(ies) != "[false true]" {
		t.Errorf("InterruptEnable hook %v", ies)
	}
	// Board reset clears the pointer bank and the doorbell state.
	w.Write32(PointerOff+4, 0x1234)
	w.Write32(ControlOff, CtlBResetOn)
	if w.Pointer(1) != 0 || !w.Resets().Board {
		t.Error("board reset kept the pointer bank")
	}
	// A 32-bit slot: bit 14 reads 0 and writing it does nothing.
	w32, _ := newWindow(t, func(p *Params) { p.Bus64 = false }, Hooks{})
	w32.Write32(ControlOff, CtlReq64)
	if v, _, _ := w32.Read32(ControlOff); v&CtlReq64 != 0 {
		t.Error("REQ64 bit in a 32-bit slot")
	}
	// An impossible power-on value is refused.
	mem, _ := memsys.New(memsys.DefaultSRAMSize)
	p := DefaultParams()
	p.PowerOnControl = CtlResetOn | CtlResetOff
	if _, err := NewWindow(mem, p, Hooks{}); err == nil {
		t.Error("NewWindow took a power-on value with both reset bits")
	}
}

func TestInterruptLine(t *testing.T) {
	var seen []bool
	w, _ := newWindow(t, nil, Hooks{})
	w.OnIRQ(func(l bool) { seen = append(seen, l) })
	var second int
	w.OnIRQ(func(bool) { second++ })
	// Interrupts disabled at power-on: the board's line is not seen.
	w.SetIRQ(true)
	if w.IRQ() || len(seen) != 0 {
		t.Fatal("IRQ seen while disabled")
	}
	w.Write32(ControlOff, CtlIntEnable)
	if !w.IRQ() || fmt.Sprint(seen) != "[true]" {
		t.Fatalf("enable with the line high: IRQ %v, seen %v", w.IRQ(), seen)
	}
	w.SetIRQ(true) // no change, no call
	w.SetIRQ(false)
	w.SetIRQ(true)
	w.Write32(ControlOff, CtlIntDisable)
	w.SetIRQ(false)
	w.Write32(ControlOff, CtlIntEnable)
	if fmt.Sprint(seen) != "[true false true false]" || second != 4 {
		t.Errorf("levels %v (second subscriber %d)", seen, second)
	}
	// Truth table: IRQ = line AND enable.
	for _, line := range []bool{false, true} {
		for _, ie := range []bool{false, true} {
			w.SetIRQ(line)
			if ie {
				w.Write32(ControlOff, CtlIntEnable)
			} else {
				w.Write32(ControlOff, CtlIntDisable)
			}
			if w.IRQ() != (line && ie) {
				t.Errorf("line %v enable %v: IRQ %v", line, ie, w.IRQ())
			}
		}
	}
}

// TestPIOLatency checks that every access's completion time is the
// previous one plus the parameters, exactly.
func TestPIOLatency(t *testing.T) {
	const W, R = 130 * sim.Nanosecond, 770 * sim.Nanosecond
	for _, bus64 := range []bool{true, false} {
		w, _ := newWindow(t, func(p *Params) { p.PostedWrite, p.NonPostedRead, p.Bus64 = W, R, bus64 }, Hooks{})
		w.At(5 * sim.Microsecond)
		want := 5 * sim.Microsecond
		var writes, reads uint64
		step := func(what string, got sim.Time, err error, cost sim.Time) {
			t.Helper()
			want += cost
			if err != nil || got != want || w.Now() != want {
				t.Errorf("bus64=%v %s: done %v (%v), want %v", bus64, what, got, err, want)
			}
		}
		d64 := sim.Time(1)
		if !bus64 {
			d64 = 2
		}
		tm, err := w.Write32(0x0, 1)
		step("Write32", tm, err, W)
		tm, err = w.Write32(SpecialOff+0x140, 1)
		step("Write32 special", tm, err, W)
		tm, err = w.Write8(0x7, 1)
		step("Write8", tm, err, W)
		tm, err = w.Write16(0x8, 1)
		step("Write16", tm, err, W)
		tm, err = w.Write64(0x10, 1)
		step("Write64", tm, err, d64*W)
		_, tm, err = w.Read32(ControlOff)
		step("Read32 control", tm, err, R)
		_, tm, err = w.Read8(EEPROMOff)
		step("Read8 EEPROM", tm, err, R)
		_, tm, err = w.Read64(0x10)
		step("Read64", tm, err, d64*R)
		tm, err = w.WriteBlock(0x101, make([]byte, 10)) // 2 words + 2 bytes
		step("WriteBlock 10", tm, err, 4*W)
		tm, err = w.WriteBlock(0x200, make([]byte, 4096)) // 1024 words
		step("WriteBlock 4096", tm, err, 1024*W)
		tm, err = w.ReadBlock(0x3, make([]byte, 7)) // 1 word + 3 bytes
		step("ReadBlock 7", tm, err, 4*R)
		tm, err = w.ReadBlock(EEPROMAltOff, make([]byte, 128))
		step("ReadBlock EEPROM", tm, err, 32*R)
		tm, err = w.WriteBlock(0x0, nil)
		step("empty block", tm, err, 0)
		// At never moves time back; later times start later.
		w.At(0)
		tm, err = w.Write32(0, 0)
		step("Write32 after At(0)", tm, err, W)
		w.At(want + sim.Microsecond)
		want += sim.Microsecond
		tm, err = w.Write32(0, 0)
		step("Write32 after a gap", tm, err, W)
		// Refused accesses cost nothing.
		if _, err := w.Write32(BARSize, 0); err == nil {
			t.Fatal("write past the BAR accepted")
		}
		if _, err := w.WriteBlock(uint32(memsys.DefaultSRAMSize)-2, make([]byte, 4)); err == nil {
			t.Fatal("block past SRAM accepted")
		}
		if _, err := w.ReadBlock(ControlOff, make([]byte, 4)); err == nil {
			t.Fatal("block read of the control register accepted")
		}
		if w.Now() != want {
			t.Errorf("refused accesses moved time to %v", w.Now())
		}
		writes = 6 + uint64(d64) + 4 + 1024 // Write32 x4, Write8, Write16, Write64 (d64), blocks
		reads = 2 + uint64(d64) + 4 + 32
		s := w.Stats()
		if s.Writes != writes || s.Reads != reads || s.PIOTime != sim.Time(writes)*W+sim.Time(reads)*R {
			t.Errorf("bus64=%v stats %+v, want %d writes %d reads", bus64, s, writes, reads)
		}
		if s.PIOTime != want-5*sim.Microsecond-sim.Microsecond {
			t.Errorf("PIOTime %v, elapsed busy %v", s.PIOTime, want-6*sim.Microsecond)
		}
	}
}

func TestPointerBank(t *testing.T) {
	var got []string
	live := uint32(0x777)
	w, _ := newWindow(t, nil, Hooks{
		WritePointer: func(i int, v uint32) { got = append(got, fmt.Sprintf("%d=%#x", i, v)) },
		ReadPointer: func(i int) uint32 {
			if i == 0 {
				return live
			}
			return 0x1000 * uint32(i)
		},
	})
	w.Write32(PointerOff, 0x100)
	w.Write32(PointerOff+8, 0x200)
	w.Write32(PointerOff+4*15, 0xF)
	if fmt.Sprint(got) != "[0=0x100 2=0x200 15=0xf]" {
		t.Errorf("WritePointer %v", got)
	}
	if v, _, _ := w.Read32(PointerOff); v != 0x777 {
		t.Errorf("live channel pointer read %#x", v)
	}
	if w.Pointer(4) != 0x4000 || w.Pointer(-1) != 0 || w.Pointer(16) != 0 {
		t.Error("Pointer")
	}
	// Without hooks the window stores the words.
	w2, _ := newWindow(t, nil, Hooks{})
	for i := range PointerWords {
		w2.Write32(PointerOff+4*uint32(i), uint32(i)*0x11)
	}
	for i := range PointerWords {
		if v, _, _ := w2.Read32(PointerOff + 4*uint32(i)); v != uint32(i)*0x11 {
			t.Errorf("word %d reads %#x", i, v)
		}
	}
}

func TestNewWindowErrors(t *testing.T) {
	mem, _ := memsys.New(memsys.DefaultSRAMSize)
	if _, err := NewWindow(nil, DefaultParams(), Hooks{}); err == nil {
		t.Error("nil memory accepted")
	}
	p := DefaultParams()
	p.Board.SRAMSize = 4 << 20
	if _, err := NewWindow(mem, p, Hooks{}); err == nil {
		t.Error("EEPROM SRAM size differing from the memory accepted")
	}
	for _, base := range []uint32{0x1000, 0xFFFFFF00, 0xFFFFF182} {
		p := DefaultParams()
		p.DoorbellRegs = base
		if _, err := NewWindow(mem, p, Hooks{}); err == nil {
			t.Errorf("doorbell registers at %#x accepted", base)
		}
	}
	big, _ := memsys.New(16 << 20)
	if _, err := NewWindow(big, DefaultParams(), Hooks{}); err == nil {
		t.Error("16 MiB of SRAM accepted in an 8 MB window")
	}
}

// TestNoPanic throws random accesses at a window; none may panic.
func TestNoPanic(t *testing.T) {
	w, _ := newWindow(t, func(p *Params) { p.DoorbellDepth = 3 }, Hooks{})
	r := sim.NewRand(1)
	offs := []uint32{0, ConfigOff, ControlOff, PointerOff, SpecialOff, DoorbellOff, EEPROMOff, EEPROMAltOff, BARSize, ^uint32(0)}
	for range 20000 {
		off := offs[r.Intn(len(offs))] + uint32(r.Intn(0x300)) - 0x100
		v := r.Uint64()
		switch r.Intn(10) {
		case 0:
			w.Write8(off, uint8(v))
		case 1:
			w.Write16(off, uint16(v))
		case 2:
			w.Write32(off, uint32(v))
		case 3:
			w.Write64(off, v)
		case 4:
			w.Read8(off)
		case 5:
			w.Read16(off)
		case 6:
			w.Read32(off)
		case 7:
			w.Read64(off)
		case 8:
			w.WriteBlock(off, make([]byte, r.Intn(300)))
		case 9:
			w.ReadBlock(off, make([]byte, r.Intn(300)))
		}
	}
}
