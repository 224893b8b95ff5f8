package scenario

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/internal/timeline"
	"lanaiemu/lanai"
	"lanaiemu/sim"
)

// Exit statuses of a run (cmd/lanai-sim uses them; docs/lanai-sim.md).
const (
	StatusOK        = 0  // every node exited (with code 0 unless exit_codes is "any"), or stop "time" and no trap
	StatusNonZero   = 1  // every node exited, some with a non-zero code
	StatusUsage     = 64 // usage error
	StatusBadInput  = 66 // the scenario, a firmware or a host file could not be read or used; an output could not be written
	StatusTrap      = 70 // a node trapped
	StatusTimeLimit = 71 // the time limit was reached with a node still running (stop "exit"), or a host script (stop "host")
	StatusHostFail  = 72 // a host script failed (an expect, a wait that timed out, an access the window refused)
)

// cpuSpan is a run of samples of one node in the same CPU state.
type cpuSpan struct {
	busy            bool
	open            bool
	start           sim.Time
	cycles, skipped uint64
	lastC, lastS    uint64
}

// RecordTimeline makes the run record a timeline (call before Run).
func (w *World) RecordTimeline() {
	if w.tl != nil {
		return
	}
	w.tl = timeline.New()
	w.linkSeen = map[fabric.LinkID]bool{}
	n := len(w.Boards)
	for i := range n {
		w.tl.NameProcess(i+1, fmt.Sprintf("node %d", i))
		w.tl.NameTrack(timeline.Track{Process: i + 1, Thread: 0}, "cpu")
	}
	w.tl.NameProcess(n+1, "fabric")
	links := w.Fabric.Links()
	w.Fabric.SetObserver(func(r *fabric.PacketRecord) {
		for _, h := range r.Hops {
			tr := timeline.Track{Process: n + 1, Thread: int(h.Link)}
			if !w.linkSeen[h.Link] {
				w.linkSeen[h.Link] = true
				li := links[h.Link]
				w.tl.NameTrack(tr, fmt.Sprintf("link %d %v->%v", h.Link, li.From, li.To))
			}
			args := map[string]any{"id": r.ID, "src": r.Src, "dst": r.Dst, "bytes": h.Bytes, "fate": r.Cause.String()}
			if h.Wait > 0 {
				args["wait_ps"] = uint64(h.Wait)
			}
			w.tl.Span(tr, "packet", fmt.Sprintf("pkt %d %d->%d", r.ID, r.Src, r.Dst), h.Start, h.End, args)
		}
	})
}

// OutputErr is the first error writing the console or a streamed
// timeline (the run stops at the next sample), or nil.
func (w *World) OutputErr() error {
	if w.consoleErr != nil {
		return w.consoleErr
	}
	return w.tl.Err()
}

// Timeline is the recorder (nil unless RecordTimeline was called).
func (w *World) Timeline() *timeline.Recorder { return w.tl }

func (w *World) boardEvent(id int, e board.Event) {
	c := &w.dma[id]
	switch e.Kind {
	case board.EvISR:
		c.isr++
	case board.EvDMAFetch:
		if e.Channel >= 0 && e.Channel < board.NumChannels {
			w.dmaOpen[id][e.Channel] = e.Cycle + 1
		}
	case board.EvDMADone:
		c.bytes += uint64(e.Bytes)
		c.descriptors++
		if w.tl != nil && e.Channel >= 0 && e.Channel < board.NumChannels {
			clk := w.Boards[id].Clock()
			start := e.Cycle
			if o := w.dmaOpen[id][e.Channel]; o != 0 {
				start = o - 1
			}
			tr := timeline.Track{Process: id + 1, Thread: 1 + e.Channel}
			w.tl.NameTrack(tr, fmt.Sprintf("dma ch%d", e.Channel))
			w.tl.Span(tr, "dma", fmt.Sprintf("dma %d B", e.Bytes), clk.Time(start), clk.Time(e.Cycle),
				map[string]any{"desc": e.Desc, "bytes": e.Bytes})
		}
	case board.EvDMAFault:
		c.faults++
		if w.tl != nil {
			w.tl.Instant(timeline.Track{Process: id + 1, Thread: 0}, "dma", "dma fault", w.Boards[id].Clock().Time(e.Cycle), nil)
		}
	}
}

