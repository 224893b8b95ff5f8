package link

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/objfile"
)

// Expected addresses and words in these tests are computed by hand from
// the layout rules in the package documentation and the relocation
// formulas of isa.md §5.2; they are not produced by the code under test.

// words encodes big-endian 32-bit words.
func words(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		binary.BigEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func text(align uint32, ws ...uint32) *objfile.Section {
	d := words(ws...)
	return &objfile.Section{Name: ".text", Type: objfile.SHT_PROGBITS, Flags: objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, Align: align, Data: d, Size: uint32(len(d))}
}

func progbits(name string, flags, align uint32, data []byte) *objfile.Section {
	return &objfile.Section{Name: name, Type: objfile.SHT_PROGBITS, Flags: flags, Align: align, Data: data, Size: uint32(len(data))}
}

func nobits(name string, align, size uint32) *objfile.Section {
	return &objfile.Section{Name: name, Type: objfile.SHT_NOBITS, Flags: objfile.SHF_ALLOC | objfile.SHF_WRITE, Align: align, Size: size}
}

func gsym(name string, sec *objfile.Section, value uint32) *objfile.Symbol {
	return &objfile.Symbol{Name: name, Bind: objfile.STB_GLOBAL, Section: sec, Value: value}
}

func undef(name string) *objfile.Symbol {
	return &objfile.Symbol{Name: name, Bind: objfile.STB_GLOBAL}
}

func word(t *testing.T, f *objfile.File, addr uint32) uint32 {
	t.Helper()
	for _, s := range f.Sections {
		if s.Type != objfile.SHT_NOBITS && addr >= s.Addr && addr+4 <= s.Addr+s.Size {
			return binary.BigEndian.Uint32(s.Data[addr-s.Addr:])
		}
	}
	t.Fatalf("no contents at 0x%x", addr)
	return 0
}

func symbolAddr(t *testing.T, f *objfile.File, name string) uint32 {
	t.Helper()
	s := f.Symbol(name)
	if s == nil {
		t.Fatalf("no symbol %s in the output", name)
	}
	return s.Value
}

// twoObjects builds a.o and b.o for TestLink.
func twoObjects() []*objfile.File {
	// a.o
	aText := text(4,
		0xe0000000, // 0: bt main
		0x00000001, // 4: nop
		0x01810000, // 8: mov hi(msg+2), %r3
		0x518c0000, // c: or %r3, lo(msg+2), %r3
	)
	aRodata := progbits(".rodata", objfile.SHF_ALLOC, 4, []byte{1, 2, 3, 4})
	aData := progbits(".data", objfile.SHF_ALLOC|objfile.SHF_WRITE, 4, make([]byte, 8))
	aComment := progbits(".comment", objfile.SHF_MERGE|objfile.SHF_STRINGS, 1, []byte("\x00x\x00"))
	aTextSym := &objfile.Symbol{Type: objfile.STT_SECTION, Section: aText}
	aStart := gsym("_start", aText, 0)
	aMain, aMsg := undef("main"), undef("msg")
	aCounter := &objfile.Symbol{Name: "counter", Bind: objfile.STB_GLOBAL, Shndx: objfile.SHN_COMMON, Value: 8, Size: 8}
	aText.Relocs = []objfile.Reloc{
		{Offset: 0, Type: objfile.R_LANAI_25, Sym: aMain},
		{Offset: 8, Type: objfile.R_LANAI_HI16, Sym: aMsg, Addend: 2},
		{Offset: 12, Type: objfile.R_LANAI_LO16, Sym: aMsg, Addend: 2},
	}
	aData.Relocs = []objfile.Reloc{
		{Offset: 0, Type: objfile.R_LANAI_32, Sym: aTextSym, Addend: 8},
		{Offset: 4, Type: objfile.R_LANAI_32, Sym: aCounter},
	}
	a := &objfile.File{Kind: objfile.REL,
		Sections: []*objfile.Section{aText, aRodata, aData, aComment},
		Symbols:  []*objfile.Symbol{aTextSym, aStart, aMain, aMsg, aCounter}}

	// b.o
	bText := text(8,
		0xf2020000, // 0: mov msg, %r4 (SLI)
		0xe0000000, // 4: .Lloop: bt .Lloop
		0xe0000000, // 8: bt _start
	)
	bStr := progbits(".rodata.str1.1", objfile.SHF_ALLOC|objfile.SHF_MERGE|objfile.SHF_STRINGS, 1, []byte("hello\x00"))
	bStr.EntSize = 1
	bBSS := nobits(".bss", 4, 0x10)
	bLoop := &objfile.Symbol{Name: ".Lloop", Section: bText, Value: 4}
	bHelper := &objfile.Symbol{Name: "helper_local", Section: bText, Value: 8, Type: objfile.STT_FUNC}
	bMain := gsym("main", bText, 0)
	bMain.Type, bMain.Size = objfile.STT_FUNC, 12
	bMsg := gsym("msg", bStr, 0)
	bStartRef := undef("_start")
	bCounter := &objfile.Symbol{Name: "counter", Bind: objfile.STB_GLOBAL, Shndx: objfile.SHN_COMMON, Value: 4, Size: 4}
	bText.Relocs = []objfile.Reloc{
		{Offset: 0, Type: objfile.R_LANAI_21, Sym: bMsg},
		{Offset: 4, Type: objfile.R_LANAI_25, Sym: bLoop},
		{Offset: 8, Type: objfile.R_LANAI_25, Sym: bStartRef},
	}
	b := &objfile.File{Kind: objfile.REL,
		Sections: []*objfile.Section{bText, bStr, bBSS},
		Symbols:  []*objfile.Symbol{bLoop, bHelper, bMain, bMsg, bStartRef, bCounter}}
	return []*objfile.File{a, b}
}

func TestLink(t *testing.T) {
	var mapBuf bytes.Buffer
	out, err := Link(twoObjects(), []string{"a.o", "b.o"}, Options{MapFile: &mapBuf})
	require.NoError(t, err)
	if out.Kind != objfile.EXEC || out.Entry != 0 {
		t.Errorf("kind %v entry %#x", out.Kind, out.Entry)
	}
	// Layout by hand: .text a.o [0,0x10), b.o (align 8) [0x10,0x1c);
	// .rodata a.o [0x1c,0x20), b.o .rodata.str1.1 [0x20,0x26);
	// .data [0x28,0x30); .bss b.o [0x30,0x40), COMMON counter (8, align 8)
	// [0x40,0x48).
	type sec struct {
		name        string
		typ         uint32
		addr, size  uint32
		align       uint32
		flags       uint32
		dataPresent bool
	}
	want := []sec{
		{".text", objfile.SHT_PROGBITS, 0, 0x1c, 8, objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, true},
		{".rodata", objfile.SHT_PROGBITS, 0x1c, 0xa, 4, objfile.SHF_ALLOC, true},
		{".data", objfile.SHT_PROGBITS, 0x28, 0x8, 4, objfile.SHF_ALLOC | objfile.SHF_WRITE, true},
		{".bss", objfile.SHT_NOBITS, 0x30, 0x18, 8, objfile.SHF_ALLOC | objfile.SHF_WRITE, false},
	}
	var got []sec
	for _, s := range out.Sections {
		got = append(got, sec{s.Name, s.Type, s.Addr, s.Size, s.Align, s.Flags, s.Data != nil})
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(sec{})); d != "" {
		t.Errorf("output sections (-want +got):\n%s", d)
	}
	for name, addr := range map[string]uint32{
		"_start": 0, "main": 0x10, "msg": 0x20, "counter": 0x40, "helper_local": 0x18,
		"_etext": 0x1c, "_erodata": 0x26, "__data_start": 0x28, "_edata": 0x30,
		"__bss_start": 0x30, "__bss_end": 0x48, "_end": 0x48, "__stack_top": 0x200000,
	} {
		if got := symbolAddr(t, out, name); got != addr {
			t.Errorf("%s = %#x, want %#x", name, got, addr)
		}
	}
	if out.Symbol(".Lloop") != nil {
		t.Error(".L label kept in the output")
	}
	if s := out.Symbol("counter"); s.Size != 8 || s.Section != out.Sections[3] {
		t.Errorf("counter = %+v", s)
	}
	if s := out.Symbol("main"); s.Type != objfile.STT_FUNC || s.Size != 12 || s.Section != out.Sections[0] {
		t.Errorf("main = %+v", s)
	}
	for addr, w := range map[uint32]uint32{
		0x00: 0xe0000010, // bt main
		0x04: 0x00000001,
		0x08: 0x01810000, // hi(0x22)
		0x0c: 0x518c0022, // lo(0x22)
		0x10: 0xf2020020, // R_LANAI_21 msg=0x20
		0x14: 0xe0000014, // bt .Lloop
		0x18: 0xe0000000, // bt _start
		0x1c: 0x01020304, // a.o .rodata
		0x20: 0x68656c6c, // "hell"
		0x28: 0x00000008, // .text section symbol + 8
		0x2c: 0x00000040, // counter
	} {
		if got := word(t, out, addr); got != w {
			t.Errorf("word at %#x = %#08x, want %#08x", addr, got, w)
		}
	}
	// The map lists output sections, input sections and symbols.
	m := mapBuf.String()
	for _, want := range []string{
		".text            0x00000000 0x0000001c",
		" .text           0x00000010 0x0000000c b.o",
		"0x00000010            main",
		"0x00000018            helper_local",
		" .rodata.str1.1  0x00000020 0x00000006 b.o",
		" COMMON          0x00000040 0x00000008 a.o",
		"0x00000040            counter",
		"0x00000048            __bss_end",
		"Entry point: 0x00000000",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("map lacks %q:\n%s", want, m)
		}
	}
	if strings.Contains(m, ".comment") || strings.Contains(m, ".Lloop") {
		t.Errorf("map lists dropped items:\n%s", m)
	}
	// The output can be written as ELF and read back.
	b, err := out.WriteELF()
	require.NoError(t, err)
	back, err := objfile.ReadELF(b)
	require.NoError(t, err)
	if back.Kind != objfile.EXEC || len(back.Sections) != 4 || word(t, back, 0) != 0xe0000010 {
		t.Errorf("read back: %+v", back)
	}
}

