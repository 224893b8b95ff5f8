package lanai

import (
	"fmt"
	"strings"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/isa"
)

// snippet assembles "_start:" + src + an exit, loads it, sets r6, r7, r18
// and r19 from args, runs it, and returns the core. Expected values in the
// tests below are worked out by hand from the LANai definitions
// (docs/isa.md), not from this emulator.
func snippet(t *testing.T, src string, args ...uint32) *CPU {
	t.Helper()
	text := "\t.text\n\t.globl _start\n_start:\n" + src + "\n\tst %r0, -4096[%r0]\n\tbt .\n\tnop\n" +
		"\t.data\n\t.p2align 3\ndata:\n\t.long 0x11223344, 0x8899aabb, 0xfffe0102, 0x80\n"
	c, _ := load(t, linkSources(t, asm.Source{Name: "t.s", Text: []byte(text)}), Config{})
	for i, r := range []isa.Reg{6, 7, 18, 19} {
		if i < len(args) {
			c.SetReg(r, args[i])
		}
	}
	st := c.Run(10000)
	if st.Kind != StopExit {
		t.Fatalf("snippet did not exit: %s", stopMessage(st))
	}
	return c
}

// dataAddr is where snippet's data words are: after the code, 8-aligned.
func dataAddr(c *CPU) uint32 {
	for a := uint32(0); a < 0x1000; a += 4 {
		if w, _ := c.Mem.Word(a + 8); w == 0xfffe0102 {
			return a
		}
	}
	panic("no data")
}

type want map[string]uint32 // register name or "flags" -> value

func (w want) check(t *testing.T, c *CPU) {
	t.Helper()
	for name, v := range w {
		var got uint32
		if name == "flags" {
			got = uint32(c.Flags)
		} else {
			r, ok := isa.RegByName(name)
			if !ok {
				t.Fatalf("bad register %q", name)
			}
			got = c.Reg(r)
		}
		if got != v {
			t.Errorf("%s = %#x, want %#x", name, got, v)
		}
	}
}

// Flag constants for the tables: Z=1 N=2 V=4 C=8.
const (
	fZ = uint32(isa.FlagZ)
	fN = uint32(isa.FlagN)
	fV = uint32(isa.FlagV)
	fC = uint32(isa.FlagC)
)

