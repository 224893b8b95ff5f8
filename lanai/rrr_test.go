package lanai

import (
	"strings"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/isa"
)

// rrrRun runs "_start:" + src + an exit with Config.RRR set and the given
// registers preset, and returns the core.
func rrrRun(t *testing.T, src string, regs map[isa.Reg]uint32, flags isa.Flags) *CPU {
	t.Helper()
	text := "\t.text\n\t.globl _start\n_start:\n" + src + "\n\tst %r0, -4096[%r0]\n\tbt .\n\tnop\n"
	c, _ := load(t, linkSources(t, asm.Source{Name: "t.s", Text: []byte(text)}), Config{RRR: true})
	for r, v := range regs {
		c.SetReg(r, v)
	}
	c.Flags = flags
	if st := c.Run(10000); st.Kind != StopExit {
		t.Fatalf("did not exit: %s", stopMessage(st))
	}
	return c
}

// TestRRR runs the RRR words that Myricom's code contains, with results
// worked out by hand from Rd <- Rs1 OP2 (Rs2 OP1 Rs3) (rrr.go).
func TestRRR(t *testing.T) {
	tests := []struct {
		name  string
		word  string
		regs  map[isa.Reg]uint32
		flags isa.Flags
		rd    isa.Reg
		want  uint32
	}{
		// __ashldi3: r13 = r12 sh (r0 sub r14) = r12 >> r14 (logical).
		{"logical right", "0xd6b00772", map[isa.Reg]uint32{12: 0x80000010, 14: 4}, 0, 13, 0x08000001},
		// __ashrdi3: the same with H set, arithmetic: r9 = r11 sha -(r14).
		{"arithmetic right", "0xd4ad0772", map[isa.Reg]uint32{11: 0x80000010, 14: 4}, 0, 9, 0xf8000001},
		// rtsmcp.4: r14 = r0 sub (r1 addc r0): 1 after a borrow (C clear)...
		{"borrow set", "0xd7000a01", nil, 0, 14, 1},
		// ...and 0 without one (C set).
		{"no borrow", "0xd7000a01", nil, isa.FlagC, 14, 0},
		// __divdi3: r13 = r0 sub (r0 addc r0) = -C.
		{"carry mask", "0xd6800201", nil, isa.FlagC, 13, 0xffffffff},
		// rtsmcp.4 0x581c: r13 = r0 sub (r1 add r13) = 1 - r13.
		{"one minus", "0xd6800a68", map[isa.Reg]uint32{13: 5}, 0, 13, 0xfffffffc},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := rrrRun(t, "\t.long "+tc.word, tc.regs, tc.flags)
			if got := c.Reg(tc.rd); got != tc.want {
				t.Errorf("%s: r%d = %#x, want %#x", tc.word, tc.rd, got, tc.want)
			}
		})
	}
	// With F set the flags follow the outer operation: 0 - (r1 + 0) is 1
	// with a borrow, so no flag is set (C clear).
	c := rrrRun(t, "\t.long 0xd7020a00", nil, 0) // r14 = r0 sub (r1 add r0), .f
	if c.Reg(14) != 1 || c.Flags != 0 {
		t.Errorf("F: r14 = %#x, flags %v", c.Reg(14), c.Flags)
	}
}

// TestRRROff: without Config.RRR an RRR word is invalid, as in LLVM.
func TestRRROff(t *testing.T) {
	text := "\t.text\n\t.globl _start\n_start:\n\t.long 0xd6b00772\n"
	c, _ := load(t, linkSources(t, asm.Source{Name: "t.s", Text: []byte(text)}), Config{})
	if st := c.Run(100); st.Kind != StopTrap || !strings.Contains(st.Trap.Reason, "invalid instruction 0xd6b00772 (op 1101: a LANai 3/4 three-register instruction") {
		t.Errorf("stop %v, want a trap naming RRR: %+v", st.Kind, st.Trap)
	}
}
