package plot

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sizes returns 4, 8, ..., 1M.
func sizes() []float64 {
	var s []float64
	for v := 4.0; v <= 1<<20; v *= 2 {
		s = append(s, v)
	}
	return s
}

// lineChart is a latency/throughput-like chart on a log x axis, with an
// empty series, awkward names and both kinds of marks.
func lineChart() *Chart {
	x := sizes()
	var a, b []float64
	for _, s := range x {
		a = append(a, 150*s/(s+3000))
		b = append(b, 155.46*s/(s+2000))
	}
	var ticks []float64
	for v := 4.0; v <= 1<<20; v *= 4 {
		ticks = append(ticks, v)
	}
	return &Chart{
		Title:  "Bandwidth vs message size",
		XLabel: "message size (bytes)",
		YLabel: "MB/s",
		LogX:   true, XTicks: ticks, XTickFormat: SizeLabel,
		Series: []Series{
			{Name: "netvm", X: x, Y: a},
			{Name: `paper <VMMC> & "GM"`, X: x, Y: b},
			{Name: "no data yet"},
			{Name: "one point, µs", X: []float64{64}, Y: []float64{20}},
		},
		Marks: []Mark{
			{At: 155.46, Label: "paper 155.46 MB/s"},
			{Vertical: true, At: 4096, Label: "page"},
		},
	}
}

func barChart() *Chart {
	return &Chart{
		Title:     "Notification cost by detection mode",
		YLabel:    "us",
		BarSeries: []string{"simulated", "paper"},
		Bars: []Bar{
			{"polling", []float64{10, 5}},
			{"interrupt", []float64{20, 0}},
			{"hybrid", []float64{4.5, 6}},
		},
		Marks: []Mark{{At: 12, Label: "budget"}, {Vertical: true, At: 1, Label: "here"}},
	}
}

func names(c *Chart) []string {
	if len(c.Bars) > 0 {
		return c.BarSeries
	}
	var n []string
	for _, s := range c.Series {
		n = append(n, s.Name)
	}
	return n
}

func render(t *testing.T, c *Chart) (svg, pngData []byte) {
	t.Helper()
	var a, b bytes.Buffer
	if err := c.SVG(&a); err != nil {
		t.Fatalf("SVG: %v", err)
	}
	if err := c.PNG(&b); err != nil {
		t.Fatalf("PNG: %v", err)
	}
	return a.Bytes(), b.Bytes()
}

// svgTexts returns the character data of every <text> element.
func svgTexts(t *testing.T, svg []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var out []string
	in := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Local == "text"
			if in {
				out = append(out, "")
			}
		case xml.CharData:
			if in {
				out[len(out)-1] += string(tok)
			}
		case xml.EndElement:
			in = false
		}
	}
}

func TestSVGHoldsEverySeries(t *testing.T) {
	for _, c := range []*Chart{lineChart(), barChart()} {
		svg, _ := render(t, c)
		got, err := SeriesInSVG(bytes.NewReader(svg))
		if err != nil {
			t.Fatalf("%s: %v", c.Title, err)
		}
		if !slices.Equal(got, names(c)) {
			t.Errorf("%s: SeriesInSVG = %q, want %q", c.Title, got, names(c))
		}
		texts := svgTexts(t, svg)
		for _, want := range append(names(c), c.Title) {
			if !slices.Contains(texts, want) {
				t.Errorf("%s: no <text> %q (legend/title) in %q", c.Title, want, texts)
			}
		}
	}
}

func TestSVGTickLabels(t *testing.T) {
	svg, _ := render(t, lineChart())
	texts := svgTexts(t, svg)
	for _, want := range []string{"4", "64", "1K", "16K", "256K", "1M", "paper 155.46 MB/s", "page", "message size (bytes)", "MB/s"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no <text> %q in %q", want, texts)
		}
	}
}

