package debugger

import (
	"fmt"

	"lanaiemu/lanai"
)

// Running backwards, for a lone core that can be restarted
// (Core.Restartable): the emulator is deterministic, so the state after
// n instructions is found by starting again and executing n
// instructions. A reverse step replays to one instruction before; a
// reverse continue replays once to find the last stop (a breakpoint
// reached or a watched store) before the present instruction, and again
// to it. The cost is a replay of the program so far, one instruction at
// a time.

// replay starts the core again and executes n instructions, reporting
// each to seen (nil: none) with the instruction count after it.
func (d *Debugger) replay(n uint64, seen func(c *lanai.CPU, stores uint64)) (*lanai.CPU, error) {
	k := d.core
	if err := d.canReverse(); err != nil {
		return nil, err
	}
	if k.quiet != nil {
		k.quiet(true)
		defer k.quiet(false)
	}
	c, err := k.restart()
	if err != nil {
		return nil, err
	}
	for c.Instret < n {
		if d.interrupt.Load() {
			return nil, fmt.Errorf("interrupted")
		}
		_, _, stores := c.LastStore()
		st := c.Step()
		if st.Kind == lanai.StopExit || st.Kind == lanai.StopTrap {
			return nil, fmt.Errorf("the replay ended after %d instructions, before %d: the program is not deterministic", c.Instret, n)
		}
		if seen != nil {
			seen(c, stores)
		}
	}
	return c, nil
}

// canReverse says why the target cannot run backwards, if it cannot.
func (d *Debugger) canReverse() error {
	if d.core == nil || d.core.restart == nil {
		return fmt.Errorf("running backwards needs a lone core that the debugger can restart (lanai-emu debug and dap)")
	}
	return nil
}

// adopt makes c the core: the breakpoints move to it, the watchpoints'
// bytes are read again, the history starts anew.
func (d *Debugger) adopt(c *lanai.CPU) {
	d.core.thread[0].CPU = c
	for _, p := range d.points {
		if !p.watch {
			c.SetBreakpoint(p.addr, true)
		}
	}
	d.RefreshWatches()
	d.hist[0] = history{}
	d.finished = nil
}

// reverseStep goes back one instruction.
func (d *Debugger) reverseStep() (outcome, error) {
	if err := d.canReverse(); err != nil {
		return outcome{}, err
	}
	n := d.cpuOf(0).Instret
	if n == 0 {
		return outcome{}, fmt.Errorf("at the start of the program: nothing before")
	}
	c, err := d.replay(n-1, nil)
	if err != nil {
		return outcome{}, err
	}
	d.adopt(c)
	return outcome{kind: stopGoal}, nil
}

// reverseContinue goes back to the last stop before the present one: a
// breakpoint reached where its condition held (or could not be
// evaluated), or a watched store; to the start if there is none.
// Logpoints are passed by; hit conditions are not looked at.
func (d *Debugger) reverseContinue() (outcome, error) {
	if err := d.canReverse(); err != nil {
		return outcome{}, err
	}
	n := d.cpuOf(0).Instret
	if n == 0 {
		return outcome{}, fmt.Errorf("at the start of the program: nothing before")
	}
	var last uint64
	var lastPoint *point
	_, err := d.replay(n-1, func(c *lanai.CPU, stores uint64) {
		a, size, cnt := c.LastStore()
		for _, p := range d.points {
			switch {
			case !p.watch && c.PC == p.addr && p.log == nil && p.holds(c):
			case p.watch && cnt != stores && uint64(a) < uint64(p.addr)+uint64(p.len) && uint64(p.addr) < uint64(a)+uint64(size) && p.holds(c):
			default:
				continue
			}
			last, lastPoint = c.Instret, p
			return
		}
	})
	if err != nil {
		return outcome{}, err
	}
	var old []byte
	if lastPoint != nil && lastPoint.watch {
		// The bytes before the store: one instruction earlier.
		before, err := d.replay(last-1, nil)
		if err != nil {
			return outcome{}, err
		}
		old, _ = before.Mem.Read(lastPoint.addr, lastPoint.len)
	}
	c, err := d.replay(last, nil)
	if err != nil {
		return outcome{}, err
	}
	d.adopt(c)
	if lastPoint == nil {
		return outcome{kind: stopGoal}, nil
	}
	lastPoint.hits++
	if lastPoint.watch {
		return outcome{kind: stopWatch, point: lastPoint, old: old}, nil
	}
	return outcome{kind: stopBreak, point: lastPoint}, nil
}

// StepBack runs the lone core back by one instruction.
func (d *Debugger) StepBack(th int) (Stop, error) { return d.reverseAPI(d.reverseStep) }

// ReverseContinue runs the lone core back to the last breakpoint or
// watched store before the present instruction (or to the start).
func (d *Debugger) ReverseContinue(th int) (Stop, error) { return d.reverseAPI(d.reverseContinue) }

func (d *Debugger) reverseAPI(f func() (outcome, error)) (Stop, error) {
	d.interrupt.Store(false)
	o, err := f()
	if err != nil {
		return Stop{}, err
	}
	d.writeReport(o)
	return d.stopOf(o), nil
}

func (d *Debugger) cmdReverseStep(args []string) {
	n, ok := d.optCount("reverse-step", args, 1, 1<<20)
	if !ok {
		return
	}
	var o outcome
	for i := 0; i < n; i++ {
		var err error
		if o, err = d.reverseStep(); err != nil {
			d.errorf("reverse-step: %v", err)
			return
		}
	}
	d.report(o)
}

func (d *Debugger) cmdReverseContinue(args []string) {
	if !d.noArgs("reverse-continue", args) {
		return
	}
	o, err := d.reverseContinue()
	if err != nil {
		d.errorf("reverse-continue: %v", err)
		return
	}
	d.report(o)
}
