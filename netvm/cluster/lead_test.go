package cluster

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/board"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/lib"
	"lanaiemu/node"
	"lanaiemu/sim"
)

// leadResult is what a run must give the same with and without lead
// steps: every node's counts, the fabric and endpoint totals, the WRITE
// counters sampled every 50 us (when each WRITE arrived, to that
// resolution), and, when traced, every board's device events in order.
type leadResult struct {
	Nodes     []node.NodeStats
	Fabric    any
	Endpoints any
	Time      sim.Time
	Counters  [][]uint64
	Trace     [][]string
}

// leadRun runs a cluster set up by setup for d after it, with lead steps
// on or off (off: every step of one link latency, no proved jumps either)
// and reports what leadResult lists, and the world's counters.
func leadRun(t *testing.T, cfg Config, lead, traced bool, d sim.Time, setup func(*Cluster) []*lib.EP) (leadResult, node.Stats) {
	t.Helper()
	var r leadResult
	if traced {
		r.Trace = make([][]string, cfg.Nodes)
		cfg.Trace = func(n int, e board.Event) { r.Trace[n] = append(r.Trace[n], fmt.Sprint(e)) }
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	c.World.SetProvedJumps(lead) // before the set-up: the whole run differs only in the steps
	eps := setup(c)
	boot := c.World.Stats()
	for end := c.Now() + d; c.Now() < end; {
		r.Counters = append(r.Counters, runCounting(t, c, eps))
	}
	st := c.World.Stats()
	r.Nodes, r.Fabric, r.Endpoints, r.Time = st.Nodes, st.Fabric, st.Endpoints, st.Time
	for _, p := range [][2]*uint64{{&st.Steps, &boot.Steps}, {&st.IdleSteps, &boot.IdleSteps}, {&st.LateRisk, &boot.LateRisk},
		{&st.ProvedSteps, &boot.ProvedSteps}, {&st.LeadSteps, &boot.LeadSteps}, {&st.LeadBreaks, &boot.LeadBreaks},
		{&st.Lagged, &boot.Lagged}, {&st.SatOut, &boot.SatOut}, {&st.Through, &boot.Through}, {&st.ParallelSteps, &boot.ParallelSteps}} {
		*p[0] -= *p[1] // the world's counters of the run after the set-up
	}
	for i := range r.Nodes { // skipping instead of executing is the one difference wanted
		r.Nodes[i].SkippedCycles = 0
	}
	return r, st
}

// stream2 sets up BenchmarkStream's two nodes: node 0 streams 64 KiB
// WRITEs with a counter to node 1 without end.
func stream2(t *testing.T) func(*Cluster) []*lib.EP {
	return func(c *Cluster) []*lib.EP { return []*lib.EP{streamOn(t, c)} }
}

// leadCase is a cluster run that TestLeadStepsChangeNothing and
// TestSitOutChangesNothing make with a shortcut on and off.
type leadCase struct {
	name  string
	cfg   Config
	d     sim.Time
	setup func(*Cluster) []*lib.EP
}

// leadCases are the 2-node 64 KiB stream at 200 MHz, the busy 4-, 8- and
// 64-node rings and two nodes with host activity.
func leadCases(t *testing.T) []leadCase {
	return []leadCase{
		{"stream", Config{Nodes: 2, Frames: 1024, ClockHz: 200_000_000}, 3 * sim.Millisecond, stream2(t)},
		{"ring", Config{Nodes: 4, Frames: 256}, 2 * sim.Millisecond, func(c *Cluster) []*lib.EP { return ringStream(t, c) }},
		{"ring8", Config{Nodes: 8, Frames: 256}, sim.Millisecond, func(c *Cluster) []*lib.EP { return ringStream(t, c) }},
		{"host", Config{Nodes: 2, Frames: 256}, 2 * sim.Millisecond, func(c *Cluster) []*lib.EP { return hostActivity(t, c) }},
		// A Clos of 64: a third of the boards lag at any time, for
		// hundreds of steps each (node.World's lagging set).
		{"ring64", Config{Nodes: 64, Frames: 256}, 400 * sim.Microsecond, func(c *Cluster) []*lib.EP { return ringStream(t, c) }},
	}
}

// Lead steps change nothing but the speed: the 2-node 64 KiB stream at
// 200 MHz (both firmwares polling between DMA bursts and packets), the
// busy 4- and 8-node rings (boards sitting out steps), and two nodes with host activity (processes that
// map, export, import and write with counters while the boards run: PIO,
// interrupts, host threads waking on DMA writes) give the same counts,
// totals and counter times as the run that takes every step of one link
// latency; traced, the same device events on every board in the same
// order. The untraced stream takes far fewer steps with lead steps on.
func TestLeadStepsChangeNothing(t *testing.T) {
	for _, tc := range leadCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			for _, traced := range []bool{false, true} {
				on, st := leadRun(t, tc.cfg, true, traced, tc.d, tc.setup)
				off, st0 := leadRun(t, tc.cfg, false, traced, tc.d, tc.setup)
				if d := cmp.Diff(off, on); d != "" {
					t.Fatalf("traced %v: lead steps change the run (-every step +lead steps):\n%s", traced, d)
				}
				var sum uint64
				for _, c := range on.Counters[len(on.Counters)-1] {
					sum += c
				}
				if sum == 0 {
					t.Fatalf("no WRITE arrived")
				}
				t.Logf("traced %v: %d steps (%d lead steps, %d ended early; boards sat out %d steps) against %d; %d WRITEs",
					traced, st.Steps, st.LeadSteps, st.LeadBreaks, st.Lagged, st0.Steps, sum)
				if st.LeadSteps == 0 && st.Lagged == 0 || st0.LeadSteps != 0 || st0.Lagged != 0 {
					t.Errorf("lead steps %d, lagged %d; every step: %d, %d", st.LeadSteps, st.Lagged, st0.LeadSteps, st0.Lagged)
				}
				if !traced && tc.name == "stream" && 3*st.Steps > st0.Steps {
					t.Errorf("lead steps saved little: %d steps against %d", st.Steps, st0.Steps)
				}
			}
		})
	}
}

