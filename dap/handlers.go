package dap

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	godap "github.com/google/go-dap"

	"lanaiemu/debugger"
	"lanaiemu/isa"
	"lanaiemu/memsys"
)

// maxRead bounds one readMemory or disassemble request.
const maxRead = 1 << 20

// Variable references: (thread+1) << 3 | scope.
const (
	scopeRegisters = 1 + iota
	scopeSpecials
	scopeDevices
	scopeGlobals
)

// Frame ids: thread << 10 | frame index, plus one.
const frameBits = 10

// handle answers one request.
func (s *server) handle(m godap.RequestMessage) {
	req := m.GetRequest()
	switch r := m.(type) {
	case *godap.InitializeRequest:
		s.send(&godap.InitializeResponse{Response: s.response(req, true, ""), Body: godap.Capabilities{
			SupportsConfigurationDoneRequest: true, SupportsFunctionBreakpoints: true, SupportsDataBreakpoints: true,
			SupportsInstructionBreakpoints: true, SupportsReadMemoryRequest: true, SupportsWriteMemoryRequest: true,
			SupportsDisassembleRequest: true, SupportsSteppingGranularity: true, SupportsEvaluateForHovers: true,
			SupportsSetVariable: true, SupportsTerminateRequest: true, SupportsStepBack: true,
			SupportsConditionalBreakpoints: true, SupportsHitConditionalBreakpoints: true, SupportsLogPoints: true,
		}})
	case *godap.LaunchRequest:
		s.start(req, r.Arguments, false)
	case *godap.AttachRequest:
		s.start(req, r.Arguments, true)
	case *godap.ConfigurationDoneRequest:
		s.configurationDone(req)
	case *godap.ThreadsRequest:
		s.threads(req)
	case *godap.SetBreakpointsRequest:
		s.setBreakpoints(r)
	case *godap.SetFunctionBreakpointsRequest:
		s.setFunctionBreakpoints(r)
	case *godap.SetInstructionBreakpointsRequest:
		s.setInstructionBreakpoints(r)
	case *godap.DataBreakpointInfoRequest:
		s.dataBreakpointInfo(r)
	case *godap.SetDataBreakpointsRequest:
		s.setDataBreakpoints(r)
	case *godap.SetExceptionBreakpointsRequest:
		s.send(&godap.SetExceptionBreakpointsResponse{Response: s.response(req, true, "")})
	case *godap.StackTraceRequest:
		s.stackTrace(r)
	case *godap.ScopesRequest:
		s.scopes(r)
	case *godap.VariablesRequest:
		s.variables(r)
	case *godap.SetVariableRequest:
		s.setVariable(r)
	case *godap.EvaluateRequest:
		s.evaluate(r)
	case *godap.ReadMemoryRequest:
		s.readMemory(r)
	case *godap.WriteMemoryRequest:
		s.writeMemory(r)
	case *godap.DisassembleRequest:
		s.disassemble(r)
	case *godap.ContinueRequest:
		s.resume(req, r.Arguments.ThreadId, &godap.ContinueResponse{Response: s.response(req, true, ""), Body: godap.ContinueResponseBody{AllThreadsContinued: true}},
			func(th int) (debugger.Stop, error) { return s.d.Continue(th) })
	case *godap.NextRequest:
		over := func(th int) (debugger.Stop, error) { return s.d.StepLine(th, true) }
		if r.Arguments.Granularity == "instruction" {
			over = func(th int) (debugger.Stop, error) { return s.d.NextInstruction(th) }
		}
		s.resume(req, r.Arguments.ThreadId, &godap.NextResponse{Response: s.response(req, true, "")}, over)
	case *godap.StepInRequest:
		in := func(th int) (debugger.Stop, error) { return s.d.StepLine(th, false) }
		if r.Arguments.Granularity == "instruction" {
			in = func(th int) (debugger.Stop, error) { return s.d.StepInstruction(th) }
		}
		s.resume(req, r.Arguments.ThreadId, &godap.StepInResponse{Response: s.response(req, true, "")}, in)
	case *godap.StepOutRequest:
		s.resume(req, r.Arguments.ThreadId, &godap.StepOutResponse{Response: s.response(req, true, "")},
			func(th int) (debugger.Stop, error) { return s.d.StepOut(th) })
	case *godap.StepBackRequest:
		s.resume(req, r.Arguments.ThreadId, &godap.StepBackResponse{Response: s.response(req, true, "")},
			func(th int) (debugger.Stop, error) { return s.d.StepBack(th) })
	case *godap.ReverseContinueRequest:
		s.resume(req, r.Arguments.ThreadId, &godap.ReverseContinueResponse{Response: s.response(req, true, "")},
			func(th int) (debugger.Stop, error) { return s.d.ReverseContinue(th) })
	case *godap.PauseRequest:
		s.pause(req)
	case *godap.DisconnectRequest:
		s.close()
		s.quit = true
		s.send(&godap.DisconnectResponse{Response: s.response(req, true, "")})
	case *godap.TerminateRequest:
		s.close()
		s.send(&godap.TerminateResponse{Response: s.response(req, true, "")})
		if !s.ended {
			s.ended = true
			s.send(&godap.TerminatedEvent{Event: event("terminated")})
		}
	default:
		s.fail(req, "%s is not supported", req.Command)
	}
}