// sample closes the CPU spans that changed state since the last sample.
func (w *World) sample(now sim.Time, final bool) {
	for i, n := range w.W.Nodes {
		cpu := n.Board.CPU()
		sp := &w.cpuState[i]
		ran, skipped := cpu.Cycles-sp.lastC, cpu.SkippedCycles-sp.lastS
		end := n.Board.Clock().Time(cpu.Cycles)
		if ran > 0 {
			busy := 2*skipped < ran
			if sp.open && busy != sp.busy {
				w.closeSpan(i, sp, n.Board.Clock().Time(sp.lastC))
			}
			if !sp.open {
				sp.open, sp.busy, sp.start, sp.cycles, sp.skipped = true, busy, n.Board.Clock().Time(sp.lastC), 0, 0
			}
			sp.cycles += ran
			sp.skipped += skipped
		}
		sp.lastC, sp.lastS = cpu.Cycles, cpu.SkippedCycles
		if sp.open && (final || n.Stop != nil) {
			w.closeSpan(i, sp, end)
		}
	}
}

func (w *World) closeSpan(i int, sp *cpuSpan, end sim.Time) {
	sp.open = false
	if w.tl == nil {
		return
	}
	name := "idle"
	if sp.busy {
		name = "busy"
	}
	w.tl.Span(timeline.Track{Process: i + 1, Thread: 0}, "cpu", name, sp.start, end,
		map[string]any{"cycles": sp.cycles, "skipped_cycles": sp.skipped})
}

// Run runs the scenario to its time limit, until every node has stopped,
// or until a node traps (the run stops there), or until writing the
// console or a streamed timeline fails (OutputErr). progress, if not nil, is
// called after every sample interval with the time reached and the limit.
// Run returns the node's trap as an error (see Status for the outcome).
func (w *World) Run(progress func(now, until sim.Time)) error {
	if w.ran {
		return errors.New("scenario: world already ran")
	}
	w.ran = true
	until := sim.Time(w.S.Time)
	step := DefaultSample
	if w.S.Sample != nil {
		step = sim.Time(*w.S.Sample)
	}
	var err error
	for w.W.Now() < until && w.W.Running() && w.HostErr() == nil && !w.HostsDone() && w.OutputErr() == nil {
		next := min((w.W.Now()/step+1)*step, until)
		err = w.W.Run(next)
		w.sample(w.W.Now(), false)
		w.FlushConsole(false)
		if progress != nil {
			progress(w.W.Now(), until)
		}
		if err != nil {
			w.trapped = true
			break
		}
	}
	w.sample(w.W.Now(), true)
	w.FlushConsole(true)
	if w.tl != nil {
		for i, n := range w.W.Nodes {
			if n.Stop == nil {
				continue
			}
			at := n.Board.Clock().Time(n.Board.CPU().Cycles)
			name := fmt.Sprintf("exit %d", n.Stop.Code)
			if n.Stop.Kind == lanai.StopTrap {
				name = n.Stop.Trap.Error() // "trap: " and the reason
			}
			w.tl.Instant(timeline.Track{Process: i + 1, Thread: 0}, "cpu", name, at, nil)
		}
	}
	return err
}

// Status is the run's exit status (StatusOK, StatusNonZero, StatusTrap or
// StatusTimeLimit).
func (w *World) Status() int {
	if w.HostErr() != nil {
		return StatusHostFail
	}
	if w.S.Stop == "host" {
		for _, n := range w.W.Nodes {
			if n.Stop != nil && n.Stop.Kind == lanai.StopTrap {
				return StatusTrap
			}
		}
		if !w.hostsFinished() {
			return StatusTimeLimit
		}
		return StatusOK
	}
	allExited, nonzero := true, false
	for _, n := range w.W.Nodes {
		switch {
		case n.Stop == nil:
			allExited = false
		case n.Stop.Kind == lanai.StopTrap:
			return StatusTrap
		case n.Stop.Code != 0:
			nonzero = true
		}
	}
	if !allExited && w.S.Stop != "time" {
		return StatusTimeLimit
	}
	if nonzero && w.S.ExitCodes != "any" {
		return StatusNonZero
	}
	return StatusOK
}

