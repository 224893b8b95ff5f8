package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/internal/ccorpus"
	"lanaiemu/objfile"
)

// build assembles and links sources into an executable file in dir.
func build(t *testing.T, dir, name string, srcs ...string) string {
	t.Helper()
	var objs []*objfile.File
	for _, s := range srcs {
		res, err := asm.AssembleFile(s, asm.Options{})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		objs = append(objs, res.Object)
	}
	exe, err := link.Link(objs, srcs, link.Options{})
	require.NoError(t, err)
	b, err := exe.WriteELF()
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// buildAsm builds a program from assembly text (no runtime).
func buildAsm(t *testing.T, dir, name, text string) string {
	t.Helper()
	src := filepath.Join(dir, name+".s")
	require.NoError(t, os.WriteFile(src, []byte(text), 0o644))
	return build(t, dir, name+".elf", src)
}

// buildC builds a corpus program with the runtime.
func buildC(t *testing.T, dir, name string) string {
	t.Helper()
	srcs, _ := filepath.Glob("../../firmware/crt/src/*.s")
	return build(t, dir, name+".elf", append(srcs, "../../fixtures/c/s/"+name+".s")...)
}

func expected(t *testing.T, name string) uint32 {
	t.Helper()
	progs, err := ccorpus.Programs("../../fixtures/c")
	require.NoError(t, err)
	for _, p := range progs {
		if p.Name == name {
			return p.Expected
		}
	}
	t.Fatalf("no corpus program %s", name)
	return 0
}

func emu(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := run(args, strings.NewReader(stdin), &out, &errb)
	return st, out.String(), errb.String()
}

const (
	trapProg  = "\t.text\n\t.globl _start\n_start:\n\tmov 0x40000000, %r3\n\tnop\n\tld 0[%r3], %r9\n\tnop\n"
	loopProg  = "\t.text\n\t.globl _start\n_start:\n1:\tbt 1b\n\tadd %r3, 1, %r3\n"
	helloProg = "\t.text\n\t.globl _start\n_start:\n\tmov 0x68, %r3\n\tst %r3, -4092[%r0]\n\tmov 0x69, %r3\n\tst %r3, -4092[%r0]\n" +
		"\tmov 0xa, %r3\n\tst %r3, -4092[%r0]\n\tmov 0x1234, %r3\n\tst %r3, -4096[%r0]\n\tbt .\n\tnop\n"
)

var summaryRE = regexp.MustCompile(`lanai-emu: (\d+) instructions, (\d+) cycles, CPI [0-9.]+, simulated [0-9.]+ [num]?s at 133 MHz; host [0-9.]+ s, [0-9.]+ MIPS`)

func TestRunExitStatusAndStats(t *testing.T) {
	dir := t.TempDir()
	img := buildC(t, dir, "recursion.O1")
	want := expected(t, "recursion")
	stats := filepath.Join(dir, "stats.json")
	st, out, errs := emu(t, "", "run", "--stats", stats, img)
	if st != int(want&0xff) {
		t.Errorf("status %d, want %d (low 8 bits of %#x)\n%s", st, want&0xff, want, errs)
	}
	if out != "" {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errs, fmt.Sprintf("exit code %#x", want)) {
		t.Errorf("summary lacks the full exit code %#x:\n%s", want, errs)
	}
	m := summaryRE.FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("no summary line:\n%s", errs)
	}
	b, err := os.ReadFile(stats)
	require.NoError(t, err)
	var js map[string]any
	require.NoError(t, json.Unmarshal(b, &js))
	for _, k := range []string{"instructions", "cycles", "sim_seconds", "host_seconds", "cpi", "mips", "exit_code", "stop"} {
		if _, ok := js[k]; !ok {
			t.Errorf("--stats lacks %q: %s", k, b)
		}
	}
	if fmt.Sprint(js["instructions"]) != m[1] || fmt.Sprint(js["cycles"]) != m[2] {
		t.Errorf("--stats instructions/cycles %v/%v, summary %s/%s", js["instructions"], js["cycles"], m[1], m[2])
	}
	if js["stop"] != "exit" || js["exit_code"] != float64(want) {
		t.Errorf("--stats stop %v exit_code %v", js["stop"], js["exit_code"])
	}
	cycles, _ := strconv.ParseFloat(m[2], 64)
	if sim := js["sim_seconds"].(float64); sim != cycles/133e6 {
		t.Errorf("sim_seconds %v, want %v", sim, cycles/133e6)
	}

	// --quiet drops the summary; the flags may follow the image.
	st, _, errs = emu(t, "", "run", img, "--quiet", "--clock", "200")
	if st != int(want&0xff) || errs != "" {
		t.Errorf("--quiet: status %d, stderr %q", st, errs)
	}
}