// launchArgs are the arguments the server itself reads.
type launchArgs struct {
	StopOnEntry *bool `json:"stopOnEntry"`
}

// start launches (or attaches to) the target. attach differs only in
// stopping at the entry unless told otherwise: the emulator runs in the
// adapter, so attaching is loading the image without running it.
func (s *server) start(req *godap.Request, raw json.RawMessage, attach bool) {
	if s.d != nil {
		s.fail(req, "a target is already launched")
		return
	}
	var a launchArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			s.fail(req, "%s arguments: %v", req.Command, err)
			return
		}
	}
	console := writerFunc(func(p []byte) (int, error) { s.output("stdout", string(p)); return len(p), nil })
	sess, err := s.launch(raw, console, writerFunc(s.transcript))
	if err != nil {
		s.fail(req, "%v", err)
		return
	}
	s.sess, s.d = sess, sess.Debugger
	threads := s.d.Threads()
	s.named = len(threads) > 1
	s.entry = attach
	if a.StopOnEntry != nil {
		s.entry = *a.StopOnEntry
	}
	s.bps = map[string][]bp{}
	if attach {
		s.send(&godap.AttachResponse{Response: s.response(req, true, "")})
	} else {
		s.send(&godap.LaunchResponse{Response: s.response(req, true, "")})
	}
	s.send(&godap.InitializedEvent{Event: event("initialized")})
}

// lock takes the debugger for a request: it fails while the target runs
// or before a launch. The caller unlocks.
func (s *server) lock(req *godap.Request) bool {
	if s.d == nil {
		s.fail(req, "no target: launch one first")
		return false
	}
	if s.busy.Load() {
		s.fail(req, "the target is running: pause it first")
		return false
	}
	s.mu.Lock() // the run that has just stopped may still be reporting
	return true
}

func (s *server) configurationDone(req *godap.Request) {
	if s.d == nil {
		s.fail(req, "no target: launch one first")
		return
	}
	resp := &godap.ConfigurationDoneResponse{Response: s.response(req, true, "")}
	if s.ran {
		s.send(resp)
		return
	}
	s.ran = true
	if s.entry {
		s.send(resp)
		s.send(&godap.StoppedEvent{Event: event("stopped"), Body: godap.StoppedEventBody{Reason: "entry", ThreadId: 1, AllThreadsStopped: true,
			Description: s.when(0)}})
		return
	}
	s.resume(req, 1, resp, func(th int) (debugger.Stop, error) { return s.d.Continue(th) })
}

// thread converts a client's thread id.
func (s *server) thread(id int) (int, bool) {
	if s.d == nil || id < 1 || id > len(s.d.Threads()) {
		return 0, false
	}
	return id - 1, true
}

// resume answers req with resp and runs the target on another goroutine
// (so that pause can stop it), then reports the stop.
func (s *server) resume(req *godap.Request, threadID int, resp godap.Message, run func(th int) (debugger.Stop, error)) {
	th, ok := s.thread(threadID)
	if !ok {
		s.fail(req, "no thread %d", threadID)
		return
	}
	if !s.lock(req) {
		return
	}
	if s.ended {
		s.mu.Unlock()
		s.fail(req, "the target has ended")
		return
	}
	s.send(resp)
	cont := req.Command == "continue" || req.Command == "configurationDone"
	s.running.Add(1)
	s.busy.Store(true)
	go func() {
		defer s.running.Done()
		defer s.mu.Unlock()
		for {
			st, err := run(th)
			s.busy.Store(false)
			if err != nil {
				s.output("console", "error: "+err.Error()+"\n")
				if over, _ := s.d.Over(); over {
					s.exit()
				} else {
					s.stopped(debugger.Stop{Reason: "pause", Thread: th, Cycle: s.d.Threads()[th].CPU.Cycles})
				}
				return
			}
			if st.Reason == "event" && cont && !s.d.Interrupted() {
				s.busy.Store(true)
				continue // the workloads are done: the scenario goes on
			}
			s.report(st)
			return
		}
	}()
}

// report tells the client of a stop.
func (s *server) report(st debugger.Stop) {
	switch st.Reason {
	case "exited", "failed":
		s.exit()
	case "end":
		if s.d.Finished() != nil { // a trap: stay stopped for inspection
			s.stopped(st)
			return
		}
		s.exit()
	default:
		s.stopped(st)
	}
}

// exit reports the target's end: the exit code (a lone core's program's,
// or the session's Finish: a cluster's workloads), then terminated.
func (s *server) exit() {
	if s.ended {
		return
	}
	s.ended = true
	code := 0
	if st := s.d.Finished(); st != nil {
		code = int(st.Code)
		if st.Trap != nil {
			code = 70 // as lanai-emu run's exit status for a trap
		}
	} else if err := s.d.Failed(); err != nil {
		code = 1
	} else if s.sess.Finish != nil {
		var summary string
		code, summary = s.sess.Finish()
		s.output("console", summary)
	}
	s.send(&godap.ExitedEvent{Event: event("exited"), Body: godap.ExitedEventBody{ExitCode: code}})
	s.send(&godap.TerminatedEvent{Event: event("terminated")})
}

