package objfile

import (
	"os"
	"path/filepath"
	"testing"
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
		if name != "sample-coff" {
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

// FuzzReadCOFF is FuzzReadELF for ReadCOFF.
func FuzzReadCOFF(f *testing.F) {
	f.Add(buildCOFF(f, sampleCOFF()))
	spec := sampleCOFF()
	spec.aout = false
	f.Add(buildCOFF(f, spec))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ReadCOFF(data)
		if err != nil {
			if file != nil {
				t.Fatal("File and error both returned")
			}
			return
		}
		if file.Kind != EXEC || file.Format != FormatCOFF {
			t.Fatalf("kind %v format %s", file.Kind, file.Format)
		}
		checkFile(t, file)
	})
}
