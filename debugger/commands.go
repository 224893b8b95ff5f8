package debugger

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"lanaiemu/isa"
	"lanaiemu/lanai"
	"lanaiemu/memsys"
)

// command is one debugger command.
type command struct {
	name    string
	aliases []string
	usage   string
	help    string
	run     func(d *Debugger, args []string)
}

var commands []command

func init() {
	commands = []command{
		{"step", []string{"s", "stepi", "si"}, "step [N]", "execute N instructions (default 1), stopping early at a breakpoint or watchpoint", (*Debugger).cmdStep},
		{"next", []string{"n", "nexti", "ni"}, "next [N]", "like step, but run a call to its return point as one step", (*Debugger).cmdNext},
		{"lstep", []string{"ls"}, "lstep [N]", "run to the start of another source line N times (into calls): C lines with clang -g", (*Debugger).cmdLineStep},
		{"lnext", []string{"ln"}, "lnext [N]", "like lstep, but over calls", (*Debugger).cmdLineNext},
		{"reverse-step", []string{"rs"}, "reverse-step [N]", "go back N instructions (default 1): the program is run again from its start (a lone core)", (*Debugger).cmdReverseStep},
		{"reverse-continue", []string{"rc"}, "reverse-continue", "go back to the last breakpoint or watched store before this instruction, or to the start", (*Debugger).cmdReverseContinue},
		{"continue", []string{"c", "cont"}, "continue", "run until a breakpoint, a watchpoint, the exit or a trap", (*Debugger).cmdContinue},
		{"until", []string{"u", "advance"}, "until LOC", "run until pc reaches LOC (or a breakpoint, watchpoint, exit or trap); in a cluster, LOC of another node's program runs until that node reaches it", (*Debugger).cmdUntil},
		{"finish", []string{"fin"}, "finish", "run until the current function returns to its caller", (*Debugger).cmdFinish},
		{"break", []string{"b", "br"}, "break [LOC] [if EXPR]", "set a breakpoint at LOC (default: pc); with if, it stops only where EXPR is not 0", (*Debugger).cmdBreak},
		{"condition", []string{"cond"}, "condition N [EXPR]", "make breakpoint or watchpoint N stop only where EXPR is not 0 (no EXPR: always)", (*Debugger).cmdCondition},
		{"ignore", nil, "ignore N COUNT", "let breakpoint or watchpoint N pass its next COUNT hits (0: stop at the next)", (*Debugger).cmdIgnore},
		{"log", nil, "log LOC MESSAGE", "a logpoint: print MESSAGE at LOC and go on ({EXPR} is EXPR's value, {EXPR:x} in hex)", (*Debugger).cmdLog},
		{"delete", []string{"d"}, "delete [N...]", "delete breakpoints/watchpoints N (default: all)", (*Debugger).cmdDelete},
		{"watch", []string{"w"}, "watch ADDR [LEN] [if EXPR]", "stop when a store of the core touches LEN bytes at ADDR, or they change (DMA, the host) (default: the symbol's size, or 4; at most 4096); with if, only where EXPR is not 0 then", (*Debugger).cmdWatch},
		{"node", []string{"thread"}, "node [N]", "select thread (a cluster's node) N; show the selected one", (*Debugger).cmdThread},
		{"info", []string{"i"}, "info WHAT", "WHAT: registers, breakpoints, watchpoints, symbols [TEXT], specials (special registers), line [LOC]", (*Debugger).cmdInfo},
		{"regs", []string{"registers"}, "regs", "same as info registers", (*Debugger).cmdRegs},
		{"print", []string{"p"}, "print REG|&ADDR|ADDR|EXPR", "a register's value, an address, the word stored at an address, or an expression's value ([ADDR], comparisons, ...)", (*Debugger).cmdPrint},
		{"x", nil, "x[/N] [ADDR]", "dump N words (default 8) at ADDR (default: after the last dump), with ASCII", nil},
		{"disas", []string{"disassemble", "dis"}, "disas [ADDR] [N]", "disassemble N instructions at ADDR, or around pc (=> marks pc, b a breakpoint)", (*Debugger).cmdDisas},
		{"cycles", nil, "cycles", "cycle counter, instructions executed, simulated time", (*Debugger).cmdCycles},
		{"history", []string{"hist"}, "history [N]", fmt.Sprintf("the last N instructions executed (default 16, at most %d)", HistorySize), (*Debugger).cmdHistory},
		{"list", []string{"l"}, "list [LOC]", "source lines around pc (or LOC), from the line table", (*Debugger).cmdList},
		{"backtrace", []string{"bt", "where"}, "backtrace", "the chain of calls, from the frame pointers", (*Debugger).cmdBacktrace},
		{"trace", nil, "trace on|off", "print a trace line for each instruction executed", (*Debugger).cmdTrace},
		{"help", []string{"h", "?"}, "help", "this list", (*Debugger).cmdHelp},
		{"quit", []string{"q", "exit"}, "quit", "leave the debugger", nil},
	}
}