func TestLinkAddresses(t *testing.T) {
	data := uint32(0x1000)
	out, err := Link(twoObjects(), []string{"a.o", "b.o"}, Options{TextAddr: 0x100, DataAddr: &data})
	require.NoError(t, err)
	// .text at 0x100: _start 0x100, main 0x110; .rodata 0x11c, msg 0x120;
	// .data 0x1000; .bss 0x1008, counter at 0x1018.
	for name, addr := range map[string]uint32{"_start": 0x100, "main": 0x110, "msg": 0x120, "counter": 0x1018, "__bss_start": 0x1008, "_end": 0x1020} {
		if got := symbolAddr(t, out, name); got != addr {
			t.Errorf("%s = %#x, want %#x", name, got, addr)
		}
	}
	if out.Entry != 0x100 {
		t.Errorf("entry %#x", out.Entry)
	}
	for addr, w := range map[uint32]uint32{
		0x100:  0xe0000110, // bt main
		0x10c:  0x518c0122, // lo(msg+2)
		0x110:  0xf2020120, // R_LANAI_21 msg
		0x114:  0xe0000114, // bt .Lloop
		0x118:  0xe0000100, // bt _start
		0x1000: 0x00000108, // .text+8
		0x1004: 0x00001018, // counter
	} {
		if got := word(t, out, addr); got != w {
			t.Errorf("word at %#x = %#08x, want %#08x", addr, got, w)
		}
	}
}

