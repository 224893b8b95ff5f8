// Command lanai-emu runs and debugs programs for the LANai 9.2 in the
// emulator (package lanai).
//
//	lanai-emu run [flags] image      run to the exit, a trap or the cycle limit
//	lanai-emu debug [flags] image    the interactive debugger (package debugger)
//	lanai-emu dap [--listen ADDR]    the debugger for editors: the Debug Adapter Protocol (package dap)
//
// Images are ELF executables (lanai-as, lanai-ld) or LANai COFF
// executables; --raw or --load-addr loads a raw binary instead. The
// program's console (the simulation-control PUTC register) goes to
// standard output; reports and the run summary go to standard error.
//
// Exit status of run: the program's exit code (its low 8 bits; the summary
// shows all 32), 70 a trap, 71 the cycle limit, 66 an unreadable or bad
// image (or an unwritable --trace/--stats file), 64 a usage error. Exit
// status of debug: 0, 1 if a --script command failed, 66, 64.
// docs/emulator.md is the manual.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"lanaiemu/debugger"
	"lanaiemu/internal/flagargs"
	"lanaiemu/internal/outfile"
	"lanaiemu/internal/readfile"
	"lanaiemu/lanai"
	budgetpkg "lanaiemu/lanai/budget"
	"lanaiemu/lanai/profile"
	"lanaiemu/memsys"
	"lanaiemu/objfile"
)

// Exit statuses (besides the program's own exit code).
const (
	exitUsage  = 64 // bad command line (sysexits EX_USAGE)
	exitImage  = 66 // the image cannot be read or loaded, or an output file cannot be written (EX_NOINPUT)
	exitTrap   = 70 // the program trapped (EX_SOFTWARE)
	exitCycles = 71 // the cycle limit was reached
	exitScript = 1  // debug --script: a command failed
)

// defaultMaxCycles is run's default cycle limit: 10^10 cycles, 75 seconds
// of LANai time at 133 MHz.
const defaultMaxCycles = 10_000_000_000