// lookup finds a command by name or alias: the target's own first.
func (d *Debugger) lookup(name string) (command, bool) {
	for _, c := range d.extra {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return command{c.Name, c.Aliases, c.Usage, c.Help, c.Run}, true
		}
	}
	return lookupCommand(name)
}

// lookupCommand finds a debugger command by name or alias.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
		for _, a := range c.aliases {
			if a == name {
				return c, true
			}
		}
	}
	return command{}, false
}

func (d *Debugger) cmdHelp(args []string) {
	d.printf("Commands (aliases in parentheses):\n")
	for _, c := range commands {
		al := ""
		if len(c.aliases) > 0 {
			al = " (" + strings.Join(c.aliases, ", ") + ")"
		}
		d.printf("  %-28s %s%s\n", c.usage, c.help, al)
	}
	if len(d.extra) > 0 {
		d.printf("Commands of this target:\n")
		for _, c := range d.extra {
			d.printf("  %-28s %s\n", c.Usage, c.Help)
		}
	}
	d.printf("LOC and ADDR: 0x hex or decimal numbers, symbols, %%registers, joined by + and -\n" +
		"(main+0x10, %%fp-8); LOC may also be FILE:LINE (matched by base name or path).\n" +
		"EXPR (a condition) adds [ADDR] (the word there), special registers ($ISR), ( ), * & | ^ << >>,\n" +
		"comparisons (signed) == != < <= > >=, && || ! ~: break fib if [moves] > 3 && %%r6 != 0.\n" +
		"An empty line repeats step, next, x or list.\n")
}

// noArgs checks that a command got no arguments.
func (d *Debugger) noArgs(name string, args []string) bool {
	if len(args) > 0 {
		d.errorf("%s takes no arguments", name)
		return false
	}
	return true
}

// optCount reads an optional count argument.
func (d *Debugger) optCount(name string, args []string, def, max int) (int, bool) {
	switch len(args) {
	case 0:
		return def, true
	case 1:
		n, err := parseCount(args[0], max)
		if err != nil {
			d.errorf("%s: %v", name, err)
			return 0, false
		}
		return n, true
	}
	d.errorf("usage: %s [N]", name)
	return 0, false
}
func (d *Debugger) cmdStep(args []string) {
	n, ok := d.optCount("step", args, 1, 1<<30)
	if !ok || !d.running() {
		return
	}
	d.report(d.resume(goal{thread: d.cur, steps: n, show: d.timed != nil}))
}

func (d *Debugger) cmdNext(args []string) {
	n, ok := d.optCount("next", args, 1, 1<<30)
	if !ok || !d.running() {
		return
	}
	d.report(d.next(n))
}

// next runs n instructions of the selected thread, a call as one.
func (d *Debugger) next(n int) outcome {
	var o outcome
	for i := 0; i < n; i++ {
		c := d.cpu()
		g := goal{thread: d.cur, steps: 1}
		if ret, ok := callReturn(c, c.PC); ok {
			sp := c.Reg(isa.SP)
			g = goal{thread: d.cur, at: true, addr: ret, cond: func() bool { return c.Reg(isa.SP) >= sp }}
		}
		if o = d.resume(g); o.kind != stopGoal {
			break
		}
	}
	return o
}

func (d *Debugger) cmdLineStep(args []string) { d.lineSteps("lstep", args, false) }

func (d *Debugger) cmdLineNext(args []string) { d.lineSteps("lnext", args, true) }

// lineSteps runs the selected thread by source lines.
func (d *Debugger) lineSteps(name string, args []string, over bool) {
	n, ok := d.optCount(name, args, 1, 1<<20)
	if !ok || !d.running() {
		return
	}
	var o outcome
	for i := 0; i < n; i++ {
		if o = d.stepLine(d.cur, over); o.kind != stopGoal {
			break
		}
	}
	if o.point == nil {
		o.thread = d.cur
	}
	d.report(o)
}

