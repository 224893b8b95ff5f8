package debugger

import (
	"bytes"
	"fmt"
	"testing"

	"lanaiemu/lanai"
)

// restartable gives a session on program p and the loader that starts
// it again (for Core.Restartable).
func restartable(t *testing.T, p *program) (*session, func() (*lanai.CPU, error)) {
	out := &bytes.Buffer{}
	load := func() (*lanai.CPU, error) {
		c, err := lanai.New(lanai.Config{Console: out})
		if err != nil {
			return nil, err
		}
		img, err := c.Mem.LoadFile(p.image)
		if err != nil {
			return nil, err
		}
		c.Reset(img.Entry)
		return c, nil
	}
	c, _ := load()
	img, _ := c.Mem.LoadFile(p.image)
	return &session{t: t, cpu: c, d: New(c, img, out), out: out}, load
}

// Running backwards: reverse-step gives the state one instruction before
// (pc, cycles, registers as they were), reverse-continue the previous hit
// of a breakpoint, with the program's counts of that time.
func TestReverse(t *testing.T) {
	p := crtAnd(t, recursionS)
	s, load := restartable(t, p)
	d := s.d
	if got := s.bad("reverse-step"); !bytes.Contains([]byte(got), []byte("restart")) {
		t.Errorf("reverse-step without a restart: %q", got)
	}
	d.Target().(*Core).Restartable(load, nil)
	s.bad("reverse-step") // at the start
	fib := p.addr(t, "fib")
	s.do("break fib")
	var hits []struct{ instret, cycles uint64 }
	for i := 0; i < 3; i++ {
		s.do("continue")
		cpu := d.cpuOf(0)
		hits = append(hits, struct{ instret, cycles uint64 }{cpu.Instret, cpu.Cycles})
	}
	cpu := d.cpuOf(0)
	s.do("step 3")
	pc, r6, instret, cycles := cpu.PC, cpu.R[6], cpu.Instret, cpu.Cycles
	s.do("step")
	got := s.do("reverse-step")
	cpu = d.cpuOf(0)
	if cpu.PC != pc || cpu.R[6] != r6 || cpu.Instret != instret || cpu.Cycles != cycles {
		t.Errorf("reverse-step: pc %#x r6 %d instret %d cycles %d, want %#x %d %d %d\n%s", cpu.PC, cpu.R[6], cpu.Instret, cpu.Cycles, pc, r6, instret, cycles, got)
	}
	got = s.do("reverse-continue")
	cpu = d.cpuOf(0)
	if cpu.PC != fib || cpu.Instret != hits[2].instret || cpu.Cycles != hits[2].cycles {
		t.Errorf("reverse-continue: pc %#x instret %d, want the third hit %+v\n%s", cpu.PC, cpu.Instret, hits[2], got)
	}
	contains(t, "reverse-continue", got, fmt.Sprintf("Breakpoint 1, 0x%08x <fib>", fib))
	s.do("reverse-continue")
	if cpu = d.cpuOf(0); cpu.Instret != hits[1].instret {
		t.Errorf("second reverse-continue: instret %d, want %d", cpu.Instret, hits[1].instret)
	}
	// Forward again from there: the next hit is the third, as before.
	s.do("continue")
	if cpu = d.cpuOf(0); cpu.Instret != hits[2].instret || cpu.Cycles != hits[2].cycles {
		t.Errorf("continue after going back: instret %d, want %d", cpu.Instret, hits[2].instret)
	}
}

// reverse-continue honours conditions: it goes back to the last arrival
// where the condition held, passing logpoints and the arrivals where it
// did not.
func TestReverseCondition(t *testing.T) {
	p := crtAnd(t, recursionS)
	stops, _, _ := fibStops(t, p)
	s, load := restartable(t, p)
	d := s.d
	d.Target().(*Core).Restartable(load, nil)
	is3 := func(v uint32) bool { return v == 3 }
	s.do("break fib if %r6 == 3")
	s.do("log fib {%r6}")
	s.do("continue")
	s.do("continue")
	if cpu := d.cpuOf(0); cpu.Cycles != nth(t, stops, 2, is3) {
		t.Fatalf("the second stop at cycle %d, want %d", cpu.Cycles, nth(t, stops, 2, is3))
	}
	got := s.do("reverse-continue")
	if cpu := d.cpuOf(0); cpu.Cycles != nth(t, stops, 1, is3) || cpu.R[6] != 3 {
		t.Errorf("reverse-continue: cycle %d r6 %d, want the first stop's %d\n%s", cpu.Cycles, cpu.R[6], nth(t, stops, 1, is3), got)
	}
}

// reverse-continue back to a watched store shows the bytes as they were
// before that store (old) and after it (new), as continue does.
func TestReverseWatchOld(t *testing.T) {
	p := crtAnd(t, recursionS)
	s, load := restartable(t, p)
	s.d.Target().(*Core).Restartable(load, nil)
	s.do("watch moves if [moves] == 5")
	s.do("continue")
	s.do("condition 1")
	got := s.do("reverse-continue")
	contains(t, "reverse-continue to a watched store", got, "old: 00 00 00 03", "new: 00 00 00 04")
}