func TestUndefined(t *testing.T) {
	a := text(4, 0xe0000000, 0x01810000, 0x518c0000)
	foo, bar := undef("foo"), undef("bar")
	a.Relocs = []objfile.Reloc{
		{Offset: 0, Type: objfile.R_LANAI_25, Sym: foo},
		{Offset: 4, Type: objfile.R_LANAI_HI16, Sym: bar},
		{Offset: 8, Type: objfile.R_LANAI_LO16, Sym: bar},
	}
	b := text(4, 0, 0xe0000000)
	foo2 := undef("foo")
	b.Relocs = []objfile.Reloc{{Offset: 4, Type: objfile.R_LANAI_25, Sym: foo2}}
	dataSec := progbits(".data", objfile.SHF_ALLOC|objfile.SHF_WRITE, 4, make([]byte, 4))
	dataSec.Relocs = []objfile.Reloc{{Offset: 0, Type: objfile.R_LANAI_32, Sym: foo2}}
	objs := []*objfile.File{
		{Kind: objfile.REL, Sections: []*objfile.Section{a}, Symbols: []*objfile.Symbol{gsym("_start", a, 0), foo, bar}},
		{Kind: objfile.REL, Sections: []*objfile.Section{b, dataSec}, Symbols: []*objfile.Symbol{foo2, undef("unused")}},
	}
	_, err := Link(objs, []string{"a.o", "b.o"}, Options{})
	if err == nil {
		t.Fatal("link succeeded")
	}
	want := []string{
		"undefined symbol: foo\n>>> referenced by a.o:(.text+0x0)\n>>> referenced by b.o:(.text+0x4)\n>>> referenced by b.o:(.data+0x0)",
		"undefined symbol: bar\n>>> referenced by a.o:(.text+0x4)\n>>> referenced by a.o:(.text+0x8)",
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 2 {
		t.Fatalf("want 2 joined errors (none for unused, which no relocation names), got %v", err)
	}
	var got []string
	for _, e := range joined.Unwrap() {
		got = append(got, e.Error())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

// TestUnreferencedUndefined: as with lld, an undefined symbol that no
// relocation names (llvm-mc keeps one that .type, .hidden or .addrsig_sym
// names) is no error; it stays undefined in the executable's symbol table,
// with its type and visibility.
func TestUnreferencedUndefined(t *testing.T) {
	a := text(4, 0xe0000000)
	objs := []*objfile.File{
		{Kind: objfile.REL, Sections: []*objfile.Section{a}, Symbols: []*objfile.Symbol{gsym("_start", a, 0),
			{Name: "typed", Bind: objfile.STB_GLOBAL, Type: objfile.STT_FUNC},
			{Name: "hidden", Bind: objfile.STB_GLOBAL, Other: objfile.STV_HIDDEN},
			{Name: "both", Bind: objfile.STB_WEAK}}},
		{Kind: objfile.REL, Symbols: []*objfile.Symbol{undef("both"), undef("typed")}},
	}
	out, err := Link(objs, []string{"a.o", "b.o"}, Options{})
	require.NoError(t, err)
	type sym struct {
		Bind, Type, Other uint8
		Shndx             uint16
		Section           bool
	}
	got := map[string]sym{}
	for _, s := range out.Symbols {
		got[s.Name] = sym{s.Bind, s.Type, s.Other, s.Shndx, s.Section != nil}
	}
	want := map[string]sym{
		"typed":  {Bind: objfile.STB_GLOBAL, Type: objfile.STT_FUNC},
		"hidden": {Bind: objfile.STB_GLOBAL, Other: objfile.STV_HIDDEN},
		"both":   {Bind: objfile.STB_GLOBAL}, // a strong undefined one makes it global
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("%s: %+v (in the table: %v), want %+v", name, g, ok, w)
		}
	}
}

func TestWeakUndefined(t *testing.T) {
	a := text(4, 0xe0000000, 0x01810000, 0x518c0000, 0)
	wk := &objfile.Symbol{Name: "wk", Bind: objfile.STB_WEAK}
	a.Relocs = []objfile.Reloc{
		{Offset: 0, Type: objfile.R_LANAI_25, Sym: wk, Addend: 8},
		{Offset: 4, Type: objfile.R_LANAI_HI16, Sym: wk, Addend: 0x12345},
		{Offset: 8, Type: objfile.R_LANAI_LO16, Sym: wk, Addend: 0x12345},
		{Offset: 12, Type: objfile.R_LANAI_32, Sym: wk},
	}
	out, err := Link([]*objfile.File{{Kind: objfile.REL, Sections: []*objfile.Section{a}, Symbols: []*objfile.Symbol{gsym("_start", a, 0), wk}}}, nil, Options{})
	require.NoError(t, err)
	for addr, w := range map[uint32]uint32{0: 0xe0000008, 4: 0x01810001, 8: 0x518c2345, 12: 0} {
		if got := word(t, out, addr); got != w {
			t.Errorf("word at %#x = %#08x, want %#08x", addr, got, w)
		}
	}
	if s := out.Symbol("wk"); s == nil || !s.IsUndefined() || s.Bind != objfile.STB_WEAK {
		t.Errorf("wk = %+v", s)
	}
}

// resolveObjs links objects each defining sym with the given binding
// ("strong", "weak", "common:size:align") plus a reference from the first
// object's .data, and returns the output and the referenced address.
func TestSymbolPrecedence(t *testing.T) {
	type def struct {
		kind string // strong, weak, common
		size uint32 // common size
	}
	mk := func(i int, d def) *objfile.File {
		sec := progbits(".data", objfile.SHF_ALLOC|objfile.SHF_WRITE, 4, words(uint32(0x100+i), 0))
		var s *objfile.Symbol
		switch d.kind {
		case "strong":
			s = gsym("x", sec, 0)
		case "weak":
			s = gsym("x", sec, 0)
			s.Bind = objfile.STB_WEAK
		case "common":
			s = &objfile.Symbol{Name: "x", Bind: objfile.STB_GLOBAL, Shndx: objfile.SHN_COMMON, Value: 4, Size: d.size}
		}
		sec.Relocs = []objfile.Reloc{{Offset: 4, Type: objfile.R_LANAI_32, Sym: s}}
		syms := []*objfile.Symbol{s}
		if i == 0 {
			syms = append(syms, gsym("_start", sec, 0))
		}
		return &objfile.File{Kind: objfile.REL, Sections: []*objfile.Section{sec}, Symbols: syms}
	}
	// Each object's .data is 8 bytes: object i at 8*i. Common blocks go
	// to .bss right after .data (at 8*n), aligned to 4.
	tests := []struct {
		name  string
		defs  []def
		addr  uint32 // expected address of x
		size  uint32 // expected output size of x (commons)
		bssSz uint32
	}{
		{"weak then strong", []def{{kind: "weak"}, {kind: "strong"}}, 8, 0, 0},
		{"strong then weak", []def{{kind: "strong"}, {kind: "weak"}}, 0, 0, 0},
		{"weak then weak", []def{{kind: "weak"}, {kind: "weak"}}, 0, 0, 0},
		{"common then strong", []def{{kind: "common", size: 16}, {kind: "strong"}}, 8, 0, 0},
		{"strong then common", []def{{kind: "strong"}, {kind: "common", size: 16}}, 0, 0, 0},
		{"weak then common", []def{{kind: "weak"}, {kind: "common", size: 16}}, 16, 16, 16},
		{"commons take the largest", []def{{kind: "common", size: 4}, {kind: "common", size: 32}, {kind: "common", size: 8}}, 24, 32, 32},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var objs []*objfile.File
			for i, d := range tc.defs {
				objs = append(objs, mk(i, d))
			}
			out, err := Link(objs, nil, Options{})
			require.NoError(t, err)
			if got := symbolAddr(t, out, "x"); got != tc.addr {
				t.Errorf("x = %#x, want %#x", got, tc.addr)
			}
			for i := range tc.defs {
				if got := word(t, out, uint32(8*i+4)); got != tc.addr {
					t.Errorf("reference in object %d = %#x, want %#x", i, got, tc.addr)
				}
			}
			if tc.size != 0 && out.Symbol("x").Size != tc.size {
				t.Errorf("x size = %d, want %d", out.Symbol("x").Size, tc.size)
			}
			bss := out.Section(".bss")
			if tc.bssSz == 0 && bss != nil || tc.bssSz != 0 && (bss == nil || bss.Size != tc.bssSz) {
				t.Errorf(".bss = %+v, want size %d", bss, tc.bssSz)
			}
		})
	}
}

