package libgcc

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/lanai"
	"lanaiemu/objfile"
)

// myricomLibEnv names the folder holding Myricom's crt0.o and libgcc.a.
const myricomLibEnv = "LANAI_MYRICOM_LIB"

// record layout of harness.s: argument words, the results, spare words.
const (
	recordWords = 10
	argWords    = 5
	rvWord      = 5 // rv: a 32-bit result, or the high word of a 64-bit one
	r9Word      = 6 // r9: the low word of a 64-bit result
	spareWord   = 7 // __udivmoddi4 stores the remainder here (two words)
)

var be = binary.BigEndian

// image is the harness linked with libgcc.a.
type image struct {
	elf  []byte
	syms map[string]uint32
}

// linkHarness assembles harness.s and links it with libgcc.a from
// LANAI_MYRICOM_LIB, or skips the test.
func linkHarness(t *testing.T) *image {
	t.Helper()
	dir := os.Getenv(myricomLibEnv)
	if dir == "" {
		t.Skipf("%s is not set: Myricom's libgcc.a is not available (see docs/coff.md)", myricomLibEnv)
	}
	lib, err := os.ReadFile(filepath.Join(dir, "libgcc.a"))
	if err != nil {
		t.Fatal(err)
	}
	members, err := objfile.ReadArchive(lib)
	if err != nil {
		t.Fatal(err)
	}
	h, err := asm.AssembleFile("src/harness.s", asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	objs, names, err := link.SelectMembers([]link.Input{
		{Name: "harness.s", Object: h.Object},
		{Name: "libgcc.a", Members: members},
	})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := link.Link(objs, names, link.Options{})
	if err != nil {
		t.Fatal(err)
	}
	elf, err := exe.WriteELF()
	if err != nil {
		t.Fatal(err)
	}
	im := &image{elf: elf, syms: map[string]uint32{}}
	for _, s := range exe.Symbols {
		im.syms[s.Name] = s.Value
	}
	return im
}

// call runs routine on every argument list of args (each at most argWords
// words) and returns each call's record (arguments, rv, r9, spare words).
// setup may adjust a record before the run (given its address).
func (im *image) call(t *testing.T, cfg lanai.Config, routine string, args [][]uint32, setup func(rec []uint32, addr uint32)) [][]uint32 {
	t.Helper()
	c, err := lanai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := c.Mem.LoadFile(im.elf)
	if err != nil {
		t.Fatal(err)
	}
	c.Reset(loaded.Entry)
	fn, ok := im.syms[routine]
	if !ok {
		t.Fatalf("%s is not linked", routine)
	}
	base := (im.syms["_end"] + 7) &^ 7
	table := make([]byte, 4*recordWords*len(args))
	for i, a := range args {
		rec := make([]uint32, recordWords)
		copy(rec, a)
		if setup != nil {
			setup(rec, base+uint32(4*recordWords*i))
		}
		for j, w := range rec {
			be.PutUint32(table[4*(recordWords*i+j):], w)
		}
	}
	limit := base + uint32(len(table))
	if limit > 0x1f0000 {
		t.Fatalf("%d records do not fit below the stack", len(args))
	}
	for _, w := range []struct {
		sym string
		v   uint32
	}{{"routine", fn}, {"cursor", base}, {"limit", limit}} {
		if err := c.Mem.Write(im.syms[w.sym], be.AppendUint32(nil, w.v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Mem.Write(base, table); err != nil {
		t.Fatal(err)
	}
	st := c.Run(uint64(len(args)) * 200_000)
	if st.Kind != lanai.StopExit || st.Code != 0 {
		msg := st.Kind.String()
		if st.Trap != nil {
			msg = st.Trap.Report()
		}
		t.Fatalf("%s: the harness stopped with %s", routine, msg)
	}
	out, err := c.Mem.Read(base, uint32(len(table)))
	if err != nil {
		t.Fatal(err)
	}
	recs := make([][]uint32, len(args))
	for i := range recs {
		recs[i] = make([]uint32, recordWords)
		for j := range recs[i] {
			recs[i][j] = be.Uint32(out[4*(recordWords*i+j):])
		}
	}
	return recs
}

// special32 are the 32-bit edge cases: 0, ±1, the extremes, and every
// power of two with its neighbours and negation.
func special32() []uint32 {
	set := map[uint32]bool{0: true, 1: true, math.MaxUint32: true, math.MaxInt32: true, 1 << 31: true, 1<<31 + 1: true}
	for k := 0; k < 32; k++ {
		p := uint32(1) << k
		for _, v := range []uint32{p, p - 1, p + 1, -p, -p + 1} {
			set[v] = true
		}
	}
	return sortedKeys(set)
}

// special64 are the 64-bit edge cases, in the same spirit, plus values
// whose halves are edge cases on their own.
func special64() []uint64 {
	set := map[uint64]bool{0: true, 1: true, math.MaxUint64: true, math.MaxInt64: true, 1 << 63: true}
	for k := 0; k < 64; k += 1 {
		p := uint64(1) << k
		for _, v := range []uint64{p, p - 1, -p} {
			set[v] = true
		}
	}
	for _, v := range []uint64{0xffffffff, 0x100000000, 0x7fffffff, 0x80000000, 0xffffffff00000000, 0x00000001ffffffff} {
		set[v] = true
	}
	var out []uint64
	for v := range set {
		out = append(out, v)
	}
	sortU64(out)
	return out
}

func sortedKeys(set map[uint32]bool) []uint32 {
	var out []uint32
	for v := range set {
		out = append(out, v)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func sortU64(s []uint64) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// random32 returns n values spread over all magnitudes: a random word
// shifted right by a random amount, negated half the time.
func random32(rng *rand.Rand, n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		v := rng.Uint32() >> rng.Intn(32)
		if rng.Intn(2) == 0 {
			v = -v
		}
		out[i] = v
	}
	return out
}

func random64(rng *rand.Rand, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		v := rng.Uint64() >> rng.Intn(64)
		if rng.Intn(2) == 0 {
			v = -v
		}
		out[i] = v
	}
	return out
}

// pairs32 is every pair of special values plus random pairs.
func pairs32(rng *rand.Rand, random int) [][2]uint32 {
	sp := special32()
	var out [][2]uint32
	for _, a := range sp {
		for _, b := range sp {
			out = append(out, [2]uint32{a, b})
		}
	}
	ra, rb := random32(rng, random), random32(rng, random)
	for i := range ra {
		out = append(out, [2]uint32{ra[i], rb[i]}, [2]uint32{ra[i], sp[rng.Intn(len(sp))]})
	}
	return out
}

// pairs64 is every pair of special values plus random pairs.
func pairs64(rng *rand.Rand, random int) [][2]uint64 {
	sp := special64()
	var out [][2]uint64
	for _, a := range sp {
		for _, b := range sp {
			out = append(out, [2]uint64{a, b})
		}
	}
	ra, rb := random64(rng, random), random64(rng, random)
	for i := range ra {
		out = append(out, [2]uint64{ra[i], rb[i]}, [2]uint64{ra[i], sp[rng.Intn(len(sp))]})
	}
	return out
}

func split(v uint64) (hi, lo uint32) { return uint32(v >> 32), uint32(v) }
func join(hi, lo uint32) uint64      { return uint64(hi)<<32 | uint64(lo) }

// cmp3 is libgcc's three-way compare result: 0 below, 1 equal, 2 above.
func cmp3(less, equal bool) uint32 {
	switch {
	case less:
		return 0
	case equal:
		return 1
	}
	return 2
}

// case32 is a routine of two 32-bit arguments and a 32-bit result.
type case32 struct {
	routine string
	want    func(a, b uint32) uint32
	divides bool // b = 0 is division by zero: left to TestDivideByZero
}

var cases32 = []case32{
	{"___mulsi3", func(a, b uint32) uint32 { return a * b }, false},
	{"___divsi3", func(a, b uint32) uint32 { return uint32(int32(a) / int32(b)) }, true},
	{"___modsi3", func(a, b uint32) uint32 { return uint32(int32(a) % int32(b)) }, true},
	{"___udivsi3", func(a, b uint32) uint32 { return a / b }, true},
	{"___umodsi3", func(a, b uint32) uint32 { return a % b }, true},
}

// case64 is a routine of two 64-bit arguments and a 64-bit (or, for the
// compares, 32-bit) result.
type case64 struct {
	routine string
	want    func(a, b uint64) uint64
	divides bool
	result  int // words of result: 2 (rv:r9) or 1 (rv)
}

var cases64 = []case64{
	{"___muldi3", func(a, b uint64) uint64 { return a * b }, false, 2},
	{"___divdi3", func(a, b uint64) uint64 { return uint64(int64(a) / int64(b)) }, true, 2},
	{"___moddi3", func(a, b uint64) uint64 { return uint64(int64(a) % int64(b)) }, true, 2},
	{"___udivdi3", func(a, b uint64) uint64 { return a / b }, true, 2},
	{"___umoddi3", func(a, b uint64) uint64 { return a % b }, true, 2},
	{"___cmpdi2", func(a, b uint64) uint64 { return uint64(cmp3(int64(a) < int64(b), a == b)) }, false, 1},
	{"___ucmpdi2", func(a, b uint64) uint64 { return uint64(cmp3(a < b, a == b)) }, false, 1},
}

// gccConfig is the core configuration that runs libgcc, which lanai-gcc
// compiled for LANai 3/4: with that core's three-register (RRR)
// instructions (in the 64-bit shifts, __modsi3, __umodsi3 and the 64-bit
// divisions) and its silent alignment of word addresses (the 64-bit
// divisions read a byte of __clz_tab with a word load at the byte's
// address, then shift the byte out).
var gccConfig = lanai.Config{RRR: true, AlignSilently: true}

// TestRoutines calls every arithmetic routine of libgcc.a on thousands of
// inputs (every pair of edge cases and random pairs) and compares each
// result with Go's.
func TestRoutines(t *testing.T) {
	im := linkHarness(t)
	rng := rand.New(rand.NewSource(19))
	total := 0
	for _, tc := range cases32 {
		var args [][]uint32
		for _, p := range pairs32(rng, 1500) {
			if tc.divides && p[1] == 0 {
				continue
			}
			args = append(args, []uint32{p[0], p[1]})
		}
		recs := im.call(t, gccConfig, tc.routine, args, nil)
		bad := 0
		for i, r := range recs {
			if want := tc.want(args[i][0], args[i][1]); r[rvWord] != want {
				if bad++; bad <= 5 {
					t.Errorf("%s(%#x, %#x) = %#x, want %#x", tc.routine, args[i][0], args[i][1], r[rvWord], want)
				}
			}
		}
		t.Logf("%s: %d inputs, %d wrong", tc.routine, len(args), bad)
		total += len(args)
	}
	for _, tc := range cases64 {
		var args [][]uint32
		var in [][2]uint64
		for _, p := range pairs64(rng, 1500) {
			if tc.divides && p[1] == 0 {
				continue
			}
			ah, al := split(p[0])
			bh, bl := split(p[1])
			args = append(args, []uint32{ah, al, bh, bl})
			in = append(in, p)
		}
		recs := im.call(t, gccConfig, tc.routine, args, nil)
		bad := 0
		for i, r := range recs {
			want := tc.want(in[i][0], in[i][1])
			got := join(r[rvWord], r[r9Word])
			if tc.result == 1 {
				got = uint64(r[rvWord])
			}
			if got != want {
				if bad++; bad <= 5 {
					t.Errorf("%s(%#x, %#x) = %#x, want %#x", tc.routine, in[i][0], in[i][1], got, want)
				}
			}
		}
		t.Logf("%s: %d inputs, %d wrong", tc.routine, len(args), bad)
		total += len(args)
	}
	total += testShifts(t, im, rng)
	total += testUdivmoddi4(t, im, rng)
	total += testNegdi2(t, im, rng)
	t.Logf("%d calls in all", total)
}

// testShifts checks the 64-bit shifts for every shift count 0..63.
func testShifts(t *testing.T, im *image, rng *rand.Rand) int {
	shifts := []struct {
		routine string
		want    func(a uint64, n uint) uint64
	}{
		{"___ashldi3", func(a uint64, n uint) uint64 { return a << n }},
		{"___ashrdi3", func(a uint64, n uint) uint64 { return uint64(int64(a) >> n) }},
		{"___lshrdi3", func(a uint64, n uint) uint64 { return a >> n }},
	}
	values := append(special64(), random64(rng, 40)...)
	total := 0
	for _, tc := range shifts {
		var args [][]uint32
		for _, v := range values {
			for n := uint32(0); n < 64; n++ {
				h, l := split(v)
				args = append(args, []uint32{h, l, n})
			}
		}
		recs := im.call(t, gccConfig, tc.routine, args, nil)
		bad := 0
		for i, r := range recs {
			a, n := join(args[i][0], args[i][1]), uint(args[i][2])
			if got, want := join(r[rvWord], r[r9Word]), tc.want(a, n); got != want {
				if bad++; bad <= 5 {
					t.Errorf("%s(%#x, %d) = %#x, want %#x", tc.routine, a, n, got, want)
				}
			}
		}
		t.Logf("%s: %d inputs, %d wrong", tc.routine, len(args), bad)
		total += len(args)
	}
	return total
}

// testUdivmoddi4 checks __udivmoddi4(n, d, &r): quotient and remainder.
func testUdivmoddi4(t *testing.T, im *image, rng *rand.Rand) int {
	var args [][]uint32
	var in [][2]uint64
	for _, p := range pairs64(rng, 1500) {
		if p[1] == 0 {
			continue
		}
		nh, nl := split(p[0])
		dh, dl := split(p[1])
		args = append(args, []uint32{nh, nl, dh, dl})
		in = append(in, p)
	}
	recs := im.call(t, gccConfig, "___udivmoddi4", args, func(rec []uint32, addr uint32) {
		rec[4] = addr + 4*spareWord // the remainder pointer
	})
	bad := 0
	for i, r := range recs {
		q, rem := join(r[rvWord], r[r9Word]), join(r[spareWord], r[spareWord+1])
		if q != in[i][0]/in[i][1] || rem != in[i][0]%in[i][1] {
			if bad++; bad <= 5 {
				t.Errorf("__udivmoddi4(%#x, %#x) = %#x rem %#x, want %#x rem %#x", in[i][0], in[i][1], q, rem, in[i][0]/in[i][1], in[i][0]%in[i][1])
			}
		}
	}
	t.Logf("___udivmoddi4: %d inputs, %d wrong", len(args), bad)
	return len(args)
}

// testNegdi2 checks __negdi2.
func testNegdi2(t *testing.T, im *image, rng *rand.Rand) int {
	values := append(special64(), random64(rng, 2000)...)
	var args [][]uint32
	for _, v := range values {
		h, l := split(v)
		args = append(args, []uint32{h, l})
	}
	recs := im.call(t, gccConfig, "___negdi2", args, nil)
	bad := 0
	for i, r := range recs {
		if got, want := join(r[rvWord], r[r9Word]), -values[i]; got != want {
			if bad++; bad <= 5 {
				t.Errorf("__negdi2(%#x) = %#x, want %#x", values[i], got, want)
			}
		}
	}
	t.Logf("___negdi2: %d inputs, %d wrong", len(args), bad)
	return len(args)
}

// TestDivideByZero checks what the 32-bit division routines return for a
// zero divisor, as docs/runtime.md derives it from their code (there is no
// trap), and that the 64-bit ones return; their values are logged.
func TestDivideByZero(t *testing.T) {
	im := linkHarness(t)
	dividends := append(special32(), random32(rand.New(rand.NewSource(7)), 200)...)
	rules := map[string]func(a uint32) uint32{
		"___udivsi3": func(a uint32) uint32 { return a >> 31 },
		"___umodsi3": func(a uint32) uint32 { return a },
		"___modsi3":  func(a uint32) uint32 { return a },
		"___divsi3": func(a uint32) uint32 {
			if a == 1<<31 {
				return math.MaxUint32
			}
			return 0
		},
	}
	for _, tc := range cases32 {
		if !tc.divides {
			continue
		}
		var args [][]uint32
		for _, a := range dividends {
			args = append(args, []uint32{a, 0})
		}
		for i, r := range im.call(t, gccConfig, tc.routine, args, nil) {
			if want := rules[tc.routine](dividends[i]); r[rvWord] != want {
				t.Errorf("%s(%#x, 0) = %#x, want %#x", tc.routine, dividends[i], r[rvWord], want)
			}
		}
	}
	for _, tc := range cases64 {
		if !tc.divides {
			continue
		}
		var args [][]uint32
		for _, a := range dividends[:8] {
			args = append(args, []uint32{a, ^a, 0, 0})
		}
		var line string
		for i, r := range im.call(t, gccConfig, tc.routine, args, nil) {
			line += fmt.Sprintf(" %#x->%#x", join(args[i][0], args[i][1]), join(r[rvWord], r[r9Word]))
		}
		t.Logf("%s(a, 0):%s", tc.routine, line)
	}
}

// TestLinkEveryObject links each of Myricom's 63 objects (crt0.o and
// libgcc.a's members) on its own, with a stub defining whatever it leaves
// undefined: every relocation of every object must apply.
func TestLinkEveryObject(t *testing.T) {
	dir := os.Getenv(myricomLibEnv)
	if dir == "" {
		t.Skipf("%s is not set: Myricom's objects are not available (see docs/coff.md)", myricomLibEnv)
	}
	crt0, err := os.ReadFile(filepath.Join(dir, "crt0.o"))
	if err != nil {
		t.Fatal(err)
	}
	lib, err := os.ReadFile(filepath.Join(dir, "libgcc.a"))
	if err != nil {
		t.Fatal(err)
	}
	members, err := objfile.ReadArchive(lib)
	if err != nil {
		t.Fatal(err)
	}
	members = append([]objfile.ArchiveMember{{Name: "crt0.o", Data: crt0}}, members...)
	linked, relocs := 0, 0
	for _, m := range members {
		f, err := objfile.Read(m.Data)
		if err != nil {
			t.Errorf("%s: %v", m.Name, err)
			continue
		}
		stub := &objfile.File{Kind: objfile.REL}
		tx := &objfile.Section{Name: ".text", Type: objfile.SHT_PROGBITS, Flags: objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, Align: 4}
		stub.Sections = []*objfile.Section{tx}
		for _, s := range f.Symbols {
			if s.Bind != objfile.STB_LOCAL && s.IsUndefined() {
				stub.Symbols = append(stub.Symbols, &objfile.Symbol{Name: s.Name, Bind: objfile.STB_GLOBAL, Section: tx, Value: tx.Size})
				tx.Size += 4
			}
		}
		tx.Data = make([]byte, tx.Size)
		if _, err := link.Link([]*objfile.File{f, stub}, []string{m.Name, "stub"}, link.Options{Entry: "0"}); err != nil {
			t.Errorf("%s: %v", m.Name, err)
			continue
		}
		linked++
		for _, s := range f.Sections {
			if s.Flags&objfile.SHF_ALLOC != 0 {
				relocs += len(s.Relocs)
			}
		}
	}
	t.Logf("%d of %d objects linked; %d relocations in their allocated sections applied", linked, len(members), relocs)
}
