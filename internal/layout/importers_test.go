package layout

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// importerClaims returns the counts README.md's layout table gives in its
// third column ("21 importers: ..."), by the row's first path.
func importerClaims(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	first := regexp.MustCompile("`([^`]+)`")
	count := regexp.MustCompile(`\b(\d+) importers\b`)
	claims := map[string]int{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Layout"
			continue
		}
		cells := strings.Split(line, "|")
		if !in || len(cells) < 5 {
			continue
		}
		name, n := first.FindStringSubmatch(cells[1]), count.FindStringSubmatch(cells[3])
		if name != nil && n != nil {
			claims[name[1]], _ = strconv.Atoi(n[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return claims
}

// TestReadmeImporters: the importer counts in README.md's layout table are
// what `go list` gives, tests included: the packages of the module other
// than the package itself whose code or tests import it.
func TestReadmeImporters(t *testing.T) {
	claims := importerClaims(t)
	if len(claims) < 5 {
		t.Fatalf("found %d importer counts in README.md's layout table: is the pattern still right?", len(claims))
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the packages")
	}
	cmd := exec.Command(gotool, "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importers := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if imp != f[0] {
				if importers[imp] == nil {
					importers[imp] = map[string]bool{}
				}
				importers[imp][f[0]] = true
			}
		}
	}
	for name, want := range claims {
		if got := len(importers["lanaiemu/"+name]); got != want {
			t.Errorf("README.md's layout table: %s has %d importers, not %d", name, got, want)
		}
	}
}
