package link

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/internal/cofftest"
	"lanaiemu/objfile"
)

// object makes a relocatable object defining defs (in .text) and
// referring to refs (a .long of each, after the definitions).
func object(defs []string, refs ...string) *objfile.File {
	tx := text(4, make([]uint32, len(defs)+len(refs)+1)...)
	f := &objfile.File{Kind: objfile.REL, Sections: []*objfile.Section{tx}}
	for i, d := range defs {
		f.Symbols = append(f.Symbols, gsym(d, tx, uint32(4*i)))
	}
	for i, r := range refs {
		u := undef(r)
		f.Symbols = append(f.Symbols, u)
		tx.Relocs = append(tx.Relocs, objfile.Reloc{Offset: uint32(4 * (len(defs) + i)), Type: objfile.R_LANAI_32, Sym: u})
	}
	return f
}

// member writes f as an archive member (ELF).
func member(t *testing.T, name string, f *objfile.File) objfile.ArchiveMember {
	t.Helper()
	b, err := f.WriteELF()
	require.NoError(t, err)
	return objfile.ArchiveMember{Name: name, Data: b}
}

func TestSelectMembers(t *testing.T) {
	lib := []objfile.ArchiveMember{
		member(t, "c.o", object([]string{"c"})),
		member(t, "b.o", object([]string{"b"})),
		member(t, "a.o", object([]string{"a"}, "b")),
		member(t, "d.o", object([]string{"d"}, "c")),
	}
	_, names, err := SelectMembers([]Input{
		{Name: "main.o", Object: object([]string{"main"}, "a")},
		{Name: "lib.a", Members: lib},
		{Name: "late.o", Object: object(nil, "d")}, // too late for lib.a
	})
	require.NoError(t, err)
	// a.o is taken in the first scan; b.o, which it needs, only in the
	// second, because it comes before a.o; c.o and d.o are never needed
	// before the archive is done.
	if got, want := strings.Join(names, " "), "main.o lib.a(a.o) lib.a(b.o) late.o"; got != want {
		t.Errorf("selected %s, want %s", got, want)
	}

	lib = append(lib, objfile.ArchiveMember{Name: "bad.o", Data: []byte("junk")})
	if _, _, err := SelectMembers([]Input{{Name: "lib.a", Members: lib}}); err == nil || !strings.Contains(err.Error(), "lib.a(bad.o): ") {
		t.Errorf("unreadable member: %v", err)
	}
}

// TestLinkCOFF links a lanai-gcc-style COFF object (package cofftest's
// sample: it calls _main and loads _counter) with an ELF object that
// defines _main under lanai-gcc's spelling, and checks the relocated words.
func TestLinkCOFF(t *testing.T) {
	coff, err := objfile.Read(cofftest.Build(cofftest.SampleObject(0)))
	require.NoError(t, err)
	mainObj := object([]string{"_main"})
	exe, err := Link([]*objfile.File{coff, mainObj}, []string{"sample.o", "main.o"}, Options{})
	require.NoError(t, err)
	mainAddr, counter := symbolAddr(t, exe, "_main"), symbolAddr(t, exe, "_counter")
	for _, c := range []struct {
		addr, want uint32
	}{
		{0x0, 0xf7820000 | 0x14},     // mov .text+0x14, %rca (R_LANAI3_21)
		{0x4, 0xe0000000 | mainAddr}, // bt _main (R_LANAI3_25)
		{0xc, 0xf7000000 | counter},  // ld [_counter], %r14 (R_LANAI3_21_F)
		{0x14, 0xe0000000 | 0x14},    // bt . (R_LANAI3_25 against .text+0x14)
		{counter - 4, 0xfffffffc},    // .long _start-4 (R_LANAI3_32): _start is 0
	} {
		if got := word(t, exe, c.addr); got != c.want {
			t.Errorf("word at %#x = %#x, want %#x", c.addr, got, c.want)
		}
	}
	if exe.Section(".stab") != nil {
		t.Error("the .stab section (not allocated) was linked")
	}
}

// TestLinkConventionHint: an undefined symbol that the other compiler's
// spelling defines gets an explanation.
func TestLinkConventionHint(t *testing.T) {
	coff, err := objfile.Read(cofftest.Build(cofftest.SampleObject(0)))
	require.NoError(t, err)
	_, err = Link([]*objfile.File{coff, object([]string{"main"})}, []string{"sample.o", "main.o"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "undefined symbol: _main") ||
		!strings.Contains(err.Error(), "main.o defines main: lanai-gcc 2.95 (COFF) prefixes C names with '_'") {
		t.Errorf("got %v", err)
	}
	_, err = Link([]*objfile.File{object(nil, "__mulsi3"), object([]string{"___mulsi3"})}, []string{"clang.o", "libgcc.a(_mulsi3.o)"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "libgcc.a(_mulsi3.o) defines ___mulsi3") {
		t.Errorf("got %v", err)
	}

	// Through an archive, as lanai-ld links: the member is left out (nothing
	// asks for ___mulsi3), and the hint still names it.
	inputs := []Input{
		{Name: "clang.o", Object: object([]string{"main"}, "__mulsi3")},
		{Name: "libgcc.a", Members: []objfile.ArchiveMember{
			{Name: "junk.o", Data: []byte("junk")},
			member(t, "_mulsi3.o", object([]string{"___mulsi3"})),
		}},
	}
	objs, names, err := SelectMembers(inputs[:1])
	require.NoError(t, err)
	_, err = Link(objs, names, Options{Entry: "main", Archives: inputs})
	if err == nil || !strings.Contains(err.Error(), "undefined symbol: __mulsi3") ||
		!strings.Contains(err.Error(), "libgcc.a(_mulsi3.o) defines ___mulsi3: lanai-gcc 2.95 (COFF) prefixes C names with '_'") {
		t.Errorf("through the archive: got %v", err)
	}
}
