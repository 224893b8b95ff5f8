package main

import (
	"fmt"

	"lanaiemu/board"
	"lanaiemu/lanai"
	"lanaiemu/memsys"
)

// item is one name the headers define: a register at an address, or a
// constant (a bit mask, an offset, a size).
type item struct {
	Name  string // the assembler's name; C's is "LANAI9_" + Name
	Value uint32 // the register's address, or the constant
	Doc   string // one line
}

// group is a run of items under one heading, which says where the values
// come from: LANai 9.2 hardware (with the evidence docs/hardware.md
// cites) or an emulator extension.
type group struct {
	Title string
	Notes []string // comment lines under the title
	Reg   bool     // items are registers: C lvalues, r0-relative in assembly
	Items []item
}

// groups gathers everything the headers define from the Go tables, in
// the order the headers list it.
func groups() []group {
	var specials, isr, pulse, desc, ptrs, sim []item
	for _, r := range memsys.SpecialRegisters {
		specials = append(specials, item{r.Name, memsys.SpecialBase + r.Off, r.Doc})
	}
	for _, b := range board.ISRBits {
		isr = append(isr, item{"ISR_" + b.Name, b.Mask, b.Doc})
	}
	for bit, p := range board.PulseBits {
		pulse = append(pulse, item{fmt.Sprintf("PULSE_CH%d", p.Channel), 1 << bit, fmt.Sprintf("PULSE bit %d %s", bit, p.Doc)})
	}
	for _, f := range board.DescriptorFields {
		desc = append(desc, item{"DESC_" + f.Name, f.Value, fmt.Sprintf("offset of a %d-byte field: %s", f.Size, f.Doc)})
	}
	desc = append(desc, item{"DESC_SIZE", board.DescriptorSize, "bytes of a descriptor; descriptors are 8-byte aligned"})
	for _, f := range board.DescriptorFlags {
		desc = append(desc, item{"DESC_" + f.Name, f.Value, "flag in DESC_NEXT: " + f.Doc})
	}
	for ch := range board.NumChannels {
		doc := fmt.Sprintf("channel %d's descriptor pointer: read the next descriptor's address, write to set it", ch)
		ptrs = append(ptrs, item{fmt.Sprintf("DMAPTR%d", ch), board.DMAPointerBase + 4*uint32(ch), doc})
	}
	for _, r := range lanai.SimCtlRegisters {
		sim = append(sim, item{"SIM_" + r.Name, memsys.SimCtlBase + r.Off, r.Doc})
	}
	return []group{
		{
			Title: "Special registers: LANai 9.2 hardware",
			Notes: []string{
				"Word registers at 0xFFFFFE00 + offset (lanai9-hw.md 3.1; docs/hardware.md",
				"\"Special registers\" says what the board does with each). Assembly reaches",
				"them r0-relative: ld ISR[%r0], %r7. After a store to any of them, read ISR",
				"no sooner than the second instruction (one nop: docs/hardware.md \"The write hazard\").",
			},
			Reg: true, Items: specials,
		},
		{
			Title: "ISR bits: LANai 9.2 hardware",
			Notes: []string{
				"docs/hardware.md \"ISR bits\" (evidence: Myricom's include/lanai9_def.h). Latched",
				"bits are cleared by writing 1; level bits follow the link engines.",
			},
			Items: isr,
		},
		{
			Title: "PULSE bits: LANai 9.2 hardware",
			Notes: []string{
				"A 1 written to PULSE starts a host-DMA channel (docs/hardware.md \"Channels and",
				"starting them\"); channel 3 has no bit (the host starts it).",
			},
			Items: pulse,
		},
		{
			Title: "Host DMA descriptor: LANai 9.2 hardware",
			Notes: []string{
				"24 bytes, big-endian, 8-byte aligned in SRAM (docs/hardware.md \"Descriptors\").",
			},
			Items: desc,
		},
		{
			Title: "DMA channel pointers: EMULATOR EXTENSION",
			Notes: []string{
				"Not on the LANai 9.2: the real board's channel pointers are written by the host",
				"only (BAR + 0x800100). The emulated board also maps them here for the LANai, so",
				"that firmware can start a DMA without a host (docs/hardware.md).",
			},
			Reg: true, Items: ptrs,
		},
		{
			Title: "Simulation-control device: EMULATOR EXTENSION",
			Notes: []string{
				"Not on the LANai 9.2: the emulator's own device at 0xFFFFF000 (docs/runtime.md",
				"\"Simulation-control device\"); lanai.h builds console output and exit on it.",
			},
			Reg: true, Items: sim,
		},
	}
}
