package board

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
)

// ticksAt is the documented tick count at cycle n of an hz clock:
// floor(n * 2e6 / hz), computed here without package sim.
func ticksAt(n, hz uint64) uint64 {
	return new(big.Int).Div(new(big.Int).Mul(new(big.Int).SetUint64(n), big.NewInt(2_000_000)), new(big.Int).SetUint64(hz)).Uint64()
}

// tickCycleAt is the first cycle at or after tick k: ceil(k * hz / 2e6).
func tickCycleAt(k, hz uint64) uint64 { return (k*hz + 1_999_999) / 2_000_000 }

// RTC reads N after M cycles: N = floor(M * 2 MHz / clock), modulo 2^32.
func TestRTCReads(t *testing.T) {
	wrap := (uint64(1)<<32 + 5) // a tick count past the 32-bit wrap
	for _, tc := range []struct {
		hz     uint64
		cycles uint64
		want   uint32
	}{
		{133_000_000, 0, 0},
		{133_000_000, 66, 0},  // tick 1 is at 66.5 cycles
		{133_000_000, 67, 1},  // ... so cycle 67 is the first to see it
		{133_000_000, 132, 1}, // tick 2 at 133.0
		{133_000_000, 133, 2},
		{133_000_000, 199, 2}, // tick 3 at 199.5
		{133_000_000, 200, 3},
		{133_000_000, 1_330_000, 20_000},                  // 10 ms
		{133_000_000, 133_000_000, 2_000_000},             // 1 s
		{133_000_000, 133_000_000_000_000, 2_840_207_360}, // 1e6 s: 2e12 ticks = 465 * 2^32 + 2840207360
		{133_000_000, tickCycleAt(wrap, 133_000_000), 5},
		{133_000_000, tickCycleAt(wrap, 133_000_000) - 1, 4},
		{200_000_000, 99, 0},
		{200_000_000, 100, 1},
		{200_000_000, 200_000_000, 2_000_000},
	} {
		b, err := New(Config{Config: lanai.Config{ClockHz: tc.hz}})
		require.NoError(t, err)
		b.CPU().Cycles = tc.cycles // as if the board had run that long
		if got := coreRead(t, b, RegRTC); got != tc.want {
			t.Errorf("%d Hz, cycle %d: RTC = %d, want %d", tc.hz, tc.cycles, got, tc.want)
		}
		if want := uint32(ticksAt(tc.cycles, tc.hz)); want != tc.want {
			t.Errorf("table row %d Hz cycle %d: formula gives %d", tc.hz, tc.cycles, want)
		}
	}
}

// A write loads the RTC; it then counts the ticks of the free-running
// divider: RTC(M) = v + ticks(M) - ticks(W).
func TestRTCWrite(t *testing.T) {
	const hz = 133_000_000
	b, _ := New(Config{})
	b.CPU().Cycles = 1000 // tick 15 was at 997.5
	coreWrite(t, b, RegRTC, 0xFFFFFFFE)
	for _, m := range []uint64{1000, 1063, 1064, 1130, 1131, 100_000} {
		b.CPU().Cycles = m
		want := uint32(0xFFFFFFFE + ticksAt(m, hz) - ticksAt(1000, hz))
		if got := coreRead(t, b, RegRTC); got != want {
			t.Errorf("cycle %d: RTC = %#x, want %#x", m, got, want)
		}
	}
}

// ITn written with N at cycle W expires N ticks of the divider later: at
// cycle ceil((floor(W*2e6/hz) + N) * hz / 2e6), setting TIMEn in ISR.
func TestIntervalTimerExpiry(t *testing.T) {
	for _, tc := range []struct {
		hz   uint64
		reg  uint32
		bit  uint32
		w    uint64
		n    uint32
		want uint64 // expected expiry cycle, by hand
	}{
		{133_000_000, RegIT0, Time0IntBit, 0, 10, 665},                            // tick 10 = 5 us = 665 cycles
		{133_000_000, RegIT0, Time0IntBit, 1, 10, 665},                            // ticks(1) = 0
		{133_000_000, RegIT0, Time0IntBit, 67, 10, 732},                           // ticks(67) = 1: tick 11 at 731.5
		{133_000_000, RegIT1, Time1IntBit, 1000, 1, 1064},                         // ticks(1000) = 15: tick 16 at 1064
		{133_000_000, RegIT2, Time2IntBit, 1000, 2, 1131},                         // tick 17 at 1130.5
		{200_000_000, RegIT0, Time0IntBit, 50, 3, 300},                            // 100 cycles per tick
		{133_000_000, RegIT0, Time0IntBit, 9, 0, tickCycleAt(1<<32, 133_000_000)}, // 0 reaches 0 again after 2^32 ticks
	} {
		var fired []uint64
		cfg := Config{Config: lanai.Config{ClockHz: tc.hz}, Trace: func(e Event) {
			if e.Kind == EvISR && e.Bits == tc.bit {
				fired = append(fired, e.Cycle)
			}
		}}
		b, _ := boot(t, cfg, lanaitest.Build(t, inline(idleSrc)))
		if got := tickCycleAt(ticksAt(tc.w, tc.hz)+uint64(tc.n)+TimerExpiryExtraTicks, tc.hz); tc.n != 0 && got != tc.want {
			t.Errorf("table row %+v: formula gives %d", tc, got)
		}
		at(t, b, tc.w, func() { coreWrite(t, b, tc.reg, tc.n) })
		b.Run(tc.want - 1)
		if len(fired) != 0 || b.ISR()&tc.bit != 0 {
			t.Errorf("%+v: fired early: %v", tc, fired)
		}
		b.Run(tc.want + 10 - b.CPU().Cycles)
		if len(fired) != 1 || fired[0] != tc.want {
			t.Errorf("%+v: fired at %v, want [%d]", tc, fired, tc.want)
		}
		if b.ISR()&tc.bit == 0 {
			t.Errorf("%+v: TIME bit not set", tc)
		}
	}
}

