package lanai

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/internal/ccorpus"
)

// readSource reads a source file.
func readSource(name string) (asm.Source, error) {
	b, err := os.ReadFile(name)
	return asm.Source{Name: name, Text: b}, err
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
					t.Fatalf("did not exit: %s", stopMessage(st))
				}
				if st.Code != p.Expected {
					t.Errorf("exit %#x, want %#x (host build) after %d instructions", st.Code, p.Expected, c.Instret)
				}
			})
		}
	}
}
