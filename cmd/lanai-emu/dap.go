package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"lanaiemu/dap"
)

// dapCmd serves the Debug Adapter Protocol on standard input and output,
// or on --listen's TCP address (docs/debugging.md).
func dapCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var m machine
	fs := subcommand("dap", &m, stderr)
	listen := fs.String("listen", "", "serve one client on this TCP `address` (host:port) instead of standard input and output")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lanai-emu dap: unexpected arguments %q (the image is the launch request's \"program\")\n", fs.Args())
		return exitUsage
	}
	if _, err := m.config(nil); err != nil {
		fmt.Fprintf(stderr, "lanai-emu dap: %v\n", err)
		return exitUsage
	}
	launch := coreLauncher(&m)
	var err error
	if *listen != "" {
		err = dap.ListenAndServe(*listen, launch, func(addr string) { fmt.Fprintf(stderr, "lanai-emu dap: listening on %s\n", addr) })
	} else {
		err = dap.Serve(stdin, stdout, launch)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lanai-emu dap: %v\n", err)
		return 1
	}
	return 0
}

// coreArgs are the launch request's arguments for one core.
type coreArgs struct {
	Program    string   `json:"program"`
	SourceDirs []string `json:"sourceDirs"`
	Cwd        string   `json:"cwd"`
	MaxCycles  uint64   `json:"maxCycles"`
}

// coreLauncher loads the launch request's program into a core.
func coreLauncher(m *machine) dap.Launcher {
	return func(raw json.RawMessage, console, transcript io.Writer) (*dap.Session, error) {
		var a coreArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("launch arguments: %v", err)
		}
		if a.Program == "" {
			return nil, fmt.Errorf("launch: \"program\" must name the image (an ELF or COFF executable)")
		}
		prog := a.Program
		if !filepath.IsAbs(prog) && a.Cwd != "" {
			prog = filepath.Join(a.Cwd, prog)
		}
		d, err := m.loadDebugger(prog, console, transcript)
		if err != nil {
			return nil, err
		}
		d.MaxCycles = a.MaxCycles
		dirs := a.SourceDirs
		if a.Cwd != "" {
			dirs = append(dirs, a.Cwd)
		}
		if wd, err := os.Getwd(); err == nil {
			dirs = append(dirs, wd)
		}
		d.SourceDirs = append(dirs, filepath.Dir(prog))
		return &dap.Session{Debugger: d}, nil
	}
}
