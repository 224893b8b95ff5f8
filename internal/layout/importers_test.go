package layout

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// importerClaims returns the counts README.md's layout table gives in its
// third column ("21 importers: ..."), by the row's first path.
func importerClaims(t *testing.T) map[string]int {
	t.Helper()
	first := regexp.MustCompile("`([^`]+)`")
	count := regexp.MustCompile(`\b(\d+) importers\b`)
	claims := map[string]int{}
	for _, cells := range layoutRows(t) {
		if len(cells) < 5 {
			continue
		}
		name, n := first.FindStringSubmatch(cells[1]), count.FindStringSubmatch(cells[3])
		if name != nil && n != nil {
			claims[name[1]], _ = strconv.Atoi(n[1])
		}
	}
	return claims
}

// moduleImporters returns, for each package of the module, the other
// packages of the module whose code or tests import it, as `go list`
// gives them under env (added to the test's environment). It runs go list
// with -e: the imports are read from the sources, so the answer needs
// neither the network nor the module cache, and a package that does not
// load (a dependency not downloaded) does not stop the list.
func moduleImporters(t *testing.T, gotool string, env ...string) map[string]map[string]bool {
	t.Helper()
	cmd := exec.Command(gotool, "list", "-e", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	importers := map[string]map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		for _, imp := range f[1:] {
			if imp != f[0] {
				if importers[imp] == nil {
					importers[imp] = map[string]bool{}
				}
				importers[imp][f[0]] = true
			}
		}
	}
	if len(importers["lanaiemu/sim"]) == 0 {
		t.Fatalf("go list gave no importers of lanaiemu/sim:\n%s%s", out, stderr.String())
	}
	return importers
}

// goTool returns the go command, or skips the test without one.
func goTool(t *testing.T) string {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the packages")
	}
	return gotool
}

// TestReadmeImporters: the importer counts in README.md's layout table are
// what `go list` gives, tests included: the packages of the module other
// than the package itself whose code or tests import it.
func TestReadmeImporters(t *testing.T) {
	claims := importerClaims(t)
	if len(claims) < 5 {
		t.Fatalf("found %d importer counts in README.md's layout table: is the pattern still right?", len(claims))
	}
	importers := moduleImporters(t, goTool(t))
	for name, want := range claims {
		if got := len(importers["lanaiemu/"+name]); got != want {
			t.Errorf("README.md's layout table: %s has %d importers, not %d", name, got, want)
		}
	}
}

// TestImportersOffline: the count needs no network and no module cache (a
// clean clone, offline, before any download): go list then gives the same
// importers as here. Without -e, go list stopped at the first dependency
// it could not download, and TestReadmeImporters failed with "exit status 1".
func TestImportersOffline(t *testing.T) {
	gotool := goTool(t)
	want := moduleImporters(t, gotool)
	got := moduleImporters(t, gotool, "GOPROXY=off", "GOMODCACHE="+t.TempDir(), "GOFLAGS=-mod=readonly")
	if len(got) != len(want) {
		t.Errorf("offline: %d imported packages, not %d", len(got), len(want))
	}
	for imp, by := range want {
		if len(got[imp]) != len(by) {
			t.Errorf("offline: %s has %d importers, not %d", imp, len(got[imp]), len(by))
		}
	}
}
