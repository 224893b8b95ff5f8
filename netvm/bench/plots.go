package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"lanaiemu/internal/outfile"
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

// Plots are the files of a run's plots, opened before it (OpenPlots),
// by path.
type Plots map[string]*outfile.File

// plotExts are the formats every curve is drawn in.
var plotExts = []string{".svg", ".png"}

// OpenPlots creates dir if it does not exist and opens in it, before the
// run, the file of every plot a run draws (CurveIDs, as SVG and PNG;
// internal/outfile): one that cannot be written fails now, not after the
// run, and one that exists keeps its contents until WritePlots. outs gets
// the files.
func OpenPlots(outs *outfile.Set, dir string) (Plots, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return openPlots(outs, dir, CurveIDs())
}

// openPlots opens the plot files of the curves ids in dir.
func openPlots(outs *outfile.Set, dir string, ids []string) (Plots, error) {
	p := Plots{}
	for _, id := range ids {
		for _, ext := range plotExts {
			name := filepath.Join(dir, id+ext)
			o, err := outfile.Create(name)
			if err != nil {
				return nil, err
			}
			outs.Add(o)
			p[name] = o
		}
	}
	return p, nil
}

// WritePlots draws every curve into its files in dir, ID.svg and ID.png,
// which p holds (OpenPlots), and returns the files written.
func WritePlots(p Plots, dir string, curves []Curve) ([]string, error) {
	var files []string
	for _, c := range curves {
		ch := c.Chart()
		for _, ext := range plotExts {
			var b bytes.Buffer
			draw := ch.SVG
			if ext == ".png" {
				draw = ch.PNG
			}
			if err := draw(&b); err != nil {
				return files, fmt.Errorf("plot %s: %w", c.ID, err)
			}
			name := filepath.Join(dir, c.ID+ext)
			o := p[name]
			if o == nil {
				return files, fmt.Errorf("plot %s: no file was opened for it", c.ID)
			}
			if err := o.Write(b.Bytes()); err != nil {
				return files, err
			}
			files = append(files, name)
		}
	}
	return files, nil
}