func TestDuplicate(t *testing.T) {
	mk := func() *objfile.File {
		s := text(4, 1)
		return &objfile.File{Kind: objfile.REL, Sections: []*objfile.Section{s}, Symbols: []*objfile.Symbol{gsym("foo", s, 0)}}
	}
	_, err := Link([]*objfile.File{mk(), mk(), mk()}, []string{"a.o", "b.o", "c.o"}, Options{})
	want := "duplicate symbol: foo\n>>> defined in a.o\n>>> defined in b.o\n>>> defined in c.o"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

func TestRelocationOverflow(t *testing.T) {
	txt := text(4, 0xe0000000, 0xf2020000, 0xe0000000)
	dat := progbits(".data", objfile.SHF_ALLOC|objfile.SHF_WRITE, 4, make([]byte, 4))
	far := gsym("far", dat, 0)
	odd := gsym("odd", dat, 2)
	txt.Relocs = []objfile.Reloc{
		{Offset: 0, Type: objfile.R_LANAI_25, Sym: odd},
		{Offset: 4, Type: objfile.R_LANAI_21, Sym: far},
		{Offset: 8, Type: objfile.R_LANAI_25, Sym: far, Addend: -0x200004},
	}
	data := uint32(0x200000)
	_, err := Link([]*objfile.File{{Kind: objfile.REL, Sections: []*objfile.Section{txt, dat}, Symbols: []*objfile.Symbol{gsym("_start", txt, 0), far, odd}}},
		[]string{"x.o"}, Options{DataAddr: &data, SRAMSize: 4 << 20})
	if err == nil {
		t.Fatal("link succeeded")
	}
	msg := err.Error()
	for _, want := range []string{
		"x.o:(.text+0x0): relocation R_LANAI_25 against symbol odd (0x200002+0 = 0x200002) out of range",
		"not word-aligned",
		"x.o:(.text+0x4): relocation R_LANAI_21 against symbol far (0x200000+0 = 0x200000) out of range",
		"x.o:(.text+0x8): relocation R_LANAI_25 against symbol far (0x200000-2097156 = 0xfffffffc) out of range",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

func TestLayoutLimits(t *testing.T) {
	obj := func(secs ...*objfile.Section) []*objfile.File {
		return []*objfile.File{{Kind: objfile.REL, Sections: secs, Symbols: []*objfile.Symbol{gsym("_start", secs[0], 0)}}}
	}
	tests := []struct {
		name string
		objs []*objfile.File
		opt  Options
		want string
	}{
		{"code beyond 32 MiB", obj(text(4, 1, 2, 3, 4, 5, 6, 7, 8)), Options{TextAddr: 0x1fffff0, SRAMSize: 0xffffffff}, "beyond the 32 MiB"},
		{"bss beyond SRAM", obj(text(4, 1), nobits(".bss", 4, 3<<20)), Options{}, "does not fit in the 0x200000-byte SRAM"},
		{"text beyond SRAM", obj(text(4, 1)), Options{TextAddr: 0x200000}, "does not fit"},
		{"small SRAM", obj(text(4, 1, 2, 3)), Options{SRAMSize: 8}, "does not fit in the 0x8-byte SRAM"},
		{"overlap", obj(text(4, 1, 2, 3, 4), progbits(".data", objfile.SHF_ALLOC|objfile.SHF_WRITE, 4, make([]byte, 4))), Options{DataAddr: new(uint32(8))}, "overlap"},
		{"address space", obj(text(4, 1), nobits(".bss", 4, 0x100)), Options{DataAddr: new(uint32(0xffffff80)), SRAMSize: 0xffffffff}, "32-bit address space"},
		{"huge alignment", obj(text(1<<31, 1), nobits(".bss", 1<<31, 4)), Options{}, "does not fit"},
		{"bad alignment", obj(text(3, 1)), Options{}, "power of two"},
		// A given address the section's alignment would move: it was
		// moved up in silence (-Ttext 2 put _start at 4).
		{"unaligned text address", obj(text(4, 1)), Options{TextAddr: 2}, "address (0x2) of section .text is not a multiple of its alignment (4)"},
		{"unaligned data address", obj(text(4, 1), progbits(".data", objfile.SHF_ALLOC|objfile.SHF_WRITE, 8, make([]byte, 8))), Options{DataAddr: new(uint32(0x104))}, "address (0x104) of section .data is not a multiple of its alignment (8)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Link(tc.objs, []string{"x.o"}, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Exactly at the limits is fine.
	if _, err := Link(obj(text(4, 1, 2, 3, 4)), nil, Options{TextAddr: 0x1fffff0, SRAMSize: 0x2000000}); err != nil {
		t.Errorf("code ending at 32 MiB: %v", err)
	}
}

func TestEntry(t *testing.T) {
	mk := func(start bool) []*objfile.File {
		s := text(4, 1, 2, 3)
		syms := []*objfile.Symbol{gsym("f", s, 8)}
		if start {
			syms = append(syms, gsym("_start", s, 4))
		}
		return []*objfile.File{{Kind: objfile.REL, Sections: []*objfile.Section{s}, Symbols: syms}}
	}
	var warnings []string
	warn := func(m string) { warnings = append(warnings, m) }
	tests := []struct {
		name   string
		start  bool
		opt    Options
		entry  uint32
		err    string
		warned bool
	}{
		{"_start", true, Options{}, 0x104, "", false},
		{"fallback", false, Options{}, 0x100, "", true},
		{"named", true, Options{Entry: "f"}, 0x108, "", false},
		{"number", false, Options{Entry: "0x10c"}, 0x10c, "", false},
		{"decimal", false, Options{Entry: "260"}, 0x104, "", false},
		{"missing", true, Options{Entry: "nope"}, 0, "entry symbol nope is not defined", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			warnings = nil
			tc.opt.Warn = warn
			tc.opt.TextAddr = 0x100
			out, err := Link(mk(tc.start), nil, tc.opt)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			require.NoError(t, err)
			if out.Entry != tc.entry {
				t.Errorf("entry %#x, want %#x", out.Entry, tc.entry)
			}
			if (len(warnings) > 0) != tc.warned {
				t.Errorf("warnings %q", warnings)
			}
			if tc.warned && !strings.Contains(warnings[0], "cannot find entry symbol _start; defaulting to 0x00000100") {
				t.Errorf("warning %q", warnings[0])
			}
		})
	}
}

func TestBadInputs(t *testing.T) {
	good := func() *objfile.File {
		s := text(4, 0xe0000000)
		return &objfile.File{Kind: objfile.REL, Sections: []*objfile.Section{s}, Symbols: []*objfile.Symbol{gsym("_start", s, 0)}}
	}
	tests := []struct {
		name   string
		modify func(f *objfile.File)
		want   string
	}{
		{"exec", func(f *objfile.File) { f.Kind = objfile.EXEC }, "x.o: not a relocatable object"},
		{"reloc type", func(f *objfile.File) {
			f.Sections[0].Relocs = []objfile.Reloc{{Offset: 0, Type: 9, Sym: f.Symbols[0]}}
		}, "x.o:(.text+0x0): unknown relocation type 9"},
		{"reloc offset", func(f *objfile.File) {
			f.Sections[0].Relocs = []objfile.Reloc{{Offset: 2, Type: objfile.R_LANAI_32, Sym: f.Symbols[0]}}
		}, "x.o:(.text+0x2): relocation R_LANAI_32 offset is outside the section"},
		{"undefined local", func(f *objfile.File) {
			f.Sections[0].Relocs = []objfile.Reloc{{Offset: 0, Type: objfile.R_LANAI_32, Sym: &objfile.Symbol{Name: "l"}}}
		}, "undefined local symbol l"},
		{"not loaded", func(f *objfile.File) {
			c := progbits(".comment", 0, 1, []byte("abcd"))
			f.Sections = append(f.Sections, c)
			f.Sections[0].Relocs = []objfile.Reloc{{Offset: 0, Type: objfile.R_LANAI_32, Sym: &objfile.Symbol{Name: "c", Section: c}}}
		}, "not loaded"},
		{"size mismatch", func(f *objfile.File) { f.Sections[0].Size = 8 }, "size 8 but 4 bytes"},
		{"bad common", func(f *objfile.File) {
			f.Symbols = append(f.Symbols, &objfile.Symbol{Name: "c", Bind: objfile.STB_GLOBAL, Shndx: objfile.SHN_COMMON, Value: 3, Size: 4})
		}, "alignment 3"},
		{"nil section", func(f *objfile.File) { f.Sections = append(f.Sections, nil) }, "nil section"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := good()
			tc.modify(f)
			_, err := Link([]*objfile.File{f}, []string{"x.o"}, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Link(nil, nil, Options{}); err == nil {
		t.Error("linking nothing succeeded")
	}
}

func TestParseNumber(t *testing.T) {
	for s, want := range map[string]uint32{"0": 0, "4096": 4096, "0x1000": 0x1000, "0XfFfF": 0xffff, "4294967295": 0xffffffff, "010": 10} {
		got, err := ParseNumber(s)
		if err != nil || got != want {
			t.Errorf("ParseNumber(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0x", "-1", "+1", "4294967296", "12k", "0x1g"} {
		if _, err := ParseNumber(s); err == nil {
			t.Errorf("ParseNumber(%q) succeeded", s)
		}
	}
}

// TestUnlistedSymbols: relocations may use symbols that File.Symbols does
// not list (objfile.WriteELF adds them too); they resolve normally.
func TestUnlistedSymbols(t *testing.T) {
	a := text(4, 0xe0000000, 0)
	b := text(4, 0, 0)
	target := gsym("target", b, 4)
	a.Relocs = []objfile.Reloc{
		{Offset: 0, Type: objfile.R_LANAI_25, Sym: undef("target")},
		{Offset: 4, Type: objfile.R_LANAI_32, Sym: &objfile.Symbol{Name: ".Lx", Section: a, Value: 4}, Addend: 1},
	}
	b.Relocs = []objfile.Reloc{{Offset: 0, Type: objfile.R_LANAI_32, Sym: target}}
	out, err := Link([]*objfile.File{
		{Kind: objfile.REL, Sections: []*objfile.Section{a}, Symbols: []*objfile.Symbol{gsym("_start", a, 0)}},
		{Kind: objfile.REL, Sections: []*objfile.Section{b}},
	}, nil, Options{})
	require.NoError(t, err)
	// a.o .text [0,8), b.o .text [8,0x10): target = 0xc.
	for addr, w := range map[uint32]uint32{0: 0xe000000c, 4: 5, 8: 0xc} {
		if got := word(t, out, addr); got != w {
			t.Errorf("word at %#x = %#08x, want %#08x", addr, got, w)
		}
	}
	if symbolAddr(t, out, "target") != 0xc {
		t.Error("target missing from the output symbols")
	}
	// A symbol whose section belongs to another object is an error.
	c := text(4, 0)
	_, err = Link([]*objfile.File{{Kind: objfile.REL, Sections: []*objfile.Section{c}, Symbols: []*objfile.Symbol{gsym("x", a, 0)}}}, []string{"c.o"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "c.o: symbol x refers to section .text, which is not in the object") {
		t.Errorf("error %v", err)
	}
}

// A code section is placed at a word boundary even when its object gives it
// no alignment, as llvm-mc does for code sections other than .text (and
// lanai-as -c now too): the LANai fetches instructions by words.
func TestCodeSectionsWordAligned(t *testing.T) {
	head := progbits(".text", objfile.SHF_ALLOC|objfile.SHF_EXECINSTR, 4, []byte{0, 0, 0, 1, 0x12, 0x34})
	tail := progbits(".text.b", objfile.SHF_ALLOC|objfile.SHF_EXECINSTR, 1, words(0x00000001))
	data := progbits(".rodata", objfile.SHF_ALLOC, 1, []byte{0xaa})
	var placed []uint32
	_, err := Link([]*objfile.File{{Kind: objfile.REL, Sections: []*objfile.Section{head, tail, data}, Symbols: []*objfile.Symbol{gsym("_start", head, 0)}}},
		[]string{"x.o"}, Options{Placed: func(_ int, _ *objfile.Section, addr uint32) { placed = append(placed, addr) }})
	require.NoError(t, err)
	// .text at 0 (6 bytes), .text.b at the next word (8, not 6).
	require.Equal(t, []uint32{0, 8}, placed[:2])
}
