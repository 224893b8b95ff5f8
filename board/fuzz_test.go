package board

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/lanai"
)

// FuzzBoard runs random words as firmware on a board with host memory: the
// words also serve as DMA descriptors and register values, so the engines
// see arbitrary chains, pointers and lengths. Whatever happens, the run ends
// (exit, trap, fault or cycle limit) without a panic or a hang.
func FuzzBoard(f *testing.F) {
	// Start channel 0 at a descriptor at 0x100 (pointer bank extension at
	// 0xFFFFF100), pulse it, and spin.
	f.Add([]byte{
		0x03, 0x00, 0x01, 0x00, // mov 0x100, %r6
		0x93, 0x02, 0xf1, 0x00, // st %r6, -3840[%r0]
		0x03, 0x80, 0x00, 0x02, // mov 2, %r7
		0x93, 0x82, 0xfe, 0xb8, // st %r7, -328[%r0] (PULSE)
		0xe0, 0x00, 0x00, 0x10, // bt .
		0x00, 0x00, 0x00, 0x01, // nop
	})
	f.Add([]byte{0x90, 0x02, 0xf0, 0x00})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 2048 {
			prog = prog[:2048]
		}
		host := NewHostRAM(0x10000, 1<<14)
		b, err := New(Config{Config: lanai.Config{SRAMSize: 64 << 10}, Host: host})
		require.NoError(t, err)
		mem := b.CPU().Mem
		mem.Write(0, prog)
		// Scatter the input through SRAM too, where descriptors may point.
		for i := 0; i+4 <= len(prog); i += 4 {
			a := binary.BigEndian.Uint32(prog[i:]) % (64 << 10) &^ 3
			mem.Write(a, prog[i:i+4])
		}
		b.Reset(0)
		st := b.Run(50_000)
		if st == nil {
			t.Fatal("no stop")
		}
		if st.Kind == lanai.StopTrap && st.Trap.Report() == "" {
			t.Fatal("empty trap report")
		}
	})
}
