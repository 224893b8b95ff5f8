package board

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
)

// ISR write semantics from the LANai and from the host.
func TestISRWrites(t *testing.T) {
	b, _ := New(Config{})
	b.RaiseISR(Time0IntBit | Wake0IntBit | LanaiSigBit | NresIntBit)
	b.SetISRLevel(SendIntBit|RecvIntBit, true)
	coreWrite(t, b, RegISR, Time0IntBit)
	if got, want := b.ISR(), Wake0IntBit|LanaiSigBit|NresIntBit|SendIntBit|RecvIntBit; got != want {
		t.Fatalf("after clearing TIME0: ISR = %#x, want %#x", got, want)
	}
	// The start-up idiom ISR = 0xFFFFFFFF clears every latched bit and
	// LANAI_SIG, sets HOST_SIG, and leaves the level bits.
	coreWrite(t, b, RegISR, 0xFFFFFFFF)
	if got, want := b.ISR(), HostSigBit|SendIntBit|RecvIntBit; got != want {
		t.Fatalf("after writing all ones: ISR = %#x, want %#x", got, want)
	}
	// The host clears HOST_SIG and sets LANAI_SIG with 1s.
	require.NoError(t, b.HostWriteSpecial(RegISR, HostSigBit|LanaiSigBit))
	if got, want := b.ISR(), LanaiSigBit|SendIntBit|RecvIntBit; got != want {
		t.Fatalf("after the host's write: ISR = %#x, want %#x", got, want)
	}
	b.SetISRLevel(SendIntBit|RecvIntBit, false)
	b.RaiseISR(Time1IntBit)
	require.NoError(t, b.HostWriteSpecial(RegISR, Time1IntBit))
	if got := b.ISR(); got != LanaiSigBit {
		t.Fatalf("the host's write of TIME1: ISR = %#x, want %#x", got, LanaiSigBit)
	}
	if v, _ := b.HostReadSpecial(RegISR); v != LanaiSigBit {
		t.Fatalf("host read: %#x", v)
	}
}

// The host interrupt line is ISR & EIMR != 0, gated by the board's
// interrupt enable, and the callback sees every change.
func TestIRQLine(t *testing.T) {
	type change struct {
		cycle uint64
		level bool
	}
	var got []change
	b, _ := New(Config{OnIRQ: func(c uint64, l bool) { got = append(got, change{c, l}) }})
	cpu := b.CPU()
	cpu.Cycles = 10
	b.RaiseISR(Time0IntBit)
	coreWrite(t, b, RegEIMR, Time1IntBit) // masked: no interrupt
	cpu.Cycles = 20
	coreWrite(t, b, RegEIMR, Time0IntBit|Time1IntBit) // up
	cpu.Cycles = 30
	b.SetHostInterruptEnable(false) // down
	cpu.Cycles = 40
	b.SetHostInterruptEnable(true) // up
	cpu.Cycles = 50
	coreWrite(t, b, RegISR, Time0IntBit) // down
	cpu.Cycles = 60
	coreWrite(t, b, RegISR, HostSigBit)                             // HOST_SIG is not in EIMR
	if err := b.HostWriteSpecial(RegEIMR, HostSigBit); err != nil { // up (host write)
		t.Fatal(err)
	}
	want := []change{{20, true}, {30, false}, {40, true}, {50, false}, {60, true}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(change{})); d != "" {
		t.Fatalf("changes (-want +got):\n%s", d)
	}
	if !b.IRQ() || b.EIMR() != HostSigBit {
		t.Fatalf("IRQ %v EIMR %#x", b.IRQ(), b.EIMR())
	}
}

// Firmware: timer.s exits with the RTC value at TIME0: 10 ticks.
func TestFirmwareTimer(t *testing.T) {
	img := lanaitest.Build(t, testdata(t, "timer.s"))
	var cycles []uint64
	for range 2 {
		b, _ := boot(t, Config{}, img)
		if code := runExit(t, b, 1<<20); code != 10 {
			t.Fatalf("exit %d, want 10", code)
		}
		cycles = append(cycles, b.CPU().Cycles)
		// TIME0 was raised at tick 10 (665 cycles): the program ends
		// within a few instructions of it.
		if c := b.CPU().Cycles; c < 665 || c > 665+30 {
			t.Errorf("ended at cycle %d, TIME0 was due at 665", c)
		}
	}
	if cycles[0] != cycles[1] {
		t.Errorf("not deterministic: %v", cycles)
	}
}

// Firmware: hazard.s checks what ISR reads see around special-register
// stores.
func TestFirmwareHazard(t *testing.T) {
	b, _ := boot(t, Config{}, lanaitest.Build(t, testdata(t, "hazard.s")))
	if code := runExit(t, b, 1<<20); code != 0x3F {
		t.Fatalf("exit %#x, want 0x3f", code)
	}
}

// Firmware: irq.s with a host that answers the interrupt 1000 cycles after
// the line rises.
func TestFirmwareIRQ(t *testing.T) {
	type change struct {
		cycle uint64
		level bool
	}
	var got []change
	var b *Board
	cfg := Config{OnIRQ: func(c uint64, level bool) {
		got = append(got, change{c, level})
		if level {
			b.CPU().Schedule(c+1000, func() {
				b.HostWriteSpecial(RegISR, HostSigBit) // clear: the line falls
				b.HostWriteSpecial(RegISR, LanaiSigBit)
			})
		}
	}}
	b, _ = boot(t, cfg, lanaitest.Build(t, testdata(t, "irq.s")))
	if code := runExit(t, b, 1<<20); code&^SendIntBit != 0 { // SEND_INT: the idle send engine (link.go)
		t.Fatalf("exit ISR %#x, want 0 (SEND_INT aside)", code)
	}
	// The line rises at the EIMR store, the 4th one-cycle instruction
	// (cycle 3), and falls when the host's event runs: at the first
	// instruction boundary at or after cycle 1003 (the loop's load-use
	// stall may make it 1004).
	if len(got) != 2 || got[0] != (change{3, true}) || got[1].level || got[1].cycle < 1003 || got[1].cycle > 1004 {
		t.Fatalf("IRQ changes %v", got)
	}
	if st := b.CPU().Stopped(); st == nil || st.Kind != lanai.StopExit {
		t.Fatal("not stopped")
	}
}

// Board.Reset restarts the devices: the same program then runs to the same
// result in the same cycles, and a raised interrupt line falls.
func TestReset(t *testing.T) {
	var levels []bool
	b, _ := boot(t, Config{OnIRQ: func(_ uint64, l bool) { levels = append(levels, l) }}, lanaitest.Build(t, testdata(t, "timer.s")))
	code1 := runExit(t, b, 1<<20)
	c1 := b.CPU().Cycles
	coreWrite(t, b, RegEIMR, HostSigBit)
	coreWrite(t, b, RegISR, HostSigBit)
	b.Reset(0)
	if b.IRQ() || b.ISR() != SendIntBit || len(levels) != 2 || levels[1] { // SEND_INT: the idle send engine (link.go)
		t.Fatalf("after reset: IRQ %v ISR %#x changes %v", b.IRQ(), b.ISR(), levels)
	}
	if code2 := runExit(t, b, 1<<20); code2 != code1 || b.CPU().Cycles != c1 {
		t.Fatalf("after reset: exit %d at %d, first run %d at %d", code2, b.CPU().Cycles, code1, c1)
	}
}
