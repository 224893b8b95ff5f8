package debugger

// For a front end that runs the core itself and uses the debugger only
// to look at it: netvm/run's cluster debugger (`netvm/run.Debug`), where
// a core must advance in step with the other boards, the hosts and the
// fabric, so the commands that run the program here (step, continue,
// break, ...) are replaced by the front end's. These give it the
// debugger's names for addresses and locations.

// Location resolves LOC as break does (FILE:LINE through the line table,
// or an address expression) and describes it.
func (d *Debugger) Location(loc string) (addr uint32, what string, err error) {
	return d.location(loc)
}

// Eval evaluates an address expression as x and print do.
func (d *Debugger) Eval(expr string) (uint32, error) { return d.eval(expr) }

// Describe gives an address with its symbol and source position:
// "0x00001234 <name+0x4> at file.s:12".
func (d *Debugger) Describe(a uint32) string { return d.describe(a) }

// InstLine shows the instruction at pc as disas does, after mark.
func (d *Debugger) InstLine(pc uint32, mark string) string { return d.instLine(pc, mark) }

// Label gives "name+0xoff" for an address inside the image, or "".
func (d *Debugger) Label(a uint32) string { return d.label(a) }

// CommandName gives the name of the command that name (a name or an
// alias) stands for, and whether there is one.
func CommandName(name string) (string, bool) {
	c, ok := lookupCommand(name)
	return c.name, ok
}
