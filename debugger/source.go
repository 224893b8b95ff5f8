package debugger

import (
	"os"
	"path/filepath"
	"strings"
)

// cmdList shows source lines: around pc's line, around LOC, or (repeated)
// the lines after the last listing.
func (d *Debugger) cmdList(args []string) {
	const before, total = 5, 11
	var file string
	var center, first int
	switch {
	case len(args) > 0:
		arg := strings.Join(args, " ")
		if f, line, ok := splitFileLine(arg); ok {
			e, err := d.p().lineAddr(f, line)
			if err != nil {
				// A line without code can still be listed.
				if e2, ok := d.p().someLine(f); ok {
					file, center = e2, line
					break
				}
				d.errorf("list: %v", err)
				return
			}
			file, center = e.File, line
			break
		}
		a, err := d.eval(arg)
		if err != nil {
			d.errorf("list: %v", err)
			return
		}
		e, ok := d.p().lineAt(a)
		if !ok {
			d.errorf("list: no line information for %s", d.p().addrName(a))
			return
		}
		file, center = e.File, e.Line
	case d.listFile != "" && d.prevCmd == "list":
		file, first = d.listFile, d.listNext
	default:
		e, ok := d.p().lineAt(d.cpu().PC)
		if !ok {
			d.errorf("list: no line information for pc %s", d.p().addrName(d.cpu().PC))
			return
		}
		file, center = e.File, e.Line
	}
	if first == 0 {
		first = max(center-before, 1)
	}
	text, err := d.source(file)
	if err != nil {
		d.errorf("list: %v", err)
		return
	}
	cur := 0
	if e, ok := d.p().lineAt(d.cpu().PC); ok && e.File == file {
		cur = e.Line
	}
	if first > len(text) {
		d.printf("(end of %s, %d lines)\n", file, len(text))
		d.listFile, d.listNext = file, first
		return
	}
	last := min(first+total-1, len(text))
	for n := first; n <= last; n++ {
		mark := "  "
		if n == cur {
			mark = "=>"
		}
		d.printf("%s %5d  %s\n", mark, n, text[n-1])
	}
	d.listFile, d.listNext = file, last+1
}

// someLine gives the line table's name of a file the user named.
func (p *Program) someLine(user string) (string, bool) {
	for _, table := range p.lineTables() {
		for _, e := range table {
			if matchFile(e.File, user) {
				return e.File, true
			}
		}
	}
	return "", false
}

// source reads a source file (cached): under the name the line table
// records, else relative to each of SourceDirs, else by base name in them.
func (d *Debugger) source(name string) ([]string, error) {
	if t, ok := d.sources[name]; ok {
		return t, nil
	}
	tries := d.sourceTries(name)
	var firstErr error
	for _, p := range tries {
		b, err := os.ReadFile(p)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		t := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
		if len(t) > 0 && t[len(t)-1] == "" {
			t = t[:len(t)-1]
		}
		for i := range t {
			t[i] = expandTabs(t[i])
		}
		d.sources[name] = t
		return t, nil
	}
	return nil, firstErr
}

// sourceTries gives the paths under which a source file is looked for.
func (d *Debugger) sourceTries(name string) []string {
	tries := []string{name}
	if !filepath.IsAbs(name) {
		for _, dir := range d.SourceDirs {
			tries = append(tries, filepath.Join(dir, name))
		}
	}
	for _, dir := range d.SourceDirs {
		tries = append(tries, filepath.Join(dir, filepath.Base(name)))
	}
	return tries
}

// expandTabs replaces tabs by spaces up to the next multiple of 8 columns.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}
