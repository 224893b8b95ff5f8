package main

import (
	"encoding/binary"
	"fmt"
	"strings"

	"lanaiemu/isa"
	"lanaiemu/memsys"
	"lanaiemu/objfile"
)

// boardHint names the LANai 9.2 special registers an image's code
// addresses r0-relative (`ld ISR[%r0]`, what lanai9.h and lanai9.inc
// compile to), with the first instruction that does: lanai-emu runs the
// core alone, so a program that waits on the board's timers, DMA or link
// spins until the cycle limit. It returns "" when the code names none
// (raw images, or registers reached through a computed address).
func boardHint(img *memsys.Image) string {
	if img == nil || img.File == nil {
		return ""
	}
	type use struct {
		name string
		pc   uint32
	}
	var uses []use
	seen := map[string]bool{}
	for _, s := range img.File.Sections {
		if s.Flags&objfile.SHF_EXECINSTR == 0 || s.Type == objfile.SHT_NOBITS {
			continue
		}
		for off := 0; off+4 <= len(s.Data); off += 4 {
			in := isa.Decode(binary.BigEndian.Uint32(s.Data[off:]))
			if in.Class != isa.RM || in.Rs1 != isa.R0 || in.Mode != isa.ModeOffset {
				continue
			}
			r, ok := memsys.SpecialAt(in.Imm)
			if !ok || seen[r.Name] {
				continue
			}
			seen[r.Name] = true
			uses = append(uses, use{r.Name, s.Addr + uint32(off)})
		}
	}
	if len(uses) == 0 {
		return ""
	}
	names := make([]string, 0, 3)
	for i, u := range uses {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(uses)-3))
			break
		}
		names = append(names, fmt.Sprintf("%s at pc %#08x", u.name, u.pc))
	}
	return "the program uses the board's special registers (" + strings.Join(names, ", ") +
		"), and lanai-emu runs the core alone, without the board's timers, DMA or link; run it on a board with lanai-sim --firmware"
}
