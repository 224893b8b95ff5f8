package node

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/sim"
)

// bookedHost is node 0's host memory in TestBookedSRAMAtEveryPhase: each
// DMA read of it (a host-to-SRAM burst's event) calls read first.
type bookedHost struct {
	*board.HostRAM
	read func()
}

func (h *bookedHost) ReadHost(addr uint64, p []byte) error {
	h.read()
	return h.HostRAM.ReadHost(addr, p)
}

// bookedSeen is what TestBookedSRAMAtEveryPhase compares: for each burst
// event of node 0, node 0's and node 1's cycles when the shared-queue
// events it scheduled (one for each node, at its own time) run, and both
// cores' cycles at the end.
type bookedSeen struct {
	At0, At1   []uint64
	End0, End1 uint64
}

// The margin that a board keeps from the SRAM cycles its DMA engine has
// booked (Member.nextChange: lags, sitting out, the ends of lead steps)
// changes nothing where it matters most. A host-to-SRAM burst books its
// SRAM writes around its own event (the writes land behind the bus
// phases, the last one after the event), so a core access in the booked
// run stalls the instruction past the event: the event runs at the end of
// that instruction, in the step of length Q in which the instruction
// began, which may be several steps before the event's cycle. Node 0 runs
// straddleLoop (three SRAM accesses an iteration), entered at each of its
// 8 phases, and makes a 1 KiB host-to-SRAM DMA (four bursts) started at
// each of 4 consecutive cycles (a PCI clock), with the step grid after the
// start moved by each of 14 cycles (a step); each burst's event schedules
// a shared-queue event for each node at its own cycle. Node 1 runs the
// same loop with a core event every 7 cycles, so that it leads the lead
// steps and node 0 sits them out and lags through ordinary steps. The cores' cycles when
// those shared events run, and at the end, are those of every step of
// length Q (SetProvedJumps(false)). With canLag ignoring the booked
// cycles, node 0 lags or sits out over a burst's event that the steps of
// length Q run in an earlier step, and 288 of the 448 cases differ: the
// shared events run at the end of a later step, with the boards further
// on. So do they when only a booked run that starts in the 4 cycles
// before the lag's end counts (a long run stalls from further back).
// (With only a lead step's end ignoring them the cases agree: the event
// then runs in node 0's run to that end, after node 1's runs instead of
// between them, which only the order of calls into shared models would
// show, and node 1 makes none.)
func TestBookedSRAMAtEveryPhase(t *testing.T) {
	const descAt, lar = 0x2000, 0x10000
	const hostBase = 0x100000
	const tickCycles = 7
	var imgs [8][]byte // the loop entered p cycles later (p nops first)
	for p := range imgs {
		src := strings.Replace(straddleLoop, "_start:\n", "_start:\n"+strings.Repeat("\tnop\n", p), 1)
		imgs[p] = buildSource(t, "straddle.s", []byte(src))
	}
	var lagged, satOut, leads uint64
	run := func(p, d, g uint64, plain bool) bookedSeen {
		q := &sim.Queue{}
		f, err := fabric.BackToBack(q, nil, fabric.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		host := &bookedHost{HostRAM: board.NewHostRAM(hostBase, 4096)}
		b0, err := board.New(board.Config{Host: host})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b0.Load(imgs[p]); err != nil {
			t.Fatal(err)
		}
		b0.CPU().Schedule(1<<40, func() {})
		b1 := waitingBoard(t, imgs[p])
		c0, c1 := b0.CPU(), b1.CPU()
		w, err := New(q, f, []*board.Board{b0, b1}, Config{MaxIdleStep: f.MinLatency()})
		if err != nil {
			t.Fatal(err)
		}
		w.SetProvedJumps(!plain)
		if err := w.Run(20 * sim.Microsecond); err != nil {
			t.Fatal(err)
		}
		if !c0.Polling() || !c1.Polling() {
			t.Fatalf("the loops are not proved (%v, %v)", c0.Polling(), c1.Polling())
		}
		var tick func()
		tick = func() { c1.Schedule(c1.Cycles+tickCycles, tick) }
		c1.Schedule(c1.Cycles+tickCycles, tick)
		var s bookedSeen
		clk := b0.Clock()
		host.read = func() {
			at := clk.Time(c0.Cycles)
			i := len(s.At0)
			s.At0, s.At1 = append(s.At0, 0), append(s.At1, 0)
			q.Schedule(at, 0, func() { s.At0[i] = c0.Cycles })
			q.Schedule(at, 1, func() { s.At1[i] = c1.Cycles })
		}
		c0.Mem.Write(descAt, board.Descriptor{Next: (descAt + board.DescriptorSize) | board.DMAE2L, Len: 1024, LAR: lar, PCI: hostBase}.Bytes())
		c0.Mem.Write(descAt+board.DescriptorSize, board.Descriptor{Next: board.DMATerminal}.Bytes())
		c := clk.Cycles(w.Now()) + 200 + d
		q.Schedule(clk.Time(c), 0, func() {
			b0.HostWritePointerBank(0, descAt)
			b0.TriggerDMA(0)
		})
		// Steps start again at a shared-queue event: this one moves the
		// grid of the steps after it g cycles against the DMA's start.
		q.Schedule(clk.Time(c+g), 1, func() {})
		if err := w.Run(w.Now() + 12*sim.Microsecond); err != nil {
			t.Fatal(err)
		}
		if len(s.At0) != 4 {
			t.Fatalf("p %d, d %d: %d bursts read the host, want 4", p, d, len(s.At0))
		}
		s.End0, s.End1 = c0.Cycles, c1.Cycles
		st := w.Stats()
		lagged, satOut, leads = lagged+st.Lagged, satOut+st.SatOut, leads+st.LeadSteps
		return s
	}
	cases, failed := 0, 0
	for p := range uint64(len(imgs)) {
		for d := range uint64(4) {
			for g := range uint64(14) {
				want := run(p, d, g, true)
				got := run(p, d, g, false)
				cases++
				if diff := cmp.Diff(want, got); diff != "" {
					if failed++; failed <= 3 {
						t.Errorf("loop phase %d, DMA started %d cycles on, grid moved %d cycles (-every step of Q +lead steps, lags, sitting out):\n%s", p, d, g, diff)
					}
				}
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d cases differ", failed, cases)
	}
	if lagged == 0 || satOut == 0 || leads == 0 {
		t.Fatalf("boards lagged %d board-steps, sat out %d, %d lead steps: the shortcuts were not tried", lagged, satOut, leads)
	}
	t.Logf("boards lagged %d board-steps, sat out %d, %d lead steps", lagged, satOut, leads)
}