func TestPNGHoldsEverySeries(t *testing.T) {
	for _, c := range []*Chart{lineChart(), barChart()} {
		_, data := render(t, c)
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != Width || b.Dy() != Height {
			t.Errorf("%s: PNG is %v, want %dx%d", c.Title, b, Width, Height)
		}
		// The chunk sits right after IHDR.
		if got := string(data[37:41]); got != "tEXt" {
			t.Errorf("%s: chunk after IHDR is %q, want tEXt", c.Title, got)
		}
		got, err := SeriesInPNG(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", c.Title, err)
		}
		if !slices.Equal(got, names(c)) {
			t.Errorf("%s: SeriesInPNG = %q, want %q", c.Title, got, names(c))
		}
	}
}

// recolour returns data with every pixel of colour from painted to, encoded
// again with image/png and the original series chunk spliced back in.
func recolour(t *testing.T, data []byte, from, to color.RGBA) []byte {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	m := img.(*image.RGBA)
	n := 0
	for i := 0; i < len(m.Pix); i += 4 {
		if (color.RGBA{m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3]}) == from {
			m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = to.R, to.G, to.B, to.A
			n++
		}
	}
	if n == 0 {
		t.Fatalf("colour %v not in the image to begin with", from)
	}
	text, err := findText(data, seriesKeyword)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	out, err := spliceText(buf.Bytes(), seriesKeyword, text)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPNGRejectsMissingColour(t *testing.T) {
	_, data := render(t, lineChart())
	// Sanity: recolouring a non-series colour keeps the PNG valid.
	if _, err := SeriesInPNG(bytes.NewReader(recolour(t, data, colGrid, colBackground))); err != nil {
		t.Fatalf("after removing the grid: %v", err)
	}
	// The empty series is only in the legend; removing its colour must fail.
	for i := range 4 {
		_, err := SeriesInPNG(bytes.NewReader(recolour(t, data, palette[i], colBackground)))
		if err == nil || !strings.Contains(err.Error(), "appears in no pixel") {
			t.Errorf("series %d colour removed: err = %v, want a missing-colour error", i, err)
		}
	}
}

