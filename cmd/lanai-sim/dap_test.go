package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	godap "github.com/google/go-dap"

	"lanaiemu/dap/daptest"
	"lanaiemu/debugger"
	"lanaiemu/sim"
)

// lanai-sim dap: the pingpong scenario's two boards are threads; a
// breakpoint by line in pingpong.s stops the ping node after its first
// reply with both boards at one cycle; the run goes on to its end with
// lanai-sim's exit status.
func TestDAPCommand(t *testing.T) {
	c, do, finish := dapSession(t)
	src, _ := filepath.Abs("../../fixtures/firmware/pingpong.s")
	text, _ := os.ReadFile(src)
	line := 0
	for i, l := range strings.Split(string(text), "\n") {
		if strings.Contains(l, "! re-arm") && line == 0 {
			line = i + 1
		}
	}
	scen, _ := filepath.Abs("../../fixtures/scenarios/pingpong.json")
	do("initialize", map[string]any{"adapterID": "lanai-sim"})
	do("launch", map[string]any{"scenario": scen})
	bps := do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []map[string]any{{"line": line}}}).(*godap.SetBreakpointsResponse).Body.Breakpoints
	if len(bps) != 1 || !bps[0].Verified || bps[0].Line != line {
		t.Fatalf("setBreakpoints pingpong.s:%d: %+v", line, bps)
	}
	do("configurationDone", nil)
	e, err := c.Event("stopped", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := e.(*godap.StoppedEvent).Body
	if st.Reason != "breakpoint" || st.ThreadId != 1 || !strings.Contains(st.Description, "on node 0 at ") {
		t.Errorf("stop: %+v", st)
	}
	fs := do("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse).Body.StackFrames
	if len(fs) == 0 || fs[0].Line != line || fs[0].Source == nil || fs[0].Source.Path != src {
		t.Errorf("stack: %+v", fs)
	}
	// Both nodes run pingpong.s, each in its own SRAM: references name
	// the node (TestDAPOneProgramReferences, TestDAPTwoProgramsReferences).
	if len(fs) > 0 && !regexp.MustCompile(`^node0:0x[0-9a-f]{8}$`).MatchString(fs[0].InstructionPointerReference) {
		t.Errorf("instructionPointerReference %q, want node 0's, node0:0x...", fs[0].InstructionPointerReference)
	}
	cyc := regexp.MustCompile(`^cycles (\d+),`)
	var cycles []string
	for th := 1; th <= 2; th++ {
		f := do("stackTrace", map[string]any{"threadId": th}).(*godap.StackTraceResponse).Body.StackFrames
		r := do("evaluate", map[string]any{"expression": "cycles", "context": "repl", "frameId": f[0].Id}).(*godap.EvaluateResponse).Body.Result
		m := cyc.FindStringSubmatch(r)
		if m == nil {
			t.Fatalf("cycles: %q", r)
		}
		cycles = append(cycles, m[1])
	}
	if cycles[0] != cycles[1] || !strings.Contains(st.Description, "(cycle "+cycles[0]+")") {
		t.Errorf("the boards' cycles %v; stop %q", cycles, st.Description)
	}
	do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{}})
	do("continue", map[string]any{"threadId": 1})
	var output strings.Builder
	x, err := c.Event("exited", func(e godap.EventMessage) {
		if o, ok := e.(*godap.OutputEvent); ok {
			output.WriteString(o.Body.Output)
		}
	})
	if err != nil || x.(*godap.ExitedEvent).Body.ExitCode != 0 {
		t.Fatalf("exited %v %v", x, err)
	}
	// A normal end is said once, as such, with how each node stopped; it
	// is no error (it was: "error: the run is over (every node has
	// stopped)").
	end := regexp.MustCompile(`\[node 0 exited with code 0x[0-9a-f]+ at ([0-9.]+ us)\]\n\[the run is over at ([0-9.]+ us): node 0 exited \d+, node 1 exited 0\]\n`)
	if m := end.FindStringSubmatch(output.String()); m == nil || m[1] != m[2] || strings.Contains(output.String(), "error") {
		t.Errorf("the end's output:\n%s", output.String())
	} else if plain := debugger.FormatTime(sim.Time(plainStats(t, scen, filepath.Join(t.TempDir(), "s.json")).SimTimePS)); m[2] != plain {
		t.Errorf("the adapter's end %s, the plain run's %s", m[2], plain) // the instant of the last exit (docs/timeline.md, "The end of a run")
	}
	finish()
	t.Logf("stopped at pingpong.s:%d on node 0 at cycle %s (both boards)", line, cycles[0])
}