// when describes the present instant: the cycle of thread th and the time.
func (s *server) when(th int) string {
	c := s.d.Threads()[th].CPU
	if t, ok := s.d.Target().(debugger.Timed); ok {
		return fmt.Sprintf("at %s (cycle %d)", debugger.FormatTime(t.Now()), c.Cycles)
	}
	return fmt.Sprintf("at cycle %d (%s)", c.Cycles, debugger.FormatSeconds(c.Seconds(c.Cycles)))
}

// stopped sends the stopped event of a stop: every thread stopped.
func (s *server) stopped(st debugger.Stop) {
	s.last = st.Thread
	body := godap.StoppedEventBody{Reason: st.Reason, ThreadId: st.Thread + 1, AllThreadsStopped: true, Text: st.Text}
	what := "Stopped"
	switch st.Reason {
	case "breakpoint", "data breakpoint":
		id, kind := s.clientBreakpoint(st.Point)
		if kind != "" {
			body.Reason = kind
		}
		if id != 0 {
			body.HitBreakpointIds = []int{id}
		}
		what = fmt.Sprintf("%s %d", strings.ToUpper(body.Reason[:1])+body.Reason[1:], id)
	case "budget":
		body.Reason, what = "pause", "The command's cycle budget is used up"
	case "end":
		body.Reason, what = "exception", "Trapped"
	case "event":
		body.Reason, what = "step", st.Text
	}
	if name := s.d.Threads()[st.Thread].Name; len(s.d.Threads()) > 1 {
		what += " on " + name
	}
	body.Description = what + " " + s.when(st.Thread)
	s.send(&godap.StoppedEvent{Event: event("stopped"), Body: body})
}

// clientBreakpoint finds the client's breakpoint holding a debugger
// point, and its kind as a stopped reason.
func (s *server) clientBreakpoint(point int) (int, string) {
	if point == 0 { // none (0 is also a place without a point in bp.points)
		return 0, ""
	}
	for key, list := range s.bps {
		for _, b := range list {
			for _, p := range b.points {
				if p == point {
					switch {
					case strings.HasPrefix(key, "fn:"):
						return b.id, "function breakpoint"
					case strings.HasPrefix(key, "ins:"):
						return b.id, "instruction breakpoint"
					}
					return b.id, "breakpoint"
				}
			}
		}
	}
	for _, b := range s.data {
		for _, p := range b.points {
			if p == point {
				return b.id, "data breakpoint"
			}
		}
	}
	return 0, ""
}

func (s *server) pause(req *godap.Request) {
	if s.d == nil {
		s.fail(req, "no target: launch one first")
		return
	}
	s.send(&godap.PauseResponse{Response: s.response(req, true, "")})
	go s.interrupt()
	if !s.busy.Load() { // not running: stopped where it is
		s.stopped(debugger.Stop{Reason: "pause", Thread: s.last})
	}
}

func (s *server) threads(req *godap.Request) {
	var ts []godap.Thread
	if s.d != nil {
		for i, t := range s.d.Threads() {
			ts = append(ts, godap.Thread{Id: i + 1, Name: t.Name})
		}
	}
	s.send(&godap.ThreadsResponse{Response: s.response(req, true, ""), Body: godap.ThreadsResponseBody{Threads: ts}})
}

// replace sets the client's breakpoints under key anew: each location
// resolved in every thread's program (places, with the reason it is not
// in the others': the nodes of a cluster can run different programs), set
// in each thread where it resolved, at that program's address, with its
// qualifiers (condition, hit condition, log message: compiled against
// that program, each thread's point evaluates them on its own core). A
// breakpoint the client had at the same places keeps its id, its points
// and their hit counts, its qualifiers replaced (an editor sends a file's
// every breakpoint when one of them is added, removed or edited); the
// others' points are deleted. A breakpoint is verified when it is set in
// at least one thread; when it is not set in every thread, or not at one
// address, the message says where it is. One that is set nowhere is
// answered unverified, with the reason of the first thread that has the
// location (else debugger.Reason's: that of the first thread whose
// program has its source file, else of the first thread).
func (s *server) replace(key string, places [][]debugger.Place, missing [][]error, opts []debugger.BreakOptions) []godap.Breakpoint {
	old := s.bps[key]
	kept := make([]bool, len(old))
	var list []bp
	out := make([]godap.Breakpoint, len(places))
	for i, at := range places {
		why := slices.Clone(missing[i])
		b, ok := s.keep(old, kept, at)
		if !ok {
			s.nbp++
			b = bp{id: s.nbp, at: at, points: make([]int, len(at))}
		}
		set := s.settle(&b, opts[i], why)
		out[i] = godap.Breakpoint{Id: b.id, InstructionReference: "0x00000000"}
		if len(at) > 0 {
			out[i].InstructionReference = hex32(at[0].Addr)
		}
		if len(set) == 0 {
			var reason error
			if len(at) > 0 {
				reason = why[at[0].Thread]
			} else {
				reason = debugger.Reason(why, slices.IndexFunc(why, func(err error) bool { return err != nil }))
			}
			out[i].Message = reason.Error()
			continue
		}
		out[i].Verified = true
		out[i].InstructionReference = hex32(set[0].Addr)
		out[i].Message = s.where(set, why)
		list = append(list, b)
	}
	for j, b := range old {
		if !kept[j] {
			s.deletePoints(b)
		}
	}
	s.bps[key] = list
	return out
}

