package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
	"github.com/stretchr/testify/require"

	"lanaiemu/dap/daptest"
	"lanaiemu/lanai/lanaitest"
	"lanaiemu/objfile"
)

// buildLines builds an executable with lanai-as's line table.
func buildLines(t *testing.T, dir, name string, srcs ...string) (string, *objfile.File) {
	t.Helper()
	b := lanaitest.BuildFiles(t, srcs...)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	f, err := objfile.Read(b)
	require.NoError(t, err)
	return path, f
}

// symbol gives a symbol's value from the ELF.
func symbol(t *testing.T, f *objfile.File, name string) uint32 {
	t.Helper()
	for _, s := range f.Symbols {
		if s.Name == name && !s.IsUndefined() {
			return s.Value
		}
	}
	t.Fatalf("no symbol %s", name)
	return 0
}

// startDAP runs "lanai-emu dap" on pipes and initializes it.
func startDAP(t *testing.T) (*daptest.Client, chan error) {
	t.Helper()
	c, done := daptest.Pipe(func(r io.Reader, w io.Writer) error {
		if st := run([]string{"dap"}, r, w, io.Discard); st != 0 {
			return fmt.Errorf("status %d", st)
		}
		return nil
	})
	r, err := c.Do("initialize", map[string]any{"adapterID": "lanai", "linesStartAt1": true})
	require.NoError(t, err)
	caps := r.(*godap.InitializeResponse).Body
	if !caps.SupportsDataBreakpoints || !caps.SupportsInstructionBreakpoints || !caps.SupportsReadMemoryRequest || !caps.SupportsDisassembleRequest ||
		!caps.SupportsConditionalBreakpoints || !caps.SupportsHitConditionalBreakpoints || !caps.SupportsLogPoints {
		t.Errorf("capabilities %+v", caps)
	}
	return c, done
}

// stopped waits for the stopped event.
func stopped(t *testing.T, c *daptest.Client) godap.StoppedEventBody {
	t.Helper()
	e, err := c.Event("stopped", nil)
	require.NoError(t, err)
	return e.(*godap.StoppedEvent).Body
}

// frames gives the names, source base names and lines of a thread's stack.
func frames(t *testing.T, c *daptest.Client, thread int) []godap.StackFrame {
	t.Helper()
	return daptest.Must[*godap.StackTraceResponse](t, c, "stackTrace", map[string]any{"threadId": thread}).Body.StackFrames
}

