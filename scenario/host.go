package scenario

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"strings"

	"lanaiemu/board"
	"lanaiemu/hostbus"
	"lanaiemu/internal/readfile"
	"lanaiemu/objfile"
	"lanaiemu/sim"
)

// HostScript scripts a node's host side as a Myrinet driver plays it
// (docs/lanai-sim.md, "Host scripts"): Main runs from time 0, OnIRQ runs
// each time the board's interrupt line is high and no handler is running,
// holding Main still until it returns, as an interrupt does. Every access
// to the board goes through its PCI window (hostbus.Window) and costs the
// window's PIO time; host memory accesses cost nothing.
type HostScript struct {
	// Poll is how often a wait re-checks its condition when the wait
	// gives no "every" (default 1us).
	Poll *Duration `json:"poll,omitempty"`
	// IRQLatency is the time from the interrupt line going high to the
	// handler's first access (default 1us).
	IRQLatency *Duration `json:"irq_latency,omitempty"`
	Main       []Action  `json:"main"`
	OnIRQ      []Action  `json:"on_irq,omitempty"`
}

// Action is one step of a host script. Op says which; the other fields
// are its operands. Addr, Value, Mask, Len, Count, Word and Until are
// expressions: numbers, $variables ($node is the node's number, $now the
// host time in ns), firmware symbols, C operators, min and max. Words are
// 32-bit and big-endian, as the LANai sees them (the script does a
// driver's htonl/ntohl). docs/lanai-sim.md lists the ops.
type Action struct {
	Op      string    `json:"op"`
	Space   string    `json:"space,omitempty"`
	Addr    string    `json:"addr,omitempty"`
	Reg     string    `json:"reg,omitempty"`
	Word    string    `json:"word,omitempty"`
	Value   string    `json:"value,omitempty"`
	Mask    string    `json:"mask,omitempty"`
	Len     string    `json:"len,omitempty"`
	Count   string    `json:"count,omitempty"`
	Until   string    `json:"until,omitempty"`
	Var     string    `json:"var,omitempty"`
	Cond    string    `json:"cond,omitempty"`
	Pattern string    `json:"pattern,omitempty"`
	Name    string    `json:"name,omitempty"`
	Text    string    `json:"text,omitempty"`
	Vars    []string  `json:"vars,omitempty"`
	File    string    `json:"file,omitempty"`
	Every   *Duration `json:"every,omitempty"`
	Timeout *Duration `json:"timeout,omitempty"`
	Time    *Duration `json:"time,omitempty"`
	Then    []Action  `json:"then,omitempty"`
	Else    []Action  `json:"else,omitempty"`
	Do      []Action  `json:"do,omitempty"`
}

// Host script limits: a loop runs at most maxLoop times, and one event of
// a script runs at most maxSteps steps that take no time (a script
// cannot spin the host's clock still).
const (
	maxLoop           = 1 << 24
	maxSteps          = 1 << 22
	defaultPoll       = sim.Microsecond
	defaultIRQLatency = sim.Microsecond
	defaultWaitLimit  = sim.Second
)

// specialRegs names the special registers a script may read and write.
var specialRegs = map[string]uint32{
	"ISR": board.RegISR, "EIMR": board.RegEIMR, "IT0": board.RegIT0, "RTC": board.RegRTC,
	"CPUC": board.RegCPUC, "IT1": board.RegIT1, "IT2": board.RegIT2, "MYRINET": board.RegMYRINET,
	"LED": board.RegLED, "CLOCK": board.RegCLOCK, "RMP": board.RegRMP, "RML": board.RegRML,
	"SMP": board.RegSMP, "SMH": board.RegSMH, "SML": board.RegSML, "SMLT": board.RegSMLT, "SA": board.RegSA,
}

// step is a compiled Action.
type step struct {
	a                                    *Action
	addr, value, mask, length, count, wd expr
	until                                expr
	reg                                  uint32
	then, els, do                        []step
	every, timeout, delay                sim.Time
	ne                                   bool
	where                                string
}