func TestPNGRejectsForeignImages(t *testing.T) {
	// A PNG from image/png alone has no series chunk.
	img := image.NewRGBA(image.Rect(0, 0, 10, 10))
	var plain bytes.Buffer
	if err := png.Encode(&plain, img); err != nil {
		t.Fatal(err)
	}
	if _, err := SeriesInPNG(bytes.NewReader(plain.Bytes())); err == nil {
		t.Error("PNG without a series chunk accepted")
	}
	// A chunk naming a colour the pixels do not have.
	fake, err := spliceText(plain.Bytes(), seriesKeyword, hex(palette[0])+` "ghost"`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SeriesInPNG(bytes.NewReader(fake)); err == nil {
		t.Error("PNG lacking the series colour accepted")
	}
	// A malformed chunk.
	bad, _ := spliceText(plain.Bytes(), seriesKeyword, "blue ghost")
	if _, err := SeriesInPNG(bytes.NewReader(bad)); err == nil {
		t.Error("malformed series chunk accepted")
	}
	// Not a PNG, or a damaged one.
	_, data := render(t, barChart())
	for name, in := range map[string][]byte{
		"empty":     nil,
		"svg":       []byte("<svg/>"),
		"truncated": data[:len(data)/2],
		"bad crc":   append(append([]byte{}, data[:40]...), append([]byte{data[40] ^ 1}, data[41:]...)...),
	} {
		if _, err := SeriesInPNG(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSeriesInSVGRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":        "",
		"not xml":      "hello",
		"unclosed":     `<svg xmlns="http://www.w3.org/2000/svg"><g data-series="a">`,
		"mismatched":   `<svg xmlns="http://www.w3.org/2000/svg"><g></svg></g>`,
		"html root":    `<html xmlns="http://www.w3.org/2000/svg"><g data-series="a"/></html>`,
		"no namespace": `<svg><g data-series="a"/></svg>`,
		"two roots":    `<svg xmlns="http://www.w3.org/2000/svg"/><svg xmlns="http://www.w3.org/2000/svg"/>`,
		"trailing":     `<svg xmlns="http://www.w3.org/2000/svg"/>junk`,
	} {
		if got, err := SeriesInSVG(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted, series %q", name, got)
		}
	}
	got, err := SeriesInSVG(strings.NewReader(`<svg xmlns="http://www.w3.org/2000/svg"><g data-series="a &amp; b"><title>x</title></g><g class="legend"/></svg>`))
	if err != nil || !slices.Equal(got, []string{"a & b"}) {
		t.Errorf("minimal SVG: %q, %v", got, err)
	}
}

func TestDeterministic(t *testing.T) {
	for _, mk := range []func() *Chart{lineChart, barChart} {
		svg1, png1 := render(t, mk())
		svg2, png2 := render(t, mk())
		if d := cmp.Diff(string(svg1), string(svg2)); d != "" {
			t.Errorf("%s: SVG differs between runs (-first +second):\n%s", mk().Title, d)
		}
		if !bytes.Equal(png1, png2) {
			t.Errorf("%s: PNG differs between runs", mk().Title)
		}
	}
}

func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	one := []float64{1}
	cases := map[string]*Chart{
		"empty":             {},
		"only titles":       {Title: "t", XLabel: "x"},
		"no points":         {Series: []Series{{Name: "a"}, {Name: "b"}}},
		"mismatched":        {Series: []Series{{X: []float64{1, 2}, Y: one}}},
		"NaN x":             {Series: []Series{{X: []float64{nan}, Y: one}}},
		"NaN y":             {Series: []Series{{X: one, Y: []float64{nan}}}},
		"Inf y":             {Series: []Series{{X: one, Y: []float64{-inf}}}},
		"log x zero":        {LogX: true, Series: []Series{{X: []float64{0, 1}, Y: []float64{1, 2}}}},
		"log y negative":    {LogY: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, -2}}}},
		"log y mark":        {LogY: true, Series: []Series{{X: one, Y: one}}, Marks: []Mark{{At: 0}}},
		"log x tick":        {LogX: true, Series: []Series{{X: one, Y: one}}, XTicks: []float64{0, 1}},
		"NaN mark":          {Series: []Series{{X: one, Y: one}}, Marks: []Mark{{Vertical: true, At: nan}}},
		"Inf tick":          {Series: []Series{{X: one, Y: one}}, YTicks: []float64{inf}},
		"huge range":        {Series: []Series{{X: []float64{-1e308, 1e308}, Y: []float64{1, 2}}}},
		"control char":      {Series: []Series{{Name: "a\nb", X: one, Y: one}}},
		"bad utf8":          {Title: "\xff", Series: []Series{{X: one, Y: one}}},
		"too many series":   {Series: make([]Series, len(palette)+1)},
		"series and bars":   {Series: []Series{{X: one, Y: one}}, Bars: []Bar{{"a", one}}, BarSeries: []string{"s"}},
		"bars no names":     {Bars: []Bar{{"a", one}}},
		"bars short":        {Bars: []Bar{{"a", one}}, BarSeries: []string{"s", "t"}},
		"bars NaN":          {Bars: []Bar{{"a", []float64{nan}}}, BarSeries: []string{"s"}},
		"bars log zero":     {LogY: true, Bars: []Bar{{"a", []float64{0}}}, BarSeries: []string{"s"}},
		"bars log x":        {LogX: true, Bars: []Bar{{"a", one}}, BarSeries: []string{"s"}},
		"bars x ticks":      {XTicks: one, Bars: []Bar{{"a", one}}, BarSeries: []string{"s"}},
		"bars mark outside": {Bars: []Bar{{"a", one}}, BarSeries: []string{"s"}, Marks: []Mark{{Vertical: true, At: 3}}},
		"names w/o bars":    {Series: []Series{{X: one, Y: one}}, BarSeries: []string{"s"}},
	}
	for name, c := range cases {
		var svg, pngBuf bytes.Buffer
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			if err := c.SVG(&svg); err == nil {
				t.Errorf("%s: SVG accepted", name)
			}
			if err := c.PNG(&pngBuf); err == nil {
				t.Errorf("%s: PNG accepted", name)
			}
		}()
		if svg.Len()+pngBuf.Len() > 0 {
			t.Errorf("%s: wrote %d+%d bytes despite the error", name, svg.Len(), pngBuf.Len())
		}
	}
}