func TestRunConsoleAndRaw(t *testing.T) {
	dir := t.TempDir()
	img := buildAsm(t, dir, "hello", helloProg)
	st, out, _ := emu(t, "", "run", img)
	if st != 0x34 || out != "hi\n" {
		t.Errorf("status %#x, stdout %q; want 0x34, \"hi\\n\"", st, out)
	}
	// The same code as a raw binary at 0x100.
	data, _ := os.ReadFile(img)
	f, err := objfile.Read(data)
	require.NoError(t, err)
	raw := filepath.Join(dir, "hello.bin")
	os.WriteFile(raw, f.Section(".text").Data, 0o644)
	st, out, errs := emu(t, "", "run", "--load-addr", "0x100", raw)
	if st != 0x34 || out != "hi\n" {
		t.Errorf("raw: status %#x, stdout %q\n%s", st, out, errs)
	}
	// Without --raw/--load-addr a raw binary is a bad image.
	if st, _, errs := emu(t, "", "run", raw); st != exitImage || !strings.Contains(errs, "--raw") {
		t.Errorf("raw without --raw: status %d\n%s", st, errs)
	}
}

func TestRunTrap(t *testing.T) {
	dir := t.TempDir()
	img := buildAsm(t, dir, "trap", trapProg)
	st, _, errs := emu(t, "", "run", img)
	if st != exitTrap {
		t.Errorf("status %d, want %d", st, exitTrap)
	}
	for _, w := range []string{"lanai-emu: trap at pc 0x00000008 <_start+0x8>", "4-byte read at 0x40000000: unmapped address", "instruction: ", "%r3=40000000"} {
		if !strings.Contains(errs, w) {
			t.Errorf("report lacks %q:\n%s", w, errs)
		}
	}
	stats := filepath.Join(dir, "s.json")
	emu(t, "", "run", "--stats", stats, img)
	b, _ := os.ReadFile(stats)
	if !strings.Contains(string(b), `"stop": "trap"`) || !strings.Contains(string(b), `"exit_code": null`) || !strings.Contains(string(b), "unmapped") {
		t.Errorf("stats of a trap: %s", b)
	}
	// An unaligned access traps by default and not with --align=silent.
	un := buildAsm(t, dir, "unaligned", "\t.text\n\t.globl _start\n_start:\n\tmov 0x102, %r3\n\tld 0[%r3], %r9\n\tst %r0, -4096[%r0]\n\tbt .\n\tnop\n")
	if st, _, _ := emu(t, "", "run", un); st != exitTrap {
		t.Errorf("unaligned: status %d", st)
	}
	if st, _, errs := emu(t, "", "run", "--align=silent", un); st != 0 {
		t.Errorf("--align=silent: status %d\n%s", st, errs)
	}
	// An RRR word (r9 = r6 sh (r0 sub r7), a logical right shift) traps by
	// default and runs with --rrr: 0x80 >> 3 is the exit code.
	rrr := buildAsm(t, dir, "rrr", "\t.text\n\t.globl _start\n_start:\n\tmov 0x80, %r6\n\tmov 3, %r7\n\t.long 0xd498073a\n\tst %r9, -4096[%r0]\n\tbt .\n\tnop\n")
	if st, _, _ := emu(t, "", "run", rrr); st != exitTrap {
		t.Errorf("RRR without --rrr: status %d", st)
	}
	if st, _, errs := emu(t, "", "run", "--rrr", rrr); st != 0x10 {
		t.Errorf("--rrr: status %d\n%s", st, errs)
	}
}

