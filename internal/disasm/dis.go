package disasm

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"lanaiemu/isa"
	"lanaiemu/objfile"
)

// symInfo is a symbol as the disassembler uses it: for labels and branch
// target annotations.
type symInfo struct {
	addr uint64
	name string
	typ  uint8
}

// compareSym orders symbols as llvm-objdump's SymbolInfoTy: by address,
// then name, then type.
func compareSym(a, b symInfo) int {
	if c := cmp.Compare(a.addr, b.addr); c != 0 {
		return c
	}
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	return cmp.Compare(a.typ, b.typ)
}

// disassembler holds the state of one -d run over an object.
type disassembler struct {
	o        *object
	b        *bytes.Buffer
	zeroes   bool
	allSyms  map[int][]symInfo // by section index
	absSyms  []symInfo         // undefined, absolute and common symbols
	secAddrs []*section        // sections by address, then size
}

// disassemble prints the disassembly of every non-empty executable
// section, with relocations inline when inlineRelocs is set.
func (o *object) disassemble(b *bytes.Buffer, inlineRelocs, zeroes bool) error {
	d := &disassembler{o: o, b: b, zeroes: zeroes, allSyms: map[int][]symInfo{}}
	for _, s := range o.symbols {
		if s.name == "" || s.typ == objfile.STT_SECTION {
			continue
		}
		si := symInfo{addr: o.address(s), name: s.name, typ: s.typ}
		if s.sec != nil {
			d.allSyms[s.sec.index] = append(d.allSyms[s.sec.index], si)
		} else {
			d.absSyms = append(d.absSyms, si)
		}
	}
	for _, syms := range d.allSyms {
		slices.SortStableFunc(syms, compareSym)
	}
	slices.SortStableFunc(d.absSyms, compareSym)
	d.secAddrs = slices.Clone(o.sections)
	slices.SortStableFunc(d.secAddrs, func(a, b *section) int {
		if c := cmp.Compare(a.addr, b.addr); c != 0 {
			return c
		}
		return cmp.Compare(a.size, b.size)
	})

	for _, sec := range o.sections {
		if !sec.isText() || sec.isVirtual() || sec.size == 0 {
			continue
		}
		var rels []*reloc
		if inlineRelocs {
			rels = o.relocsFor(sec)
		}
		if err := d.section(sec, rels); err != nil {
			return err
		}
	}
	return nil
}

// relocsFor returns the relocations of sec from all its relocation
// sections, stably sorted by offset.
func (o *object) relocsFor(sec *section) []*reloc {
	var rels []*reloc
	for _, s := range o.sections {
		if s.relocTarget == sec.index {
			rels = append(rels, s.relocs...)
		}
	}
	slices.SortStableFunc(rels, func(a, b *reloc) int { return cmp.Compare(a.offset, b.offset) })
	return rels
}

// section disassembles one section symbol by symbol.
func (d *disassembler) section(sec *section, rels []*reloc) error {
	b := d.b
	syms := d.allSyms[sec.index]
	if len(syms) == 0 || syms[0].addr != 0 {
		// llvm-objdump compares with 0, not with the section address, so
		// every section of an executable not at address 0 gets one.
		typ := uint8(objfile.STT_OBJECT)
		if sec.isText() {
			typ = objfile.STT_FUNC
		}
		syms = append([]symInfo{{addr: uint64(sec.addr), name: sec.name, typ: typ}}, syms...)
		d.allSyms[sec.index] = syms
	}
	data, err := sec.contents()
	if err != nil {
		return err
	}
	secAddr, secSize := uint64(sec.addr), uint64(sec.size)
	relCur := 0
	printed := false
	for si, sym := range syms {
		start := sym.addr
		if start < secAddr {
			continue
		}
		end := secAddr + secSize
		if si+1 < len(syms) {
			end = min(end, syms[si+1].addr)
		}
		if start >= end {
			continue
		}
		start -= secAddr
		end -= secAddr
		if !printed {
			printed = true
			fmt.Fprintf(b, "\nDisassembly of section %s:\n", sec.name)
		}
		fmt.Fprintf(b, "\n%08x <%s>:\n", secAddr+start, sym.name)
		// llvm-objdump's instruction size variable is zeroed at each
		// symbol (MCDisassembler::onSymbolStart) and, because the Lanai
		// disassembler leaves it alone when a word does not decode, an
		// undecodable word takes the size of the previous instruction:
		// 4 after a decoded one, 1 at the start of a symbol or after a
		// short read.
		size := uint64(0)

		index := start
		if sym.typ == objfile.STT_OBJECT || sym.typ == sttCommon {
			dumpData(b, secAddr, index, end, data)
			index = end
		}
		for index < end {
			if !d.zeroes {
				maxOff := end - index
				if relCur < len(rels) {
					// As llvm-objdump: the next relocation bounds the run,
					// even past the symbol's end (the difference wraps if
					// the relocation is behind, leaving the section end as
					// the bound).
					maxOff = uint64(rels[relCur].offset) - index
				}
				if n := skippableZeroes(data[index:], maxOff); n > 0 {
					b.WriteString("\t\t...\n")
					index += n
					continue
				}
			}
			size = d.instruction(sec, syms, data, index, size)
			for relCur < len(rels) {
				off := uint64(rels[relCur].offset)
				if off >= index+size {
					break
				}
				r := rels[relCur]
				fmt.Fprintf(b, "\t\t\t%08x:  %s\t%s\n", secAddr+off, r.name, relocValue(r))
				relCur++
			}
			index += size
		}
	}
	return nil
}

