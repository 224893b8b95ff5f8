package board

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/asm"
	"lanaiemu/lanai"
)

// idleSrc spins on "bt ." (the core fast-forwards it to the next event).
const idleSrc = "\t.globl _start\n_start:\n\tbt _start\n\tnop\n"

func inline(text string) asm.Source { return asm.Source{Name: "inline.s", Text: []byte(text)} }

func testdata(t testing.TB, name string) asm.Source {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return asm.Source{Name: name, Text: b}
}

// boot makes a board with cfg, loads img and returns the board and the
// image's symbols by name.
func boot(t testing.TB, cfg Config, img []byte) (*Board, map[string]uint32) {
	t.Helper()
	b, err := New(cfg)
	require.NoError(t, err)
	im, err := b.Load(img)
	require.NoError(t, err)
	syms := map[string]uint32{}
	for _, s := range im.Symbols {
		syms[s.Name] = s.Value
	}
	return b, syms
}

// stopText describes a stop for failure messages.
func stopText(st *lanai.Stop) string {
	if st.Trap != nil {
		return st.Trap.Report()
	}
	return st.Kind.String()
}

// runExit runs to the program's exit and returns its code.
func runExit(t testing.TB, b *Board, budget uint64) uint32 {
	t.Helper()
	st := b.Run(budget)
	if st.Kind != lanai.StopExit {
		t.Fatalf("stopped with %s after %d cycles (fault: %v)", stopText(st), b.CPU().Cycles, b.Fault())
	}
	return st.Code
}

// at runs f from a device event at exactly core cycle c (the idle program
// reaches every cycle), checking that it ran then.
func at(t testing.TB, b *Board, c uint64, f func()) {
	b.CPU().Schedule(c, func() {
		if got := b.CPU().Cycles; got != c {
			t.Errorf("event for cycle %d ran at %d", c, got)
		}
		f()
	})
}

// coreWrite writes a special register as a core store would.
func coreWrite(t testing.TB, b *Board, off, v uint32) {
	t.Helper()
	require.NoError(t, b.CPU().Mem.WriteIO(0xFFFFFE00+off, 4, v))
}

// coreRead reads a special register as a core load would.
func coreRead(t testing.TB, b *Board, off uint32) uint32 {
	t.Helper()
	v, err := b.CPU().Mem.ReadIO(0xFFFFFE00+off, 4)
	require.NoError(t, err)
	return v
}
