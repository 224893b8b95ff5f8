package lanai

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/isa"
)

// selfModifying counts in rounds of a 300-take loop and then polls EIMR,
// which an event sets. A core whose flag word (0x2000) is set copies the
// word at smcAlt over the loop's add after each round (self-modifying
// code); the program exits with the count.
const selfModifying = `
	ld 0x2000[%r0], %r5        ! this core's flag
	mov smcLoop, %r10
	mov smcAlt, %r11
	mov 0, %r6
	mov 3, %r9                 ! rounds
.Lround:
	mov 300, %r7
smcLoop:
	add %r6, 1, %r6            ! rewritten by a flagged core
	sub.f %r7, 1, %r7
smcBranch:
	bne smcLoop
	nop
	sub.f %r5, 0, %r0
	beq smcNext
	nop
	ld 0[%r11], %r8
	st %r8, 0[%r10]
smcNext:
	sub.f %r9, 1, %r9
	bne .Lround
	nop
.Lpoll:
	ld -424[%r0], %r8          ! EIMR
	and %r8, 0xffff0001, %r8
	sub.f %r8, 0, %r0
	beq .Lpoll
	nop
	st %r6, -4096[%r0]         ! exit with the count
smcAlt:
	add %r6, 2, %r6
`

// shareTwin is a core that shares its code and its twin, which runs alone
// with the same inputs.
type shareTwin struct {
	shared, alone *CPU
	stop          [2]*Stop
}

// newShareTwins loads img on n pairs of cores; setup changes both cores of
// pair i alike before the run (SRAM, events).
func newShareTwins(t *testing.T, img []byte, n int, setup func(i int, c *CPU)) []*shareTwin {
	t.Helper()
	var ps []*shareTwin
	for i := range n {
		p := &shareTwin{}
		p.shared, _ = load(t, img, Config{})
		p.alone, _ = load(t, img, Config{})
		for _, c := range []*CPU{p.shared, p.alone} {
			if setup != nil {
				setup(i, c)
			}
		}
		ps = append(ps, p)
	}
	return ps
}

// step runs every pair's cores for budget cycles, in turn (the shared
// cores interleave as a cluster's boards do), and checks each pair.
func stepTwins(t *testing.T, ps []*shareTwin, budget uint64) {
	t.Helper()
	for i, p := range ps {
		for k, c := range []*CPU{p.shared, p.alone} {
			if p.stop[k] != nil && p.stop[k].Kind == StopExit {
				continue
			}
			p.stop[k] = c.Run(budget)
		}
		if err := sameCore(p.shared, p.alone); err != nil {
			t.Fatalf("pair %d: %v", i, err)
		}
		if p.stop[0].Kind != p.stop[1].Kind || p.stop[0].Code != p.stop[1].Code {
			t.Fatalf("pair %d: stops %v and %v", i, stopMessage(p.stop[0]), stopMessage(p.stop[1]))
		}
	}
}

// sameCore compares a sharing core with one alone: the counts, the
// architectural state, SRAM, the predecode view's length and the polling
// state of every word the lone core has predecoded.
func sameCore(s, a *CPU) error {
	switch {
	case s.Cycles != a.Cycles || s.Instret != a.Instret:
		return fmt.Errorf("%d cycles %d instructions shared, %d and %d alone", s.Cycles, s.Instret, a.Cycles, a.Instret)
	case s.SkippedCycles != a.SkippedCycles || s.SkippedInstret != a.SkippedInstret:
		return fmt.Errorf("skipped %d/%d shared, %d/%d alone", s.SkippedCycles, s.SkippedInstret, a.SkippedCycles, a.SkippedInstret)
	case s.R != a.R || s.Flags != a.Flags || s.PC != a.PC || s.NPC != a.NPC || s.NNPC != a.NNPC:
		return fmt.Errorf("state differs: %v shared, %v alone", s, a)
	case !bytes.Equal(s.Mem.SRAM, a.Mem.SRAM):
		return fmt.Errorf("SRAM differs")
	case len(s.pre) != len(a.pre):
		return fmt.Errorf("%d predecoded words shared, %d alone", len(s.pre), len(a.pre))
	case s.loop.proved != a.loop.proved || s.loop.state != a.loop.state || s.pollTrack != a.pollTrack:
		return fmt.Errorf("loop watch differs")
	}
	for i := range a.pre {
		want := a.pre[i].poll // what a fetch would leave: a forgotten word's starts afresh
		if a.pre[i].op == opUndecoded {
			want = pollUnknown
		}
		got := *s.pollOf(uint32(i))
		if s.share == nil && s.pre[i].op == opUndecoded {
			got = pollUnknown
		}
		if got != want {
			return fmt.Errorf("word %#x: poll state %d shared, %d alone", i*4, got, want)
		}
	}
	return nil
}

