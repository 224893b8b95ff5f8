package debugger

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"lanaiemu/lanai"
)

// Conditional breakpoints and watchpoints, hit counts and logpoints. A
// breakpoint reached by its core (the board that reached it, in a
// cluster), or a watchpoint whose bytes changed, is looked at in this
// order: its condition, evaluated on that core (zero: it was not
// hit; an error: it stops, and says why); the hit count goes up by one;
// the hit condition must pass; then a logpoint prints its message and
// the run goes on, any other breakpoint stops it. Looking has no side
// effects (expr.go), so a run whose breakpoints never stop runs as it
// would without them, cycle for cycle.

// BreakOptions qualify a breakpoint: the Debug Adapter Protocol's
// condition, hitCondition and logMessage.
type BreakOptions struct {
	// Condition, if set, is an expression (the one print and break take):
	// the breakpoint is hit only where it is non-zero.
	Condition string
	// HitCondition, if set, is "[OP] N", OP one of > >= < <= == = === %
	// (a bare N is == N; % N is every Nth hit): the breakpoint stops (or
	// logs) only when its hit count passes it.
	HitCondition string
	// LogMessage, if set, makes a logpoint: its text is printed instead of
	// stopping, each {EXPR} replaced by the expression's value in signed
	// decimal ({EXPR:x}: 0x hex); {{ and }} are braces.
	LogMessage string
}

// hitCond is a hit condition: op is "" (none) or a key of hitOps.
type hitCond struct {
	op string
	n  int
}

// hitOps are the hit conditions' operators: whether hits passes N.
var hitOps = map[string]func(hits, n int) bool{
	">":  func(hits, n int) bool { return hits > n },
	">=": func(hits, n int) bool { return hits >= n },
	"<":  func(hits, n int) bool { return hits < n },
	"<=": func(hits, n int) bool { return hits <= n },
	"==": func(hits, n int) bool { return hits == n },
	"%":  func(hits, n int) bool { return hits%n == 0 },
}

// maxHits bounds the N of a hit condition or an ignore count.
const maxHits = 1 << 30

// parseHitCond reads a hit condition ("" is none).
func parseHitCond(s string) (hitCond, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return hitCond{}, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		i = len(s)
	}
	op := strings.TrimSpace(s[:i])
	if op == "" || op == "=" || op == "===" {
		op = "=="
	}
	if hitOps[op] == nil {
		return hitCond{}, fmt.Errorf("bad hit condition %q: want [OP] N, OP one of > >= < <= == %%", s)
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil || n < 0 || n > maxHits || op == "%" && n == 0 {
		return hitCond{}, fmt.Errorf("bad hit condition %q: N must be a number from 0 to %d (from 1 after %%)", s, maxHits)
	}
	return hitCond{op: op, n: n}, nil
}

// passes reports whether the hit count passes the condition.
func (h hitCond) passes(hits int) bool { return h.op == "" || hitOps[h.op](hits, h.n) }

func (h hitCond) String() string { return h.op + " " + strconv.Itoa(h.n) }

// logPart is a piece of a logpoint's message: text, or an expression's
// value.
type logPart struct {
	text string
	v    value
	hex  bool
}

