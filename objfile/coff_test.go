package objfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// coffSpec describes a LANai COFF file for buildCOFF, the test-only writer.
type coffSpec struct {
	aout     bool   // write the standard 28-byte a.out optional header
	entry    uint32 // its entry field
	opthdr   []byte // other optional header (used when !aout)
	sections []coffSec
	syms     []coffSym
	noStrtab bool // omit the string table even if names need it
	object   bool // a relocatable object: f_flags 0x0104 instead of 0x010f
}

type coffSec struct {
	name         string
	paddr, vaddr uint32
	size         uint32 // for sections without data
	data         []byte
	flags        uint32
	relocs       []coffReloc
	lines        []coffLine
}

// coffReloc is one 16-byte relocation entry.
type coffReloc struct {
	vaddr, symndx uint32
	typ           COFFRelocType
	addend        int32
}

// coffLine is one 6-byte line-number entry.
type coffLine struct {
	addr uint32
	line uint16
}

type coffSym struct {
	name   string
	value  uint32
	scnum  int16
	typ    uint16
	sclass uint8
	aux    [][]byte // each up to 20 bytes
}

// buildCOFF encodes spec as System V COFF, big-endian, magic 0x1300, laid
// out as Myricom's lanai-gcc does (docs/coff.md): headers, section
// contents, relocations, line numbers, 20-byte symbols, string table.
func buildCOFF(t testing.TB, spec coffSpec) []byte {
	t.Helper()
	opt := spec.opthdr
	if spec.aout {
		opt = make([]byte, 28)
		be.PutUint32(opt[16:], spec.entry)
	}
	hdrEnd := 20 + len(opt) + 40*len(spec.sections)
	out := make([]byte, hdrEnd)
	be.PutUint16(out[0:], COFFMagic)
	be.PutUint16(out[2:], uint16(len(spec.sections)))
	be.PutUint16(out[16:], uint16(len(opt)))
	be.PutUint16(out[18:], 0x010f)
	if spec.object {
		be.PutUint16(out[18:], 0x0104)
	}
	copy(out[20:], opt)
	for i, s := range spec.sections {
		size, ptr := s.size, 0
		if s.data != nil {
			size, ptr = uint32(len(s.data)), len(out)
			out = append(out, s.data...)
		}
		relptr, lnnoptr := 0, 0
		if len(s.relocs) > 0 {
			relptr = len(out)
			for _, r := range s.relocs {
				var e [16]byte
				be.PutUint32(e[0:], r.vaddr)
				be.PutUint32(e[4:], r.symndx)
				be.PutUint16(e[8:], uint16(r.typ))
				be.PutUint32(e[12:], uint32(r.addend))
				out = append(out, e[:]...)
			}
		}
		if len(s.lines) > 0 {
			lnnoptr = len(out)
			for _, l := range s.lines {
				var e [6]byte
				be.PutUint32(e[0:], l.addr)
				be.PutUint16(e[4:], l.line)
				out = append(out, e[:]...)
			}
		}
		h := out[20+len(opt)+40*i:] // after the appends, which may move out
		copy(h[:8], s.name)
		be.PutUint32(h[8:], s.paddr)
		be.PutUint32(h[12:], s.vaddr)
		be.PutUint32(h[16:], size)
		be.PutUint32(h[20:], uint32(ptr))
		be.PutUint32(h[24:], uint32(relptr))
		be.PutUint32(h[28:], uint32(lnnoptr))
		be.PutUint16(h[32:], uint16(len(s.relocs)))
		be.PutUint16(h[34:], uint16(len(s.lines)))
		be.PutUint32(h[36:], s.flags)
	}
	if len(spec.syms) > 0 {
		be.PutUint32(out[8:], uint32(len(out)))
		strtab := []byte{0, 0, 0, 0}
		n := 0
		for _, s := range spec.syms {
			var e [coffSymSize]byte
			if len(s.name) > 8 {
				be.PutUint32(e[4:], uint32(len(strtab)))
				strtab = append(append(strtab, s.name...), 0)
			} else {
				copy(e[:8], s.name)
			}
			be.PutUint32(e[8:], s.value)
			be.PutUint16(e[12:], uint16(s.scnum))
			be.PutUint16(e[14:], s.typ)
			e[16] = s.sclass
			e[17] = uint8(len(s.aux))
			out = append(out, e[:]...)
			for _, a := range s.aux {
				var ae [coffSymSize]byte
				copy(ae[:], a)
				out = append(out, ae[:]...)
			}
			n += 1 + len(s.aux)
		}
		be.PutUint32(out[12:], uint32(n))
		if !spec.noStrtab {
			be.PutUint32(strtab, uint32(len(strtab)))
			out = append(out, strtab...)
		}
	}
	return out
}

