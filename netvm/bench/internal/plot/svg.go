package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

const svgNS = "http://www.w3.org/2000/svg"

// writeSVG writes sc as an SVG document. Each series is a
// <g class="series" data-series="name"> group with a <title>.
func writeSVG(b *bytes.Buffer, sc *scene) {
	fmt.Fprintf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(b, "<svg xmlns=%q width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\">\n",
		svgNS, Width, Height, Width, Height)
	if sc.title != "" {
		fmt.Fprintf(b, "<title>%s</title>\n", esc(sc.title))
	}
	fmt.Fprintf(b, "<rect width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", Width, Height, hex(colBackground))
	for _, g := range sc.groups {
		if g.series >= 0 {
			name := esc(sc.names[g.series])
			fmt.Fprintf(b, "<g class=%q data-series=\"%s\">\n<title>%s</title>\n", g.class, name, name)
		} else {
			fmt.Fprintf(b, "<g class=%q>\n", g.class)
		}
		for _, it := range g.items {
			writeItem(b, it)
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
}

func writeItem(b *bytes.Buffer, it item) {
	switch it.kind {
	case kLine:
		p, q := it.pts[0], it.pts[1]
		if it.width == 1 { // pixel centres, as the rasteriser draws them
			p = pt{math.Round(p.x) + 0.5, math.Round(p.y) + 0.5}
			q = pt{math.Round(q.x) + 0.5, math.Round(q.y) + 0.5}
		}
		fmt.Fprintf(b, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"%d\"",
			num(p.x), num(p.y), num(q.x), num(q.y), hex(it.col), it.width)
		if it.dash != nil {
			b.WriteString(dashArray(it.dash))
		} else {
			b.WriteString(" stroke-linecap=\"square\"")
		}
		b.WriteString("/>\n")
	case kPolyline:
		b.WriteString("<polyline points=\"")
		for i, p := range it.pts {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(num(p.x) + "," + num(p.y))
		}
		fmt.Fprintf(b, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%d\" stroke-linejoin=\"round\"", hex(it.col), it.width)
		if it.dash != nil {
			b.WriteString(dashArray(it.dash))
		} else {
			b.WriteString(" stroke-linecap=\"round\"")
		}
		b.WriteString("/>\n")
	case kRect:
		fmt.Fprintf(b, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"/>\n",
			num(it.x), num(it.y), num(it.w), num(it.h), hex(it.col))
	case kText:
		s := it.scale
		n := utf8.RuneCountInString(it.text)
		attrs := fmt.Sprintf("font-size=\"%d\" textLength=\"%d\" fill=\"%s\"", 10*s, n*advance*s, hex(it.col))
		if it.bold {
			attrs += " font-weight=\"bold\""
		}
		if it.vertical {
			fmt.Fprintf(b, "<text transform=\"translate(%s,%s) rotate(-90)\" %s>%s</text>\n",
				num(it.x+float64(ascent*s)), num(it.y), attrs, esc(it.text))
		} else {
			fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\" %s>%s</text>\n",
				num(it.x), num(it.y+float64(ascent*s)), attrs, esc(it.text))
		}
	}
}

// dashArray is the stroke-dasharray attribute of a dash pattern.
func dashArray(dash []int) string {
	var b strings.Builder
	b.WriteString(` stroke-dasharray="`)
	for i, d := range dash {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteString(`"`)
	return b.String()
}

// num prints a coordinate with at most two decimals.
func num(v float64) string {
	v = math.Round(v*100) / 100
	if v == 0 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// hex prints a colour as #rrggbb.
func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// esc escapes s for XML text and attribute values.
func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// SeriesInSVG parses an SVG document written by Chart.SVG with encoding/xml
// and returns the names of the series it holds, in order: the data-series
// attributes of its <g> elements. It fails if the input is not well-formed
// XML with a single <svg> root element in the SVG namespace.
func SeriesInSVG(r io.Reader) ([]string, error) {
	d := xml.NewDecoder(r)
	var names []string
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("plot: SVG is not well-formed: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if roots > 1 {
					return nil, errors.New("plot: SVG has more than one root element")
				}
				if t.Name.Local != "svg" || t.Name.Space != svgNS {
					return nil, fmt.Errorf("plot: root element is <%s> in namespace %q, not <svg>", t.Name.Local, t.Name.Space)
				}
			}
			depth++
			if t.Name.Local == "g" {
				for _, a := range t.Attr {
					if a.Name.Space == "" && a.Name.Local == "data-series" {
						names = append(names, a.Value)
					}
				}
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return nil, errors.New("plot: SVG has text outside the root element")
			}
		}
	}
	if roots == 0 {
		return nil, errors.New("plot: no <svg> root element")
	}
	return names, nil
}