func TestRunCycleLimit(t *testing.T) {
	dir := t.TempDir()
	img := buildAsm(t, dir, "loop", loopProg)
	st, _, errs := emu(t, "", "run", "--max-cycles", "1e5", img)
	if st != exitCycles {
		t.Errorf("status %d, want %d", st, exitCycles)
	}
	if !strings.Contains(errs, "cycle limit of 100000 cycles reached at pc 0x0000000") || !strings.Contains(errs, "--max-cycles") {
		t.Errorf("report:\n%s", errs)
	}
	if m := summaryRE.FindStringSubmatch(errs); m == nil || m[2] != "100000" {
		t.Errorf("summary:\n%s", errs)
	}
}

// TestRunCycleLimitBoardHint: a program that waits on the board's
// registers (IT0 and ISR, r0-relative as lanai9.h compiles them) names
// them at the cycle limit and points at lanai-sim; one that does not
// (loopProg) gets no such line.
func TestRunCycleLimitBoardHint(t *testing.T) {
	dir := t.TempDir()
	img := buildAsm(t, dir, "wait", `	.text
	.globl	_start
_start:
	mov	25, %r3
	st	%r3, -416[%r0]
1:	ld	-432[%r0], %r3
	sub.f	%r3, 0, %r0
	beq	1b
	nop
`)
	st, _, errs := emu(t, "", "run", "--max-cycles", "1e5", img)
	if st != exitCycles {
		t.Errorf("status %d, want %d", st, exitCycles)
	}
	for _, want := range []string{"IT0 at pc 0x00000004", "ISR at pc 0x00000008", "lanai-sim --firmware"} {
		if !strings.Contains(errs, want) {
			t.Errorf("no %q in the report:\n%s", want, errs)
		}
	}
	_, _, errs = emu(t, "", "run", "--max-cycles", "1e5", buildAsm(t, dir, "loop", loopProg))
	if strings.Contains(errs, "lanai-sim") {
		t.Errorf("a program that uses no board register got the board hint:\n%s", errs)
	}
}

