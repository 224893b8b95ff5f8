// Package run is `netvm run SCENARIO`: a cluster and its workloads
// described in a JSON file a person can write, run on one deterministic
// timeline, with per-node statistics, per-workload results and, if asked,
// a Perfetto timeline.
//
// A scenario is a scenario of package scenario (lanai-sim's format: the
// count, topology, faults, seed, time and the defaults' board and
// clock_mhz) with netvm run's fields added (frames and workloads):
//
//	{
//	  "count": 2, "topology": {"kind": "star"}, "seed": 1, "time": "200ms",
//	  "defaults": {"board": "M2L-PCI64C", "clock_mhz": 200},
//	  "faults": {"drop_ppm": 0, "corrupt_ppm": 0, "detour_ppm": 0},
//	  "frames": 2048,
//	  "workloads": [
//	    {"kind": "pingpong", "from": 0, "to": 1, "size": 4, "count": 100, "wait": "busy"},
//	    {"kind": "stream", "from": 0, "to": 1, "size": 65536, "count": 64},
//	    {"kind": "touch", "node": 1, "pages": 3000}
//	  ]
//	}
//
// pingpong: a process on each node; from writes size bytes and a counter
// to to, which waits (busy, block or handler), then writes back; count
// round trips; the result is the one-way latency (half the mean round
// trip). stream: count WRITEs of size bytes from one process to the
// other, each notifying, the receiver waiting for the last; the result is
// the payload rate. touch: a process that writes pages pages over and
// over (memory pressure) until the scenario's end. "warm": true makes the
// receiver of a pingpong or stream write its whole region before the
// first WRITE, so that its pages are resident and in the SPT (without
// it, the first WRITE to each page takes the redirect path).
// "no_inline": true makes the library DMA even a payload of up to 32
// bytes (otherwise carried in the command slot).
package run

import (
	"encoding/json"
	"fmt"
	"io"

	"lanaiemu/board"
	"lanaiemu/internal/readfile"
	"lanaiemu/internal/timeline"
	"lanaiemu/lanai/profile"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/cluster"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/netvm/internal/progress"
	"lanaiemu/scenario"
	"lanaiemu/sim"
)

// Scenario is a parsed scenario file: the base format (scenario.Scenario)
// and netvm run's fields. The base's Build (lanai-sim's boards) is not
// for it: Run builds the NetVM cluster.
type Scenario struct {
	scenario.Scenario
	// Frames is each host's VM memory in 4 KiB pages (default
	// cluster.DefaultFrames).
	Frames    int        `json:"frames,omitempty"`
	Workloads []Workload `json:"workloads"`
	// Profile makes the run profile every board from the start of the
	// workloads (Result.Profiles; docs/profiling.md); not a file field.
	Profile bool `json:"-"`
	// Jobs is the number of goroutines that run the boards (node.Config.Jobs;
	// the results do not depend on it); not a file field.
	Jobs  int   `json:"-"`
	lines []int // line of each workload in the file
}

// Workload is one workload of a scenario.
type Workload struct {
	Kind  string `json:"kind"`
	From  int    `json:"from"`
	To    int    `json:"to"`
	Node  int    `json:"node"`
	Size  uint32 `json:"size"`
	Count int    `json:"count"`
	Wait  string `json:"wait"`
	Pages int    `json:"pages"`
	Warm  bool   `json:"warm"`
	// NoInline makes the library DMA even a small payload (lib.EP.NoInline).
	NoInline bool `json:"no_inline,omitempty"`
}

