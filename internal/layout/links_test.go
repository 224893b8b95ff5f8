package layout

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// markdownFiles returns the module's Markdown files (slash-separated,
// relative to root), skipping what treeNames skips: testdata, names
// starting with "." or "_", and the ignored top-level folders.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	ignored := ignoredTop(t)
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || ignored[rel]) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".md") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	// mdLink is an inline link or image: [text](target) or ![alt](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// htmlAnchor is an explicit anchor: <a id="e1"></a>.
	htmlAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)
	// heading is an ATX heading.
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// proseLine is a line of a Markdown file outside fenced code blocks.
type proseLine struct {
	n    int // line number, from 1
	text string
}

// proseLines returns the lines of a Markdown file outside fenced code
// blocks, in order.
func proseLines(text string) []proseLine {
	var lines []proseLine
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, proseLine{i + 1, line})
		}
	}
	return lines
}

// slug is GitHub's anchor for a heading's text: lower case, letters,
// digits, '-' and '_' kept, spaces made '-', everything else dropped
// (backquotes and other inline markup included).
func slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors returns the anchors a Markdown file defines: its headings'
// slugs (a repeated one gets -1, -2, ... as on GitHub) and its explicit
// <a id> anchors. Headings in fenced code do not count.
func anchors(text string) map[string]bool {
	set := map[string]bool{}
	count := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			set[m[1]] = true
		}
	}
	for _, pl := range proseLines(text) {
		m := heading.FindStringSubmatch(pl.text)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := count[s]; n > 0 {
			set[s+"-"+strconv.Itoa(n)] = true
		} else {
			set[s] = true
		}
		count[s]++
	}
	return set
}

// TestDocLinks: every relative link of every Markdown file (README.md,
// docs/, editors/, fixtures/ ...) names a file or folder that exists,
// and a link's #fragment into a Markdown file names one of its headings
// or <a id> anchors. Links with a scheme (https:, mailto:) are not
// checked; nor is text in fenced code or inline code.
func TestDocLinks(t *testing.T) {
	files := markdownFiles(t)
	if len(files) < 10 {
		t.Fatalf("found %d Markdown files under %s", len(files), root)
	}
	texts := map[string]string{}
	read := func(rel string) string {
		if s, ok := texts[rel]; ok {
			return s
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		texts[rel] = string(b)
		return texts[rel]
	}
	checked := 0
	for _, file := range files {
		for _, pl := range proseLines(read(file)) {
			n, line := pl.n, codeSpan.ReplaceAllString(pl.text, "")
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, ":") { // a scheme: https:, mailto:
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				rel := file
				if path != "" {
					rel = filepath.ToSlash(filepath.Join(filepath.Dir(file), path))
				}
				checked++
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", file, n, target, rel)
					continue
				}
				if frag != "" && strings.HasSuffix(rel, ".md") && !anchors(read(rel))[frag] {
					t.Errorf("%s:%d: link %q: %s has no heading or anchor %q", file, n, target, rel, frag)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked only %d links: is the link pattern still right?", checked)
	}
}

// TestDocsIndex: docs/README.md's table links every page of docs/.
func TestDocsIndex(t *testing.T) {
	index, err := os.ReadFile(filepath.Join(root, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) < 5 {
		t.Fatalf("docs/*.md: %d pages, %v", len(pages), err)
	}
	for _, p := range pages {
		name := filepath.Base(p)
		if name != "README.md" && !strings.Contains(string(index), "]("+name+")") {
			t.Errorf("docs/README.md does not list %s", name)
		}
	}
}
