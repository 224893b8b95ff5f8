package board

import (
	"lanaiemu/lanai"
	"lanaiemu/sim"
)

// TickPeriod is the period of the RTC and of the interval timers: 0.5 us
// (2 MHz; Cplant's loader checks that the RTC ticks every 500 ns,
// lanai9-hw.md section 3.5).
const TickPeriod = 500 * sim.Nanosecond

// TimerExpiryExtraTicks places the TIMEn edge: 0 sets the bit on the tick
// at which the counter reaches 0 (a write of N expires N ticks later); 1
// would set it on the decrement from 0 to 0xFFFFFFFF (N+1 ticks), the
// alternative reading of lanai9-hw.md section 3.5. Either way the counter
// keeps counting and expires again every 2^32 ticks.
const TimerExpiryExtraTicks = 0

// The 2 MHz tick is a free-running divider of the core clock started at
// reset: tick k happens at time k * TickPeriod, i.e. at core cycle
// TickCycle(k), the first cycle that begins at or after it. Counts are
// always computed from the absolute cycle number (sim.Clock), never by
// adding a rounded period.

// Ticks is the number of 2 MHz ticks that have happened by the start of
// core cycle n: floor(Time(n) / TickPeriod) = floor(n * 2e6 / Hz).
func (b *Board) Ticks(n uint64) uint64 {
	return uint64(b.clock.Time(n) / TickPeriod)
}

// TickCycle is the core cycle at which tick k happens: the first cycle
// that begins at or after k * TickPeriod (ceil(k * Hz / 2e6)).
func (b *Board) TickCycle(k uint64) uint64 {
	if k > uint64(sim.Never/TickPeriod) {
		return ^uint64(0)
	}
	return b.clock.Cycles(sim.Time(k) * TickPeriod)
}

// RTC: a 32-bit up-counter. A write loads the value; the next increment
// comes at the next tick of the free-running divider.
func (b *Board) readRTC() uint32 {
	if !b.host {
		b.rtcRead = b.cpu.Cycles
		b.saw(&b.rtcW)
	}
	return b.rtcVal + uint32(b.Ticks(b.cpu.Cycles)-b.rtcEpoch)
}

func (b *Board) writeRTC(v uint32) {
	b.rtcVal, b.rtcEpoch = v, b.Ticks(b.cpu.Cycles)
	b.touch(&b.rtcW)
}

// timer is one of IT0..IT2: a 32-bit down-counter loaded by a write.
type timer struct {
	bit   uint32
	val   uint32 // value loaded
	epoch uint64 // tick count when it was loaded
	// ev is the pending expiry (ref names it in the core's queue), nil
	// while none is: a load cancels it (disarmTimer).
	ev  *devEvent
	ref lanai.EventRef

	readAt uint64 // cycle of the core's last read
	w      watch
}

func (b *Board) readTimer(t *timer) uint32 {
	if !b.host {
		t.readAt = b.cpu.Cycles
		b.saw(&t.w)
	}
	return t.val - uint32(b.Ticks(b.cpu.Cycles)-t.epoch)
}

// writeTimer loads the counter. The first decrement comes at the next tick;
// the TIMEn bit is left as it is (the firmware clears it through ISR); the
// pending expiry is replaced by the new one.
func (b *Board) writeTimer(t *timer, v uint32) {
	now := b.Ticks(b.cpu.Cycles)
	t.val, t.epoch = v, now
	b.touch(&t.w)
	b.armTimer(t, expiryTick(v, now))
}

// expiryTick is the tick at which a counter loaded with v at tick epoch
// next sets its bit.
func expiryTick(v uint32, epoch uint64) uint64 {
	d := uint64(v) + TimerExpiryExtraTicks
	if d == 0 {
		d = 1 << 32
	}
	return epoch + d
}

// armTimer schedules the expiry at tick k, in place of any pending one;
// the event re-arms itself 2^32 ticks later, as the counter wraps and
// keeps counting.
func (b *Board) armTimer(t *timer, k uint64) {
	b.disarmTimer(t)
	at := b.TickCycle(k)
	t.ev = b.newEvent(stepTimer, devArgs{t: t, at: at, k: k})
	t.ref = b.cpu.ScheduleRef(at, t.ev.run)
}

// disarmTimer takes t's pending expiry out of the core's queue. Left
// there, the expiry a load supersedes would stay queued until its cycle:
// the wrap 2^32 ticks (36 minutes of simulated time) after an expiry that
// the firmware follows with a new load would pile up in a long run, one
// per expiry (docs/bad-input.md).
func (b *Board) disarmTimer(t *timer) {
	if t.ev != nil && b.cpu.Cancel(t.ref) { // (not when a reset dropped it)
		b.recycle(t.ev)
	}
	t.ev = nil
}

func stepTimer(b *Board, a *devArgs) {
	t := a.t
	t.ev = nil // spent: fire recycles it
	b.raise(a.at, t.bit)
	b.armTimer(t, a.k+1<<32)
}