// Reading a timer gives N minus the ticks since the write, wrapping; it
// keeps counting after expiry, and re-expires every 2^32 ticks.
func TestIntervalTimerReadAndWrap(t *testing.T) {
	const hz = 133_000_000
	b, _ := boot(t, Config{}, lanaitest.Build(t, inline(idleSrc)))
	var fired []uint64
	b.cfg.Trace = func(e Event) {
		if e.Kind == EvISR && e.Bits == Time0IntBit {
			fired = append(fired, e.Cycle)
		}
	}
	at(t, b, 100, func() { coreWrite(t, b, RegIT0, 3) }) // ticks(100) = 1
	b.Run(1000)
	for _, m := range []uint64{100, 132, 133, 199, 200, 265, 266, 332, 333, 400} {
		b.CPU().Cycles = m
		want := uint32(3 - (ticksAt(m, hz) - 1))
		if got := coreRead(t, b, RegIT0); got != want {
			t.Errorf("cycle %d: IT0 = %#x, want %#x", m, got, want)
		}
	}
	if len(fired) != 1 || fired[0] != tickCycleAt(4, hz) {
		t.Fatalf("fired at %v, want [%d]", fired, tickCycleAt(4, hz))
	}
	// The next expiry is 2^32 ticks after the first (about 35.8 minutes).
	b.CPU().Cycles = 1000
	next := tickCycleAt(4+1<<32, hz)
	b.Run(next + 1 - b.CPU().Cycles)
	if len(fired) != 2 || fired[1] != next {
		t.Fatalf("fired at %v, want second at %d", fired, next)
	}
}

// Rewriting a timer replaces its pending expiry; the write does not touch
// the TIME bit.
func TestIntervalTimerRewrite(t *testing.T) {
	const hz = 133_000_000
	var fired []uint64
	b, _ := boot(t, Config{Trace: func(e Event) {
		if e.Kind == EvISR {
			fired = append(fired, e.Cycle)
		}
	}}, lanaitest.Build(t, inline(idleSrc)))
	at(t, b, 10, func() { coreWrite(t, b, RegIT0, 5) })   // would expire at tick 5
	at(t, b, 200, func() { coreWrite(t, b, RegIT0, 20) }) // ticks(200) = 3: expires at tick 23
	b.Run(5000)
	want := tickCycleAt(23, hz)
	if len(fired) != 1 || fired[0] != want {
		t.Fatalf("fired at %v, want [%d]", fired, want)
	}
	at(t, b, 5000, func() { coreWrite(t, b, RegIT0, 1000) })
	b.Run(10)
	if b.ISR()&Time0IntBit == 0 {
		t.Error("a timer write cleared TIME0")
	}
}

// A timer loaded again leaves no event behind: the core's queue holds at
// most one pending expiry per timer however often the firmware loads
// them, before or after they expire (NetVM's firmware loads IT0 and IT1
// again after each expiry, whose wrap 2^32 ticks on used to stay queued:
// a long run's queue grew by one event per expiry, docs/bad-input.md).
// Every expiry still fires when it is due.
func TestIntervalTimerReloadsLeaveNoEvents(t *testing.T) {
	var fired int
	b, _ := boot(t, Config{Trace: func(e Event) {
		if e.Kind == EvISR && e.Bits == Time0IntBit {
			fired++
		}
	}}, lanaitest.Build(t, inline(idleSrc)))
	const loads = 2000
	for i := range loads {
		c := b.CPU().Cycles
		at(t, b, c+1, func() {
			coreWrite(t, b, RegIT0, 2)                 // expires in this round ...
			coreWrite(t, b, RegIT1, 1000+10*uint32(i)) // ... is loaded again before it expires
			coreWrite(t, b, RegISR, Time0IntBit)
		})
		b.Run(c + 1000 - b.CPU().Cycles) // 2 ticks are 266 cycles at 133 MHz
		if n := b.CPU().PendingEvents(); n > 3 {
			t.Fatalf("load %d: %d events queued, want at most one per timer (3)", i, n)
		}
	}
	if fired != loads {
		t.Fatalf("IT0 expired %d times in %d loads", fired, loads)
	}
}