// keep finds the first of the client's old breakpoints at the places at
// (the same threads, at the same addresses) not kept yet, and marks it
// kept.
func (s *server) keep(old []bp, kept []bool, at []debugger.Place) (bp, bool) {
	same := func(a, b debugger.Place) bool { return a.Thread == b.Thread && a.Addr == b.Addr }
	for j, b := range old {
		if !kept[j] && slices.EqualFunc(b.at, at, same) {
			kept[j] = true
			return b, true
		}
	}
	return bp{}, false
}

// settle gives breakpoint b qualifiers o at each of its places: a point it
// has there is requalified (its hit count stays), a place without one
// gets a new point. Where they cannot be set, the place has no point (an
// old one is deleted) and why holds the reason. It gives the places that
// have a point.
func (s *server) settle(b *bp, o debugger.BreakOptions, why []error) []debugger.Place {
	var set []debugger.Place
	for k, pl := range b.at {
		var err error
		if b.points[k] != 0 {
			if err = s.d.Requalify(b.points[k], o); err != nil {
				s.d.Delete(b.points[k])
				b.points[k] = 0
			}
		} else {
			b.points[k], err = s.d.AddBreakpoint(pl.Thread, pl.Addr, o)
		}
		if err != nil {
			why[pl.Thread] = err
			continue
		}
		set = append(set, pl)
	}
	return set
}

// deletePoints deletes a client breakpoint's points.
func (s *server) deletePoints(b bp) {
	for _, p := range b.points {
		if p != 0 {
			s.d.Delete(p)
		}
	}
}

// where says on which threads a breakpoint is set and at what addresses,
// and why not in the others, threads with one address or one reason
// together ("node 0, node 2 at 0x00000014; not in node 1: no symbol
// "only_b""); "" when it is set in every thread at one address.
func (s *server) where(set []debugger.Place, why []error) string {
	threads := s.d.Threads()
	if len(set) == len(threads) && !slices.ContainsFunc(set, func(pl debugger.Place) bool { return pl.Addr != set[0].Addr }) {
		return ""
	}
	type group struct {
		what  string // "at 0x00000014", or the reason it is not set
		set   bool
		names []string
	}
	var groups []group
	add := func(what string, set bool, th int) {
		for i := range groups {
			if groups[i].what == what && groups[i].set == set {
				groups[i].names = append(groups[i].names, threads[th].Name)
				return
			}
		}
		groups = append(groups, group{what, set, []string{threads[th].Name}})
	}
	for _, pl := range set {
		add("at "+hex32(pl.Addr), true, pl.Thread)
	}
	for th, err := range why {
		if err != nil {
			add(err.Error(), false, th)
		}
	}
	var msg []string
	for _, g := range groups {
		if g.set {
			msg = append(msg, strings.Join(g.names, ", ")+" "+g.what)
		} else {
			msg = append(msg, "not in "+strings.Join(g.names, ", ")+": "+g.what)
		}
	}
	return strings.Join(msg, "; ")
}

// tableFile finds the line table's name of the client's source path;
// known holds the source paths of the table's names looked up so far
// (SourcePath looks at the file system; a cluster's programs share names).
func (s *server) tableFile(p *debugger.Program, path string, known map[string]string) (string, bool) {
	abs, _ := filepath.Abs(path)
	for _, f := range p.Files() {
		sp, ok := known[f]
		if !ok {
			sp = s.d.SourcePath(f)
			known[f] = sp
		}
		if sp != "" && sp == abs {
			return f, true
		}
	}
	for _, f := range p.Files() { // not found where the table says: the same base name
		if filepath.Base(f) == filepath.Base(path) {
			return f, true
		}
	}
	return "", false
}