const usageText = `usage: lanai-emu run [flags] image
       lanai-emu debug [flags] image
       lanai-emu dap [--listen ADDR] [machine flags]
       lanai-emu check --budgets FILE [--update] image
       lanai-emu help

run executes the program until it exits, traps or reaches the cycle limit.
debug starts the debugger (commands from standard input, or --script FILE);
type "help" at its prompt for the commands. dap serves the Debug Adapter
Protocol (VS Code and other editors) on standard input and output, or on
one TCP connection with --listen; the launch request names the image
("program") (docs/debugging.md).

The image is an ELF executable (lanai-as, lanai-ld) or a LANai COFF
executable; --raw or --load-addr loads a raw binary at --load-addr (default
0) and starts it there. Flags may come before or after the image; after
"--" every argument is the image. The program's console output (the PUTC register) goes
to standard output; reports, the summary and --trace (without =FILE) go to
standard error.

Exit status of run:
  0-255  the program exited: the low 8 bits of its exit code (the summary
         on standard error shows all 32 bits)
  70     the program trapped (invalid instruction, bad or unaligned access,
         deadlock); a report goes to standard error
  71     the cycle limit (--max-cycles) was reached
  66     the image could not be read or loaded, or a --trace, --stats or
         --profile file could not be written
  64     usage error
Exit status of debug: 0; 1 if a command of --script failed; 66; 64.
check runs the program to its exit measuring the paths of a budget file
(docs/profiling.md): 0 every path within budget; 1 a path over its budget
or never run (one line each: the path, its cycles, its budget, the routine
that grew); 66 an unreadable image or budget file; 70; 71; 64.
(A program may itself exit with 64, 66, 70 or 71: the summary and --stats
tell them apart.)
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command, with its streams as parameters for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "debug":
		return debugCmd(args[1:], stdin, stdout, stderr)
	case "dap":
		return dapCmd(args[1:], stdin, stdout, stderr)
	case "check":
		return checkCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return 0
	}
	fmt.Fprintf(stderr, "lanai-emu: unknown command %q\n\n%s", args[0], usageText)
	return exitUsage
}

// machine holds the flags that configure the core and the loader.
type machine struct {
	clockMHz float64
	sramSize string
	align    string
	rrr      bool
	raw      bool
	loadAddr string
}

func (m *machine) register(fs *flag.FlagSet) {
	fs.Float64Var(&m.clockMHz, "clock", float64(lanai.DefaultClockHz)/1e6, "core clock in `MHz`")
	fs.StringVar(&m.sramSize, "sram-size", strconv.Itoa(memsys.DefaultSRAMSize), "SRAM size in `bytes` (decimal or 0x hex, or with a K or M suffix)")
	fs.StringVar(&m.align, "align", "trap", "unaligned accesses: `trap|silent` (silent ignores the low address bits)")
	fs.BoolVar(&m.rrr, "rrr", false, "execute op-1101 words as LANai 3/4 three-register (RRR) instructions, as lanai-gcc 2.95's code needs")
	fs.BoolVar(&m.raw, "raw", false, "load the image as a raw binary at --load-addr")
	fs.StringVar(&m.loadAddr, "load-addr", "", "load a raw binary at this `address` and start it there (implies --raw; default 0)")
}

// config checks the machine flags.
func (m *machine) config(console io.Writer) (lanai.Config, error) {
	var cfg lanai.Config
	if !(m.clockMHz >= 0.000001 && m.clockMHz <= 1e6) { // 1 Hz at least: less rounds to 0 Hz, the default clock
		return cfg, fmt.Errorf("--clock %g: want 0.000001..1000000 MHz", m.clockMHz)
	}
	cfg.ClockHz = uint64(m.clockMHz*1e6 + 0.5)
	size, err := parseSize(m.sramSize)
	if err != nil || size == 0 || size%4 != 0 || size > memsys.MaxSRAMSize {
		return cfg, fmt.Errorf("--sram-size %q: want a non-zero multiple of 4 up to %#x", m.sramSize, memsys.MaxSRAMSize)
	}
	cfg.SRAMSize = uint32(size)
	switch m.align {
	case "trap":
	case "silent":
		cfg.AlignSilently = true
	default:
		return cfg, fmt.Errorf("--align %q: want trap or silent", m.align)
	}
	cfg.RRR = m.rrr
	if m.loadAddr != "" {
		m.raw = true
		if _, err := parseSize(m.loadAddr); err != nil {
			return cfg, fmt.Errorf("--load-addr %q: %v", m.loadAddr, err)
		}
	}
	cfg.Console = console
	return cfg, nil
}

// parseSize reads a decimal or 0x hex number with an optional K or M suffix.
func parseSize(s string) (uint64, error) {
	mul := uint64(1)
	switch {
	case strings.HasSuffix(s, "K") || strings.HasSuffix(s, "k"):
		mul, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M") || strings.HasSuffix(s, "m"):
		mul, s = 1<<20, s[:len(s)-1]
	}
	var v uint64
	var err error
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		v, err = strconv.ParseUint(s[2:], 16, 32)
	} else {
		v, err = strconv.ParseUint(s, 10, 32)
	}
	if err != nil || v*mul > math.MaxUint32 {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return v * mul, nil
}

// parseCycles reads a cycle count: decimal, 0x hex, or an exact float such
// as 1e10.
func parseCycles(s string) (uint64, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return strconv.ParseUint(s[2:], 16, 64)
	}
	if v, err := strconv.ParseUint(s, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f >= 1<<64 || f != math.Trunc(f) {
		return 0, fmt.Errorf("bad cycle count %q", s)
	}
	return uint64(f), nil
}

// load makes a core and loads the image into it.
func (m *machine) load(path string, console io.Writer) (*lanai.CPU, *memsys.Image, error) {
	if _, err := m.config(console); err != nil {
		return nil, nil, usageError{err}
	}
	data, err := readfile.Read(path, readfile.Binary)
	if err != nil {
		return nil, nil, err
	}
	return m.loadData(path, data, console)
}

// loadData makes a core and loads the image read from path into it.
func (m *machine) loadData(path string, data []byte, console io.Writer) (*lanai.CPU, *memsys.Image, error) {
	cfg, err := m.config(console)
	if err != nil {
		return nil, nil, usageError{err}
	}
	c, err := lanai.New(cfg)
	if err != nil {
		return nil, nil, usageError{err}
	}
	var img *memsys.Image
	if m.raw {
		var addr uint64
		if m.loadAddr != "" {
			addr, _ = parseSize(m.loadAddr)
		}
		img, err = c.Mem.LoadRaw(data, uint32(addr))
	} else {
		img, err = c.Mem.LoadFile(data)
		if err != nil {
			err = fmt.Errorf("%v (for a raw binary, use --raw or --load-addr)", err)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	c.Reset(img.Entry)
	return c, img, nil
}

// usageError marks errors in flag values.
type usageError struct{ error }

// subcommand makes the flag set of a subcommand that loads an image: the
// machine's flags, and a usage that prints the tool's text and then the
// subcommand's flags.
func subcommand(name string, m *machine, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	m.register(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText+"\nFlags of "+name+":\n")
		fs.PrintDefaults()
	}
	return fs
}

// positiveCycles reads the --max-cycles of subcommand fs: a positive
// cycle count; otherwise it says so on stderr.
func positiveCycles(fs *flag.FlagSet, s string, stderr io.Writer) (uint64, bool) {
	v, err := parseCycles(s)
	if err != nil || v == 0 {
		fmt.Fprintf(stderr, "lanai-emu %s: --max-cycles %q: want a positive number of cycles\n", fs.Name(), s)
		return 0, false
	}
	return v, true
}

// parseArgs parses flags that may come before or after the one image
// argument.
func parseArgs(fs *flag.FlagSet, args []string, stderr io.Writer) (string, int) {
	pos, err := flagargs.Parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", 0
		}
		return "", exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "lanai-emu %s: want exactly one image, got %d arguments\n", fs.Name(), len(pos))
		fs.Usage()
		return "", exitUsage
	}
	return pos[0], -1
}

// traceFlag is --trace (standard error) or --trace=FILE.
type traceFlag struct {
	on   bool
	file string
}

func (t *traceFlag) String() string {
	if t == nil || !t.on {
		return ""
	}
	return t.file
}

func (t *traceFlag) Set(v string) error {
	switch v {
	case "true":
		t.on, t.file = true, ""
	case "false":
		t.on, t.file = false, ""
	case "":
		return errors.New("an empty file name (--trace alone traces to standard error)")
	default:
		t.on, t.file = true, v
	}
	return nil
}

func (t *traceFlag) IsBoolFlag() bool { return true }

// stats is what --stats writes.
type stats struct {
	Image        string  `json:"image"`
	Stop         string  `json:"stop"`      // "exit", "trap" or "cycle limit"
	ExitCode     *uint32 `json:"exit_code"` // null unless the program exited
	Instructions uint64  `json:"instructions"`
	Cycles       uint64  `json:"cycles"`
	CPI          float64 `json:"cpi"`
	ClockHz      uint64  `json:"clock_hz"`
	SimSeconds   float64 `json:"sim_seconds"`
	HostSeconds  float64 `json:"host_seconds"`
	MIPS         float64 `json:"mips"` // host speed: instructions per host microsecond
	PC           uint32  `json:"pc"`   // where the program stopped
	Trap         string  `json:"trap,omitempty"`
}

func runCmd(args []string, stdout, stderr io.Writer) int {
	var m machine
	fs := subcommand("run", &m, stderr)
	maxCycles := fs.String("max-cycles", strconv.FormatUint(defaultMaxCycles, 10), "stop after this many `cycles` (exit status 71)")
	statsFile := fs.String("stats", "", "write run statistics as JSON to this `file`")
	quiet := fs.Bool("quiet", false, "no summary on standard error (reports of traps and the cycle limit remain)")
	var trace traceFlag
	fs.Var(&trace, "trace", "write a trace line per instruction to standard error, or with --trace=FILE to FILE")
	profileFile := fs.String("profile", "", "write a pprof profile of the run's cycles (by function, line and call stack) to this `file` (docs/profiling.md)")
	path, st := parseArgs(fs, args, stderr)
	if st >= 0 {
		return st
	}
	budget, ok := positiveCycles(fs, *maxCycles, stderr)
	if !ok {
		return exitUsage
	}
	if err := outfile.CheckEmpty(fs, "--stats", "--profile"); err != nil {
		fmt.Fprintf(stderr, "lanai-emu run: %v\n", err)
		return exitUsage
	}
	console := bufio.NewWriterSize(stdout, 4096)
	defer console.Flush()
	c, img, err := m.load(path, console)
	if err != nil {
		return loadFailed(stderr, "run", err)
	}
	loc := newLocator(img)

	if trace.on && *profileFile != "" {
		fmt.Fprintln(stderr, "lanai-emu run: --trace and --profile cannot be combined")
		return exitUsage
	}
	// The outputs are opened before the run (outfile): an unwritable one
	// fails now. The stats and profile files keep their old contents until
	// the run is done; the trace file is made empty when the run starts
	// and written as it goes. The profile and the trace are raw: a device
	// or pipe gets their bytes only.
	var outs outfile.Set
	defer outs.Abandon()
	var statsOut, profOut, traceFile *outfile.File
	for _, o := range []struct {
		flag, path string
		raw        bool
		f          **outfile.File
	}{{"--stats", *statsFile, false, &statsOut}, {"--profile", *profileFile, true, &profOut}, {"--trace", trace.file, true, &traceFile}} {
		if o.path == "" {
			continue
		}
		create := outfile.Create
		if o.raw {
			create = func(p string) (*outfile.File, error) { return outfile.CreateRaw(p, 0o644) }
		}
		if *o.f, err = create(o.path); err != nil {
			fmt.Fprintf(stderr, "lanai-emu run: %s: %v\n", o.flag, err)
			return exitImage
		}
		outs.Add(*o.f)
	}
	var prof *profile.Profiler
	if profOut != nil {
		prof = profile.New(img, nil)
		prof.Binary(path)
	}
	var stop *lanai.Stop
	var traceOut io.Writer = stderr
	var traceStream *outfile.Stream
	if traceFile != nil {
		// A FIFO is opened now, for writing only: os.Create opened it for
		// reading too, so a reader that went away left the run blocked
		// on a full pipe for ever instead of failing (broken pipe).
		if traceStream, err = traceFile.Stream(); err != nil {
			fmt.Fprintf(stderr, "lanai-emu run: --trace: %v\n", err)
			return exitImage
		}
		traceOut = traceStream
	}
	start := time.Now()
	var traceErr error
	if trace.on {
		tr := lanai.NewTracer(traceOut, loc.syms)
		stop = c.RunTraced(budget, tr)
		traceErr = tr.Err()
	} else if prof != nil {
		stop = prof.Run(c, budget)
	} else {
		stop = c.Run(budget)
	}
	host := time.Since(start).Seconds()
	if prof != nil {
		if err := profOut.WriteFrom(func(w io.Writer) error { return prof.Write(w, c.Config().ClockHz) }); err != nil {
			fmt.Fprintf(stderr, "lanai-emu run: writing the profile: %v\n", err)
			return exitImage
		}
	}
	console.Flush()
	if traceStream != nil {
		if err := traceStream.Close(); err != nil && traceErr == nil {
			traceErr = err
		}
	}
	if traceErr != nil {
		fmt.Fprintf(stderr, "lanai-emu run: writing the trace: %v\n", traceErr)
		return exitImage
	}

	s := stats{Image: path, Stop: stop.Kind.String(), Instructions: c.Instret, Cycles: c.Cycles,
		ClockHz: c.Config().ClockHz, SimSeconds: c.Seconds(c.Cycles), HostSeconds: host, PC: c.PC}
	if c.Instret > 0 {
		s.CPI = float64(c.Cycles) / float64(c.Instret)
	}
	if host > 0 {
		s.MIPS = float64(c.Instret) / host / 1e6
	}
	status := 0
	switch stop.Kind {
	case lanai.StopExit:
		code := stop.Code
		s.ExitCode = &code
		status = int(code & 0xff)
		if !*quiet {
			fmt.Fprintf(stderr, "lanai-emu: exit code %#x (%d), exit status %d\n", code, int32(code), status)
		}
	case lanai.StopTrap:
		s.PC = stop.Trap.PC
		s.Trap = stop.Trap.Reason
		fmt.Fprintf(stderr, "lanai-emu: trap at %s\n%s", loc.where(stop.Trap.PC), stop.Trap.Report())
		status = exitTrap
	case lanai.StopCycleLimit:
		fmt.Fprintf(stderr, "lanai-emu: cycle limit of %d cycles reached at %s (raise it with --max-cycles)\n", budget, loc.where(c.PC))
		if hint := boardHint(img); hint != "" {
			fmt.Fprintf(stderr, "lanai-emu: %s\n", hint)
		}
		status = exitCycles
	default:
		fmt.Fprintf(stderr, "lanai-emu: the run stopped unexpectedly (%s) at %s\n", stop.Kind, loc.where(c.PC))
		status = exitTrap
	}
	if !*quiet {
		fmt.Fprintf(stderr, "lanai-emu: %d instructions, %d cycles, CPI %.3f, simulated %s at %g MHz; host %.3f s, %.1f MIPS\n",
			s.Instructions, s.Cycles, s.CPI, debugger.FormatSeconds(s.SimSeconds), float64(s.ClockHz)/1e6, s.HostSeconds, s.MIPS)
	}
	if statsOut != nil {
		b, _ := json.MarshalIndent(s, "", "  ")
		if err := statsOut.Write(append(b, '\n')); err != nil {
			fmt.Fprintf(stderr, "lanai-emu run: --stats: %v\n", err)
			return exitImage
		}
	}
	return status
}

// locator names addresses for reports: symbol+offset and file:line.
type locator struct {
	syms  *lanai.Symbols
	lines map[uint32]objfile.LineEntry
}

func newLocator(img *memsys.Image) *locator {
	l := &locator{syms: lanai.NewSymbols(img.Symbols), lines: map[uint32]objfile.LineEntry{}}
	if img.File != nil {
		if ls, err := img.File.Lines(); err == nil {
			for _, e := range ls {
				l.lines[e.Addr] = e
			}
		}
	}
	return l
}

// where gives "pc 0x00001234 <sym+0x4> (file.s:12)".
func (l *locator) where(pc uint32) string {
	s := fmt.Sprintf("pc 0x%08x", pc)
	if name := l.syms.Lookup(pc); name != "" {
		s += " <" + name + ">"
	}
	if e, ok := l.lines[pc]; ok {
		s += fmt.Sprintf(" (%s:%d)", filepath.Base(e.File), e.Line)
	}
	return s
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func debugCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var m machine
	fs := subcommand("debug", &m, stderr)
	script := fs.String("script", "", "read commands from this `file` (each is echoed after the prompt) and stop at its end")
	maxCycles := fs.String("max-cycles", strconv.FormatUint(debugger.DefaultMaxCycles, 10), "cycle budget of each command that runs the program")
	var srcDirs multiFlag
	fs.Var(&srcDirs, "source-dir", "search this `directory` for source files of the line table (repeatable; the image's directory is searched last)")
	path, st := parseArgs(fs, args, stderr)
	if st >= 0 {
		return st
	}
	budget, ok := positiveCycles(fs, *maxCycles, stderr)
	if !ok {
		return exitUsage
	}
	var scriptData []byte
	if *script != "" {
		var err error
		if scriptData, err = readfile.Read(*script, readfile.Text); err != nil {
			fmt.Fprintf(stderr, "lanai-emu debug: %v\n", err)
			return exitImage
		}
	}
	d, err := m.loadDebugger(path, stdout, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "lanai-emu debug: %v\n", err)
		if _, ok := err.(usageError); ok {
			return exitUsage
		}
		return exitImage
	}
	d.MaxCycles = budget
	d.SourceDirs = append(srcDirs, filepath.Dir(path))

	defer d.InterruptOnSignal()()

	d.Intro(path)
	if *script != "" {
		d.Script(strings.NewReader(string(scriptData)))
		if d.Errors() > 0 {
			return exitScript
		}
		return 0
	}
	echo := true
	if f, ok := stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			echo = false
		}
	}
	d.Interact(stdin, echo)
	return 0
}

// loadFailed reports an image that could not be loaded for subcommand cmd
// and gives the exit status: 64 for a usage error (a bad flag value), 66
// for the image itself.
func loadFailed(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "lanai-emu %s: %v\n", cmd, err)
	if _, ok := err.(usageError); ok {
		return exitUsage
	}
	return exitImage
}

// checkCmd is lanai-emu check: the program's paths against a budget file.
func checkCmd(args []string, stdout, stderr io.Writer) int {
	var m machine
	fs := subcommand("check", &m, stderr)
	maxCycles := fs.String("max-cycles", strconv.FormatUint(defaultMaxCycles, 10), "stop after this many `cycles` (exit status 71)")
	budgets := fs.String("budgets", "", "the budget `file` (required)")
	update := fs.Bool("update", false, "rewrite the budget file with the measured cycles")
	path, st := parseArgs(fs, args, stderr)
	if st >= 0 {
		return st
	}
	budget, err := parseCycles(*maxCycles)
	if err != nil || budget == 0 || *budgets == "" {
		fmt.Fprintln(stderr, "lanai-emu check: --budgets FILE is required, --max-cycles a positive number of cycles")
		return exitUsage
	}
	bf, err := budgetpkg.Load(*budgets)
	if err != nil {
		fmt.Fprintf(stderr, "lanai-emu check: %v\n", err)
		return exitImage
	}
	// With --update the file is opened for writing now, so that one that
	// cannot be written fails before the run; it keeps its contents
	// until the update.
	var save func([]byte) error
	if *update {
		updateOut, err := outfile.Create(*budgets)
		if err != nil {
			fmt.Fprintf(stderr, "lanai-emu check: --budgets: %v\n", err)
			return exitImage
		}
		defer updateOut.Abandon()
		save = updateOut.Write
	}
	console := bufio.NewWriterSize(stdout, 4096)
	defer console.Flush()
	c, img, err := m.load(path, console)
	if err != nil {
		return loadFailed(stderr, "check", err)
	}
	meter, err := budgetpkg.NewMeter(bf, img)
	if err != nil {
		fmt.Fprintf(stderr, "lanai-emu check: %v\n", err)
		return exitImage
	}
	stop := profile.Run(c, budget, []profile.Observer{meter})
	console.Flush()
	switch stop.Kind {
	case lanai.StopExit:
	case lanai.StopCycleLimit:
		fmt.Fprintf(stderr, "lanai-emu check: cycle limit of %d cycles reached (raise it with --max-cycles)\n", budget)
		return exitCycles
	default:
		fmt.Fprintf(stderr, "lanai-emu check: the program stopped: %s\n", stop.Kind)
		if stop.Trap != nil {
			fmt.Fprint(stderr, stop.Trap.Report())
		}
		return exitTrap
	}
	results := meter.Results()
	// After VerifySave: with --update, each line gives the budget written.
	err = budgetpkg.VerifySave(bf, results, save)
	for _, r := range results {
		fmt.Fprintln(stdout, r)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lanai-emu check: %v\n", err)
		if errors.Is(err, budgetpkg.ErrOverBudget) {
			return 1
		}
		return exitImage
	}
	return 0
}
