package outfile

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCreateWriteAbandon(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte("before"), 0o644)
	o, err := Create(old)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(old); string(b) != "before" {
		t.Fatalf("Create truncated an existing file: %q", b)
	}
	o.Abandon()
	if b, _ := os.ReadFile(old); string(b) != "before" {
		t.Fatalf("Abandon changed an existing file: %q", b)
	}
	fresh := filepath.Join(dir, "new.json")
	if o, err = Create(fresh); err != nil {
		t.Fatal(err)
	}
	o.Abandon()
	if _, err := os.Stat(fresh); err == nil {
		t.Fatal("Abandon left a file it created")
	}
	if o, err = Create(old); err != nil {
		t.Fatal(err)
	}
	if err := o.WriteFrom(func(w io.Writer) error { _, err := io.WriteString(w, "after"); return err }); err != nil {
		t.Fatal(err)
	}
	o.Abandon() // a written file stays
	if b, _ := os.ReadFile(old); string(b) != "after" {
		t.Fatalf("after Write: %q", b)
	}
	bad := []string{"", filepath.Join(old, "x"), filepath.Join(dir, "missing", "x"), dir}
	if _, err := os.Stat("/dev/full"); err == nil {
		bad = append(bad, "/dev/full")
	}
	for _, p := range bad {
		if _, err := Create(p); err == nil {
			t.Errorf("Create(%q) succeeded", p)
		}
	}
}

func TestSetNamesFlag(t *testing.T) {
	dir := t.TempDir()
	var s Set
	if _, err := s.Open("json", filepath.Join(dir, "a.json")); err != nil {
		t.Fatal(err)
	}
	_, err := s.Open("profile", filepath.Join(dir, "no", "p.pb.gz"))
	if err == nil || !strings.HasPrefix(err.Error(), "--profile: ") {
		t.Fatalf("error %v does not name --profile", err)
	}
	s.Abandon()
	if _, err := os.Stat(filepath.Join(dir, "a.json")); err == nil {
		t.Fatal("Set.Abandon left a file it created")
	}
}

func TestCheckEmpty(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ""}, {[]string{"--json", "a"}, ""}, {[]string{"--json="}, "--json: an empty file name"},
		{[]string{"--other="}, ""}, {[]string{"--json", "a", "--trace", ""}, "-trace: an empty file name"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.String("json", "", "")
		fs.String("trace", "", "")
		fs.String("other", "x", "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := CheckEmpty(fs, "--json", "-trace")
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("%v: %q, want %q", c.args, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%v: no error, want %q", c.args, c.want)
		}
	}
}

func TestOpenNodes(t *testing.T) {
	dir := t.TempDir()
	var s Set
	name := func(i int) string { return filepath.Join(dir, "p-node"+string(rune('0'+i))+".pb.gz") }
	files, err := s.OpenNodes("profile", 3, name)
	if err != nil || len(files) != 3 {
		t.Fatalf("got %d files, %v", len(files), err)
	}
	for i, o := range files {
		if err := o.Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(name(i)); len(b) != 1 || b[0] != byte(i) {
			t.Fatalf("node %d's file holds %v", i, b)
		}
	}
	// A node whose file cannot be made fails the lot, naming the flag, and
	// the files made before it are removed by Abandon.
	bad := func(i int) string {
		if i == 1 {
			return filepath.Join(dir, "p-node0.pb.gz", "x")
		}
		return filepath.Join(dir, "q-node"+string(rune('0'+i)))
	}
	var s2 Set
	if _, err := s2.OpenNodes("profile", 3, bad); err == nil || !strings.HasPrefix(err.Error(), "--profile: ") {
		t.Fatalf("got %v, want an error naming --profile", err)
	}
	s2.Abandon()
	if _, err := os.Stat(bad(0)); !os.IsNotExist(err) {
		t.Fatalf("node 0's file left behind: %v", err)
	}
}

// CreateRaw writes nothing before the contents: a device is not probed
// (a newline would go before an object sent to /dev/stdout), and a file
// it makes gets the permissions asked for.
func TestCreateRaw(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "a.out")
	o, err := CreateRaw(exe, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Write([]byte("\x7fELF")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(exe); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("the executable's mode: %v %v", st.Mode(), err)
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		return
	}
	o, err = CreateRaw("/dev/full", 0o644)
	if err != nil {
		t.Fatalf("CreateRaw probed /dev/full: %v", err)
	}
	if err := o.Write([]byte("x")); err == nil {
		t.Error("a write to /dev/full succeeded")
	}
	if _, err := Create("/dev/full"); err == nil {
		t.Error("Create did not probe /dev/full")
	}
}