func TestALUFlags(t *testing.T) {
	cases := []struct {
		src  string
		args []uint32
		w    want
	}{
		// 0x7fffffff + 1 overflows into the sign bit.
		{"add.f %r6, %r7, %r8", []uint32{0x7fffffff, 1}, want{"rv": 0x80000000, "flags": fN | fV}},
		// 0xffffffff + 1 carries out and gives zero.
		{"add.f %r6, %r7, %r8", []uint32{0xffffffff, 1}, want{"rv": 0, "flags": fZ | fC}},
		{"add.f %r6, 0x1, %r8", []uint32{5}, want{"rv": 6, "flags": 0}},
		// 0 - 1 borrows: C (no borrow) clear, N set.
		{"sub.f %r6, %r7, %r8", []uint32{0, 1}, want{"rv": 0xffffffff, "flags": fN}},
		// 5 - 5: zero, no borrow.
		{"sub.f %r6, 0x5, %r8", []uint32{5}, want{"rv": 0, "flags": fZ | fC}},
		// 0x80000000 - 1 overflows.
		{"sub.f %r6, %r7, %r8", []uint32{0x80000000, 1}, want{"rv": 0x7fffffff, "flags": fV | fC}},
		// addc adds the carry: set it with 0xffffffff+1 first.
		{"add.f %r6, %r7, %r0\n\taddc %r18, %r19, %r8", []uint32{0xffffffff, 1, 10, 20}, want{"rv": 31, "flags": fZ | fC}},
		// subb subtracts the borrow: 0 - 1 leaves C clear (a borrow).
		{"sub.f %r6, %r7, %r0\n\tsubb %r18, %r19, %r8", []uint32{0, 1, 10, 3}, want{"rv": 6}},
		{"sub.f %r6, %r7, %r0\n\tsubb.f %r18, %r19, %r8", []uint32{1, 1, 10, 3}, want{"rv": 7, "flags": fC}},
		// RI logic clears C and V; RR logic keeps C.
		{"sub.f %r6, %r7, %r0\n\tand.f %r18, 0xffff0000, %r8", []uint32{1, 0, 0x12345678}, want{"rv": 0x12340000, "flags": 0}},
		{"sub.f %r6, %r7, %r0\n\tand.f %r18, %r19, %r8", []uint32{1, 0, 0xf0, 0x0f}, want{"rv": 0, "flags": fZ | fC}},
		{"or.f %r6, %r7, %r8", []uint32{0x80000000, 1}, want{"rv": 0x80000001, "flags": fN}},
		{"xor.f %r6, %r6, %r8", []uint32{0x1234}, want{"rv": 0, "flags": fZ}},
		// Flags change only with .f.
		{"sub.f %r6, %r7, %r0\n\tadd %r6, %r7, %r8", []uint32{0, 1}, want{"rv": 1, "flags": fN}},
		// RI immediates: high half, and-with-ones halves.
		{"add %r6, 0x12340000, %r8", []uint32{1}, want{"rv": 0x12340001}},
		{"and %r6, 0xffff00ff, %r8", []uint32{0x12345678}, want{"rv": 0x12340078}},
		{"and %r6, 0x00ffffff, %r8", []uint32{0x12345678}, want{"rv": 0x00345678}},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.src, "\n\t", "; "), func(t *testing.T) {
			tc.w.check(t, snippet(t, "\t"+tc.src, tc.args...))
		})
	}
}

func TestShifts(t *testing.T) {
	cases := []struct {
		src  string
		args []uint32
		w    want
	}{
		{"sh %r6, 0, %r8", []uint32{0x80000001}, want{"rv": 0x80000001}},
		{"sh %r6, 31, %r8", []uint32{3}, want{"rv": 0x80000000}},
		{"sh %r6, -31, %r8", []uint32{0x80000000}, want{"rv": 1}},
		{"sha %r6, -31, %r8", []uint32{0x80000000}, want{"rv": 0xffffffff}},
		{"sha %r6, -4, %r8", []uint32{0xfffffff0}, want{"rv": 0xffffffff}},
		{"sha %r6, 4, %r8", []uint32{0x0fffffff}, want{"rv": 0xfffffff0}},
		// Register shifts: the sign of the amount gives the direction.
		{"sh %r6, %r7, %r8", []uint32{1, 31}, want{"rv": 0x80000000}},
		{"sh %r6, %r7, %r8", []uint32{0x80000000, 0xffffffe1}, want{"rv": 1}}, // -31
		// |amount| >= 32: zero, or the sign for arithmetic right shifts.
		{"sh %r6, %r7, %r8", []uint32{0xffffffff, 32}, want{"rv": 0}},
		{"sh %r6, %r7, %r8", []uint32{0xffffffff, 0xffffffe0}, want{"rv": 0}}, // -32
		{"sha %r6, %r7, %r8", []uint32{0x80000000, 0xffffffe0}, want{"rv": 0xffffffff}},
		{"sha %r6, %r7, %r8", []uint32{0x40000000, 0xffffffc1}, want{"rv": 0}}, // -63
		{"sh %r6, %r7, %r8", []uint32{0xffffffff, 63}, want{"rv": 0}},
		// The carry of a left shift is the last bit shifted out.
		{"sh.f %r6, 1, %r8", []uint32{0x80000000}, want{"rv": 0, "flags": fZ | fC}},
		{"sh.f %r6, 4, %r8", []uint32{0x10000001}, want{"rv": 0x10, "flags": fC}},
		{"sh.f %r6, -1, %r8", []uint32{3}, want{"rv": 1, "flags": 0}},
		// Conditional shifts as clang's 64-bit shift code uses them.
		{"sub.f %r6, 0, %r0\n\tsh.pl %r7, %r18, %r8\n\tsh.mi %r7, %r19, %r9", []uint32{1, 1, 4, 8}, want{"rv": 16, "r9": 0}},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.src, "\n\t", "; "), func(t *testing.T) {
			tc.w.check(t, snippet(t, "\t"+tc.src, tc.args...))
		})
	}
}