func (s *server) setBreakpoints(r *godap.SetBreakpointsRequest) {
	req := &r.Request
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	path := r.Arguments.Source.Path
	type tableName struct {
		name string
		ok   bool
	}
	files := make([]*tableName, len(s.d.Threads())) // each thread's name of path, found once
	known := map[string]string{}
	var places [][]debugger.Place
	var missing [][]error
	var lines []int
	var opts []debugger.BreakOptions
	for _, b := range r.Arguments.Breakpoints {
		opts = append(opts, debugger.BreakOptions{Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage})
		at, why := s.d.Places(func(th int) (debugger.Place, error) {
			if files[th] == nil {
				f, ok := s.tableFile(s.d.Threads()[th].Program, path, known)
				files[th] = &tableName{f, ok}
			}
			if !files[th].ok {
				return debugger.Place{}, debugger.NotInProgram(fmt.Errorf("%s is not in the image's line table", filepath.Base(path)))
			}
			a, line, err := s.d.Threads()[th].Program.LineAddr(files[th].name, b.Line)
			return debugger.Place{Addr: a, Line: line}, err
		})
		line := b.Line
		if len(at) > 0 {
			line = at[0].Line
		}
		places, missing, lines = append(places, at), append(missing, why), append(lines, line)
	}
	out := s.replace(path, places, missing, opts)
	for i := range out {
		out[i].Source = &r.Arguments.Source
		out[i].Line = lines[i]
	}
	s.send(&godap.SetBreakpointsResponse{Response: s.response(req, true, ""), Body: godap.SetBreakpointsResponseBody{Breakpoints: out}})
}

func (s *server) setFunctionBreakpoints(r *godap.SetFunctionBreakpointsRequest) {
	req := &r.Request
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	var places [][]debugger.Place
	var missing [][]error
	var opts []debugger.BreakOptions
	for _, b := range r.Arguments.Breakpoints {
		opts = append(opts, debugger.BreakOptions{Condition: b.Condition, HitCondition: b.HitCondition})
		at, why := s.d.Places(func(th int) (debugger.Place, error) {
			a, _, ok := s.d.Threads()[th].Program.Symbol(b.Name)
			if !ok {
				return debugger.Place{}, fmt.Errorf("no symbol %q", b.Name)
			}
			return debugger.Place{Addr: a}, nil
		})
		places, missing = append(places, at), append(missing, why)
	}
	out := s.replace("fn:", places, missing, opts)
	s.send(&godap.SetFunctionBreakpointsResponse{Response: s.response(req, true, ""), Body: godap.SetFunctionBreakpointsResponseBody{Breakpoints: out}})
}

// parseAddr reads a plain memory or instruction reference ("0x1234").
func parseAddr(ref string, off int) (uint32, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(ref), 0, 32)
	if err != nil {
		return 0, fmt.Errorf("bad reference %q (want an address, 0x hex, or a node's, node1:0x1234)", ref)
	}
	return uint32(int64(v) + int64(off)), nil
}

// refName is the prefix of a reference that names thread t ("node1" of
// "node 1").
func refName(t *debugger.Thread) string { return strings.ReplaceAll(t.Name, " ", "") }

// ref gives the memory or instruction reference of address a in thread
// th: "0x00000018" for a lone core, or, when there are several threads
// (each board has its own SRAM, so an address means different data, and
// maybe code, in each), one that names the thread, "node1:0x00000018", for
// the requests that take it back.
func (s *server) ref(th int, a uint32) string {
	if !s.named {
		return hex32(a)
	}
	return refName(s.d.Threads()[th]) + ":" + hex32(a)
}

// parseRef reads a memory or instruction reference plus off: one of ref's
// gives its thread (named is set), a plain address the thread of the
// last stop.
func (s *server) parseRef(ref string, off int) (th int, a uint32, named bool, err error) {
	th = s.last
	if name, addr, ok := strings.Cut(ref, ":"); ok {
		th = slices.IndexFunc(s.d.Threads(), func(t *debugger.Thread) bool { return refName(t) == strings.TrimSpace(name) })
		if th < 0 {
			return 0, 0, false, fmt.Errorf("bad reference %q: no thread %q", ref, name)
		}
		ref, named = addr, true
	}
	a, err = parseAddr(ref, off)
	return th, a, named, err
}

func (s *server) setInstructionBreakpoints(r *godap.SetInstructionBreakpointsRequest) {
	req := &r.Request
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	var places [][]debugger.Place
	var missing [][]error
	var opts []debugger.BreakOptions
	var named []bool
	for _, b := range r.Arguments.Breakpoints {
		opts = append(opts, debugger.BreakOptions{Condition: b.Condition, HitCondition: b.HitCondition})
		node, a, one, err := s.parseRef(b.InstructionReference, b.Offset)
		at, why := s.d.Places(func(th int) (debugger.Place, error) {
			if err == nil && one && th != node {
				return debugger.Place{}, fmt.Errorf("the reference names %s", s.d.Threads()[node].Name)
			}
			return debugger.Place{Addr: a}, err
		})
		places, missing, named = append(places, at), append(missing, why), append(named, one)
	}
	out := s.replace("ins:", places, missing, opts)
	for i := range out {
		if named[i] && len(places[i]) == 1 {
			out[i].InstructionReference = s.ref(places[i][0].Thread, places[i][0].Addr)
		}
	}
	s.send(&godap.SetInstructionBreakpointsResponse{Response: s.response(req, true, ""), Body: godap.SetInstructionBreakpointsResponseBody{Breakpoints: out}})
}