func TestEdgeInputsDraw(t *testing.T) {
	one := []float64{1}
	for name, c := range map[string]*Chart{
		"single point":     {Series: []Series{{X: one, Y: one}}},
		"flat zero":        {Series: []Series{{X: []float64{0, 1}, Y: []float64{0, 0}}}},
		"log single point": {LogX: true, LogY: true, Series: []Series{{X: []float64{3}, Y: []float64{3}}}},
		"log narrow":       {LogY: true, Series: []Series{{X: []float64{0, 1}, Y: []float64{1.1, 1.2}}}},
		"tiny values":      {Series: []Series{{X: []float64{1e-9, 2e-9}, Y: []float64{-1e-7, 3e-7}}}},
		"large values":     {Series: []Series{{X: []float64{0, 1}, Y: []float64{1e9, 3e12}}}},
		"empty ticks":      {XTicks: []float64{}, Series: []Series{{X: one, Y: one}}},
		"negative bars":    {Bars: []Bar{{"a", []float64{-3}}, {"b", []float64{2}}}, BarSeries: []string{"s"}},
		"long names": {Title: strings.Repeat("very long title ", 20), YLabel: strings.Repeat("y", 300), XLabel: strings.Repeat("x", 300),
			Series: []Series{{Name: strings.Repeat("n", 500), X: one, Y: one}}},
		"many bars": {Bars: slices.Repeat([]Bar{{"category with a long name", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}}, 40),
			BarSeries: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}},
	} {
		svg, data := render(t, c)
		if got, err := SeriesInSVG(bytes.NewReader(svg)); err != nil || len(got) != len(names(c)) {
			t.Errorf("%s: SeriesInSVG = %q, %v", name, got, err)
		}
		if got, err := SeriesInPNG(bytes.NewReader(data)); err != nil || len(got) != len(names(c)) {
			t.Errorf("%s: SeriesInPNG = %q, %v", name, got, err)
		}
	}
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		major  []float64
	}{
		{3, 1.5e6, []float64{10, 100, 1e3, 1e4, 1e5, 1e6}},
		{0.5, 2000, []float64{1, 10, 100, 1000}},
		{1, 10, []float64{1, 10}},
		{30, 200, []float64{50, 100, 200}},
		{3, 8, []float64{3, 4, 5, 6, 7, 8}},
		{1e-3, 1e12, []float64{1e-2, 1e0, 1e2, 1e4, 1e6, 1e8, 1e10, 1e12}},
	} {
		major, _ := logTicks(tc.lo, tc.hi)
		if !slices.EqualFunc(major, tc.major, func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*b }) {
			t.Errorf("logTicks(%g, %g) = %g, want %g", tc.lo, tc.hi, major, tc.major)
		}
	}
	_, minor := logTicks(5, 500)
	if want := []float64{6, 7, 8, 9, 20, 30, 40, 50, 60, 70, 80, 90, 200, 300, 400}; !slices.Equal(minor, want) {
		t.Errorf("minor ticks of [5, 500] = %g, want %g", minor, want)
	}
	if major, _ := logTicks(1.1, 1.3); len(major) < 2 || major[0] < 1.1 || major[len(major)-1] > 1.3 {
		t.Errorf("logTicks(1.1, 1.3) = %g: want several ticks inside the range", major)
	}

	// A log axis over data from 4 to 1M: padded range, decade ticks and labels.
	a, err := newAxis([]float64{4, 1 << 20}, true, nil, 7, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !(a.lo < 4 && a.lo > 2.5 && a.hi > 1<<20 && a.hi < 1.6e6) {
		t.Errorf("log axis range [%g, %g], want just around [4, 1M]", a.lo, a.hi)
	}
	if want := []string{"10", "100", "1000", "10000", "100000", "1e6"}; !slices.Equal(a.labels, want) {
		t.Errorf("log axis labels %q, want %q", a.labels, want)
	}
	a.p0, a.p1 = 0, 100
	if d1, d2 := a.pos(100)-a.pos(10), a.pos(1e5)-a.pos(1e4); math.Abs(d1-d2) > 1e-9 || d1 <= 0 {
		t.Errorf("decades not evenly spaced: %g vs %g", d1, d2)
	}
}

func TestLinearTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		labels []string
	}{
		{0.3, 97.2, []string{"0", "20", "40", "60", "80", "100"}},
		{0, 1, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{-0.25, 0.25, []string{"-0.3", "-0.2", "-0.1", "0.0", "0.1", "0.2", "0.3"}},
		{12, 157, []string{"0", "20", "40", "60", "80", "100", "120", "140", "160"}},
		{5, 5, []string{"4.4", "4.6", "4.8", "5.0", "5.2", "5.4", "5.6"}},
		{0, 3e7, []string{"0", "5e6", "1e7", "1.5e7", "2e7", "2.5e7", "3e7"}},
	} {
		a, err := newAxis([]float64{tc.lo, tc.hi}, false, nil, 6, nil, 0)
		if err != nil {
			t.Fatalf("[%g, %g]: %v", tc.lo, tc.hi, err)
		}
		if !slices.Equal(a.labels, tc.labels) {
			t.Errorf("[%g, %g]: labels %q, want %q", tc.lo, tc.hi, a.labels, tc.labels)
		}
		if a.lo > tc.lo || a.hi < tc.hi {
			t.Errorf("[%g, %g]: axis [%g, %g] does not cover the data", tc.lo, tc.hi, a.lo, a.hi)
		}
	}
}

func TestHeadroom(t *testing.T) {
	// Bars reaching 35 get an axis to 40, not one ending on the tallest bar;
	// the zero baseline stays.
	a, err := newAxis([]float64{0, 35}, false, nil, 6, nil, 0.03)
	if err != nil {
		t.Fatal(err)
	}
	if a.lo != 0 || a.hi != 40 {
		t.Errorf("axis [%g, %g], want [0, 40]", a.lo, a.hi)
	}
	// Explicit ticks are used as given and widen the range.
	a, err = newAxis([]float64{3, 7}, false, []float64{10, 0, 5, 5}, 6, func(v float64) string { return "v" + plainLabel(v) }, 0.03)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.ticks, []float64{0, 5, 10}) || !slices.Equal(a.labels, []string{"v0", "v5", "v10"}) || a.lo != 0 || a.hi != 10 {
		t.Errorf("explicit ticks: %g %q on [%g, %g]", a.ticks, a.labels, a.lo, a.hi)
	}
}