// The adapter driven as an editor drives it, on the corpus' recursion
// program: breakpoints by source line (the .s file), by function, by
// instruction and on data; the stack from clang's frames; registers and
// globals; memory read and written; disassembly; step in, over and out;
// console output; the exit code.
func TestDAPCore(t *testing.T) {
	dir := t.TempDir()
	crt, _ := filepath.Glob("../../firmware/crt/src/*.s")
	src, _ := filepath.Abs("../../fixtures/c/s/recursion.O1.s")
	img, f := buildLines(t, dir, "rec.elf", append(crt, src)...)
	fib, main, moves := symbol(t, f, "fib"), symbol(t, f, "main"), symbol(t, f, "moves")
	lines, _ := f.Lines()
	fibLine := 0
	for _, e := range lines {
		if e.Addr == fib+8 {
			fibLine = e.Line
		}
	}
	c, done := startDAP(t)
	daptest.Must[*godap.LaunchResponse](t, c, "launch", map[string]any{"program": img})
	if _, err := c.Event("initialized", nil); err != nil {
		t.Fatal(err)
	}
	bps := daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": map[string]any{"path": src},
		"breakpoints": []map[string]any{{"line": fibLine}, {"line": 999999}}}).Body.Breakpoints
	if len(bps) != 2 || !bps[0].Verified || bps[0].Line != fibLine || bps[0].InstructionReference != fmt.Sprintf("0x%08x", fib+8) || bps[1].Verified {
		t.Fatalf("setBreakpoints: %+v", bps)
	}
	ins := daptest.Must[*godap.SetInstructionBreakpointsResponse](t, c, "setInstructionBreakpoints", map[string]any{
		"breakpoints": []map[string]any{{"instructionReference": fmt.Sprintf("0x%x", main)}}}).Body.Breakpoints
	if len(ins) != 1 || !ins[0].Verified {
		t.Fatalf("setInstructionBreakpoints: %+v", ins)
	}
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)

	// main first: an instruction breakpoint.
	st := stopped(t, c)
	t.Logf("stop at main: %s", st.Description)
	if st.Reason != "instruction breakpoint" || st.HitBreakpointIds[0] != ins[0].Id || !strings.Contains(st.Description, "at cycle ") {
		t.Errorf("stop at main: %+v", st)
	}
	regs := daptest.Must[*godap.ScopesResponse](t, c, "scopes", map[string]any{"frameId": frames(t, c, 1)[0].Id}).Body.Scopes
	vars := daptest.Must[*godap.VariablesResponse](t, c, "variables", map[string]any{"variablesReference": regs[0].VariablesReference}).Body.Variables
	reg := map[string]string{}
	for _, v := range vars {
		reg[v.Name] = v.Value
	}
	if reg["pc"] != fmt.Sprintf("0x%08x", main) || reg["r0"] != "0x00000000" || reg["r1"] != "0xffffffff" || reg["npc"] != fmt.Sprintf("0x%08x", main+4) {
		t.Errorf("registers at main: %v", reg)
	}
	fs := frames(t, c, 1)
	if len(fs) != 2 || fs[0].Name != "main" || fs[1].Name != "_start" {
		t.Errorf("stack at main: %+v", fs)
	}

	// The source breakpoint in fib: the stack is fib, main, _start, with
	// fib's frame at the breakpoint's line of the .s file.
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	st = stopped(t, c)
	fs = frames(t, c, 1)
	if st.Reason != "breakpoint" || st.HitBreakpointIds[0] != bps[0].Id || len(fs) < 3 || fs[0].Name != "fib" || fs[0].Line != fibLine ||
		fs[0].Source == nil || fs[0].Source.Path != src || fs[1].Name != "main" || fs[len(fs)-1].Name != "_start" {
		t.Errorf("stop in fib: %+v\n%+v", st, fs)
	}
	// Step out: back in fib's caller (fib, recursively, or main).
	daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{}})
	daptest.Must[*godap.SetInstructionBreakpointsResponse](t, c, "setInstructionBreakpoints", map[string]any{"breakpoints": []any{}})
	depth := len(fs)
	daptest.Must[*godap.StepOutResponse](t, c, "stepOut", map[string]any{"threadId": 1})
	if st = stopped(t, c); st.Reason != "step" {
		t.Errorf("stepOut: %+v", st)
	}
	if fs = frames(t, c, 1); len(fs) != depth-1 {
		t.Errorf("after stepOut: %d frames, want %d: %+v", len(fs), depth-1, fs)
	}
	// Step over and into, by instruction.
	pc0 := fs[0].InstructionPointerReference
	daptest.Must[*godap.NextResponse](t, c, "next", map[string]any{"threadId": 1, "granularity": "instruction"})
	stopped(t, c)
	if fs = frames(t, c, 1); fs[0].InstructionPointerReference == pc0 {
		t.Errorf("next did not move: %+v", fs[0])
	}

	// A data breakpoint on the global moves: the first store of hanoi.
	info := daptest.Must[*godap.DataBreakpointInfoResponse](t, c, "dataBreakpointInfo", map[string]any{"name": "moves"}).Body
	dbs := daptest.Must[*godap.SetDataBreakpointsResponse](t, c, "setDataBreakpoints", map[string]any{"breakpoints": []map[string]any{{"dataId": info.DataId}}}).Body.Breakpoints
	if len(dbs) != 1 || !dbs[0].Verified {
		t.Fatalf("setDataBreakpoints %+v (info %+v)", dbs, info)
	}
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	st = stopped(t, c)
	if fs = frames(t, c, 1); st.Reason != "data breakpoint" || fs[0].Name != "hanoi" {
		t.Errorf("watchpoint: %+v %+v", st, fs[0])
	}
	mem := daptest.Must[*godap.ReadMemoryResponse](t, c, "readMemory", map[string]any{"memoryReference": fmt.Sprintf("0x%x", moves), "count": 4}).Body
	if b, _ := base64.StdEncoding.DecodeString(mem.Data); string(b) != "\x00\x00\x00\x01" {
		t.Errorf("moves after the first store: % x", b)
	}
	ev := daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "moves", "context": "watch"}).Body
	if !strings.HasSuffix(ev.Result, "= 0x00000001") {
		t.Errorf("evaluate moves: %q", ev.Result)
	}
	ev = daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "info line", "context": "repl"}).Body
	if !strings.Contains(ev.Result, "recursion.O1.s:") {
		t.Errorf("a debugger command in the console: %q", ev.Result)
	}
	// writeMemory, read back; a register set.
	daptest.Must[*godap.WriteMemoryResponse](t, c, "writeMemory", map[string]any{"memoryReference": fmt.Sprintf("0x%x", moves), "data": base64.StdEncoding.EncodeToString([]byte{0, 0, 0, 1})})
	dis := daptest.Must[*godap.DisassembleResponse](t, c, "disassemble", map[string]any{"memoryReference": fmt.Sprintf("0x%x", fib), "instructionCount": 2}).Body.Instructions
	if len(dis) != 2 || dis[0].Symbol != "fib" || !strings.HasPrefix(dis[0].Instruction, "st      %fp, [--%sp]") || dis[0].Line == 0 {
		t.Errorf("disassemble: %+v", dis)
	}

	// Clear the watchpoint; run to the exit: the program's exit code.
	daptest.Must[*godap.SetDataBreakpointsResponse](t, c, "setDataBreakpoints", map[string]any{"breakpoints": []any{}})
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	e, err := c.Event("exited", nil)
	require.NoError(t, err)
	if code := e.(*godap.ExitedEvent).Body.ExitCode; uint32(code) != expected(t, "recursion") {
		t.Errorf("exit code %#x, want %#x", code, expected(t, "recursion"))
	}
	if _, err := c.Event("terminated", nil); err != nil {
		t.Fatal(err)
	}
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// Console output reaches the editor as output events; pause stops a
// program that loops; a bad launch is refused with a message.
func TestDAPConsolePauseAndErrors(t *testing.T) {
	dir := t.TempDir()
	c, done := startDAP(t)
	if _, err := c.Do("launch", map[string]any{"program": filepath.Join(dir, "none.elf")}); err == nil {
		t.Error("launching a missing image succeeded")
	}
	if _, err := c.Do("stackTrace", map[string]any{"threadId": 1}); err == nil {
		t.Error("stackTrace before launch succeeded")
	}
	img := buildAsm(t, dir, "hello", helloProg)
	daptest.Must[*godap.LaunchResponse](t, c, "launch", map[string]any{"program": img, "stopOnEntry": true})
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	if st := stopped(t, c); st.Reason != "entry" {
		t.Errorf("stopOnEntry: %+v", st)
	}
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	var out strings.Builder
	e, err := c.Event("exited", func(e godap.EventMessage) {
		if o, ok := e.(*godap.OutputEvent); ok && o.Body.Category == "stdout" {
			out.WriteString(o.Body.Output)
		}
	})
	require.NoError(t, err)
	if out.String() != "hi\n" || e.(*godap.ExitedEvent).Body.ExitCode != 0x1234 {
		t.Errorf("console %q, exit %+v", out.String(), e)
	}
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	<-done

	// A trap stops with reason exception (the state can be looked at);
	// continuing then ends the session with 70, lanai-emu run's status.
	c, done = startDAP(t)
	img = buildAsm(t, dir, "trap", trapProg)
	daptest.Must[*godap.LaunchResponse](t, c, "launch", map[string]any{"program": img})
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	if st := stopped(t, c); st.Reason != "exception" || !strings.Contains(st.Text, "unmapped") {
		t.Errorf("trap: %+v", st)
	}
	c.Send("continue", map[string]any{"threadId": 1})
	if e, err := c.Event("exited", nil); err != nil || e.(*godap.ExitedEvent).Body.ExitCode != 70 {
		t.Errorf("after the trap: %v %v", e, err)
	}
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	<-done

	c, done = startDAP(t)
	img = buildAsm(t, dir, "loop", loopProg)
	daptest.Must[*godap.LaunchResponse](t, c, "launch", map[string]any{"program": img})
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	daptest.Must[*godap.PauseResponse](t, c, "pause", map[string]any{"threadId": 1})
	if st := stopped(t, c); st.Reason != "pause" {
		t.Errorf("pause: %+v", st)
	}
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	<-done
}

