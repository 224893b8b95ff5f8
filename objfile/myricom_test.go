package objfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// myricomLibEnv names the folder holding Myricom's lanai-gcc 2.95 crt0.o and
// libgcc.a (docs/coff.md says where they come from).
const myricomLibEnv = "LANAI_MYRICOM_LIB"

// myricomObjects returns crt0.o and libgcc.a's members from the folder
// LANAI_MYRICOM_LIB names, or skips the test.
func myricomObjects(t *testing.T) []ArchiveMember {
	t.Helper()
	dir := os.Getenv(myricomLibEnv)
	if dir == "" {
		t.Skipf("%s is not set: no Myricom lanai-gcc objects to read (see docs/coff.md)", myricomLibEnv)
	}
	crt0, err := os.ReadFile(filepath.Join(dir, "crt0.o"))
	require.NoError(t, err)
	lib, err := os.ReadFile(filepath.Join(dir, "libgcc.a"))
	require.NoError(t, err)
	members, err := ReadArchive(lib)
	require.NoError(t, err)
	return append([]ArchiveMember{{Name: "crt0.o", Data: crt0}}, members...)
}

// TestMyricomObjects reads every object Myricom's toolchain shipped: each
// must read as a relocatable COFF file with symbols and relocations whose
// targets and symbols are sound, and convert to ELF.
func TestMyricomObjects(t *testing.T) {
	objs := myricomObjects(t)
	withRelocs := 0
	types := map[RelocType]int{}
	for _, m := range objs {
		f, err := Read(m.Data)
		if err != nil {
			t.Errorf("%s: %v", m.Name, err)
			continue
		}
		if f.Kind != REL || f.Format != FormatCOFF || len(f.Symbols) == 0 {
			t.Errorf("%s: kind %v format %s, %d symbols", m.Name, f.Kind, f.Format, len(f.Symbols))
		}
		// The 20-byte symbol entries account for the whole file: the
		// string table that follows them ends exactly at its end.
		symptr, nsyms := be.Uint32(m.Data[8:]), be.Uint32(m.Data[12:])
		strOff := symptr + coffSymSize*nsyms
		if int(strOff)+4 > len(m.Data) {
			t.Errorf("%s: no string table after the symbols", m.Name)
		} else if end := strOff + be.Uint32(m.Data[strOff:]); int(end) != len(m.Data) {
			t.Errorf("%s: the string table ends at 0x%x, the file at 0x%x", m.Name, end, len(m.Data))
		}
		n := 0
		for _, s := range f.Sections {
			n += len(s.Relocs)
			for _, r := range s.Relocs {
				types[r.Type]++
				if r.Sym == nil {
					t.Errorf("%s: %s+0x%x: relocation without a symbol", m.Name, s.Name, r.Offset)
				}
			}
		}
		if n > 0 {
			withRelocs++
		}
		checkFile(t, f)
	}
	t.Logf("%d objects read, %d with relocations; relocation types %v", len(objs), withRelocs, types)
	if len(objs) != 63 {
		t.Errorf("%d objects, want crt0.o and libgcc.a's 62 members", len(objs))
	}
}
