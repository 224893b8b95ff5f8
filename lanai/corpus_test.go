package lanai

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/fixtures/c"
	"lanaiemu/objfile"
)

// buildProgram assembles the runtime and one clang -S output and links them.
func buildProgram(t testing.TB, sfile string) []byte {
	t.Helper()
	srcs, _ := filepath.Glob("../firmware/crt/*.s")
	srcs = append(srcs, sfile)
	var objs []*objfile.File
	for _, s := range srcs {
		res, err := asm.AssembleFile(s, asm.Options{})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		objs = append(objs, res.Object)
	}
	exe, err := link.Link(objs, srcs, link.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := exe.WriteELF()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runImage(t testing.TB, img []byte, budget uint64) (*CPU, *Stop) {
	t.Helper()
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := c.Mem.LoadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	c.Reset(im.Entry)
	return c, c.Run(budget)
}

// Every corpus program at every optimisation level runs to its exit and
// returns the value the same program returns compiled for the host.
func TestCorpusPrograms(t *testing.T) {
	progs, err := ccorpus.Programs("../fixtures/c")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		for _, opt := range ccorpus.Opts {
			name := fmt.Sprintf("%s.%s", p.Name, opt)
			t.Run(name, func(t *testing.T) {
				s := filepath.Join("../fixtures/c/s", name+".s")
				if _, err := os.Stat(s); err != nil {
					t.Skip("no", s)
				}
				c, st := runImage(t, buildProgram(t, s), 200_000_000)
				if st.Kind != StopExit {
					msg := st.Kind.String()
					if st.Trap != nil {
						msg = st.Trap.Report()
					}
					t.Fatalf("did not exit: %s", msg)
				}
				if st.Code != p.Expected {
					t.Errorf("exit %#x, want %#x (host build) after %d instructions", st.Code, p.Expected, c.Instret)
				}
			})
		}
	}
}