// A breakpoint in a .c file: the program built from clang -g output
// (fixtures/c/g) stops at the C line, the stack shows the C source, and
// "next" steps by C line.
func TestDAPCSource(t *testing.T) {
	dir := t.TempDir()
	crt, _ := filepath.Glob("../../firmware/crt/src/*.s")
	img, _ := buildLines(t, dir, "rec.elf", append(crt, "../../fixtures/c/g/recursion.O1.s")...)
	csrc, _ := filepath.Abs("../../fixtures/c/recursion.c")
	text, _ := os.ReadFile(csrc)
	line := 0
	for i, l := range strings.Split(string(text), "\n") {
		if strings.TrimSpace(l) == "moves++;" {
			line = i + 1
		}
	}
	c, done := startDAP(t)
	daptest.Must[*godap.LaunchResponse](t, c, "launch", map[string]any{"program": img, "sourceDirs": []string{filepath.Dir(csrc)}})
	bps := daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": map[string]any{"path": csrc},
		"breakpoints": []map[string]any{{"line": line}}}).Body.Breakpoints
	if len(bps) != 1 || !bps[0].Verified || bps[0].Line != line {
		t.Fatalf("setBreakpoints recursion.c:%d: %+v", line, bps)
	}
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	st := stopped(t, c)
	fs := frames(t, c, 1)
	if st.Reason != "breakpoint" || fs[0].Name != "hanoi" || fs[0].Line != line || fs[0].Source == nil || fs[0].Source.Path != csrc ||
		fs[1].Source == nil || fs[1].Source.Path != csrc || fs[len(fs)-1].Name != "_start" {
		t.Fatalf("stop at recursion.c:%d: %+v\n%+v", line, st, fs)
	}
	daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": map[string]any{"path": csrc}, "breakpoints": []any{}})
	daptest.Must[*godap.NextResponse](t, c, "next", map[string]any{"threadId": 1})
	stopped(t, c)
	if fs = frames(t, c, 1); fs[0].Line == line || fs[0].Name != "hanoi" || fs[0].Source.Path != csrc {
		t.Errorf("next by C line from %d: %+v", line, fs[0])
	}
	t.Logf("stopped at recursion.c:%d in %s, next went to line %d", line, "hanoi", fs[0].Line)
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	<-done
}