// The lagging set (node.World.SetLagSet) changes nothing, not even the
// steps: the busy 64-node ring, in which a third of the boards lag at any
// time, takes the same steps and gives the same counts, totals and
// counter times when every step looks at every board.
func TestLagSetChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("64 boards")
	}
	cfg := Config{Nodes: 64, Frames: 256}
	run := func(set bool) (leadResult, node.Stats) {
		return leadRun(t, cfg, true, false, sim.Millisecond, func(c *Cluster) []*lib.EP {
			c.World.SetLagSet(set)
			return ringStream(t, c)
		})
	}
	on, st := run(true)
	off, st0 := run(false)
	if d := cmp.Diff(off, on); d != "" {
		t.Fatalf("the lagging set changes the run (-every board looked at +lagging set):\n%s", d)
	}
	if st.Steps != st0.Steps || st.Lagged != st0.Lagged || st.LeadSteps != st0.LeadSteps {
		t.Fatalf("steps %d, lagged %d, lead steps %d with the set; %d, %d, %d without",
			st.Steps, st.Lagged, st.LeadSteps, st0.Steps, st0.Lagged, st0.LeadSteps)
	}
	if st.Lagged == 0 {
		t.Fatal("no board lagged")
	}
	t.Logf("%d steps, boards sat out %d", st.Steps, st.Lagged)
}

