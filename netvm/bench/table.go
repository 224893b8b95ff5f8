package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Doc is the document that explains every experiment; Figure.Explanation
// points into it.
const Doc = "docs/reproduction.md"

// Explanation is where Doc explains the figure's experiment, and a miss's
// measured reason: Doc#e1 for E1's figures (the anchors are
// <a id="e1"></a> ... in Doc).
func (f Figure) Explanation() string {
	exp, _, _ := strings.Cut(f.ID, ".")
	return Doc + "#" + strings.ToLower(exp)
}

// WriteTable writes the figures as the table netvm bench prints: each
// figure, the thesis' value (with its bound), the measured value, the
// unit, measured / thesis and the verdict; a miss points to its
// explanation. Numbers have two decimals, and one that rounds to zero is
// 0.00, never -0.00.
func WriteTable(w io.Writer, figures []Figure) error {
	idW, unitW := len("figure"), len("unit")
	for _, f := range figures {
		idW, unitW = max(idW, len(f.ID)), max(unitW, len(f.Unit))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s %10s %10s %-*s %7s  %s\n", idW, "figure", "paper", "measured", unitW, "unit", "ratio", "verdict")
	for _, f := range figures {
		paper, ratio := fixed2(f.Paper), fixed2(f.Ratio())
		if math.IsNaN(f.Ratio()) {
			ratio = "-"
		}
		if f.NoPaper {
			paper, ratio = "-", "-"
		} else if f.Bound != "" {
			paper = f.Bound + " " + paper
		}
		verdict := f.Verdict()
		if strings.HasPrefix(verdict, "MISSES") {
			verdict += " (why: " + f.Explanation() + ")"
		}
		fmt.Fprintf(&b, "%-*s %10s %10s %-*s %7s  %s\n", idW, f.ID, paper, fixed2(f.Measured), unitW, f.Unit, ratio, verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fixed2 prints v with two decimals; a value that rounds to zero prints as
// 0.00 whatever its sign.
func fixed2(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	if s == "-0.00" {
		return "0.00"
	}
	return s
}
