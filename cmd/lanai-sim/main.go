// Command lanai-sim runs several emulated LANai 9.2 boards on a Myrinet
// fabric, described by a scenario file (package scenario,
// docs/scenarios.md) or, for simple cases, by flags:
//
//	lanai-sim [flags] scenario.json
//	lanai-sim --nodes 2 --topology b2b --firmware a.elf,b.elf --param 0:role=0 --time 10ms
//	lanai-sim debug [--script FILE] scenario.json
//
// It prints a per-node summary on standard error, and optionally writes
// statistics (--stats) and a Chrome trace-event timeline (--timeline).
// Exit status: 0 success, 1 a node exited with a non-zero code, 70 a node
// trapped, 71 the time limit was reached with a node running, 72 a host
// script failed, 66 bad input or unwritable output, 64 usage
// (docs/lanai-sim.md).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"lanaiemu/internal/flagargs"
	"lanaiemu/internal/outfile"
	"lanaiemu/lanai/budget"
	"lanaiemu/lanai/profile"
	"lanaiemu/scenario"
	"lanaiemu/sim"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type multi []string

func (m *multi) String() string     { return strings.Join(*m, " ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

const usage = `usage: lanai-sim [flags] [scenario.json]
       lanai-sim check --budgets FILE [--update] [flags] [scenario.json]
       lanai-sim dap [--listen ADDR]   (the debugger for editors; docs/debugging.md)
       lanai-sim debug [--script FILE] scenario.json   (the debugger at a terminal)

Runs LANai boards on a Myrinet fabric. Without a scenario file, --firmware
(and --nodes, --topology) describe the run. Flags may come before or after
the scenario file; after "--" every argument is a file.

Exit status: 0 every node exited 0 (or, with --stop time, the time limit
was reached with no trap); 1 a node exited with a non-zero code (unless
--exit-codes any); 70 a node trapped; 71 the time limit was reached with a
node (or, with --stop host, a host script) still running; 72 a host script
failed; 66 bad input (scenario, firmware, host file) or an
output that could not be written; 64 usage.

check runs the scenario measuring, on every node, the paths of a budget file
(docs/profiling.md), and then checks the worst run of each path over all
nodes against its budget: exit status 1 if a path is over budget or never
ran (one line each: the path, its cycles, its budget, the routine that
grew), else the run's status.

Flags:
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "dap" {
		return dapCmd(args[1:], os.Stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "debug" {
		return debugCmd(args[1:], os.Stdin, stdout, stderr)
	}
	check := len(args) > 0 && args[0] == "check"
	if check {
		args = args[1:]
	}
	fs := flag.NewFlagSet("lanai-sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	nodes := fs.Int("nodes", 0, "number of nodes (no scenario file)")
	topo := fs.String("topology", "", "b2b, star, tree:LEAVES:PERLEAF or clos:LEAVES:PERLEAF:SPINES (no scenario file; default b2b)")
	firmware := fs.String("firmware", "", "comma-separated firmware: one for every node or one per node (.s files are assembled)")
	timeS := fs.String("time", "", "simulated time limit, e.g. 10ms")
	stop := fs.String("stop", "", "exit (every node must exit), time (reaching the limit is success) or host (every host script ends)")
	exitCodes := fs.String("exit-codes", "", "zero (every exit code must be 0) or any")
	seed := fs.String("seed", "", "fault seed (overrides the scenario's)")
	var params, loads, dumps multi
	fs.Var(&params, "param", "NODE:SYM=VAL: patch a firmware word (NODE: 3, 0-7, 0-63/2 or *; repeatable)")
	fs.Var(&loads, "host-load", "NODE:ADDR:FILE: copy FILE into the node's host memory before the run (repeatable)")
	fs.Var(&dumps, "host-dump", "NODE:ADDR:LEN:FILE: write host memory to FILE after the run; FILE is opened before it (repeatable)")
	statsFile := fs.String("stats", "", "write statistics as JSON to `FILE`")
	tlFile := fs.String("timeline", "", "write a Chrome trace-event timeline to `FILE` as the run goes (opens in Perfetto)")
	budgetFile := fs.String("budgets", "", "with check: the budget `FILE`")
	update := fs.Bool("update", false, "with check: rewrite the budget file with the measured cycles")
	profFile := fs.String("profile", "", "write a pprof cycle profile per node to `FILE` with -nodeN before its extension (docs/profiling.md)")
	progress := fs.Bool("progress", false, "print progress on standard error every second")
	quiet := fs.Bool("quiet", false, "no summary")
	consoleFile := fs.String("console", "", "write the nodes' console lines to `FILE` (opened before the run, written as it goes) instead of standard output")
	noConsole := fs.Bool("no-console", false, "drop the nodes' console output")
	noHost := fs.Bool("no-host-times", false, "leave the host timing figures out of --stats (byte-identical output)")
	jobs := fs.Int("jobs", 1, "goroutines that run the boards; the results do not depend on it (docs/performance.md: it pays on busy clusters of many nodes, such as 64, with a free core; small clusters run serially)")
	files, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	fail := func(status int, err error) int {
		fmt.Fprintf(stderr, "lanai-sim: %v\n", err)
		if status == scenario.StatusUsage {
			fmt.Fprintln(stderr, "lanai-sim: run lanai-sim --help for usage")
		}
		return status
	}
	nodesSet := false
	fs.Visit(func(f *flag.Flag) { nodesSet = nodesSet || f.Name == "nodes" })
	if nodesSet && (*nodes < 1 || *nodes > scenario.MaxNodes) {
		return fail(scenario.StatusUsage, fmt.Errorf("--nodes %d: 1..%d (leave it out for the topology's count)", *nodes, scenario.MaxNodes))
	}
	if err := outfile.CheckEmpty(fs, "--stats", "--timeline", "--profile", "--console"); err != nil {
		return fail(scenario.StatusUsage, err)
	}
	var s *scenario.Scenario
	var err error
	switch len(files) {
	case 0:
		s, err = fromFlags(*nodes, *topo, *firmware)
		if err != nil {
			return fail(scenario.StatusUsage, err)
		}
	case 1:
		if *nodes != 0 || *topo != "" || *firmware != "" {
			return fail(scenario.StatusUsage, errors.New("--nodes, --topology and --firmware are for runs without a scenario file"))
		}
		s, err = scenario.Load(files[0])
		if err != nil {
			return fail(scenario.StatusBadInput, err)
		}
	default:
		return fail(scenario.StatusUsage, errors.New("more than one scenario file"))
	}
	if err := applyFlags(s, *timeS, *stop, *exitCodes, *seed, params, loads, dumps); err != nil {
		return fail(scenario.StatusUsage, err)
	}
	if err := s.Check(); err != nil {
		if len(files) == 0 {
			return fail(scenario.StatusUsage, err)
		}
		return fail(scenario.StatusBadInput, err)
	}
	if *jobs < 1 || *jobs > 256 {
		return fail(scenario.StatusUsage, fmt.Errorf("--jobs %d: want 1..256", *jobs))
	}
	w, err := s.Build()
	if err != nil {
		return fail(scenario.StatusBadInput, err)
	}
	w.W.SetJobs(*jobs)
	if *tlFile != "" {
		w.RecordTimeline()
	}
	if check != (*budgetFile != "") || *update && !check {
		return fail(scenario.StatusUsage, errors.New("check needs --budgets FILE; --budgets and --update are for check"))
	}
	var budgets *budget.File
	var meters []*budget.Meter
	if check {
		if budgets, err = budget.Load(*budgetFile); err != nil {
			return fail(scenario.StatusBadInput, err)
		}
		for i, b := range w.Boards {
			m, err := budget.NewMeter(budgets, w.Images[i])
			if err != nil {
				return fail(scenario.StatusBadInput, fmt.Errorf("node %d: %w", i, err))
			}
			b.Observe(m)
			meters = append(meters, m)
		}
	}
	// The outputs are opened before the run: an unwritable one fails now.
	// Existing files keep their contents until the run is done.
	var outs outfile.Set
	defer outs.Abandon()
	var statsOut, tlOut *outfile.File
	var profOuts []*outfile.File
	if *statsFile != "" {
		statsOut, err = outs.Open("stats", *statsFile)
	}
	if err == nil && *tlFile != "" {
		tlOut, err = outs.Open("timeline", *tlFile)
	}
	var consoleOut *outfile.File
	switch {
	case *noConsole && *consoleFile != "":
		return fail(scenario.StatusUsage, errors.New("--console and --no-console: one or the other"))
	case *noConsole:
	case *consoleFile != "":
		if err == nil { // raw: Create would probe a device or pipe with a newline, a blank first line
			consoleOut, err = outs.OpenRaw("console", *consoleFile, 0o644)
		}
	default:
		w.SetConsole(stdout)
	}
	if err == nil && *profFile != "" {
		profOuts, err = outs.OpenNodes("profile", len(w.Boards), func(i int) string { return profile.NodeFile(*profFile, i) })
	}
	var saveBudgets func([]byte) error
	if err == nil && *update {
		var o *outfile.File
		if o, err = outs.Open("budgets", *budgetFile); err == nil {
			saveBudgets = o.Write
		}
	}
	var hostDumps *scenario.Dumps
	if err == nil {
		hostDumps, err = w.OpenDumps(&outs)
	}
	if err != nil {
		return fail(scenario.StatusBadInput, err)
	}
	var profs []*profile.Profiler
	if *profFile != "" {
		specs := s.NodeSpecs()
		for i, b := range w.Boards {
			p := profile.New(w.Images[i], b.Busy)
			p.Label("node", strconv.Itoa(i))
			p.Binary(firmwareFile(specs[i]))
			b.Observe(p)
			profs = append(profs, p)
		}
	}
	// The console and the timeline are written as the run goes (bounded
	// memory), from now on: a file that existed is made empty here. The
	// timeline first: its temporary file (to a device or pipe) may fail,
	// and the console's file must then keep its contents.
	var consoleStream, tlStream *outfile.Stream
	if tlOut != nil {
		if tlStream, err = tlOut.StreamHeadLast(); err != nil {
			return fail(scenario.StatusBadInput, fmt.Errorf("--timeline: %w", err))
		}
		w.Timeline().Stream(tlStream)
	}
	if consoleOut != nil {
		if consoleStream, err = consoleOut.Stream(); err != nil {
			tlStream.Close()
			return fail(scenario.StatusBadInput, fmt.Errorf("--console: %w", err))
		}
		w.SetConsole(consoleStream)
	}
	var prog func(now, until sim.Time)
	start := time.Now()
	if *progress {
		last := start
		prog = func(now, until sim.Time) {
			if t := time.Since(last); t >= time.Second {
				last = time.Now()
				el := time.Since(start).Seconds()
				fmt.Fprintf(stderr, "lanai-sim: %v of %v simulated, %.4g sim-s/host-s\n", now, until, float64(now)/float64(sim.Second)/el)
			}
		}
	}
	runErr := w.Run(prog)
	host := time.Since(start)
	// The streams are finished whatever the run's outcome: a run that
	// trapped or whose output failed keeps what it wrote.
	consoleErr := w.ConsoleErr()
	if consoleStream != nil {
		if err := consoleStream.Close(); consoleErr == nil {
			consoleErr = err
		}
	}
	var tlErr error
	if tlStream != nil {
		tlErr = w.Timeline().End()
	}
	status = w.Status()
	st := w.Stats(host)
	if !*quiet {
		summary(stderr, st) // also after a failed output: it says how far the run went
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "lanai-sim: %v\n", runErr)
	}
	switch {
	case consoleErr != nil && consoleStream != nil:
		return fail(scenario.StatusBadInput, fmt.Errorf("--console: %w", consoleErr))
	case consoleErr != nil:
		return fail(scenario.StatusBadInput, fmt.Errorf("console: %w", consoleErr))
	case tlErr != nil:
		return fail(scenario.StatusBadInput, fmt.Errorf("--timeline: %w", tlErr))
	}
	if err := hostDumps.Write(); err != nil {
		return fail(scenario.StatusBadInput, err)
	}
	if *statsFile != "" {
		if *noHost {
			st.Host = nil
		}
		data, _ := json.MarshalIndent(st, "", "  ")
		if err := statsOut.Write(append(data, '\n')); err != nil {
			return fail(scenario.StatusBadInput, fmt.Errorf("--stats: %w", err))
		}
	}
	if check && status == 0 {
		var sets [][]budget.Result
		for _, m := range meters {
			sets = append(sets, m.Results())
		}
		results := budget.Merge(sets...)
		// After VerifySave: with --update, each line gives the budget written.
		err := budget.VerifySave(budgets, results, saveBudgets)
		for _, r := range results {
			fmt.Fprintf(stderr, "lanai-sim: %v\n", r)
		}
		if err != nil {
			fmt.Fprintf(stderr, "lanai-sim: %v\n", err)
			if !errors.Is(err, budget.ErrOverBudget) {
				return scenario.StatusBadInput
			}
			status = 1
		}
	}
	for i, p := range profs {
		if err := profOuts[i].WriteFrom(func(f io.Writer) error { return p.Write(f, w.Boards[i].Clock().Hz) }); err != nil {
			return fail(scenario.StatusBadInput, fmt.Errorf("--profile: %w", err))
		}
	}
	return status
}

// firmwareFile names a node's firmware for its profile.
func firmwareFile(n scenario.NodeSpec) string {
	if n.Firmware != "" {
		return n.Firmware
	}
	return strings.Join(n.Asm, ",")
}

func summary(w io.Writer, st scenario.Stats) {
	for _, n := range st.Nodes {
		how := n.Stop
		switch {
		case n.ExitCode != nil:
			how = fmt.Sprintf("exit %d (%#x)", *n.ExitCode, *n.ExitCode)
		case n.Trap != "":
			how = n.Trap // "trap: " and the reason (lanai.Trap.Error)
		}
		fmt.Fprintf(w, "lanai-sim: node %d: %s; %d instructions, %d cycles (%d skipped), %.6g ms; link %d/%d packets sent/received, %d/%d bytes; DMA %d bytes; %d ISR events\n",
			n.Node, how, n.Instructions, n.Cycles, n.SkippedCycles, n.SimSeconds*1e3, n.Link.PacketsSent, n.Link.PacketsRecv,
			n.Link.BytesSent, n.Link.BytesRecv, n.DMABytes, n.ISREvents)
		for _, l := range n.HostLog {
			fmt.Fprintf(w, "lanai-sim: host %s\n", l)
		}
		if n.HostError != "" {
			fmt.Fprintf(w, "lanai-sim: host script failed: %s\n", n.HostError)
		}
	}
	var drops uint64
	for _, d := range st.Fabric.Drops {
		drops += d
	}
	fmt.Fprintf(w, "lanai-sim: fabric: %d packets sent, %d delivered, %d dropped, %d corrupted\n", st.Fabric.Sent, st.Fabric.Delivered, drops, st.Fabric.Corrupted)
	fmt.Fprintf(w, "lanai-sim: %s after %v simulated; host %.3f s, %.4g sim-s/host-s\n", st.Outcome, sim.Time(st.SimTimePS), st.Host.Seconds, st.Host.Speed)
}

// fromFlags makes a scenario from --nodes, --topology and --firmware.
func fromFlags(nodes int, topo, firmware string) (*scenario.Scenario, error) {
	if firmware == "" {
		return nil, errors.New("no scenario file and no --firmware")
	}
	s := &scenario.Scenario{Path: "command line", Time: scenario.Duration(10 * sim.Millisecond)}
	parts := strings.Split(topo, ":")
	kind := parts[0]
	if kind == "" {
		kind = "b2b"
	}
	s.Topology.Kind = kind
	nums := make([]int, len(parts)-1)
	for i, p := range parts[1:] {
		v, err := strconv.Atoi(p)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("--topology %s: bad size %q", topo, p)
		}
		nums[i] = v
	}
	switch {
	case kind == "tree" && len(nums) == 2:
		s.Topology.Leaves, s.Topology.PerLeaf = nums[0], nums[1]
	case kind == "clos" && len(nums) == 3:
		s.Topology.Leaves, s.Topology.PerLeaf, s.Topology.Spines = nums[0], nums[1], nums[2]
	case (kind == "b2b" || kind == "star") && len(nums) == 0:
	default:
		return nil, fmt.Errorf("--topology %q: want b2b, star, tree:LEAVES:PERLEAF or clos:LEAVES:PERLEAF:SPINES", topo)
	}
	s.Count = nodes
	if s.Count == 0 {
		switch kind {
		case "b2b":
			s.Count = 2
		case "tree", "clos":
			s.Count = s.Topology.Leaves * s.Topology.PerLeaf
		}
	}
	fw := strings.Split(firmware, ",")
	if s.Count == 0 { // a star without --nodes: one node per firmware
		s.Count = len(fw)
	}
	if len(fw) > 1 && len(fw) != s.Count {
		return nil, fmt.Errorf("--firmware names %d firmwares for %d nodes: name one for every node, or one per node", len(fw), s.Count)
	}
	for _, p := range fw {
		if p == "" {
			return nil, fmt.Errorf("--firmware %q: an empty name in the list", firmware)
		}
	}
	spec := func(p string) scenario.NodeSpec {
		if strings.HasSuffix(p, ".s") {
			return scenario.NodeSpec{Asm: []string{p}}
		}
		return scenario.NodeSpec{Firmware: p}
	}
	if len(fw) == 1 {
		s.Defaults = spec(fw[0])
	} else {
		for _, p := range fw {
			s.Nodes = append(s.Nodes, spec(p))
		}
	}
	return s, nil
}

// applyFlags puts the flags that also apply to a scenario file on top of s.
func applyFlags(s *scenario.Scenario, timeS, stop, exitCodes, seed string, params, loads, dumps []string) error {
	if timeS != "" {
		t, err := sim.ParseDuration(timeS)
		if err != nil || t == 0 {
			return fmt.Errorf("--time %q: want e.g. 10ms", timeS)
		}
		s.Time = scenario.Duration(t)
	}
	if stop != "" {
		s.Stop = stop
	}
	if exitCodes != "" {
		s.ExitCodes = exitCodes
	}
	if seed != "" {
		v, err := scenario.ParseNum(seed)
		if err != nil {
			return fmt.Errorf("--seed: %v", err)
		}
		s.Seed = v
	}
	ids := func(flagName, n string) (string, error) {
		if n == "*" || n == "all" {
			if s.Count == 0 {
				return "", fmt.Errorf("--%s: node * needs a known node count", flagName)
			}
			return fmt.Sprintf("0-%d", s.Count-1), nil
		}
		if n == "" {
			return "", fmt.Errorf("--%s: missing node", flagName)
		}
		return n, nil
	}
	for _, p := range params {
		node, rest, ok1 := strings.Cut(p, ":")
		sym, val, ok2 := strings.Cut(rest, "=")
		if !ok1 || !ok2 || sym == "" {
			return fmt.Errorf("--param %q: want NODE:SYM=VAL", p)
		}
		v, err := scenario.ParseNum(val)
		if err != nil || v > 0xFFFFFFFF {
			return fmt.Errorf("--param %q: bad value", p)
		}
		id, err := ids("param", node)
		if err != nil {
			return err
		}
		s.Nodes = append(s.Nodes, scenario.NodeSpec{IDs: id, Params: map[string]scenario.Num{sym: scenario.Num(v)}})
	}
	for _, l := range loads {
		f := strings.SplitN(l, ":", 3)
		if len(f) != 3 || f[2] == "" {
			return fmt.Errorf("--host-load %q: want NODE:ADDR:FILE", l)
		}
		a, err := scenario.ParseNum(f[1])
		if err != nil {
			return fmt.Errorf("--host-load %q: %v", l, err)
		}
		id, err := ids("host-load", f[0])
		if err != nil {
			return err
		}
		abs, _ := filepath.Abs(f[2])
		s.Nodes = append(s.Nodes, scenario.NodeSpec{IDs: id, HostLoads: []scenario.HostLoad{{Addr: scenario.Num(a), File: abs}}})
	}
	for _, d := range dumps {
		f := strings.SplitN(d, ":", 4)
		if len(f) != 4 || f[3] == "" {
			return fmt.Errorf("--host-dump %q: want NODE:ADDR:LEN:FILE", d)
		}
		a, err1 := scenario.ParseNum(f[1])
		n, err2 := scenario.ParseNum(f[2])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("--host-dump %q: bad address or length", d)
		}
		id, err := ids("host-dump", f[0])
		if err != nil {
			return err
		}
		abs, _ := filepath.Abs(f[3])
		s.Nodes = append(s.Nodes, scenario.NodeSpec{IDs: id, HostDumps: []scenario.HostDump{{Addr: scenario.Num(a), Len: scenario.Num(n), File: abs}}})
	}
	return nil
}

// parseArgs parses fs's flags from args, which may follow the files (as in
// "lanai-sim scenario.json --stats f"), and returns the files. ok is false
// when the command is done: with status 0 after -h, StatusUsage after a
// bad flag (which fs has reported).
func parseArgs(fs *flag.FlagSet, args []string) (files []string, status int, ok bool) {
	files, err := flagargs.Parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0, false
		}
		return nil, scenario.StatusUsage, false
	}
	return files, 0, true
}
