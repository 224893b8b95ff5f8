// Package bench is `netvm bench`: the thesis' experiments (systems.md
// §1.5) on the emulated cluster, each figure beside the value the NetVM
// thesis reports (§1.4), NetVM beside its baselines (static pinning,
// dynamic pinning with a pin-down cache), all from one configuration:
// E1 write latency, E2 throughput, E3 notification cost by detection
// mechanism, E4 against static pinning, E5 against dynamic pinning over a
// hit-rate sweep, E7 ordering under reordering and drops, E8 a wait queue
// and a counting semaphore against the raw primitive. Run returns the
// figures and the curves the plots draw.
package bench

import (
	"fmt"
	"io"
	"math"
	"slices"

	"lanaiemu/board"
	"lanaiemu/hostbus"
	"lanaiemu/netvm/freebsd"
)

// Config is the one configuration every experiment runs on.
type Config struct {
	// Board is the boards' product (hostbus.BoardFor; the thesis'
	// hostbus.DefaultPart if empty): identity and rated clock together.
	Board   string `json:"board"`
	ClockHz uint64 `json:"clock_hz"` // the LANai's clock (the board's if 0)
	// BackToBack cables the two nodes together without the cluster's
	// switch (cluster.Config.BackToBack).
	BackToBack bool `json:"back_to_back,omitempty"`
	// NoInline makes the library DMA every WRITE's payload (lib.EP.NoInline),
	// as before small payloads went in the command slot.
	NoInline bool   `json:"no_inline,omitempty"`
	LinkRate uint64 `json:"link_bytes_per_s"` // bytes per second (160 MB/s if 0)
	Quick    bool   `json:"quick"`            // fewer sizes and repetitions
	// PinCache is E5's pin-down cache, in pages (64 if 0).
	PinCache int `json:"pin_cache_pages"`
	// PCIBurst overrides the host DMA engine's PCI burst in bytes
	// (board.DefaultPCI's 256, GM's default, if 0).
	PCIBurst uint32 `json:"pci_burst_bytes,omitempty"`
	// HostTiming, if not nil, replaces the hosts' costs
	// (freebsd.DefaultTiming, docs/host.md: assumptions for the most part).
	HostTiming *freebsd.Timing `json:"host_timing,omitempty"`
	// Profiles, if not nil, collects every board's cycle profile.
	Profiles *Profiles `json:"-"`
}

// Figure is one measured figure and the thesis' value.
type Figure struct {
	ID       string  `json:"id"`
	Paper    float64 `json:"paper"`
	Bound    string  `json:"bound,omitempty"` // "<" or ">": the thesis gives an upper or a lower bound; "=": it must be exactly the value
	Measured float64 `json:"measured"`
	Unit     string  `json:"unit"`
	// NoPaper marks a figure the thesis does not give (Paper is then 0).
	NoPaper bool `json:"no_paper,omitempty"`
}

// Ratio is measured / paper (NaN when the thesis gives no value or 0).
func (f Figure) Ratio() float64 {
	if f.NoPaper || f.Paper == 0 {
		return math.NaN()
	}
	return f.Measured / f.Paper
}

// Verdict says whether the figure matches: within 10 % of the thesis'
// value, or on the right side of its bound.
func (f Figure) Verdict() string {
	switch {
	case f.NoPaper:
		return "-"
	case f.Bound == "<" && f.Measured < f.Paper, f.Bound == ">" && f.Measured > f.Paper, f.Bound == "=" && f.Measured == f.Paper:
		return "holds"
	case f.Bound != "":
		return "MISSES the bound"
	case math.Abs(f.Ratio()-1) <= 0.10:
		return "within 10%"
	}
	return "MISSES by " + fmt.Sprintf("%+.0f%%", (f.Ratio()-1)*100)
}

// Curve is one plot: series of (x, y) points, and marks.
type Curve struct {
	ID     string   `json:"id"` // the file name, without extension
	Title  string   `json:"title"`
	XLabel string   `json:"x_label"`
	YLabel string   `json:"y_label"`
	LogX   bool     `json:"log_x"`
	LogY   bool     `json:"log_y"`
	Bars   bool     `json:"bars"` // one bar per x (a category), not lines
	Cats   []string `json:"categories,omitempty"`
	Series []Series `json:"series"`
	Marks  []Mark   `json:"marks,omitempty"`
}

