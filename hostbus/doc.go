// Package hostbus is the PCI side of a LANai 9.2 board as a modelled
// FreeBSD 4.6 i386 host sees it (docs/hostbus.md):
//
//   - HostMemory: the host's physical memory, sparse 4 KiB page frames,
//     which the board's DMA engine reads and writes (ReadHost/WriteHost)
//     and host models use through little-endian and page-frame accessors.
//     An access past its end is a "wild DMA address" error.
//   - Window: the board through its 16 MB BAR0: SRAM at 0, the board
//     control register at 0x800040 (little-endian), the pointer bank at
//     0x800100, the LANai special registers at 0x804000, the doorbell
//     region from 0x808000 with its FIFO in SRAM, and the 128-byte EEPROM
//     at 0x880000 and 0xA00000. Programmed I/O returns the completion time
//     of each access from two costs: posted writes and non-posted reads.
//   - The interrupt line: the board's output (SetIRQ) ANDed with the
//     control register's interrupt enable, observed by host models (OnIRQ).
//   - LoadFirmware: reset, clock, copy an executable into SRAM by PIO and
//     start it, as a host driver does.
//
// Byte order: the PCI bridge passes byte lanes straight through. SRAM,
// the EEPROM and the doorbell data keep their byte order, so a big-endian
// LANai word 0x11223344 reads as 0x44332211 in a 32-bit host read; the
// special registers read byte-swapped for the same reason; the control
// register and the pointer bank are little-endian registers and read as
// they are.
//
// The package sits above the LANai core and memory system (it imports
// memsys, objfile and sim) and below the VM model; the board's devices
// reach it only through interfaces they declare (HostMemory's
// ReadHost/WriteHost) and the callbacks of Hooks.
package hostbus
