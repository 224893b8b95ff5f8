package layout

import (
	"fmt"
	"os"
	"path"
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

// headingImage and headingLink are an image and a link in a heading's
// Markdown: GitHub's anchor is made from the rendered text, in which an
// image has no text and a link only its text.
var (
	headingImage = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	headingLink  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// slug is GitHub's anchor for a heading's text: lower case, letters,
// digits, '-' and '_' kept, spaces made '-', everything else dropped
// (backquotes and other inline markup included); an image is dropped and
// a link gives only its text.
func slug(text string) string {
	text = headingLink.ReplaceAllString(headingImage.ReplaceAllString(text, ""), "$1")
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

// linkProblem says what is wrong with the relative link target of the
// Markdown file file (both slash-separated, file relative to root), or
// returns "". The target must name a file or folder of the repository
// (a leading "/" is the repository's root, as on GitHub): not one outside
// it, nor one in a folder .gitignore leaves out (ignored), which exist
// only where something made them (README's main command writes plots/).
// A #fragment into a Markdown file must name one of its anchors; read
// gives a file's text.
func linkProblem(file, target string, ignored map[string]bool, read func(rel string) string) string {
	p, frag, _ := strings.Cut(target, "#")
	rel := file
	switch {
	case strings.HasPrefix(p, "/"):
		rel = path.Clean(strings.TrimPrefix(p, "/"))
	case p != "":
		rel = path.Join(path.Dir(file), p)
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return rel + " is outside the repository"
	}
	if top, _, _ := strings.Cut(rel, "/"); ignored[top] {
		return rel + " is in " + top + "/, which .gitignore leaves out of the repository"
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
		return rel + " does not exist"
	}
	if frag != "" && strings.HasSuffix(rel, ".md") && !anchors(read(rel))[frag] {
		return fmt.Sprintf("%s has no heading or anchor %q", rel, frag)
	}
	return ""
}

// TestDocLinks: every relative link of every Markdown file (README.md,
// docs/, editors/, fixtures/ ...) names a file or folder of the
// repository that exists (linkProblem),
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
	ignored := ignoredTop(t)
	checked := 0
	for _, file := range files {
		for _, pl := range proseLines(read(file)) {
			n, line := pl.n, codeSpan.ReplaceAllString(pl.text, "")
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, ":") { // a scheme: https:, mailto:
					continue
				}
				checked++
				if problem := linkProblem(file, target, ignored, read); problem != "" {
					t.Errorf("%s:%d: link %q: %s", file, n, target, problem)
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

// TestLinkProblem: links that resolve on this disk but not in the
// repository are refused: one that leaves the repository (here, back into
// it by its folder's name, so that the file exists), one into a folder
// .gitignore leaves out; a link from the repository's root ("/docs/...")
// resolves as on GitHub.
func TestLinkProblem(t *testing.T) {
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Base(abs)
	ignored := ignoredTop(t)
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct{ file, target, want string }{
		{"README.md", "docs/tour.md#12-exercises", ""},
		{"docs/tour.md", "/docs/README.md", ""},
		{"docs/tour.md", "/README.md#layout", ""},
		{"README.md", "../" + self + "/README.md", "outside the repository"},
		{"docs/tour.md", "../../" + self + "/go.mod", "outside the repository"},
		{"README.md", "plots/e1-latency.svg", ".gitignore leaves out"},
		{"docs/tour.md", "../bin/lanai-emu", ".gitignore leaves out"},
		{"docs/tour.md", "README.md#no-such-heading", `has no heading or anchor "no-such-heading"`},
	} {
		got := linkProblem(c.file, c.target, ignored, read)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: link %q: got %q, want %q", c.file, c.target, got, c.want)
		}
	}
}

// TestSlug: anchors as GitHub makes them (its rendered heading text, lower
// case, punctuation dropped, spaces made '-'), for the kinds of heading the
// docs have and a link in a heading, whose anchor is made from the link's
// text alone; a repeated heading gets -1.
func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Calling Myricom's lanai-gcc 2.95 code", "calling-myricoms-lanai-gcc-295-code"},
		{"The board's registers: `lanai9.h` and `lanai9.inc`", "the-boards-registers-lanai9h-and-lanai9inc"},
		{"Descriptors (§5.2)", "descriptors-52"},
		{"2.2 Endpoint state (`EPStateBase` + e × 256)", "22-endpoint-state-epstatebase--e--256"},
		{"3. The user library posts the WRITE (t = 0 to 0.553 µs)", "3-the-user-library-posts-the-write-t--0-to-0553-µs"},
		{"`rx_data` and `spt_lookup`", "rx_data-and-spt_lookup"},
		{"See [the linker](linker.md#map-file)", "see-the-linker"},
		{"A plot ![E1](reproduction/e1-latency.svg) here", "a-plot--here"},
	} {
		if got := slug(c.heading); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
	a := anchors("# Notes\n\n## Notes\n\n```\n# not a heading\n```\n")
	if !a["notes"] || !a["notes-1"] || a["not-a-heading"] {
		t.Errorf("anchors: %v", a)
	}
}
