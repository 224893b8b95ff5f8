package disasm

import (
	"encoding/binary"
	"testing"

	"lanaiemu/internal/cofftest"
)

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
	return cofftest.Build(cofftest.File{
		Aout:  true,
		Entry: 0x100,
		Sections: []cofftest.Section{
			{Name: ".text", PAddr: 0x100, VAddr: 0x100, Data: text, Flags: cofftest.STYP_TEXT},
			{Name: ".data", PAddr: 0x200, VAddr: 0x200, Data: data, Flags: cofftest.STYP_DATA},
			{Name: ".bss", PAddr: 0x214, VAddr: 0x214, Size: 0x40, Flags: cofftest.STYP_BSS},
			{Name: ".comment", Data: []byte("GCC: (GNU) 2.95.3 lanai"), Flags: cofftest.STYP_INFO},
		},
		Syms: []cofftest.Symbol{
			{Name: ".file", Class: cofftest.C_FILE, Scnum: -2, Aux: [][]byte{[]byte("mcp.c")}},
			{Name: ".text", Value: 0x100, Class: cofftest.C_STAT, Scnum: 1, Aux: [][]byte{{0, 0, 0, 0x4c}}},
			{Name: "_halt", Value: 0x118, Scnum: 1, Class: cofftest.C_LABEL},
			{Name: "_local", Value: 0x200, Scnum: 2, Class: cofftest.C_STAT},
			{Name: "_start", Value: 0x100, Scnum: 1, Type: cofftest.DT_FCN << 4, Class: cofftest.C_EXT},
			{Name: "_main_with_a_long_name", Value: 0x120, Scnum: 1, Type: cofftest.DT_FCN << 4, Class: cofftest.C_EXT, Aux: [][]byte{{1}}},
			{Name: "_buf", Value: 0x214, Scnum: 3, Class: cofftest.C_EXT},
			{Name: "_comm", Value: 24, Scnum: 0, Class: cofftest.C_EXT},
			{Name: "_undef", Value: 0, Scnum: 0, Class: cofftest.C_EXT},
			{Name: "_weak", Value: 0x118, Scnum: 1, Class: cofftest.C_WEAKEXT},
			{Name: "_ISR", Value: 0xfffffe50, Scnum: -1, Class: cofftest.C_EXT},
		},
	})
}
