// Package plot draws line and bar charts as SVG and PNG, deterministically,
// with the standard library only.
//
// A Chart is laid out once into a list of drawing primitives in pixel
// coordinates (800x500), which are then written either as SVG text or
// rasterised by the package's own rasteriser (Bresenham lines, filled
// rectangles and a built-in 5x8 bitmap font) and encoded with image/png.
// The same Chart always gives byte-identical output.
//
// Every series gets a fixed colour from a ten-colour palette, in order, and
// (on a line chart) its own dash pattern and marker shape, so that series
// lying on top of each other stay visible (see seriesDash). Labels too long
// for their room are wrapped onto more lines at the same size. The
// SVG holds each series in a <g data-series="name"> group; the PNG carries
// the series names and colours in a tEXt chunk (see SeriesInPNG). SeriesInSVG
// and SeriesInPNG read them back, for tests and callers that check output.
package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Series is one named curve of a line chart: points (X[i], Y[i]) joined in
// the given order. X and Y must have equal lengths; an empty series is drawn
// as nothing but still appears in the legend.
type Series struct {
	Name string
	X, Y []float64
}

// Bar is one category of a bar chart: one value per name in
// Chart.BarSeries, drawn as a group of adjacent bars.
type Bar struct {
	Category string
	Values   []float64
}

// Mark is a dashed reference line with a label: vertical at x = At, or
// horizontal at y = At. On a bar chart a vertical mark's At is a category
// index (0 is the centre of the first category). The axis ranges are
// widened so that every mark is visible.
type Mark struct {
	Vertical bool
	At       float64
	Label    string
}

// Chart describes one chart. It is a line chart (Series) or, when Bars is
// non-empty, a grouped bar chart with the categories along the x axis and
// one bar per BarSeries name in each group; setting both is an error.
type Chart struct {
	Title, XLabel, YLabel string

	// LogX and LogY make an axis logarithmic, with ticks at powers of ten
	// (or at 1-2-5 steps on an axis shorter than a decade). Every value on
	// such an axis must be > 0. LogX is not allowed on a bar chart.
	LogX, LogY bool

	// XTicks and YTicks, when non-nil, replace the automatic tick values
	// (for example powers of two for message sizes); the axis range is
	// widened to include them. XTicks is not allowed on a bar chart.
	XTicks, YTicks []float64

	// XTickFormat and YTickFormat, when non-nil, turn a tick value into
	// its label (see SizeLabel); the default prints plain decimals.
	XTickFormat, YTickFormat func(float64) string

	Series    []Series
	Bars      []Bar
	BarSeries []string // names of the bars in each group, for the legend
	Marks     []Mark
}

// Width and Height are the size of every chart, in pixels (PNG) or user
// units (SVG).
const (
	Width  = 800
	Height = 500
)

// palette is the fixed series palette, in series order (Tableau 10).
var palette = [...]color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0xe3, 0x77, 0xc2, 0xff}, // pink
	{0xbc, 0xbd, 0x22, 0xff}, // olive
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
	{0x7f, 0x7f, 0x7f, 0xff}, // grey
}

// Colours of everything that is not a series; none of them is in palette,
// so that a palette colour found in a PNG can only come from its series.
var (
	colBackground = color.RGBA{0xff, 0xff, 0xff, 0xff}
	colText       = color.RGBA{0x22, 0x22, 0x22, 0xff}
	colAxis       = color.RGBA{0x33, 0x33, 0x33, 0xff}
	colGrid       = color.RGBA{0xe3, 0xe3, 0xe3, 0xff}
	colMinorGrid  = color.RGBA{0xf3, 0xf3, 0xf3, 0xff}
	colMark       = color.RGBA{0x55, 0x55, 0x55, 0xff}
)

// SVG writes the chart as an SVG document. Nothing is written if the chart
// is invalid.
func (c *Chart) SVG(w io.Writer) error {
	sc, err := c.layout()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	writeSVG(&buf, sc)
	_, err = w.Write(buf.Bytes())
	return err
}

