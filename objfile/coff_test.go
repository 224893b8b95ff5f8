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
}

type coffSec struct {
	name         string
	paddr, vaddr uint32
	size         uint32 // for sections without data
	data         []byte
	flags        uint32
}

type coffSym struct {
	name   string
	value  uint32
	scnum  int16
	typ    uint16
	sclass uint8
	aux    [][]byte // each up to 18 bytes
}

// buildCOFF encodes spec as System V COFF, big-endian, magic 0x1300, laid
// out as lanai-gcc does: headers, section contents, symbols, string table.
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
	copy(out[20:], opt)
	for i, s := range spec.sections {
		size, ptr := s.size, 0
		if s.data != nil {
			size, ptr = uint32(len(s.data)), len(out)
			out = append(out, s.data...)
		}
		h := out[20+len(opt)+40*i:] // after the append, which may move out
		copy(h[:8], s.name)
		be.PutUint32(h[8:], s.paddr)
		be.PutUint32(h[12:], s.vaddr)
		be.PutUint32(h[16:], size)
		be.PutUint32(h[20:], uint32(ptr))
		be.PutUint32(h[36:], s.flags)
	}
	if len(spec.syms) > 0 {
		be.PutUint32(out[8:], uint32(len(out)))
		strtab := []byte{0, 0, 0, 0}
		n := 0
		for _, s := range spec.syms {
			var e [18]byte
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
				var ae [18]byte
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
		{"scnum", func(b []byte) []byte { be.PutUint16(b[symptr+18*5+12:], 9); return b }, "section number"},
		{"name offset", func(b []byte) []byte { be.PutUint32(b[symptr+18*5+4:], 0xffff); return b }, "string table"},
		{"strtab size", func(b []byte) []byte {
			off := symptr + 18*be.Uint32(b[12:])
			be.PutUint32(b[off:], 0xffffff)
			return b
		}, "string table"},
		{"aux overrun", func(b []byte) []byte {
			n := be.Uint32(b[12:])
			b[symptr+18*(n-2)+17] = 5 // .bf claims 5 aux entries
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
