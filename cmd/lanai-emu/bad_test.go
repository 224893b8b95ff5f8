package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Outputs and scripts that cannot be handled are errors, not silent
// successes: a trace to a full device exits 66 with the write error, and a
// debugger script with a line over a MiB is a failed command (exit 1)
// that says why.
func TestUnwritableTraceAndLongScriptLine(t *testing.T) {
	dir := t.TempDir()
	img := buildAsm(t, dir, "loop", loopProg)
	st, _, errs := emu(t, "", "run", "--max-cycles", "1e5", "--trace=/dev/full", img)
	if st != exitImage || !strings.Contains(errs, "writing the trace: ") || !strings.Contains(errs, "no space left on device") {
		t.Errorf("--trace=/dev/full: status %d, want %d\n%s", st, exitImage, errs)
	}
	// An output that cannot be written fails before the run, naming its
	// flag (--stats failed only after the run, its report already out).
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, flag := range []string{"--stats", "--trace", "--profile"} {
		st, _, errs := emu(t, "", "run", "--max-cycles", "1e5", flag+"="+filepath.Join(file, "x"), img)
		if st != exitImage || !strings.HasPrefix(errs, "lanai-emu run: "+flag+": ") || !strings.Contains(errs, "not a directory") || strings.Contains(errs, "cycle limit of") {
			t.Errorf("%s under a file: status %d, want %d before the run\n%s", flag, st, exitImage, errs)
		}
	}
	// An output named as nothing is a usage error: --trace= traced to
	// standard error, --stats= and --profile= wrote nothing.
	for _, flag := range []string{"--stats=", "--trace=", "--profile="} {
		st, _, errs := emu(t, "", "run", "--max-cycles", "1e5", flag, img)
		if st != exitUsage || !strings.Contains(errs, "an empty file name") || strings.Contains(errs, "cycle limit of") {
			t.Errorf("%s: status %d, want %d\n%.300s", flag, st, exitUsage, errs)
		}
	}
	script := filepath.Join(dir, "long.dbg")
	require.NoError(t, os.WriteFile(script, []byte("cycles\n"+strings.Repeat("x", 2<<20)+"\ncycles\n"), 0o644))
	st, out, _ := emu(t, "", "debug", "--script", script, img)
	if st != exitScript || !strings.Contains(out, "error: reading the script: bufio.Scanner: token too long") {
		t.Errorf("a 2 MiB script line: status %d, want %d\n%.500s", st, exitScript, out)
	}
	if _, _, errs := emu(t, "", "run", "/dev/zero"); !strings.Contains(errs, "not a regular file") {
		t.Errorf("run /dev/zero: %q", errs)
	}
}