// Every condition after a compare, through s<cc>, sel and b<cc>.
func TestConditions(t *testing.T) {
	// Compare x with y (sub.f x, y, %r0) and the conditions that hold.
	type cmp struct{ x, y uint32 }
	truth := func(c isa.Cond, x, y uint32) bool {
		sx, sy := int32(x), int32(y)
		switch c {
		case isa.CondT:
			return true
		case isa.CondF:
			return false
		case isa.CondUGT:
			return x > y
		case isa.CondULE:
			return x <= y
		case isa.CondULT:
			return x < y
		case isa.CondUGE:
			return x >= y
		case isa.CondNE:
			return x != y
		case isa.CondEQ:
			return x == y
		case isa.CondVC, isa.CondVS:
			ov := (sx < 0) != (sy < 0) && (int32(x-y) < 0) != (sx < 0)
			return ov == (c == isa.CondVS)
		case isa.CondPL:
			return int32(x-y) >= 0
		case isa.CondMI:
			return int32(x-y) < 0
		case isa.CondGE:
			return sx >= sy
		case isa.CondLT:
			return sx < sy
		case isa.CondGT:
			return sx > sy
		}
		return sx <= sy // le
	}
	pairs := []cmp{{1, 2}, {2, 1}, {5, 5}, {0x80000000, 1}, {1, 0x80000000}, {0xffffffff, 0}, {0x7fffffff, 0xffffffff}}
	for cc := isa.Cond(0); cc < 16; cc++ {
		var src strings.Builder
		for i := range pairs {
			// r6/r7 are reloaded per pair through the data-free path: mov hi/or lo.
			fmt.Fprintf(&src, "\tmov hi(%d), %%r6\n\tor %%r6, lo(%d), %%r6\n\tmov hi(%d), %%r7\n\tor %%r7, lo(%d), %%r7\n",
				pairs[i].x, pairs[i].x, pairs[i].y, pairs[i].y)
			fmt.Fprintf(&src, "\tsub.f %%r6, %%r7, %%r0\n\ts%s %%r%d\n", cc, 12+i)
		}
		c := snippet(t, src.String())
		for i, p := range pairs {
			want := uint32(0)
			if truth(cc, p.x, p.y) {
				want = 1
			}
			if got := c.Reg(isa.Reg(12 + i)); got != want {
				t.Errorf("s%v after compare %#x, %#x = %d, want %d", cc, p.x, p.y, got, want)
			}
		}
	}
	// sel and conditional branches on the same compare.
	want{"rv": 7, "r9": 1}.check(t, snippet(t, `
	sub.f %r6, %r7, %r0
	sel.lt %r18, %r19, %r8
	mov 1, %r9
	blt .Ltaken
	nop
	mov 2, %r9
.Ltaken:`, 1, 2, 7, 9))
	want{"rv": 9, "r9": 2}.check(t, snippet(t, `
	sub.f %r6, %r7, %r0
	sel.lt %r18, %r19, %r8
	mov 1, %r9
	blt .Ltaken
	nop
	mov 2, %r9
.Ltaken:`, 2, 1, 7, 9))
	// A conditional RR operation whose condition is false does nothing,
	// not even to the flags.
	want{"rv": 0x55, "flags": fZ | fC}.check(t, snippet(t, `
	mov 0x55, %r8
	sub.f %r6, %r6, %r0
	add.f.ne %r6, %r7, %r8`, 1, 2))
}