func (d *Debugger) cmdContinue(args []string) {
	if !d.noArgs("continue", args) || !d.running() {
		return
	}
	d.report(d.resume(goal{thread: d.cur}))
}

func (d *Debugger) cmdUntil(args []string) {
	if len(args) == 0 {
		d.errorf("usage: until LOC")
		return
	}
	loc := strings.Join(args, " ")
	places, err := d.breakPlaces(loc)
	if err != nil {
		d.errorf("until: %v", err)
		return
	}
	if len(places) > 1 {
		d.errorf("until: %s's program has no %s; %s: select one with \"node N\"", d.threads[d.cur].Name, loc, d.placesText(places))
		return
	}
	if !d.running() {
		return
	}
	pl := places[0]
	if pl.Thread != d.cur {
		d.printf("Run until %s reaches %s\n", d.threads[pl.Thread].Name, d.threads[pl.Thread].Program.describe(pl.Addr))
	}
	d.report(d.resume(goal{thread: pl.Thread, at: true, addr: pl.Addr}))
}

// placesText names the nodes of places and their addresses: "node 1 has it
// at 0x0000000c, node 2 at 0x00000010".
func (d *Debugger) placesText(places []Place) string {
	var b strings.Builder
	for i, pl := range places {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.threads[pl.Thread].Name)
		if i == 0 {
			b.WriteString(" has it")
		}
		fmt.Fprintf(&b, " at 0x%08x", pl.Addr)
	}
	return b.String()
}

func (d *Debugger) cmdFinish(args []string) {
	if !d.noArgs("finish", args) || !d.running() {
		return
	}
	c, p := d.cpu(), d.p()
	f := Frame{PC: c.PC, SP: c.Reg(isa.SP), FP: c.Reg(isa.FP), Func: p.funcName(c.PC)}
	caller, ok, err := p.caller(c, f, true)
	if err == nil && !ok {
		err = fmt.Errorf("%s has no caller", f.Func)
	}
	if err != nil {
		d.errorf("finish: %v", err)
		return
	}
	switch {
	case p.ABI == ABINetVM && caller.PC == c.Reg(isa.RCA):
		d.printf("Run till the return address in rca, %s\n", p.describe(caller.PC))
	case p.ABI == ABINetVM:
		d.printf("Run till the return address saved on the stack, %s\n", p.describe(caller.PC))
	default:
		name := p.label(c.PC)
		if f.Func != "" {
			name = f.Func
		}
		d.printf("Run till exit from %s (returns to %s)\n", name, p.addrName(caller.PC))
	}
	o := d.resume(goal{thread: d.cur, at: true, addr: caller.PC, cond: func() bool { return c.Reg(isa.SP) >= caller.SP }})
	d.report(o)
	if o.kind == stopGoal && p.ABI == ABIClang {
		rv := c.Reg(isa.RV)
		d.printf("Value returned: rv = 0x%08x (%d)\n", rv, int32(rv))
	}
}

// MaxWatch is the most bytes one watchpoint watches (they are compared
// after every instruction while it is set).
const MaxWatch = 4096

// SetBreakpoint sets a breakpoint at a in thread th's code and gives its
// number; existed says there was one already (its number is given).
func (d *Debugger) SetBreakpoint(th int, a uint32) (id int, existed bool, err error) {
	if err := d.checkCode(th, a); err != nil {
		return 0, false, err
	}
	for _, p := range d.points {
		if !p.watch && p.thread == th && p.addr == a && p.plain() {
			return p.id, true, nil
		}
	}
	id, err = d.AddBreakpoint(th, a, BreakOptions{})
	return id, false, err
}

// checkCode checks that a breakpoint can be set at a in thread th.
func (d *Debugger) checkCode(th int, a uint32) error {
	if a%4 != 0 || !d.cpuOf(th).Mem.InSRAM(a, 4) {
		return fmt.Errorf("0x%08x is not an instruction address (a word of SRAM)", a)
	}
	return nil
}

