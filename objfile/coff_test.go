package objfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/internal/cofftest"
)

// The test-only COFF writer is package cofftest's (one writer for all
// packages' tests); these names keep the tests short.
type (
	coffSpec = cofftest.File
	coffSec  = cofftest.Section
	coffSym  = cofftest.Symbol
)

// buildCOFF encodes spec in Myricom's layout (docs/coff.md).
func buildCOFF(t testing.TB, spec coffSpec) []byte {
	t.Helper()
	return cofftest.Build(spec)
}

func sampleCOFF() coffSpec {
	text := make([]byte, 0x20)
	be.PutUint32(text, 0xe0000010) // bt real_start
	return coffSpec{
		Aout:  true,
		Entry: 0x4,
		Sections: []coffSec{
			{Name: ".text", Data: text, Flags: styTEXT},
			{Name: ".data", PAddr: 0x20, VAddr: 0x20, Data: []byte{0xde, 0xad, 0xbe, 0xef}, Flags: styDATA},
			{Name: ".bss", PAddr: 0x24, VAddr: 0x24, Size: 0x46a00, Flags: styBSS},
			{Name: ".comment", Data: []byte("gcc 2.95.2"), Flags: styINFO},
		},
		Syms: []coffSym{
			{Name: ".file", Class: cFILE, Scnum: -2, Aux: [][]byte{[]byte("rtsmcp.c")}},
			{Name: ".text", Class: cSTAT, Scnum: 1, Aux: [][]byte{{0, 0, 0, 0x20}}},
			{Name: "_start", Value: 0, Scnum: 1, Type: dtFCN << 4, Class: cEXT},
			{Name: "_a_long_function_name", Value: 0x10, Scnum: 1, Type: dtFCN << 4, Class: cEXT, Aux: [][]byte{{1}}},
			{Name: "_local", Value: 0x20, Scnum: 2, Class: cSTAT},
			{Name: "loop", Value: 0x8, Scnum: 1, Class: cLABEL},
			{Name: "_buf", Value: 0x24, Scnum: 3, Class: cEXT},
			{Name: "_comm", Value: 24, Scnum: 0, Class: cEXT},
			{Name: "_undef", Value: 0, Scnum: 0, Class: cEXT},
			{Name: "_weak", Value: 0x8, Scnum: 1, Class: cWEAKEXT},
			{Name: "_ISR", Value: 0xfffffe50, Scnum: -1, Class: cEXT},
			{Name: "x", Value: 4, Scnum: 0, Class: 9}, // C_ARG: skipped
			{Name: ".bf", Value: 0, Scnum: 1, Class: 101, Aux: [][]byte{{}}},
		},
	}
}