// LinkCounters are a node's link-engine counters in Stats.
type LinkCounters struct {
	PacketsSent  uint64 `json:"packets_sent"`
	BytesSent    uint64 `json:"bytes_sent"`
	PacketsRecv  uint64 `json:"packets_recv"`
	BytesRecv    uint64 `json:"bytes_recv"`
	BytesStored  uint64 `json:"bytes_stored"`
	Overflows    uint64 `json:"overflows"`
	CRC8Errors   uint64 `json:"crc8_errors"`
	CRC32Errors  uint64 `json:"crc32_errors"`
	SendTimeouts uint64 `json:"send_timeouts"`
	BlockedSends uint64 `json:"blocked_sends"`
}

// NodeStats are one node's figures in Stats.
type NodeStats struct {
	Node            int          `json:"node"`
	Stop            string       `json:"stop"` // "exit", "trap" or "running"
	ExitCode        *uint32      `json:"exit_code"`
	Trap            string       `json:"trap,omitempty"`
	ClockHz         uint64       `json:"clock_hz"`
	Instructions    uint64       `json:"instructions"`
	Cycles          uint64       `json:"cycles"`
	SkippedCycles   uint64       `json:"skipped_cycles"`
	SimSeconds      float64      `json:"sim_seconds"`
	DMABytes        uint64       `json:"dma_bytes"`
	DMADescriptors  uint64       `json:"dma_descriptors"`
	DMAFaults       uint64       `json:"dma_faults"`
	ISREvents       uint64       `json:"isr_events"`
	Link            LinkCounters `json:"link"`
	FabricSent      uint64       `json:"fabric_sent"`
	FabricDelivered uint64       `json:"fabric_delivered"`
	// The host script's log lines, first failure and final variables
	// (nodes with a host script only).
	HostLog   []string          `json:"host_log,omitempty"`
	HostError string            `json:"host_error,omitempty"`
	HostVars  map[string]uint32 `json:"host_vars,omitempty"`
}

// FabricStats are the fabric totals in Stats.
type FabricStats struct {
	Sent        uint64            `json:"sent"`
	Delivered   uint64            `json:"delivered"`
	Drops       map[string]uint64 `json:"drops"`
	Corrupted   uint64            `json:"corrupted"`
	Detoured    uint64            `json:"detoured"`
	AltRouted   uint64            `json:"alt_routed"`
	Links       int               `json:"links"`
	Switches    int               `json:"switches"`
	LinkPackets uint64            `json:"link_packets"` // packets over all directed links (one per hop)
	LinkBytes   uint64            `json:"link_bytes"`
}

// HostStats are the host (wall-clock) figures: the only ones that vary
// between runs.
type HostStats struct {
	Seconds float64 `json:"host_seconds"`
	Speed   float64 `json:"sim_seconds_per_host_second"`
}

// Stats is what --stats writes.
type Stats struct {
	Scenario   string      `json:"scenario"`
	Topology   string      `json:"topology"`
	Seed       uint64      `json:"seed"`
	Outcome    string      `json:"outcome"` // "exit", "trap", "time limit", "host done", "host failed"
	Status     int         `json:"status"`
	SimTimePS  uint64      `json:"sim_time_ps"`
	SimSeconds float64     `json:"sim_seconds"`
	Steps      uint64      `json:"steps"`
	IdleSteps  uint64      `json:"idle_steps"`
	LateRisk   uint64      `json:"late_risk"`
	Fabric     FabricStats `json:"fabric"`
	Host       *HostStats  `json:"host,omitempty"`
	Nodes      []NodeStats `json:"nodes"`
}

