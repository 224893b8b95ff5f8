package objfile

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleREL builds a relocatable object by hand: every section kind,
// every symbol kind and every relocation type. Symbols are listed locals
// first so that the writer keeps their order.
func sampleREL() *File {
	text := &Section{Name: ".text", Type: SHT_PROGBITS, Flags: SHF_ALLOC | SHF_EXECINSTR, Align: 4,
		Data: []byte{
			0x01, 0x81, 0x00, 0x00, // mov hi(x), %r3
			0x51, 0x8c, 0x00, 0x00, // or %r3, lo(x), %r3
			0xe0, 0x00, 0x00, 0x00, // bt f
			0x00, 0x00, 0x00, 0x01, // nop
			0xf2, 0x02, 0x00, 0x00, // mov sym, %r4 (SLI)
		}}
	text.Size = uint32(len(text.Data))
	data := &Section{Name: ".data", Type: SHT_PROGBITS, Flags: SHF_ALLOC | SHF_WRITE, Align: 4, Data: make([]byte, 8), Size: 8}
	str := &Section{Name: ".rodata.str1.1", Type: SHT_PROGBITS, Flags: SHF_ALLOC | SHF_MERGE | SHF_STRINGS, Align: 1, EntSize: 1, Data: []byte("hi\x00"), Size: 3}
	bss := &Section{Name: ".bss", Type: SHT_NOBITS, Flags: SHF_ALLOC | SHF_WRITE, Align: 8, Size: 0x100}
	comment := &Section{Name: ".comment", Type: SHT_PROGBITS, Flags: SHF_MERGE | SHF_STRINGS, Align: 1, EntSize: 1, Data: []byte("\x00test 1.0\x00"), Size: 10}
	note := &Section{Name: ".note.GNU-stack", Type: SHT_PROGBITS, Align: 1, Data: []byte{}}

	file := &Symbol{Name: "t.s", Type: STT_FILE, Bind: STB_LOCAL, Shndx: SHN_ABS}
	loop := &Symbol{Name: ".Lloop", Value: 8, Section: text}
	strSym := &Symbol{Name: ".Lstr", Section: str}
	bssSec := &Symbol{Type: STT_SECTION, Section: bss}
	local := &Symbol{Name: "buf", Value: 0x10, Size: 0x20, Type: STT_OBJECT, Section: bss}
	start := &Symbol{Name: "_start", Bind: STB_GLOBAL, Type: STT_FUNC, Size: 20, Section: text}
	tbl := &Symbol{Name: "tbl", Bind: STB_GLOBAL, Type: STT_OBJECT, Size: 8, Section: data, Other: 2}
	ext := &Symbol{Name: "ext", Bind: STB_GLOBAL}
	weak := &Symbol{Name: "wk", Bind: STB_WEAK}
	common := &Symbol{Name: "cbuf", Bind: STB_GLOBAL, Type: STT_OBJECT, Value: 8, Size: 64, Shndx: SHN_COMMON}
	abs := &Symbol{Name: "abs_sym", Bind: STB_GLOBAL, Value: 0x1234, Shndx: SHN_ABS}

	text.Relocs = []Reloc{
		{Offset: 0, Type: R_LANAI_HI16, Sym: local, Addend: 4},
		{Offset: 4, Type: R_LANAI_LO16, Sym: bssSec, Addend: 0x14},
		{Offset: 8, Type: R_LANAI_25, Sym: ext},
		{Offset: 16, Type: R_LANAI_21, Sym: abs, Addend: -4},
		{Offset: 12, Type: R_LANAI_NONE},
	}
	data.Relocs = []Reloc{
		{Offset: 0, Type: R_LANAI_32, Sym: loop},
		{Offset: 4, Type: R_LANAI_32, Sym: strSym, Addend: 1},
		{Offset: 4, Type: R_LANAI_21_F, Sym: weak},
	}
	return &File{
		Kind:     REL,
		Sections: []*Section{text, data, str, bss, comment, note},
		Symbols:  []*Symbol{file, loop, strSym, bssSec, local, start, tbl, ext, weak, common, abs},
		Format:   FormatELF,
	}
}