// loadHostScript reads a host script file (NodeSpec.HostFile).
func (s *Scenario) loadHostScript(i int, path string) (*HostScript, error) {
	data, err := readfile.Read(s.resolve(path), readfile.Text)
	if err != nil {
		return nil, fmt.Errorf("%s: nodes[%d].host_file: %w (%w)", s.Path, i, err, ErrBadScenario)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	h := &HostScript{}
	if err := dec.Decode(h); err != nil {
		return nil, s.Errorf("nodes[%d].host_file %s: %v", i, path, err)
	}
	return h, nil
}

// compileScript checks and compiles a script's actions.
func compileScript(where string, as []Action) ([]step, error) {
	var out []step
	for i := range as {
		a := &as[i]
		w := fmt.Sprintf("%s[%d] (%s)", where, i, a.Op)
		st := step{a: a, where: w}
		need := func(field, v string, dst *expr) error {
			if v == "" {
				return fmt.Errorf("%s: %s missing", w, field)
			}
			e, err := compileExpr(v)
			if err != nil {
				return fmt.Errorf("%s: %s: %v", w, field, err)
			}
			*dst = e
			return nil
		}
		opt := func(field, v string, dst *expr) error {
			if v == "" {
				return nil
			}
			return need(field, v, dst)
		}
		needVar := func() error {
			if a.Var == "" {
				return fmt.Errorf("%s: var missing", w)
			}
			return nil
		}
		var errs []error
		add := func(err error) {
			if err != nil {
				errs = append(errs, err)
			}
		}
		switch a.Op {
		case "load", "end":
		case "set":
			add(needVar())
			add(need("value", a.Value, &st.value))
		case "sram_read", "host_read":
			add(needVar())
			add(need("addr", a.Addr, &st.addr))
		case "sram_write", "host_write":
			add(need("addr", a.Addr, &st.addr))
			add(need("value", a.Value, &st.value))
		case "special_read", "special_write":
			r, ok := specialRegs[a.Reg]
			if !ok {
				add(fmt.Errorf("%s: reg %q unknown", w, a.Reg))
			}
			st.reg = r
			if a.Op == "special_read" {
				add(needVar())
			} else {
				add(need("value", a.Value, &st.value))
			}
		case "pointer_write":
			add(need("word", a.Word, &st.wd))
			add(need("value", a.Value, &st.value))
		case "host_fill", "host_check":
			add(need("addr", a.Addr, &st.addr))
			add(need("len", a.Len, &st.length))
			add(opt("value", a.Value, &st.value))
			if _, ok := patterns[a.Pattern]; !ok {
				add(fmt.Errorf("%s: pattern %q (zero or xor_index)", w, a.Pattern))
			}
			if a.Op == "host_check" {
				add(needVar())
			}
		case "wait":
			switch a.Space {
			case "sram", "host":
				add(need("addr", a.Addr, &st.addr))
			case "special":
				r, ok := specialRegs[a.Reg]
				if !ok {
					add(fmt.Errorf("%s: reg %q unknown", w, a.Reg))
				}
				st.reg = r
			case "expr":
				add(need("until", a.Until, &st.until))
			case "irq":
			default:
				add(fmt.Errorf("%s: space %q (sram, host, special, irq or expr)", w, a.Space))
			}
			if a.Space == "irq" && a.Value == "" {
				a.Value = "1" // the line high
			}
			if a.Space != "expr" {
				add(need("value", a.Value, &st.value))
				add(opt("mask", a.Mask, &st.mask))
			}
			switch a.Cond {
			case "", "eq":
			case "ne":
				st.ne = true
			default:
				add(fmt.Errorf("%s: cond %q (eq or ne)", w, a.Cond))
			}
			if a.Every != nil {
				st.every = sim.Time(*a.Every)
				if st.every != 0 && st.every < minInterval {
					add(fmt.Errorf("%s: every %v: at least %v (0: the script's poll)", w, st.every, minInterval))
				}
			}
			st.timeout = defaultWaitLimit
			if a.Timeout != nil {
				st.timeout = sim.Time(*a.Timeout)
			}
		case "delay":
			if a.Time == nil {
				add(fmt.Errorf("%s: time missing", w))
			} else {
				st.delay = sim.Time(*a.Time)
			}
		case "if":
			add(need("value", a.Value, &st.value))
		case "repeat":
			add(need("count", a.Count, &st.count))
		case "while":
			add(need("until", a.Until, &st.until))
		case "expect":
			add(need("value", a.Value, &st.value))
			if a.Text == "" {
				add(fmt.Errorf("%s: text missing (what was expected)", w))
			}
		case "barrier":
			if a.Name == "" {
				add(fmt.Errorf("%s: name missing", w))
			}
		case "log":
		case "dump":
			if a.Space != "sram" && a.Space != "host" {
				add(fmt.Errorf("%s: space %q (sram or host)", w, a.Space))
			}
			add(need("addr", a.Addr, &st.addr))
			add(need("len", a.Len, &st.length))
			if a.File == "" {
				add(fmt.Errorf("%s: file missing", w))
			}
		default:
			add(fmt.Errorf("%s: unknown op", w))
		}
		if len(errs) > 0 {
			return nil, errs[0]
		}
		var err error
		if st.then, err = compileScript(w+".then", a.Then); err != nil {
			return nil, err
		}
		if st.els, err = compileScript(w+".else", a.Else); err != nil {
			return nil, err
		}
		if st.do, err = compileScript(w+".do", a.Do); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// patterns fill host memory words: word i of a buffer. xor_index is
// Cplant's DMA test pattern (value ^ (i<<16 | i), MCP/ebus.h).
var patterns = map[string]func(seed, i uint32) uint32{
	"zero":      func(uint32, uint32) uint32 { return 0 },
	"xor_index": func(seed, i uint32) uint32 { return seed ^ (i<<16 | i&0xFFFF) },
}

// ---- running ----

// HostResult is what a node's host script left: its variables, log
// lines and the first failure.
type HostResult struct {
	Vars map[string]uint32
	Log  []string // the first MaxHostLog lines
	// LogDropped counts the lines after the first MaxHostLog, not kept.
	LogDropped uint64
	Err        error
	Done       bool // the main script reached its end
}

// MaxHostLog bounds the log lines a host keeps for the summary and
// --stats: a loop that logs (a while, nested repeats) kept every line in
// memory until the run's end (docs/bad-input.md).
const MaxHostLog = 10000

// nodeHost runs one node's script.
type nodeHost struct {
	w      *World
	id     int
	b      *board.Board
	win    *hostbus.Window
	mem    *hostbus.HostMemory
	img    []byte
	syms   map[string]uint32
	poll   sim.Time
	irqLat sim.Time

	main, irq    []step
	mainT, irqT  *thread
	inIRQ        bool
	irqScheduled bool
	mainParked   bool
	barrierWait  string
	now          sim.Time // the time of the step being run ($now, in ns)
	res          HostResult
}

// frame is a position in a list of steps; loops keep their count.
type frame struct {
	steps []step
	pc    int
	loop  *step  // the repeat or while this frame is the body of
	left  uint32 // repeat: iterations left after this one
}

type thread struct {
	h         *nodeHost
	name      string
	frames    []frame
	waitSince sim.Time
	waiting   bool // in a wait since waitSince
	parked    bool // at a barrier: the release reschedules it
}

func (h *nodeHost) variable(n string) (uint32, bool) {
	if n == "now" {
		return uint32(h.now / sim.Nanosecond), true
	}
	v, ok := h.res.Vars[n]
	return v, ok
}

func (h *nodeHost) symbol(n string) (uint32, bool) {
	v, ok := h.syms[n]
	return v, ok
}

func (h *nodeHost) fail(t *thread, st *step, now sim.Time, err error) {
	if h.res.Err == nil {
		h.res.Err = fmt.Errorf("node %d host %s at %v: %s: %v", h.id, t.name, now, st.where, err)
	}
	t.frames = nil
}

func (h *nodeHost) logf(now sim.Time, format string, a ...any) {
	if len(h.res.Log) == MaxHostLog {
		h.res.LogDropped++
		return
	}
	h.res.Log = append(h.res.Log, fmt.Sprintf("[%v] node %d: %s", now, h.id, fmt.Sprintf(format, a...)))
}

// start schedules the main script at time 0.
func (h *nodeHost) start() {
	h.mainT = &thread{h: h, name: "main", frames: []frame{{steps: h.main}}}
	h.schedule(h.mainT, 0)
}

func (h *nodeHost) schedule(t *thread, at sim.Time) {
	h.w.Q.Schedule(at, h.id, func() { h.resume(t, h.w.Q.Now()) })
}

// irqLine is called when the board's interrupt line changes (from inside
// the board's run, at the board's time at).
func (h *nodeHost) irqLine(at sim.Time) {
	if h.win.IRQ() && !h.inIRQ && !h.irqScheduled && len(h.irq) > 0 && h.res.Err == nil {
		h.irqScheduled = true
		h.w.Q.Schedule(max(at, h.w.Q.Now())+h.irqLat, h.id, h.enterIRQ)
	}
}

func (h *nodeHost) enterIRQ() {
	h.irqScheduled = false
	if h.inIRQ || !h.win.IRQ() || h.res.Err != nil {
		return
	}
	h.inIRQ = true
	h.irqT = &thread{h: h, name: "on_irq", frames: []frame{{steps: h.irq}}}
	h.resume(h.irqT, h.w.Q.Now())
}

func (h *nodeHost) leaveIRQ(now sim.Time) {
	h.inIRQ = false
	if h.mainParked {
		h.mainParked = false
		h.schedule(h.mainT, now)
	}
	h.irqLine(now)
}

// resume runs thread t at time now until it waits, takes time or ends.
func (h *nodeHost) resume(t *thread, now sim.Time) {
	if t == h.mainT && h.inIRQ {
		h.mainParked = true // the handler holds the CPU
		return
	}
	for n := 0; ; n++ {
		if h.res.Err != nil {
			t.frames = nil
		}
		if len(t.frames) == 0 {
			if t == h.irqT {
				h.leaveIRQ(now)
			} else {
				h.res.Done = h.res.Err == nil
				h.w.hostDone(now)
			}
			return
		}
		if n >= maxSteps {
			h.fail(t, &step{where: "script"}, now, fmt.Errorf("%d steps without time passing", maxSteps))
			continue
		}
		f := &t.frames[len(t.frames)-1]
		if f.pc >= len(f.steps) {
			h.endFrame(t, now)
			continue
		}
		st := &f.steps[f.pc]
		next, wait, err := h.exec(t, st, now)
		if err != nil {
			h.fail(t, st, now, err)
			continue
		}
		if wait {
			if !t.parked {
				h.schedule(t, next) // the same step again
			}
			return
		}
		if next > now {
			h.schedule(t, next)
			return
		}
	}
}

// endFrame pops a finished list of steps; a loop body starts again while
// its loop lasts.
func (h *nodeHost) endFrame(t *thread, now sim.Time) {
	f := &t.frames[len(t.frames)-1]
	if lp := f.loop; lp != nil {
		again := false
		switch lp.a.Op {
		case "repeat":
			if f.left > 0 {
				f.left--
				again = true
			}
		case "while":
			v, err := lp.until(h)
			if err != nil {
				h.fail(t, lp, now, err)
				return
			}
			again = v != 0
			if again {
				f.left++
				if f.left >= maxLoop {
					h.fail(t, lp, now, fmt.Errorf("more than %d iterations", maxLoop))
					return
				}
			}
		}
		if again {
			f.pc = 0
			if lp.a.Var != "" {
				h.res.Vars[lp.a.Var]++
			}
			return
		}
	}
	t.frames = t.frames[:len(t.frames)-1]
}

// exec runs one step at time now. It returns when the thread goes on
// (next; now if the step took no time), or that it must run the step
// again at next (wait).
func (h *nodeHost) exec(t *thread, st *step, now sim.Time) (next sim.Time, wait bool, err error) {
	a := st.a
	h.now = now
	f := &t.frames[len(t.frames)-1]
	advance := func() { f.pc++ }
	ev := func(e expr) uint32 {
		if err != nil || e == nil {
			return 0
		}
		var v uint32
		v, err = e(h)
		return v
	}
	h.win.At(now)
	next = now
	switch a.Op {
	case "load":
		next, err = h.load(now)
	case "end":
		t.frames = t.frames[:0]
		return now, false, nil
	case "set":
		v := ev(st.value)
		if err == nil {
			h.res.Vars[a.Var] = v
		}
	case "sram_read":
		var v uint32
		if addr := ev(st.addr); err == nil {
			v, next, err = h.win.Read32(addr)
			h.res.Vars[a.Var] = bits.ReverseBytes32(v)
		}
	case "sram_write":
		addr, v := ev(st.addr), ev(st.value)
		if err == nil {
			next, err = h.win.Write32(addr, bits.ReverseBytes32(v))
		}
	case "special_read":
		var v uint32
		v, next, err = h.win.Read32(hostbus.SpecialOff + st.reg)
		h.res.Vars[a.Var] = bits.ReverseBytes32(v)
	case "special_write":
		if v := ev(st.value); err == nil {
			next, err = h.win.Write32(hostbus.SpecialOff+st.reg, bits.ReverseBytes32(v))
		}
	case "pointer_write":
		wd, v := ev(st.wd), ev(st.value)
		if err == nil {
			if wd >= hostbus.PointerWords {
				err = fmt.Errorf("pointer word %d (0..%d)", wd, hostbus.PointerWords-1)
				break
			}
			next, err = h.win.Write32(hostbus.PointerOff+4*wd, v)
		}
	case "host_read":
		if addr := ev(st.addr); err == nil {
			var b [4]byte
			err = h.mem.Read(uint64(addr), b[:])
			h.res.Vars[a.Var] = binary.BigEndian.Uint32(b[:])
		}
	case "host_write":
		addr, v := ev(st.addr), ev(st.value)
		if err == nil {
			err = h.mem.Write(uint64(addr), binary.BigEndian.AppendUint32(nil, v))
		}
	case "host_fill", "host_check":
		addr, n, seed := ev(st.addr), ev(st.length), ev(st.value)
		if err != nil {
			break
		}
		if uint64(addr)+uint64(n) > h.mem.Size() {
			err = fmt.Errorf("host range %#x+%#x outside host memory (%#x bytes)", addr, n, h.mem.Size())
			break
		}
		buf := make([]byte, (n+3)&^3)
		p := patterns[a.Pattern]
		for i := uint32(0); i < uint32(len(buf))/4; i++ {
			binary.BigEndian.PutUint32(buf[4*i:], p(seed, i))
		}
		buf = buf[:n]
		if a.Op == "host_fill" {
			err = h.mem.Write(uint64(addr), buf)
			break
		}
		got := make([]byte, n)
		if err = h.mem.Read(uint64(addr), got); err == nil {
			bad := uint32(0)
			for i := 0; i < len(got); i += 4 {
				e := min(i+4, len(got))
				if string(got[i:e]) != string(buf[i:e]) {
					bad++
				}
			}
			h.res.Vars[a.Var] = bad
		}
	case "wait":
		return h.wait(t, st, now)
	case "delay":
		next = now + st.delay
	case "if":
		v := ev(st.value)
		if err != nil {
			break
		}
		advance()
		body := st.els
		if v != 0 {
			body = st.then
		}
		if len(body) > 0 {
			t.frames = append(t.frames, frame{steps: body})
		}
		return now, false, nil
	case "repeat":
		c := ev(st.count)
		if err != nil {
			break
		}
		if c > maxLoop {
			err = fmt.Errorf("count %d over %d", c, maxLoop)
			break
		}
		advance()
		if a.Var != "" {
			h.res.Vars[a.Var] = 0
		}
		if c > 0 && len(st.do) > 0 {
			t.frames = append(t.frames, frame{steps: st.do, loop: st, left: c - 1})
		}
		return now, false, nil
	case "while":
		v := ev(st.until)
		if err != nil {
			break
		}
		advance()
		if a.Var != "" {
			h.res.Vars[a.Var] = 0
		}
		if v != 0 && len(st.do) > 0 {
			t.frames = append(t.frames, frame{steps: st.do, loop: st})
		}
		return now, false, nil
	case "expect":
		if v := ev(st.value); err == nil && v == 0 {
			err = fmt.Errorf("expected %s (%s)", a.Text, a.Value)
		}
	case "barrier":
		if t != h.mainT {
			return now, false, fmt.Errorf("a barrier in an interrupt handler")
		}
		if !h.w.barrier(h, a.Name, now) {
			return now, true, nil // rescheduled by the barrier's release
		}
	case "log":
		var parts []string
		for _, v := range a.Vars {
			x, ok := h.res.Vars[v]
			if !ok {
				err = fmt.Errorf("log: variable $%s is not set", v)
				break
			}
			parts = append(parts, fmt.Sprintf("%s=%d", v, x))
		}
		h.logf(now, "%s %s", a.Text, strings.Join(parts, " "))
	case "dump":
		addr, n := ev(st.addr), ev(st.length)
		if err != nil {
			break
		}
		var buf []byte // made only for a range that fits
		if a.Space == "sram" {
			buf, err = h.b.CPU().Mem.Read(addr, n)
		} else if size := h.mem.Size(); uint64(addr)+uint64(n) > size {
			err = &hostbus.AddressError{Addr: uint64(addr), Len: int(n), Size: size}
		} else {
			buf = make([]byte, n)
			err = h.mem.Read(uint64(addr), buf)
		}
		if err == nil {
			err = os.WriteFile(h.w.S.resolve(a.File), buf, 0o644)
		}
	}
	if err != nil {
		return now, false, err
	}
	advance()
	return next, false, nil
}

// wait checks the step's condition: on success the thread goes on, else
// it runs the step again one poll later (or fails at the timeout).
func (h *nodeHost) wait(t *thread, st *step, now sim.Time) (sim.Time, bool, error) {
	if !t.waiting {
		t.waiting, t.waitSince = true, now
	}
	var v, want uint32
	var err error
	next := now
	mask := uint32(0xFFFFFFFF)
	if st.mask != nil {
		if mask, err = st.mask(h); err != nil {
			return now, false, err
		}
	}
	if st.value != nil {
		if want, err = st.value(h); err != nil {
			return now, false, err
		}
	}
	switch st.a.Space {
	case "sram":
		var addr uint32
		if addr, err = st.addr(h); err == nil {
			v, next, err = h.win.Read32(addr)
			v = bits.ReverseBytes32(v)
		}
	case "special":
		v, next, err = h.win.Read32(hostbus.SpecialOff + st.reg)
		v = bits.ReverseBytes32(v)
	case "host":
		var addr uint32
		if addr, err = st.addr(h); err == nil {
			var b [4]byte
			err = h.mem.Read(uint64(addr), b[:])
			v = binary.BigEndian.Uint32(b[:])
		}
	case "irq":
		v = b2u(h.win.IRQ()) // the host's own interrupt line: no bus access
	case "expr":
		v, err = st.until(h)
	}
	if err != nil {
		return now, false, err
	}
	done := (v&mask == want) != st.ne
	if st.a.Space == "expr" {
		done = v != 0
	}
	if done {
		t.waiting = false
		t.frames[len(t.frames)-1].pc++
		return next, false, nil
	}
	if now-t.waitSince >= st.timeout {
		t.waiting = false
		return now, false, fmt.Errorf("timed out after %v (last value %#x)", st.timeout, v)
	}
	every := st.every
	if every == 0 {
		every = h.poll
	}
	return max(next, now+every), true, nil
}

// load is a driver's firmware load through the window (Cplant's mcpload:
// lanai_clear_memory, then lanai_load_and_reset): interrupts off, the
// LANai and EBUS held in reset, the board identified from its EEPROM
// (CPU version, SRAM size, clock value, board id words into $eeprom_*),
// SRAM cleared, then hostbus.Window.LoadFirmware (CLOCK from the EEPROM,
// the sections, release).
func (h *nodeHost) load(now sim.Time) (sim.Time, error) {
	w := h.win
	if _, err := w.Write32(hostbus.ControlOff, hostbus.CtlIntDisable); err != nil {
		return now, err
	}
	if _, err := w.Write32(hostbus.ControlOff, hostbus.CtlResetOn|hostbus.CtlEResetOn); err != nil {
		return now, err
	}
	ee := func(off uint32, n int) (uint32, error) {
		var v uint32
		var err error
		switch n {
		case 2:
			var x uint16
			x, _, err = w.Read16(hostbus.EEPROMAltOff + off)
			v = uint32(bits.ReverseBytes16(x))
		default:
			v, _, err = w.Read32(hostbus.EEPROMAltOff + off)
			v = bits.ReverseBytes32(v)
		}
		return v, err
	}
	fields := []struct {
		name string
		off  uint32
		n    int
	}{
		{"eeprom_cpu_version", hostbus.EECPUVersion, 2}, {"eeprom_sram_size", hostbus.EESRAMSize, 4},
		{"eeprom_clockval", hostbus.EEClockVal, 4}, {"eeprom_board_type", hostbus.EEBoardType, 2},
		{"eeprom_board_id_hi", hostbus.EEBoardID, 2}, {"eeprom_board_id_lo", hostbus.EEBoardID + 2, 4},
	}
	for _, f := range fields {
		v, err := ee(f.off, f.n)
		if err != nil {
			return now, err
		}
		h.res.Vars[f.name] = v
	}
	if sram := h.res.Vars["eeprom_sram_size"]; sram > uint32(len(h.b.CPU().Mem.SRAM)) {
		return now, fmt.Errorf("load: the EEPROM says %#x bytes of SRAM, the board has %#x", sram, len(h.b.CPU().Mem.SRAM))
	}
	if _, err := w.WriteBlock(0, make([]byte, len(h.b.CPU().Mem.SRAM))); err != nil {
		return now, fmt.Errorf("load: clearing SRAM: %v", err)
	}
	if _, err := w.LoadFirmware(h.img); err != nil {
		return now, fmt.Errorf("load: %v", err)
	}
	return w.Now(), nil
}

// hostScript returns node i's script (inline or from its file), or nil.
func (s *Scenario) hostScript(i int, n NodeSpec) (*HostScript, error) {
	if n.HostFile != "" {
		return s.loadHostScript(i, n.HostFile)
	}
	return n.Host, nil
}

// hostChecks are the host scripts checkHost has compiled: inline ones
// (shared by the nodes of one entry or of Defaults) and files, so that a
// script is read and compiled once, not once per node.
type hostChecks map[any]bool

// checkHost compiles node i's host script, if it has one and checked does
// not hold it yet, so that errors show at load time.
func (s *Scenario) checkHost(i int, n NodeSpec, checked hostChecks) error {
	if n.Host != nil || n.HostFile != "" {
		if len(n.Params) > 0 {
			return s.Errorf("nodes[%d]: params with a host script (the script loads the firmware: write words with sram_write)", i)
		}
	}
	var key any = n.Host
	if n.HostFile != "" {
		key = n.HostFile
	}
	if checked[key] {
		return nil
	}
	h, err := s.hostScript(i, n)
	if err != nil || h == nil {
		return err
	}
	checked[key] = true
	if h.Poll != nil && *h.Poll != 0 && sim.Time(*h.Poll) < minInterval {
		return s.Errorf("nodes[%d].host.poll: %v: at least %v (0: %v)", i, sim.Time(*h.Poll), minInterval, defaultPoll)
	}
	if _, err := compileScript(fmt.Sprintf("nodes[%d].host.main", i), h.Main); err != nil {
		return s.Errorf("%v", err)
	}
	if _, err := compileScript(fmt.Sprintf("nodes[%d].host.on_irq", i), h.OnIRQ); err != nil {
		return s.Errorf("%v", err)
	}
	return nil
}

// buildHost attaches a PCI window and a host script to board b of node i:
// the board is held in reset until the script loads img.
func (w *World) buildHost(i int, n NodeSpec, b *board.Board, hm *hostbus.HostMemory, img []byte) (*nodeHost, error) {
	s := w.S
	hs, err := s.hostScript(i, n)
	if err != nil || hs == nil {
		return nil, err
	}
	h := &nodeHost{w: w, id: i, b: b, mem: hm, img: img, syms: map[string]uint32{},
		poll: defaultPoll, irqLat: defaultIRQLatency, res: HostResult{Vars: map[string]uint32{"node": uint32(i)}}}
	if hs.Poll != nil && *hs.Poll > 0 {
		h.poll = sim.Time(*hs.Poll)
	}
	if hs.IRQLatency != nil {
		h.irqLat = sim.Time(*hs.IRQLatency)
	}
	if h.main, err = compileScript(fmt.Sprintf("nodes[%d].host.main", i), hs.Main); err != nil {
		return nil, s.Errorf("%v", err)
	}
	if h.irq, err = compileScript(fmt.Sprintf("nodes[%d].host.on_irq", i), hs.OnIRQ); err != nil {
		return nil, s.Errorf("%v", err)
	}
	for k, v := range n.HostVars {
		h.res.Vars[k] = uint32(v)
	}
	if f, err := objfile.Read(img); err == nil {
		for _, sy := range f.Symbols {
			h.syms[sy.Name] = sy.Value
		}
	}
	b.SetReset(true) // power-on: held in reset until the driver loads it
	wp := hostbus.DefaultParams()
	if n.Board != "" {
		hb, _ := hostbus.BoardFor(n.Board, 1) // checked by the parser
		hb.SRAMSize = 0                       // follow the attached memory
		wp.Board = hb
	}
	h.win, err = hostbus.NewWindow(b.CPU().Mem, wp, hostbus.Hooks{
		ReadSpecial: b.HostReadSpecial, WriteSpecial: b.HostWriteSpecial,
		ReadPointer: b.HostReadPointerBank, WritePointer: b.HostWritePointerBank,
		TriggerDMA: b.TriggerDMA, InterruptEnable: b.SetHostInterruptEnable,
		Reset: func(r hostbus.ResetLines) { b.SetReset(r.LANai) },
	})
	if err != nil {
		return nil, s.Errorf("nodes[%d]: PCI window: %v", i, err)
	}
	return h, nil
}

// hostIRQ is the board's interrupt output (board.Config.OnIRQ).
func (h *nodeHost) hostIRQ(cycle uint64, level bool) {
	h.win.SetIRQ(level)
	h.irqLine(h.b.Clock().Time(cycle))
}

// barrier holds h's main script until every host's main script has
// reached a barrier called name (or ended); it reports whether h may go on
// now.
func (w *World) barrier(h *nodeHost, name string, now sim.Time) bool {
	h.barrierWait = name
	if !w.releaseBarrier(name, now, h) {
		h.mainT.parked = true
		return false
	}
	return true
}

// releaseBarrier lets every host waiting at barrier name go on if no
// running main script is elsewhere; self goes on by returning true.
func (w *World) releaseBarrier(name string, now sim.Time, self *nodeHost) bool {
	for _, o := range w.hosts {
		if o != nil && o.res.Err == nil && !o.res.Done && o.barrierWait != name {
			return false
		}
	}
	for _, o := range w.hosts {
		if o != nil && o.barrierWait == name {
			o.barrierWait = ""
			if o != self && o.res.Err == nil {
				o.mainT.parked = false
				o.mainT.frames[len(o.mainT.frames)-1].pc++
				o.schedule(o.mainT, now)
			}
		}
	}
	return true
}

// hostDone notes that a host's main script ended or failed: barriers the
// others wait at may open.
func (w *World) hostDone(now sim.Time) {
	for _, o := range w.hosts {
		if o != nil && o.barrierWait != "" {
			w.releaseBarrier(o.barrierWait, now, nil)
		}
	}
}

// HostsDone reports whether the run is over because its host scripts
// are: with stop "host", every host's main script has ended or failed.
// Run stops there; a debugger's target must too.
func (w *World) HostsDone() bool { return w.S.Stop == "host" && w.hostsFinished() }

// hostsFinished reports whether every host's main script has ended or
// failed.
func (w *World) hostsFinished() bool {
	for _, h := range w.hosts {
		if h != nil && !h.res.Done && h.res.Err == nil {
			return false
		}
	}
	return true
}

// HostResults are the host scripts' results, per node (nil for a node
// without a script).
func (w *World) HostResults() []*HostResult {
	out := make([]*HostResult, len(w.hosts))
	for i, h := range w.hosts {
		if h != nil {
			r := h.res
			out[i] = &r
		}
	}
	return out
}

// HostErr is the first host script failure, or nil.
func (w *World) HostErr() error {
	for _, h := range w.hosts {
		if h != nil && h.res.Err != nil {
			return h.res.Err
		}
	}
	return nil
}
