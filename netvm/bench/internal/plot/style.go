package plot

import (
	"image/color"
	"math"
	"strings"
)

// Series styles. Besides its colour, line series j is drawn with dash
// pattern seriesDash[j] and marker shape j mod numShapes, so that series
// which lie on top of each other stay visible and distinguishable (also in
// grey): only the first series is solid, so a later series drawn over an
// earlier one leaves it showing through the gaps of its pattern, and the
// open shapes leave a marker beneath them visible. The legend shows each
// series' pattern and marker.
var seriesDash = [len(palette)][]int{
	nil,                 // solid
	{10, 5},             // dashes
	{3, 4},              // dots
	{12, 4, 3, 4},       // dash-dot
	{20, 6},             // long dashes
	{6, 3},              // short dashes
	{12, 4, 3, 4, 3, 4}, // dash-dot-dot
	{2, 7},              // sparse dots
	{20, 5, 5, 5},       // long-short
	{8, 8},              // even dashes
}

// markDash is the pattern of reference marks: on, off, in pixels along the
// line.
var markDash = []int{6, 4}

// shape is a point marker's shape.
type shape uint8

const (
	shapeSquare        shape = iota // filled square
	shapeHollowSquare               // square outline, larger than the filled one
	shapeCross                      // diagonal cross
	shapeHollowDiamond              // diamond outline
	shapePlus                       // upright cross
	numShapes
)

// marker draws shape s centred at (x, y) in col. small is for series with
// many points: the markers shrink so that the line stays readable.
func (g *group) marker(s shape, x, y float64, col color.RGBA, small bool) {
	x, y = math.Round(x), math.Round(y)
	r, d := float64(markerSize/2-1), float64(dotSize) // outline half-size, filled square's side
	if small {
		r, d = r-2, d-2
	}
	poly := func(p ...pt) { g.add(item{kind: kPolyline, pts: p, col: col, width: 2}) }
	switch s {
	case shapeSquare:
		g.rect(x-d/2, y-d/2, d, d, col)
	case shapeHollowSquare:
		poly(pt{x - r, y - r}, pt{x + r, y - r}, pt{x + r, y + r}, pt{x - r, y + r}, pt{x - r, y - r})
	case shapeCross:
		poly(pt{x - r, y - r}, pt{x + r, y + r})
		poly(pt{x - r, y + r}, pt{x + r, y - r})
	case shapeHollowDiamond:
		poly(pt{x, y - r}, pt{x + r, y}, pt{x, y + r}, pt{x - r, y}, pt{x, y - r})
	case shapePlus:
		poly(pt{x - r, y}, pt{x + r, y})
		poly(pt{x, y - r}, pt{x, y + r})
	}
}

// wrap breaks s at spaces into at most maxLines lines of at most maxW
// pixels at scale, as even in length as the line count allows; a word
// wider than a line, or what does not fit on the last line, is cut with
// "..". Text that fits on one line is returned unchanged.
func wrap(s string, scale, maxW, maxLines int) []string {
	if s == "" {
		return nil
	}
	if textW(s, scale) <= maxW || maxLines <= 1 {
		return []string{fit(s, scale, maxW)}
	}
	words := strings.Fields(s)
	lines := greedy(words, scale, maxW)
	if n := len(lines); n <= maxLines {
		// The narrowest width that needs no more lines evens them out.
		lo, hi := 1, maxW
		for lo < hi {
			mid := (lo + hi) / 2
			if l := greedy(words, scale, mid); len(l) <= n && fits(l, scale, mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		lines = greedy(words, scale, lo)
	} else {
		lines[maxLines-1] = strings.Join(lines[maxLines-1:], " ")
		lines = lines[:maxLines]
	}
	for i, l := range lines {
		lines[i] = fit(l, scale, maxW)
	}
	return lines
}

// greedy fills lines of at most maxW pixels word by word (a word wider
// than maxW gets a line of its own).
func greedy(words []string, scale, maxW int) []string {
	var lines []string
	for _, w := range words {
		if k := len(lines) - 1; k >= 0 && textW(lines[k]+" "+w, scale) <= maxW {
			lines[k] += " " + w
		} else {
			lines = append(lines, w)
		}
	}
	return lines
}

// fits reports whether every line is at most maxW pixels wide at scale.
func fits(lines []string, scale, maxW int) bool {
	for _, l := range lines {
		if textW(l, scale) > maxW {
			return false
		}
	}
	return true
}

// blockH is the height of n lines of text at scale, lineGap apart.
func blockH(n, scale int) int {
	if n == 0 {
		return 0
	}
	return n*textH(scale) + (n-1)*lineGap
}