func sampleCOFF() coffSpec {
	text := make([]byte, 0x20)
	be.PutUint32(text, 0xe0000010) // bt real_start
	return coffSpec{
		aout:  true,
		entry: 0x4,
		sections: []coffSec{
			{name: ".text", data: text, flags: styTEXT},
			{name: ".data", paddr: 0x20, vaddr: 0x20, data: []byte{0xde, 0xad, 0xbe, 0xef}, flags: styDATA},
			{name: ".bss", paddr: 0x24, vaddr: 0x24, size: 0x46a00, flags: styBSS},
			{name: ".comment", data: []byte("gcc 2.95.2"), flags: styINFO},
		},
		syms: []coffSym{
			{name: ".file", sclass: cFILE, scnum: -2, aux: [][]byte{[]byte("rtsmcp.c")}},
			{name: ".text", sclass: cSTAT, scnum: 1, aux: [][]byte{{0, 0, 0, 0x20}}},
			{name: "_start", value: 0, scnum: 1, typ: dtFCN << 4, sclass: cEXT},
			{name: "_a_long_function_name", value: 0x10, scnum: 1, typ: dtFCN << 4, sclass: cEXT, aux: [][]byte{{1}}},
			{name: "_local", value: 0x20, scnum: 2, sclass: cSTAT},
			{name: "loop", value: 0x8, scnum: 1, sclass: cLABEL},
			{name: "_buf", value: 0x24, scnum: 3, sclass: cEXT},
			{name: "_comm", value: 24, scnum: 0, sclass: cEXT},
			{name: "_undef", value: 0, scnum: 0, sclass: cEXT},
			{name: "_weak", value: 0x8, scnum: 1, sclass: cWEAKEXT},
			{name: "_ISR", value: 0xfffffe50, scnum: -1, sclass: cEXT},
			{name: "x", value: 4, scnum: 0, sclass: 9}, // C_ARG: skipped
			{name: ".bf", value: 0, scnum: 1, sclass: 101, aux: [][]byte{{}}},
		},
	}
}

