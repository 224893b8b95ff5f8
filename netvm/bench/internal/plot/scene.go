package plot

import (
	"errors"
	"image/color"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text sizes, as multiples of the 6x8 font cell (SVG: font-size 10*scale).
const (
	titleScale  = 2
	labelScale  = 2 // axis labels
	tickScale   = 2 // tick and category labels
	legendScale = 2
	markScale   = 2
	markerSize  = 12 // outer size of an outline marker, pixels, brush included
	dotSize     = 6  // side of a filled square marker, pixels
	lineGap     = 3  // pixels between the lines of a wrapped label
)

// kind is the type of a drawing primitive.
type kind uint8

const (
	kLine     kind = iota // pts[0] to pts[1]
	kPolyline             // through pts
	kRect                 // filled x, y, w, h
	kText                 // text at x, y (see item)
)

type pt struct{ x, y float64 }

// item is one drawing primitive in pixel coordinates. A horizontal text has
// its top-left corner at (x, y); a vertical one (reading upwards) has its
// top-left corner at (x, y) of the unrotated text, i.e. its left edge at x
// and its first character's bottom at y.
type item struct {
	kind     kind
	pts      []pt
	x, y     float64
	w, h     float64
	col      color.RGBA
	width    int   // line width, 1 or 2
	dash     []int // dash pattern (on, off, ... in pixels along the line); nil: solid
	text     string
	scale    int
	vertical bool
	bold     bool // drawn twice, one pixel apart (PNG); font-weight bold (SVG)
}

// group is a run of items drawn together: one <g> in the SVG.
type group struct {
	class  string
	series int // index into scene.names, or -1
	items  []item
}

func (g *group) add(it item) { g.items = append(g.items, it) }

func (g *group) line(x0, y0, x1, y1 float64, col color.RGBA, width int, dash []int) {
	g.add(item{kind: kLine, pts: []pt{{x0, y0}, {x1, y1}}, col: col, width: width, dash: dash})
}

func (g *group) rect(x, y, w, h float64, col color.RGBA) {
	g.add(item{kind: kRect, x: x, y: y, w: w, h: h, col: col})
}

func (g *group) text(x, y float64, s string, scale int, col color.RGBA) {
	g.add(item{kind: kText, x: x, y: y, text: s, scale: scale, col: col})
}

// scene is a laid-out chart.
type scene struct {
	title  string
	names  []string     // series names, in order
	colors []color.RGBA // their colours
	groups []*group
}

func (s *scene) group(class string, series int) *group {
	g := &group{class: class, series: series}
	s.groups = append(s.groups, g)
	return g
}

// textW is the drawn width of s at scale, in pixels.
func textW(s string, scale int) int {
	n := utf8.RuneCountInString(s)
	if n == 0 {
		return 0
	}
	return (n*advance - 1) * scale
}

// textH is the height of a line of text at scale, descender included.
func textH(scale int) int { return glyphH * scale }

// fit shortens s with ".." until it is at most maxW pixels wide at scale.
func fit(s string, scale, maxW int) string {
	if textW(s, scale) <= maxW {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && textW(string(r)+"..", scale) > maxW {
		r = r[:len(r)-1]
	}
	if len(r) == 0 {
		return ""
	}
	return string(r) + ".."
}

// sanitize replaces invalid UTF-8 and control characters (from a caller's
// tick formatter) with '?'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}

// thin returns the smallest k such that labelling every k-th tick (starting
// with the first) leaves at least gap pixels between neighbouring labels;
// pos are the label centres (ascending or descending), size their extents.
func thin(pos []float64, size []int, gap float64) int {
	for k := 1; k < len(pos); k++ {
		ok := true
		for i := k; i < len(pos); i += k {
			if math.Abs(pos[i]-pos[i-k]) < float64(size[i]+size[i-k])/2+gap {
				ok = false
				break
			}
		}
		if ok {
			return k
		}
	}
	return max(1, len(pos))
}

// layout validates the chart and lays it out: the axes' ranges, the
// margins and plot area, then the groups in drawing order (grid, axes and
// tick labels, titles, data, reference marks, legend).
func (c *Chart) layout() (*scene, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	sc := &scene{title: c.Title}
	if len(c.Bars) > 0 {
		sc.names = c.BarSeries
	} else {
		for _, s := range c.Series {
			sc.names = append(sc.names, s.Name)
		}
	}
	for i := range sc.names {
		sc.colors = append(sc.colors, palette[i])
	}
	xAx, yAx, err := c.axes()
	if err != nil {
		return nil, err
	}
	a := c.measure(sc, xAx, yAx)
	a.drawGrid(sc)
	labels := a.drawAxes(sc)
	a.drawTitles(labels)
	a.drawData(sc)
	a.drawMarks(sc)
	a.drawLegend(sc)
	return sc, nil
}

// axes makes the axes from the data and the marks (no x axis for a bar
// chart: its x positions are the categories).
func (c *Chart) axes() (xAx, yAx *axis, err error) {
	bar := len(c.Bars) > 0
	var xs, ys []float64
	if bar {
		if !c.LogY {
			ys = append(ys, 0)
		}
		for _, b := range c.Bars {
			ys = append(ys, b.Values...)
		}
	} else {
		for _, s := range c.Series {
			xs = append(xs, s.X...)
			ys = append(ys, s.Y...)
		}
		if len(xs) == 0 {
			return nil, nil, errors.New("plot: no data points in any series")
		}
	}
	for _, m := range c.Marks {
		if m.Vertical {
			if !bar {
				xs = append(xs, m.At)
			}
		} else {
			ys = append(ys, m.At)
		}
	}
	if yAx, err = newAxis(ys, c.LogY, c.YTicks, 6, c.YTickFormat, 0.03); err != nil {
		return nil, nil, err
	}
	if !bar {
		if xAx, err = newAxis(xs, c.LogX, c.XTicks, 7, c.XTickFormat, 0); err != nil {
			return nil, nil, err
		}
	}
	return xAx, yAx, nil
}

// legendEntry is one legend entry: its x offset in its row, and its text.
type legendEntry struct {
	x    int
	row  int
	text string
}

// plotArea is a chart's layout: the plot area in pixels and where every
// text around it goes.
type plotArea struct {
	c                  *Chart
	bar                bool
	xAx, yAx           *axis // xAx nil for bars
	px0, px1, py0, py1 float64
	slot               float64 // a bar category's width
	title              []string
	xLines, yLines     []string   // the axis labels' lines
	catLines           [][]string // each bar category's lines
	entries            []legendEntry
	rowW               []int // the legend rows' widths
	legendTop          int
	xLabelTop          int
	swatchW, rowH      int
}

// Layout metrics, in pixels: the margin at the image's edges, and the gaps
// after a legend entry's swatch and between entries.
const (
	layoutPad           = 14
	swatchGap, entryGap = 6, 22
)

// measure finds the margins and the plot area. The y label and tick
// labels go on the left; x tick labels, x label and the legend below the
// plot area; the title above it. Labels that do not fit are wrapped onto
// more lines (the y label's lines stand side by side), so that every text
// keeps its size. The y label's room is the plot area's height, which the
// legend's rows and the category labels' lines (both wider on a narrower
// plot) decide: lay out again if the y label needs more lines than
// reserved. Legend entries flow in rows, each row centred under the plot
// area.
func (c *Chart) measure(sc *scene, xAx, yAx *axis) *plotArea {
	const pad = layoutPad
	a := &plotArea{c: c, bar: len(c.Bars) > 0, xAx: xAx, yAx: yAx}
	bar := a.bar
	yLabW := 0
	for _, l := range yAx.labels {
		yLabW = max(yLabW, textW(l, tickScale))
	}
	right := 24
	if !bar && len(xAx.labels) > 0 {
		right = max(right, textW(xAx.labels[len(xAx.labels)-1], tickScale)/2+10)
	}
	a.title = wrap(c.Title, titleScale, Width-2*pad, 2)
	top := 20
	if len(a.title) > 0 {
		top = pad + blockH(len(a.title), titleScale) + 14
	}
	a.swatchW = 36 // a line's pattern and marker
	if bar {
		a.swatchW = 24 // a square
	}
	a.rowH = textH(legendScale) + 8
	swatchW, rowH := a.swatchW, a.rowH
	var (
		plotW    int
		entries  []legendEntry
		rowW     []int
		catLines [][]string
	)
	yLines := wrap(c.YLabel, labelScale, Height, 2)
	for {
		left := pad
		if len(yLines) > 0 {
			left += blockH(len(yLines), labelScale) + 10
		}
		left += yLabW + 10
		a.px0, a.px1 = float64(left), float64(Width-right)
		plotW = int(a.px1 - a.px0)

		entries, rowW = entries[:0], rowW[:0]
		for _, name := range sc.names {
			t := fit(name, legendScale, plotW-swatchW-swatchGap)
			w := swatchW + swatchGap + textW(t, legendScale)
			if len(rowW) == 0 || rowW[len(rowW)-1]+entryGap+w > plotW {
				rowW = append(rowW, 0)
			} else {
				rowW[len(rowW)-1] += entryGap
			}
			entries = append(entries, legendEntry{x: rowW[len(rowW)-1], row: len(rowW) - 1, text: t})
			rowW[len(rowW)-1] += w
		}
		bottom := Height - pad - len(rowW)*rowH
		a.legendTop = bottom + 4
		a.xLines = wrap(c.XLabel, labelScale, plotW, 2)
		if len(a.xLines) > 0 {
			bottom -= blockH(len(a.xLines), labelScale) + 10
		}
		a.xLabelTop = bottom + 4
		tickLines := 1
		if bar {
			catLines = catLines[:0]
			slot := float64(plotW) / float64(len(c.Bars))
			for _, b := range c.Bars {
				l := wrap(b.Category, tickScale, int(slot)-6, 3)
				catLines = append(catLines, l)
				tickLines = max(tickLines, len(l))
			}
		}
		bottom -= blockH(tickLines, tickScale) + 13
		a.py0, a.py1 = float64(top), float64(bottom)
		l := wrap(c.YLabel, labelScale, bottom-top, 2)
		if len(l) <= len(yLines) {
			yLines = l
			break
		}
		yLines = l
	}
	a.yLines, a.entries, a.rowW, a.catLines = yLines, entries, rowW, catLines
	yAx.p0, yAx.p1 = a.py1, a.py0
	if xAx != nil {
		xAx.p0, xAx.p1 = a.px0, a.px1
	}
	if bar {
		a.slot = (a.px1 - a.px0) / float64(len(c.Bars))
	}
	return a
}

func inside(p, a, b float64) bool { return p > a+0.5 && p < b-0.5 }

// drawGrid draws the minor, then the major grid lines.
func (a *plotArea) drawGrid(sc *scene) {
	xAx, yAx, px0, px1, py0, py1 := a.xAx, a.yAx, a.px0, a.px1, a.py0, a.py1
	grid := sc.group("grid", -1)
	if xAx != nil {
		for _, t := range xAx.minor {
			if x := math.Round(xAx.pos(t)); inside(x, px0, px1) {
				grid.line(x, py0, x, py1, colMinorGrid, 1, nil)
			}
		}
	}
	for _, t := range yAx.minor {
		if y := math.Round(yAx.pos(t)); inside(y, py0, py1) {
			grid.line(px0, y, px1, y, colMinorGrid, 1, nil)
		}
	}
	if xAx != nil {
		for _, t := range xAx.ticks {
			if x := math.Round(xAx.pos(t)); inside(x, px0, px1) {
				grid.line(x, py0, x, py1, colGrid, 1, nil)
			}
		}
	}
	for _, t := range yAx.ticks {
		if y := math.Round(yAx.pos(t)); inside(y, py0, py1) {
			grid.line(px0, y, px1, y, colGrid, 1, nil)
		}
	}
}

// drawAxes draws the frame, the tick marks and the tick labels (for bars,
// the categories); it returns the labels' group, which the titles join.
func (a *plotArea) drawAxes(sc *scene) *group {
	c, bar, xAx, yAx, px0, px1, py0, py1 := a.c, a.bar, a.xAx, a.yAx, a.px0, a.px1, a.py0, a.py1
	axes := sc.group("axes", -1)
	axes.line(px0, py0, px1, py0, colAxis, 1, nil)
	axes.line(px0, py1, px1, py1, colAxis, 1, nil)
	axes.line(px0, py0, px0, py1, colAxis, 1, nil)
	axes.line(px1, py0, px1, py1, colAxis, 1, nil)
	labels := sc.group("labels", -1)
	tickTop := py1 + 10
	{
		var pos []float64
		var size []int
		for _, t := range yAx.ticks {
			y := math.Round(yAx.pos(t))
			axes.line(px0-5, y, px0-1, y, colAxis, 1, nil)
			pos, size = append(pos, y), append(size, textH(tickScale))
		}
		k := thin(pos, size, 4)
		for i := 0; i < len(pos); i += k {
			l := yAx.labels[i]
			labels.text(px0-8-float64(textW(l, tickScale)), pos[i]-math.Floor(float64(ascent*tickScale)/2), l, tickScale, colText)
		}
	}
	if xAx != nil {
		var pos []float64
		var size []int
		for i, t := range xAx.ticks {
			x := math.Round(xAx.pos(t))
			axes.line(x, py1+1, x, py1+5, colAxis, 1, nil)
			pos, size = append(pos, x), append(size, textW(xAx.labels[i], tickScale))
		}
		k := thin(pos, size, 10)
		for i := 0; i < len(pos); i += k {
			w := float64(size[i])
			x := min(max(pos[i]-math.Floor(w/2), 2), Width-2-w)
			labels.text(x, tickTop, xAx.labels[i], tickScale, colText)
		}
	}
	if bar {
		slot := a.slot
		for i := range c.Bars {
			cx := math.Round(px0 + (float64(i)+0.5)*slot)
			axes.line(cx, py1+1, cx, py1+5, colAxis, 1, nil)
			for k, l := range a.catLines[i] {
				y := tickTop + float64(k*(textH(tickScale)+lineGap))
				labels.text(cx-math.Floor(float64(textW(l, tickScale))/2), y, l, tickScale, colText)
			}
		}
	}
	return labels
}

// drawTitles draws the title and the axis labels, each line centred on
// the plot area.
func (a *plotArea) drawTitles(labels *group) {
	const pad = layoutPad
	px0, px1, py0, py1 := a.px0, a.px1, a.py0, a.py1
	for k, t := range a.title {
		w := float64(textW(t, titleScale))
		x := min(max(math.Round((px0+px1-w)/2), pad), Width-pad-w)
		y := float64(pad + k*(textH(titleScale)+lineGap))
		labels.add(item{kind: kText, x: x, y: y, text: t, scale: titleScale, col: colText, bold: true})
	}
	for k, t := range a.xLines {
		w := float64(textW(t, labelScale))
		x := min(max(math.Round((px0+px1-w)/2), pad), Width-pad-w)
		labels.text(x, float64(a.xLabelTop+k*(textH(labelScale)+lineGap)), t, labelScale, colText)
	}
	for k, t := range a.yLines {
		w := float64(textW(t, labelScale))
		y := min(max(math.Round((py0+py1+w)/2), pad+w), py1)
		x := float64(pad + k*(textH(labelScale)+lineGap))
		labels.add(item{kind: kText, x: x, y: y, text: t, scale: labelScale, col: colText, vertical: true})
	}
}

// drawData draws the bars or the series' lines and markers.
func (a *plotArea) drawData(sc *scene) {
	c, xAx, yAx, px0, slot := a.c, a.xAx, a.yAx, a.px0, a.slot
	if a.bar {
		n := float64(len(c.BarSeries))
		groupW := slot * 0.8
		bw := groupW / n
		gap := 0.0
		if bw >= 6 {
			gap = 1
		}
		base := yAx.lo
		if !c.LogY {
			base = 0
		}
		yb := math.Round(yAx.pos(base))
		for j := range c.BarSeries {
			g := sc.group("series", j)
			for i, b := range c.Bars {
				x0 := math.Round(px0 + (float64(i)+0.5)*slot - groupW/2 + float64(j)*bw)
				x1 := math.Round(px0+(float64(i)+0.5)*slot-groupW/2+float64(j+1)*bw) - gap
				y := math.Round(yAx.pos(b.Values[j]))
				if x1 > x0 && y != yb {
					g.rect(x0, min(y, yb), x1-x0, math.Abs(y-yb), sc.colors[j])
				}
			}
		}
	} else {
		for j, s := range c.Series {
			g := sc.group("series", j)
			var pts []pt
			for i := range s.X {
				pts = append(pts, pt{xAx.pos(s.X[i]), yAx.pos(s.Y[i])})
			}
			if len(pts) >= 2 {
				g.add(item{kind: kPolyline, pts: pts, col: sc.colors[j], width: 2, dash: seriesDash[j]})
			}
			for _, p := range pts {
				g.marker(shape(j%int(numShapes)), p.x, p.y, sc.colors[j], len(pts) > 50)
			}
		}
	}
}

// drawMarks draws the reference marks, on top of the data. Each label goes
// to the first of a few places along its line where it covers no data and
// no other label (or to the first place if all are taken), on a white box.
func (a *plotArea) drawMarks(sc *scene) {
	c, bar, xAx, yAx, px0, px1, py0, py1, slot := a.c, a.bar, a.xAx, a.yAx, a.px0, a.px1, a.py0, a.py1, a.slot
	if len(c.Marks) > 0 {
		g := sc.group("marks", -1)
		lh := float64(textH(markScale))
		var taken []box
		for _, m := range c.Marks {
			w := float64(textW(m.Label, markScale))
			var cands []pt
			if m.Vertical {
				x := 0.0
				if bar {
					x = px0 + (m.At+0.5)*slot
				} else {
					x = xAx.pos(m.At)
				}
				x = math.Round(x)
				g.line(x, py0+1, x, py1-1, colMark, 1, markDash)
				for k := range 4 {
					d := float64(k) * (lh + 6)
					for _, y := range []float64{py0 + 5 + d, py1 - 5 - lh - d} {
						cands = append(cands, pt{x + 6, y}, pt{x - 6 - w, y})
					}
				}
			} else {
				y := math.Round(yAx.pos(m.At))
				g.line(px0+1, y, px1-1, y, colMark, 1, markDash)
				for _, ly := range []float64{y - 5 - lh, y + 5} {
					for _, f := range []float64{1, 0, 0.5, 0.75, 0.25} {
						cands = append(cands, pt{math.Round(px0 + 6 + f*(px1-px0-12-w)), ly})
					}
				}
			}
			if m.Label == "" {
				continue
			}
			var best *box
			bestScore := -1
			for _, p := range cands {
				b := box{p.x - 2, p.y - 2, p.x + w + 2, p.y + lh + 1}
				if b.x0 < px0+2 || b.x1 > px1-2 || b.y0 < py0+2 || b.y1 > py1-2 {
					continue
				}
				score := 0 // 2: free; 1: covers data but no other label
				if !b.overlapsAny(taken) {
					score = 1
					if !sc.covers(b) {
						score = 2
					}
				}
				if score > bestScore {
					best, bestScore = &b, score
				}
				if score == 2 {
					break
				}
			}
			if best == nil { // no room inside the plot: clamp the first place
				p := cands[0]
				b := box{p.x - 2, p.y - 2, p.x + w + 2, p.y + lh + 1}
				b = b.shift(max(0, px0+2-b.x0)+min(0, px1-2-b.x1), max(0, py0+2-b.y0)+min(0, py1-2-b.y1))
				best = &b
			}
			taken = append(taken, *best)
			g.rect(best.x0, best.y0, best.x1-best.x0, best.y1-best.y0, colBackground)
			g.text(best.x0+2, best.y0+2, m.Label, markScale, colMark)
		}
	}
}

// drawLegend draws the legend's entries, each row centred under the plot
// area.
func (a *plotArea) drawLegend(sc *scene) {
	px0, px1, swatchW, rowH, rowW, legendTop := a.px0, a.px1, a.swatchW, a.rowH, a.rowW, a.legendTop
	lg := sc.group("legend", -1)
	for i, e := range a.entries {
		x := math.Round((px0+px1-float64(rowW[e.row]))/2) + float64(e.x)
		cy := float64(legendTop + e.row*rowH + rowH/2)
		col, sw := sc.colors[i], float64(swatchW)
		if a.bar {
			lg.rect(x+6, cy-6, 12, 12, col)
		} else {
			lg.line(x+1, cy, x+sw-1, cy, col, 2, seriesDash[i])
			lg.marker(shape(i%int(numShapes)), x+sw/2, cy, col, false)
		}
		lg.text(x+sw+swatchGap, cy-math.Floor(float64(ascent*legendScale)/2), e.text, legendScale, colText)
	}
}

// box is an axis-aligned rectangle [x0, x1] x [y0, y1] in pixels.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) shift(dx, dy float64) box { return box{b.x0 + dx, b.y0 + dy, b.x1 + dx, b.y1 + dy} }

func (b box) overlaps(o box) bool {
	return b.x0 <= o.x1 && o.x0 <= b.x1 && b.y0 <= o.y1 && o.y0 <= b.y1
}

func (b box) overlapsAny(bs []box) bool {
	for _, o := range bs {
		if b.overlaps(o) {
			return true
		}
	}
	return false
}

// covers reports whether any series item drawn so far touches b.
func (sc *scene) covers(b box) bool {
	for _, g := range sc.groups {
		if g.series < 0 {
			continue
		}
		for _, it := range g.items {
			switch it.kind {
			case kRect:
				if b.overlaps(box{it.x, it.y, it.x + it.w, it.y + it.h}) {
					return true
				}
			case kLine, kPolyline:
				for i := 1; i < len(it.pts); i++ {
					p, q := it.pts[i-1], it.pts[i]
					if !b.overlaps(box{min(p.x, q.x) - 1, min(p.y, q.y) - 1, max(p.x, q.x) + 1, max(p.y, q.y) + 1}) {
						continue
					}
					n := math.Ceil(max(math.Abs(q.x-p.x), math.Abs(q.y-p.y)))
					for k := 0.0; k <= n; k++ {
						t := k / max(n, 1)
						x, y := p.x+t*(q.x-p.x), p.y+t*(q.y-p.y)
						if x >= b.x0-1 && x <= b.x1+1 && y >= b.y0-1 && y <= b.y1+1 {
							return true
						}
					}
				}
			}
		}
	}
	return false
}
