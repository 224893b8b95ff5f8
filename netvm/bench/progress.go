package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// bar is the progress bar of a long run: one line, redrawn with a
// carriage return after each unit of work (a cluster run), with the
// stage, the unit and the wall time so far.
type bar struct {
	w           io.Writer
	done, total int
	stageName   string
	start       time.Time
}

func newBar(w io.Writer, total int) *bar { return &bar{w: w, total: max(total, 1), start: time.Now()} }

// stage names the experiment now running.
func (b *bar) stage(name string) {
	b.stageName = name
	b.draw("")
}

// step counts one unit done; what names it.
func (b *bar) step(what string) {
	b.done = min(b.done+1, b.total)
	b.draw(what)
}

func (b *bar) draw(what string) {
	if b.w == nil {
		return
	}
	const width = 30
	n := width * b.done / b.total
	line := fmt.Sprintf("[%s%s] %3d%%  %-20s %-24s %5.1fs", strings.Repeat("#", n), strings.Repeat(".", width-n),
		100*b.done/b.total, b.stageName, what, time.Since(b.start).Seconds())
	fmt.Fprintf(b.w, "\r%s", line)
}

// finish ends the bar's line.
func (b *bar) finish() {
	if b.w != nil {
		b.draw("done")
		fmt.Fprintln(b.w)
	}
}