// dataTarget resolves what a data breakpoint watches: a global by name
// (its size, at most debugger.MaxWatch; 4 when it has none), or an
// address expression (4 bytes).
func (s *server) dataTarget(th int, name string) (addr, n uint32, err error) {
	p := s.d.Threads()[th].Program
	if a, size, ok := p.Symbol(name); ok {
		if size == 0 {
			size = 4
		}
		return a, min(size, debugger.MaxWatch), nil
	}
	cur := s.d.Selected()
	s.d.Select(th)
	defer s.d.Select(cur)
	a, err := s.d.Eval(name)
	return a, 4, err
}

func (s *server) dataBreakpointInfo(r *godap.DataBreakpointInfoRequest) {
	req := &r.Request
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	th := s.last
	if ref := r.Arguments.VariablesReference; ref > 0 {
		th = ref>>3 - 1
	}
	body := godap.DataBreakpointInfoResponseBody{Description: "cannot watch " + r.Arguments.Name}
	if th >= 0 && th < len(s.d.Threads()) {
		if a, n, err := s.dataTarget(th, r.Arguments.Name); err == nil {
			body = godap.DataBreakpointInfoResponseBody{DataId: fmt.Sprintf("%d:0x%08x:%d", th, a, n),
				Description: fmt.Sprintf("%s: %d bytes at 0x%08x (%s)", r.Arguments.Name, n, a, s.d.Threads()[th].Name),
				AccessTypes: []godap.DataBreakpointAccessType{"write"}}
		} else {
			body.Description += ": " + err.Error()
		}
	}
	s.send(&godap.DataBreakpointInfoResponse{Response: s.response(req, true, ""), Body: body})
}

func (s *server) setDataBreakpoints(r *godap.SetDataBreakpointsRequest) {
	req := &r.Request
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	for _, b := range s.data {
		for _, p := range b.points {
			s.d.Delete(p)
		}
	}
	s.data = nil
	var out []godap.Breakpoint
	for _, b := range r.Arguments.Breakpoints {
		s.nbp++
		res := godap.Breakpoint{Id: s.nbp}
		var th int
		var a, n uint32
		if _, err := fmt.Sscanf(b.DataId, "%d:0x%x:%d", &th, &a, &n); err != nil || th < 0 || th >= len(s.d.Threads()) {
			res.Message = fmt.Sprintf("bad data id %q", b.DataId)
			out = append(out, res)
			continue
		}
		id, err := s.d.SetWatchpoint(th, a, n, debugger.BreakOptions{Condition: b.Condition, HitCondition: b.HitCondition})
		if err != nil {
			res.Message = err.Error()
		} else {
			res.Verified = true
			s.data = append(s.data, bp{id: res.Id, points: []int{id}})
		}
		out = append(out, res)
	}
	s.send(&godap.SetDataBreakpointsResponse{Response: s.response(req, true, ""), Body: godap.SetDataBreakpointsResponseBody{Breakpoints: out}})
}

func (s *server) stackTrace(r *godap.StackTraceRequest) {
	req := &r.Request
	th, ok := s.thread(r.Arguments.ThreadId)
	if !ok {
		s.fail(req, "no thread %d", r.Arguments.ThreadId)
		return
	}
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	t := s.d.Threads()[th]
	frames, _ := t.Program.Frames(t.CPU)
	var out []godap.StackFrame
	for i, f := range frames {
		name := f.Func
		if name == "" {
			name = fmt.Sprintf("0x%08x", f.PC)
		}
		sf := godap.StackFrame{Id: th<<frameBits | i + 1, Name: name, InstructionPointerReference: s.ref(th, f.PC)}
		if file, line, ok := t.Program.LineAt(f.PC); ok {
			sf.Line, sf.Column = line, 1
			sf.Source = &godap.Source{Name: filepath.Base(file), Path: s.d.SourcePath(file)}
		}
		out = append(out, sf)
	}
	start := min(r.Arguments.StartFrame, len(out))
	end := len(out)
	if r.Arguments.Levels > 0 {
		end = min(start+r.Arguments.Levels, end)
	}
	s.send(&godap.StackTraceResponse{Response: s.response(req, true, ""), Body: godap.StackTraceResponseBody{StackFrames: out[start:end], TotalFrames: len(out)}})
}

func (s *server) scopes(r *godap.ScopesRequest) {
	req := &r.Request
	th := (r.Arguments.FrameId - 1) >> frameBits
	if s.d == nil || r.Arguments.FrameId < 1 || th >= len(s.d.Threads()) {
		s.fail(req, "no frame %d", r.Arguments.FrameId)
		return
	}
	ref := (th + 1) << 3
	sc := []godap.Scope{
		{Name: "Registers", PresentationHint: "registers", VariablesReference: ref | scopeRegisters},
		{Name: "Special registers", VariablesReference: ref | scopeSpecials},
	}
	if s.sess.Devices != nil {
		sc = append(sc, godap.Scope{Name: "Devices", VariablesReference: ref | scopeDevices})
	}
	sc = append(sc, godap.Scope{Name: "Globals", VariablesReference: ref | scopeGlobals, Expensive: true})
	s.send(&godap.ScopesResponse{Response: s.response(req, true, ""), Body: godap.ScopesResponseBody{Scopes: sc}})
}

