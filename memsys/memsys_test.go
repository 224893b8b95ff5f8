package memsys

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/objfile"
)

func TestMapAndErrors(t *testing.T) {
	if _, err := New(3); err == nil {
		t.Error("odd SRAM size accepted")
	}
	if _, err := New(MaxSRAMSize + 4); err == nil {
		t.Error("oversized SRAM accepted")
	}
	m, err := New(DefaultSRAMSize)
	require.NoError(t, err)
	var written [][2]uint32
	m.OnWrite(func(a, n uint32) { written = append(written, [2]uint32{a, n}) })
	if err := m.Write(0x100, []byte{1, 2, 3, 4}); err != nil || len(written) != 1 || written[0] != [2]uint32{0x100, 4} {
		t.Errorf("write: %v, reported %v", err, written)
	}
	if w, err := m.Word(0x100); err != nil || w != 0x01020304 {
		t.Errorf("big-endian word %#x, %v", w, err)
	}
	if err := m.Write(DefaultSRAMSize-2, []byte{1, 2, 3, 4}); err == nil {
		t.Error("write past the end of SRAM accepted")
	}
	isr, _ := SpecialByName("ISR")
	require.NoError(t, m.WriteIO(SpecialBase+isr.Off, 4, 0x55))
	if v, err := m.ReadIO(SpecialBase+isr.Off, 4); err != nil || v != 0x55 {
		t.Errorf("ISR %#x, %v", v, err)
	}
	var ae *AccessError
	if _, err := m.ReadIO(SpecialBase+4, 4); !errors.As(err, &ae) || !strings.Contains(err.Error(), "no special register") {
		t.Errorf("unknown special register: %v", err)
	}
	if _, err := m.ReadIO(SpecialBase+isr.Off, 2); err == nil || !strings.Contains(err.Error(), "word accesses only") {
		t.Errorf("half-word device access: %v", err)
	}
	if _, err := m.ReadIO(0x40000000, 4); err == nil || !strings.Contains(err.Error(), "unmapped") {
		t.Errorf("unmapped: %v", err)
	}
	if a, ok := SpecialAt(0xFFFFFE68); !ok || a.Name != "RTC" {
		t.Errorf("SpecialAt(RTC) = %v %v", a, ok)
	}
}

func TestLoad(t *testing.T) {
	m, _ := New(64 << 10)
	if _, err := m.LoadRaw([]byte{1, 2, 3, 4}, 2); err == nil {
		t.Error("unaligned raw load accepted")
	}
	if im, err := m.LoadRaw([]byte{9, 8, 7, 6}, 0x40); err != nil || im.Entry != 0x40 {
		t.Errorf("raw load: %v", err)
	}
	rel := &objfile.File{Kind: objfile.REL, Sections: []*objfile.Section{{Name: ".text", Type: objfile.SHT_PROGBITS, Flags: objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, Data: []byte{0, 0, 0, 1}, Size: 4}}}
	b, err := rel.WriteELF()
	require.NoError(t, err)
	if _, err := m.LoadFile(b); err == nil || !strings.Contains(err.Error(), "link it") {
		t.Errorf("relocatable object: %v", err)
	}
	exe := &objfile.File{Kind: objfile.EXEC, Entry: 0x1000, Sections: []*objfile.Section{
		{Name: ".text", Type: objfile.SHT_PROGBITS, Flags: objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, Addr: 0x1000, Data: []byte{0, 0, 0, 1}, Size: 4},
		{Name: ".bss", Type: objfile.SHT_NOBITS, Flags: objfile.SHF_ALLOC | objfile.SHF_WRITE, Addr: 0x2000, Size: 8},
	}}
	m.Write(0x2000, []byte{0xff, 0xff})
	b, err = exe.WriteELF()
	require.NoError(t, err)
	im, err := m.LoadFile(b)
	if err != nil || im.Entry != 0x1000 {
		t.Fatalf("load: %v", err)
	}
	if w, _ := m.Word(0x1000); w != 1 {
		t.Errorf("text word %#x", w)
	}
	if w, _ := m.Word(0x2000); w != 0 {
		t.Errorf(".bss not zeroed: %#x", w)
	}
	exe.Sections[0].Addr = 0x20000 // beyond 64 KiB of SRAM
	b, _ = exe.WriteELF()
	if _, err := m.LoadFile(b); err == nil || !strings.Contains(err.Error(), "outside SRAM") {
		t.Errorf("section outside SRAM: %v", err)
	}
	if _, err := m.LoadFile([]byte("not an image")); err == nil {
		t.Error("garbage accepted")
	}
}

