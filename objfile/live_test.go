package objfile

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// These tests use the LLVM 14 tools as the oracle and skip when they are
// not installed.

func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not on PATH", name)
	}
	return p
}

func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(needTool(t, name), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	if s := stderr.String(); s != "" {
		t.Errorf("%s %s wrote to stderr:\n%s", name, strings.Join(args, " "), s)
	}
	return stdout.String()
}

// readelfRelocs parses "llvm-readelf -r" output into lines formatted like
// relocString, prefixed by the target section name.
func readelfRelocs(t *testing.T, out string) []string {
	t.Helper()
	head := regexp.MustCompile(`^Relocation section '\.rela(\S+)'`)
	entry := regexp.MustCompile(`^([0-9a-f]{8})\s+[0-9a-f]{8}\s+(R_LANAI_\w+)\s+[0-9a-f]{8}\s+(\S+) ([+-]) ([0-9a-f]+)$`)
	var sec string
	var res []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if m := head.FindStringSubmatch(line); m != nil {
			sec = m[1]
			continue
		}
		if m := entry.FindStringSubmatch(line); m != nil {
			add, err := strconv.ParseInt(m[5], 16, 64)
			require.NoError(t, err)
			if m[4] == "-" {
				add = -add
			}
			res = append(res, fmt.Sprintf("%s %s %s %s%+d", sec, m[1], m[2], m[3], add))
		}
	}
	return res
}

// TestLiveLLVMMC assembles relocs.s with llvm-mc-14 and checks every
// relocation ReadELF reports against llvm-readelf-14's listing.
func TestLiveLLVMMC(t *testing.T) {
	dir := t.TempDir()
	obj := filepath.Join(dir, "relocs.o")
	runTool(t, "llvm-mc-14", "-triple=lanai", "-filetype=obj", filepath.Join("testdata", "relocs.s"), "-o", obj)
	b, err := os.ReadFile(obj)
	require.NoError(t, err)
	f := mustReadELF(t, b)
	var got []string
	for _, s := range f.Sections {
		for _, r := range s.Relocs {
			got = append(got, s.Name+" "+relocString(r))
		}
	}
	want := readelfRelocs(t, runTool(t, "llvm-readelf-14", "-r", obj))
	if len(want) == 0 {
		t.Fatal("no relocations parsed from llvm-readelf output")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("relocations (-llvm-readelf +got):\n%s", d)
	}
	// Symbol names, values and sizes agree with llvm-readelf -s.
	symRE := regexp.MustCompile(`^\s*\d+: ([0-9a-f]{8})\s+(\d+) (\w+)\s+(\w+)\s+\w+\s+(\w+) ?(\S*)$`)
	var wantSyms []string
	for _, line := range strings.Split(runTool(t, "llvm-readelf-14", "-s", obj), "\n") {
		if m := symRE.FindStringSubmatch(line); m != nil && m[5] != "UND" || m != nil && m[6] != "" {
			wantSyms = append(wantSyms, m[1]+" "+m[2]+" "+m[6])
		}
	}
	var gotSyms []string
	for _, s := range f.Symbols {
		gotSyms = append(gotSyms, fmt.Sprintf("%08x %d %s", s.Value, s.Size, s.DisplayName()))
	}
	if d := cmp.Diff(wantSyms, gotSyms); d != "" {
		t.Errorf("symbols (-llvm-readelf +got):\n%s", d)
	}
}

// checkLLVMAccepts runs llvm-readelf-14 -a and llvm-objdump-14 -d -r -t -h
// on an ELF file and fails on any warning or error.
func checkLLVMAccepts(t *testing.T, path string) {
	t.Helper()
	for _, c := range [][]string{
		{"llvm-readelf-14", "-a", path},
		{"llvm-objdump-14", "-d", "-r", "-t", "-h", path},
	} {
		out := runTool(t, c[0], c[1:]...)
		low := strings.ToLower(out)
		if strings.Contains(low, "warning") || strings.Contains(low, "error") || strings.Contains(low, "invalid") {
			t.Errorf("%s complains:\n%s", strings.Join(c, " "), out)
		}
	}
}

func TestLiveLLVMAcceptsWrittenFiles(t *testing.T) {
	needTool(t, "llvm-readelf-14")
	needTool(t, "llvm-objdump-14")
	dir := t.TempDir()
	files := map[string]*File{"sample-rel.o": sampleREL(), "sample-exec": sampleEXEC()}
	for _, name := range []string{"crt0.o", "relocs.o", "prog.o"} {
		files["rewritten-"+name] = mustReadELF(t, readTestdata(t, name))
	}
	coff, err := ReadCOFF(buildCOFF(t, sampleCOFF()))
	require.NoError(t, err)
	files["from-coff"] = coff
	for name, f := range files {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(p, mustWrite(t, f), 0o644))
			checkLLVMAccepts(t, p)
		})
	}
}

// TestLiveObjdumpIdentical: llvm-objdump-14 -d -r prints the same listing
// for LLVM's object and for our rewrite of it.
func TestLiveObjdumpIdentical(t *testing.T) {
	needTool(t, "llvm-objdump-14")
	dir := t.TempDir()
	for _, name := range []string{"crt0.o", "relocs.o", "prog.o"} {
		t.Run(name, func(t *testing.T) {
			orig := filepath.Join("testdata", name)
			ours := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(ours, mustWrite(t, mustReadELF(t, readTestdata(t, name))), 0o644))
			strip := func(s, path string) string { return strings.ReplaceAll(s, path, "FILE") }
			a := strip(runTool(t, "llvm-objdump-14", "-d", "-r", orig), orig)
			b := strip(runTool(t, "llvm-objdump-14", "-d", "-r", ours), ours)
			if d := cmp.Diff(a, b); d != "" {
				t.Errorf("listings differ (-LLVM's object +ours):\n%s", d)
			}
		})
	}
}