func hex32(v uint32) string { return fmt.Sprintf("0x%08x", v) }

func (s *server) variables(r *godap.VariablesRequest) {
	req := &r.Request
	ref := r.Arguments.VariablesReference
	th, scope := ref>>3-1, ref&7
	if s.d == nil || th < 0 || th >= len(s.d.Threads()) {
		s.fail(req, "no variables %d", ref)
		return
	}
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	t := s.d.Threads()[th]
	c := t.CPU
	var vs []godap.Variable
	switch scope {
	case scopeRegisters:
		for i := 0; i < 32; i++ {
			r := isa.Reg(i)
			v := c.Reg(r)
			vs = append(vs, godap.Variable{Name: r.String(), Value: hex32(v), Type: "uint32", EvaluateName: "%" + r.String(), MemoryReference: s.ref(th, v)})
		}
		vs = append(vs, godap.Variable{Name: "npc", Value: hex32(c.NPC), Type: "uint32"},
			godap.Variable{Name: "flags", Value: fmt.Sprintf("%#x", uint8(c.Flags)), Type: "uint8"})
	case scopeSpecials:
		for _, sr := range memsys.SpecialRegisters {
			v, err := c.Mem.Specials.Peek(sr.Off)
			val := hex32(v)
			if err != nil {
				val = err.Error()
			}
			vs = append(vs, godap.Variable{Name: sr.Name, Value: val, Type: sr.Doc, EvaluateName: sr.Name})
		}
	case scopeDevices:
		if s.sess.Devices != nil {
			for _, v := range s.sess.Devices(th) {
				vs = append(vs, godap.Variable{Name: v.Name, Value: v.Value})
			}
		}
	case scopeGlobals:
		for _, g := range t.Program.Globals() {
			vs = append(vs, godap.Variable{Name: g.Name, Value: globalValue(c.Mem, g), EvaluateName: g.Name, MemoryReference: s.ref(th, g.Addr)})
		}
	}
	s.send(&godap.VariablesResponse{Response: s.response(req, true, ""), Body: godap.VariablesResponseBody{Variables: vs}})
}

// globalValue shows a global: a number for 1, 2 and 4 bytes, else its
// first 16 bytes.
func globalValue(m *memsys.Memory, g debugger.Global) string {
	n := g.Size
	if n == 0 {
		n = 4
	}
	b, err := m.Read(g.Addr, min(n, 16))
	if err != nil {
		return fmt.Sprintf("(at 0x%08x, not in SRAM)", g.Addr)
	}
	switch n {
	case 1, 2, 4:
		var v uint32
		for _, x := range b {
			v = v<<8 | uint32(x)
		}
		return fmt.Sprintf("0x%0*x (%d)", 2*n, v, v)
	}
	more := ""
	if n > 16 {
		more = fmt.Sprintf(" ... (%d bytes)", n)
	}
	return fmt.Sprintf("% x%s", b, more)
}

func (s *server) setVariable(r *godap.SetVariableRequest) {
	req := &r.Request
	ref := r.Arguments.VariablesReference
	th, scope := ref>>3-1, ref&7
	if s.d == nil || th < 0 || th >= len(s.d.Threads()) || scope != scopeRegisters {
		s.fail(req, "only registers can be set")
		return
	}
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	v, err := strconv.ParseUint(strings.TrimSpace(r.Arguments.Value), 0, 32)
	if err != nil {
		s.fail(req, "bad value %q (a 32-bit number)", r.Arguments.Value)
		return
	}
	if err := s.d.WriteRegister(th, r.Arguments.Name, uint32(v)); err != nil {
		s.fail(req, "%v", err)
		return
	}
	s.send(&godap.SetVariableResponse{Response: s.response(req, true, ""), Body: godap.SetVariableResponseBody{Value: hex32(uint32(v))}})
}