// lanai-sim dap sends the nodes' consoles to the editor's console (output
// events of category stdout), as lanai-sim prints them.
func TestDAPConsole(t *testing.T) {
	c, do, finish := dapSession(t)
	asm, _ := filepath.Abs("../../fixtures/firmware/console.s")
	scen := filepath.Join(t.TempDir(), "console.json")
	os.WriteFile(scen, []byte(`{"topology": {"kind": "b2b"}, "time": "1ms", "defaults": {"asm": ["`+asm+`"]},
		"nodes": [{"params": {"wait": 2000}}, {"params": {"id": 1, "wait": 100}}]}`), 0o644)
	do("initialize", map[string]any{"adapterID": "lanai-sim"})
	do("launch", map[string]any{"scenario": scen})
	do("configurationDone", nil)
	var console strings.Builder
	if _, err := c.Event("exited", func(e godap.EventMessage) {
		if o, ok := e.(*godap.OutputEvent); ok && o.Body.Category == "stdout" {
			console.WriteString(o.Body.Output)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if want := "node 0: A0\nnode 1: A1\nnode 1: B1\nnode 0: B0\nnode 1: C1\nnode 0: C0\n"; console.String() != want {
		t.Errorf("console:\n%s\nwant:\n%s", console.String(), want)
	}
	finish()
}

// Nodes that run different programs (fixtures/scenarios/twoprog.json): a
// function or source breakpoint is resolved in each node's program and set
// in each node that has it, at its program's address; it is verified when
// one node has it, and its message says where. shared was set at node 0's
// address (0x14) in node 1 too, where it stopped node 1 on a nop, and
// only_b and twoprog-b.s were unverified. Qualifiers compile against each
// node's program; hit counts are each node's; stacks, evaluate and
// disassembly use the stopped node's program.
func TestDAPTwoPrograms(t *testing.T) {
	c, do, finish := dapSession(t)
	scen, _ := filepath.Abs(filepath.Join(sc, "twoprog.json"))
	srcA, _ := filepath.Abs(filepath.Join(fw, "twoprog-a.s"))
	srcB, _ := filepath.Abs(filepath.Join(fw, "twoprog-b.s"))
	do("initialize", map[string]any{"adapterID": "lanai-sim"})
	do("launch", map[string]any{"scenario": scen})
	fns := map[string]any{"breakpoints": []map[string]any{
		{"name": "shared", "hitCondition": "1"}, {"name": "only_b"}, {"name": "nosuch"}, {"name": "_start", "condition": "[only_b] == 0"},
		{"name": "only_b", "condition": "[nosuch]"}}}
	fbs := do("setFunctionBreakpoints", fns).(*godap.SetFunctionBreakpointsResponse).Body.Breakpoints
	if len(fbs) != 5 || !fbs[0].Verified || fbs[0].Message != "node 0 at 0x00000014; node 1 at 0x00000018" ||
		!fbs[1].Verified || fbs[1].Message != `node 1 at 0x0000000c; not in node 0: no symbol "only_b"` || fbs[1].InstructionReference != "0x0000000c" ||
		fbs[2].Verified || fbs[2].Message != `no symbol "nosuch"` ||
		!fbs[3].Verified || fbs[3].Message != `node 1 at 0x00000000; not in node 0: condition: no symbol "only_b"` ||
		fbs[4].Verified || fbs[4].Message != `condition: no symbol "nosuch"` {
		t.Errorf("setFunctionBreakpoints: %+v", fbs)
	}
	// A line past the end of node 1's source: node 1's reason (it was node
	// 0's, that twoprog-b.s is not in its line table). The next request
	// replaces it.
	past := do("setBreakpoints", map[string]any{"source": map[string]any{"path": srcB}, "breakpoints": []map[string]any{{"line": 99}}}).(*godap.SetBreakpointsResponse).Body.Breakpoints
	if len(past) != 1 || past[0].Verified || !strings.HasPrefix(past[0].Message, "no code at or after ") || !strings.HasSuffix(past[0].Message, "twoprog-b.s:99") {
		t.Errorf("setBreakpoints twoprog-b.s:99: %+v", past)
	}
	bps := do("setBreakpoints", map[string]any{"source": map[string]any{"path": srcB}, "breakpoints": []map[string]any{{"line": 15, "logMessage": "b r6 {%r6}"}}}).(*godap.SetBreakpointsResponse).Body.Breakpoints
	if len(bps) != 1 || !bps[0].Verified || bps[0].Line != 15 || bps[0].Message != "node 1 at 0x0000001c; not in node 0: twoprog-b.s is not in the image's line table" {
		t.Errorf("setBreakpoints twoprog-b.s:15: %+v", bps)
	}
	do("configurationDone", nil)
	// stop waits for the next stop and checks its thread and the top
	// frame's line and source.
	stop := func(thread, line int, src string) int {
		t.Helper()
		e, err := c.Event("stopped", nil)
		if err != nil {
			t.Fatal(err)
		}
		if st := e.(*godap.StoppedEvent).Body; st.Reason != "function breakpoint" || st.ThreadId != thread || !strings.Contains(st.Description, fmt.Sprintf("on node %d at", thread-1)) {
			t.Errorf("stop: %+v, want thread %d", st, thread)
		}
		fs := do("stackTrace", map[string]any{"threadId": thread}).(*godap.StackTraceResponse).Body.StackFrames
		if len(fs) == 0 || fs[0].Line != line || fs[0].Source == nil || fs[0].Source.Path != src {
			t.Fatalf("thread %d's stack: %+v, want %s:%d", thread, fs, filepath.Base(src), line)
		}
		return fs[0].Id
	}
	f := stop(2, 10, srcB) // only_b in node 1
	if r := do("evaluate", map[string]any{"expression": "only_b", "frameId": f}).(*godap.EvaluateResponse).Body.Result; r != "[0x0000000c <only_b> at twoprog-b.s:10] = 0x03800005" {
		t.Errorf("evaluate only_b in node 1: %q", r)
	}
	// The editor sends them again (as when one is edited): the ones set
	// keep their ids and messages.
	again := do("setFunctionBreakpoints", fns).(*godap.SetFunctionBreakpointsResponse).Body.Breakpoints
	for _, i := range []int{0, 1, 3} {
		if again[i].Id != fbs[i].Id || again[i].Message != fbs[i].Message || !again[i].Verified {
			t.Errorf("sent again: %+v, was %+v", again[i], fbs[i])
		}
	}
	do("continue", map[string]any{"threadId": 2})
	stop(2, 14, srcB) // shared in node 1, at its address
	dis := do("disassemble", map[string]any{"memoryReference": "0x18", "instructionCount": 1}).(*godap.DisassembleResponse).Body.Instructions
	if len(dis) != 1 || dis[0].Symbol != "shared" || dis[0].Line != 14 || dis[0].Location == nil || dis[0].Location.Path != srcB {
		t.Errorf("disassemble 0x18 in node 1: %+v", dis)
	}
	do("continue", map[string]any{"threadId": 2})
	var output strings.Builder
	collect := func(e godap.EventMessage) {
		if o, ok := e.(*godap.OutputEvent); ok {
			output.WriteString(o.Body.Output)
		}
	}
	e, err := c.Event("stopped", collect) // shared in node 0 after its loop: its first hit, as node 1's was
	if err != nil {
		t.Fatal(err)
	}
	if st := e.(*godap.StoppedEvent).Body; st.ThreadId != 1 || !strings.Contains(st.Description, "Function breakpoint "+fmt.Sprint(fbs[0].Id)+" on node 0") {
		t.Errorf("stop: %+v", st)
	}
	if fs := do("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse).Body.StackFrames; len(fs) == 0 || fs[0].Line != 15 || fs[0].Source.Path != srcA {
		t.Errorf("node 0's stack: %+v", fs)
	}
	do("continue", map[string]any{"threadId": 1})
	x, err := c.Event("exited", collect)
	if err != nil || x.(*godap.ExitedEvent).Body.ExitCode != 1 || !strings.Contains(output.String(), "node 1: b r6 3\n") {
		t.Errorf("exited %v %v; output:\n%s", x, err, output.String())
	}
	finish()
}

// Nodes that run different programs: the memory and instruction
// references the adapter hands out name the node, so that disassemble,
// readMemory and writeMemory act on the node of the frame in view, not
// on the node that stopped last, and an instruction breakpoint at one
// node's reference is set on that node only (a plain 0x18 would also stop
// node 0 at its own 0x18, mov 10, %r5). A plain address is still in the
// node that stopped last.
func TestDAPTwoProgramsReferences(t *testing.T) {
	c, do, finish := dapSession(t)
	scen, _ := filepath.Abs(filepath.Join(sc, "twoprog.json"))
	srcA, _ := filepath.Abs(filepath.Join(fw, "twoprog-a.s"))
	srcB, _ := filepath.Abs(filepath.Join(fw, "twoprog-b.s"))
	do("initialize", map[string]any{"adapterID": "lanai-sim"})
	do("launch", map[string]any{"scenario": scen})
	ins := do("setInstructionBreakpoints", map[string]any{"breakpoints": []map[string]any{
		{"instructionReference": "node1:0x00000018"}, {"instructionReference": "node0:0x00000010", "offset": 4}}}).(*godap.SetInstructionBreakpointsResponse).Body.Breakpoints
	if len(ins) != 2 || !ins[0].Verified || ins[0].InstructionReference != "node1:0x00000018" || ins[0].Message != "node 1 at 0x00000018; not in node 0: the reference names node 1" ||
		!ins[1].Verified || ins[1].InstructionReference != "node0:0x00000014" || ins[1].Message != "node 0 at 0x00000014; not in node 1: the reference names node 0" {
		t.Errorf("setInstructionBreakpoints: %+v", ins)
	}
	do("configurationDone", nil)
	stop := func(thread int) {
		t.Helper()
		e, err := c.Event("stopped", nil)
		if err != nil {
			t.Fatal(err)
		}
		if st := e.(*godap.StoppedEvent).Body; st.ThreadId != thread {
			t.Fatalf("stop: %+v, want thread %d", st, thread)
		}
	}
	stop(2) // node 1 at its shared
	do("continue", map[string]any{"threadId": 2})
	stop(1) // node 0 at its shared: node 0 stopped last
	fs := do("stackTrace", map[string]any{"threadId": 2}).(*godap.StackTraceResponse).Body.StackFrames
	if len(fs) == 0 || !strings.HasPrefix(fs[0].InstructionPointerReference, "node1:0x") || fs[0].Source == nil || fs[0].Source.Path != srcB {
		t.Fatalf("node 1's stack: %+v", fs)
	}
	// Node 1's pc, in node 1's program (main's adapter showed node 0's).
	dis := do("disassemble", map[string]any{"memoryReference": fs[0].InstructionPointerReference, "instructionCount": 1}).(*godap.DisassembleResponse).Body.Instructions
	if len(dis) != 1 || dis[0].Location == nil || dis[0].Location.Path != srcB || "node1:"+dis[0].Address != fs[0].InstructionPointerReference {
		t.Errorf("disassemble node 1's pc %s: %+v", fs[0].InstructionPointerReference, dis)
	}
	dis = do("disassemble", map[string]any{"memoryReference": "node1:0x00000018", "instructionCount": 1}).(*godap.DisassembleResponse).Body.Instructions
	if len(dis) != 1 || dis[0].Symbol != "shared" || dis[0].Line != 14 || dis[0].Location == nil || dis[0].Location.Path != srcB || !strings.HasPrefix(dis[0].Instruction, "add") {
		t.Errorf("disassemble node1:0x18: %+v", dis)
	}
	dis = do("disassemble", map[string]any{"memoryReference": "0x18", "instructionCount": 1}).(*godap.DisassembleResponse).Body.Instructions
	if len(dis) != 1 || dis[0].Line != 16 || dis[0].Location == nil || dis[0].Location.Path != srcA || !strings.HasPrefix(dis[0].Instruction, "mov") {
		t.Errorf("disassemble a plain 0x18 (node 0's, which stopped last): %+v", dis)
	}
	// Node 1's own variables and evaluations name node 1.
	sc := do("scopes", map[string]any{"frameId": fs[0].Id}).(*godap.ScopesResponse).Body.Scopes
	regs := do("variables", map[string]any{"variablesReference": sc[0].VariablesReference}).(*godap.VariablesResponse).Body.Variables
	if len(regs) == 0 || regs[6].Name != "r6" || regs[6].MemoryReference != "node1:0x00000003" {
		t.Errorf("node 1's registers: %+v", regs)
	}
	if ev := do("evaluate", map[string]any{"expression": "shared", "frameId": fs[0].Id}).(*godap.EvaluateResponse).Body; ev.MemoryReference != "node1:0x00000018" {
		t.Errorf("evaluate shared in node 1: %+v", ev)
	}
	// Memory: each node's word 0 is its own first instruction (mov 1 and
	// mov 2); a write to node 1 leaves node 0's memory alone.
	read := func(ref string) []byte {
		t.Helper()
		m := do("readMemory", map[string]any{"memoryReference": ref, "count": 4}).(*godap.ReadMemoryResponse).Body
		b, err := base64.StdEncoding.DecodeString(m.Data)
		if err != nil || len(b) != 4 || m.Address != "0x00000000" && m.Address != "0x00000100" {
			t.Fatalf("readMemory %s: %+v %v", ref, m, err)
		}
		return b
	}
	if a, b, plain := read("node0:0x0"), read("node1:0x0"), read("0x0"); bytes.Equal(a, b) || !bytes.Equal(plain, a) {
		t.Errorf("word 0: node 0 % x, node 1 % x, plain (node 0's) % x", a, b, plain)
	}
	do("writeMemory", map[string]any{"memoryReference": "node1:0x100", "data": base64.StdEncoding.EncodeToString([]byte{1, 2, 3, 4})})
	if a, b := read("node0:0x100"), read("node1:0x100"); !bytes.Equal(b, []byte{1, 2, 3, 4}) || bytes.Equal(a, b) {
		t.Errorf("after writing node 1's 0x100: node 0 % x, node 1 % x", a, b)
	}
	if r, err := c.Do("readMemory", map[string]any{"memoryReference": "node7:0x0", "count": 4}); err == nil || !strings.Contains(err.Error(), `no thread "node7"`) {
		t.Errorf("readMemory node7:0x0: %v %v", r, err)
	}
	// Node 0 passes its own 0x18 now: node 1's breakpoint does not stop it.
	do("continue", map[string]any{"threadId": 1})
	if e, err := c.Event("exited", func(e godap.EventMessage) {
		if st, ok := e.(*godap.StoppedEvent); ok {
			t.Errorf("stopped: %+v", st.Body)
		}
	}); err != nil {
		t.Fatal(e, err)
	}
	finish()
}

// lanai-sim dap on pingpong.json, whose nodes run one program, each in its
// own SRAM: with node 0 stopped last, node 1's frame, variables and
// evaluations hand out references that name node 1, so readMemory gives
// node 1's role word (1), not node 0's (0), and disassemble shows node
// 1's code. An instruction breakpoint the way VS Code's disassembly view
// sets one (the frame's reference plus a byte offset) is set on node 1
// only, and stops it. A plain address still means node 0's memory.
func TestDAPOneProgramReferences(t *testing.T) {
	c, do, finish := dapSession(t)
	src, _ := filepath.Abs(filepath.Join(fw, "pingpong.s"))
	scen, _ := filepath.Abs(filepath.Join(sc, "pingpong.json"))
	text, _ := os.ReadFile(src)
	line := slices.IndexFunc(strings.Split(string(text), "\n"), func(l string) bool { return strings.Contains(l, "! re-arm") }) + 1
	do("initialize", map[string]any{"adapterID": "lanai-sim"})
	do("launch", map[string]any{"scenario": scen})
	do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []map[string]any{{"line": line}}})
	do("configurationDone", nil)
	stop := func(thread int, reason string) {
		t.Helper()
		e, err := c.Event("stopped", nil)
		if err != nil {
			t.Fatal(err)
		}
		if st := e.(*godap.StoppedEvent).Body; st.ThreadId != thread || st.Reason != reason {
			t.Fatalf("stop: %+v, want thread %d, %s", st, thread, reason)
		}
	}
	stop(1, "breakpoint") // node 0, the pinger, after its first reply
	frame := func(th int) godap.StackFrame {
		t.Helper()
		fs := do("stackTrace", map[string]any{"threadId": th}).(*godap.StackTraceResponse).Body.StackFrames
		if len(fs) == 0 || fs[0].Source == nil || fs[0].Source.Path != src {
			t.Fatalf("thread %d's stack: %+v", th, fs)
		}
		return fs[0]
	}
	f0, f1 := frame(1), frame(2)
	if !strings.HasPrefix(f0.InstructionPointerReference, "node0:0x") || !strings.HasPrefix(f1.InstructionPointerReference, "node1:0x") {
		t.Errorf("instructionPointerReferences %q, %q", f0.InstructionPointerReference, f1.InstructionPointerReference)
	}
	read := func(ref string) []byte {
		t.Helper()
		m := do("readMemory", map[string]any{"memoryReference": ref, "count": 4}).(*godap.ReadMemoryResponse).Body
		b, err := base64.StdEncoding.DecodeString(m.Data)
		if err != nil || len(b) != 4 {
			t.Fatalf("readMemory %s: %+v %v", ref, m, err)
		}
		return b
	}
	role := func(f godap.StackFrame) string {
		t.Helper()
		return do("evaluate", map[string]any{"expression": "role", "frameId": f.Id}).(*godap.EvaluateResponse).Body.MemoryReference
	}
	r0, r1 := role(f0), role(f1)
	if b := read(r1); !strings.HasPrefix(r1, "node1:") || !bytes.Equal(b, []byte{0, 0, 0, 1}) {
		t.Errorf("node 1's role at %q: % x, want 00 00 00 01", r1, b)
	}
	if b := read(r0); !strings.HasPrefix(r0, "node0:") || !bytes.Equal(b, []byte{0, 0, 0, 0}) {
		t.Errorf("node 0's role at %q: % x, want 00 00 00 00", r0, b)
	}
	if _, plain, _ := strings.Cut(r1, ":"); !bytes.Equal(read(plain), []byte{0, 0, 0, 0}) {
		t.Errorf("a plain %s is not node 0's (which stopped last): % x", plain, read(plain))
	}
	// The Globals scope of node 1's frame names node 1 too.
	scopes := do("scopes", map[string]any{"frameId": f1.Id}).(*godap.ScopesResponse).Body.Scopes
	globals := do("variables", map[string]any{"variablesReference": scopes[len(scopes)-1].VariablesReference}).(*godap.VariablesResponse).Body.Variables
	if i := slices.IndexFunc(globals, func(v godap.Variable) bool { return v.Name == "role" }); i < 0 || globals[i].MemoryReference != r1 {
		t.Errorf("node 1's globals: %+v", globals)
	}
	// Node 1's pc, the way VS Code's disassembly view asks: the reference,
	// a byte offset and an instruction offset.
	dis := do("disassemble", map[string]any{"memoryReference": f1.InstructionPointerReference, "offset": -4, "instructionOffset": 1, "instructionCount": 1}).(*godap.DisassembleResponse).Body.Instructions
	if len(dis) != 1 || "node1:"+dis[0].Address != f1.InstructionPointerReference || dis[0].Line != f1.Line || dis[0].Location == nil || dis[0].Location.Path != src {
		t.Errorf("disassemble node 1's pc %s: %+v (frame line %d)", f1.InstructionPointerReference, dis, f1.Line)
	}
	do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{}})
	ins := do("setInstructionBreakpoints", map[string]any{"breakpoints": []map[string]any{{"instructionReference": f1.InstructionPointerReference, "offset": 0}}}).(*godap.SetInstructionBreakpointsResponse).Body.Breakpoints
	_, pc1, _ := strings.Cut(f1.InstructionPointerReference, ":")
	if len(ins) != 1 || !ins[0].Verified || ins[0].InstructionReference != f1.InstructionPointerReference || ins[0].Message != "node 1 at "+pc1+"; not in node 0: the reference names node 1" {
		t.Errorf("setInstructionBreakpoints at node 1's pc: %+v", ins)
	}
	do("continue", map[string]any{"threadId": 1})
	stop(2, "instruction breakpoint") // node 1 comes round its loop again
	if f := frame(2); f.InstructionPointerReference != f1.InstructionPointerReference {
		t.Errorf("node 1 stopped at %s, want %s", f.InstructionPointerReference, f1.InstructionPointerReference)
	}
	do("setInstructionBreakpoints", map[string]any{"breakpoints": []any{}})
	do("continue", map[string]any{"threadId": 2})
	if _, err := c.Event("exited", nil); err != nil {
		t.Fatal(err)
	}
	finish()
}

// dapSession starts lanai-sim's adapter on a test connection: c is the
// client, do sends a request and returns its successful response, and
// finish disconnects and checks that the adapter exited 0.
func dapSession(t *testing.T) (c *daptest.Client, do func(cmd string, args any) godap.ResponseMessage, finish func()) {
	c, done, stderr := daptest.Listen(t, func(args []string, stderr io.Writer) int { return run(args, io.Discard, stderr) })
	do = func(cmd string, args any) godap.ResponseMessage {
		t.Helper()
		return daptest.Must[godap.ResponseMessage](t, c, cmd, args)
	}
	finish = func() {
		t.Helper()
		do("disconnect", nil)
		if st := <-done; st != 0 {
			t.Errorf("status %d: %s", st, stderr.String())
		}
	}
	return c, do, finish
}
