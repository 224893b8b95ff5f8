package debugger

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/asm"
	"lanaiemu/internal/ccorpus"
	"lanaiemu/isa"
	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
	"lanaiemu/objfile"
)

// build assembles and links the files as lanai-as does, with the line
// table, and returns the executable.
func build(t testing.TB, files ...string) []byte {
	t.Helper()
	return lanaitest.BuildFiles(t, files...)
}

const recursionS = "../fixtures/c/s/recursion.O1.s"

// program is a built test program and facts about it read from the ELF
// itself (not from the debugger).
type program struct {
	image []byte
	file  *objfile.File
	sym   map[string]*objfile.Symbol
	lines []objfile.LineEntry
}

func crtAnd(t testing.TB, src ...string) *program {
	crt, _ := filepath.Glob("../firmware/crt/src/*.s")
	img := build(t, append(crt, src...)...)
	f, err := objfile.Read(img)
	require.NoError(t, err)
	p := &program{image: img, file: f, sym: map[string]*objfile.Symbol{}}
	for _, s := range f.Symbols {
		if s.Name != "" && !s.IsUndefined() {
			p.sym[s.Name] = s
		}
	}
	if p.lines, err = f.Lines(); err != nil || len(p.lines) == 0 {
		t.Fatalf("line table: %v (%d entries)", err, len(p.lines))
	}
	return p
}

func (p *program) addr(t testing.TB, name string) uint32 {
	t.Helper()
	s, ok := p.sym[name]
	if !ok {
		t.Fatalf("no symbol %s", name)
	}
	return s.Value
}

// word reads the word at a from the ELF's sections.
func (p *program) word(t testing.TB, a uint32) uint32 {
	t.Helper()
	for _, s := range p.file.Sections {
		if s.Flags&objfile.SHF_ALLOC != 0 && a >= s.Addr && a+4 <= s.Addr+uint32(len(s.Data)) {
			b := s.Data[a-s.Addr:]
			return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
		}
	}
	t.Fatalf("no word at %#x in the image", a)
	return 0
}

// findCall gives the address of the first "bt target" in fn.
func (p *program) findCall(t testing.TB, fn, target string) uint32 {
	t.Helper()
	s := p.sym[fn]
	to := p.addr(t, target)
	for a := s.Value; a < s.Value+s.Size; a += 4 {
		in := isa.Decode(p.word(t, a))
		if in.Class == isa.BR && in.Cond == isa.CondT && in.Imm == to {
			return a
		}
	}
	t.Fatalf("no call to %s in %s", target, fn)
	return 0
}

// session is a debugger over a fresh core, with its transcript.
type session struct {
	t   testing.TB
	cpu *lanai.CPU
	d   *Debugger
	out *bytes.Buffer
}

func newSession(t *testing.T, p *program) *session { return newSessionTB(t, p) }

func newSessionTB(t testing.TB, p *program) *session {
	t.Helper()
	out := &bytes.Buffer{}
	c, img := lanaitest.Load(t, p.image, lanai.Config{Console: out})
	return &session{t: t, cpu: c, d: New(c, img, out), out: out}
}

// do runs a command and returns its part of the transcript; it fails the
// test on an error unless the command is expected to fail.
func (s *session) do(cmd string) string {
	s.t.Helper()
	s.out.Reset()
	s.d.Exec(cmd)
	got := s.out.String()
	if strings.Contains(got, "error:") {
		s.t.Fatalf("%s: %s", cmd, got)
	}
	return got
}

func (s *session) bad(cmd string) string {
	s.t.Helper()
	s.out.Reset()
	n := s.d.Errors()
	s.d.Exec(cmd)
	got := s.out.String()
	if !strings.HasPrefix(got, "error: ") || s.d.Errors() != n+1 || strings.Contains(got, "internal error") {
		s.t.Errorf("%q: want one error, got %q", cmd, got)
	}
	return got
}

func (s *session) wantPC(cmd string, pc uint32) string {
	s.t.Helper()
	got := s.do(cmd)
	if s.cpu.PC != pc {
		s.t.Fatalf("after %q: pc %#x, want %#x\n%s", cmd, s.cpu.PC, pc, got)
	}
	if !strings.Contains(got, fmt.Sprintf("=>  0x%08x ", pc)) {
		s.t.Errorf("after %q: the transcript does not show pc %#x with =>:\n%s", cmd, pc, got)
	}
	return got
}

func contains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s: missing %q in:\n%s", what, w, got)
		}
	}
}