// Tools read special registers through Peek, which the owner can make
// side-effect free.
func TestPeek(t *testing.T) {
	s := NewSpecialRegs()
	reads := 0
	isr, _ := SpecialByName("ISR")
	s.Hook(isr.Off, func() uint32 { reads++; return 7 }, nil)
	if v, _ := s.Peek(isr.Off); v != 7 || reads != 1 {
		t.Errorf("without a peek: %d, %d reads", v, reads)
	}
	s.SetPeek(func(off uint32) (uint32, error) { return 9, nil })
	if v, _ := s.Peek(isr.Off); v != 9 || reads != 1 {
		t.Errorf("with a peek: %d, %d reads", v, reads)
	}
	if !strings.Contains(s.String(), "ISR      00000009") {
		t.Errorf("String does not peek:\n%s", s)
	}
}

// constDevice reads v everywhere and takes writes silently.
type constDevice uint32

func (d constDevice) Read32(uint32) (uint32, error) { return uint32(d), nil }
func (d constDevice) Write32(uint32, uint32) error  { return nil }

// ReadIO and WriteIO go straight to the special registers in their
// window: that is what the map gives, since New maps the window first and
// a later mapping over it is never reached.
func TestSpecialWindowIsTheFirstMapping(t *testing.T) {
	m, err := New(DefaultSRAMSize)
	require.NoError(t, err)
	m.Map(SpecialBase-0x100, 0x400, constDevice(0xdead), "over the window")
	led, _ := SpecialByName("LED")
	dev, off, ok := m.device(SpecialBase + led.Off)
	if sp, isSp := dev.(*SpecialRegs); !ok || !isSp || sp != m.Specials || off != led.Off {
		t.Fatalf("the map gives %v at %#x for LED, not the special registers", dev, off)
	}
	require.NoError(t, m.WriteIO(SpecialBase+led.Off, 4, 7))
	if v, err := m.ReadIO(SpecialBase+led.Off, 4); err != nil || v != 7 {
		t.Errorf("LED reads %#x, %v; want 7", v, err)
	}
	if v, err := m.ReadIO(SpecialBase-0x100, 4); err != nil || v != 0xdead {
		t.Errorf("below the window %#x, %v; want the other device's 0xdead", v, err)
	}
}

// Every access of 1, 2 or 4 bytes at every address of the window and just
// below it gives through ReadIO and WriteIO the value and the error the
// map search gives (mapRead, mapWrite): sub-word and misaligned ones too.
func TestSpecialWindowAccessesAsTheMap(t *testing.T) {
	fast, err := New(DefaultSRAMSize)
	require.NoError(t, err)
	slow, err := New(DefaultSRAMSize)
	require.NoError(t, err)
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for a := uint64(SpecialBase - 8); a < 1<<32+8; a++ { // (and past the wrap: SRAM is not ReadIO's)
		for _, size := range []int{1, 2, 4} {
			addr, v := uint32(a), uint32(a)*7+uint32(size)
			if e1, e2 := fast.WriteIO(addr, size, v), slow.mapWrite(addr, size, v); errText(e1) != errText(e2) {
				t.Fatalf("%d-byte write at %#x: %v, the map %v", size, addr, e1, e2)
			}
			v1, e1 := fast.ReadIO(addr, size)
			v2, e2 := slow.mapRead(addr, size)
			if v1 != v2 || errText(e1) != errText(e2) {
				t.Fatalf("%d-byte read at %#x: %#x, %v; the map %#x, %v", size, addr, v1, e1, v2, e2)
			}
		}
	}
	if fast.Specials.Writes() != slow.Specials.Writes() || fast.Specials.Writes() == 0 {
		t.Errorf("%d writes counted, the map %d", fast.Specials.Writes(), slow.Specials.Writes())
	}
}

// A special register is at its offset only: every other offset of the
// window and past it, the misaligned ones inside a register's word too,
// reads and writes as an error and is never stable.
func TestSpecialRegsOnlyAtTheirOffsets(t *testing.T) {
	s := NewSpecialRegs()
	for off := uint32(0); off < SpecialSize+8; off++ {
		_, known := SpecialAt(SpecialBase + off)
		werr := s.Write32(off, off+1)
		v, rerr := s.Read32(off)
		switch until := s.StableUntil(off); {
		case known && (werr != nil || rerr != nil || v != off+1 || until != ^uint64(0)):
			t.Fatalf("register at %#x: write %v, read %#x, %v, stable until %d", off, werr, v, rerr, until)
		case !known && (werr == nil || rerr == nil || until != 0):
			t.Fatalf("nothing at %#x: write %v, read %v, stable until %d", off, werr, rerr, until)
		}
	}
}