// SetWatchpoint makes the target stop when n bytes at a of thread th's
// SRAM change or its core stores into them, and its qualifiers let it
// (o's Condition and HitCondition, as a breakpoint's; no LogMessage); it
// gives the watchpoint's number. A bad expression sets nothing.
func (d *Debugger) SetWatchpoint(th int, a, n uint32, o BreakOptions) (int, error) {
	if n == 0 || n > MaxWatch {
		return 0, fmt.Errorf("bad length %d (1 to %d)", n, MaxWatch)
	}
	if !d.cpuOf(th).Mem.InSRAM(a, n) {
		return 0, fmt.Errorf("[0x%08x, +%d) is not in SRAM", a, n)
	}
	p := &point{id: d.nextID, thread: th, watch: true, addr: a, len: n, what: d.threads[th].Program.addrName(a)}
	if err := d.qualify(p, o); err != nil {
		return 0, err
	}
	d.nextID++
	p.old = d.snapshot(p)
	d.points = append(d.points, p)
	return p.id, nil
}

// Delete deletes breakpoint or watchpoint id.
func (d *Debugger) Delete(id int) error {
	for i, p := range d.points {
		if p.id == id {
			d.points = append(d.points[:i], d.points[i+1:]...)
			if !p.watch && d.core != nil && d.breakAt(p.thread, p.addr) == nil {
				d.cpuOf(p.thread).SetBreakpoint(p.addr, false)
			}
			return nil
		}
	}
	return fmt.Errorf("no breakpoint or watchpoint %d", id)
}

// DeleteAll deletes every breakpoint and watchpoint.
func (d *Debugger) DeleteAll() {
	for _, p := range slices.Clone(d.points) {
		d.Delete(p.id)
	}
	d.points = nil
}

// splitIf splits a command's "LOC if EXPR" into LOC's words and EXPR ("" without
// if); an if without EXPR is an error of cmd, reported.
func (d *Debugger) splitIf(cmd string, args []string) (loc []string, cond string, ok bool) {
	i := slices.Index(args, "if")
	if i < 0 {
		return args, "", true
	}
	if cond = strings.Join(args[i+1:], " "); cond == "" {
		d.errorf("%s: if without a condition", cmd)
		return nil, "", false
	}
	return args[:i], cond, true
}

func (d *Debugger) cmdBreak(args []string) {
	args, cond, ok := d.splitIf("break", args)
	if !ok {
		return
	}
	places := []Place{{Thread: d.cur, Addr: d.cpu().PC}}
	if len(args) > 0 {
		var err error
		if places, err = d.breakPlaces(strings.Join(args, " ")); err != nil {
			d.errorf("break: %v", err)
			return
		}
	}
	for _, pl := range places {
		var id int
		existed := false
		var err error
		if cond != "" {
			id, err = d.AddBreakpoint(pl.Thread, pl.Addr, BreakOptions{Condition: cond})
		} else {
			id, existed, err = d.SetBreakpoint(pl.Thread, pl.Addr)
		}
		at := d.threads[pl.Thread].Program.describe(pl.Addr)
		switch {
		case err != nil:
			d.errorf("break: %s%v", d.nodePrefix(pl.Thread), err)
		case existed:
			d.printf("Breakpoint %d is already at %s%s\n", id, d.nodePrefix(pl.Thread), at)
		case cond != "":
			d.printf("Breakpoint %d at %s%s if %s\n", id, d.nodePrefix(pl.Thread), at, cond)
		default:
			d.printf("Breakpoint %d at %s%s\n", id, d.nodePrefix(pl.Thread), at)
		}
	}
}

func (d *Debugger) cmdDelete(args []string) {
	if len(args) == 0 {
		d.DeleteAll()
		d.printf("Deleted all breakpoints and watchpoints.\n")
		return
	}
	for _, a := range args {
		n, err := parseCount(a, 1<<30)
		var p *point
		for _, q := range d.points {
			if err == nil && q.id == n {
				p = q
			}
		}
		if p == nil {
			d.errorf("delete: no breakpoint or watchpoint %q", a)
			continue
		}
		d.Delete(p.id)
		if !p.watch {
			d.printf("Deleted breakpoint %d.\n", p.id)
		} else {
			d.printf("Deleted watchpoint %d.\n", p.id)
		}
	}
}