func TestReadCOFF(t *testing.T) {
	f, err := ReadCOFF(buildCOFF(t, sampleCOFF()))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != EXEC || f.Format != FormatCOFF || f.Entry != 4 {
		t.Errorf("kind %v format %s entry %#x", f.Kind, f.Format, f.Entry)
	}
	var secs []string
	for _, s := range f.Sections {
		secs = append(secs, fmt.Sprintf("%s type=%d flags=%#x addr=%#x size=%#x len=%d", s.Name, s.Type, s.Flags, s.Addr, s.Size, len(s.Data)))
	}
	want := []string{
		".text type=1 flags=0x6 addr=0x0 size=0x20 len=32",
		".data type=1 flags=0x3 addr=0x20 size=0x4 len=4",
		".bss type=8 flags=0x3 addr=0x24 size=0x46a00 len=0",
		".comment type=1 flags=0x0 addr=0x0 size=0xa len=10",
	}
	if strings.Join(secs, "\n") != strings.Join(want, "\n") {
		t.Errorf("sections:\n%s\nwant:\n%s", strings.Join(secs, "\n"), strings.Join(want, "\n"))
	}
	if got := be.Uint32(f.Sections[0].Data); got != 0xe0000010 {
		t.Errorf(".text word 0 = %#x", got)
	}
	var syms []string
	for _, s := range f.Symbols {
		sec := fmt.Sprintf("%#x", s.Shndx)
		if s.Section != nil {
			sec = s.Section.Name
		}
		syms = append(syms, fmt.Sprintf("%s %#x %d %d %d %s", s.Name, s.Value, s.Size, s.Bind, s.Type, sec))
	}
	wantSyms := []string{
		"rtsmcp.c 0x0 0 0 4 0xfff1",
		".text 0x0 0 0 3 .text",
		"_start 0x0 0 1 2 .text",
		"_a_long_function_name 0x10 0 1 2 .text",
		"_local 0x20 0 0 0 .data",
		"loop 0x8 0 0 0 .text",
		"_buf 0x24 0 1 0 .bss",
		"_comm 0x8 24 1 0 0xfff2",
		"_undef 0x0 0 1 0 0x0",
		"_weak 0x8 0 2 0 .text",
		"_ISR 0xfffffe50 0 1 0 0xfff1",
	}
	if strings.Join(syms, "\n") != strings.Join(wantSyms, "\n") {
		t.Errorf("symbols:\n%s\nwant:\n%s", strings.Join(syms, "\n"), strings.Join(wantSyms, "\n"))
	}
	// A COFF image converts to an ELF executable.
	b, err := f.WriteELF()
	if err != nil {
		t.Fatalf("WriteELF of a COFF file: %v", err)
	}
	g := mustReadELF(t, b)
	if g.Kind != EXEC || len(g.Sections) != 4 || g.Entry != 4 || g.Symbol("_a_long_function_name") == nil {
		t.Errorf("ELF copy: %+v", g)
	}
}

