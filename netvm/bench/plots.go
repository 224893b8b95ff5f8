package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"lanaiemu/netvm/bench/internal/plot"
)

// Chart turns a curve into a plot.Chart: message sizes get power-of-four
// ticks labelled 4, 64, 1K ...; a bar curve has one group per category.
func (c Curve) Chart() *plot.Chart {
	ch := &plot.Chart{Title: c.Title, XLabel: c.XLabel, YLabel: c.YLabel, LogX: c.LogX, LogY: c.LogY}
	for _, m := range c.Marks {
		ch.Marks = append(ch.Marks, plot.Mark{Vertical: m.Vertical, At: m.At, Label: m.Label})
	}
	if c.Bars {
		for i, cat := range c.Cats {
			b := plot.Bar{Category: cat}
			for _, s := range c.Series {
				v := 0.0
				if i < len(s.Y) {
					v = s.Y[i]
				}
				b.Values = append(b.Values, v)
			}
			ch.Bars = append(ch.Bars, b)
		}
		for _, s := range c.Series {
			ch.BarSeries = append(ch.BarSeries, s.Name)
		}
		return ch
	}
	for _, s := range c.Series {
		ch.Series = append(ch.Series, plot.Series{Name: s.Name, X: s.X, Y: s.Y})
	}
	if c.LogX && strings.Contains(c.XLabel, "size") {
		lo, hi := 1e300, 0.0
		for _, s := range c.Series {
			for _, x := range s.X {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		for x := 1.0; x <= hi*1.001; x *= 4 {
			if x >= lo/1.001 {
				ch.XTicks = append(ch.XTicks, x)
			}
		}
		ch.XTickFormat = plot.SizeLabel
	}
	return ch
}

// PreparePlotDir creates dir if it does not exist and checks that files
// can be created in it, so that a run whose plots could not be written
// fails before it starts.
func PreparePlotDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".netvm-bench-*")
	if err != nil {
		return err
	}
	name := f.Name()
	err = f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}

// WritePlots draws every curve into dir as ID.svg and ID.png and returns
// the files written.
func WritePlots(dir string, curves []Curve) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, c := range curves {
		ch := c.Chart()
		for _, f := range []struct {
			ext  string
			draw func(*bytes.Buffer) error
		}{{".svg", func(b *bytes.Buffer) error { return ch.SVG(b) }}, {".png", func(b *bytes.Buffer) error { return ch.PNG(b) }}} {
			var b bytes.Buffer
			if err := f.draw(&b); err != nil {
				return files, fmt.Errorf("plot %s: %w", c.ID, err)
			}
			name := filepath.Join(dir, c.ID+f.ext)
			if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
				return files, err
			}
			files = append(files, name)
		}
	}
	return files, nil
}
