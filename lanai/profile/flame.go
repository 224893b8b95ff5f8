package profile

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// flameNode is a frame of the flame graph: a function under its callers.
type flameNode struct {
	name     string
	value    int64
	children map[string]*flameNode
}

func (n *flameNode) child(name string) *flameNode {
	if n.children == nil {
		n.children = map[string]*flameNode{}
	}
	c := n.children[name]
	if c == nil {
		c = &flameNode{name: name}
		n.children[name] = c
	}
	return c
}

// Flame graph geometry, in SVG units.
const (
	flameWidth  = 1200
	flameRow    = 17
	flameMargin = 10
	flameTitle  = 28
)

// WriteFlame draws a flame graph of value (Cycles, Instructions, ...) of
// p as SVG: the root at the bottom, each frame as wide as its value, its
// callees above it, siblings by name; a frame's tooltip gives its value
// and share. It is what `go tool pprof -http`'s flame graph shows, as a
// file a document can hold.
func WriteFlame(w io.Writer, p *profile.Profile, value int, title string) error {
	if value < 0 || value >= len(p.SampleType) {
		return fmt.Errorf("profile: no sample value %d", value)
	}
	root := &flameNode{name: "all"}
	for _, s := range p.Sample {
		v := s.Value[value]
		if v == 0 {
			continue
		}
		root.value += v
		n := root
		for i := len(s.Location) - 1; i >= 0; i-- {
			l := s.Location[i]
			name := fmt.Sprintf("%#x", l.Address)
			if len(l.Line) > 0 && l.Line[0].Function != nil {
				name = l.Line[0].Function.Name
			}
			n = n.child(name)
			n.value += v
		}
	}
	depth := 0
	var measure func(n *flameNode, d int)
	measure = func(n *flameNode, d int) {
		depth = max(depth, d)
		for _, c := range n.children {
			measure(c, d+1)
		}
	}
	measure(root, 1)
	height := flameTitle + depth*flameRow + 2*flameMargin
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="11">`+"\n",
		flameWidth, height, flameWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fdfdf8"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14">%s (%s: %d)</text>`+"\n", flameMargin, flameMargin+14,
		html.EscapeString(title), html.EscapeString(p.SampleType[value].Type), root.value)
	scale := float64(flameWidth-2*flameMargin) / float64(max(root.value, 1))
	var draw func(n *flameNode, x float64, d int)
	draw = func(n *flameNode, x float64, d int) {
		wd := float64(n.value) * scale
		y := height - flameMargin - d*flameRow
		if wd >= 0.5 {
			fmt.Fprintf(&b, `<g><title>%s: %d (%.1f%%)</title><rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="#fff" stroke-width="0.5"/>`,
				html.EscapeString(n.name), n.value, 100*float64(n.value)/float64(max(root.value, 1)), x, y, wd, flameRow-1, flameColour(n.name))
			if chars := int(wd / 6.6); chars >= 3 {
				label := n.name
				if len(label) > chars {
					label = label[:chars-2] + ".."
				}
				fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`, x+2, y+12, html.EscapeString(label))
			}
			b.WriteString("</g>\n")
		}
		names := make([]string, 0, len(n.children))
		for k := range n.children {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			c := n.children[k]
			draw(c, x, d+1)
			x += float64(c.value) * scale
		}
	}
	draw(root, flameMargin, 1)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// flameColour gives a frame a warm colour from its name (the same name,
// the same colour); the [idle] frame is grey.
func flameColour(name string) string {
	if strings.HasPrefix(name, "[idle") {
		return "#c8c8c8"
	}
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+h%50, 80+(h>>8)%120, 40+(h>>16)%50)
}
