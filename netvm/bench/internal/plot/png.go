package plot

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
)

// The PNG series chunk. Chart.PNG writes one tEXt chunk, right after IHDR,
// with the keyword "series" and, as text, one line per series in chart
// order: the series colour as #rrggbb, a space, and the name quoted with
// strconv.QuoteToASCII (so the text is plain ASCII, as tEXt requires), e.g.
//
//	#1f77b4 "GM polling"
//	#ff7f0e "VMMC \u00b5s"
//
// Lines are separated by "\n".
const seriesKeyword = "series"

// raster draws scene items into an RGBA image.
type raster struct{ img *image.RGBA }

func (r raster) set(x, y int, c color.RGBA) {
	if !(image.Point{x, y}).In(r.img.Rect) {
		return
	}
	i := r.img.PixOffset(x, y)
	p := r.img.Pix[i : i+4 : i+4]
	p[0], p[1], p[2], p[3] = c.R, c.G, c.B, 0xff
}

// fill paints the pixels [x0, x1) x [y0, y1).
func (r raster) fill(x0, y0, x1, y1 int, c color.RGBA) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			r.set(x, y, c)
		}
	}
}

// line draws from (x0, y0) to (x1, y1), both included, with Bresenham's
// algorithm; a width-2 line paints a 2x2 brush (the point and its upper and
// left neighbours) at every step. A dashed line paints only the steps that
// fall on the pattern's "on" runs, starting phase steps into the pattern;
// line returns the phase after its last step, so that a polyline's pattern
// runs on across its corners.
func (r raster) line(x0, y0, x1, y1 int, c color.RGBA, width int, dash []int, phase int) int {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	period := 0
	for _, d := range dash {
		period += d
	}
	for {
		if period == 0 || on(dash, phase%period) {
			r.set(x0, y0, c)
			if width >= 2 {
				r.set(x0-1, y0, c)
				r.set(x0, y0-1, c)
				r.set(x0-1, y0-1, c)
			}
		}
		if x0 == x1 && y0 == y1 {
			return phase
		}
		phase++
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

// on reports whether step i of a period falls on an "on" run of dash
// (on, off, on, off, ...).
func on(dash []int, i int) bool {
	for k, d := range dash {
		if i < d {
			return k%2 == 0
		}
		i -= d
	}
	return false
}

// text draws s with the bitmap font, each font pixel a scale x scale block.
// A horizontal text has its top-left corner at (x, y); a vertical one reads
// upwards from its bottom-left corner (x, y).
func (r raster) text(x, y int, s string, scale int, c color.RGBA, vertical bool) {
	i := 0
	for _, ch := range s {
		g := glyph(ch)
		for col := range glyphW {
			for row := range glyphH {
				if g[col]>>row&1 == 0 {
					continue
				}
				u, v := (i*advance+col)*scale, row*scale
				if vertical {
					r.fill(x+v, y-u-scale, x+v+scale, y-u, c)
				} else {
					r.fill(x+u, y+v, x+u+scale, y+v+scale, c)
				}
			}
		}
		i++
	}
}

func abs(v int) int { return max(v, -v) }

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func iround(v float64) int { return int(math.Round(v)) }

// rasterize draws sc into a new Width x Height image.
func rasterize(sc *scene) *image.RGBA {
	r := raster{image.NewRGBA(image.Rect(0, 0, Width, Height))}
	r.fill(0, 0, Width, Height, colBackground)
	for _, g := range sc.groups {
		for _, it := range g.items {
			switch it.kind {
			case kLine, kPolyline:
				phase := 0
				for i := 1; i < len(it.pts); i++ {
					p, q := it.pts[i-1], it.pts[i]
					phase = r.line(iround(p.x), iround(p.y), iround(q.x), iround(q.y), it.col, it.width, it.dash, phase)
				}
			case kRect:
				r.fill(iround(it.x), iround(it.y), iround(it.x+it.w), iround(it.y+it.h), it.col)
			case kText:
				r.text(iround(it.x), iround(it.y), it.text, it.scale, it.col, it.vertical)
				if it.bold {
					r.text(iround(it.x)+1, iround(it.y), it.text, it.scale, it.col, it.vertical)
				}
			}
		}
	}
	return r.img
}

// encodePNG rasterises sc, encodes it and splices in the series chunk.
func encodePNG(sc *scene) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, rasterize(sc)); err != nil {
		return nil, err
	}
	var text strings.Builder
	for i, name := range sc.names {
		if i > 0 {
			text.WriteByte('\n')
		}
		text.WriteString(hex(sc.colors[i]) + " " + strconv.QuoteToASCII(name))
	}
	return spliceText(buf.Bytes(), seriesKeyword, text.String())
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// spliceText returns the PNG data with a tEXt chunk (keyword, NUL, text)
// inserted right after the IHDR chunk.
func spliceText(data []byte, keyword, text string) ([]byte, error) {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4 // signature, length, type, data, CRC
	if len(data) < ihdrEnd || !bytes.Equal(data[:8], pngSignature) || string(data[12:16]) != "IHDR" {
		return nil, errors.New("plot: PNG does not start with IHDR")
	}
	body := append([]byte("tEXt"+keyword+"\x00"), text...)
	var chunk []byte
	chunk = binary.BigEndian.AppendUint32(chunk, uint32(len(body)-4))
	chunk = append(chunk, body...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(body))
	out := make([]byte, 0, len(data)+len(chunk))
	out = append(out, data[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, data[ihdrEnd:]...), nil
}

// findText returns the text of the first tEXt chunk with the keyword,
// checking the chunk structure and the chunk's CRC.
func findText(data []byte, keyword string) (string, error) {
	if !bytes.HasPrefix(data, pngSignature) {
		return "", errors.New("plot: not a PNG")
	}
	for p := len(pngSignature); p+12 <= len(data); {
		n := int(binary.BigEndian.Uint32(data[p:]))
		if n > len(data)-p-12 {
			return "", errors.New("plot: truncated PNG chunk")
		}
		typ, body := string(data[p+4:p+8]), data[p+8:p+8+n]
		p += 12 + n
		if typ == "IEND" {
			break
		}
		if typ != "tEXt" {
			continue
		}
		k, text, ok := bytes.Cut(body, []byte{0})
		if !ok || string(k) != keyword {
			continue
		}
		if crc32.ChecksumIEEE(data[p-n-8:p-4]) != binary.BigEndian.Uint32(data[p-4:]) {
			return "", fmt.Errorf("plot: bad CRC in %q tEXt chunk", keyword)
		}
		return string(text), nil
	}
	return "", fmt.Errorf("plot: PNG has no %q tEXt chunk", keyword)
}

// SeriesInPNG decodes a PNG written by Chart.PNG with image/png and returns
// the series names stored in its "series" tEXt chunk (see seriesKeyword),
// in order. It fails if the PNG does not decode, has no such chunk, or if
// the colour the chunk gives a series appears in no pixel of the image.
func SeriesInPNG(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(bufio.NewReader(r))
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("plot: PNG does not decode: %w", err)
	}
	text, err := findText(data, seriesKeyword)
	if err != nil {
		return nil, err
	}
	var names []string
	var cols []color.RGBA
	for _, line := range strings.Split(text, "\n") {
		h, q, ok := strings.Cut(line, " ")
		var c color.RGBA
		if ok {
			_, err = fmt.Sscanf(h, "#%02x%02x%02x", &c.R, &c.G, &c.B)
			c.A = 0xff
		}
		name, qerr := strconv.Unquote(q)
		if !ok || err != nil || len(h) != 7 || qerr != nil {
			return nil, fmt.Errorf("plot: malformed series line %q", line)
		}
		names = append(names, name)
		cols = append(cols, c)
	}
	found := make([]bool, len(cols))
	see := func(p color.RGBA) {
		for i, c := range cols {
			if p == c {
				found[i] = true
			}
		}
	}
	if m, ok := img.(*image.RGBA); ok { // what image/png gives for Chart.PNG
		for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
			row := m.Pix[m.PixOffset(m.Rect.Min.X, y):m.PixOffset(m.Rect.Max.X, y)]
			for i := 0; i < len(row); i += 4 {
				see(color.RGBA{row[i], row[i+1], row[i+2], row[i+3]})
			}
		}
	} else {
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				see(color.RGBAModel.Convert(img.At(x, y)).(color.RGBA))
			}
		}
	}
	for i, ok := range found {
		if !ok {
			return nil, fmt.Errorf("plot: colour %s of series %q appears in no pixel", hex(cols[i]), names[i])
		}
	}
	return names, nil
}
