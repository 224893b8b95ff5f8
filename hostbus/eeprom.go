package hostbus

import (
	"encoding/binary"
	"fmt"
)

// EEPROMSize is the size of the board EEPROM image (struct MYRINET_EEPROM).
const EEPROMSize = 128

// EEPROM field offsets (GM 2.0.21 myriInterface.h struct MYRINET_EEPROM;
// lanai9-hw.md section 1.2). Every multi-byte field is big-endian.
const (
	EEClockVal      = 0x00 // u32 lanai_clockval
	EECPUVersion    = 0x04 // u16 lanai_cpu_version
	EEBoardID       = 0x06 // u8[6] lanai_board_id (the MAC address)
	EESRAMSize      = 0x0C // u32 lanai_sram_size
	EEFPGAVersion   = 0x10 // u8[32] fpga_version
	EEMoreVersion   = 0x30 // u8[16] more_version
	EEDelayLine     = 0x40 // u16 delay_line_value (PCI32 boards only)
	EEBoardType     = 0x42 // u16 board_type
	EEBusType       = 0x44 // u16 bus_type
	EEProductCode   = 0x46 // u16 product_code
	EESerial        = 0x48 // u32 serial_number
	EEBoardLabel    = 0x4C // u8[32] board_label
	EEMaxSpeed      = 0x6C // u16 max_lanai_speed (MHz)
	EEVoltageCode   = 0x6E // u8 voltage_code
	EEPadVoltage    = 0x6F // u8 pad_voltage_code
	EEFutureUse     = 0x70 // u16[6] future_use
	EEUnused        = 0x7C // u32 unused_4_bytes
	BoardTypeL5     = 3    // MYRINET_BOARDTYPE_L5: every PCI64 board
	BusTypePCI      = 2    // MYRINET_BUS_PCI
	eeFPGAVersionSz = 32
	eeMoreVersionSz = 16
	eeBoardLabelSz  = 32
)

// Board describes one board as its EEPROM does.
type Board struct {
	Part        string // product name, e.g. "M2L-PCI64C-2"
	ProductCode uint16 // Myricom product code (myriProm.h), e.g. 93
	CPUVersion  uint16 // 0x0902 = LANai 9.2
	ClockVal    uint32 // lanai_clockval, the CLOCK register value
	MaxSpeedMHz uint16 // max_lanai_speed
	// ClockHz is the RISC clock the board runs at: its product's rated
	// clock (PCI64B 133 MHz, PCI64C 200 MHz; lanai9-hw.md 1.1, 7.1). It is
	// not in the EEPROM image (the host programs the PLL from ClockVal).
	ClockHz     uint64
	SRAMSize    uint32  // bytes; 0 = the size of the attached memory
	Serial      uint32  // serial number
	MAC         [6]byte // lanai_board_id; zero = derived from Serial (see BoardFor)
	FPGAVersion string  // at most 31 bytes
	MoreVersion string  // at most 15 bytes
	// Label is the board label; "" means Part-%05d of Serial, the format
	// of myriProm.h's names table. At most 31 bytes.
	Label string
	// VoltageCode and PadVoltageCode are 0xFF on every PCI64C product
	// entry of myriProm.h except the M3S boards.
	VoltageCode, PadVoltageCode uint8
}

// product is a row of myriProm.h's product table (LANai 9 boards only).
type product struct {
	part  string
	code  uint16
	clock uint32
	cpu   uint16
	speed uint16
	sram  uint32
	hz    uint64
}

// Rated RISC clocks: "133MHz for the PMC64B, and 200MHz for the PMC64C"
// (Myricom's m3m-pmc64b.html; lanai9-hw.md 1.1); the EEPROM's
// max_lanai_speed (134, 202) is the PLL's ceiling just above them.
const (
	clockPCI64B = 133_000_000
	clockPCI64C = 200_000_000
)

// products lists the LANai 9 PCI64B/C entries of GM 2.0.21 myriProm.h.
var products = []product{
	{"M3M-PCI64B-2", 62, 0x082082A0, 0x0900, 134, 2 << 20, clockPCI64B},
	{"M3M-PCI64B-4", 63, 0x082082A0, 0x0900, 134, 4 << 20, clockPCI64B},
	{"M2L-PCI64B-2", 74, 0x082082A0, 0x0900, 134, 2 << 20, clockPCI64B},
	{"M3M-PCI64B-8", 75, 0x082082A0, 0x0900, 134, 8 << 20, clockPCI64B},
	{"M2L-PCI64B-4", 80, 0x082082A0, 0x0900, 134, 4 << 20, clockPCI64B},
	{"M3F-PCI64B-2", 83, 0x082082A0, 0x0900, 134, 2 << 20, clockPCI64B},
	{"M3F-PCI64B-4", 84, 0x082082A0, 0x0900, 134, 4 << 20, clockPCI64B},
	{"M3F-PCI64B-8", 87, 0x082082A0, 0x0900, 134, 8 << 20, clockPCI64B},
	{"M2L-PCI64C-2", 93, 0x032072A0, 0x0902, 202, 2 << 20, clockPCI64C},
	{"M2L-PCI64C-4", 94, 0x032072A0, 0x0902, 202, 4 << 20, clockPCI64C},
	{"M3F-PCI64C-2", 95, 0x032072A0, 0x0902, 202, 2 << 20, clockPCI64C},
	{"M3F-PCI64C-4", 96, 0x032072A0, 0x0902, 202, 4 << 20, clockPCI64C},
	{"M3F-PCI64C-8", 98, 0x032072A0, 0x0902, 202, 8 << 20, clockPCI64C},
	{"M3M-PCI64C-2", 99, 0x032072A0, 0x0902, 202, 2 << 20, clockPCI64C},
	{"M3M-PCI64C-4", 100, 0x032072A0, 0x0902, 202, 4 << 20, clockPCI64C},
	{"M3M-PCI64C-8", 101, 0x032072A0, 0x0902, 202, 8 << 20, clockPCI64C},
}