// evaluate: in the debug console (context repl) a line that starts with
// a debugger command runs it and answers with its transcript; anything
// else is a register, a special register, an address expression (the
// word stored there) or another expression (its value: [ADDR],
// comparisons, ...).
func (s *server) evaluate(r *godap.EvaluateRequest) {
	req := &r.Request
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	th := s.last
	if r.Arguments.FrameId > 0 {
		th = (r.Arguments.FrameId - 1) >> frameBits
	}
	if th >= len(s.d.Threads()) {
		th = 0
	}
	expr := strings.TrimSpace(r.Arguments.Expression)
	cur := s.d.Selected()
	s.d.Select(th)
	defer s.d.Select(cur)
	if f := strings.Fields(expr); r.Arguments.Context == "repl" && len(f) > 0 && s.d.IsCommand(f[0]) {
		var buf bytes.Buffer
		var stop *debugger.Stop
		s.d.OnStop = func(st debugger.Stop) { stop = &st }
		s.capture = &buf
		s.d.Exec(expr)
		s.capture, s.d.OnStop = nil, nil
		s.send(&godap.EvaluateResponse{Response: s.response(req, true, ""), Body: godap.EvaluateResponseBody{Result: strings.TrimRight(buf.String(), "\n")}})
		if stop != nil {
			s.report(*stop)
		}
		return
	}
	if v, ok := s.d.ReadRegister(th, expr); ok && !strings.ContainsAny(expr, "+-") {
		if _, _, sym := s.d.Threads()[th].Program.Symbol(expr); !sym || strings.HasPrefix(expr, "%") {
			s.send(&godap.EvaluateResponse{Response: s.response(req, true, ""), Body: godap.EvaluateResponseBody{Result: fmt.Sprintf("0x%08x (%d)", v, int32(v)), MemoryReference: s.ref(th, v)}})
			return
		}
	}
	a, isValue, err := s.d.Value(expr)
	if err != nil {
		s.fail(req, "%v", err)
		return
	}
	if isValue {
		s.send(&godap.EvaluateResponse{Response: s.response(req, true, ""), Body: godap.EvaluateResponseBody{Result: fmt.Sprintf("0x%08x (%d)", a, int32(a))}})
		return
	}
	res := s.d.Describe(a)
	if w, err := s.d.Threads()[th].CPU.Mem.Read(a, 4); err == nil {
		res = fmt.Sprintf("[%s] = 0x%02x%02x%02x%02x", res, w[0], w[1], w[2], w[3])
	}
	s.send(&godap.EvaluateResponse{Response: s.response(req, true, ""), Body: godap.EvaluateResponseBody{Result: res, MemoryReference: s.ref(th, a)}})
}

// sramPrefix gives how many of n bytes at a are in SRAM.
func sramPrefix(m *memsys.Memory, a uint32, n int) int {
	size := uint64(len(m.SRAM))
	if uint64(a) >= size {
		return 0
	}
	return int(min(uint64(n), size-uint64(a)))
}

func (s *server) readMemory(r *godap.ReadMemoryRequest) {
	req := &r.Request
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	th, a, _, err := s.parseRef(r.Arguments.MemoryReference, r.Arguments.Offset)
	if err != nil || r.Arguments.Count < 0 || r.Arguments.Count > maxRead {
		s.fail(req, "readMemory: bad reference or count (at most %d bytes): %v", maxRead, err)
		return
	}
	m := s.d.Threads()[th].CPU.Mem
	n := sramPrefix(m, a, r.Arguments.Count)
	var data []byte
	if n > 0 {
		data, _ = m.Read(a, uint32(n))
	}
	s.send(&godap.ReadMemoryResponse{Response: s.response(req, true, ""), Body: godap.ReadMemoryResponseBody{Address: hex32(a),
		Data: base64.StdEncoding.EncodeToString(data), UnreadableBytes: r.Arguments.Count - n}})
}

func (s *server) writeMemory(r *godap.WriteMemoryRequest) {
	req := &r.Request
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	th, a, _, err := s.parseRef(r.Arguments.MemoryReference, r.Arguments.Offset)
	if err != nil {
		s.fail(req, "writeMemory: %v", err)
		return
	}
	data, err := base64.StdEncoding.DecodeString(r.Arguments.Data)
	if err != nil || len(data) > maxRead {
		s.fail(req, "writeMemory: bad data (base64, at most %d bytes)", maxRead)
		return
	}
	if err := s.d.Threads()[th].CPU.Mem.Write(a, data); err != nil {
		s.fail(req, "writeMemory: %v", err)
		return
	}
	s.send(&godap.WriteMemoryResponse{Response: s.response(req, true, ""), Body: godap.WriteMemoryResponseBody{BytesWritten: len(data)}})
}

func (s *server) disassemble(r *godap.DisassembleRequest) {
	req := &r.Request
	if !s.lock(req) {
		return
	}
	defer s.mu.Unlock()
	th, a, _, err := s.parseRef(r.Arguments.MemoryReference, r.Arguments.Offset+4*r.Arguments.InstructionOffset)
	if err != nil || r.Arguments.InstructionCount < 0 || r.Arguments.InstructionCount > maxRead/4 {
		s.fail(req, "disassemble: bad reference or count: %v", err)
		return
	}
	t := s.d.Threads()[th]
	a &^= 3
	var out []godap.DisassembledInstruction
	for i := 0; i < r.Arguments.InstructionCount; i++ {
		pc := a + uint32(4*i)
		in := godap.DisassembledInstruction{Address: hex32(pc), Instruction: "(not a word of SRAM)", Symbol: t.Program.Label(pc)}
		if w, err := t.CPU.Mem.Word(pc); err == nil {
			in.InstructionBytes = fmt.Sprintf("%08x", w)
			in.Instruction = t.Program.Disassemble(pc, w)
		}
		if file, line, ok := t.Program.LineAt(pc); ok {
			in.Line = line
			in.Location = &godap.Source{Name: filepath.Base(file), Path: s.d.SourcePath(file)}
		}
		out = append(out, in)
	}
	s.send(&godap.DisassembleResponse{Response: s.response(req, true, ""), Body: godap.DisassembleResponseBody{Instructions: out}})
}