// sampleEXEC builds a small executable image.
func sampleEXEC() *File {
	text := &Section{Name: ".text", Type: SHT_PROGBITS, Flags: SHF_ALLOC | SHF_EXECINSTR, Align: 4,
		Data: []byte{0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01}, Size: 8}
	rodata := &Section{Name: ".rodata", Type: SHT_PROGBITS, Flags: SHF_ALLOC, Addr: 0x8, Align: 8,
		Data: []byte("constant"), Size: 8}
	data := &Section{Name: ".data", Type: SHT_PROGBITS, Flags: SHF_ALLOC | SHF_WRITE, Addr: 0x1234, Align: 16,
		Data: []byte{1, 2, 3, 4}, Size: 4}
	bss := &Section{Name: ".bss", Type: SHT_NOBITS, Flags: SHF_ALLOC | SHF_WRITE, Addr: 0x1240, Align: 8, Size: 0x1000}
	return &File{
		Kind:     EXEC,
		Entry:    0,
		Sections: []*Section{text, rodata, data, bss},
		Symbols: []*Symbol{
			{Name: "_start", Bind: STB_GLOBAL, Type: STT_FUNC, Section: text},
			{Name: "x", Bind: STB_GLOBAL, Type: STT_OBJECT, Value: 0x1234, Size: 4, Section: data},
			{Name: "_end", Bind: STB_GLOBAL, Value: 0x2240, Shndx: SHN_ABS},
		},
		Format: FormatELF,
	}
}

// diffFiles describes the differences between two files (-a +b):
// sections and symbols by position, followed through their pointers; a
// symbol's Shndx counts only when it has no section (otherwise it is the
// reader's information, which writers recompute), and COFFLines (which
// writers ignore) not at all.
func diffFiles(a, b *File) string {
	return cmp.Diff(a, b,
		cmpopts.IgnoreFields(Section{}, "COFFLines"),
		cmp.Transformer("shndxIfNoSection", func(s Symbol) Symbol {
			if s.Section != nil {
				s.Shndx = 0
			}
			return s
		}))
}

func mustWrite(t *testing.T, f *File) []byte {
	t.Helper()
	b, err := f.WriteELF()
	if err != nil {
		t.Fatalf("WriteELF: %v", err)
	}
	return b
}

func mustReadELF(t *testing.T, b []byte) *File {
	t.Helper()
	f, err := ReadELF(b)
	if err != nil {
		t.Fatalf("ReadELF: %v", err)
	}
	return f
}

func TestRoundTripREL(t *testing.T) {
	f := sampleREL()
	b := mustWrite(t, f)
	g := mustReadELF(t, b)
	if d := diffFiles(f, g); d != "" {
		t.Fatalf("round trip differs (-written +read):\n%s", d)
	}
	// Writing again gives identical bytes.
	if d := cmp.Diff(b, mustWrite(t, g)); d != "" {
		t.Errorf("second write differs from the first (-first +second):\n%s", d)
	}
}