func (d *Debugger) cmdWatch(args []string) {
	args, cond, ok := d.splitIf("watch", args)
	if !ok {
		return
	}
	if len(args) < 1 || len(args) > 2 {
		d.errorf("usage: watch ADDR [LEN] [if EXPR]")
		return
	}
	a, err := d.eval(args[0])
	if err != nil {
		d.errorf("watch: %v", err)
		return
	}
	n := uint32(4)
	if len(args) == 2 {
		c, err := parseCount(args[1], MaxWatch)
		if err != nil {
			d.errorf("watch: %v", err)
			return
		}
		n = uint32(c)
	} else if _, size, ok := d.p().Symbol(args[0]); ok && size > 0 {
		n = min(size, MaxWatch)
	}
	id, err := d.SetWatchpoint(d.cur, a, n, BreakOptions{Condition: cond})
	if err != nil {
		d.errorf("watch: %v", err)
		return
	}
	onlyIf := ""
	if cond != "" {
		onlyIf = " if " + cond
	}
	if d.timed != nil {
		d.printf("Watchpoint %d: %s, %d bytes at %s%s\n", id, d.th().Name, n, d.p().describe(a), onlyIf)
		return
	}
	d.printf("Watchpoint %d: %d bytes at %s%s (the program now runs one instruction at a time)\n", id, n, d.p().addrName(a), onlyIf)
}

func (d *Debugger) cmdThread(args []string) {
	if len(args) > 1 {
		d.errorf("usage: node [N]")
		return
	}
	if len(args) == 1 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 || n >= len(d.threads) {
			d.errorf("node: %q: nodes are 0..%d", args[0], len(d.threads)-1)
			return
		}
		d.cur = n
	}
	c := d.cpu()
	name := d.th().Name
	if name == "" {
		name = fmt.Sprintf("thread %d", d.cur)
	}
	d.printf("%s: cycle %d, pc %s\n", name, c.Cycles, d.p().describe(c.PC))
}

func (d *Debugger) cmdInfo(args []string) {
	if len(args) == 0 {
		d.errorf("usage: info registers|breakpoints|watchpoints|symbols [TEXT]|specials|line [LOC]")
		return
	}
	sub, rest := args[0], args[1:]
	switch {
	case strings.HasPrefix("registers", sub) && sub != "" && sub[0] == 'r':
		d.cmdRegs(rest)
	case sub == "b" || sub == "br" || strings.HasPrefix("breakpoints", sub) && len(sub) >= 3:
		d.showPoints(false)
	case sub == "w" || strings.HasPrefix("watchpoints", sub) && len(sub) >= 3:
		d.showPoints(true)
	case strings.HasPrefix("symbols", sub) && len(sub) >= 3:
		d.showSymbols(strings.Join(rest, " "))
	case strings.HasPrefix("specials", sub) && len(sub) >= 3:
		d.printf("%s", d.cpu().Mem.Specials.String())
	case sub == "line":
		places := []Place{{Thread: d.cur, Addr: d.cpu().PC}}
		if len(rest) > 0 {
			var err error
			if places, err = d.breakPlaces(strings.Join(rest, " ")); err != nil {
				d.errorf("info line: %v", err)
				return
			}
		}
		for _, pl := range places {
			// Another node's place (the selected node's program lacks
			// the location) is named.
			node, p := "", d.threads[pl.Thread].Program
			if pl.Thread != d.cur {
				node = d.nodePrefix(pl.Thread)
			}
			if e, ok := p.lineAt(pl.Addr); ok {
				d.printf("%s0x%08x is %s:%d\n", node, pl.Addr, e.File, e.Line)
			} else {
				d.printf("no line information for %s%s\n", node, p.addrName(pl.Addr))
			}
		}
	default:
		d.errorf("info: unknown subject %q (registers, breakpoints, watchpoints, symbols, specials, line)", sub)
	}
}

func (d *Debugger) showPoints(watch bool) {
	if d.timed != nil {
		d.showClusterPoints()
		return
	}
	any := false
	for _, p := range d.points {
		if p.watch != watch {
			continue
		}
		if !any {
			d.printf("Num  Type        Address     Hits  What\n")
			any = true
		}
		switch {
		case p.watch:
			d.printf("%-4d watchpoint  0x%08x  %4d  %d bytes at %s\n%s", p.id, p.addr, p.hits, p.len, p.what, p.qualifiers())
		case p.log != nil:
			d.printf("%-4d logpoint    0x%08x  %4d  %s\n%s", p.id, p.addr, p.hits, p.what, p.qualifiers())
		default:
			d.printf("%-4d breakpoint  0x%08x  %4d  %s\n%s", p.id, p.addr, p.hits, p.what, p.qualifiers())
		}
	}
	if !any {
		if watch {
			d.printf("No watchpoints.\n")
		} else {
			d.printf("No breakpoints.\n")
		}
	}
}