// hostActivity starts host work on two nodes that keeps touching the
// boards while they run: node 1 exports regions and a counter, node 0's
// thread maps, imports and writes 4 KiB pieces with the counter, sleeps,
// and maps more, so that PIO, interrupts and completions interleave with
// the firmware's loops.
func hostActivity(t *testing.T, c *Cluster) []*lib.EP {
	p0, p1 := c.Nodes[0].Kernel.NewProc("w"), c.Nodes[1].Kernel.NewProc("x")
	var ep0, ep1 *lib.EP
	var key, ck uint32
	runThread(t, c, 1, sim.Second, func(th *freebsd.Thread) {
		ep1, _ = lib.Open(th, c.Nodes[1].Driver, p1)
		dst, _ := p1.Mmap(th, 64<<10, freebsd.ProtRW)
		key, _ = ep1.Export(th, dst, 64<<10, true)
		ck, _ = ep1.ExportCounter(th, 0)
	})
	c.Nodes[0].Kernel.Go("writer", func(th *freebsd.Thread) {
		ep0, _ = lib.Open(th, c.Nodes[0].Driver, p0)
		imp, _ := ep0.Import(th, 1, ep1.Index, key, 64<<10, abi.ExpKindRegion)
		ic, _ := ep0.Import(th, 1, ep1.Index, ck, 0, abi.ExpKindCounter)
		for i := 0; ; i++ {
			src, _ := p0.Mmap(th, 4<<10, freebsd.ProtRW)
			p0.Write(th, src, []byte{byte(i), 1, 2, 3})
			ep0.Write(th, src, imp, uint32(i%16)<<12, 4<<10, ic)
			th.Sleep(20 * sim.Microsecond)
		}
	})
	return []*lib.EP{ep1}
}

// Boards that sit out proved and lead steps, leaders that start their lead
// where they lag, and leaders that run through the step of their next
// event (node.World.SetSitOut, SetRunThrough) change nothing, not even the
// steps: the 2-node stream, the busy 4-, 8- and 64-node rings and two
// nodes with host activity give the same counts, totals, counter times,
// steps (lead steps, those ended early, idle steps, proved steps, boards
// lagging) and, traced, device events as with both off; with them on,
// boards sit out the lead steps of the stream and of the host activity
// and the stream's leaders run through their events' steps.
func TestSitOutChangesNothing(t *testing.T) {
	for _, tc := range leadCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			for _, traced := range []bool{false, true} {
				run := func(on bool) (leadResult, node.Stats) {
					return leadRun(t, tc.cfg, true, traced, tc.d, func(c *Cluster) []*lib.EP {
						c.World.SetSitOut(on)
						c.World.SetRunThrough(on)
						return tc.setup(c)
					})
				}
				on, st := run(true)
				off, st0 := run(false)
				if d := cmp.Diff(off, on); d != "" {
					t.Fatalf("traced %v: sitting out changes the run (-off +on):\n%s", traced, d)
				}
				steps := func(s node.Stats) [6]uint64 {
					return [6]uint64{s.Steps, s.LeadSteps, s.LeadBreaks, s.IdleSteps, s.ProvedSteps, s.Lagged}
				}
				if steps(st) != steps(st0) {
					t.Fatalf("traced %v: steps, lead steps, ended early, idle, proved, lagged %v with sitting out, %v without", traced, steps(st), steps(st0))
				}
				t.Logf("traced %v: %d steps (%d lead, %d idle), boards sat out %d ordinary steps and %d lead steps, %d leaders' runs through an event's step",
					traced, st.Steps, st.LeadSteps, st.IdleSteps, st.Lagged, st.SatOut, st.Through)
				if st0.SatOut != 0 || st0.Through != 0 {
					t.Errorf("off: %d lead steps sat out, %d runs through", st0.SatOut, st0.Through)
				}
				if (tc.name == "stream" || tc.name == "host") && st.SatOut == 0 || tc.name == "stream" && st.Through == 0 {
					t.Errorf("on: %d lead steps sat out, %d runs through", st.SatOut, st.Through)
				}
			}
		})
	}
}

// runCounting runs c for 50 us and returns every endpoint's counter 0
// there (what the change-nothing tests compare besides the counts).
func runCounting(t *testing.T, c *Cluster, eps []*lib.EP) []uint64 {
	t.Helper()
	if err := c.Run(c.Now() + 50*sim.Microsecond); err != nil {
		t.Fatal(err)
	}
	cs := make([]uint64, 0, len(eps))
	for _, ep := range eps {
		cs = append(cs, ep.Counter(0))
	}
	return cs
}