// TestWriteELFStructure checks the written REL file with the standard
// library's independent ELF parser: llvm-mc's layout, with .strtab first
// (naming the sections too) and .symtab last.
func TestWriteELFStructure(t *testing.T) {
	b := mustWrite(t, sampleREL())
	ef, err := elf.NewFile(bytes.NewReader(b))
	require.NoError(t, err, "debug/elf")
	require.Equal(t, []any{elf.ELFCLASS32, elf.ELFDATA2MSB, elf.EM_LANAI, elf.ET_REL}, []any{ef.Class, ef.Data, ef.Machine, ef.Type}, "header")
	var names []string
	for _, s := range ef.Sections {
		names = append(names, s.Name)
	}
	want := []string{"", ".strtab", ".text", ".rela.text", ".data", ".rela.data", ".rodata.str1.1", ".bss", ".comment", ".note.GNU-stack", ".symtab"}
	require.Equal(t, want, names, "sections")
	rt := ef.Sections[3]
	assert.Equal(t, elf.SectionHeader{Name: ".rela.text", Type: elf.SHT_RELA, Flags: elf.SHF_INFO_LINK, Entsize: 12, Link: 10, Info: 2},
		elf.SectionHeader{Name: rt.Name, Type: rt.Type, Flags: rt.Flags, Entsize: rt.Entsize, Link: rt.Link, Info: rt.Info}, ".rela.text header")
	st := ef.Sections[10]
	assert.Equal(t, uint32(1), st.Link, ".symtab sh_link")
	assert.Equal(t, uint64(16), st.Entsize, ".symtab sh_entsize")
	// Locals: null, t.s, .Lloop, .Lstr, section .bss, buf → first global is 6.
	assert.Equal(t, uint32(6), st.Info, ".symtab sh_info")
	for _, s := range ef.Sections[1:] {
		if s.Type != elf.SHT_NOBITS && s.Addralign > 1 && s.Offset%s.Addralign != 0 {
			t.Errorf("section %s offset %#x not aligned to %d", s.Name, s.Offset, s.Addralign)
		}
	}
	syms, err := ef.Symbols()
	require.NoError(t, err)
	got := map[string]elf.Symbol{}
	for _, s := range syms {
		got[s.Name] = s
	}
	if s := got["cbuf"]; s.Section != elf.SHN_COMMON || s.Value != 8 || s.Size != 64 {
		t.Errorf("cbuf = %+v", s)
	}
	if s := got["abs_sym"]; s.Section != elf.SHN_ABS || s.Value != 0x1234 {
		t.Errorf("abs_sym = %+v", s)
	}
	if s := got["wk"]; elf.ST_BIND(s.Info) != elf.STB_WEAK || s.Section != elf.SHN_UNDEF {
		t.Errorf("wk = %+v", s)
	}
	if s := got["tbl"]; s.Section != 4 || s.Other != 2 || elf.ST_TYPE(s.Info) != elf.STT_OBJECT {
		t.Errorf("tbl = %+v", s)
	}
	// .rela.text entry 1: LO16 against the .bss section symbol (index 4), addend 0x14.
	rd, _ := rt.Data()
	if len(rd) != 5*12 {
		t.Fatalf(".rela.text size %d", len(rd))
	}
	if info, add := be.Uint32(rd[12+4:]), int32(be.Uint32(rd[12+8:])); info != 4<<8|6 || add != 0x14 {
		t.Errorf("reloc 1: info %#x addend %#x", info, add)
	}
	if info, add := be.Uint32(rd[36+4:]), int32(be.Uint32(rd[36+8:])); info != 11<<8|1 || add != -4 {
		t.Errorf("reloc 3 (abs_sym-4): info %#x addend %d", info, add)
	}
}

func TestRoundTripEXEC(t *testing.T) {
	f := sampleEXEC()
	b := mustWrite(t, f)
	g := mustReadELF(t, b)
	if d := diffFiles(f, g); d != "" {
		t.Fatalf("round trip differs (-written +read):\n%s", d)
	}
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("debug/elf: %v", err)
	}
	if ef.Type != elf.ET_EXEC || ef.Entry != 0 {
		t.Errorf("type %v entry %#x", ef.Type, ef.Entry)
	}
	if len(ef.Progs) != 4 {
		t.Fatalf("%d program headers, want 4", len(ef.Progs))
	}
	load := func(vaddr, filesz, memsz uint64, flags elf.ProgFlag) elf.ProgHeader {
		return elf.ProgHeader{Type: elf.PT_LOAD, Vaddr: vaddr, Paddr: vaddr, Filesz: filesz, Memsz: memsz, Flags: flags}
	}
	want := []elf.ProgHeader{
		load(0, 8, 8, elf.PF_R|elf.PF_X),
		load(8, 8, 8, elf.PF_R),
		load(0x1234, 4, 4, elf.PF_R|elf.PF_W),
		load(0x1240, 0, 0x1000, elf.PF_R|elf.PF_W),
	}
	var got []elf.ProgHeader
	for _, p := range ef.Progs {
		got = append(got, p.ProgHeader)
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(elf.ProgHeader{}, "Off", "Align")); d != "" {
		t.Errorf("program headers (-want +got):\n%s", d)
	}
	for i, p := range ef.Progs {
		if p.Align > 1 && p.Off%p.Align != p.Vaddr%p.Align {
			t.Errorf("phdr %d: offset %#x and vaddr %#x not congruent modulo %d", i, p.Off, p.Vaddr, p.Align)
		}
		if p.Filesz > 0 {
			seg := make([]byte, p.Filesz)
			if _, err := p.ReadAt(seg, 0); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(seg, f.Sections[i].Data) {
				t.Errorf("phdr %d contents %x, want %x", i, seg, f.Sections[i].Data)
			}
		}
	}
}