// showClusterPoints lists the breakpoints and watchpoints of every thread.
func (d *Debugger) showClusterPoints() {
	if len(d.points) == 0 {
		d.printf("No breakpoints or watchpoints.\n")
		return
	}
	for _, p := range d.points {
		kind := "breakpoint"
		switch {
		case p.watch:
			kind = fmt.Sprintf("watchpoint, %d bytes", p.len)
		case p.log != nil:
			kind = "logpoint"
		}
		d.printf("%-3d %s %s at %s, hit %d times\n%s", p.id, d.threads[p.thread].Name, kind, d.threads[p.thread].Program.describe(p.addr), p.hits, p.qualifiers())
	}
}

func (d *Debugger) showSymbols(filter string) {
	n := 0
	for _, s := range d.p().named {
		if filter != "" && !strings.Contains(s.name, filter) {
			continue
		}
		kind := "data"
		if s.fn {
			kind = "func"
		}
		d.printf("0x%08x %6d %s  %s\n", s.addr, s.size, kind, s.name)
		n++
	}
	if n == 0 {
		d.printf("No symbols%s.\n", map[bool]string{true: " match " + fmt.Sprintf("%q", filter), false: ""}[filter != ""])
	}
}

func (d *Debugger) cmdRegs(args []string) {
	if !d.noArgs("info registers", args) {
		return
	}
	c := d.cpu()
	for i := 0; i < 32; i += 4 {
		for j := i; j < i+4; j++ {
			sep := "   "
			if j == i+3 {
				sep = "\n"
			}
			d.printf("%-3s %08x%s", isa.Reg(j), c.Reg(isa.Reg(j)), sep)
		}
	}
	d.printf("pc  %s  npc 0x%08x  flags %s\n", d.p().describe(c.PC), c.NPC, flagString(c.Flags))
}

// flagString shows the flags as "zNvC" (upper case when set) and in hex.
func flagString(f isa.Flags) string {
	s := []byte("znvc")
	for i, bit := range []isa.Flags{isa.FlagZ, isa.FlagN, isa.FlagV, isa.FlagC} {
		if f&bit != 0 {
			s[i] -= 'a' - 'A'
		}
	}
	return fmt.Sprintf("%s (%#x)", s, uint8(f))
}

func (d *Debugger) cmdPrint(args []string) {
	expr := strings.Join(args, " ")
	if expr == "" {
		d.errorf("usage: print REG|&ADDR|ADDR")
		return
	}
	c := d.cpu()
	single := !strings.ContainsAny(expr, "+- ")
	name := strings.TrimLeft(expr, "%$")
	if single {
		_, isSym := d.p().syms.Addr(expr)
		bareOK := expr[0] == '%' || expr[0] == '$' || !isSym
		switch strings.ToLower(name) {
		case "flags":
			if bareOK {
				d.printf("flags = %s\n", flagString(c.Flags))
				return
			}
		case "npc":
			if bareOK {
				d.printf("npc = %s\n", d.p().addrName(c.NPC))
				return
			}
		}
		if r, ok := regByName(name); ok && bareOK {
			v := c.Reg(r)
			lab := ""
			if r == isa.PC || r == isa.RCA {
				lab = d.codeLabel(v)
			}
			d.printf("%s = 0x%08x (%d)%s\n", r, v, int32(v), lab)
			return
		}
		if sr, ok := memsys.SpecialByName(strings.ToUpper(name)); ok && bareOK {
			v, err := c.Mem.Specials.Peek(sr.Off)
			if err != nil {
				d.errorf("print: %v", err)
				return
			}
			d.printf("%s (0x%08x) = 0x%08x (%d)\n", sr.Name, memsys.SpecialBase+sr.Off, v, int32(v))
			return
		}
		if expr[0] == '%' || expr[0] == '$' {
			d.errorf("print: no register %q", expr)
			return
		}
	}
	if strings.HasPrefix(expr, "&") {
		a, err := d.eval(expr[1:])
		if err != nil {
			d.errorf("print: %v", err)
			return
		}
		d.printf("%s = %s\n", expr, d.p().describe(a))
		return
	}
	a, isValue, err := d.evalKind(expr)
	if err != nil {
		d.errorf("print: %v", err)
		return
	}
	if isValue {
		d.printf("%s = 0x%08x (%d)\n", expr, a, int32(a))
		return
	}
	v, err := d.readWord(a)
	if err != nil {
		d.errorf("print: %v", err)
		return
	}
	d.printf("[%s] = 0x%08x (%d)\n", d.p().addrName(a), v, int32(v))
}