func TestBreakpointsAndStepping(t *testing.T) {
	p := crtAnd(t, recursionS)
	s := newSession(t, p)
	fib, main := p.addr(t, "fib"), p.addr(t, "main")

	// A breakpoint at a symbol.
	got := s.do("break fib")
	contains(t, "break fib", got, fmt.Sprintf("Breakpoint 1 at 0x%08x <fib>", fib))
	got = s.wantPC("continue", fib)
	contains(t, "continue", got, fmt.Sprintf("Breakpoint 1, 0x%08x <fib>", fib))
	if s.cpu.R[6] != 18 {
		t.Errorf("fib's argument r6 = %d, want 18", s.cpu.R[6])
	}
	got = s.do("info breakpoints")
	contains(t, "info breakpoints", got, fmt.Sprintf("1    breakpoint  0x%08x     1  0x%08x <fib>", fib, fib))

	// step and step N.
	s.wantPC("step", fib+4)
	s.wantPC("s 2", fib+12)
	got = s.do("history 3")
	for i, a := range []uint32{fib, fib + 4, fib + 8} {
		contains(t, "history", got, fmt.Sprintf("-%-2d 0x%08x", 3-i, a))
	}

	// A breakpoint at file:line (base name and path), from the line table.
	var at objfile.LineEntry
	for _, e := range p.lines {
		if e.Addr == fib+0x18 {
			at = e
		}
	}
	if at.Line == 0 {
		t.Fatalf("no line entry for fib+0x18")
	}
	got = s.do(fmt.Sprintf("break %s:%d", filepath.Base(at.File), at.Line))
	contains(t, "break file:line", got, fmt.Sprintf("Breakpoint 2 at 0x%08x <fib+0x18> at recursion.O1.s:%d", fib+0x18, at.Line))
	got = s.do(fmt.Sprintf("break %s:%d", at.File, at.Line))
	contains(t, "break path:line", got, "Breakpoint 2 is already at")
	got = s.wantPC("c", fib+0x18)
	contains(t, "continue to file:line", got, fmt.Sprintf("Breakpoint 2, 0x%08x <fib+0x18> at recursion.O1.s:%d", fib+0x18, at.Line))

	// next over the recursive call: stops after the call in the same frame.
	call := p.findCall(t, "fib", "fib")
	s.do("delete")
	s.wantPC(fmt.Sprintf("until 0x%x", call), call)
	sp := s.cpu.Reg(isa.SP)
	before := s.cpu.Instret
	s.wantPC("next", call+8)
	if s.cpu.Reg(isa.SP) != sp+4 {
		t.Errorf("after next: sp %#x, want %#x (the pushed return address popped)", s.cpu.Reg(isa.SP), sp+4)
	}
	if s.cpu.Instret-before < 10 {
		t.Errorf("next executed %d instructions; the call was not run", s.cpu.Instret-before)
	}
	// next on an ordinary instruction is a step.
	s.wantPC("n", call+12)

	// finish: back in main right after its call to fib, with fib(18).
	mainCall := p.findCall(t, "main", "fib")
	got = s.do("bt")
	contains(t, "backtrace", got, "#0  0x", "<fib+", fmt.Sprintf("<main+%#x>", mainCall+8-main), "<_start+")
	for s.cpu.PC != mainCall+8 {
		got = s.do("finish")
		contains(t, "finish", got, "Run till exit from fib", "Value returned: rv = ")
		if !strings.Contains(got, "=>  0x") {
			t.Fatalf("finish did not stop:\n%s", got)
		}
	}
	if rv := s.cpu.Reg(isa.RV); rv != 2584 {
		t.Errorf("fib(18) = %d", rv)
	}
	contains(t, "finish", got, "Value returned: rv = 0x00000a18 (2584)")

	// p and x.
	got = s.do("p rv")
	contains(t, "p rv", got, "rv = 0x00000a18 (2584)")
	got = s.do("print %sp")
	contains(t, "p %sp", got, fmt.Sprintf("sp = 0x%08x", s.cpu.Reg(isa.SP)))
	grid := p.addr(t, "grid")
	got = s.do("x/8 grid")
	want := fmt.Sprintf("0x%08x <grid>               %08x %08x %08x %08x  |", grid, p.word(t, grid), p.word(t, grid+4), p.word(t, grid+8), p.word(t, grid+12))
	contains(t, "x/8 grid", got, want, "|..............##|", fmt.Sprintf("0x%08x <grid+0x10>", grid+16))
	got = s.do("p grid+4")
	contains(t, "p grid+4", got, fmt.Sprintf("[0x%08x <grid+0x4>] = 0x%08x", grid+4, p.word(t, grid+4)))
	got = s.do("p &grid")
	contains(t, "p &grid", got, fmt.Sprintf("&grid = 0x%08x <grid>", grid))
	got = s.do("x")
	contains(t, "x continues", got, fmt.Sprintf("0x%08x <grid+0x20>", grid+32))

	// The program runs on to its exit value.
	progs, err := ccorpus.Programs("../fixtures/c")
	require.NoError(t, err)
	var code uint32
	for _, pr := range progs {
		if pr.Name == "recursion" {
			code = pr.Expected
		}
	}
	got = s.do("continue")
	contains(t, "continue to the end", got, fmt.Sprintf("[program exited with code %#x", code))
	if st := s.d.Finished(); st == nil || st.Kind != lanai.StopExit || st.Code != code {
		t.Errorf("finished: %+v", st)
	}
	s.bad("step")
	s.bad("continue")
}