func TestSpecialAndSet(t *testing.T) {
	want{"rv": 32, "r9": 32, "r12": 0, "r13": 1, "r14": 30, "r16": 0, "r17": 20}.check(t, snippet(t, `
	leadz %r6, %r8
	trailz %r6, %r9
	popc %r6, %r12
	leadz %r7, %r13
	trailz %r7, %r14
	trailz %r18, %r16
	popc %r19, %r17`, 0, 0x40000000, 0xffffffff, 0x000fffff))
}

func TestPartWordLoads(t *testing.T) {
	c := snippet(t, `
	mov hi(data), %r6
	or %r6, lo(data), %r6
	ld 0[%r6], %r8
	ld.h 0[%r6], %r9
	uld.h 4[%r6], %r12
	ld.h 4[%r6], %r13
	ld.b 4[%r6], %r14
	uld.b 4[%r6], %r15
	ld.b 11[%r6], %r16
	uld.b 8[%r6], %r17
	ld.b 9[%r6], %r18`)
	want{"rv": 0x11223344, "r9": 0x1122, "r12": 0x8899, "r13": 0xffff8899, "r14": 0xffffff88,
		"r15": 0x88, "r16": 0x02, "r17": 0xff, "r18": 0xfffffffe}.check(t, c)
}

func TestAddressingModes(t *testing.T) {
	c := snippet(t, `
	mov hi(data), %r6
	or %r6, lo(data), %r6
	or %r6, 0, %r7
	ld 4[%r6], %r8          ! offset: r6 unchanged
	ld 4[*%r7], %r9         ! pre-modify: load data+4, r7 = data+4
	ld [%r7++], %r12        ! post-modify: load data+4, r7 = data+8
	ld [--%r7], %r13        ! pre-decrement: r7 = data+4, load data+4
	or %r6, 0, %r18
	mov 4, %r19
	ld %r19[%r18], %r14     ! RRM add
	ld [%r18* add %r19], %r15 ! RRM post: load data, r18 = data+4
	uld.b [*%r18 add %r19], %r16 ! RRM pre, byte: r18 = data+8, load 0xff
	`)
	d := dataAddr(c)
	want{"rv": 0x8899aabb, "r9": 0x8899aabb, "r12": 0x8899aabb, "r13": 0x8899aabb, "r7": d + 4,
		"r14": 0x8899aabb, "r15": 0x11223344, "r16": 0xff, "r18": d + 8}.check(t, c)
}

func TestStoresAndSizes(t *testing.T) {
	c := snippet(t, `
	mov hi(data), %r6
	or %r6, lo(data), %r6
	mov 0xab, %r7
	st.b %r7, 1[%r6]
	mov 0xcdef, %r7
	st.h %r7, 6[%r6]
	st %r6, 12[%r6]
	mov 0x1000, %sp
	st %r6, [--%sp]
	ld [%sp++], %r8`)
	d := dataAddr(c)
	for _, tc := range []struct{ addr, want uint32 }{{d, 0x11ab3344}, {d + 4, 0x8899cdef}, {d + 12, d}} {
		if w, _ := c.Mem.Word(tc.addr); w != tc.want {
			t.Errorf("word at %#x = %#x, want %#x", tc.addr, w, tc.want)
		}
	}
	want{"rv": d}.check(t, c)
}

func TestRegisterZeroAndOne(t *testing.T) {
	want{"r0": 0, "r1": 0xffffffff, "rv": 0xffffffff, "r9": 0}.check(t, snippet(t, `
	add %r6, 5, %r0
	add %r6, 5, %r1
	mov hi(data), %r12
	or %r12, lo(data), %r12
	ld 0[%r12], %r0
	add %r1, 0, %r8
	add %r0, 0, %r9`, 7))
}