func TestReadCOFFEntryFallback(t *testing.T) {
	spec := sampleCOFF()
	spec.aout = false
	spec.opthdr = []byte{1, 2, 3, 4} // not an a.out header
	spec.sections[0].paddr = 0x100
	spec.syms = nil
	f, err := ReadCOFF(buildCOFF(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	if f.Entry != 0x100 {
		t.Errorf("entry %#x, want the .text start 0x100", f.Entry)
	}
	if len(f.Symbols) != 0 {
		t.Errorf("%d symbols from a file without a symbol table", len(f.Symbols))
	}
}

// TestReadCOFFFlagsFromNames: sections without STYP flags are classified by
// name; a loadable section without file contents is zero-filled.
func TestReadCOFFFlagsFromNames(t *testing.T) {
	spec := coffSpec{sections: []coffSec{
		{name: ".text", data: []byte{0, 0, 0, 1}},
		{name: ".bss", paddr: 4, size: 8},
		{name: ".rodata", paddr: 12, data: []byte{1}},
		{name: ".sbss", paddr: 16, size: 4},
	}}
	f, err := ReadCOFF(buildCOFF(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, s := range f.Sections {
		got += fmt.Sprintf("%s:%d:%#x ", s.Name, s.Type, s.Flags)
	}
	if want := ".text:1:0x6 .bss:8:0x3 .rodata:1:0x3 .sbss:8:0x3 "; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestReadCOFFErrors(t *testing.T) {
	valid := buildCOFF(t, sampleCOFF())
	symptr := be.Uint32(valid[8:])
	sec := func(i int) int { return 20 + 28 + 40*i }
	tests := []struct {
		name   string
		modify func(b []byte) []byte
		want   string
	}{
		{"short", func(b []byte) []byte { return b[:10] }, "too short"},
		{"magic", func(b []byte) []byte { b[1] = 1; return b }, "magic"},
		{"opthdr", func(b []byte) []byte { be.PutUint16(b[16:], 0xffff); return b }, "optional header"},
		{"nscns", func(b []byte) []byte { be.PutUint16(b[2:], 0xffff); return b }, "section headers"},
		{"scnptr", func(b []byte) []byte { be.PutUint32(b[sec(0)+20:], 0xfffffff0); return b }, "past the end"},
		{"size", func(b []byte) []byte { be.PutUint32(b[sec(1)+16:], 0x7fffffff); return b }, "past the end"},
		{"wrap", func(b []byte) []byte { be.PutUint32(b[sec(2)+8:], 0xffffff00); return b }, "wrap"},
		{"overlap", func(b []byte) []byte {
			// Point .comment at the whole file twice over.
			be.PutUint32(b[sec(3)+20:], 1)
			be.PutUint32(b[sec(3)+16:], uint32(len(b))-1)
			be.PutUint32(b[sec(0)+16:], uint32(len(b))-0xd0)
			return b
		}, "overlap"},
		{"nsyms", func(b []byte) []byte { be.PutUint32(b[12:], 0x10000000); return b }, "symbol table"},
		{"symptr", func(b []byte) []byte { be.PutUint32(b[8:], 0xfffffff0); return b }, "symbol table"},
		{"scnum", func(b []byte) []byte { be.PutUint16(b[symptr+coffSymSize*5+12:], 9); return b }, "section number"},
		{"name offset", func(b []byte) []byte { be.PutUint32(b[symptr+coffSymSize*5+4:], 0xffff); return b }, "string table"},
		{"strtab size", func(b []byte) []byte {
			off := symptr + coffSymSize*be.Uint32(b[12:])
			be.PutUint32(b[off:], 0xffffff)
			return b
		}, "string table"},
		{"aux overrun", func(b []byte) []byte {
			n := be.Uint32(b[12:])
			b[symptr+coffSymSize*(n-2)+17] = 5 // .bf claims 5 aux entries
			return b
		}, "auxiliary"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.modify(append([]byte{}, valid...))
			f, err := ReadCOFF(b)
			if err == nil {
				t.Fatalf("ReadCOFF succeeded: %+v", f)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "coff: ") {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestReadRealCOFF reads Myricom's rtsmcp.9 (Cplant) when a fixture copy
// exists; its layout is documented in lanai9-hw.md §9.
func TestReadRealCOFF(t *testing.T) {
	matches, _ := filepath.Glob("../fixtures/*/rtsmcp.9")
	more, _ := filepath.Glob("../fixtures/rtsmcp.9")
	matches = append(matches, more...)
	if len(matches) == 0 {
		t.Skip("no rtsmcp.9 under ../fixtures")
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, s := range f.Sections {
		got += fmt.Sprintf("%s:%d:%#x:%#x ", s.Name, s.Type, s.Addr, s.Size)
	}
	if want := ".text:1:0x0:0x6db8 .data:1:0x6db8:0x128 .bss:8:0x6ee0:0x46a00 "; got != want {
		t.Errorf("sections %s, want %s", got, want)
	}
	if f.Entry != 0 {
		t.Errorf("entry %#x", f.Entry)
	}
}

// sampleObject is a relocatable object in Myricom's layout (like lanai-gcc's
// crt0.o): .text calling an external _main, data with a pointer, .bss, a
// .stab section with its own relocation, labels, an undefined symbol, a
// common block, a skipped debugging symbol and line numbers. Every
// relocation type that lanai-gcc's objects use appears. vaddr shifts
// .data's and .bss's addresses, which an object's symbols and relocations
// are relative to.
func sampleObject(vaddr uint32) coffSpec {
	text := []byte{
		0xf7, 0x82, 0x00, 0x00, // mov .text+0x14, %rca   R_LANAI3_21
		0xe0, 0x00, 0x00, 0x00, // bt _main               R_LANAI3_25
		0x97, 0x93, 0xff, 0xfc, // st %rca, [--%sp]
		0xf7, 0x00, 0x00, 0x00, // ld [_counter], %r14    R_LANAI3_21_F
		0x00, 0x00, 0x00, 0x01, // nop
		0xe0, 0x00, 0x00, 0x00, // bt .                   R_LANAI3_25
		0x00, 0x00, 0x00, 0x01, // nop
		0x00, 0x00, 0x00, 0x01, // nop
	}
	return coffSpec{
		object: true,
		sections: []coffSec{
			{name: ".text", data: text, flags: styTEXT,
				relocs: []coffReloc{
					{vaddr: 0x0, symndx: 2, typ: R_LANAI3_21, addend: 0x14},
					{vaddr: 0x4, symndx: 11, typ: R_LANAI3_25},
					{vaddr: 0xc, symndx: 10, typ: R_LANAI3_21_F},
					{vaddr: 0x14, symndx: 2, typ: R_LANAI3_25, addend: 0x14},
				},
				lines: []coffLine{{addr: 8, line: 0}, {addr: 0x4, line: 2}},
			},
			{name: ".data", paddr: vaddr, vaddr: vaddr, data: []byte{0, 0, 0, 0, 0, 0, 0, 42}, flags: styDATA,
				relocs: []coffReloc{{vaddr: vaddr, symndx: 8, typ: R_LANAI3_32, addend: -4}}},
			{name: ".bss", paddr: vaddr + 8, vaddr: vaddr + 8, size: 0x10, flags: styBSS},
			{name: ".stab", data: make([]byte, 12), flags: styINFO,
				relocs: []coffReloc{{vaddr: 4, symndx: 2, typ: R_LANAI3_32, addend: 8}}},
		},
		syms: []coffSym{
			{name: ".file", sclass: cFILE, scnum: -2, aux: [][]byte{[]byte("own.s")}},
			{name: ".text", sclass: cSTAT, scnum: 1, aux: [][]byte{{0, 0, 0, 0x20, 0, 4}}},
			{name: ".data", value: vaddr, sclass: cSTAT, scnum: 2, aux: [][]byte{{0, 0, 0, 8, 0, 1}}},
			{name: ".bss", value: vaddr + 8, sclass: cSTAT, scnum: 3, aux: [][]byte{{0, 0, 0, 0x10}}},
			{name: "_start", scnum: 1, typ: dtFCN << 4, sclass: cEXT},
			{name: "L1", value: 0x14, scnum: 1, sclass: cLABEL},
			{name: "_counter", value: vaddr + 4, scnum: 2, sclass: cEXT},
			{name: "_main", sclass: cEXT},
			{name: "_a_long_common_name", value: 16, sclass: cEXT},
			{name: "x", value: 4, sclass: 9}, // C_ARG: skipped
		},
	}
}

// describe lists a file's sections, symbols, relocations and line numbers
// one per line, for comparisons.
func describe(f *File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %s entry=%#x\n", f.Kind, f.Format, f.Entry)
	for _, s := range f.Sections {
		fmt.Fprintf(&b, "section %s type=%d flags=%#x addr=%#x size=%#x align=%d len=%d\n", s.Name, s.Type, s.Flags, s.Addr, s.Size, s.Align, len(s.Data))
		for _, r := range s.Relocs {
			fmt.Fprintf(&b, "  reloc %#x %v %s%+d\n", r.Offset, r.Type, r.Sym.DisplayName(), r.Addend)
		}
		for _, l := range s.COFFLines {
			name := ""
			if l.Func != nil {
				name = l.Func.Name
			}
			fmt.Fprintf(&b, "  line %d addr=%#x func=%s\n", l.Line, l.Addr, name)
		}
	}
	for _, s := range f.Symbols {
		sec := fmt.Sprintf("%#x", s.Shndx)
		if s.Section != nil {
			sec = s.Section.Name
		}
		fmt.Fprintf(&b, "symbol %s %#x size=%d bind=%d type=%d %s\n", s.Name, s.Value, s.Size, s.Bind, s.Type, sec)
	}
	return b.String()
}

func TestReadCOFFObject(t *testing.T) {
	want := `REL coff-lanai entry=0x0
section .text type=1 flags=0x6 addr=0x0 size=0x20 align=4 len=32
  reloc 0x0 R_LANAI_21 .text+20
  reloc 0x4 R_LANAI_25 _main+0
  reloc 0xc R_LANAI_21_F _counter+0
  reloc 0x14 R_LANAI_25 .text+20
  line 0 addr=0x0 func=_start
  line 2 addr=0x4 func=
section .data type=1 flags=0x3 addr=0x0 size=0x8 align=4 len=8
  reloc 0x0 R_LANAI_32 _start-4
section .bss type=8 flags=0x3 addr=0x0 size=0x10 align=4 len=0
section .stab type=1 flags=0x0 addr=0x0 size=0xc align=1 len=12
  reloc 0x4 R_LANAI_32 .text+8
symbol own.s 0x0 size=0 bind=0 type=4 0xfff1
symbol .text 0x0 size=0 bind=0 type=3 .text
symbol .data 0x0 size=0 bind=0 type=3 .data
symbol .bss 0x0 size=0 bind=0 type=3 .bss
symbol _start 0x0 size=0 bind=1 type=2 .text
symbol L1 0x14 size=0 bind=0 type=0 .text
symbol _counter 0x4 size=0 bind=1 type=0 .data
symbol _main 0x0 size=0 bind=1 type=0 0x0
symbol _a_long_common_name 0x8 size=16 bind=1 type=0 0xfff2
`
	// The same object with .data and .bss at section-relative addresses 0
	// (as lanai-gcc writes them) and at 0x20: the model is the same.
	for _, vaddr := range []uint32{0, 0x20} {
		f, err := ReadCOFF(buildCOFF(t, sampleObject(vaddr)))
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(f); got != want {
			t.Errorf("vaddr %#x:\n%s\nwant:\n%s", vaddr, got, want)
		}
		checkFile(t, f)
	}
}

func TestCOFFRelocTypes(t *testing.T) {
	for typ := COFFRelocType(0); typ <= R_LANAI3_32+1; typ++ {
		elf, ok := typ.ELF()
		t.Logf("%d %v -> %v %v", typ, typ, elf, ok)
		if ok && strings.TrimPrefix(elf.String(), "R_LANAI_") != strings.TrimPrefix(typ.String(), "R_LANAI3_") {
			t.Errorf("%v maps to %v", typ, elf)
		}
	}
	if got := R_LANAI3_PC25.String(); got != "R_LANAI3_PC25" {
		t.Errorf("name %q", got)
	}
	if got := COFFRelocType(13).String(); got != "R_LANAI3_(13)" {
		t.Errorf("name %q", got)
	}
	if _, ok := R_LANAI3_HI16_S.ELF(); ok {
		t.Error("R_LANAI3_HI16_S has no ELF equivalent")
	}
}

func TestReadCOFFObjectErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(spec *coffSpec)
		want   string
	}{
		{"pc-relative type", func(s *coffSpec) { s.sections[0].relocs[1].typ = R_LANAI3_PC25 }, "R_LANAI3_PC25 at 0x4): type 10 has no equivalent"},
		{"unknown type", func(s *coffSpec) { s.sections[0].relocs[1].typ = 99 }, "type 99 has no equivalent"},
		{"offset", func(s *coffSpec) { s.sections[0].relocs[1].vaddr = 0x1e }, "offset 0x1e outside the section"},
		{"symbol index", func(s *coffSpec) { s.sections[0].relocs[1].symndx = 99 }, "symbol index 99"},
		{"aux index", func(s *coffSpec) { s.sections[0].relocs[1].symndx = 1 }, "symbol index 1"},
		{"skipped symbol", func(s *coffSpec) { s.sections[0].relocs[1].symndx = 13 }, "symbol index 13"},
		{"line symbol", func(s *coffSpec) { s.sections[0].lines[0].addr = 3 }, "line number 0: symbol index 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := sampleObject(0)
			tc.modify(&spec)
			f, err := ReadCOFF(buildCOFF(t, spec))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error with %q", f, err, tc.want)
			}
		})
	}
	// Tables that run past the end of the file.
	valid := buildCOFF(t, sampleObject(0))
	for _, field := range []struct {
		off  int
		want string
	}{{24, "relocations (4 at"}, {28, "line numbers (2 at"}} {
		b := append([]byte{}, valid...)
		be.PutUint32(b[20+field.off:], uint32(len(b)-8))
		if _, err := ReadCOFF(b); err == nil || !strings.Contains(err.Error(), field.want) {
			t.Errorf("got %v, want %q", err, field.want)
		}
	}
}