func TestNextAtCallSequence(t *testing.T) {
	p := crtAnd(t, recursionS)
	s := newSession(t, p)
	call := p.findCall(t, "main", "ack")
	add := call - 8 // add %pc, 0x10, %rca; st %rca, [--%sp]; bt ack
	if in := isa.Decode(p.word(t, add)); in.Class != isa.RI || in.Rs1 != isa.PC || in.Rd != isa.RCA {
		t.Fatalf("no call sequence before %#x", call)
	}
	s.wantPC(fmt.Sprintf("until %#x", add), add)
	sp := s.cpu.Reg(isa.SP)
	s.wantPC("next", call+8) // from the add: the whole sequence
	if s.cpu.Reg(isa.SP) != sp {
		t.Errorf("sp %#x after next, want %#x", s.cpu.Reg(isa.SP), sp)
	}
	if s.cpu.Reg(isa.RV) != 9 { // ack(2, 3)
		t.Errorf("ack(2,3) = %d", s.cpu.Reg(isa.RV))
	}
	// A breakpoint inside the callee stops next.
	ack := p.addr(t, "ack")
	s.do("break ack")
	call2 := call + 4
	for in := isa.Decode(p.word(t, call2)); in.Class != isa.BR || in.Imm != ack; in = isa.Decode(p.word(t, call2)) {
		call2 += 4
	}
	s.wantPC(fmt.Sprintf("until %#x", call2-8), call2-8)
	got := s.wantPC("next", ack) // the breakpoint in the callee comes first
	contains(t, "next into a breakpoint", got, fmt.Sprintf("Breakpoint 1, 0x%08x <ack>", ack))
}

func TestWatchpoint(t *testing.T) {
	p := crtAnd(t, recursionS)
	s := newSession(t, p)
	moves := p.addr(t, "moves")
	got := s.do("watch moves")
	contains(t, "watch", got, fmt.Sprintf("Watchpoint 1: 4 bytes at 0x%08x <moves>", moves))
	// crt0 zeroes .bss: a store of the same value still touches the range.
	got = s.do("continue")
	contains(t, "watch hit in crt0", got, fmt.Sprintf("Watchpoint 1: 4-byte store to 0x%08x <moves> by 0x", moves), "<_start+", "old: 00 00 00 00", "new: 00 00 00 00")
	got = s.do("continue")
	contains(t, "watch hit", got, fmt.Sprintf("Watchpoint 1: 4-byte store to 0x%08x <moves> by 0x", moves), "<hanoi+", "old: 00 00 00 00", "new: 00 00 00 01")
	a, size, _ := s.cpu.LastStore()
	if a != moves || size != 4 {
		t.Errorf("last store %#x/%d, want %#x/4", a, size, moves)
	}
	got = s.do("p moves")
	contains(t, "p moves", got, fmt.Sprintf("[0x%08x <moves>] = 0x00000001 (1)", moves))
	got = s.do("c")
	contains(t, "second hit", got, "old: 00 00 00 01", "new: 00 00 00 02")
	got = s.do("info watchpoints")
	contains(t, "info watchpoints", got, fmt.Sprintf("1    watchpoint  0x%08x     3  4 bytes", moves))
	s.do("delete 1")
	got = s.do("c")
	contains(t, "after delete", got, "[program exited with code")
}