// stepBack and reverseContinue: the program is run again from its start
// to the instruction before, or to the last breakpoint hit before.
func TestDAPReverse(t *testing.T) {
	dir := t.TempDir()
	crt, _ := filepath.Glob("../../firmware/crt/src/*.s")
	img, _ := buildLines(t, dir, "rec.elf", append(crt, "../../fixtures/c/s/recursion.O1.s")...)
	c, done := startDAP(t)
	daptest.Must[*godap.LaunchResponse](t, c, "launch", map[string]any{"program": img})
	daptest.Must[*godap.SetFunctionBreakpointsResponse](t, c, "setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{{"name": "fib"}}})
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	cycles := func() string {
		return daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "cycles", "context": "repl"}).Body.Result
	}
	stopped(t, c)
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	stopped(t, c)
	atHit := cycles()
	pcHit := frames(t, c, 1)[0].InstructionPointerReference
	daptest.Must[*godap.StepInResponse](t, c, "stepIn", map[string]any{"threadId": 1, "granularity": "instruction"})
	stopped(t, c)
	before := cycles()
	daptest.Must[*godap.StepInResponse](t, c, "stepIn", map[string]any{"threadId": 1, "granularity": "instruction"})
	stopped(t, c)
	daptest.Must[*godap.StepBackResponse](t, c, "stepBack", map[string]any{"threadId": 1})
	if st := stopped(t, c); st.Reason != "step" || cycles() != before {
		t.Errorf("stepBack: %+v, %s, want %s", st, cycles(), before)
	}
	daptest.Must[*godap.ReverseContinueResponse](t, c, "reverseContinue", map[string]any{"threadId": 1})
	st := stopped(t, c)
	if st.Reason != "function breakpoint" || cycles() != atHit || frames(t, c, 1)[0].InstructionPointerReference != pcHit {
		t.Errorf("reverseContinue: %+v, %s, want %s at %s", st, cycles(), atHit, pcHit)
	}
	t.Logf("back at the second hit of fib: %s", atHit)
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	<-done
}

