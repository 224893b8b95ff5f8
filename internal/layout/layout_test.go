package layout

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// root is the module's root, from this package's folder.
var root = filepath.Join("..", "..")

// layoutRows returns the rows of README.md's table under "## Layout",
// each split into its cells at '|' (cell 1 is the first column).
func layoutRows(t *testing.T) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Layout"
			continue
		}
		if in && strings.HasPrefix(line, "|") {
			rows = append(rows, strings.Split(line, "|"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal(`README.md has no table under "## Layout"`)
	}
	return rows
}

// tableNames returns the names in the first column of README.md's table
// under "## Layout": every `backquoted` path of that column.
func tableNames(t *testing.T) map[string]bool {
	t.Helper()
	quoted := regexp.MustCompile("`([^`]+)`")
	names := map[string]bool{}
	for _, cells := range layoutRows(t) {
		for _, m := range quoted.FindAllStringSubmatch(cells[1], -1) {
			names[strings.TrimSuffix(m[1], "/")] = true
		}
	}
	return names
}

// ignoredTop returns the top-level folders .gitignore names ("/bin/"):
// the outputs of the README's commands, not part of the tree.
func ignoredTop(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	ignored := map[string]bool{".git": true}
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "/"); ok && strings.HasSuffix(name, "/") && strings.Count(name, "/") == 1 {
			ignored[strings.TrimSuffix(name, "/")] = true
		}
	}
	return ignored
}

// treeNames returns the top-level folders and the folders of Go packages
// (those holding a .go file, skipping what the go tool skips: testdata
// and names starting with "." or "_"), as slash-separated paths.
func treeNames(t *testing.T) (top, packages []string) {
	t.Helper()
	ignored := ignoredTop(t)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !ignored[e.Name()] {
			top = append(top, e.Name())
		}
	}
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || ignored[rel]) {
				return filepath.SkipDir
			}
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if strings.HasSuffix(d.Name(), ".go") && !seen[dir] {
			seen[dir] = true
			packages = append(packages, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(packages)
	return top, packages
}

// TestReadmeLayout: README's layout table names every top-level folder
// and every Go package, and names nothing that does not exist.
func TestReadmeLayout(t *testing.T) {
	names := tableNames(t)
	top, packages := treeNames(t)
	if len(top) < 5 || len(packages) < 5 {
		t.Fatalf("found %d top-level folders and %d packages: is %s the module's root?", len(top), len(packages), root)
	}
	for _, dir := range top {
		if !names[dir] {
			t.Errorf("top-level folder %s is not in README.md's layout table", dir)
		}
	}
	for _, pkg := range packages {
		if pkg == "." {
			t.Errorf("a Go file at the module's root: the top level holds no package")
		} else if !names[pkg] {
			t.Errorf("package %s is not in README.md's layout table", pkg)
		}
	}
	for name := range names {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Errorf("README.md's layout table names %s, which does not exist", name)
		}
	}
}