func TestSizeLabel(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 4: "4", 64: "64", 1000: "1000", 1024: "1K", 1536: "1.5K",
		64 << 10: "64K", 1 << 20: "1M", 3 << 30: "3G", 0.5: "0.5",
	} {
		if got := SizeLabel(v); got != want {
			t.Errorf("SizeLabel(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestBarChart(t *testing.T) {
	c := barChart()
	sc, err := c.layout()
	if err != nil {
		t.Fatal(err)
	}
	// One group per bar series with one rect per non-zero value, heights
	// proportional to the values (the y axis starts at 0).
	heights := map[[2]int]float64{}
	for _, g := range sc.groups {
		if g.series < 0 {
			continue
		}
		for i, it := range g.items {
			if it.kind != kRect {
				t.Fatalf("series %d item %d is kind %d, want a rect", g.series, i, it.kind)
			}
		}
		var cat int
		for i, b := range c.Bars {
			if b.Values[g.series] == 0 {
				continue
			}
			heights[[2]int{i, g.series}] = g.items[cat].h
			cat++
		}
		if cat != len(g.items) {
			t.Errorf("series %d: %d rects for %d non-zero values", g.series, len(g.items), cat)
		}
	}
	if r := heights[[2]int{1, 0}] / heights[[2]int{0, 0}]; math.Abs(r-2) > 0.03 {
		t.Errorf("bar 20 is %.3f times bar 10, want 2", r)
	}
	// Category labels are drawn.
	svg, data := render(t, c)
	texts := svgTexts(t, svg)
	for _, b := range c.Bars {
		if !slices.Contains(texts, b.Category) {
			t.Errorf("category %q not labelled", b.Category)
		}
	}
	if _, err := SeriesInPNG(bytes.NewReader(data)); err != nil {
		t.Error(err)
	}
}

// TestLineGeometry checks that a rising series is drawn rising: its pixels
// on the left of the plot are lower than those on the right.
func TestLineGeometry(t *testing.T) {
	c := &Chart{Series: []Series{
		{Name: "up", X: []float64{0, 10}, Y: []float64{0, 10}},
		{Name: "flat", X: []float64{0, 10}, Y: []float64{5, 5}},
	}}
	_, data := render(t, c)
	img, _ := png.Decode(bytes.NewReader(data))
	m := img.(*image.RGBA)
	sc, _ := c.layout()
	legendTop := Height
	for _, g := range sc.groups {
		if g.class == "legend" {
			legendTop = int(g.items[len(g.items)-1].y) - 10
		}
	}
	var up, flat []image.Point
	for y := 0; y < legendTop; y++ {
		for x := 0; x < Width; x++ {
			switch m.RGBAAt(x, y) {
			case palette[0]:
				up = append(up, image.Pt(x, y))
			case palette[1]:
				flat = append(flat, image.Pt(x, y))
			}
		}
	}
	if len(up) < 300 || len(flat) < 300 {
		t.Fatalf("%d and %d pixels drawn, want whole 2-px lines", len(up), len(flat))
	}
	minX, maxX := up[0], up[0]
	for _, p := range up {
		if p.X < minX.X {
			minX = p
		}
		if p.X > maxX.X {
			maxX = p
		}
	}
	if minX.Y <= maxX.Y+200 {
		t.Errorf("rising series: left end %v, right end %v", minX, maxX)
	}
	ys := map[int]bool{}
	for _, p := range flat {
		ys[p.Y] = true
	}
	if len(ys) > markerSize+1 {
		t.Errorf("flat series spans %d rows", len(ys))
	}
}

func TestFont(t *testing.T) {
	for r := rune(33); r < 127; r++ {
		g := glyph(r)
		if *g == ([glyphW]byte{}) {
			t.Errorf("glyph %q is blank", r)
		}
	}
	if glyph('€') != glyph('?') || glyph(7) != glyph('?') {
		t.Error("runes outside the table are not drawn as '?'")
	}
	if textW("abc", 2) != (3*advance-1)*2 || textW("", 1) != 0 {
		t.Error("textW")
	}
	if got := fit("abcdefghij", 1, textW("abcd..", 1)); got != "abcd.." {
		t.Errorf("fit = %q", got)
	}
}

func TestThin(t *testing.T) {
	pos := []float64{0, 20, 40, 60, 80, 100}
	if k := thin(pos, []int{10, 10, 10, 10, 10, 10}, 5); k != 1 {
		t.Errorf("roomy labels thinned by %d", k)
	}
	if k := thin(pos, []int{30, 30, 30, 30, 30, 30}, 5); k != 2 {
		t.Errorf("wide labels thinned by %d, want 2", k)
	}
}

// pixelsAbove counts, per palette colour, the pixels of a PNG above row
// maxY (the plot area and its labels, without the legend).
func pixelsAbove(t *testing.T, data []byte, maxY int) map[color.RGBA]int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	m := img.(*image.RGBA)
	n := map[color.RGBA]int{}
	for y := 0; y < maxY; y++ {
		for x := 0; x < Width; x++ {
			n[m.RGBAAt(x, y)]++
		}
	}
	return n
}

// legendTop is the top of the legend's first row.
func legendTop(t *testing.T, c *Chart) int {
	t.Helper()
	sc, err := c.layout()
	if err != nil {
		t.Fatal(err)
	}
	top := Height
	for _, g := range sc.groups {
		if g.class == "legend" {
			for _, it := range g.items {
				for _, p := range it.pts {
					top = min(top, int(p.y)-markerSize)
				}
				if it.kind == kRect || it.kind == kText {
					top = min(top, int(it.y))
				}
			}
		}
	}
	return top
}

// Series that lie on top of each other (E9's NetVM and NIC page faults)
// both stay visible in the plot area, and the legend shows each one's dash
// pattern: the later one is dashed, so the earlier one shows through.
func TestOverlappingSeriesVisible(t *testing.T) {
	x, y := []float64{1, 2, 3, 4, 5, 6}, []float64{4, 9, 13, 17, 22, 22}
	c := &Chart{Series: []Series{{Name: "first", X: x, Y: y}, {Name: "second", X: x, Y: y}, {Name: "third", X: x, Y: y}}}
	_, data := render(t, c)
	n := pixelsAbove(t, data, legendTop(t, c))
	for i := range 3 {
		if n[palette[i]] < 150 {
			t.Errorf("series %d: %d pixels in the plot area, want it visible along the line", i, n[palette[i]])
		}
	}
	sc, _ := c.layout()
	var dashes [][]int
	for _, g := range sc.groups {
		if g.class == "legend" {
			for _, it := range g.items {
				if it.kind == kLine {
					dashes = append(dashes, it.dash)
				}
			}
		}
	}
	if len(dashes) != 3 || dashes[0] != nil || !slices.Equal(dashes[1], seriesDash[1]) || !slices.Equal(dashes[2], seriesDash[2]) {
		t.Errorf("legend swatches' patterns %v, want %v", dashes, seriesDash[:3])
	}
	svg, _ := render(t, c)
	if !bytes.Contains(svg, []byte(`stroke-dasharray="10 5"`)) || !bytes.Contains(svg, []byte(`stroke-dasharray="3 4"`)) {
		t.Error("SVG lacks the series' dash patterns")
	}
	// Every series has its own pattern, and pattern and shape together
	// tell every pair apart.
	for i := range seriesDash {
		for j := range i {
			if slices.Equal(seriesDash[i], seriesDash[j]) {
				t.Errorf("series %d and %d share a dash pattern", i, j)
			}
		}
	}
}

// A dashed polyline keeps its pattern's phase across corners, so that a
// series of many short segments is not drawn solid.
func TestDashAcrossCorners(t *testing.T) {
	r := raster{image.NewRGBA(image.Rect(0, 0, 100, 10))}
	col := palette[0]
	phase := 0
	for x := 0; x < 90; x += 3 { // thirty 3-pixel segments
		phase = r.line(x, 5, x+3, 5, col, 1, []int{10, 5}, phase)
	}
	painted := 0
	for x := 0; x <= 90; x++ {
		if r.img.RGBAAt(x, 5) == col {
			painted++
		}
	}
	if painted < 55 || painted > 65 { // two thirds of 91
		t.Errorf("%d of 91 pixels painted, want about two thirds", painted)
	}
	if !on([]int{10, 5}, 9) || on([]int{10, 5}, 10) || !on([]int{12, 4, 3, 4}, 17) || on([]int{12, 4, 3, 4}, 19) {
		t.Error("on")
	}
}

func TestWrap(t *testing.T) {
	w := func(n int) int { return textW(strings.Repeat("x", n), 2) }
	for _, tc := range []struct {
		s       string
		maxW, n int
		want    []string
	}{
		{"", 100, 2, nil},
		{"fits  as is", w(20), 2, []string{"fits  as is"}},
		{"round trip per 4 KiB WRITE (us)", w(30), 2, []string{"round trip per 4", "KiB WRITE (us)"}},
		{"wait queue (4 waiters)", w(20), 3, []string{"wait queue", "(4 waiters)"}},
		{"a b c d e f", w(3), 2, []string{"a b", "c.."}},
		{"unbreakableword", w(8), 2, []string{"unbrea.."}},
		{"one two", w(5), 1, []string{"one.."}},
	} {
		got := wrap(tc.s, 2, tc.maxW, tc.n)
		if !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d px, %d lines) = %q, want %q", tc.s, tc.maxW, tc.n, got, tc.want)
		}
		for _, l := range got {
			if textW(l, 2) > tc.maxW {
				t.Errorf("wrap(%q): line %q wider than %d px", tc.s, l, tc.maxW)
			}
		}
	}
}

