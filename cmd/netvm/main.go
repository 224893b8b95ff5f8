// Command netvm runs NetVM on emulated clusters: LANai 9.2 boards running
// the NetVM firmware, FreeBSD 4.6 host models with the NetVM driver, on a
// Myrinet fabric, all on one deterministic timeline.
//
//	netvm run [--json FILE] [--trace FILE] [flags] SCENARIO
//
// runs the cluster and workloads a scenario file describes (lanai-sim's
// format with the NetVM extension, docs/scenarios.md; package netvm/run)
// and prints per-workload results and per-node statistics as
// JSON; --trace writes a Perfetto timeline.
//
//	netvm dap [--listen ADDR]
//
// serves the Debug Adapter Protocol for a scenario's cluster (each node's
// core a thread; docs/debugging.md) on standard input and output, or on
// one TCP connection.
//
//	netvm stress --seed S --nodes N --writes W [--json FILE]
//
// runs random WRITEs between every pair of nodes while the hosts' page
// daemons evict pages, senders remap their buffers, receivers fork and the
// fabric drops, corrupts and reorders packets, and checks every byte,
// counter and notification. It prints the result as JSON and exits 0 only
// when nothing was lost and nothing violated (1 otherwise, 2 for a bad
// command line, 3 when the cluster could not be set up).
//
//	netvm bench [--quick] [--json FILE] [--plots DIR] [flags]
//
// runs the thesis' experiments (package netvm/bench) and prints each
// figure beside the thesis' value; a miss points to its explanation in
// docs/reproduction.md. It exits 2 for a bad command line, which includes
// a --json file or --plots directory that cannot be written (found before
// the run), and 3 when the run or writing its results fails.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"lanaiemu/dap"
	"lanaiemu/hostbus"
	"lanaiemu/internal/flagargs"
	"lanaiemu/internal/outfile"
	"lanaiemu/internal/readfile"
	"lanaiemu/internal/timeline"
	"lanaiemu/lanai/profile"
	"lanaiemu/netvm/bench"
	"lanaiemu/netvm/cluster"
	"lanaiemu/netvm/freebsd"
	nvmrun "lanaiemu/netvm/run"
	"lanaiemu/netvm/stress"
	"lanaiemu/sim"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// runUsage is netvm run's synopsis, in the tool's usage and in run's own
// usage error.
const runUsage = "netvm run [--json FILE] [--trace FILE] [--profile FILE] [--debug-script FILE] [--root DIR] [--board PART] [--clock MHz] [--jobs N] [--quiet] SCENARIO"