// Series is one named line of a curve.
type Series struct {
	Name string    `json:"name"`
	X    []float64 `json:"x"`
	Y    []float64 `json:"y"`
}

// Mark is a reference line on a curve (the thesis' value, a crossover).
type Mark struct {
	Vertical bool    `json:"vertical"`
	At       float64 `json:"at"`
	Label    string  `json:"label"`
}

// Result is everything a run measured.
type Result struct {
	Config  Config   `json:"config"`
	Figures []Figure `json:"figures"`
	Curves  []Curve  `json:"curves"`
}

// experiment is one of E1-E9: its share of the progress bar and its run.
type experiment struct {
	name   string
	units  int
	run    func(r *runner) error
	curves []string // the IDs of the curves it draws, in order (Run checks them)
}

// runner carries the configuration, the progress bar and the result
// through the experiments.
type runner struct {
	c   Config
	bar *bar
	res *Result
	e1  map[uint32]float64 // E1's NetVM latencies with a counter (busy wait) by size, reused by E3 and E4
	// e1data are E1's plain writes (no counter, data polled), E3's baseline.
	e1data map[uint32]float64
}

func (r *runner) figure(f Figure) { r.res.Figures = append(r.res.Figures, f) }
func (r *runner) curve(c Curve)   { r.res.Curves = append(r.res.Curves, c) }

// Run runs every experiment and returns what they measured, in the order
// of the thesis' list. progress, if not nil, shows a progress bar.
func Run(c Config, progress io.Writer) (*Result, error) {
	if c.Board == "" {
		c.Board = hostbus.DefaultPart
	}
	hb, err := hostbus.BoardFor(c.Board, 1)
	if err != nil {
		return nil, err
	}
	c.Board = hb.Part
	if c.ClockHz == 0 {
		c.ClockHz = hb.ClockHz
	}
	if c.LinkRate == 0 {
		c.LinkRate = board.DefaultLinkRate
	}
	if c.PinCache == 0 {
		c.PinCache = 64
	}
	r := &runner{c: c, res: &Result{Config: c}, e1: map[uint32]float64{}, e1data: map[uint32]float64{}}
	exps := r.experiments()
	total := 0
	for _, e := range exps {
		total += e.units
	}
	r.bar = newBar(progress, total)
	for _, e := range exps {
		r.bar.stage(e.name)
		drawn := len(r.res.Curves)
		if err := e.run(r); err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		var ids []string
		for _, cv := range r.res.Curves[drawn:] {
			ids = append(ids, cv.ID)
		}
		if !slices.Equal(ids, e.curves) { // the plot files were opened for e.curves
			return nil, fmt.Errorf("%s drew the curves %v, not the %v its table entry names", e.name, ids, e.curves)
		}
	}
	r.bar.finish()
	return r.res, nil
}

// experiments are the thesis' experiments in its order: each one's
// progress units (r's configuration sets some), its run and its curves.
func (r *runner) experiments() []experiment {
	return []experiment{
		{"E1 latency", len(r.latencySizes()), (*runner).latency, []string{"e1-latency"}},
		{"E2 throughput", len(r.throughputSizes()), (*runner).throughput, []string{"e2-throughput"}},
		{"E3 notification", 4, (*runner).notification, []string{"e3-notification"}},
		{"E4 static pinning", len(r.latencySizes()), (*runner).static, []string{"e4-static", "e4-overhead"}},
		{"E5 dynamic pinning", 2 * len(hitRates), (*runner).dynamic, []string{"e5-hitrate", "e5-hostcpu"}},
		{"E6 redirection", 3 * len(designs), (*runner).redirection, []string{"e6-latency", "e6-burst"}},
		{"E7 ordering", 2, (*runner).ordering, []string{"e7-ordering"}},
		{"E8 synchronisation", 6, (*runner).sync, []string{"e8-sync"}},
		{"E9 overcommit", (2*len(overcommitModes) - 1) * len(r.serverCounts()), (*runner).overcommit, []string{"e9-overcommit"}},
	}
}

// CurveIDs are the IDs of the curves a run draws, in order: the plots
// netvm bench --plots writes (OpenPlots opens their files before the run).
func CurveIDs() []string {
	var ids []string
	for _, e := range (&runner{}).experiments() {
		ids = append(ids, e.curves...)
	}
	return ids
}