// PNG writes the chart as a PNG image of Width x Height pixels, with a tEXt
// chunk naming its series (see SeriesInPNG). Nothing is written if the chart
// is invalid.
func (c *Chart) PNG(w io.Writer) error {
	sc, err := c.layout()
	if err != nil {
		return err
	}
	data, err := encodePNG(sc)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// SizeLabel formats a byte count with binary suffixes, for use as a tick
// formatter: 4, 64, 1K, 1.5K, 64K, 1M, 2G.
func SizeLabel(v float64) string {
	units := [...]struct {
		div    float64
		suffix string
	}{{1 << 40, "T"}, {1 << 30, "G"}, {1 << 20, "M"}, {1 << 10, "K"}}
	for _, u := range units {
		if math.Abs(v) >= u.div {
			return trimNum(v/u.div) + u.suffix
		}
	}
	return trimNum(v)
}

// trimNum prints v with at most two decimals and no trailing zeros.
func trimNum(v float64) string {
	v = math.Round(v*100) / 100
	if v == 0 {
		v = 0 // no "-0"
	}
	return fmt.Sprint(v)
}

// validate reports the first problem that makes c impossible to draw.
func (c *Chart) validate() error {
	bar := len(c.Bars) > 0
	switch {
	case bar && len(c.Series) > 0:
		return errors.New("plot: chart has both Series and Bars")
	case !bar && len(c.Series) == 0:
		return errors.New("plot: empty chart: no Series and no Bars")
	case bar && len(c.BarSeries) == 0:
		return errors.New("plot: bar chart without BarSeries names")
	case bar && c.LogX:
		return errors.New("plot: LogX on a bar chart")
	case bar && c.XTicks != nil:
		return errors.New("plot: XTicks on a bar chart")
	case !bar && len(c.BarSeries) > 0:
		return errors.New("plot: BarSeries without Bars")
	}
	n := len(c.Series)
	if bar {
		n = len(c.BarSeries)
	}
	if n > len(palette) {
		return fmt.Errorf("plot: %d series, at most %d can have distinct colours", n, len(palette))
	}
	for _, s := range []struct{ what, s string }{{"title", c.Title}, {"x label", c.XLabel}, {"y label", c.YLabel}} {
		if err := checkText(s.what, s.s); err != nil {
			return err
		}
	}
	for i, s := range c.Series {
		what := fmt.Sprintf("series %d (%q)", i, s.Name)
		if err := checkText(what+" name", s.Name); err != nil {
			return err
		}
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plot: %s has %d X values and %d Y values", what, len(s.X), len(s.Y))
		}
		if err := checkValues(what+" X", s.X, c.LogX); err != nil {
			return err
		}
		if err := checkValues(what+" Y", s.Y, c.LogY); err != nil {
			return err
		}
	}
	for i, name := range c.BarSeries {
		if err := checkText(fmt.Sprintf("bar series %d name", i), name); err != nil {
			return err
		}
	}
	for i, b := range c.Bars {
		what := fmt.Sprintf("bar %d (%q)", i, b.Category)
		if err := checkText(what+" category", b.Category); err != nil {
			return err
		}
		if len(b.Values) != len(c.BarSeries) {
			return fmt.Errorf("plot: %s has %d values for %d bar series", what, len(b.Values), len(c.BarSeries))
		}
		if err := checkValues(what, b.Values, c.LogY); err != nil {
			return err
		}
	}
	for i, m := range c.Marks {
		what := fmt.Sprintf("mark %d (%q)", i, m.Label)
		if err := checkText(what+" label", m.Label); err != nil {
			return err
		}
		log := c.LogY
		if m.Vertical {
			log = c.LogX
		}
		if err := checkValues(what, []float64{m.At}, log); err != nil {
			return err
		}
		if bar && m.Vertical && (m.At < -0.5 || m.At > float64(len(c.Bars))-0.5) {
			return fmt.Errorf("plot: %s: category index %g outside the %d categories", what, m.At, len(c.Bars))
		}
	}
	if err := checkValues("XTicks", c.XTicks, c.LogX); err != nil {
		return err
	}
	return checkValues("YTicks", c.YTicks, c.LogY)
}

// checkValues rejects NaN, infinities and, on a log axis, values <= 0.
func checkValues(what string, vs []float64, log bool) error {
	for i, v := range vs {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("plot: %s[%d] is %v", what, i, v)
		case log && v <= 0:
			return fmt.Errorf("plot: %s[%d] is %v, not > 0 on a log axis", what, i, v)
		}
	}
	return nil
}

// checkText rejects invalid UTF-8 and control characters, which neither XML
// nor the PNG text chunk could carry back unchanged.
func checkText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("plot: %s is not valid UTF-8", what)
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return fmt.Errorf("plot: %s has control character %U", what, r)
	}
	return nil
}
