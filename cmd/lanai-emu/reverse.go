package main

import (
	"io"

	"lanaiemu/debugger"
	"lanaiemu/internal/readfile"
	"lanaiemu/lanai"
)

// muteWriter is a console that can be silenced while the debugger replays
// the program to run it backwards.
type muteWriter struct {
	w     io.Writer
	quiet bool
}

func (m *muteWriter) Write(p []byte) (int, error) {
	if m.quiet {
		return len(p), nil
	}
	return m.w.Write(p)
}

// loadDebugger loads the image at path into a core and makes a debugger
// for it that can run it backwards (it restarts the core from the same
// bytes); the debugger's transcript goes to transcript.
func (m *machine) loadDebugger(path string, console, transcript io.Writer) (*debugger.Debugger, error) {
	if _, err := m.config(console); err != nil {
		return nil, usageError{err}
	}
	data, err := readfile.Read(path, readfile.Binary)
	if err != nil {
		return nil, err
	}
	mute := &muteWriter{w: console}
	c, img, err := m.loadData(path, data, mute)
	if err != nil {
		return nil, err
	}
	d := debugger.New(c, img, transcript)
	d.Target().(*debugger.Core).Restartable(func() (*lanai.CPU, error) {
		c, _, err := m.loadData(path, data, mute)
		return c, err
	}, func(q bool) { mute.quiet = q })
	return d, nil
}
