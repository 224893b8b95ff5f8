package budget

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to the budget-file parser: it returns a
// file or an error naming the file and line, never panics, and a file it
// accepts formats to text that parses to the same paths.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		budgets,
		"send.step send_step ret 558 0\n\tsend_step 200\n\tdma_sync 163\n",
		"a x y 10 +5%\n", "a x y 10 +5000%\n", "\tfoo 3\n", "a b c\n", "# only a comment\n",
		"a x y 18446744073709551615 +18446744073709551615\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse("b.txt", []byte(src))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "b.txt") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		again, err := Parse("b.txt", file.Format())
		if err != nil {
			t.Fatalf("formatted file does not parse: %v\n%s", err, file.Format())
		}
		if len(again.Paths) != len(file.Paths) {
			t.Fatalf("%d paths, %d after formatting", len(file.Paths), len(again.Paths))
		}
		for i, p := range file.Paths {
			q := again.Paths[i]
			if p.Name != q.Name || p.Start != q.Start || p.End != q.End || p.Cycles != q.Cycles || p.Limit() != q.Limit() || len(p.Breakdown) != len(q.Breakdown) {
				t.Fatalf("path %d: %+v, after formatting %+v", i, p, q)
			}
		}
	})
}