// TestReadSegmentsOnly reads an executable whose section headers were
// stripped: sections come from the PT_LOAD segments.
func TestReadSegmentsOnly(t *testing.T) {
	b := mustWrite(t, sampleEXEC())
	// Drop the section header table.
	be.PutUint32(b[32:], 0)
	be.PutUint16(b[48:], 0)
	be.PutUint16(b[50:], 0)
	g := mustReadELF(t, b)
	var got []string
	for _, s := range g.Sections {
		got = append(got, fmt.Sprintf("%s:%d:%#x:%#x:%x", s.Name, s.Type, s.Addr, s.Size, s.Data))
	}
	want := []string{
		"load0:1:0x0:0x8:e000000000000001",
		"load1:1:0x8:0x8:" + fmt.Sprintf("%x", "constant"),
		"load2:1:0x1234:0x4:01020304",
		"load3.bss:8:0x1240:0x1000:",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sections (-want +got):\n%s", d)
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// relocString renders a relocation like llvm-readelf -r does:
// offset, type, symbol name, addend.
func relocString(r Reloc) string {
	name := ""
	if r.Sym != nil {
		name = r.Sym.DisplayName()
	}
	return fmt.Sprintf("%08x %v %s%+d", r.Offset, r.Type, name, r.Addend)
}

// TestReadLLVMObject checks what ReadELF makes of testdata/relocs.o
// (made by llvm-mc-14 from relocs.s) against the llvm-readelf-14 listing.
func TestReadLLVMObject(t *testing.T) {
	f := mustReadELF(t, readTestdata(t, "relocs.o"))
	if f.Kind != REL || f.Format != FormatELF {
		t.Errorf("kind %v format %s", f.Kind, f.Format)
	}
	var secs []string
	for _, s := range f.Sections {
		secs = append(secs, fmt.Sprintf("%s type=%d flags=%#x size=%#x align=%d entsize=%d", s.Name, s.Type, s.Flags, s.Size, s.Align, s.EntSize))
	}
	wantSecs := []string{
		".text type=1 flags=0x6 size=0x30 align=4 entsize=0",
		".data type=1 flags=0x3 size=0x10 align=4 entsize=0",
		".rodata.str1.1 type=1 flags=0x32 size=0x6 align=1 entsize=1",
		".bss type=8 flags=0x3 size=0xc align=4 entsize=0",
	}
	if d := cmp.Diff(wantSecs, secs); d != "" {
		t.Errorf("sections (-want +got):\n%s", d)
	}
	if s := f.Section(".rodata.str1.1"); s == nil || string(s.Data) != "hello\x00" {
		t.Errorf(".rodata.str1.1 = %+v", s)
	}
	if s := f.Section(".bss"); s == nil || s.Data != nil {
		t.Errorf(".bss data = %v, want nil", s.Data)
	}
	var syms []string
	for _, s := range f.Symbols {
		sec := fmt.Sprintf("%d", s.Shndx)
		if s.Section != nil {
			sec = s.Section.Name
		}
		syms = append(syms, fmt.Sprintf("%08x %d %d %d %s %s", s.Value, s.Size, s.Type, s.Bind, sec, s.DisplayName()))
	}
	wantSyms := []string{
		"00000004 0 0 0 .bss buf",
		"00000000 0 0 0 .bss small",
		"00000018 0 0 0 .text .Lloop",
		"00000000 0 0 0 .rodata.str1.1 .Lstr",
		"00000000 0 3 0 .rodata.str1.1 .rodata.str1.1",
		"00000000 0 3 0 .bss .bss",
		"00000000 40 2 1 .text entry",
		"00000000 0 0 1 0 ext_fn",
		"00000000 0 0 1 .data tbl",
		"00000000 0 0 1 0 ext_data",
		"00000008 64 1 1 65522 cbuf",
		"00000000 0 0 2 0 wk",
		"00001234 0 0 1 65521 abs_sym",
	}
	if d := cmp.Diff(wantSyms, syms); d != "" {
		t.Errorf("symbols (-want +got):\n%s", d)
	}
	var rels []string
	for _, s := range f.Sections {
		for _, r := range s.Relocs {
			rels = append(rels, s.Name+" "+relocString(r))
		}
	}
	wantRels := []string{
		".text 00000000 R_LANAI_HI16 buf+4",
		".text 00000004 R_LANAI_LO16 .bss+8",
		".text 00000008 R_LANAI_21 small+0",
		".text 0000000c R_LANAI_21 small+0",
		".text 00000010 R_LANAI_25 ext_fn+0",
		".text 00000018 R_LANAI_25 .Lloop+0",
		".text 00000020 R_LANAI_HI16 .Lstr+0",
		".text 00000024 R_LANAI_LO16 .rodata.str1.1+0",
		".text 00000028 R_LANAI_25 wk+0",
		".data 00000000 R_LANAI_32 entry+0",
		".data 00000004 R_LANAI_32 .Lloop+0",
		".data 00000008 R_LANAI_32 ext_data+8",
		".data 0000000c R_LANAI_32 .Lstr+1",
	}
	if d := cmp.Diff(wantRels, rels); d != "" {
		t.Errorf("relocations (-want +got):\n%s", d)
	}
	// The unrelocated instruction words (llvm-objdump-14 -d).
	text := f.Section(".text").Data
	for off, w := range map[int]uint32{0: 0x01810000, 4: 0x518c0000, 8: 0xf2020000, 0xc: 0xf2800000, 0x10: 0xe0000000, 0x14: 0x00000001} {
		if got := be.Uint32(text[off:]); got != w {
			t.Errorf(".text+%#x = %#08x, want %#08x", off, got, w)
		}
	}
}

// TestReadClangObject checks testdata/prog.o (clang-14 -O2) against its
// llvm-readelf-14 listing, including the sections clang adds.
func TestReadClangObject(t *testing.T) {
	f := mustReadELF(t, readTestdata(t, "prog.o"))
	var secs []string
	for _, s := range f.Sections {
		secs = append(secs, fmt.Sprintf("%s:%#x:%#x:%d", s.Name, s.Type, s.Size, len(s.Relocs)))
	}
	want := ".text:0x1:0x204:48 .rodata.str1.4:0x1:0x10:0 .data:0x1:0xc:3 .bss:0x8:0x4:0 .comment:0x1:0x1d:0 .note.GNU-stack:0x1:0x0:0 .llvm_addrsig:0x6fff4c03:0x0:0"
	if got := strings.Join(secs, " "); got != want {
		t.Errorf("sections:\n%s\nwant:\n%s", got, want)
	}
	if len(f.Symbols) != 26 {
		t.Errorf("%d symbols, want 26", len(f.Symbols))
	}
	if s := f.Symbol("main"); s == nil || s.Value != 0xfc || s.Size != 264 || s.Type != STT_FUNC || s.Section != f.Section(".text") {
		t.Errorf("main = %+v", s)
	}
	if s := f.Symbol("prog.c"); s == nil || s.Type != STT_FILE || s.Shndx != SHN_ABS {
		t.Errorf("prog.c = %+v", s)
	}
	text := f.Section(".text")
	if got := relocString(text.Relocs[0]); got != "00000010 R_LANAI_25 .LBB0_1+0" {
		t.Errorf("first text reloc %s", got)
	}
	if got := relocString(text.Relocs[47]); got != "000001e8 R_LANAI_LO16 names+8" {
		t.Errorf("last text reloc %s", got)
	}
	if got := relocString(f.Section(".data").Relocs[2]); got != "00000008 R_LANAI_32 .L.str.2+0" {
		t.Errorf("last data reloc %s", got)
	}
	if !strings.Contains(string(f.Section(".comment").Data), "clang version 14") {
		t.Errorf(".comment = %q", f.Section(".comment").Data)
	}
}

// TestRewriteLLVMObjects reads LLVM's objects, writes them and reads them
// back: everything except the dropped .llvm_addrsig survives.
func TestRewriteLLVMObjects(t *testing.T) {
	for _, name := range []string{"crt0.o", "relocs.o", "prog.o"} {
		t.Run(name, func(t *testing.T) {
			f := mustReadELF(t, readTestdata(t, name))
			g := mustReadELF(t, mustWrite(t, f))
			var kept []*Section
			for _, s := range f.Sections {
				if s.Type != SHT_LLVM_ADDRSIG {
					kept = append(kept, s)
				}
			}
			f.Sections = kept
			if d := diffFiles(f, g); d != "" {
				t.Errorf("rewrite differs (-read +rewritten):\n%s", d)
			}
		})
	}
}

func TestFileHelpers(t *testing.T) {
	f := sampleREL()
	bss := f.Section(".bss")
	if f.SectionSymbol(bss) != f.Symbols[3] {
		t.Error("SectionSymbol did not find the existing .bss symbol")
	}
	n := len(f.Symbols)
	data := f.Section(".data")
	s := f.SectionSymbol(data)
	if len(f.Symbols) != n+1 || s.Type != STT_SECTION || s.Section != data || s.DisplayName() != ".data" {
		t.Errorf("SectionSymbol(.data) = %+v", s)
	}
	if f.Symbol("nope") != nil || f.Section("nope") != nil {
		t.Error("lookup of a missing name succeeded")
	}
	if !f.Symbol("cbuf").IsCommon() || !f.Symbol("abs_sym").IsAbs() || !f.Symbol("ext").IsUndefined() || !f.Symbol("buf").IsDefined() {
		t.Error("symbol predicates")
	}
	// Relocation symbols missing from Symbols are added by the writer.
	g := sampleREL()
	extra := &Symbol{Name: "late", Bind: STB_GLOBAL}
	g.Sections[0].Relocs = append(g.Sections[0].Relocs, Reloc{Offset: 8, Type: R_LANAI_25, Sym: extra})
	h := mustReadELF(t, mustWrite(t, g))
	if s := h.Symbol("late"); s == nil || !s.IsUndefined() {
		t.Errorf("late = %+v", s)
	}
	if r := h.Sections[0].Relocs[5]; r.Sym == nil || r.Sym.Name != "late" {
		t.Errorf("reloc against late = %+v", r)
	}
}

func TestWriteELFErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(f *File)
		want   string
	}{
		{"bad kind", func(f *File) { f.Kind = 7 }, "kind"},
		{"nil section", func(f *File) { f.Sections = append(f.Sections, nil) }, "nil"},
		{"nil symbol", func(f *File) { f.Symbols = append(f.Symbols, nil) }, "nil"},
		{"bad align", func(f *File) { f.Sections[0].Align = 3 }, "power of two"},
		{"size mismatch", func(f *File) { f.Sections[0].Size = 4 }, "Size"},
		{"rela section", func(f *File) { f.Sections = append(f.Sections, &Section{Name: ".rela.x", Type: SHT_RELA}) }, "generated"},
		{"foreign section", func(f *File) { f.Symbols[1].Section = &Section{Name: ".other"} }, "not in File.Sections"},
		{"bad shndx", func(f *File) { f.Symbols[7].Shndx = 5 }, "Shndx"},
		{"reloc offset", func(f *File) { f.Sections[0].Relocs[0].Offset = 17 }, "outside"},
		{"reloc type", func(f *File) { f.Sections[0].Relocs[0].Type = 300 }, "8 bits"},
		{"dup symbol", func(f *File) { f.Symbols = append(f.Symbols, f.Symbols[0]) }, "twice"},
		{"bss reloc", func(f *File) {
			f.Sections[3].Relocs = []Reloc{{Offset: 0, Type: R_LANAI_32}}
		}, "NOBITS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := sampleREL()
			tc.modify(f)
			_, err := f.WriteELF()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("WriteELF error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// File.Addrsig becomes .llvm_addrsig, after the sections and before
// .symtab, linked to it, holding the symbols' indices in ULEB128 (a
// symbol not in File.Symbols is added as a relocation target is).
func TestWriteAddrsig(t *testing.T) {
	f := sampleREL()
	extra := &Symbol{Name: "only_addrsig", Bind: STB_GLOBAL}
	f.Addrsig = &Addrsig{Syms: []*Symbol{f.Symbol("tbl"), extra, f.Symbol("buf")}}
	b := mustWrite(t, f)
	ef, err := elf.NewFile(bytes.NewReader(b))
	require.NoError(t, err)
	n := len(ef.Sections)
	as, st := ef.Sections[n-2], ef.Sections[n-1]
	require.Equal(t, []any{".llvm_addrsig", elf.SectionType(SHT_LLVM_ADDRSIG), elf.SectionFlag(SHF_EXCLUDE), uint32(n - 1)}, []any{as.Name, as.Type, as.Flags, as.Link})
	require.Equal(t, ".symtab", st.Name)
	syms, err := ef.Symbols() // without the null symbol: index i+1
	require.NoError(t, err)
	index := map[string]byte{}
	for i, s := range syms {
		index[s.Name] = byte(i + 1)
	}
	data, err := as.Data()
	require.NoError(t, err)
	require.Equal(t, []byte{index["tbl"], index["only_addrsig"], index["buf"]}, data)
	require.NotZero(t, index["only_addrsig"])
}

func TestWriteDropsAddrsig(t *testing.T) {
	f := sampleREL()
	f.Sections = append(f.Sections, &Section{Name: ".llvm_addrsig", Type: SHT_LLVM_ADDRSIG, Flags: SHF_EXCLUDE, Data: []byte{1, 2}})
	g := mustReadELF(t, mustWrite(t, f))
	if g.Section(".llvm_addrsig") != nil {
		t.Error(".llvm_addrsig was written")
	}
	if len(g.Sections) != len(f.Sections)-1 {
		t.Errorf("%d sections, want %d", len(g.Sections), len(f.Sections)-1)
	}
}

// TestReadELFErrors corrupts single fields of a valid file and checks for a
// clear error.
func TestReadELFErrors(t *testing.T) {
	valid := mustWrite(t, sampleREL())
	shoff := be.Uint32(valid[32:])
	sh := func(i int) int { return int(shoff) + i*elfShdrSize }
	checkCorruptions(t, valid, ReadELF, "elf: ", []corruption{
		{"short", func(b []byte) []byte { return b[:30] }, "too short"},
		{"magic", func(b []byte) []byte { b[1] = 'X'; return b }, "magic"},
		{"class", func(b []byte) []byte { b[4] = 2; return b }, "32-bit"},
		{"little endian", func(b []byte) []byte { b[5] = 1; return b }, "big-endian"},
		{"type", func(b []byte) []byte { be.PutUint16(b[16:], 3); return b }, "file type"},
		{"machine", func(b []byte) []byte { be.PutUint16(b[18:], 62); return b }, "EM_LANAI"},
		{"shentsize", func(b []byte) []byte { be.PutUint16(b[46:], 64); return b }, "section header size"},
		{"shoff", func(b []byte) []byte { be.PutUint32(b[32:], 0xfffffff0); return b }, "outside"},
		{"shnum", func(b []byte) []byte { be.PutUint16(b[48:], 0xfeff); return b }, "past the end"},
		{"shstrndx", func(b []byte) []byte { be.PutUint16(b[50:], 200); return b }, "out of range"},
		{"section offset", func(b []byte) []byte { be.PutUint32(b[sh(1)+16:], 0xffffff00); return b }, "past the end"},
		{"section name", func(b []byte) []byte { be.PutUint32(b[sh(1):], 0x7fffffff); return b }, "string offset"},
		{"alignment", func(b []byte) []byte { be.PutUint32(b[sh(2)+32:], 6); return b }, "power of two"},
		{"rela entsize", func(b []byte) []byte { be.PutUint32(b[sh(3)+36:], 8); return b }, "entry size"},
		{"rela target", func(b []byte) []byte { be.PutUint32(b[sh(3)+28:], 10); return b }, "target section"},
		{"rela link", func(b []byte) []byte { be.PutUint32(b[sh(3)+24:], 2); return b }, "not the symbol table"},
		{"rela to nobits", func(b []byte) []byte { be.PutUint32(b[sh(3)+28:], 7); return b }, "SHT_NOBITS"},
		{"symtab link", func(b []byte) []byte { be.PutUint32(b[sh(10)+24:], 2); return b }, "not a string table"},
		{"symtab entsize", func(b []byte) []byte { be.PutUint32(b[sh(10)+36:], 12); return b }, "entry size"},
		{"rel section", func(b []byte) []byte { be.PutUint32(b[sh(3)+4:], SHT_REL); return b }, "SHT_REL"},
		{"reloc sym", func(b []byte) []byte {
			off := be.Uint32(b[sh(3)+16:])
			be.PutUint32(b[off+4:], 0xffff05)
			return b
		}, "symbol index"},
		{"reloc offset", func(b []byte) []byte {
			off := be.Uint32(b[sh(3)+16:])
			be.PutUint32(b[off:], 0x13)
			return b
		}, "outside section"},
		{"symbol section", func(b []byte) []byte {
			off := be.Uint32(b[sh(10)+16:])
			be.PutUint16(b[off+2*16+14:], 10) // .Lloop → the symtab itself
			return b
		}, "not a content section"},
		{"symbol xindex", func(b []byte) []byte {
			off := be.Uint32(b[sh(10)+16:])
			be.PutUint16(b[off+2*16+14:], SHN_XINDEX)
			return b
		}, "SHN_XINDEX"},
		{"symbol name", func(b []byte) []byte {
			off := be.Uint32(b[sh(10)+16:])
			be.PutUint32(b[off+2*16:], 0x10000)
			return b
		}, "string offset"},
		{"unterminated strtab", func(b []byte) []byte {
			off, size := be.Uint32(b[sh(1)+16:]), be.Uint32(b[sh(1)+20:])
			b[off+size-1] = 'x'
			return b
		}, "NUL-terminated"},
	})
}

func TestRead(t *testing.T) {
	f, err := Read(readTestdata(t, "crt0.o"))
	if err != nil || f.Format != FormatELF {
		t.Fatalf("Read(crt0.o) = %v, %v", f, err)
	}
	c, err := Read(buildCOFF(t, sampleCOFF()))
	if err != nil || c.Format != FormatCOFF {
		t.Fatalf("Read(COFF) = %v, %v", c, err)
	}
	for _, b := range [][]byte{nil, {0x7f}, []byte("#!/bin/sh\n"), {0x13, 0x01, 0, 0}} {
		if _, err := Read(b); err == nil {
			t.Errorf("Read(%q) succeeded", b)
		}
	}
}