// --listen serves one client over TCP.
func TestDAPListen(t *testing.T) {
	dir := t.TempDir()
	img := buildAsm(t, dir, "hello", helloProg)
	c, done, stderr := daptest.Listen(t, func(args []string, stderr io.Writer) int {
		return run(args, strings.NewReader(""), io.Discard, stderr)
	})
	daptest.Must[*godap.InitializeResponse](t, c, "initialize", map[string]any{"adapterID": "lanai"})
	daptest.Must[*godap.LaunchResponse](t, c, "launch", map[string]any{"program": img})
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	e, err := c.Event("exited", nil)
	if err != nil || e.(*godap.ExitedEvent).Body.ExitCode != 0x1234 {
		t.Fatalf("exited %v %v", e, err)
	}
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	if st := <-done; st != 0 {
		t.Errorf("status %d: %s", st, stderr.String())
	}
	if st := run([]string{"dap", "--listen", "256.0.0.1:99999"}, strings.NewReader(""), io.Discard, io.Discard); st != 1 {
		t.Errorf("a bad address: status %d", st)
	}
	if st := run([]string{"dap", "extra"}, strings.NewReader(""), io.Discard, io.Discard); st != exitUsage {
		t.Errorf("an argument: status %d", st)
	}
}

// launchRecursion starts the adapter on the corpus' recursion program
// with lanai-as's line table, launched and initialized: the client, the
// source of its breakpoints, fib's address and line.
func launchRecursion(t *testing.T) (c *daptest.Client, done chan error, source map[string]any, fib uint32, fibLine int) {
	t.Helper()
	crt, _ := filepath.Glob("../../firmware/crt/src/*.s")
	src, _ := filepath.Abs("../../fixtures/c/s/recursion.O1.s")
	img, f := buildLines(t, t.TempDir(), "rec.elf", append(crt, src)...)
	fib = symbol(t, f, "fib")
	lines, _ := f.Lines()
	for _, e := range lines {
		if e.Addr == fib {
			fibLine = e.Line
		}
	}
	c, done = startDAP(t)
	daptest.Must[*godap.LaunchResponse](t, c, "launch", map[string]any{"program": img})
	if _, err := c.Event("initialized", nil); err != nil {
		t.Fatal(err)
	}
	return c, done, map[string]any{"path": src}, fib, fibLine
}

