package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// --trace=FIFO is opened for writing only (outfile), when the run starts:
// a reader that reads a little and goes away ends the run with a broken
// pipe (exit 66). It was opened with os.Create, for reading too, so the
// run kept the pipe open itself and, once the pipe was full, waited for
// ever; --profile was opened so too.
func TestTraceFIFOReaderGone(t *testing.T) {
	dir := t.TempDir()
	img := buildAsm(t, dir, "loop", loopProg)
	fifo := filepath.Join(dir, "trace")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	read := make(chan []byte, 1)
	go func() { // the reader: opens the FIFO (waiting for the writer), reads a little, goes
		f, err := os.Open(fifo)
		if err != nil {
			read <- nil
			return
		}
		b := make([]byte, 100)
		n, _ := io.ReadFull(f, b)
		f.Close()
		read <- b[:n]
	}()
	type result struct {
		st   int
		errs string
	}
	done := make(chan result, 1)
	go func() {
		st, _, errs := emu(t, "", "run", "--quiet", "--max-cycles", "1e7", "--trace="+fifo, img)
		done <- result{st, errs}
	}()
	select {
	case r := <-done:
		if r.st != exitImage || !strings.Contains(r.errs, "writing the trace: ") || !strings.Contains(r.errs, "broken pipe") {
			t.Errorf("status %d, want %d with a broken pipe:\n%s", r.st, exitImage, r.errs)
		}
	case <-time.After(20 * time.Second):
		// Unblock the run so that the test binary can end: drain the pipe.
		go func() {
			if f, err := os.Open(fifo); err == nil {
				io.Copy(io.Discard, f)
			}
		}()
		t.Fatal("the run still writes to a FIFO whose reader went away")
	}
	if b := <-read; len(b) != 100 {
		t.Errorf("the reader got %d bytes of the trace, want 100", len(b))
	}
}