// Axis labels, titles and category labels too long for one line keep
// their size (E5's y label was drawn at half size) and are wrapped, not
// cut (an E8 category was cut off); the wrapped lines stay inside their
// room and clear of each other.
func TestLongLabelsWrap(t *testing.T) {
	ylab := "round trip per 4 KiB WRITE of the longest kind (us)"
	for _, c := range []*Chart{
		{Title: "t", XLabel: "x", YLabel: ylab, Series: []Series{{Name: "a", X: []float64{0, 1}, Y: []float64{0, 1}}}},
		{Title: "E8", XLabel: "primitive", YLabel: ylab, BarSeries: []string{"v"}, Bars: []Bar{
			{"raw notify + wait", []float64{14.9}}, {"counting semaphore", []float64{14.9}}, {"wait queue (4 waiters)", []float64{15.6}}}},
	} {
		sc, err := c.layout()
		if err != nil {
			t.Fatal(err)
		}
		var texts []item
		for _, g := range sc.groups {
			for _, it := range g.items {
				if it.kind == kText {
					texts = append(texts, it)
				}
			}
		}
		var yl []string
		var boxes []box
		for _, it := range texts {
			if it.scale < 2 {
				t.Errorf("%q drawn at scale %d", it.text, it.scale)
			}
			if strings.Contains(it.text, "..") {
				t.Errorf("%q cut", it.text)
			}
			w, h := float64(textW(it.text, it.scale)), float64(textH(it.scale))
			b := box{it.x, it.y, it.x + w - 1, it.y + h - 1}
			if it.vertical {
				yl = append(yl, it.text)
				b = box{it.x, it.y - w + 1, it.x + h - 1, it.y}
			}
			if b.x0 < 0 || b.y0 < 0 || b.x1 >= Width || b.y1 >= Height {
				t.Errorf("%q outside the chart: %v", it.text, b)
			}
			for k, o := range boxes {
				if b.overlaps(o) {
					t.Errorf("%q overlaps %q", it.text, texts[k].text)
				}
			}
			boxes = append(boxes, b)
		}
		if strings.Join(yl, " ") != ylab || len(yl) != 2 {
			t.Errorf("y label drawn as %q", yl)
		}
		for _, b := range c.Bars {
			found := false
			for i := range texts {
				for j := i + 1; j <= len(texts); j++ {
					var s []string
					for _, it := range texts[i:j] {
						s = append(s, it.text)
					}
					found = found || strings.Join(s, " ") == b.Category
				}
			}
			if !found {
				t.Errorf("category %q not drawn whole", b.Category)
			}
		}
	}
}
