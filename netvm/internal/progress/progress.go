// Package progress is the progress line of the long NetVM runs (netvm run,
// netvm stress, netvm bench): on a terminal it is one line redrawn in place
// with a carriage return; anywhere else (a log file, a pipe) it is plain
// lines, one per step of the caller's choosing (a tenth of the work, 100 ms
// of simulated time), so that a log gets a few short lines instead of one
// line of every redraw.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// IsTerminal reports whether w is a terminal: an *os.File that is a
// character device. (/dev/null is one too; what is drawn there is lost
// either way.)
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Line is a progress line on a writer. A nil *Line draws nothing.
type Line struct {
	w     io.Writer
	tty   bool
	step  int // the step of the last plain line
	shown bool
	width int // the width of the text drawn last, on a terminal
}

// New returns a progress line on w, or nil if w is nil.
func New(w io.Writer) *Line {
	if w == nil {
		return nil
	}
	return &Line{w: w, tty: IsTerminal(w)}
}

// Show shows text as the run's progress at step (a count that grows as the
// run goes on). A terminal's line is redrawn every time; elsewhere a plain
// line is written only for the first call and when step has changed since
// the last line written.
func (l *Line) Show(step int, text string) {
	switch {
	case l == nil:
	case l.tty:
		pad := max(0, l.width-len(text)) // blank out the rest of a longer line
		fmt.Fprintf(l.w, "\r%s%s", text, strings.Repeat(" ", pad))
		l.width, l.shown = len(text), true
	case !l.shown || step != l.step:
		fmt.Fprintln(l.w, text)
		l.step, l.shown = step, true
	}
}

// End ends the line: on a terminal, the line redrawn so far is closed with
// a newline.
func (l *Line) End() {
	if l != nil && l.tty && l.shown {
		fmt.Fprintln(l.w)
		l.shown, l.width = false, 0
	}
}