func TestDisasListTraceCycles(t *testing.T) {
	p := crtAnd(t, recursionS)
	s := newSession(t, p)
	fib := p.addr(t, "fib")
	s.do("b fib")
	s.do("c")
	got := s.do("disas")
	contains(t, "disas", got, "<fib>:\n", fmt.Sprintf("=>  0x%08x <fib>                9293fffc  st      %%fp, [--%%sp]", fib), "recursion.O1.s:")
	got = s.do("disas main 2")
	if n := strings.Count(got, "\n"); n != 3 { // header and two instructions
		t.Errorf("disas main 2: %d lines:\n%s", n, got)
	}

	// list shows the source line of pc, read from the file.
	e := p.lineAt(t, fib)
	src, err := os.ReadFile(e.File)
	require.NoError(t, err)
	line := strings.Split(string(src), "\n")[e.Line-1]
	got = s.do("list")
	contains(t, "list", got, fmt.Sprintf("=> %5d  %s", e.Line, expandTabs(line)))
	next := s.do("list")
	contains(t, "list continues", next, fmt.Sprintf("   %5d  ", e.Line+6))

	// trace: one line per instruction.
	s.do("trace on")
	got = s.do("step 2")
	if n := len(regexp.MustCompile(`(?m)^ +\d+ [0-9a-f]{8} fib`).FindAllString(got, -1)); n != 2 {
		t.Errorf("trace: %d lines, want 2:\n%s", n, got)
	}
	s.do("trace off")
	got = s.do("step")
	if strings.Contains(got, " fib+0x8 ") {
		t.Errorf("trace off still traces:\n%s", got)
	}
	got = s.do("cycles")
	contains(t, "cycles", got, fmt.Sprintf("cycles %d, instructions %d,", s.cpu.Cycles, s.cpu.Instret), "at 133 MHz")
	got = s.do("info registers")
	contains(t, "regs", got, fmt.Sprintf("sp  %08x", s.cpu.R[4]), fmt.Sprintf("pc  0x%08x <fib+0xc>", fib+12))
	got = s.do("info symbols fil")
	contains(t, "info symbols", got, fmt.Sprintf("0x%08x    260 func  fill", p.addr(t, "fill")))
}

func (p *program) lineAt(t *testing.T, a uint32) objfile.LineEntry {
	for _, e := range p.lines {
		if e.Addr == a {
			return e
		}
	}
	t.Fatalf("no line for %#x", a)
	return objfile.LineEntry{}
}

func TestTrapAndScript(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "trap.s")
	os.WriteFile(src, []byte("\t.text\n\t.globl _start\n_start:\n\tmov 0x40000000, %r3\n\tnop\n\tld 0[%r3], %r9\n\tnop\n"), 0o644)
	img := build(t, src)
	out := &bytes.Buffer{}
	c, im := lanaitest.Load(t, img, lanai.Config{})
	d := New(c, im, out)
	quit := d.Script(strings.NewReader("# a comment\n\nstep\n  continue\nstep\nquit\nstep\n"))
	got := out.String()
	if !quit {
		t.Error("Script did not report quit")
	}
	contains(t, "script", got, "(lanai) step\n=>  0x00000004 <_start+0x4>", "(lanai) continue\n[program trapped at 0x00000008 <_start+0x8> at trap.s:6]\ntrap at pc 0x00000008",
		"unmapped address", "(lanai) step\nerror: the program has trapped", "(lanai) quit\n")
	if strings.Count(got, "(lanai) step") != 2 || strings.Contains(got, "comment") {
		t.Errorf("script ran the wrong commands:\n%s", got)
	}
	if d.Errors() != 1 {
		t.Errorf("%d errors, want 1", d.Errors())
	}
}

// Bad input gives an error message, never a panic or a silent success.
func TestBadCommands(t *testing.T) {
	p := crtAnd(t, recursionS)
	s := newSession(t, p)
	for _, cmd := range []string{
		"frob", "step 0", "step x", "step 1 2", "next -1", "until", "until nosuch", "until 0x", "break nosuch+4",
		"break 0x3", "break 0x40000000", "break nosuch.s:3", "break recursion.O1.s:999999", "delete 42", "delete x",
		"watch", "watch 1 2 3", "watch moves 0", "info", "info frobs", "regs 1", "print", "print %frob", "p 0x40000000",
		"p main+", "p main +* 3", "p 99999999999", "x/0 main", "x/q main", "x main+", "disas nosuch", "disas 0 0",
		"disas 0 1 2", "cycles 3", "history 0", "history 65", "list nosuch", "list 0x40000000", "backtrace 1",
		"trace", "trace maybe", "continue 3", "finish now", "s/3", "info line nosuch:1", "x",
	} {
		s.bad(cmd)
	}
	// Odd but valid input.
	for _, cmd := range []string{"p -4+main", "p 4+%sp", "p $fp", "p r3", "x/2x %sp-8", "info b", "info w", "help", "p flags", "p npc", "p CPUC", "break *main"} {
		s.do(cmd)
	}
	if s.d.Exec("quit") != true || s.d.Exec("q") != true {
		t.Error("quit does not quit")
	}
}