// codeLabel annotates a value that points into a function.
func (d *Debugger) codeLabel(v uint32) string {
	if _, ok := d.p().funcAt(v); ok && v%4 == 0 {
		if l := d.p().label(v); l != "" {
			return " <" + l + ">"
		}
	}
	return ""
}

// readWord reads the big-endian word at a: from SRAM (any alignment), or
// from a device.
func (d *Debugger) readWord(a uint32) (uint32, error) {
	m := d.cpu().Mem
	if m.InSRAM(a, 4) {
		b, err := m.Read(a, 4)
		if err != nil {
			return 0, err
		}
		return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), nil
	}
	return m.ReadIO(a, 4)
}

// cmdX dumps memory.
func (d *Debugger) cmdX(count string, args []string) {
	n := 8
	if count = strings.TrimRight(count, "xw"); count != "" {
		var err error
		if n, err = parseCount(count, 4096); err != nil {
			d.errorf("x: %v", err)
			return
		}
	}
	a := d.xNext
	if len(args) == 0 && !d.xSet {
		d.errorf("usage: x[/N] ADDR (a bare x continues after the previous dump)")
		return
	}
	if len(args) > 0 {
		var err error
		if a, err = d.eval(strings.Join(args, " ")); err != nil {
			d.errorf("x: %v", err)
			return
		}
	}
	for i := 0; i < n; i += 4 {
		line := a + uint32(4*i)
		lab := ""
		if l := d.p().label(line); l != "" {
			lab = "<" + l + ">"
		}
		var words, ascii strings.Builder
		for j := i; j < i+4 && j < n; j++ {
			wa := a + uint32(4*j)
			v, err := d.readWord(wa)
			if err != nil {
				words.WriteString(" --------")
				ascii.WriteString("    ")
				continue
			}
			fmt.Fprintf(&words, " %08x", v)
			for k := 24; k >= 0; k -= 8 {
				ch := byte(v >> k)
				if ch < 0x20 || ch > 0x7e {
					ch = '.'
				}
				ascii.WriteByte(ch)
			}
		}
		d.printf("0x%08x %-20s%-36s  |%s|\n", line, lab, words.String(), ascii.String())
	}
	d.xNext, d.xSet = a+uint32(4*n), true
}

// asmText disassembles the word w at pc with the mnemonic padded and a
// branch's target named.
func asmText(p *Program, pc, w uint32) string {
	in := isa.Decode(w)
	if !in.Valid() {
		return "(invalid)"
	}
	text := in.String()
	if m, ops, found := strings.Cut(text, "\t"); found {
		text = fmt.Sprintf("%-7s %s", m, ops)
	}
	target, branch := in.Imm, in.Class == isa.BR
	if in.Class == isa.BRR {
		target, branch = pc+in.Imm, true
	}
	if branch {
		if l := p.label(target); l != "" {
			text += " <" + l + ">"
		}
	}
	return text
}

// instLine shows the instruction at pc of the selected thread: a marker,
// the address and its symbol, the encoding, the disassembly and the
// source position.
func (d *Debugger) instLine(pc uint32, mark string) string { return d.instLineOf(d.cur, pc, mark) }

// instLineOf is instLine for thread th.
func (d *Debugger) instLineOf(th int, pc uint32, mark string) string {
	p := d.threads[th].Program
	lab := ""
	if l := p.label(pc); l != "" {
		lab = "<" + l + ">"
	}
	enc, text := "????????", "(not a word of SRAM)"
	if w, err := d.cpuOf(th).Mem.Word(pc); err == nil {
		enc, text = fmt.Sprintf("%08x", w), asmText(p, pc, w)
	}
	s := fmt.Sprintf("%-3s 0x%08x %-20s %s  %-28s %s", mark, pc, lab, enc, text, p.posString(pc))
	return strings.TrimRight(s, " ")
}