// instruction prints the instruction (or undecodable bytes) at data[index:]
// and returns its size: 4 for an instruction, 1 when fewer than 4 bytes
// remain, and for an undecodable word prev, the previous size (or 1 if
// that is 0), as llvm-objdump does with the Lanai disassembler.
func (d *disassembler) instruction(sec *section, syms []symInfo, data []byte, index, prev uint64) uint64 {
	b := d.b
	addr := uint64(sec.addr) + index
	size := prev
	var in isa.Inst
	if uint64(len(data))-index >= 4 {
		in = isa.Decode(be.Uint32(data[index:]))
		if in.Valid() {
			size = 4
		}
	} else {
		size = 0
	}
	if size == 0 {
		size = 1
	}
	size = min(size, uint64(len(data))-index)
	var line strings.Builder
	fmt.Fprintf(&line, "%8x: ", addr)
	for i := uint64(0); i < size; i++ {
		if i > 0 {
			line.WriteByte(' ')
		}
		fmt.Fprintf(&line, "%02x", data[index+i])
	}
	// Pad so that the tab that follows lands on column 24.
	if col := line.Len(); col < 23 {
		line.WriteString(strings.Repeat(" ", 23-col))
	} else {
		line.WriteString(strings.Repeat(" ", 7-col%8))
	}
	b.WriteString(line.String())
	if !in.Valid() {
		b.WriteString("\t<unknown>\n")
		return size
	}
	b.WriteString("\t" + instText(in))
	if target, ok := branchTarget(in); ok {
		if s := d.targetSymbol(sec, syms, target); s != nil {
			b.WriteString(" <" + s.name)
			if disp := target - s.addr; disp != 0 {
				fmt.Fprintf(b, "+0x%x", disp)
			}
			b.WriteByte('>')
		}
	}
	b.WriteByte('\n')
	return size
}

// instText is the instruction's text as LLVM prints it.
func instText(in isa.Inst) string { return in.String() }

// branchTarget evaluates a branch as LLVM's Lanai instruction analysis
// does: the target of an absolute (BR) or "relative" (BRR) branch is its
// printed immediate, and an immediate of 0 (an unrelocated branch in an
// object file) gives no target.
func branchTarget(in isa.Inst) (uint64, bool) {
	var t uint64
	switch in.Class {
	case isa.BR:
		t = uint64(in.Imm)
	case isa.BRR:
		t = uint64(uint16(in.Imm))
	default:
		return 0, false
	}
	return t, t != 0
}

// targetSymbol finds the symbol to name a branch target after: the last
// symbol at or before it in the first candidate list that has one. In a
// relocatable file the candidates are the current section's symbols; in an
// executable, those of every section starting at the highest section
// address not above the target; absolute symbols come last.
func (d *disassembler) targetSymbol(sec *section, syms []symInfo, target uint64) *symInfo {
	var cands [][]symInfo
	if d.o.rel {
		cands = append(cands, syms)
	} else {
		it := sort.Search(len(d.secAddrs), func(i int) bool { return uint64(d.secAddrs[i].addr) > target })
		var secAddr uint64
		for it > 0 {
			it--
			a := uint64(d.secAddrs[it].addr)
			if secAddr == 0 {
				secAddr = a
			}
			if a != secAddr {
				break
			}
			cands = append(cands, d.allSyms[d.secAddrs[it].index])
		}
	}
	cands = append(cands, d.absSyms)
	for _, list := range cands {
		i := sort.Search(len(list), func(i int) bool { return list[i].addr > target })
		if i > 0 {
			return &list[i-1]
		}
	}
	return nil
}

// skippableZeroes returns how many zero bytes at the start of buf (looking
// at most max bytes) the disassembly abbreviates as "...": none for fewer
// than 8, else the run rounded down to a multiple of 4.
func skippableZeroes(buf []byte, max uint64) uint64 {
	n := uint64(0)
	for n < max && n < uint64(len(buf)) && buf[n] == 0 {
		n++
	}
	if n < 8 {
		return 0
	}
	return n &^ 3
}

// dumpData prints data[index:end] as llvm-objdump prints an STT_OBJECT
// symbol inside a code section: eight bytes a line, in hex and ASCII.
func dumpData(b *bytes.Buffer, secAddr, index, end uint64, data []byte) {
	for index < end {
		n := min(end-index, 8)
		fmt.Fprintf(b, "%8x:", secAddr+index)
		for i := uint64(0); i < n; i++ {
			fmt.Fprintf(b, " %02x", data[index+i])
		}
		b.WriteString(strings.Repeat(" ", int(3*(8-n))) + "         ")
		for i := uint64(0); i < n; i++ {
			b.WriteByte(printable(data[index+i]))
		}
		b.WriteByte('\n')
		index += n
	}
}
