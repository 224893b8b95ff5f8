package objfile

import (
	"sort"
	"strings"
)

// strtab is an ELF string table: its bytes and the offset of each string.
type strtab struct {
	buf  []byte
	offs map[string]uint32
}

// offset returns the offset of s, which must have been given to the
// builder ("" is always at 0).
func (t *strtab) offset(s string) uint32 { return t.offs[s] }

// appendedStrtab lays names out in the order given, each once, after the
// leading NUL: the string tables of executables.
func appendedStrtab(names []string) *strtab {
	t := &strtab{buf: []byte{0}, offs: map[string]uint32{"": 0}}
	for _, s := range names {
		if _, ok := t.offs[s]; ok {
			continue
		}
		t.offs[s] = uint32(len(t.buf))
		t.buf = append(t.buf, s...)
		t.buf = append(t.buf, 0)
	}
	return t
}

// tailMergedStrtab lays names out as LLVM's StringTableBuilder (kind ELF,
// finalize with optimisation; llvm/lib/MC/StringTableBuilder.cpp) does for
// llvm-mc's objects. The distinct non-empty strings are sorted by their
// characters read from the end, greatest first, a string that runs out
// counting as less than any character (the order its three-way radix
// sort "multikeySort" gives). Walking that order, a string that is a
// suffix of the string last placed shares that string's bytes; any other
// is placed next, NUL-terminated. So "text" lands inside ".rela.text".
// Offset 0 holds the leading NUL and the empty string.
func tailMergedStrtab(names []string) *strtab {
	var uniq []string
	seen := map[string]bool{"": true}
	for _, s := range names {
		if !seen[s] {
			seen[s] = true
			uniq = append(uniq, s)
		}
	}
	sort.Slice(uniq, func(i, j int) bool { return reversedGreater(uniq[i], uniq[j]) })
	t := &strtab{offs: map[string]uint32{"": 0}}
	size := uint32(1)
	prev := ""
	for _, s := range uniq {
		if strings.HasSuffix(prev, s) {
			t.offs[s] = size - uint32(len(s)) - 1
			continue
		}
		t.offs[s] = size
		size += uint32(len(s)) + 1
		prev = s
	}
	t.buf = make([]byte, size)
	for s, off := range t.offs {
		copy(t.buf[off:], s)
	}
	return t
}

// reversedGreater orders distinct strings for tailMergedStrtab: compare
// the last characters, then the ones before, an exhausted string being the
// least.
func reversedGreater(a, b string) bool {
	for i := 1; ; i++ {
		ca, cb := -1, -1
		if i <= len(a) {
			ca = int(a[len(a)-i])
		}
		if i <= len(b) {
			cb = int(b[len(b)-i])
		}
		if ca != cb || ca == -1 {
			return ca > cb
		}
	}
}
