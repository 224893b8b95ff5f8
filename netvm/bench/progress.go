package bench

import (
	"fmt"
	"io"
	"strings"
	"time"

	"lanaiemu/netvm/internal/progress"
)

// bar is the progress bar of a long run, after each unit of work (a
// cluster run) with the stage, the unit and the wall time so far: on a
// terminal one line redrawn in place, elsewhere a line per tenth of the
// work (package progress).
type bar struct {
	line        *progress.Line
	done, total int
	stageName   string
	start       time.Time
}

func newBar(w io.Writer, total int) *bar {
	return &bar{line: progress.New(w), total: max(total, 1), start: time.Now()}
}

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
	if b.line == nil {
		return
	}
	const width = 30
	n := width * b.done / b.total
	b.line.Show(10*b.done/b.total, fmt.Sprintf("[%s%s] %3d%%  %-20s %-24s %5.1fs", strings.Repeat("#", n), strings.Repeat(".", width-n),
		100*b.done/b.total, b.stageName, what, time.Since(b.start).Seconds()))
}

// finish ends the bar's line.
func (b *bar) finish() {
	b.draw("done")
	b.line.End()
}