func TestInteractRepeats(t *testing.T) {
	p := crtAnd(t, recursionS)
	out := &bytes.Buffer{}
	c, im := lanaitest.Load(t, p.image, lanai.Config{})
	d := New(c, im, out)
	d.Interact(strings.NewReader("step\n\n\np pc\n"), true)
	if c.PC != 12 {
		t.Errorf("pc %#x after step and two repeats, want 0xc", c.PC)
	}
	if got := out.String(); !strings.HasPrefix(got, Prompt+"step\n=>  0x00000004") || !strings.HasSuffix(got, "pc = 0x0000000c (12) <_start+0xc>\n"+Prompt+"\n") {
		t.Errorf("transcript:\n%s", got)
	}
}

func TestEval(t *testing.T) {
	p := crtAnd(t, recursionS)
	s := newSession(t, p)
	main := p.addr(t, "main")
	s.cpu.R[5] = 0x1000
	for expr, want := range map[string]uint32{
		"main": main, "main+0x10": main + 16, "main-4": main - 4, "*main": main, "16": 16, "0x10": 16,
		"%fp-8": 0x1000 - 8, "fp": 0x1000, "$r5+main": 0x1000 + main, "-8+%fp": 0x1000 - 8,
	} {
		got, err := s.d.eval(expr)
		if err != nil || got != want {
			t.Errorf("eval(%q) = %#x, %v; want %#x", expr, got, err, want)
		}
	}
}

// Every command with odd arguments: no panic (Exec would report it as an
// internal error), whatever the state.
func TestNoInternalErrors(t *testing.T) {
	p := crtAnd(t, recursionS)
	s := newSession(t, p)
	s.d.MaxCycles = 20000
	argSets := []string{"", "0", "1", "-1", "main", "%sp", "$zz", "0xffffffff", "0xfffffffc 4", "x:1", "recursion.O1.s:1",
		"recursion.O1.s:0", "+", "&", "*", "&main", "on", "off", "65", "4096", "grid 104", "moves 1", "1 2 3", "%", "main+-+4", "ISR", "fib 0"}
	var names []string
	for _, c := range commands {
		if c.name != "quit" {
			names = append(names, c.name)
		}
	}
	names = append(names, "x/3", "x/", "x/999999", "info r", "info b", "info s", "info sp", "info line", "i w")
	for round := 0; round < 2; round++ { // the second round after the program has ended
		for _, n := range names {
			for _, a := range argSets {
				s.out.Reset()
				if s.d.Exec(n + " " + a) {
					t.Errorf("%q quit", n+" "+a)
				}
				if strings.Contains(s.out.String(), "internal error") {
					t.Errorf("%q: %s", n+" "+a, s.out.String())
				}
			}
		}
		s.d.Exec("delete")
		s.d.Exec("trace off")
		s.d.MaxCycles = 0
		s.d.Exec("continue")
	}
	if s.d.Finished() == nil {
		t.Error("the program did not finish")
	}
}

// An absolute (.set) symbol names no code: the code at its value keeps
// its routine's name, as in traces and profiles (lanai.Symbols decides
// for all three).
func TestAbsoluteSymbolNamesNoCode(t *testing.T) {
	src := "\t.text\n\t.globl _start\n_start:\n\tnop\nwork:\n\tnop\n\tbt .\n\tnop\n\t.set CONST, 8\n\t.globl CONST\n"
	_, im := lanaitest.Load(t, lanaitest.Build(t, asm.Source{Name: "abs.s", Text: []byte(src)}), lanai.Config{})
	if a, _, ok := NewProgram(im).Symbol("CONST"); !ok || a != 8 {
		t.Fatalf("CONST = %#x, %v: the test needs it in the symbol table at 8", a, ok)
	}
	p := NewProgram(im)
	p.ABI = ABINetVM
	if got := p.label(8); got != "work+0x4" {
		t.Errorf("label(8) = %q, want work+0x4", got)
	}
	if got := p.FuncName(8); got != "work" {
		t.Errorf("FuncName(8) = %q, want work", got)
	}
}
