package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"lanaiemu/debugger"
	"lanaiemu/internal/readfile"
	"lanaiemu/scenario"
)

// debugUsage is lanai-sim debug's synopsis.
const debugUsage = "usage: lanai-sim debug [--script FILE] [--abi clang|netvm] [--max-cycles N] scenario.json   (docs/lanai-sim.md)\n"

// debugCmd runs a scenario under the debugger (the one of package
// debugger, over the boards as lanai-sim dap has them: each node's core a
// thread, a stop stops all), reading commands from the script or from
// standard input, as lanai-emu debug does for one core. The transcript and
// the nodes' consoles go to standard output. Exit status: 0; 1 when a
// command of the script failed; once the run is over, the run's status
// if that is not 0; 64 usage; 66 a scenario or script that cannot be used.
func debugCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lanai-sim debug", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, debugUsage+"\nFlags of debug:\n"); fs.PrintDefaults() }
	script := fs.String("script", "", "read commands from this `file` (each is echoed after the prompt) and stop at its end")
	abi := fs.String("abi", "clang", "the firmware's frame convention: clang or netvm")
	maxCycles := fs.String("max-cycles", strconv.FormatUint(debugger.DefaultMaxCycles, 10), "cycle budget of each command that runs the boards (node's cycles)")
	files, status, ok := parseArgs(fs, args)
	if !ok {
		return status
	}
	fail := func(status int, err error) int {
		fmt.Fprintf(stderr, "lanai-sim debug: %v\n", err)
		if status == scenario.StatusUsage {
			fmt.Fprint(stderr, debugUsage)
		}
		return status
	}
	if len(files) != 1 {
		return fail(scenario.StatusUsage, fmt.Errorf("want one scenario file, got %d", len(files)))
	}
	budget, err := strconv.ParseUint(*maxCycles, 0, 64)
	if err != nil || budget == 0 {
		return fail(scenario.StatusUsage, fmt.Errorf("--max-cycles %q: a positive cycle count", *maxCycles))
	}
	var scriptText string
	if *script != "" {
		data, err := readfile.Read(*script, readfile.Text)
		if err != nil {
			return fail(scenario.StatusBadInput, fmt.Errorf("--script: %w", err))
		}
		scriptText = string(data)
	}
	d, w, err := newSimDebugger(files[0], *abi, stdout, stdout)
	if err != nil {
		if strings.HasPrefix(err.Error(), "abi ") {
			return fail(scenario.StatusUsage, fmt.Errorf("--%v", err))
		}
		return fail(scenario.StatusBadInput, err)
	}
	d.MaxCycles = budget
	defer d.InterruptOnSignal()()
	fmt.Fprintf(stdout, "lanai-sim debugger: %s, %d nodes; node 0 selected. Type \"help\" for commands.\n", files[0], len(w.Boards))
	if *script != "" {
		d.Script(strings.NewReader(scriptText))
	} else {
		echo := true
		if f, ok := stdin.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				echo = false
			}
		}
		d.Interact(stdin, echo)
	}
	status = 0
	if over, _ := d.Over(); over && d.Failed() == nil {
		fmt.Fprint(stderr, finishLine(w))
		status = w.Status()
	}
	if err := d.Failed(); err != nil {
		fmt.Fprintf(stderr, "lanai-sim debug: the run failed: %v\n", err)
		status = scenario.StatusBadInput
	}
	if n := d.Errors(); n > 0 && *script != "" {
		fmt.Fprintf(stderr, "lanai-sim debug: %d debugger commands failed\n", n)
		if status == 0 {
			status = 1
		}
	}
	return status
}