// DefaultPart is the thesis' board (docs/hardware.md, "Boards"): the
// LANai 9.2 (myriProm.h gives cpu_version 0x0902 only to PCI64C products)
// on the 1.28 Gb/s (160 MB/s) Myrinet-LAN link that NetVM's 97.2 % implies
// (M2L), with 2 MB of SRAM: the M2L-PCI64C-2 at 200 MHz.
const DefaultPart = "M2L-PCI64C-2"

// BoardFor returns the Board of a LANai 9 PCI64B/C product of myriProm.h
// (e.g. "M2L-PCI64C-2", "M3F-PCI64B-4") with a serial number; a family
// name without the SRAM suffix ("M2L-PCI64B") names its 2 MB board. The
// MAC address is Myricom's OUI 00:60:DD followed by the low 24 bits of the
// serial (a choice: real boards were programmed at the factory).
func BoardFor(part string, serial uint32) (Board, error) {
	for _, p := range products {
		if p.part == part || p.part == part+"-2" {
			return Board{
				Part: p.part, ProductCode: p.code, CPUVersion: p.cpu, ClockVal: p.clock,
				MaxSpeedMHz: p.speed, ClockHz: p.hz, SRAMSize: p.sram, Serial: serial,
				MAC:         [6]byte{0x00, 0x60, 0xDD, byte(serial >> 16), byte(serial >> 8), byte(serial)},
				VoltageCode: 0xFF, PadVoltageCode: 0xFF,
			}, nil
		}
	}
	names := ""
	for i, p := range products {
		if i > 0 {
			names += ", "
		}
		names += p.part
	}
	return Board{}, fmt.Errorf("hostbus: unknown board %q (known: %s)", part, names)
}

// putString stores s NUL-padded in a field of n bytes, keeping a NUL.
func putString(dst []byte, s, field string, n int) error {
	if len(s) > n-1 {
		return fmt.Errorf("hostbus: EEPROM %s %q is longer than %d bytes", field, s, n-1)
	}
	copy(dst[:n], s)
	return nil
}

// EEPROMImage builds the 128-byte EEPROM image of b (big-endian fields).
// sramSize is used when b.SRAMSize is zero.
func (b Board) EEPROMImage(sramSize uint32) ([EEPROMSize]byte, error) {
	var e [EEPROMSize]byte
	be := binary.BigEndian
	if b.SRAMSize == 0 {
		b.SRAMSize = sramSize
	}
	be.PutUint32(e[EEClockVal:], b.ClockVal)
	be.PutUint16(e[EECPUVersion:], b.CPUVersion)
	copy(e[EEBoardID:EEBoardID+6], b.MAC[:])
	be.PutUint32(e[EESRAMSize:], b.SRAMSize)
	label := b.Label
	if label == "" && b.Part != "" {
		label = fmt.Sprintf("%s-%05d", b.Part, b.Serial)
	}
	if err := putString(e[EEFPGAVersion:], b.FPGAVersion, "fpga_version", eeFPGAVersionSz); err != nil {
		return e, err
	}
	if err := putString(e[EEMoreVersion:], b.MoreVersion, "more_version", eeMoreVersionSz); err != nil {
		return e, err
	}
	if err := putString(e[EEBoardLabel:], label, "board_label", eeBoardLabelSz); err != nil {
		return e, err
	}
	be.PutUint16(e[EEDelayLine:], 0)
	be.PutUint16(e[EEBoardType:], BoardTypeL5)
	be.PutUint16(e[EEBusType:], BusTypePCI)
	be.PutUint16(e[EEProductCode:], b.ProductCode)
	be.PutUint32(e[EESerial:], b.Serial)
	be.PutUint16(e[EEMaxSpeed:], b.MaxSpeedMHz)
	e[EEVoltageCode] = b.VoltageCode
	e[EEPadVoltage] = b.PadVoltageCode
	return e, nil
}