const usage = `usage: ` + runUsage + `
       netvm dap [--listen ADDR]   (the cluster debugger for editors; the launch request names the scenario)
       netvm bench [--quick] [--json FILE] [--plots DIR] [--profile FILE] [--board PART] [--clock MHz] [--link-rate MB/s]
                   [--pin-cache pages] [--pci-burst bytes] [--back-to-back] [--no-inline] [--host-timing NAME=DURATION,...]
       netvm stress [flags]

Flags may come before or after the SCENARIO of run.

Examples:
  netvm run fixtures/netvm/scenarios/pingpong.json
  netvm run --trace /tmp/trace.json fixtures/netvm/scenarios/redirect.json   (open it in ui.perfetto.dev)
  netvm bench --quick
  netvm stress --seed 1 --nodes 4 --writes 2000
  netvm stress --seed 9 --nodes 2 --writes 500 --clean --json out.json

Exit status: 0 success; 1 a workload that did not finish, a broken invariant, lost
bytes or a violation (stress), a failed debugger command; 2 a usage error or bad
input (flags, scenario, an output that cannot be opened); 3 a run or an output that
failed after the start (docs/bad-input.md).

Flags of stress:
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		stressFlags(io.Discard).SetOutput(stderr)
		fs := stressFlags(stderr)
		fs.PrintDefaults()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "stress":
		return runStress(args[1:], stdout, stderr)
	case "run":
		return runScenario(args[1:], stdout, stderr)
	case "dap":
		return runDAP(args[1:], os.Stdin, stdout, stderr)
	case "bench":
		return runBench(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "netvm: unknown command %q (try: netvm stress --help)\n", args[0])
	return 2
}

// jobsUsage is the --jobs flag's help; maxJobs bounds it.
const (
	jobsUsage = "goroutines that run the boards; the results do not depend on it (docs/performance.md: it pays on busy clusters of many nodes, such as 64, with a free core; small clusters run serially)"
	maxJobs   = 256
)

type stressOpts struct {
	cfg   stress.Config
	json  string
	quiet bool
	clock uint64
}

var opts stressOpts

func stressFlags(out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("netvm stress", flag.ContinueOnError)
	fs.SetOutput(out)
	c := &opts.cfg
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the workload and of the fabric's faults")
	fs.IntVar(&c.Nodes, "nodes", 4, "nodes on one switch, 2..16, or a multiple of 8 up to 64 (a Clos of 8-node leaves)")
	fs.IntVar(&c.Writes, "writes", 1000, fmt.Sprintf("WRITEs in all, spread over the senders, up to %d", stress.MaxWrites))
	fs.IntVar(&c.Batch, "batch", 8, fmt.Sprintf("WRITEs per batch (the last one notifies), up to %d", stress.MaxBatch))
	fs.IntVar(&c.Atomics, "atomics", 0, fmt.Sprintf("remote fetch-and-adds and compare-and-swaps in all, spread over the nodes, up to %d (docs/netvm.md §5.5)", stress.MaxAtomics))
	fs.IntVar(&c.Frames, "frames", 0, fmt.Sprintf("VM memory per host in 4 KiB pages, up to %d (0: two thirds of what a process touches)", cluster.MaxFrames))
	fs.IntVar(&c.ForkEvery, "fork-every", 16, "a receiver forks about once per this many batches (0: never)")
	fs.IntVar(&c.RemapEvery, "remap-every", 16, "a sender remaps its source buffer about once per this many batches (0: never)")
	fs.BoolVar(&c.Clean, "clean", false, "no fabric faults")
	fs.StringVar(&c.Board, "board", hostbus.DefaultPart, "every node's board (M2L-PCI64B at 133 MHz, M2L-PCI64C at 200 MHz, any LANai 9 PCI64B/C part; docs/hardware.md)")
	fs.Uint64Var(&opts.clock, "clock", 0, "the LANai's clock in `MHz` (0: the board's)")
	c.EvictEvery = 200 * sim.Microsecond
	fs.Func("evict-every", "each host forces a random region page out about this often, a `duration` with its unit as in a scenario's time (default 200us; 0s: never; else at least 1us)", func(s string) error {
		t, err := sim.ParseDuration(s)
		c.EvictEvery = t
		return err
	})
	fs.StringVar(&opts.json, "json", "", "also write the result to this file")
	fs.BoolVar(&opts.quiet, "quiet", false, "no progress line")
	fs.IntVar(&c.Jobs, "jobs", 1, jobsUsage)
	return fs
}

// renamedStressFlags names what replaced a flag netvm stress once had.
var renamedStressFlags = map[string]string{
	"evict-every-us": `renamed: --evict-every takes a duration with its unit (--evict-every-us 200 is --evict-every 200us)`,
}

// checkRenamed reports the first argument that names a renamed flag.
func checkRenamed(args []string, renamed map[string]string) error {
	for _, a := range args {
		if a == "--" {
			return nil // the flags end here
		}
		if !strings.HasPrefix(a, "-") {
			continue // a flag's value or an argument
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if why, ok := renamed[name]; ok {
			return fmt.Errorf("flag -%s: %s", name, why)
		}
	}
	return nil
}

func runStress(args []string, stdout, stderr io.Writer) int {
	opts = stressOpts{}
	if err := checkRenamed(args, renamedStressFlags); err != nil {
		fmt.Fprintf(stderr, "netvm stress: %v\n", err)
		return 2
	}
	fs := stressFlags(stderr)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "netvm stress: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	c := opts.cfg
	if c.Writes < 0 || c.Batch < 1 || c.Frames < 0 || c.ForkEvery < 0 || c.RemapEvery < 0 || c.Atomics < 0 || c.Jobs < 1 || c.Jobs > maxJobs {
		fmt.Fprintf(stderr, "netvm stress: --writes >= 0, --batch >= 1, --jobs 1..%d, the others >= 0\n", maxJobs)
		return 2
	}
	for _, b := range []struct {
		flag   string
		v, max int
		why    string
	}{
		{"writes", c.Writes, stress.MaxWrites, "more would take days of host time"},
		{"atomics", c.Atomics, stress.MaxAtomics, "more would take days of host time"},
		{"batch", c.Batch, stress.MaxBatch, "in a larger batch most WRITEs are empty, as they may not overlap"},
	} {
		if b.v > b.max {
			fmt.Fprintf(stderr, "netvm stress: --%s %d: at most %d (%s; docs/bad-input.md)\n", b.flag, b.v, b.max, b.why)
			return 2
		}
	}
	if err := cluster.CheckNodes(c.Nodes); err != nil {
		fmt.Fprintf(stderr, "netvm stress: --nodes: %v\n", err)
		return 2
	}
	if c.Frames > cluster.MaxFrames {
		fmt.Fprintf(stderr, "netvm stress: --frames %d: 0 (two thirds of what a process touches) or 1..%d\n", c.Frames, cluster.MaxFrames)
		return 2
	}
	if err := c.CheckSize(); err != nil {
		flags := "--nodes, --frames"
		if c.Atomics > 0 {
			flags += ", --atomics"
		}
		fmt.Fprintf(stderr, "netvm stress: %s: %v\n", flags, err)
		return 2
	}
	if c.EvictEvery != 0 && c.EvictEvery < sim.Microsecond { // more often, the evictions leave the run no time
		fmt.Fprintf(stderr, "netvm stress: --evict-every %v: 0s (never) or at least 1us\n", c.EvictEvery)
		return 2
	}
	if err := checkBoard(c.Board, opts.clock); err != nil {
		fmt.Fprintf(stderr, "netvm stress: %v\n", err)
		return 2
	}
	c.ClockHz = opts.clock * 1_000_000
	if err := outfile.CheckEmpty(fs, "--json"); err != nil {
		fmt.Fprintf(stderr, "netvm stress: %v\n", err)
		return 2
	}
	var jsonFile *outfile.File
	if opts.json != "" { // opened before the run: an unwritable file fails now
		var err error
		if jsonFile, err = outfile.Create(opts.json); err != nil {
			fmt.Fprintf(stderr, "netvm stress: --json: %v\n", err)
			return 2
		}
		defer func() { jsonFile.Abandon() }() // the file as it is at the end: nil once written
	}
	if !opts.quiet {
		c.Progress = stderr
	}
	res, err := stress.Run(c)
	if err != nil {
		fmt.Fprintf(stderr, "netvm stress: %v\n", err)
		return 3
	}
	out, _ := json.MarshalIndent(res, "", "  ")
	out = append(out, '\n')
	stdout.Write(out)
	if jsonFile != nil {
		err := jsonFile.Write(out)
		jsonFile = nil
		if err != nil {
			fmt.Fprintf(stderr, "netvm stress: %v\n", err)
			return 3
		}
	}
	if !res.OK() {
		return 1
	}
	return 0
}

func runScenario(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("netvm run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.String("json", "", "also write the result to this file")
	traceOut := fs.String("trace", "", "write a Perfetto (Chrome trace-event) timeline to this file as the run goes")
	quiet := fs.Bool("quiet", false, "no progress line")
	profFile := fs.String("profile", "", "write each board's pprof cycle profile from the start of the workloads to `FILE` with -nodeN before its extension (docs/profiling.md)")
	debugScript := fs.String("debug-script", "", "run the scenario under this debugger script (docs/tour.md); the transcript goes to standard output before the result")
	root := fs.String("root", ".", "with --debug-script: the module's root (list reads the firmware's sources from ROOT/firmware/netvm/src)")
	boardName := fs.String("board", "", "every node's board, over the scenario's defaults' \"board\" (default "+hostbus.DefaultPart+"; docs/hardware.md)")
	clock := fs.Uint64("clock", 0, "the LANai's clock in MHz, over the scenario's defaults' \"clock_mhz\" (0: the board's)")
	jobs := fs.Int("jobs", 1, jobsUsage)
	files, err := flagargs.Parse(fs, args)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if len(files) != 1 {
		fmt.Fprintln(stderr, "usage: "+runUsage)
		return 2
	}
	if *jobs < 1 || *jobs > maxJobs {
		fmt.Fprintf(stderr, "netvm run: --jobs %d: want 1..%d\n", *jobs, maxJobs)
		return 2
	}
	sc, err := nvmrun.Load(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "netvm run: %v\n", err)
		return 2
	}
	sc.Jobs = *jobs
	if *boardName != "" {
		sc.Defaults.Board = *boardName
	}
	clockMHz := uint64(sc.Defaults.ClockMHz) // the scenario's, 10..1000 (its Check)
	if *clock != 0 {
		clockMHz = *clock // checked before it becomes a float: 2^64-1 was shown as 2^63
	}
	if err := checkBoard(sc.Defaults.Board, clockMHz); err != nil {
		fmt.Fprintf(stderr, "netvm run: %v\n", err)
		return 2
	}
	if *clock != 0 {
		sc.Defaults.ClockMHz = float64(*clock)
	}
	// The outputs are opened before the run, so that an unwritable one
	// fails now rather than after it.
	if err := outfile.CheckEmpty(fs, "--json", "--trace", "--profile"); err != nil {
		fmt.Fprintf(stderr, "netvm run: %v\n", err)
		return 2
	}
	var outs outfile.Set
	defer outs.Abandon()
	var jsonFile, traceFile *outfile.File
	var profFiles []*outfile.File
	err = nil
	if *jsonOut != "" {
		jsonFile, err = outs.Open("json", *jsonOut)
	}
	if err == nil && *traceOut != "" {
		traceFile, err = outs.Open("trace", *traceOut)
	}
	if err == nil && *profFile != "" {
		profFiles, err = outs.OpenNodes("profile", sc.Count, func(i int) string { return profile.NodeFile(*profFile, i) })
	}
	if err != nil {
		fmt.Fprintf(stderr, "netvm run: %v\n", err)
		return 2
	}
	sc.Profile = *profFile != ""
	var tl *timeline.Recorder
	if *traceOut != "" {
		tl = timeline.New()
	}
	var progress io.Writer = stderr
	if *quiet {
		progress = nil
	}
	var script []byte
	if *debugScript != "" {
		if script, err = readfile.Read(*debugScript, readfile.Text); err != nil { // a device or a directory is refused by name
			fmt.Fprintf(stderr, "netvm run: --debug-script: %v\n", err)
			return 2
		}
	}
	// The trace is written as the run goes (bounded memory), from now on:
	// a file that existed is made empty here. It is finished whatever the
	// run's outcome.
	if traceFile != nil {
		body, err := traceFile.StreamHeadLast()
		if err != nil {
			fmt.Fprintf(stderr, "netvm run: --trace: %v\n", err)
			return 2
		}
		tl.Stream(body)
	}
	var res *nvmrun.Result
	debugErrs := 0
	if *debugScript != "" {
		res, debugErrs, err = nvmrun.Debug(sc, bytes.NewReader(script), stdout, nvmrun.DebugConfig{Root: *root, Timeline: tl})
	} else {
		res, err = nvmrun.Run(sc, tl, progress)
	}
	if traceFile != nil {
		if terr := tl.End(); terr != nil {
			fmt.Fprintf(stderr, "netvm run: --trace: %v\n", terr)
			return 3
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "netvm run: %v\n", err)
		return 3
	}
	out, _ := json.MarshalIndent(res, "", "  ")
	out = append(out, '\n')
	stdout.Write(out)
	if jsonFile != nil {
		if err := jsonFile.Write(out); err != nil {
			fmt.Fprintf(stderr, "netvm run: --json: %v\n", err)
			return 3
		}
	}
	for i, p := range res.Profiles {
		if err := profFiles[i].WriteFrom(p.Profile(res.ClockHz).Write); err != nil {
			fmt.Fprintf(stderr, "netvm run: --profile: %v\n", err)
			return 3
		}
	}
	status := 0
	for _, n := range res.Nodes {
		if n.Violation != "" {
			fmt.Fprintf(stderr, "netvm run: node %d: %s\n", n.Node, n.Violation)
			status = 1
		}
	}
	for _, line := range sc.Unfinished(res) {
		fmt.Fprintf(stderr, "netvm run: %s\n", line)
		status = 1
	}
	if status != 0 {
		return status
	}
	if debugErrs > 0 {
		fmt.Fprintf(stderr, "netvm run: %d debugger commands failed\n", debugErrs)
		return 1
	}
	return 0
}

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("netvm bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "fewer repetitions")
	jsonOut := fs.String("json", "", "write {config, figures, curves} JSON to this file")
	plots := fs.String("plots", "", "draw the curves into this directory as SVG and PNG")
	pinCache := fs.Int("pin-cache", 64, "E5: the pin-down cache's size in pages")
	burst := fs.Uint("pci-burst", 256, "the host DMA engine's PCI burst in bytes (GM's default 256)")
	boardName := fs.String("board", hostbus.DefaultPart, "the boards (M2L-PCI64B at 133 MHz, M2L-PCI64C at 200 MHz, any LANai 9 PCI64B/C part; docs/hardware.md)")
	clock := fs.Uint64("clock", 0, "the LANai's clock in MHz (0: the board's)")
	b2b := fs.Bool("back-to-back", false, "cable the two nodes together, without the cluster's switch")
	noInline := fs.Bool("no-inline", false, "DMA every WRITE's payload (no payloads of up to 32 bytes in the command slot)")
	link := fs.Uint64("link-rate", 160, "the links' rate in MB/s")
	hostCosts := fs.String("host-timing", "", "replace host costs, `name=duration,...` (e.g. signal-delivery=17us; names: "+strings.Join(freebsd.TimingCostNames(), ", ")+"; docs/host.md)")
	profFile := fs.String("profile", "", "write the boards' pprof cycle profiles, summed over every experiment, to `FILE` with -nodeN before its extension (docs/profiling.md; about ten times slower)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "netvm bench: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := checkBoard(*boardName, *clock); err != nil {
		fmt.Fprintf(stderr, "netvm bench: %v\n", err)
		return 2
	}
	if *link < 10 || *link > 10000 {
		fmt.Fprintln(stderr, "netvm bench: --link-rate 10..10000 MB/s")
		return 2
	}
	if *pinCache < 1 || *pinCache > 1024 || *burst < 8 || *burst > 4096 || *burst%8 != 0 {
		fmt.Fprintln(stderr, "netvm bench: --pin-cache 1..1024 pages, --pci-burst 8..4096 bytes, a multiple of 8")
		return 2
	}
	var hostTiming *freebsd.Timing
	if *hostCosts != "" {
		tm := freebsd.DefaultTiming()
		if err := tm.Set(*hostCosts); err != nil {
			fmt.Fprintf(stderr, "netvm bench: --host-timing: %v\n", err)
			return 2
		}
		hostTiming = &tm
	}
	// The outputs are made ready before the run, after every usage
	// check (a usage error leaves no --plots directory made): a path that
	// cannot be written fails now, not after it. A profile is opened for
	// every node an experiment may have (bench.MaxNodes); a node no
	// experiment ran leaves no file.
	if err := outfile.CheckEmpty(fs, "--json", "--plots", "--profile"); err != nil {
		fmt.Fprintf(stderr, "netvm bench: %v\n", err)
		return 2
	}
	var outs outfile.Set
	defer outs.Abandon()
	var jsonFile *outfile.File
	var profFiles []*outfile.File
	var err error
	if *jsonOut != "" {
		jsonFile, err = outs.Open("json", *jsonOut)
	}
	if err == nil && *profFile != "" {
		profFiles, err = outs.OpenNodes("profile", bench.MaxNodes, func(i int) string { return profile.NodeFile(*profFile, i) })
	}
	if err != nil {
		fmt.Fprintf(stderr, "netvm bench: %v\n", err)
		return 2
	}
	var plotFiles bench.Plots
	if *plots != "" {
		if plotFiles, err = bench.OpenPlots(&outs, *plots); err != nil {
			fmt.Fprintf(stderr, "netvm bench: --plots: %v\n", err)
			return 2
		}
	}
	cfg := bench.Config{Board: *boardName, BackToBack: *b2b, NoInline: *noInline, ClockHz: *clock * 1_000_000, LinkRate: *link * 1_000_000, Quick: *quick, PinCache: *pinCache, HostTiming: hostTiming}
	if *burst != 256 {
		cfg.PCIBurst = uint32(*burst)
	}
	if *profFile != "" {
		cfg.Profiles = &bench.Profiles{}
	}
	res, err := bench.Run(cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "netvm bench: %v\n", err)
		jsonFile.Abandon()
		return 3
	}
	bench.WriteTable(stdout, res.Figures)
	if cfg.Profiles != nil {
		profs, err := cfg.Profiles.Merged(res.Config.ClockHz)
		for i := 0; err == nil && i < len(profs); i++ {
			err = profFiles[i].WriteFrom(profs[i].Write)
		}
		if err != nil {
			fmt.Fprintf(stderr, "netvm bench: --profile: %v\n", err)
			jsonFile.Abandon()
			return 3
		}
	}
	if *plots != "" {
		files, err := bench.WritePlots(plotFiles, *plots, res.Curves)
		if err != nil {
			fmt.Fprintf(stderr, "netvm bench: %v\n", err)
			jsonFile.Abandon()
			return 3
		}
		fmt.Fprintf(stderr, "netvm bench: %d plots in %s\n", len(files), *plots)
	}
	if jsonFile != nil {
		out, _ := json.MarshalIndent(res, "", "  ")
		if err := jsonFile.Write(append(out, '\n')); err != nil {
			fmt.Fprintf(stderr, "netvm bench: --json: %v\n", err)
			return 3
		}
	}
	return 0
}

// dapUsage is netvm dap's synopsis, for -h and a stray argument.
const dapUsage = "usage: netvm dap [--listen ADDR]   (the cluster debugger for editors; the scenario is the launch request's \"scenario\"; docs/debugging.md)\n"

// runDAP serves the Debug Adapter Protocol for clusters.
func runDAP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("netvm dap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, dapUsage+"\nFlags of dap:\n"); fs.PrintDefaults() }
	listen := fs.String("listen", "", "serve one client on this TCP `address` (host:port) instead of standard input and output")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprint(stderr, dapUsage)
		return 2
	}
	var err error
	if *listen != "" {
		err = dap.ListenAndServe(*listen, nvmrun.Launcher(), func(addr string) { fmt.Fprintf(stderr, "netvm dap: listening on %s\n", addr) })
	} else {
		err = dap.Serve(stdin, stdout, nvmrun.Launcher())
	}
	if err != nil {
		fmt.Fprintf(stderr, "netvm dap: %v\n", err)
		return 1
	}
	return 0
}

// checkBoard refuses a board no product names and a clock (MHz, 0 for
// the board's) outside 10..1000.
func checkBoard(name string, clockMHz uint64) error {
	if name == "" {
		name = hostbus.DefaultPart
	}
	if _, err := hostbus.BoardFor(name, 1); err != nil {
		return fmt.Errorf("--board: %v", err)
	}
	if clockMHz != 0 && (clockMHz < 10 || clockMHz > 1000) {
		return fmt.Errorf("--clock %d: 10..1000 MHz", clockMHz)
	}
	return nil
}
