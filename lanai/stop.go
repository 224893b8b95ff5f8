package lanai

import (
	"fmt"
	"strings"

	"lanaiemu/isa"
)

// StopKind says why a run stopped.
type StopKind uint8

// Reasons a run stops.
const (
	StopNone       StopKind = iota
	StopExit                // the program wrote the EXIT register
	StopTrap                // an error: invalid instruction, bad access, deadlock
	StopCycleLimit          // the run's cycle budget is used up
	StopBreakpoint          // a breakpoint was reached
	StopWatchpoint          // a watched memory range was written
	StopStep                // a single step completed
)

var stopNames = [...]string{"running", "exit", "trap", "cycle limit", "breakpoint", "watchpoint", "step"}

func (k StopKind) String() string { return stopNames[k] }

// Stop is the outcome of a run.
type Stop struct {
	Kind StopKind
	Code uint32 // exit code for StopExit
	Trap *Trap  // details for StopTrap
	// Cycle is, for StopExit and StopTrap, the core's count when the
	// EXIT store was made or the trap was found: the cycle at which the
	// stopping instruction began, as a device sees a store's
	// (board.Board.StoreSeen). An exit's run ends when the store has
	// completed (CPU.Cycles); an instruction that traps does not complete,
	// so the count stays at Cycle.
	Cycle uint64
}

// CycleLimit is the stop of every run that used up its cycle budget. It is
// shared (a run ends this way in every step of a cluster, and allocating a
// Stop each time was a tenth of a 64-node run): treat it as read-only.
var CycleLimit = &Stop{Kind: StopCycleLimit}

// historySize is how many control transfers a trap report shows.
const historySize = 16

// transfer is a taken control transfer: the instruction that decided it
// and where it went.
type transfer struct {
	from, to uint32
	cycle    uint64
}

// Trap describes an error that stopped the machine, with the state needed
// to understand it.
type Trap struct {
	Reason  string
	PC      uint32
	Word    uint32
	Text    string // the instruction's disassembly
	Regs    [32]uint32
	Flags   isa.Flags
	Cycles  uint64
	History []string // the last control transfers, oldest first
}

func (t *Trap) Error() string { return "trap: " + t.Reason }

// Report formats the trap for a person: the reason, the instruction, the
// registers and the recent control transfers.
func (t *Trap) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "trap at pc %#08x after %d cycles: %s\n", t.PC, t.Cycles, t.Reason)
	fmt.Fprintf(&b, "  instruction: %08x  %s\n", t.Word, strings.ReplaceAll(t.Text, "\t", " "))
	fmt.Fprintf(&b, "  flags: %s\n", flagString(t.Flags))
	for i := 0; i < 32; i += 4 {
		b.WriteString(" ")
		for j := i; j < i+4; j++ {
			fmt.Fprintf(&b, " %4s=%08x", "%"+isa.Reg(j).String(), t.Regs[j])
		}
		b.WriteString("\n")
	}
	if len(t.History) > 0 {
		b.WriteString("  recent control transfers (oldest first):\n")
		for _, h := range t.History {
			b.WriteString("    " + h + "\n")
		}
	}
	return b.String()
}

func flagString(f isa.Flags) string {
	s := []byte("znvc")
	for i, bit := range []isa.Flags{isa.FlagZ, isa.FlagN, isa.FlagV, isa.FlagC} {
		if f&bit != 0 {
			s[i] -= 'a' - 'A'
		}
	}
	return string(s)
}

// Transfer is a taken control transfer: the instruction that decided it,
// where it went, and the cycle.
type Transfer struct {
	From, To uint32
	Cycle    uint64
}

// Transfers returns the most recent taken control transfers (up to 16),
// oldest first: the fast path records them, so they show where a program
// has been even when it was not traced.
func (c *CPU) Transfers() []Transfer {
	c.settleHistory()
	var out []Transfer
	for i := 0; i < historySize; i++ {
		h := c.hist[(c.histPos+i)%historySize]
		if h.cycle != 0 || h.from != 0 || h.to != 0 {
			out = append(out, Transfer{h.from, h.to, h.cycle})
		}
	}
	return out
}

// LastTransfer is the most recent taken control transfer (a branch's or a
// jump's address and its target, and the cycle at which it was taken);
// false before the first. Cycle grows from one transfer to the next, so a
// caller that steps the core can tell a new transfer from the last one.
func (c *CPU) LastTransfer() (Transfer, bool) {
	c.settleHistory()
	h := c.hist[(c.histPos+historySize-1)%historySize]
	if h.cycle == 0 && h.from == 0 && h.to == 0 {
		return Transfer{}, false
	}
	return Transfer{h.from, h.to, h.cycle}, true
}

// trap stops the run with an error at the instruction at pc.
func (c *CPU) trap(pc uint32, format string, args ...any) {
	t := &Trap{Reason: fmt.Sprintf(format, args...), PC: pc, Flags: c.Flags, Cycles: c.Cycles}
	if w, err := c.Mem.Word(pc); err == nil {
		t.Word = w
		t.Text, _ = isa.Disassemble(w)
	}
	copy(t.Regs[:], c.R[:32])
	t.Regs[2] = pc
	for _, h := range c.Transfers() {
		t.History = append(t.History, fmt.Sprintf("cycle %d: %#08x -> %#08x", h.Cycle, h.From, h.To))
	}
	c.stop = &Stop{Kind: StopTrap, Trap: t, Cycle: t.Cycles}
}
