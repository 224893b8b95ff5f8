package disasm

import (
	"encoding/binary"
	"testing"
)

// A test-only writer of LANai COFF files, after objfile/coff_test.go: the
// COFF golden test and the live test build their input with it.

// COFF constants (System V COFF as written by Myricom's lanai-gcc).
const (
	coffMagic = 0x1300
	styTEXT   = 0x20
	styDATA   = 0x40
	styBSS    = 0x80
	styINFO   = 0x200
	cEXT      = 2
	cSTAT     = 3
	cLABEL    = 6
	cFILE     = 103
	cWEAKEXT  = 127
	dtFCN     = 2
)

type coffSpec struct {
	entry    uint32
	sections []coffSec
	syms     []coffSym
}

type coffSec struct {
	name  string
	addr  uint32
	size  uint32 // for sections without data
	data  []byte
	flags uint32
}

type coffSym struct {
	name   string
	value  uint32
	scnum  int16
	typ    uint16
	sclass uint8
	aux    [][]byte // each up to 20 bytes
}

// buildCOFF encodes spec as big-endian System V COFF (magic 0x1300) with
// the 28-byte a.out optional header: headers, section contents, symbols,
// string table.
func buildCOFF(spec coffSpec) []byte {
	bo := binary.BigEndian
	opt := make([]byte, 28)
	bo.PutUint32(opt[16:], spec.entry)
	out := make([]byte, 20+len(opt)+40*len(spec.sections))
	bo.PutUint16(out[0:], coffMagic)
	bo.PutUint16(out[2:], uint16(len(spec.sections)))
	bo.PutUint16(out[16:], uint16(len(opt)))
	bo.PutUint16(out[18:], 0x010f)
	copy(out[20:], opt)
	for i, s := range spec.sections {
		size, ptr := s.size, 0
		if s.data != nil {
			size, ptr = uint32(len(s.data)), len(out)
			out = append(out, s.data...)
		}
		h := out[20+len(opt)+40*i:]
		copy(h[:8], s.name)
		bo.PutUint32(h[8:], s.addr)
		bo.PutUint32(h[12:], s.addr)
		bo.PutUint32(h[16:], size)
		bo.PutUint32(h[20:], uint32(ptr))
		bo.PutUint32(h[36:], s.flags)
	}
	if len(spec.syms) > 0 {
		bo.PutUint32(out[8:], uint32(len(out)))
		strtab := []byte{0, 0, 0, 0}
		n := 0
		for _, s := range spec.syms {
			var e [20]byte // Myricom pads the 18-byte entry to a word (docs/coff.md)
			if len(s.name) > 8 {
				bo.PutUint32(e[4:], uint32(len(strtab)))
				strtab = append(append(strtab, s.name...), 0)
			} else {
				copy(e[:8], s.name)
			}
			bo.PutUint32(e[8:], s.value)
			bo.PutUint16(e[12:], uint16(s.scnum))
			bo.PutUint16(e[14:], s.typ)
			e[16] = s.sclass
			e[17] = uint8(len(s.aux))
			out = append(out, e[:]...)
			for _, a := range s.aux {
				var ae [20]byte
				copy(ae[:], a)
				out = append(out, ae[:]...)
			}
			n += 1 + len(s.aux)
		}
		bo.PutUint32(out[12:], uint32(n))
		bo.PutUint32(strtab, uint32(len(strtab)))
		out = append(out, strtab...)
	}
	return out
}

// words encodes instruction words big-endian.
func words(w ...uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.BigEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// sampleCOFF is the COFF golden input: a firmware-like image with code at
// 0x100 (so the code section gets a label named after it), data, bss, a
// comment section, and local symbols listed before the global ones (as ELF
// requires, so that its ELF conversion lists them in the same order).
func sampleCOFF(t testing.TB) []byte {
	t.Helper()
	text := words(
		0x02010010, // _start: mov 0x100000, %sp
		0x52900000, // or %sp, 0x0, %fp
		0x07880010, // add %pc, 0x10, %rca
		0x9793fffc, // st %rca, [--%sp]
		0xe0000120, // bt 0x120 <_main>
		0x00000001, // nop
		0xe0000118, // _halt: bt 0x118 <_halt>
		0x00000001, // nop
		0x9293fffc, // _main: st %fp, [--%sp]
		0xffffffff, // <unknown>, 4 bytes after an instruction
		0, 0, 0,    // ...
		0xe6000108, // bne 0x108 <_start+0x8>
		0xe0000204, // bt 0x204 <_local+0x4> (a target in .data)
		0xe0000000, // bt 0x0: no annotation
		0x8116fffc, // ld -4[%fp], %pc ! return
		0x02140000, // add %fp, 0x0, %sp
		0x8296fff8, // ld -8[%fp], %fp
	)
	data := append(words(0xdeadbeef), "hello, lanai\x00\x00\x00\x00"...)
	return buildCOFF(coffSpec{
		entry: 0x100,
		sections: []coffSec{
			{name: ".text", addr: 0x100, data: text, flags: styTEXT},
			{name: ".data", addr: 0x200, data: data, flags: styDATA},
			{name: ".bss", addr: 0x214, size: 0x40, flags: styBSS},
			{name: ".comment", data: []byte("GCC: (GNU) 2.95.3 lanai"), flags: styINFO},
		},
		syms: []coffSym{
			{name: ".file", sclass: cFILE, scnum: -2, aux: [][]byte{[]byte("mcp.c")}},
			{name: ".text", value: 0x100, sclass: cSTAT, scnum: 1, aux: [][]byte{{0, 0, 0, 0x4c}}},
			{name: "_halt", value: 0x118, scnum: 1, sclass: cLABEL},
			{name: "_local", value: 0x200, scnum: 2, sclass: cSTAT},
			{name: "_start", value: 0x100, scnum: 1, typ: dtFCN << 4, sclass: cEXT},
			{name: "_main_with_a_long_name", value: 0x120, scnum: 1, typ: dtFCN << 4, sclass: cEXT, aux: [][]byte{{1}}},
			{name: "_buf", value: 0x214, scnum: 3, sclass: cEXT},
			{name: "_comm", value: 24, scnum: 0, sclass: cEXT},
			{name: "_undef", value: 0, scnum: 0, sclass: cEXT},
			{name: "_weak", value: 0x118, scnum: 1, sclass: cWEAKEXT},
			{name: "_ISR", value: 0xfffffe50, scnum: -1, sclass: cEXT},
		},
	})
}
