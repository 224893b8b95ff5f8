package scenario

import (
	"bytes"
	"fmt"
	"io"
	"sort"

	"lanaiemu/sim"
)

// MaxConsoleLine bounds a console line: a firmware that writes more bytes
// than this without a newline has them shown as lines of this many.
const MaxConsoleLine = 4096

// consoleLine is a line a node's firmware wrote to its console, stamped
// with the simulated time of its newline.
type consoleLine struct {
	at   sim.Time
	node int
	text string
}

// nodeConsole is a board's console (lanai.Config.Console: the
// simulation-control device's PUTC register): it gathers the bytes into
// lines. Only its board writes to it (on the board's goroutine with
// --jobs); the World takes the lines between steps.
type nodeConsole struct {
	w     *World
	node  int
	buf   []byte
	lines []consoleLine
}

// Write takes the bytes the firmware wrote (one per PUTC).
func (c *nodeConsole) Write(p []byte) (int, error) {
	if c.w.console == nil {
		return len(p), nil
	}
	for _, b := range p {
		if b == '\n' {
			c.endLine()
			continue
		}
		if len(c.buf) == MaxConsoleLine { // cut only by a byte that does not fit: a full line's newline ends it
			c.endLine()
		}
		c.buf = append(c.buf, b)
	}
	return len(p), nil
}

// endLine stamps the line gathered so far with the board's time.
func (c *nodeConsole) endLine() {
	b := c.w.Boards[c.node]
	c.lines = append(c.lines, consoleLine{at: b.Clock().Time(b.CPU().Cycles), node: c.node, text: string(c.buf)})
	c.buf = c.buf[:0]
}

// SetConsole sends the nodes' console output (what the firmware writes
// with lanai.h's lanai_putchar and lanai_puts) to out as the run goes, one
// line "node N: text" per line the firmware ends with a newline, in order
// of simulated time, then of node; nil (the default) drops it. Call it
// before Run.
func (w *World) SetConsole(out io.Writer) { w.console = out }

// ConsoleErr is the first error writing the console, or nil.
func (w *World) ConsoleErr() error { return w.consoleErr }

// FlushConsole writes the console lines ended before the world's present
// time (no board can end one earlier from now on); final writes every
// line, and ends each node's unfinished one, as at the run's end.
func (w *World) FlushConsole(final bool) {
	if w.console == nil {
		return
	}
	now := w.W.Now()
	var out []consoleLine
	for _, c := range w.consoles {
		if final && len(c.buf) > 0 {
			c.endLine()
		}
		n := len(c.lines)
		if !final {
			n = sort.Search(len(c.lines), func(i int) bool { return c.lines[i].at >= now })
		}
		out = append(out, c.lines[:n]...)
		c.lines = append(c.lines[:0], c.lines[n:]...)
	}
	if len(out) == 0 || w.consoleErr != nil {
		return
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at }) // stable: by node within a time
	// One write a flush: a write(2) a line made a terminal or pipe slow.
	var text bytes.Buffer
	for _, l := range out {
		fmt.Fprintf(&text, "node %d: %s\n", l.node, l.text)
	}
	_, w.consoleErr = w.console.Write(text.Bytes())
}
