package hostbus

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/objfile"
	"lanaiemu/sim"
)

// smallFirmware is a few lines of firmware: set the LED, raise HOST_SIG,
// idle; with a word of data and some .bss.
const smallFirmware = `
	.text
	.globl	_start
_start:
	mov	1, %r3
	st	%r3, -192[%r0]		! LED = 1
	mov	0x40000000, %r3
	st	%r3, -432[%r0]		! ISR = HOST_SIG
idle:
	bt	idle
	nop
	.data
	.globl	magic
magic:
	.word	0x11223344
	.byte	0xAB
	.bss
	.globl	zeroed
zeroed:
	.zero	22
`

// buildELF assembles and links src into an executable ELF image.
func buildELF(t *testing.T, src string, opt link.Options) ([]byte, *objfile.File) {
	t.Helper()
	res, err := asm.Assemble([]asm.Source{{Name: "fw.s", Text: []byte(src)}}, asm.Options{})
	require.NoError(t, err)
	exe, err := link.Link([]*objfile.File{res.Object}, []string{"fw.s"}, opt)
	require.NoError(t, err)
	img, err := exe.WriteELF()
	require.NoError(t, err)
	return img, exe
}

func TestLoadFirmware(t *testing.T) {
	img, exe := buildELF(t, smallFirmware, link.Options{})
	var resets []ResetLines
	var ies []bool
	const W, R = 100 * sim.Nanosecond, 600 * sim.Nanosecond
	w, mem := newWindow(t, func(p *Params) { p.PostedWrite, p.NonPostedRead = W, R }, Hooks{
		Reset:           func(r ResetLines) { resets = append(resets, r) },
		InterruptEnable: func(on bool) { ies = append(ies, on) },
	})
	for i := range mem.SRAM[:0x1000] {
		mem.SRAM[i] = 0xEE // garbage, so that the .bss clearing shows
	}
	// The firmware is running when the driver reloads it.
	w.Write32(ControlOff, CtlResetOff|CtlEResetOff)
	resets = nil
	w.At(3 * sim.Microsecond)
	start := w.Now()

	took, err := w.LoadFirmware(img)
	require.NoError(t, err)
	// Expected PIO: 3 control/CLOCK writes, the sections as bcopy does them
	// (n/4 words + n%4 bytes), the start write; all posted.
	writes := uint64(4)
	for _, s := range exe.Sections {
		n := int(s.Size)
		writes += uint64(n/4 + n%4)
		var want []byte
		if s.Type == objfile.SHT_NOBITS {
			want = make([]byte, n)
		} else {
			want = s.Data
		}
		if got := mem.SRAM[s.Addr : s.Addr+s.Size]; !bytes.Equal(got, want) {
			t.Errorf("section %s at %#x: SRAM % x, want % x", s.Name, s.Addr, got, want)
		}
	}
	if took != sim.Time(writes)*W || w.Now() != start+took {
		t.Errorf("LoadFirmware took %v (now %v), want %d posted writes = %v", took, w.Now(), writes, sim.Time(writes)*W)
	}
	if s := w.Stats(); s.Reads != 0 {
		t.Errorf("the load read the board %d times", s.Reads)
	}
	// The first instruction is at 0 (mov 1, %r3) and the data word is big-endian in SRAM.
	if v, _ := mem.Word(0); v == 0 {
		t.Error("no code at address 0")
	}
	var magic uint32
	for _, s := range exe.Symbols {
		if s.Name == "magic" {
			magic = s.Value
		}
	}
	if v, _ := mem.Word(magic); v != 0x11223344 {
		t.Errorf("magic = %#x", v)
	}
	// CLOCK got the EEPROM value as Cplant's driver programs it.
	if v, _ := mem.Specials.Read32(RegCLOCK); v != ClockRegister(0x032072A0) || v != 0x032072A0 {
		t.Errorf("CLOCK = %#x", v)
	}
	// Reset was asserted, then everything released, interrupts on, 64-bit.
	if d := cmp.Diff([]ResetLines{{LANai: true, EBUS: true}, {}}, resets); d != "" {
		t.Errorf("resets (-want +got):\n%s", d)
	}
	if w.Control()&^CtlReq64 != CtlResetOff|CtlEResetOff|CtlBResetOff|CtlIntEnable|CtlForce64 {
		t.Errorf("control after load %#08x", w.Control())
	}
	if len(ies) < 2 || ies[len(ies)-1] != true {
		t.Errorf("interrupt enable %v", ies)
	}
	if ClockRegister(0x082082A0) != 0x082082A0 || ClockRegister(0x0300038F) != 0x030003AF {
		t.Error("ClockRegister")
	}
}

func TestLoadFirmwareErrors(t *testing.T) {
	w, _ := newWindow(t, nil, Hooks{})
	if _, err := w.LoadFirmware([]byte("junk")); err == nil {
		t.Error("junk accepted")
	}
	res, err := asm.Assemble([]asm.Source{{Name: "x.s", Text: []byte(smallFirmware)}}, asm.Options{})
	require.NoError(t, err)
	rel, err := res.Object.WriteELF()
	require.NoError(t, err)
	if _, err := w.LoadFirmware(rel); err == nil || !strings.Contains(err.Error(), "relocatable") {
		t.Errorf("relocatable object: %v", err)
	}
	moved, _ := buildELF(t, smallFirmware, link.Options{TextAddr: 0x400})
	if _, err := w.LoadFirmware(moved); err == nil || !strings.Contains(err.Error(), "address 0") {
		t.Errorf("entry at 0x400: %v", err)
	}
	big, _ := buildELF(t, smallFirmware, link.Options{TextAddr: 0x300000, SRAMSize: 4 << 20, Entry: "0"})
	if _, err := w.LoadFirmware(big); err == nil || !strings.Contains(err.Error(), "outside SRAM") {
		t.Errorf("image beyond a 2 MiB SRAM: %v", err)
	}
	if w.Now() != 0 || w.Stats().Writes != 0 {
		t.Error("a refused image cost PIO")
	}
}
