package bench

import (
	"os"
	"strings"
	"testing"
)

// The table: a value that rounds to zero is 0.00 (E3's busy-wait cost was
// printed -0.00), a miss points to its explanation, the columns fit the
// longest name.
func TestTable(t *testing.T) {
	var b strings.Builder
	err := WriteTable(&b, []Figure{
		{ID: "E3.notify_busy_us", Paper: 2.96, Measured: -0.001, Unit: "us"},
		{ID: "E2.max_throughput_MBps", Paper: 155.46, Measured: 155.61, Unit: "MB/s"},
		{ID: "E4.max_overhead_vs_static_pct", Paper: 5, Bound: "<", Measured: 0.07, Unit: "%"},
		{ID: "E6.npf_drop_copied_bytes_per_write", Measured: -0.004, Unit: "packets", NoPaper: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Log("\n" + out)
	if strings.Contains(out, "-0.00") {
		t.Error("the table prints -0.00")
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, want := range []struct {
		line int
		has  string
	}{
		{1, "0.00 us"}, {1, "MISSES by -100% (why: docs/reproduction.md#e3)"},
		{2, "within 10%"}, {3, "< 5.00"}, {3, "holds"}, {4, "0.00 packets"},
	} {
		if !strings.Contains(lines[want.line], want.has) {
			t.Errorf("line %q lacks %q", lines[want.line], want.has)
		}
	}
	if strings.Contains(lines[2], "why") {
		t.Error("a match points to an explanation")
	}
	end := strings.Index(lines[0], "paper") + len("paper") // the numbers are right-aligned under it
	for _, l := range lines[1:] {
		if l[end-1] == ' ' || l[end] != ' ' {
			t.Errorf("columns out of line: %q", l)
		}
	}
}

// Every experiment's explanation exists: Doc has the anchor each figure's
// pointer names, at that experiment's section.
func TestExplanationAnchors(t *testing.T) {
	doc, err := os.ReadFile("../../" + Doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, exp := range []string{"E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9"} {
		link := Figure{ID: exp + ".x"}.Explanation()
		_, anchor, _ := strings.Cut(link, "#")
		tag := `<a id="` + anchor + `"></a>`
		i := strings.Index(string(doc), tag)
		if i < 0 {
			t.Errorf("%s: %s has no %s", link, Doc, tag)
			continue
		}
		if rest := string(doc[i+len(tag):]); !strings.HasPrefix(rest, "**"+exp+",") {
			t.Errorf("%s does not stand at the start of %s's section: %.40q", tag, exp, rest)
		}
	}
}