// parseLog compiles a logpoint's message against program p.
func parseLog(p *Program, msg string) ([]logPart, error) {
	parts := []logPart{}
	var text strings.Builder
	for i := 0; i < len(msg); i++ {
		switch ch := msg[i]; {
		case (ch == '{' || ch == '}') && i+1 < len(msg) && msg[i+1] == ch:
			text.WriteByte(ch)
			i++
		case ch == '}':
			return nil, fmt.Errorf("bad log message %q: a } without its { (write }} for a brace)", msg)
		case ch == '{':
			end := strings.IndexByte(msg[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("bad log message %q: a { without its }", msg)
			}
			expr := msg[i+1 : i+end]
			hex := false
			if e, f, ok := strings.Cut(expr, ":"); ok {
				if strings.TrimSpace(f) != "x" {
					return nil, fmt.Errorf("bad log message %q: {EXPR:%s}: the only format is x (hex)", msg, f)
				}
				expr, hex = e, true
			}
			if strings.TrimSpace(expr) == "" {
				return nil, fmt.Errorf("bad log message %q: an empty {}", msg)
			}
			v, err := compile(p, expr)
			if err != nil {
				return nil, err
			}
			parts = append(parts, logPart{text: text.String()}, logPart{v: v, hex: hex})
			text.Reset()
			i += end
		default:
			text.WriteByte(ch)
		}
	}
	return append(parts, logPart{text: text.String()}), nil
}

// logLine gives a logpoint's message with its values on its thread's
// core; a value that cannot be read is shown as <error: why>.
func (d *Debugger) logLine(p *point) string {
	c := d.cpuOf(p.thread)
	var b strings.Builder
	if d.timed != nil {
		b.WriteString(d.threads[p.thread].Name + ": ")
	}
	for _, part := range p.log {
		if part.v == nil {
			b.WriteString(part.text)
			continue
		}
		switch v, err := part.v(c); {
		case err != nil:
			fmt.Fprintf(&b, "<error: %v>", err)
		case part.hex:
			fmt.Fprintf(&b, "0x%08x", v)
		default:
			fmt.Fprintf(&b, "%d", int32(v))
		}
	}
	return b.String()
}

// qualify sets a breakpoint's or watchpoint's qualifiers, all or none (an
// error leaves it as it was). A watchpoint takes no log message.
func (d *Debugger) qualify(p *point, o BreakOptions) error {
	if p.watch && o.LogMessage != "" {
		return errors.New("a watchpoint takes no log message")
	}
	prog := d.threads[p.thread].Program
	var cond value
	if c := strings.TrimSpace(o.Condition); c != "" {
		v, err := compile(prog, c)
		if err != nil {
			return fmt.Errorf("condition: %w", err)
		}
		cond = v
	}
	hc, err := parseHitCond(o.HitCondition)
	if err != nil {
		return err
	}
	var log []logPart
	if o.LogMessage != "" {
		if log, err = parseLog(prog, o.LogMessage); err != nil {
			return err
		}
	}
	p.cond, p.condText, p.hitCond, p.log, p.logText = cond, strings.TrimSpace(o.Condition), hc, log, o.LogMessage
	return nil
}

// Requalify replaces breakpoint or watchpoint id's qualifiers; its hit
// count stays. An error (a bad expression or message) leaves it as it was.
func (d *Debugger) Requalify(id int, o BreakOptions) error {
	for _, p := range d.points {
		if p.id == id {
			return d.qualify(p, o)
		}
	}
	return fmt.Errorf("no breakpoint or watchpoint %d", id)
}

// plain reports whether a breakpoint has no qualifier.
func (p *point) plain() bool { return p.cond == nil && p.hitCond.op == "" && p.log == nil }

// AddBreakpoint sets a new breakpoint at a in thread th's code with
// qualifiers (even where one is already set: each is looked at in turn)
// and gives its number. A bad expression or message is an error and sets
// nothing.
func (d *Debugger) AddBreakpoint(th int, a uint32, o BreakOptions) (int, error) {
	if err := d.checkCode(th, a); err != nil {
		return 0, err
	}
	p := &point{id: d.nextID, thread: th, addr: a, what: d.threads[th].Program.describe(a)}
	if err := d.qualify(p, o); err != nil {
		return 0, err
	}
	d.nextID++
	d.points = append(d.points, p)
	if d.core != nil {
		d.cpuOf(th).SetBreakpoint(a, true)
	}
	return p.id, nil
}

// reach looks at breakpoint p, which its core has just reached, or
// watchpoint p, whose bytes have just changed (the order above): it
// reports whether the run stops there and, when the condition could not
// be evaluated, why (the run stops then).
func (d *Debugger) reach(p *point) (stop bool, condErr error) {
	if p.cond != nil {
		v, err := p.cond(d.cpuOf(p.thread))
		if err != nil {
			p.hits++
			return true, fmt.Errorf("the condition of %s %d (%s) cannot be evaluated: %v; stopped there", p.kind(), p.id, p.condText, err)
		}
		if v == 0 {
			return false, nil
		}
	}
	p.hits++
	if !p.hitCond.passes(p.hits) {
		return false, nil
	}
	if p.log != nil {
		d.printf("%s\n", d.logLine(p))
		return false, nil
	}
	return true, nil
}

// holds reports whether a breakpoint's condition holds on core c (or
// cannot be evaluated there), for a replay.
func (p *point) holds(c *lanai.CPU) bool {
	if p.cond == nil {
		return true
	}
	v, err := p.cond(c)
	return err != nil || v != 0
}

// kind names a point for messages: breakpoint, logpoint or watchpoint.
func (p *point) kind() string {
	switch {
	case p.watch:
		return "watchpoint"
	case p.log != nil:
		return "logpoint"
	}
	return "breakpoint"
}

// breakpoint finds breakpoint or watchpoint id for a command.
func (d *Debugger) breakpoint(cmd, arg string) (*point, bool) {
	n, err := parseCount(arg, 1<<30)
	for _, p := range d.points {
		if err == nil && p.id == n {
			return p, true
		}
	}
	d.errorf("%s: no breakpoint or watchpoint %q", cmd, arg)
	return nil, false
}

// options gives a breakpoint's qualifiers as BreakOptions.
func (p *point) options() BreakOptions {
	o := BreakOptions{Condition: p.condText, LogMessage: p.logText}
	if p.hitCond.op != "" {
		o.HitCondition = p.hitCond.String()
	}
	return o
}

func (d *Debugger) cmdCondition(args []string) {
	if len(args) == 0 {
		d.errorf("usage: condition N [EXPR]")
		return
	}
	p, ok := d.breakpoint("condition", args[0])
	if !ok {
		return
	}
	o := p.options()
	o.Condition = strings.Join(args[1:], " ")
	if err := d.qualify(p, o); err != nil {
		d.errorf("%v", err) // "condition: ..."
		return
	}
	kind, does := "Breakpoint", "stops"
	switch {
	case p.log != nil:
		kind, does = "Logpoint", "logs"
	case p.watch:
		kind = "Watchpoint"
	}
	if p.cond == nil {
		d.printf("%s %d now unconditional.\n", kind, p.id)
		return
	}
	d.printf("%s %d %s only if %s.\n", kind, p.id, does, p.condText)
}

func (d *Debugger) cmdIgnore(args []string) {
	if len(args) != 2 {
		d.errorf("usage: ignore N COUNT")
		return
	}
	p, ok := d.breakpoint("ignore", args[0])
	if !ok {
		return
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 || n > maxHits-p.hits {
		d.errorf("ignore: bad count %q (0 to %d)", args[1], maxHits-p.hits)
		return
	}
	if n == 0 {
		p.hitCond = hitCond{}
		d.printf("Will stop next time %s %d is reached.\n", p.kind(), p.id)
		return
	}
	p.hitCond = hitCond{op: ">", n: p.hits + n}
	d.printf("Will ignore next %d crossings of %s %d (it stops from hit %d on).\n", n, p.kind(), p.id, p.hits+n+1)
}

func (d *Debugger) cmdLog(args []string) {
	if len(args) < 2 {
		d.errorf("usage: log LOC MESSAGE")
		return
	}
	places, err := d.breakPlaces(args[0])
	if err != nil {
		d.errorf("log: %v", err)
		return
	}
	msg := strings.TrimSpace(strings.TrimPrefix(d.rest, args[0]))
	for _, pl := range places {
		id, err := d.AddBreakpoint(pl.Thread, pl.Addr, BreakOptions{LogMessage: msg})
		if err != nil {
			d.errorf("log: %s%v", d.nodePrefix(pl.Thread), err)
			continue
		}
		d.printf("Logpoint %d at %s%s: %s\n", id, d.nodePrefix(pl.Thread), d.threads[pl.Thread].Program.describe(pl.Addr), msg)
	}
}

// nodePrefix names thread th in a cluster ("node 1 "), for messages about
// a point set in it.
func (d *Debugger) nodePrefix(th int) string {
	if d.timed != nil {
		return d.threads[th].Name + " "
	}
	return ""
}

// qualifiers describes a breakpoint's qualifiers for info breakpoints,
// one line each, indented.
func (p *point) qualifiers() string {
	var b strings.Builder
	if p.cond != nil && p.log != nil {
		fmt.Fprintf(&b, "\tlog only if %s\n", p.condText)
	} else if p.cond != nil {
		fmt.Fprintf(&b, "\tstop only if %s\n", p.condText)
	}
	if p.hitCond.op != "" {
		fmt.Fprintf(&b, "\tonly when the hit count is %s\n", p.hitCond)
	}
	if p.log != nil {
		fmt.Fprintf(&b, "\tlog %s\n", p.logText)
	}
	return b.String()
}
