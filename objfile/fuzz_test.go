package objfile

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/internal/cofftest"
)

func readFileTB(t testing.TB, name string) ([]byte, error) {
	t.Helper()
	return os.ReadFile(filepath.Join("testdata", name))
}

// FuzzReadELF checks that ReadELF never panics, that what it accepts
// satisfies the model's invariants, and that writing it gives a file that
// reads back and rewrites identically. The committed corpus in
// testdata/fuzz/FuzzReadELF holds LLVM's objects and our own outputs.
func FuzzReadELF(f *testing.F) {
	for name, b := range validInputs(f) {
		if name != "sample-coff" && name != "coff-object" {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ReadELF(data)
		if err != nil {
			if file != nil {
				t.Fatal("File and error both returned")
			}
			return
		}
		checkFile(t, file)
	})
}

// FuzzReadCOFF is FuzzReadELF for ReadCOFF. The committed corpus in
// testdata/fuzz/FuzzReadCOFF holds executables and relocatable objects of
// our own making in Myricom's layout (TestWriteCOFFCorpus remakes it).
func FuzzReadCOFF(f *testing.F) {
	for _, b := range coffSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ReadCOFF(data)
		if err != nil {
			if file != nil {
				t.Fatal("File and error both returned")
			}
			return
		}
		if (file.Kind != EXEC && file.Kind != REL) || file.Format != FormatCOFF {
			t.Fatalf("kind %v format %s", file.Kind, file.Format)
		}
		checkFile(t, file)
	})
}

// coffSeeds are the COFF files the fuzz corpus starts from.
func coffSeeds(tb testing.TB) map[string][]byte {
	noAout := sampleCOFF()
	noAout.Aout = false
	return map[string][]byte{
		"sample-coff":       buildCOFF(tb, sampleCOFF()),
		"coff-noaout":       buildCOFF(tb, noAout),
		"coff-object":       buildCOFF(tb, cofftest.SampleObject(0)),
		"coff-object-vaddr": buildCOFF(tb, cofftest.SampleObject(0x20)),
	}
}

var writeCorpus = flag.Bool("write-corpus", false, "rewrite the COFF and archive fuzz seed corpora in testdata/fuzz")

// TestWriteCOFFCorpus rewrites the committed seed corpora of FuzzReadCOFF
// and FuzzReadArchive when run with -write-corpus.
func TestWriteCOFFCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -write-corpus to rewrite the seed corpora")
	}
	write := func(target, name string, b []byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		text := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	for name, b := range coffSeeds(t) {
		write("FuzzReadCOFF", name, b)
	}
	write("FuzzReadArchive", "archive", buildArchive([]ArchiveMember{
		{Name: "_mulsi3.o", Data: buildCOFF(t, cofftest.SampleObject(0))},
		{Name: "a_very_long_member_name.o", Data: []byte("x")},
	}))
}