// Stats collects the run's figures; host is the wall-clock time of the
// run (0 leaves Host out, for byte-identical output).
func (w *World) Stats(host time.Duration) Stats {
	ws := w.W.Stats()
	st := Stats{Scenario: w.S.Name, Topology: w.S.Topology.Kind, Seed: w.S.Seed, Status: w.Status(),
		SimTimePS: uint64(ws.Time), SimSeconds: float64(ws.Time) / float64(sim.Second),
		Steps: ws.Steps, IdleSteps: ws.IdleSteps, LateRisk: ws.LateRisk}
	switch st.Status {
	case StatusTrap:
		st.Outcome = "trap"
	case StatusTimeLimit:
		st.Outcome = "time limit"
	case StatusHostFail:
		st.Outcome = "host failed"
	default:
		st.Outcome = "exit"
		if w.S.Stop == "host" {
			st.Outcome = "host done"
		} else if w.W.Running() {
			st.Outcome = "time limit"
		}
	}
	if st.Scenario == "" {
		st.Scenario = w.S.Path
	}
	ft := ws.Fabric
	st.Fabric = FabricStats{Sent: ft.Sent, Delivered: ft.Delivered, Drops: map[string]uint64{},
		Corrupted: ft.Corrupted, Detoured: ft.Detoured, AltRouted: ft.AltRouted, Switches: w.Fabric.Switches()}
	for c := fabric.DropCause(1); c < fabric.NumDropCauses; c++ {
		st.Fabric.Drops[c.String()] = ft.Drops[c]
	}
	for _, li := range w.Fabric.Links() {
		ls, _ := w.Fabric.LinkStats(li.ID)
		st.Fabric.Links++
		st.Fabric.LinkPackets += ls.Packets
		st.Fabric.LinkBytes += ls.Bytes
	}
	if host > 0 {
		hs := host.Seconds()
		st.Host = &HostStats{Seconds: hs, Speed: st.SimSeconds / hs}
	}
	for i, n := range w.W.Nodes {
		ns := ws.Nodes[i]
		clk := n.Board.Clock()
		o := NodeStats{Node: i, Stop: "running", ClockHz: clk.Hz, Instructions: ns.Instructions, Cycles: ns.Cycles,
			SkippedCycles: ns.SkippedCycles, SimSeconds: float64(clk.Time(ns.Cycles)) / float64(sim.Second),
			DMABytes: w.dma[i].bytes, DMADescriptors: w.dma[i].descriptors, DMAFaults: w.dma[i].faults, ISREvents: w.dma[i].isr,
			FabricSent: ws.Endpoints[i].Sent, FabricDelivered: ws.Endpoints[i].Delivered}
		l := ns.Link
		o.Link = LinkCounters{PacketsSent: l.PacketsSent, BytesSent: l.BytesSent, PacketsRecv: l.PacketsRecv, BytesRecv: l.BytesRecv,
			BytesStored: l.BytesStored, Overflows: l.Overflows, CRC8Errors: l.CRC8Errors, CRC32Errors: l.CRC32Errors,
			SendTimeouts: l.SendTimeouts, BlockedSends: l.BlockedSends}
		if n.Stop != nil {
			if n.Stop.Kind == lanai.StopTrap {
				o.Stop, o.Trap = "trap", fmt.Sprint(n.Stop.Trap)
			} else {
				o.Stop = "exit"
				code := n.Stop.Code
				o.ExitCode = &code
			}
		}
		if h := w.hosts[i]; h != nil {
			o.HostLog, o.HostVars = h.res.Log, h.res.Vars
			if d := h.res.LogDropped; d > 0 {
				o.HostLog = append(slices.Clip(o.HostLog), fmt.Sprintf("node %d: %d more log lines not kept (a host keeps its first %d)", i, d, MaxHostLog))
			}
			if h.res.Err != nil {
				o.HostError = h.res.Err.Error()
			}
		}
		st.Nodes = append(st.Nodes, o)
	}
	return st
}
