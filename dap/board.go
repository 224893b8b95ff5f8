package dap

import (
	"fmt"

	"lanaiemu/board"
)

// BoardVars shows a board's devices for the variables view: the interrupt
// state, the LED, reset, the DMA engine's fault and the link's counters.
func BoardVars(b *board.Board) []Var {
	v := []Var{
		{Name: "ISR", Value: fmt.Sprintf("0x%08x", b.ISR())},
		{Name: "EIMR", Value: fmt.Sprintf("0x%08x", b.EIMR())},
		{Name: "host interrupt line", Value: fmt.Sprint(b.IRQ())},
		{Name: "LED", Value: fmt.Sprintf("0x%08x", b.LED())},
		{Name: "in reset", Value: fmt.Sprint(b.InReset())},
	}
	if f := b.Fault(); f != nil {
		v = append(v, Var{Name: "DMA fault", Value: fmt.Sprintf("channel %d, descriptor 0x%08x, cycle %d: %s", f.Channel, f.Descriptor, f.Cycle, f.Reason)})
	} else {
		v = append(v, Var{Name: "DMA fault", Value: "none"})
	}
	if l := b.Link(); l != nil {
		v = append(v, Var{Name: "link", Value: fmt.Sprintf("%+v", l.Stats())})
	}
	return v
}
