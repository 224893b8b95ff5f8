package hostbus

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/memsys"
)

// TestEEPROMLayout checks every byte of the image against the layout of
// lanai9-hw.md section 1.2 (GM 2.0.21 myriInterface.h) and the product
// table of myriProm.h (entry 93: clockval 0x032072a0, cpu 0x0902, 2 MB,
// board type L5 = 3, bus PCI = 2, max speed 202).
func TestEEPROMLayout(t *testing.T) {
	b, err := BoardFor("M2L-PCI64C-2", 12345)
	require.NoError(t, err)
	e, err := b.EEPROMImage(0)
	require.NoError(t, err)
	var want [128]byte
	put := func(off int, bs ...byte) { copy(want[off:], bs) }
	put(0x00, 0x03, 0x20, 0x72, 0xA0)             // lanai_clockval
	put(0x04, 0x09, 0x02)                         // lanai_cpu_version: LANai 9.2
	put(0x06, 0x00, 0x60, 0xDD, 0x00, 0x30, 0x39) // board id: OUI + serial 12345 = 0x3039
	put(0x0C, 0x00, 0x20, 0x00, 0x00)             // SRAM: 2 MB
	put(0x42, 0x00, 0x03)                         // board_type L5
	put(0x44, 0x00, 0x02)                         // bus_type PCI
	put(0x46, 0x00, 93)                           // product code
	put(0x48, 0x00, 0x00, 0x30, 0x39)             // serial
	put(0x4C, []byte("M2L-PCI64C-2-12345")...)    // board label
	put(0x6C, 0x00, 202)                          // max_lanai_speed
	put(0x6E, 0xFF, 0xFF)                         // voltage codes
	if e != want {
		t.Errorf("EEPROM image\n% x\nwant\n% x", e[:], want[:])
	}

	b, _ = BoardFor("M3F-PCI64B-4", 7)
	b.FPGAVersion, b.MoreVersion, b.Label = "fpga 1.0", "more", "label"
	e, err = b.EEPROMImage(0)
	require.NoError(t, err)
	checks := []struct {
		off  int
		want []byte
	}{
		{EEClockVal, []byte{0x08, 0x20, 0x82, 0xA0}},
		{EECPUVersion, []byte{0x09, 0x00}},
		{EESRAMSize, []byte{0x00, 0x40, 0x00, 0x00}},
		{EEFPGAVersion, []byte("fpga 1.0\x00")},
		{EEMoreVersion, []byte("more\x00")},
		{EEProductCode, []byte{0, 84}},
		{EEBoardLabel, []byte("label\x00")},
		{EEMaxSpeed, []byte{0, 134}},
		{EEUnused, []byte{0, 0, 0, 0}},
	}
	for _, c := range checks {
		if got := e[c.off : c.off+len(c.want)]; !bytes.Equal(got, c.want) {
			t.Errorf("field at %#x: % x, want % x", c.off, got, c.want)
		}
	}
	if _, err := BoardFor("M9X-PCI64Z", 1); err == nil || !strings.Contains(err.Error(), "M2L-PCI64C-2") {
		t.Errorf("unknown board: %v", err)
	}
	b.Label = strings.Repeat("x", 32)
	if _, err := b.EEPROMImage(0); err == nil {
		t.Error("32-byte label accepted (no room for the NUL)")
	}
	b.Label, b.FPGAVersion = "", strings.Repeat("x", 40)
	if _, err := b.EEPROMImage(0); err == nil {
		t.Error("40-byte fpga_version accepted")
	}
	b.FPGAVersion, b.MoreVersion = "", strings.Repeat("x", 16)
	if _, err := b.EEPROMImage(0); err == nil {
		t.Error("16-byte more_version accepted")
	}
}

// TestEEPROMThroughWindow reads the EEPROM the way Cplant's driver does:
// at BAR0 + 0xA00000 (and the MyrinetPCI.h address 0x880000), big-endian
// fields that the host byte-swaps (ntohl).
func TestEEPROMThroughWindow(t *testing.T) {
	mem, _ := memsys.New(4 << 20)
	p := DefaultParams()
	p.Board, _ = BoardFor("M2L-PCI64C-4", 42)
	w, err := NewWindow(mem, p, Hooks{})
	require.NoError(t, err)
	img := w.EEPROM()
	for _, base := range []uint32{EEPROMOff, EEPROMAltOff, EEPROMOff + 128, BARSize - 128} {
		got := make([]byte, 128)
		if _, err := w.ReadBlock(base, got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, img[:]) {
			t.Errorf("EEPROM at %#x differs", base)
		}
		clock, _, _ := w.Read32(base + EEClockVal)
		if swap32(clock) != 0x032072A0 {
			t.Errorf("ntohl(clockval) at %#x = %#x", base, swap32(clock))
		}
		size, _, _ := w.Read32(base + EESRAMSize)
		if swap32(size) != 4<<20 {
			t.Errorf("ntohl(sram_size) = %#x", swap32(size))
		}
		cpu, _, _ := w.Read16(base + EECPUVersion)
		if cpu>>8|cpu<<8 != 0x0902 {
			t.Errorf("ntohs(cpu_version) = %#x", cpu>>8|cpu<<8)
		}
		id, _, _ := w.Read8(base + EEBoardID + 5)
		if id != 42 {
			t.Errorf("board id byte 5 = %d", id)
		}
	}
	// The default window's EEPROM follows the memory's size.
	w2, m2 := newWindow(t, nil, Hooks{})
	e := w2.EEPROM()
	if got := fmt.Sprintf("% x", e[EESRAMSize:EESRAMSize+4]); got != "00 20 00 00" || len(m2.SRAM) != 2<<20 {
		t.Errorf("default SRAM size field %s", got)
	}
	if got := string(bytes.TrimRight(e[EEBoardLabel:EEBoardLabel+32], "\x00")); got != "M2L-PCI64C-2-00001" {
		t.Errorf("default label %q", got)
	}
	// An over-long string is a NewWindow error.
	p.Board.MoreVersion = strings.Repeat("m", 20)
	if _, err := NewWindow(mem, p, Hooks{}); err == nil {
		t.Error("NewWindow accepted an over-long EEPROM string")
	}
}

// A board preset carries its rated clock, and a family name names its
// 2 MB board.
func TestBoardClock(t *testing.T) {
	for _, c := range []struct {
		name, part string
		hz         uint64
		cpu        uint16
	}{
		{"M2L-PCI64B", "M2L-PCI64B-2", 133_000_000, 0x0900},
		{"M2L-PCI64C", "M2L-PCI64C-2", 200_000_000, 0x0902},
		{"M3F-PCI64B-4", "M3F-PCI64B-4", 133_000_000, 0x0900},
		{DefaultPart, "M2L-PCI64C-2", 200_000_000, 0x0902},
	} {
		b, err := BoardFor(c.name, 1)
		require.NoError(t, err)
		if b.Part != c.part || b.ClockHz != c.hz || b.CPUVersion != c.cpu {
			t.Errorf("%s: %s at %d Hz, cpu %#x; want %s at %d Hz, cpu %#x", c.name, b.Part, b.ClockHz, b.CPUVersion, c.part, c.hz, c.cpu)
		}
	}
	if _, err := BoardFor("M2L-PCI64", 1); err == nil {
		t.Error("M2L-PCI64 named a board")
	}
}