// Conditions, hit conditions and logpoints through the adapter: a
// source breakpoint stops at the second call of fib with 3; a logpoint
// on the same line prints the calls with 16 or more as output events and
// does not stop; bad expressions and hit conditions come back unverified
// with the reason; function and instruction breakpoints whose condition
// or hit condition never passes do not stop; a condition that cannot be
// evaluated stops the run and says why.
func TestDAPConditions(t *testing.T) {
	c, done, source, fib, fibLine := launchRecursion(t) // the capabilities include conditions, hit conditions and logpoints
	bps := daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": source, "breakpoints": []map[string]any{
		{"line": fibLine, "condition": "%r6 == 3", "hitCondition": "2"},
		{"line": fibLine, "condition": "%r6 >= 16", "logMessage": "fib {%r6} sp {%sp:x}"},
		{"line": fibLine, "condition": "%r6 =="},
		{"line": fibLine, "hitCondition": "sometimes"},
		{"line": fibLine, "logMessage": "{nosuch}"},
	}}).Body.Breakpoints
	if len(bps) != 5 || !bps[0].Verified || !bps[1].Verified || bps[2].Verified || bps[3].Verified || bps[4].Verified ||
		!strings.Contains(bps[2].Message, "bad expression") || !strings.Contains(bps[3].Message, "bad hit condition") || !strings.Contains(bps[4].Message, `no symbol "nosuch"`) {
		t.Fatalf("setBreakpoints: %+v", bps)
	}
	fbs := daptest.Must[*godap.SetFunctionBreakpointsResponse](t, c, "setFunctionBreakpoints", map[string]any{"breakpoints": []map[string]any{
		{"name": "fib", "condition": "0"}, {"name": "main", "condition": "%r6 == %r6", "hitCondition": "% 2"}, {"name": "hanoi", "condition": "(("},
	}}).Body.Breakpoints
	if len(fbs) != 3 || !fbs[0].Verified || !fbs[1].Verified || fbs[2].Verified {
		t.Fatalf("setFunctionBreakpoints: %+v", fbs)
	}
	ins := daptest.Must[*godap.SetInstructionBreakpointsResponse](t, c, "setInstructionBreakpoints", map[string]any{"breakpoints": []map[string]any{
		{"instructionReference": fmt.Sprintf("0x%x", fib), "condition": "[%sp] == 0x12345678", "hitCondition": ">= 1"},
	}}).Body.Breakpoints
	if len(ins) != 1 || !ins[0].Verified {
		t.Fatalf("setInstructionBreakpoints: %+v", ins)
	}
	// Data breakpoints take conditions and hit conditions (they were
	// answered unverified): one that never holds does not stop (the stop
	// below is the source breakpoint's); bad ones are unverified with the
	// reason.
	info := daptest.Must[*godap.DataBreakpointInfoResponse](t, c, "dataBreakpointInfo", map[string]any{"name": "moves"}).Body
	dbs := daptest.Must[*godap.SetDataBreakpointsResponse](t, c, "setDataBreakpoints", map[string]any{"breakpoints": []map[string]any{
		{"dataId": info.DataId, "condition": "[moves] == 0x7fffffff"}, {"dataId": info.DataId, "condition": "(("}, {"dataId": info.DataId, "hitCondition": "sometimes"}}}).Body.Breakpoints
	if len(dbs) != 3 || !dbs[0].Verified || dbs[1].Verified || dbs[2].Verified || !strings.Contains(dbs[1].Message, "bad expression") || !strings.Contains(dbs[2].Message, "bad hit condition") {
		t.Errorf("data breakpoints with conditions: %+v", dbs)
	}
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	var out strings.Builder
	e, err := c.Event("stopped", func(e godap.EventMessage) {
		if o, ok := e.(*godap.OutputEvent); ok {
			out.WriteString(o.Body.Output)
		}
	})
	require.NoError(t, err)
	st := e.(*godap.StoppedEvent).Body
	r6 := daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "%r6"}).Body.Result
	cond := daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "%r6 == 3 && [%sp] == [%sp]", "context": "watch"}).Body.Result
	if st.Reason != "breakpoint" || len(st.HitBreakpointIds) != 1 || st.HitBreakpointIds[0] != bps[0].Id || r6 != "0x00000003 (3)" || cond != "0x00000001 (1)" {
		t.Errorf("stop: %+v, r6 %s, the condition evaluated: %s", st, r6, cond)
	}
	logged := regexp.MustCompile(`(?m)^fib (\d+) sp 0x[0-9a-f]{8}$`).FindAllStringSubmatch(out.String(), -1)
	if len(logged) < 3 || logged[0][1] != "18" || logged[1][1] != "17" || logged[2][1] != "16" {
		t.Errorf("logpoint output before the stop: %q", out.String())
	}
	for _, l := range logged {
		if n, _ := strconv.Atoi(l[1]); n < 16 {
			t.Errorf("logged fib %d: its condition is %%r6 >= 16", n)
		}
	}
	t.Logf("stop: %s; %d lines logged before it", st.Description, len(logged))

	// A condition that reads a word outside SRAM stops with the reason.
	daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": source, "breakpoints": []map[string]any{
		{"line": fibLine, "condition": "[%r6 + 0x40000000] == 1"}}})
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	if st = stopped(t, c); st.Reason != "breakpoint" || !strings.Contains(st.Text, "cannot be evaluated") {
		t.Errorf("a condition failing at run time: %+v", st)
	}
	// Without breakpoints; a data breakpoint on moves with a condition
	// and a hit condition: the third store that leaves it at 5 or more,
	// 7 (hanoi counts its moves from 0, after fib).
	daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": source, "breakpoints": []any{}})
	daptest.Must[*godap.SetFunctionBreakpointsResponse](t, c, "setFunctionBreakpoints", map[string]any{"breakpoints": []any{}})
	daptest.Must[*godap.SetInstructionBreakpointsResponse](t, c, "setInstructionBreakpoints", map[string]any{"breakpoints": []any{}})
	dbs = daptest.Must[*godap.SetDataBreakpointsResponse](t, c, "setDataBreakpoints", map[string]any{"breakpoints": []map[string]any{
		{"dataId": info.DataId, "condition": "[moves] >= 5", "hitCondition": "3"}}}).Body.Breakpoints
	if len(dbs) != 1 || !dbs[0].Verified {
		t.Fatalf("a data breakpoint with a condition and a hit condition: %+v", dbs)
	}
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	st = stopped(t, c)
	if moves := daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": "[moves]"}).Body.Result; st.Reason != "data breakpoint" || len(st.HitBreakpointIds) != 1 || st.HitBreakpointIds[0] != dbs[0].Id || moves != "0x00000007 (7)" {
		t.Errorf("the qualified data breakpoint: stop %+v, moves %s", st, moves)
	}
	// To the exit.
	daptest.Must[*godap.SetDataBreakpointsResponse](t, c, "setDataBreakpoints", map[string]any{"breakpoints": []any{}})
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	if e, err := c.Event("exited", nil); err != nil || uint32(e.(*godap.ExitedEvent).Body.ExitCode) != expected(t, "recursion") {
		t.Errorf("exited %v %v", e, err)
	}
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// An editor sends a file's every breakpoint again when one is added,
// edited or removed: a breakpoint still there keeps its id and its hit
// count (its hit condition counts on), an edited one takes its new
// qualifiers, a removed one is gone, also the one the target stopped at.
func TestDAPBreakpointsKept(t *testing.T) {
	line := func(cond, hits string) map[string]any {
		return map[string]any{"line": 0, "condition": cond, "hitCondition": hits}
	}
	// The oracle: where the third call of fib with 3 stops.
	c, done, source, _, fibLine := launchRecursion(t)
	set := func(bs ...map[string]any) []godap.Breakpoint {
		t.Helper()
		for _, b := range bs {
			if b["line"] == 0 {
				b["line"] = fibLine
			}
		}
		return daptest.Must[*godap.SetBreakpointsResponse](t, c, "setBreakpoints", map[string]any{"source": source, "breakpoints": bs}).Body.Breakpoints
	}
	repl := func(cmd string) string {
		return daptest.Must[*godap.EvaluateResponse](t, c, "evaluate", map[string]any{"expression": cmd, "context": "repl"}).Body.Result
	}
	set(line("%r6 == 3", "3"))
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	stopped(t, c)
	third := repl("cycles")
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	require.NoError(t, <-done)

	c, done, source, _, fibLine = launchRecursion(t)
	first := set(line("%r6 == 3", ""))
	daptest.Must[*godap.ConfigurationDoneResponse](t, c, "configurationDone", nil)
	if st := stopped(t, c); len(st.HitBreakpointIds) != 1 || st.HitBreakpointIds[0] != first[0].Id {
		t.Fatalf("stop %+v, want breakpoint %d", st, first[0].Id)
	}
	// A second breakpoint added in the file, the first given a hit
	// condition: it counts on from its first hit.
	again := set(line("%r6 == 3", "3"), line("%r6 == 1000", ""))
	if again[0].Id != first[0].Id || !again[0].Verified || !again[1].Verified || again[1].Id == first[0].Id {
		t.Errorf("set again: %+v, want the first breakpoint's id %d kept", again, first[0].Id)
	}
	info := repl("info breakpoints")
	if !regexp.MustCompile(`(?m)^\d+ +breakpoint +0x[0-9a-f]{8} +1  `).MatchString(info) || strings.Count(info, "breakpoint  0x") != 2 {
		t.Errorf("info breakpoints after the breakpoints were set again (want the first's hit kept):\n%s", info)
	}
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	if st := stopped(t, c); len(st.HitBreakpointIds) != 1 || st.HitBreakpointIds[0] != first[0].Id || repl("cycles") != third {
		t.Errorf("stop %+v at %q, want breakpoint %d at the third call of fib(3): %q", st, repl("cycles"), first[0].Id, third)
	}
	// Edited, then removed while stopped at it: nothing of it stays.
	if edited := set(line("%r6 == 2", "")); edited[0].Id != first[0].Id || !strings.HasSuffix(repl("info breakpoints"), "\tstop only if %r6 == 2") ||
		strings.Count(repl("info breakpoints"), "breakpoint  0x") != 1 {
		t.Errorf("edited: %+v\n%s", edited, repl("info breakpoints"))
	}
	if bad := set(line("%r6 ==", "")); bad[0].Verified || !strings.Contains(repl("info breakpoints"), "No breakpoints") {
		t.Errorf("a bad edit: %+v\n%s", bad, repl("info breakpoints"))
	}
	set()
	daptest.Must[*godap.ContinueResponse](t, c, "continue", map[string]any{"threadId": 1})
	if e, err := c.Event("exited", nil); err != nil || uint32(e.(*godap.ExitedEvent).Body.ExitCode) != expected(t, "recursion") {
		t.Errorf("exited %v %v", e, err)
	}
	daptest.Must[*godap.DisconnectResponse](t, c, "disconnect", nil)
	require.NoError(t, <-done)
}