// Delay slots: one after a branch or an ALU write to pc, two after a load
// into pc; reading pc gives the reading instruction's address.
func TestControlFlow(t *testing.T) {
	c := snippet(t, `
	mov 0, %r8
	bt .L1
	add %r8, 1, %r8          ! delay slot: executes
	add %r8, 0x100, %r8      ! skipped
.L1:
	add %pc, 0, %r9          ! r9 = address of this instruction
	mov hi(.L2), %r12
	or %r12, lo(.L2), %r12
	or %r12, 0, %pc          ! ALU jump: one delay slot
	add %r8, 2, %r8          ! executes
	add %r8, 0x200, %r8      ! skipped
.L2:
	mov hi(.Lptr), %r13
	or %r13, lo(.Lptr), %r13
	ld 0[%r13], %pc          ! load into pc: two delay slots
	add %r8, 4, %r8          ! executes
	add %r8, 8, %r8          ! executes
	add %r8, 0x400, %r8      ! skipped
.L3:
	bt .L4
	bt .L5                   ! a branch in a delay slot
.L4:
	add %r8, 0x800, %r8      ! one instruction at .L4, then .L5
.L5:
	add %r8, 0x10, %r8
	bt .Lend
	nop
.Lptr:
	.long .L3
.Lend:`)
	// .L4 runs once (the first branch's target), then .L5's code.
	want{"rv": 1 + 2 + 4 + 8 + 0x800 + 0x10}.check(t, c)
	if r9 := c.Reg(9); r9 != 0x10 {
		t.Errorf("pc read gives %#x, want the reading instruction's address 0x10", r9)
	}
}

// A load's value is visible to the very next instruction (interlocked) and
// costs one stall cycle; the cycle counts are exact.
func TestLoadInterlock(t *testing.T) {
	// 5 instructions + exit store; the dependent add stalls once.
	dep := snippet(t, "\tmov hi(data), %r6\n\tor %r6, lo(data), %r6\n\tld 0[%r6], %r7\n\tadd %r7, 1, %r8\n\tnop")
	indep := snippet(t, "\tmov hi(data), %r6\n\tor %r6, lo(data), %r6\n\tld 0[%r6], %r7\n\tadd %r9, 1, %r8\n\tnop")
	want{"rv": 0x11223345}.check(t, dep)
	if dep.Cycles != indep.Cycles+LoadUseStall {
		t.Errorf("dependent %d cycles, independent %d: want a difference of %d", dep.Cycles, indep.Cycles, LoadUseStall)
	}
	if indep.Instret != 6 || indep.Cycles != 6 {
		t.Errorf("independent: %d instructions, %d cycles; want 6 and 6", indep.Instret, indep.Cycles)
	}
	spls := snippet(t, "\tmov hi(data), %r6\n\tor %r6, lo(data), %r6\n\tld.h 0[%r6], %r7\n\tadd %r9, 1, %r8\n\tnop")
	if spls.Cycles != indep.Cycles+PartWordExtra {
		t.Errorf("part-word load: %d cycles, want %d", spls.Cycles, indep.Cycles+PartWordExtra)
	}
}

// BRR is relative to its own address, with one delay slot; RRM address
// operations other than add.
func TestRelativeBranchAndAddressOps(t *testing.T) {
	c := snippet(t, `
	mov 0, %r8
	bt.r 12                  ! at 4: to 4+12 = 16
	add %r8, 1, %r8          ! delay slot
	add %r8, 0x100, %r8      ! skipped (at 12)
	sub.f %r8, 1, %r0        ! at 16
	bne.r -20                ! not taken: r8 == 1
	add %r8, 2, %r8          ! executes (not a delay slot of a taken branch)
	mov hi(data), %r6
	or %r6, lo(data), %r6
	add %r6, 12, %r7
	mov 8, %r9
	ld [%r7 sub %r9], %r12   ! data+4
	mov 4, %r9
	ld [%r6 or %r9], %r13    ! data|4 = data+4 (data is 8-aligned)
	uld.h [%r7 sub %r9], %r14 ! data+8, half: 0xfffe
	`)
	want{"rv": 3, "r12": 0x8899aabb, "r13": 0x8899aabb, "r14": 0xfffe}.check(t, c)
}