func (d *Debugger) cmdDisas(args []string) {
	c := d.cpu()
	var start uint32
	n := 0
	switch {
	case len(args) > 2:
		d.errorf("usage: disas [ADDR] [N]")
		return
	case len(args) >= 1:
		a, err := d.eval(args[0])
		if err != nil {
			d.errorf("disas: %v", err)
			return
		}
		start = a &^ 3
		if len(args) == 2 {
			if n, err = parseCount(args[1], 4096); err != nil {
				d.errorf("disas: %v", err)
				return
			}
		} else if f, ok := d.p().funcAt(start); ok && f.addr == start && f.size > 0 {
			n = int(min(f.size/4, 256))
		} else {
			n = 12
		}
	default:
		start, n = c.PC-4*4, 12
		if c.PC < 16 {
			start = 0
		}
		if f, ok := d.p().funcAt(c.PC); ok && f.size > 0 {
			if f.size/4 <= 40 {
				start, n = f.addr, int(f.size/4)
			} else if start < f.addr {
				start = f.addr
			}
		}
	}
	for i := 0; i < n; i++ {
		a := start + uint32(4*i)
		if a < start {
			break
		}
		for _, s := range d.p().named {
			if s.addr == a {
				d.printf("<%s>:\n", s.name)
				break
			}
		}
		mark := ""
		if a == c.PC {
			mark = "=>"
		} else if d.breakAt(d.cur, a) != nil {
			mark = "b"
		}
		d.printf("%s\n", d.instLine(a, mark))
	}
}

func (d *Debugger) cmdCycles(args []string) {
	if !d.noArgs("cycles", args) {
		return
	}
	c := d.cpu()
	cpi := 0.0
	if c.Instret > 0 {
		cpi = float64(c.Cycles) / float64(c.Instret)
	}
	d.printf("cycles %d, instructions %d, CPI %.3f, simulated time %s at %g MHz\n",
		c.Cycles, c.Instret, cpi, FormatSeconds(c.Seconds(c.Cycles)), float64(c.Config().ClockHz)/1e6)
}

// FormatSeconds formats a duration in seconds with a unit (ns, us, ms, s)
// and four significant digits.
func FormatSeconds(s float64) string {
	switch {
	case s == 0:
		return "0 s"
	case s < 1e-6:
		return fmt.Sprintf("%.4g ns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.4g us", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.4g ms", s*1e3)
	}
	return fmt.Sprintf("%.4g s", s)
}

func (d *Debugger) cmdHistory(args []string) {
	n, ok := d.optCount("history", args, 16, HistorySize)
	if !ok {
		return
	}
	h := &d.hist[d.cur]
	if h.len == 0 {
		d.printf("No instructions executed yet.\n")
		return
	}
	n = min(n, h.len)
	for i := n; i >= 1; i-- {
		e := h.ent[(h.pos-i+HistorySize)%HistorySize]
		if e.gap > 0 {
			d.printf("   ... %d instructions run at full speed (not recorded) ...\n", e.gap)
			continue
		}
		d.printf("%s\n", d.instLine(e.pc, "-"+fmt.Sprint(i)))
	}
}

func (d *Debugger) cmdBacktrace(args []string) {
	if !d.noArgs("backtrace", args) {
		return
	}
	frames, err := d.p().Frames(d.cpu())
	for i, f := range frames {
		d.printf("#%-2d %s\n", i, d.p().describe(f.PC))
	}
	switch {
	case err != nil:
		d.printf("    (%v)\n", err)
	case len(frames) == maxFrames:
		d.printf("    (more frames not shown)\n")
	}
}

func (d *Debugger) cmdTrace(args []string) {
	if len(args) != 1 || args[0] != "on" && args[0] != "off" {
		d.errorf("usage: trace on|off")
		return
	}
	if d.core == nil {
		d.errorf("trace is not available in a cluster run (the cores advance together): use step")
		return
	}
	if args[0] == "on" {
		d.core.tracer = lanai.NewTracer(d.out, d.p().syms)
		d.printf("Tracing on: a line per instruction (cycle, pc, symbol, encoding, disassembly, what it wrote); the program runs one instruction at a time.\n")
	} else {
		d.core.tracer = nil
		d.printf("Tracing off.\n")
	}
}