// Load reads and checks a scenario file (a text file of at most
// readfile's limit; a device or a directory is refused).
func Load(path string) (*Scenario, error) {
	data, err := readfile.Read(path, readfile.Text)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads a scenario (scenario.ParseFormat); errors name the file
// and, for a workload, its line.
func Parse(name string, data []byte) (*Scenario, error) {
	sc := &Scenario{lines: scenario.ElementLines(data, "workloads")}
	if err := scenario.ParseFormat(name, data, sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// where names workload i: the file, its line and its index.
func (sc *Scenario) where(i int) string {
	line := 0
	if i < len(sc.lines) {
		line = sc.lines[i]
	}
	return fmt.Sprintf("%s:%d: workloads[%d]", sc.Path, line, i)
}

// MaxTime is the longest run a scenario may ask for: one simulated hour
// (a longer one would take days of host time).
const MaxTime = sim.Second * 3600

// maxTouchPages bounds a touch workload's region to 1 GiB of the 32-bit
// address space.
const maxTouchPages = 1 << 18

// Check validates the scenario: the base format's rules
// (scenario.CheckBase), what netvm run's clusters can be (every node
// runs the NetVM firmware on the same board) and the workloads.
func (sc *Scenario) Check() error {
	// Before CheckBase, which would read a host script's file.
	if len(sc.Nodes) > 0 {
		return sc.Errorf("nodes: netvm run's nodes are alike: give their board and clock in defaults")
	}
	d := sc.Defaults
	d.Board, d.ClockMHz = "", 0
	if other, _ := json.Marshal(d); string(other) != "{}" {
		return sc.Errorf("defaults: %s: netvm run takes only board and clock_mhz (the nodes run the NetVM firmware and FreeBSD hosts)", other)
	}
	if len(sc.Topology.Unplugged) > 0 {
		return sc.Errorf("topology.unplugged: not netvm run's (its nodes need their cables)")
	}
	if sc.Stop != "" || sc.ExitCodes != "" || sc.Sample != nil {
		return sc.Errorf("stop, exit_codes, sample: not netvm run's (its run ends when the workloads are done, or at time)")
	}
	if sim.Time(sc.Time) > MaxTime { // before CheckBase's looser bound
		return sc.Errorf("time = %v: at most one simulated hour", sim.Time(sc.Time))
	}
	if err := sc.CheckBase(); err != nil {
		return err
	}
	n, t := sc.Count, sc.Topology
	if err := cluster.CheckNodes(n); err != nil {
		return sc.Errorf("count: %v", err)
	}
	switch {
	case t.Kind == "b2b", t.Kind == "star" && n <= cluster.MaxStarNodes, t.Kind == "clos" && n > cluster.MaxStarNodes && t.PerLeaf == 8 && t.Spines == 8:
	default:
		return sc.Errorf("topology: %s of %d nodes: netvm run's clusters are b2b (2 nodes), star (2..%d) or clos with per_leaf 8 and spines 8 (more)", t.Kind, n, cluster.MaxStarNodes)
	}
	if c := sc.Defaults.ClockMHz; c != 0 && (c < 10 || c > 1000) {
		return sc.Errorf("defaults.clock_mhz = %v: 10..1000", c)
	}
	if sc.Frames == 0 {
		sc.Frames = cluster.DefaultFrames
	}
	if sc.Frames < 64 || sc.Frames > cluster.MaxFrames {
		return sc.Errorf("frames = %d: 64..%d (4 KiB pages of host memory)", sc.Frames, cluster.MaxFrames)
	}
	var extra uint64
	for i := range sc.Workloads {
		if err := sc.checkWorkload(i); err != nil {
			return fmt.Errorf("%s: %v: %w", sc.where(i), err, scenario.ErrBadScenario)
		}
		extra += sc.Workloads[i].memory()
	}
	if err := cluster.CheckSize(n, sc.Frames, extra); err != nil {
		return sc.Errorf("count, frames, workloads: %v", err)
	}
	return nil
}

// workloadOverhead is what a workload takes besides the pages it writes:
// its processes, threads and set-up. Measured: 15.3 KiB per stream
// workload (netvm run of 1000 and 10000 on two nodes), 5.8 KiB per touch.
const workloadOverhead = 16 << 10

// memory estimates the memory a workload adds, in bytes: the host pages
// it writes, at most (a touch workload's pages; a pingpong's or stream's
// region and source buffer on each of its two nodes), and
// workloadOverhead.
func (w Workload) memory() uint64 {
	pages := uint64(w.Pages)
	if w.Kind != "touch" {
		pages = 4 * ((uint64(w.Size) + freebsd.PageSize - 1) / freebsd.PageSize)
	}
	return pages*freebsd.PageSize + workloadOverhead
}

// checkWorkload checks workload i and fills in its defaults.
func (sc *Scenario) checkWorkload(i int) error {
	w := &sc.Workloads[i]
	node := func(n int, what string) error {
		if n < 0 || n >= sc.Count {
			return fmt.Errorf("%s = %d, but nodes are 0..%d", what, n, sc.Count-1)
		}
		return nil
	}
	switch w.Kind {
	case "pingpong", "stream":
		if err := node(w.From, "from"); err != nil {
			return err
		}
		if err := node(w.To, "to"); err != nil {
			return err
		}
		if w.From == w.To {
			return fmt.Errorf("from and to are the same node")
		}
		if w.Count <= 0 {
			return fmt.Errorf("count = %d: at least 1", w.Count)
		}
		if w.Size > 1<<20 {
			return fmt.Errorf("size = %d: at most 1 MiB", w.Size)
		}
		switch w.Wait {
		case "":
			w.Wait = "busy"
		case "busy", "block", "handler":
		default:
			return fmt.Errorf("wait = %q: busy, block or handler", w.Wait)
		}
	case "touch":
		if err := node(w.Node, "node"); err != nil {
			return err
		}
		if w.Pages <= 0 || w.Pages > maxTouchPages {
			return fmt.Errorf("pages = %d: 1..%d", w.Pages, maxTouchPages)
		}
	default:
		return fmt.Errorf("kind = %q: pingpong, stream or touch", w.Kind)
	}
	return nil
}

// Result is what a run measured.
type Result struct {
	// Profiles are the boards' cycle profiles, node by node, when the
	// scenario's Profile was set.
	Profiles []*profile.Profiler `json:"-"`
	// ClockHz is the boards' clock (the profiles' unit of time).
	ClockHz     uint64           `json:"-"`
	SimulatedUS uint64           `json:"simulated_us"`
	Workloads   []WorkloadResult `json:"workloads"`
	Nodes       []NodeStats      `json:"nodes"`
}

// WorkloadResult is one workload's outcome.
type WorkloadResult struct {
	Kind      string  `json:"kind"`
	Done      bool    `json:"done"`
	LatencyUS float64 `json:"one_way_latency_us,omitempty"`
	MBps      float64 `json:"mb_per_s,omitempty"`
	Bytes     uint64  `json:"bytes,omitempty"`
	// Error is why the workload failed (its set-up was refused); empty
	// if it did not fail.
	Error string `json:"error,omitempty"`
}

// NodeStats are one node's counters at the end.
type NodeStats struct {
	Node       int            `json:"node"`
	Firmware   map[string]int `json:"firmware"`
	Interrupts int            `json:"interrupts"`
	Redirects  int            `json:"redirects"`
	LockWaits  int            `json:"lock_waits"`
	Evictions  int            `json:"evictions"`
	PageIns    int            `json:"page_ins"`
	CPUBusyUS  uint64         `json:"cpu_busy_us"`
	Violation  string         `json:"violation,omitempty"`
}

// Run runs the scenario; tl, if not nil, records the timeline, and
// progressOut, if not nil, gets a progress line (package progress).
func Run(sc *Scenario, tl *timeline.Recorder, progressOut io.Writer) (*Result, error) {
	c, res, t0, err := begin(sc, tl, nil)
	if err != nil {
		return nil, err
	}
	defer c.Shutdown()
	return finish(sc, c, res, t0, progress.New(progressOut), tl)
}

// begin builds the scenario's cluster (trace, if not nil, gets every
// board's device events) and starts its workloads; t0 is when they
// started.
func begin(sc *Scenario, tl *timeline.Recorder, trace func(int, board.Event)) (*cluster.Cluster, *Result, sim.Time, error) {
	fcfg, err := sc.FabricConfig()
	if err != nil {
		return nil, nil, 0, err
	}
	c, err := cluster.New(cluster.Config{Nodes: sc.Count, Frames: sc.Frames, Seed: sc.Seed,
		Board: sc.Defaults.Board, ClockHz: uint64(sc.Defaults.ClockMHz * 1e6), BackToBack: sc.Topology.Kind == "b2b",
		Fabric: &fcfg, Faults: sc.Faults.Fabric(), Timeline: tl, Trace: trace, Jobs: sc.Jobs})
	if err != nil {
		return nil, nil, 0, err
	}
	res := &Result{Workloads: make([]WorkloadResult, len(sc.Workloads)), ClockHz: c.Nodes[0].Board.Clock().Hz}
	if sc.Profile {
		if res.Profiles, err = c.Profile(); err != nil {
			c.Shutdown()
			return nil, nil, 0, err
		}
	}
	t0 := c.Now()
	for i, w := range sc.Workloads {
		res.Workloads[i].Kind = w.Kind
		if err := start(c, w, &res.Workloads[i]); err != nil {
			c.Shutdown()
			return nil, nil, 0, fmt.Errorf("workloads[%d]: %w", i, err)
		}
	}
	return c, res, t0, nil
}

// done reports whether every workload but touch has finished or failed,
// or any has failed.
func (sc *Scenario) done(res *Result) bool {
	for i, w := range sc.Workloads {
		if res.Workloads[i].Error != "" {
			return true
		}
		if w.Kind != "touch" && !res.Workloads[i].Done {
			return false
		}
	}
	return true
}

// Unfinished returns one line for each workload that failed or did not
// finish by the scenario's end (touch workloads finish with the run);
// nil if every workload finished.
func (sc *Scenario) Unfinished(res *Result) []string {
	var out []string
	for i, w := range sc.Workloads {
		r := res.Workloads[i]
		switch {
		case r.Error != "":
			out = append(out, fmt.Sprintf("%s: %s failed: %s", sc.where(i), w.Kind, r.Error))
		case w.Kind != "touch" && !r.Done:
			out = append(out, fmt.Sprintf("%s: %s did not finish in the scenario's time, %s (simulated %d us)", sc.where(i), w.Kind, us(sim.Time(sc.Time)), res.SimulatedUS))
		}
	}
	return out
}

// finish runs the cluster in steps of a millisecond from t0 until the end
// of the first step at which the workloads are done, or the scenario's
// end, and collects the result. A streaming timeline tl (nil for none)
// that cannot be written stops the run with its error (tl.Err).
func finish(sc *Scenario, c *cluster.Cluster, res *Result, t0 sim.Time, line *progress.Line, tl *timeline.Recorder) (*Result, error) {
	end := t0 + sim.Time(sc.Time)
	for c.Now() < end {
		if c.Now() > t0 && (c.Now()-t0)%sim.Millisecond == 0 && sc.done(res) {
			break
		}
		next := t0 + ((c.Now()-t0)/sim.Millisecond+1)*sim.Millisecond
		if err := c.Run(min(end, next)); err != nil {
			return nil, err
		}
		if err := tl.Err(); err != nil {
			return nil, err
		}
		if (c.Now()-t0)%(10*sim.Millisecond) == 0 { // a log gets one line per 100 ms
			line.Show(int((c.Now()-t0)/(100*sim.Millisecond)), fmt.Sprintf("simulated %v of %v", c.Now()-t0, end-t0))
		}
	}
	line.End()
	res.SimulatedUS = uint64((c.Now() - t0) / sim.Microsecond)
	for _, n := range c.Nodes {
		ns := NodeStats{Node: n.ID, Firmware: map[string]int{}}
		for _, s := range []struct {
			name string
			off  uint32
		}{{"tx_data", abi.StatTxData}, {"rx_data", abi.StatRxData}, {"retransmits", abi.StatRetx}, {"duplicates", abi.StatDup},
			{"crc_errors", abi.StatCRC}, {"redirected", abi.StatRedirect}, {"src_faults", abi.StatSrcFault},
			{"credit_stalls", abi.StatCreditStall}, {"notifications", abi.StatNotify}, {"irqs", abi.StatIRQ}, {"acks", abi.StatAck}} {
			ns.Firmware[s.name] = n.Stat(s.off)
		}
		ds, vs := n.Driver.Stats(), n.Kernel.VMStats()
		ns.Interrupts, ns.Redirects, ns.LockWaits = ds.Interrupts, ds.Redirects, ds.LockWaits
		ns.Evictions, ns.PageIns = vs.Evictions, vs.PageIns
		ns.CPUBusyUS = uint64(n.Kernel.CPUBusy() / sim.Microsecond)
		if err := n.Kernel.Err(); err != nil {
			ns.Violation = err.Error()
		}
		res.Nodes = append(res.Nodes, ns)
	}
	return res, nil
}

// pair is a process on each of two nodes (cluster.OpenProcess): b
// exports a region of n bytes and counter 0, a does too and imports
// b's, then b imports a's. Each sends from its region.
type pair struct{ a, b *cluster.Process }

// setupPair sets the pair up on the timeline, b first, and calls done
// on a's thread when both are ready. The first error of either side is
// the workload's (r.Error, with the driver's words) and ends both sides.
func setupPair(c *cluster.Cluster, from, to int, n uint32, warm, noInline bool, r *WorkloadResult, done func(*pair)) {
	p := &pair{}
	ka := c.Nodes[from].Kernel
	kb := c.Nodes[to].Kernel
	pa, pb := ka.NewProc(fmt.Sprintf("app%d", ka.ProcsMade()+1)), kb.NewProc(fmt.Sprintf("app%d", kb.ProcsMade()+1))
	var wq freebsd.WaitQueue
	stage := 0
	// ok records the first error of the set-up (the workload fails with
	// it) and wakes the other side, which then gives up too.
	ok := func(node int, err error) bool {
		if !r.fail(node, err) {
			ka.Wakeup(&wq, 0)
			kb.Wakeup(&wq, 0)
		}
		return r.Error == ""
	}
	// await waits until the set-up reaches stage s; false if it failed.
	await := func(t *freebsd.Thread, s int) bool {
		for stage < s && r.Error == "" {
			t.Wait(&wq)
		}
		return r.Error == ""
	}
	kb.Go("setup", func(t *freebsd.Thread) {
		var err error
		// warm: resident; the fault enters it in the SPT (the endpoint is open)
		if p.b, err = cluster.OpenProcess(t, c.Nodes[to], pb, n, cluster.ProcessOptions{Resident: warm, NoInline: noInline}); !ok(to, err) {
			return
		}
		stage++
		kb.Wakeup(&wq, 0)
		if !await(t, 2) || !ok(to, p.b.Import(t, p.a)) {
			return
		}
		stage++
		ka.Wakeup(&wq, 0)
	})
	ka.Go("setup", func(t *freebsd.Thread) {
		if !await(t, 1) {
			return
		}
		var err error
		if p.a, err = cluster.OpenProcess(t, c.Nodes[from], pa, n, cluster.ProcessOptions{Resident: true, NoInline: noInline}); !ok(from, err) {
			return
		}
		if !ok(from, p.a.Import(t, p.b)) {
			return
		}
		stage++
		kb.Wakeup(&wq, 0)
		if !await(t, 3) {
			return
		}
		done(p)
	})
}

// fail records err, if not nil, as the workload's error unless it has one
// already; it reports whether err was nil.
func (r *WorkloadResult) fail(node int, err error) bool {
	if err != nil && r.Error == "" {
		r.Error = fmt.Sprintf("node %d: %v", node, err)
	}
	return err == nil
}

// write posts one WRITE of n bytes from p's source to its peer's region
// with its counter; an error fails the workload.
func write(t *freebsd.Thread, p *cluster.Process, n uint32, r *WorkloadResult) bool {
	_, err := p.EP.Write(t, p.Src, p.PeerRegion, 0, n, p.PeerCounter)
	return r.fail(p.Machine.ID, err)
}

// armHandlers installs the handler that wakes a thread waiting with
// cluster.WaitHandler on each of ps, each in a thread of its node; an
// error fails the workload.
func armHandlers(r *WorkloadResult, ps ...*cluster.Process) {
	for _, p := range ps {
		p.Machine.Kernel.Go("handler setup", func(t *freebsd.Thread) {
			r.fail(p.Machine.ID, p.ArmHandler(t))
		})
	}
}

func start(c *cluster.Cluster, w Workload, r *WorkloadResult) error {
	switch w.Kind {
	case "touch":
		k := c.Nodes[w.Node].Kernel
		p := k.NewProc("toucher")
		k.Go("toucher", func(t *freebsd.Thread) {
			va, err := p.Mmap(t, uint32(w.Pages)*freebsd.PageSize, freebsd.ProtRW)
			if err != nil {
				r.fail(w.Node, fmt.Errorf("mmap of %d pages: %w", w.Pages, err))
				return
			}
			for pass := byte(0); ; pass++ {
				for i := range w.Pages {
					if !r.fail(w.Node, p.Write(t, va+uint32(i)*freebsd.PageSize, []byte{pass})) {
						return
					}
				}
			}
		})
	case "stream":
		setupPair(c, w.From, w.To, w.Size, w.Warm, w.NoInline, r, func(p *pair) {
			if w.Wait == cluster.WaitHandler {
				armHandlers(r, p.b)
			}
			var t0 sim.Time
			c.Nodes[w.From].Kernel.Go("stream", func(t *freebsd.Thread) {
				t0 = t.Now()
				for range w.Count {
					if !write(t, p.a, w.Size, r) {
						return
					}
				}
			})
			c.Nodes[w.To].Kernel.Go("stream sink", func(t *freebsd.Thread) {
				if !r.fail(w.To, p.b.WaitCounter(t, uint64(w.Count), w.Wait)) {
					return
				}
				el := t.Now() - t0
				r.Bytes = uint64(w.Size) * uint64(w.Count)
				r.MBps = float64(r.Bytes) / (float64(el) / float64(sim.Second)) / 1e6
				r.Done = true
			})
		})
	case "pingpong":
		setupPair(c, w.From, w.To, w.Size, w.Warm, w.NoInline, r, func(p *pair) {
			if w.Wait == cluster.WaitHandler {
				armHandlers(r, p.a, p.b)
			}
			c.Nodes[w.To].Kernel.Go("pong", func(t *freebsd.Thread) {
				for i := range w.Count {
					if !r.fail(w.To, p.b.WaitCounter(t, uint64(i+1), w.Wait)) || !write(t, p.b, w.Size, r) {
						return
					}
				}
			})
			c.Nodes[w.From].Kernel.Go("ping", func(t *freebsd.Thread) {
				t.Sleep(100 * sim.Microsecond) // the handlers are armed
				t0 := t.Now()
				for i := range w.Count {
					if !write(t, p.a, w.Size, r) || !r.fail(w.From, p.a.WaitCounter(t, uint64(i+1), w.Wait)) {
						return
					}
				}
				r.LatencyUS = float64(t.Now()-t0) / float64(sim.Microsecond) / float64(2*w.Count)
				r.Done = true
			})
		})
	}
	return nil
}
