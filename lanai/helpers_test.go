package lanai

import (
	"path/filepath"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/memsys"
	"lanaiemu/objfile"
)

// linkSources assembles sources and links them into an executable image.
func linkSources(t testing.TB, srcs ...asm.Source) []byte {
	t.Helper()
	var objs []*objfile.File
	var names []string
	for _, s := range srcs {
		res, err := asm.Assemble([]asm.Source{s}, asm.Options{})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		objs = append(objs, res.Object)
		names = append(names, s.Name)
	}
	exe, err := link.Link(objs, names, link.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := exe.WriteELF()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// buildProgram assembles the runtime and one clang -S output and links them.
func buildProgram(t testing.TB, sfile string) []byte {
	t.Helper()
	files, _ := filepath.Glob("../firmware/crt/src/*.s")
	files = append(files, sfile)
	var srcs []asm.Source
	for _, f := range files {
		res, err := readSource(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, res)
	}
	return linkSources(t, srcs...)
}

// load makes a core with cfg and loads an image, ready to run from its entry.
func load(t testing.TB, img []byte, cfg Config) (*CPU, *memsys.Image) {
	t.Helper()
	c, err := New(cfg)
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

// runImage loads an image on a default core and runs it.
func runImage(t testing.TB, img []byte, budget uint64) (*CPU, *Stop) {
	t.Helper()
	c, _ := load(t, img, Config{})
	return c, c.Run(budget)
}

// stopMessage describes a stop for a failure message.
func stopMessage(st *Stop) string {
	if st.Trap != nil {
		return st.Trap.Report()
	}
	return st.Kind.String()
}

// hookClock makes special register 0x068 (-408) a clock that counts every
// tick cycles and says, as a device register does (memsys.Stable), that
// it keeps its value to the next tick after the core's last read.
func hookClock(c *CPU, tick uint64) {
	var lastRead uint64
	c.Mem.Specials.Hook(0x068, func() uint32 { lastRead = c.Cycles; return uint32(c.Cycles / tick) }, nil)
	c.Mem.Specials.HookStable(0x068, func() uint64 { return (lastRead/tick + 1) * tick })
}
