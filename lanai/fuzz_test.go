package lanai

import (
	"encoding/binary"
	"testing"
)

// FuzzRun runs random words as a program: whatever they are, the core
// stops (exit, trap or cycle limit) without a panic or a hang, and the
// counters stay consistent.
func FuzzRun(f *testing.F) {
	f.Add([]byte{0x00, 0x00, 0x00, 0x01, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01})
	f.Add([]byte{0x90, 0x02, 0xf0, 0x00})
	f.Add([]byte{0x81, 0x16, 0xff, 0xfc, 0x02, 0x14, 0x00, 0x00, 0x82, 0x96, 0xff, 0xf8})
	f.Add([]byte{0xa3, 0x1e, 0x47, 0x82, 0xf3, 0x9b, 0x4f, 0xff, 0xc3, 0x99, 0x97, 0x06})
	c, err := New(Config{SRAMSize: 64 << 10})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 4096 {
			prog = prog[:4096]
		}
		clear(c.Mem.SRAM)
		c.Mem.Write(0, prog)
		c.Mem.Written(0, uint32(len(c.Mem.SRAM)))
		c.Reset(0)
		// Registers from the input too, so addresses vary.
		for i := 3; i < 32 && 4*i+4 <= len(prog); i++ {
			c.R[i] = binary.BigEndian.Uint32(prog[4*i:])
		}
		st := c.Run(20_000)
		switch st.Kind {
		case StopExit, StopCycleLimit:
		case StopTrap:
			if st.Trap == nil || st.Trap.Reason == "" || st.Trap.Report() == "" {
				t.Fatal("trap without a report")
			}
		default:
			t.Fatalf("unexpected stop %v", st.Kind)
		}
		if c.Instret > c.Cycles {
			t.Fatalf("%d instructions in %d cycles", c.Instret, c.Cycles)
		}
		if c.R[0] != 0 || c.R[1] != 0xFFFFFFFF {
			t.Fatalf("r0=%#x r1=%#x", c.R[0], c.R[1])
		}
	})
}
