// Package lanaitest builds small LANai programs from assembly and loads
// them on a core, for the tests of the packages above the core (board,
// profile, budget, debugger, dap). Package lanai's own tests cannot import
// it (it imports lanai) and keep their copy in lanai/helpers_test.go.
package lanaitest

import (
	"os"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/lanai"
	"lanaiemu/memsys"
)

// Build assembles each source on its own, with lanai-as's line table,
// links them in order as lanai-as does and returns the ELF executable.
func Build(t testing.TB, srcs ...asm.Source) []byte {
	t.Helper()
	var results []*asm.Result
	var names []string
	for _, s := range srcs {
		res, err := asm.Assemble([]asm.Source{s}, asm.Options{LineInfo: true})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		results, names = append(results, res), append(names, s.Name)
	}
	exe, err := asm.LinkWithLines(results, names, link.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := exe.WriteELF()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BuildFiles is Build of the named files.
func BuildFiles(t testing.TB, files ...string) []byte {
	t.Helper()
	srcs := make([]asm.Source, len(files))
	for i, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[i] = asm.Source{Name: f, Text: text}
	}
	return Build(t, srcs...)
}

// Load makes a core with cfg, loads the executable img and resets the
// core to its entry.
func Load(t testing.TB, img []byte, cfg lanai.Config) (*lanai.CPU, *memsys.Image) {
	t.Helper()
	c, err := lanai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	im, err := c.Mem.LoadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	c.Reset(im.Entry)
	return c, im
}