func assembleSelfModifying(t *testing.T) []byte {
	return linkSources(t, asm.Source{Name: "smc.s", Text: []byte("\t.globl _start\n_start:\n" + selfModifying)})
}

// Cores that share their code run as they would alone: one that rewrites
// its code after the sharing began (and so leaves it), one that joins
// after it ran a while, one whose SRAM differs at join in a word not yet
// decoded, one that gets a DMA write into its code, and one that sets a
// breakpoint, stops on it and shares again once it is cleared.
func TestSharedCodeRunsAsAlone(t *testing.T) {
	img := assembleSelfModifying(t)
	const dma, flagged, late, differs, plain, brk = 0, 1, 2, 3, 4, 5
	ps := newShareTwins(t, img, 6, func(i int, c *CPU) {
		if i == flagged {
			c.Mem.Write(0x2000, []byte{0, 0, 0, 1})
		}
		c.Schedule(uint64(20_000+1_000*i), func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
	})
	alt, loop := symbolAddr(t, img, "smcAlt"), symbolAddr(t, img, "smcLoop")
	// differs: its smcAlt (never executed by an unflagged core) holds another word.
	for _, c := range []*CPU{ps[differs].shared, ps[differs].alone} {
		c.Mem.Write(alt, []byte{0x05, 0x18, 0x00, 0x07}) // add %r6, 7, %r6
	}
	var s SharedCode
	for i, p := range ps {
		if i != late && !p.shared.ShareCode(&s) {
			t.Fatalf("core %d did not join", i)
		}
	}
	if s.Members() != len(ps)-1 {
		t.Fatalf("%d members", s.Members())
	}
	stepTwins(t, ps, 700)
	if !ps[late].shared.ShareCode(&s) {
		t.Fatal("the late core did not join")
	}
	stepTwins(t, ps, 700)
	for _, c := range []*CPU{ps[dma].shared, ps[dma].alone} {
		c.Mem.Write(loop, []byte{0x05, 0x18, 0x00, 0x03}) // add %r6, 3, %r6: a DMA into code
	}
	next := symbolAddr(t, img, "smcNext")
	for _, c := range []*CPU{ps[brk].shared, ps[brk].alone} {
		c.SetBreakpoint(next, true)
	}
	if ps[brk].shared.SharedCode() != nil {
		t.Error("a core with a breakpoint still shares")
	}
	for range 100 {
		stepTwins(t, ps, 500)
		if p := ps[brk]; p.stop[0].Kind == StopBreakpoint {
			for _, c := range []*CPU{p.shared, p.alone} {
				c.SetBreakpoint(next, false)
			}
			p.shared.ShareCode(&s)
		}
	}
	for i, p := range ps {
		if p.stop[0].Kind != StopExit {
			t.Errorf("core %d: %v", i, stopMessage(p.stop[0]))
		}
	}
	if ps[flagged].stop[0].Code == ps[plain].stop[0].Code || ps[dma].stop[0].Code == ps[plain].stop[0].Code {
		t.Errorf("exit codes %d %d %d: the rewritten code did not run", ps[plain].stop[0].Code, ps[flagged].stop[0].Code, ps[dma].stop[0].Code)
	}
	// The cores whose code was rewritten left, alone (the one that
	// rewrote its own fetched the new word first: it left then).
	for i, p := range ps {
		if left := p.shared.SharedCode() == nil; left != (i == flagged || i == dma) {
			t.Errorf("core %d: left %v", i, left)
		}
	}
	t.Logf("%d members at the end; exit codes %d (flagged %d, dma %d)", s.Members(), ps[plain].stop[0].Code, ps[flagged].stop[0].Code, ps[dma].stop[0].Code)
}

// A DMA into one of two members' backward branch (bne to bgt, which loops
// as long) forgets the branch for both; that member fetches the new word
// first (it runs first in each round) and, on the tie, keeps the set, so
// the other leaves with the branch forgotten but its polling state kept:
// both must run on as alone.
func TestSharedCodeForgottenBranch(t *testing.T) {
	img := assembleSelfModifying(t)
	ps := newShareTwins(t, img, 2, func(i int, c *CPU) {
		c.Schedule(20_000, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
	})
	var s SharedCode
	for _, p := range ps {
		p.shared.ShareCode(&s)
	}
	stepTwins(t, ps, 700)
	branch := symbolAddr(t, img, "smcBranch")
	if *ps[1].shared.pollOf(branch / 4) == pollUnknown {
		t.Fatal("the branch has no polling state to keep")
	}
	dmaBranchCond(t, ps[0], branch, isa.CondGT)
	for range 60 {
		stepTwins(t, ps, 500)
	}
	if s.Members() != 1 || ps[1].shared.SharedCode() != nil {
		t.Errorf("%d members: the other did not leave", s.Members())
	}
	for i, p := range ps {
		if p.stop[0].Kind != StopExit || p.stop[0].Code != 900 {
			t.Errorf("core %d: %v (exit code %d)", i, stopMessage(p.stop[0]), p.stop[0].Code)
		}
	}
}

// dmaBranchCond writes, as a DMA would, the branch at addr with its
// condition changed to cond into both cores of p.
func dmaBranchCond(t *testing.T, p *shareTwin, addr uint32, cond isa.Cond) {
	t.Helper()
	in := isa.Decode(binary.BigEndian.Uint32(p.alone.Mem.SRAM[addr:]))
	in.Cond = cond
	w, err := isa.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*CPU{p.shared, p.alone} {
		c.Mem.Write(addr, binary.BigEndian.AppendUint32(nil, w))
	}
}

// symbolAddr is the address of a symbol of img.
func symbolAddr(t *testing.T, img []byte, name string) uint32 {
	t.Helper()
	_, im := load(t, img, Config{})
	for _, s := range im.Symbols {
		if s.Name == name {
			return s.Value
		}
	}
	t.Fatalf("no symbol %s", name)
	return 0
}

// A core whose SRAM differs from the members' at a word they decoded, or
// whose configuration predecodes differently, does not join.
func TestSharedCodeRefuses(t *testing.T) {
	img := assembleSelfModifying(t)
	a, _ := load(t, img, Config{})
	var s SharedCode
	if !a.ShareCode(&s) {
		t.Fatal("the first core did not join")
	}
	a.Run(100)
	b, _ := load(t, img, Config{})
	b.Mem.Write(0, []byte{0, 0, 0, 0})
	if b.ShareCode(&s) {
		t.Error("a core with other code at a decoded word joined")
	}
	c, _ := load(t, img, Config{RRR: true})
	if c.ShareCode(&s) {
		t.Error("a core that predecodes otherwise joined")
	}
	d, _ := load(t, img, Config{})
	d.SetBreakpoint(0, true)
	if d.ShareCode(&s) {
		t.Error("a core with a breakpoint joined")
	}
	if s.Members() != 1 {
		t.Errorf("%d members", s.Members())
	}
}

// FuzzSharedEqualsAlone runs random words as a program on three cores
// that share their code (the second with other registers, the third with
// one word changed) and on three twins alone, interleaved in short runs:
// random programs store all over their code. Each sharing core must run
// as its twin.
func FuzzSharedEqualsAlone(f *testing.F) {
	addRunSeeds(f)
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 4096 {
			prog = prog[:4096]
		}
		var ps []*shareTwin
		for i := range 3 {
			p := &shareTwin{}
			for k := range 2 {
				c, err := New(Config{SRAMSize: 16 << 10})
				if err != nil {
					t.Fatal(err)
				}
				c.Mem.Write(0, prog)
				if i == 2 && len(prog) >= 8 {
					c.Mem.Write(4, []byte{0x01, 0x14, 0x00, 0x01}) // add %r5, 1, %r5
				}
				for r := 3; r < 32 && 4*r+4 <= len(prog); r++ {
					c.R[r] = binary.BigEndian.Uint32(prog[4*r:]) + uint32(i)
				}
				c.Schedule(5_000, func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
				if k == 0 {
					p.shared = c
				} else {
					p.alone = c
				}
			}
			ps = append(ps, p)
		}
		var s SharedCode
		for _, p := range ps {
			p.shared.ShareCode(&s)
		}
		for range 24 {
			for i, p := range ps {
				for k, c := range []*CPU{p.shared, p.alone} {
					if p.stop[k] == nil || p.stop[k].Kind == StopCycleLimit {
						p.stop[k] = c.Run(500)
					}
				}
				if err := sameCore(p.shared, p.alone); err != nil {
					t.Fatalf("core %d: %v", i, err)
				}
				if p.stop[0].Kind != p.stop[1].Kind {
					t.Fatalf("core %d: stops %v and %v", i, stopMessage(p.stop[0]), stopMessage(p.stop[1]))
				}
			}
		}
	})
}

// highCode jumps to code at 0x40000, past a core's first predecode view
// (64 KiB); a core whose flag word (0x3000) is set first stores the word
// at 0x3004 there.
const highCode = `
	ld 0x3000[%r0], %r5
	sub.f %r5, 0, %r0
	beq .Ljump
	nop
	ld 0x3004[%r0], %r8
	mov 0x40000, %r10
	st %r8, 0[%r10]
.Ljump:
	mov 0x40000, %r10
	add %r10, 0, %pc
	nop
`

// A member whose view has not grown over a word another member decoded
// there stores another word into it (its store forgets nothing it can
// see); when its view grows over the word, the word is forgotten, and the
// member runs its own.
func TestSharedCodeViewGrows(t *testing.T) {
	img := linkSources(t, asm.Source{Name: "high.s", Text: []byte("\t.globl _start\n_start:\n" + highCode)})
	words := func(src string) []byte {
		c, _ := load(t, linkSources(t, asm.Source{Name: "w.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
		return append([]byte(nil), c.Mem.SRAM[:12]...)
	}
	exit5 := words("\tmov 5, %r6\n\tst %r6, -4096[%r0]\n\tnop\n")
	mov9 := words("\tmov 9, %r6\n")[:4]
	ps := newShareTwins(t, img, 2, func(i int, c *CPU) {
		c.Mem.Write(0x40000, exit5)
		c.Mem.Write(0x3004, mov9)
		if i == 1 {
			c.Mem.Write(0x3000, []byte{0, 0, 0, 1})
		}
	})
	var s SharedCode
	for _, p := range ps {
		p.shared.ShareCode(&s)
	}
	if n := len(ps[1].shared.pre); n*4 > 0x40000 {
		t.Fatalf("the view covers %#x bytes already", n*4)
	}
	stepTwins(t, ps, 1000)
	for i, want := range []uint32{5, 9} {
		if st := ps[i].stop[0]; st.Kind != StopExit || st.Code != want {
			t.Errorf("core %d: %v, exit code %d, want %d", i, stopMessage(st), st.Code, want)
		}
	}
}

// A sharing core's takes of a backward branch count down in the core's own
// state (CPU.poll; execSlow counts them, the shared uop's poll staying
// pollUnknown) as a lone core's count down in its uop (in exec): two
// sharing cores, run in short turns of uneven length that end inside the
// countdowns, keep every word's polling state and their counts equal to
// their twins' alone, and the loop branch is seen counting down.
func TestSharedCodeCountsTakes(t *testing.T) {
	img := assembleSelfModifying(t)
	ps := newShareTwins(t, img, 2, func(i int, c *CPU) {
		c.Schedule(uint64(60_000+5_000*i), func() { c.Mem.WriteIO(0xFFFFFE58, 4, 0x11) })
	})
	var s SharedCode
	for i, p := range ps {
		if !p.shared.ShareCode(&s) {
			t.Fatalf("core %d did not join", i)
		}
	}
	branch := symbolAddr(t, img, "smcBranch") / 4
	counting := 0
	for k := range 400 {
		stepTwins(t, ps, uint64(97+31*(k%7)))
		for _, p := range ps {
			if *p.shared.pollOf(branch) > pollWait && p.shared.pre[branch].poll == pollUnknown {
				counting++
			}
		}
		if ps[0].stop[0].Kind == StopExit && ps[1].stop[0].Kind == StopExit {
			break
		}
	}
	if counting == 0 {
		t.Error("the sharing cores' loop branch never counted its takes down")
	}
	for i, p := range ps {
		if p.stop[0].Kind != StopExit || p.shared.SharedCode() != &s {
			t.Errorf("core %d: %v, shares %v", i, stopMessage(p.stop[0]), p.shared.SharedCode() == &s)
		}
	}
}