func TestRunBadImageAndUsage(t *testing.T) {
	dir := t.TempDir()
	img := buildC(t, dir, "recursion.O1")
	data, _ := os.ReadFile(img)
	trunc := filepath.Join(dir, "trunc.elf")
	os.WriteFile(trunc, data[:200], 0o644)
	junk := filepath.Join(dir, "junk.elf")
	os.WriteFile(junk, []byte("\x7fELF\x01\x02\x01 this is not really an ELF file"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	for _, p := range []string{trunc, junk, empty, filepath.Join(dir, "missing.elf")} {
		if st, _, errs := emu(t, "", "run", p); st != exitImage || !strings.Contains(errs, "lanai-emu run: ") {
			t.Errorf("%s: status %d, want %d\n%s", filepath.Base(p), st, exitImage, errs)
		}
		if st, _, _ := emu(t, "", "debug", p); st != exitImage {
			t.Errorf("debug %s: status %d, want %d", filepath.Base(p), st, exitImage)
		}
	}
	// A relocatable object is not runnable.
	obj := filepath.Join(dir, "x.o")
	res, err := asm.Assemble([]asm.Source{{Name: "x.s", Text: []byte(loopProg)}}, asm.Options{})
	require.NoError(t, err)
	b, _ := res.Object.WriteELF()
	os.WriteFile(obj, b, 0o644)
	if st, _, _ := emu(t, "", "run", obj); st != exitImage {
		t.Errorf("object: status %d", st)
	}
	// An image larger than the SRAM.
	if st, _, _ := emu(t, "", "run", "--sram-size", "4K", img); st != exitImage {
		t.Errorf("small SRAM: status %d", st)
	}
	// A --stats file that cannot be written.
	if st, _, _ := emu(t, "", "run", "--stats", filepath.Join(dir, "no/such/dir.json"), img); st != exitImage {
		t.Errorf("bad --stats path: status %d", st)
	}
	for _, args := range [][]string{
		{}, {"frob"}, {"run"}, {"run", img, img}, {"run", "--frob", img}, {"run", "--max-cycles", "x", img},
		{"run", "--max-cycles", "0", img}, {"run", "--align", "maybe", img}, {"run", "--clock", "-1", img},
		{"run", "--clock", "0.0000004", img}, {"run", "--clock", "1e-9", img}, // round to 0 Hz: was 133 MHz in silence
		{"run", "--sram-size", "3", img}, {"run", "--load-addr", "zz", img}, {"debug"}, {"debug", "--max-cycles", "1.5", img},
	} {
		if st, _, _ := emu(t, "", args...); st != exitUsage {
			t.Errorf("%q: status %d, want %d", args, st, exitUsage)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"run", "--help"}, {"debug", "-h"}, {"check", "-h"}, {"dap", "-h"}} {
		st, out, errs := emu(t, "", args...)
		text := out + errs
		if st != 0 {
			t.Errorf("%q: status %d", args, st)
		}
		for _, w := range []string{"Exit status of run", "70", "71", "66", "64", "low 8 bits", "--trace", "--profile file could not be written", "standard error"} {
			if !strings.Contains(text, w) {
				t.Errorf("%q: help lacks %q", args, w)
			}
		}
	}
	// A subcommand's help gives its own flags after the tool's text.
	if _, out, errs := emu(t, "", "dap", "-h"); !strings.Contains(out+errs, "Flags of dap:") || !strings.Contains(out+errs, "-listen") {
		t.Errorf("dap -h:\n%s%s", out, errs)
	}
}

// Two runs of the same image give the same counts and the same trace.
func TestDeterminism(t *testing.T) {
	dir := t.TempDir()
	img := buildC(t, dir, "nqueens.O2")
	var stats [2]map[string]any
	var traces [2][]byte
	for i := range 2 {
		sf, tf := filepath.Join(dir, fmt.Sprint("s", i)), filepath.Join(dir, fmt.Sprint("t", i))
		st, _, errs := emu(t, "", "run", "--stats", sf, "--trace="+tf, img)
		if want := int(expected(t, "nqueens") & 0xff); st != want {
			t.Fatalf("status %d, want %d\n%s", st, want, errs)
		}
		b, _ := os.ReadFile(sf)
		json.Unmarshal(b, &stats[i])
		traces[i], _ = os.ReadFile(tf)
	}
	for _, k := range []string{"instructions", "cycles", "exit_code", "cpi", "sim_seconds"} {
		if stats[0][k] != stats[1][k] || stats[0][k] == nil {
			t.Errorf("%s differs: %v, %v", k, stats[0][k], stats[1][k])
		}
	}
	if len(traces[0]) == 0 {
		t.Error("no trace")
	}
	if d := cmp.Diff(string(traces[0]), string(traces[1])); d != "" {
		t.Errorf("traces differ (-first +second):\n%s", d)
	}
	// One line per instruction, and the traced run counts as the fast one.
	if n := bytes.Count(traces[0], []byte("\n")); fmt.Sprint(n) != fmt.Sprint(stats[0]["instructions"]) {
		t.Errorf("trace has %d lines for %v instructions", n, stats[0]["instructions"])
	}
	sf := filepath.Join(dir, "fast")
	emu(t, "", "run", "--stats", sf, img)
	var fast map[string]any
	b, _ := os.ReadFile(sf)
	json.Unmarshal(b, &fast)
	if fast["cycles"] != stats[0]["cycles"] || fast["instructions"] != stats[0]["instructions"] {
		t.Errorf("fast run %v/%v, traced %v/%v", fast["instructions"], fast["cycles"], stats[0]["instructions"], stats[0]["cycles"])
	}
	// --trace alone writes to standard error, not into the console output.
	hello := buildAsm(t, dir, "hello", helloProg)
	_, out, errs := emu(t, "", "run", "--trace", hello)
	if out != "hi\n" || !strings.Contains(errs, "_start+0x4") {
		t.Errorf("--trace: stdout %q, stderr:\n%s", out, errs)
	}
}

func TestDebugScript(t *testing.T) {
	dir := t.TempDir()
	img := buildC(t, dir, "recursion.O1")
	script := filepath.Join(dir, "s.txt")
	os.WriteFile(script, []byte("break fib\ncontinue\ndelete\nfinish\np rv\ncontinue\nstep\n"), 0o644)
	st, out, errs := emu(t, "", "debug", "--script", script, img)
	if st != exitScript { // the last step fails: the program has exited
		t.Errorf("status %d, want %d\n%s%s", st, exitScript, out, errs)
	}
	for _, w := range []string{"(lanai) break fib\nBreakpoint 1 at 0x", "(lanai) p rv\nrv = 0x00000a18 (2584)",
		fmt.Sprintf("[program exited with code %#x", expected(t, "recursion")), "(lanai) step\nerror: "} {
		if !strings.Contains(out, w) {
			t.Errorf("transcript lacks %q:\n%s", w, out)
		}
	}
	// Commands from standard input, echoed (not a terminal), until quit.
	st, out, _ = emu(t, "break main\nc\nregs\nquit\nstep\n", "debug", img)
	if st != 0 || !strings.Contains(out, "(lanai) c\nBreakpoint 1, ") || strings.Contains(out, "(lanai) step") {
		t.Errorf("stdin: status %d\n%s", st, out)
	}
	if st, _, _ := emu(t, "", "debug", "--script", filepath.Join(dir, "none"), img); st != exitImage {
		t.Errorf("missing script: status %d", st)
	}
}

// A script with a conditional breakpoint, an ignore count, a logpoint and
// a condition changed: the transcript of lanai-emu debug shows each, and
// the program exits with its code and the cycle count of a plain run; a
// bad condition makes the script's status 1.
func TestDebugScriptConditions(t *testing.T) {
	dir := t.TempDir()
	img := buildC(t, dir, "recursion.O1")
	_, plain, _ := emu(t, "", "debug", "--script", writeScript(t, dir, "plain.txt", "continue\n"), img)
	end := regexp.MustCompile(`\[program exited with code .*\]`).FindString(plain)
	script := writeScript(t, dir, "s.txt", `# conditions, hit counts and logpoints
break fib if %r6 == 2 && [%sp] != 0
ignore 1 2
log fib  fib({%r6})  from {%rca:x}
condition 2 %r6 > 16
continue
p r6
info breakpoints
condition 1 0
continue
`)
	st, out, errs := emu(t, "", "debug", "--script", script, img)
	if st != 0 || end == "" {
		t.Fatalf("status %d, plain run's end %q\n%s%s", st, end, out, errs)
	}
	for _, w := range []string{"Breakpoint 1 at 0x", " if %r6 == 2 && [%sp] != 0\n", "Will ignore next 2 crossings of breakpoint 1 (it stops from hit 3 on)",
		"Logpoint 2 at 0x", "Logpoint 2 logs only if %r6 > 16.", "\nfib(18)  from 0x", "\nfib(17)  from 0x", "Breakpoint 1, 0x",
		"(lanai) p r6\nr6 = 0x00000002 (2)", "\tstop only if %r6 == 2 && [%sp] != 0\n", "\tonly when the hit count is > 2\n", "2    logpoint    0x", end} {
		if !strings.Contains(out, w) {
			t.Errorf("transcript lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "fib(16)") {
		t.Errorf("logged a call its condition excludes:\n%s", out)
	}
	bad := writeScript(t, dir, "bad.txt", "break fib if %r6 ==\ncontinue\n")
	if st, out, _ := emu(t, "", "debug", "--script", bad, img); st != exitScript || !strings.Contains(out, "error: break: condition: bad expression") || !strings.Contains(out, end) {
		t.Errorf("a bad condition: status %d\n%s", st, out)
	}
}

// writeScript writes a debugger script into dir.
func writeScript(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
