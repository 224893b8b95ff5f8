package textwrap

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLines(t *testing.T) {
	for _, c := range []struct {
		s     string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"  one  ", 10, []string{"one"}},
		{"the quick brown fox", 9, []string{"the quick", "brown fox"}},
		{"the quick brown fox", 8, []string{"the", "quick", "brown", "fox"}},
		{"a verylongword b", 4, []string{"a", "verylongword", "b"}},
	} {
		if d := cmp.Diff(c.want, Lines(c.s, c.width)); d != "" {
			t.Errorf("Lines(%q, %d) (-want +got):\n%s", c.s, c.width, d)
		}
	}
}
