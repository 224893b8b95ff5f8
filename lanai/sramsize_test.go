package lanai

import (
	"encoding/binary"
	"fmt"
	"testing"

	"lanaiemu/isa"
)

// An SRAM whose last 256-byte chunk (codeChunk) is partial, or which is
// smaller than one chunk, has a bit in the code bitmap for that chunk too:
// a store into the last word, a load from it and its execution neither
// panic (the Go loop indexed past the bitmap) nor read past the bitmap (the
// threaded loop's store test), and both loops agree.
func TestSRAMPartialLastChunk(t *testing.T) {
	for _, size := range []uint32{16, 128, 252, 260, 16388, 65540} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			last := size - 4
			must := func(in isa.Inst) uint32 {
				w, err := isa.Encode(in)
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			nop := must(isa.Inst{Class: isa.RI, ALU: isa.Add, Rd: isa.R0, Rs1: isa.R0})
			prog := []uint32{
				must(isa.Inst{Class: isa.RM, Size: isa.Word, Mode: isa.ModeOffset, Store: true, Rd: 3, Rs1: 4}), // st %r3, 0[%r4]
				must(isa.Inst{Class: isa.RM, Size: isa.Word, Mode: isa.ModeOffset, Rd: 5, Rs1: 4}),              // ld 0[%r4], %r5
				must(isa.Inst{Class: isa.BR, Cond: isa.CondT, Imm: last}),                                       // bt last
				nop,
			}
			var cores []*CPU
			for _, threaded := range []bool{false, true} {
				if threaded && !haveThreaded {
					continue
				}
				c, err := New(Config{SRAMSize: size})
				if err != nil {
					t.Fatal(err)
				}
				for i, w := range prog {
					binary.BigEndian.PutUint32(c.Mem.SRAM[4*i:], w)
				}
				c.Reset(0)
				c.R[3], c.R[4] = nop, last
				func() {
					defer func() { useThreaded = haveThreaded }()
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("threaded %v: panic: %v", threaded, r)
						}
					}()
					useThreaded = threaded
					for range 2 { // the second run has the words predecoded
						c.Reset(0)
						if st := c.Run(100); st.Kind != StopTrap || st.Trap.PC != size {
							t.Fatalf("threaded %v: stopped with %s, want a fetch trap at %#x", threaded, stopMessage(st), size)
						}
					}
				}()
				if c.R[5] != nop {
					t.Errorf("threaded %v: loaded %#x from the last word, want %#x", threaded, c.R[5], nop)
				}
				cores = append(cores, c)
			}
			if len(cores) == 2 {
				if err := sameState(cores[0], cores[1]); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
