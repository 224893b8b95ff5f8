package hostbus

import "fmt"

// Board control register bits (BAR0 + 0x800040, 32-bit, little-endian;
// MyrinetPCI.h "LANai 5-based boards", lanai9-hw.md section 2.3). The
// set/clear pairs act when a 1 is written; reading a pair returns the bit
// of its last effective write.
const (
	CtlResetOff   = 1 << 31 // remove LANai reset
	CtlResetOn    = 1 << 30 // assert LANai reset
	CtlEResetOff  = 1 << 29 // remove LANai EBUS reset
	CtlEResetOn   = 1 << 28 // assert LANai EBUS reset
	CtlBResetOff  = 1 << 27 // remove board reset
	CtlBResetOn   = 1 << 26 // assert board reset
	CtlIntEnable  = 1 << 25 // host interrupt enable on
	CtlIntDisable = 1 << 24 // host interrupt enable off
	CtlDMATrigger = 0xF << 20
	CtlDMA3       = 1 << 23 // DMA trigger 3 (write-only)
	CtlDMA2       = 1 << 22
	CtlDMA1       = 1 << 21
	CtlDMA0       = 1 << 20
	CtlReq64      = 1 << 14 // RST/REQ64 sequence detected: 64-bit slot (read-only)
	CtlUC2In      = 1 << 13 // micro-controller 2 serial data in (read-only; reads 0)
	CtlUC1In      = 1 << 12 // micro-controller 1 serial data in (read-only; reads 0)
	CtlUC2Out     = 1 << 11 // micro-controller 2 serial data out
	CtlUC1Out     = 1 << 10 // micro-controller 1 serial data out
	CtlUCClock    = 1 << 9  // micro-controller serial clock
	CtlForce64    = 1 << 7  // force 64-bit mode
	CtlForce32    = 1 << 6  // force 32-bit mode
	CtlLimitCheck = 1 << 4  // doorbell limit check enable (ParaStation ENABLE_DOORBELL_LIMITCHECK)
	CtlMultiQ     = 1 << 3  // "enable multi-queue interrupt on write" (stored, no effect)
	CtlQueueSize  = 7       // doorbell queue size select: 4 KB << n = 512 << n entries
)

// pair is a set/clear pair of control bits.
type pair struct{ on, off uint32 }

var ctlPairs = []pair{
	{CtlResetOn, CtlResetOff},
	{CtlEResetOn, CtlEResetOff},
	{CtlBResetOn, CtlBResetOff},
	{CtlIntEnable, CtlIntDisable},
	{CtlForce64, CtlForce32},
}

const (
	ctlPairBits = CtlResetOn | CtlResetOff | CtlEResetOn | CtlEResetOff | CtlBResetOn | CtlBResetOff |
		CtlIntEnable | CtlIntDisable | CtlForce64 | CtlForce32
	// ctlPlain are ordinary read/write bits: a write sets them to the
	// written value.
	ctlPlain  = CtlUC2Out | CtlUC1Out | CtlUCClock | CtlLimitCheck | CtlMultiQ | CtlQueueSize
	ctlStored = ctlPairBits | ctlPlain
)

// checkPairs rejects a value with both bits of a pair set ("undefined" on
// the hardware).
func checkPairs(v uint32) error {
	for _, p := range ctlPairs {
		if v&p.on != 0 && v&p.off != 0 {
			return fmt.Errorf("bits %#08x and %#08x of a set/clear pair written together (undefined on the board)", p.on, p.off)
		}
	}
	return nil
}

// Control reads the board control register as the host does.
func (w *Window) Control() uint32 {
	v := w.ctl
	if w.p.Bus64 {
		v |= CtlReq64
	}
	return v
}

// Resets returns the reset lines.
func (w *Window) Resets() ResetLines {
	return ResetLines{
		LANai: w.ctl&CtlResetOn != 0,
		EBUS:  w.ctl&CtlEResetOn != 0,
		Board: w.ctl&CtlBResetOn != 0,
	}
}

// InterruptEnabled reports the control register's host interrupt enable.
func (w *Window) InterruptEnabled() bool { return w.ctl&CtlIntEnable != 0 }

// writeControl applies a host write to the control register.
func (w *Window) writeControl(v uint32) error {
	if err := checkPairs(v); err != nil {
		return err
	}
	old, ie := w.Resets(), w.InterruptEnabled()
	for _, p := range ctlPairs {
		switch {
		case v&p.on != 0:
			w.ctl = w.ctl&^p.off | p.on
		case v&p.off != 0:
			w.ctl = w.ctl&^p.on | p.off
		}
	}
	w.ctl = w.ctl&^ctlPlain | v&ctlPlain
	now := w.Resets()
	if now.Board && !old.Board {
		// Board reset returns the bridge's state to power-on (a choice:
		// the hardware's exact reset domain is undocumented).
		w.ptr = [PointerWords]uint32{}
		w.db = doorbellState{}
	}
	if now != old && w.h.Reset != nil {
		w.h.Reset(now)
	}
	if ie != w.InterruptEnabled() && w.h.InterruptEnable != nil {
		w.h.InterruptEnable(!ie)
	}
	w.updateIRQ()
	if w.h.TriggerDMA != nil {
		for ch := range 4 {
			if v&(CtlDMA0<<ch) != 0 {
				w.h.TriggerDMA(ch)
			}
		}
	}
	return nil
}