func TestReadCOFF(t *testing.T) {
	f, err := ReadCOFF(buildCOFF(t, sampleCOFF()))
	require.NoError(t, err)
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
	if d := cmp.Diff(want, secs); d != "" {
		t.Errorf("sections (-want +got):\n%s", d)
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
	if d := cmp.Diff(wantSyms, syms); d != "" {
		t.Errorf("symbols (-want +got):\n%s", d)
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

// TestReadCOFFKind: F_EXEC or an a.out header make an executable; neither
// makes an object.
func TestReadCOFFKind(t *testing.T) {
	b := buildCOFF(t, sampleCOFF())
	be.PutUint16(b[18:], 0x0104) // no F_EXEC, but the a.out header
	if f, err := ReadCOFF(b); err != nil || f.Kind != EXEC {
		t.Errorf("a.out header without F_EXEC: %v, %v", f, err)
	}
	spec := sampleCOFF()
	spec.Aout, spec.Object = false, true
	if f, err := ReadCOFF(buildCOFF(t, spec)); err != nil || f.Kind != REL {
		t.Errorf("no F_EXEC, no a.out header: %v, %v", f, err)
	}
}

func TestReadCOFFEntryFallback(t *testing.T) {
	spec := sampleCOFF()
	spec.Aout = false
	spec.OptHdr = []byte{1, 2, 3, 4} // not an a.out header
	spec.Sections[0].PAddr = 0x100
	spec.Syms = nil
	f, err := ReadCOFF(buildCOFF(t, spec))
	require.NoError(t, err)
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
	spec := coffSpec{Sections: []coffSec{
		{Name: ".text", Data: []byte{0, 0, 0, 1}},
		{Name: ".bss", PAddr: 4, Size: 8},
		{Name: ".rodata", PAddr: 12, Data: []byte{1}},
		{Name: ".sbss", PAddr: 16, Size: 4},
	}}
	f, err := ReadCOFF(buildCOFF(t, spec))
	require.NoError(t, err)
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
	checkCorruptions(t, valid, ReadCOFF, "coff: ", []corruption{
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
	})
}

// cplantMCPEnv names Cplant's top/compute/OS/Myrinet/MCP folder, which
// holds Myricom-built executables for LANai 4, 7 and 9 (docs/coff.md).
const cplantMCPEnv = "LANAI_CPLANT_MCP"

// TestReadRealCOFF reads Cplant's rtsmcp.4, rtsmcp.7 and rtsmcp.9 when
// LANAI_CPLANT_MCP names their folder: stripped executables, entry 0.
func TestReadRealCOFF(t *testing.T) {
	dir := os.Getenv(cplantMCPEnv)
	if dir == "" {
		t.Skipf("%s is not set: no Cplant rtsmcp images to read (see docs/coff.md)", cplantMCPEnv)
	}
	want := map[string]string{
		"rtsmcp.4": ".text:1:0x0:0x6e38 .data:1:0x6e38:0x108 .bss:8:0x6f40:0x469a0 ",
		"rtsmcp.7": ".text:1:0x0:0x8b08 .data:1:0x8b08:0x128 .bss:8:0x8c30:0x46a00 ",
		"rtsmcp.9": ".text:1:0x0:0x6db8 .data:1:0x6db8:0x128 .bss:8:0x6ee0:0x46a00 ",
	}
	for name, w := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		f, err := Read(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := ""
		for _, s := range f.Sections {
			got += fmt.Sprintf("%s:%d:%#x:%#x ", s.Name, s.Type, s.Addr, s.Size)
		}
		if got != w || f.Kind != EXEC || f.Entry != 0 || len(f.Symbols) != 0 {
			t.Errorf("%s: kind %v entry %#x, %d symbols, sections %s, want %s", name, f.Kind, f.Entry, len(f.Symbols), got, w)
		}
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
		f, err := ReadCOFF(buildCOFF(t, cofftest.SampleObject(vaddr)))
		require.NoError(t, err)
		if got := describe(f); got != want {
			t.Errorf("vaddr %#x:\n%s\nwant:\n%s", vaddr, got, want)
		}
		checkFile(t, f)
	}
}

// TestReadCOFFFileNames: a .file aux entry names the file in place or in
// the string table; an empty one leaves the symbol named ".file".
func TestReadCOFFFileNames(t *testing.T) {
	for _, tc := range []struct {
		aux  []byte
		want string
	}{
		{[]byte("short.c"), "short.c"},
		{[]byte{}, ".file"},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 4}, "a_long_source_file_name.c"},
	} {
		spec := coffSpec{Object: true, Sections: []coffSec{{Name: ".text", Data: []byte{0, 0, 0, 1}, Flags: styTEXT}},
			Syms: []coffSym{
				{Name: ".file", Class: cFILE, Scnum: -2, Aux: [][]byte{tc.aux}},
				{Name: "a_long_source_file_name.c", Class: cSTAT, Scnum: 1}, // puts the name at string offset 4
			}}
		f, err := ReadCOFF(buildCOFF(t, spec))
		require.NoError(t, err)
		if f.Symbols[0].Name != tc.want || f.Symbols[0].Type != STT_FILE {
			t.Errorf("aux % x: file symbol %q, want %q", tc.aux, f.Symbols[0].Name, tc.want)
		}
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
	// Every ELF type has a COFF twin, and the two mappings are inverse.
	for r := R_LANAI_NONE; r <= R_LANAI_LO16; r++ {
		c, ok := r.COFFType()
		back, ok2 := c.ELF()
		if !ok || !ok2 || back != r {
			t.Errorf("%v -> %v -> %v", r, c, back)
		}
	}
	if _, ok := RelocType(99).COFFType(); ok {
		t.Error("type 99 has a COFF type")
	}
}

func TestReadCOFFObjectErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(spec *coffSpec)
		want   string
	}{
		{"pc-relative type", func(s *coffSpec) { s.Sections[0].Relocs[1].Type = uint16(R_LANAI3_PC25) }, "R_LANAI3_PC25 at 0x4): type 10 has no equivalent"},
		{"unknown type", func(s *coffSpec) { s.Sections[0].Relocs[1].Type = 99 }, "type 99 has no equivalent"},
		{"offset", func(s *coffSpec) { s.Sections[0].Relocs[1].VAddr = 0x1e }, "offset 0x1e outside the section"},
		{"symbol index", func(s *coffSpec) { s.Sections[0].Relocs[1].Symndx = 99 }, "symbol index 99"},
		{"aux index", func(s *coffSpec) { s.Sections[0].Relocs[1].Symndx = 1 }, "symbol index 1"},
		{"skipped symbol", func(s *coffSpec) { s.Sections[0].Relocs[1].Symndx = 13 }, "symbol index 13"},
		{"line symbol", func(s *coffSpec) { s.Sections[0].Lines[0].Addr = 3 }, "line number 0: symbol index 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := cofftest.SampleObject(0)
			tc.modify(&spec)
			f, err := ReadCOFF(buildCOFF(t, spec))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error with %q", f, err, tc.want)
			}
		})
	}
	// Tables that run past the end of the file.
	valid := buildCOFF(t, cofftest.SampleObject(0))
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
