package outfile

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// A FIFO no one reads yet does not hold up Create: opening it for
// writing waits for a reader, so lanai-as -o FIFO with a syntax error
// hung instead of reporting it, and two FIFOs read one after the other
// waited for ever. It is opened at Write, and its reader gets the bytes.
func TestFIFOWithoutReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	// A reader that ends whatever Create is waiting for if it is stuck.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	for i, create := range []func(string) (*File, error){Create, func(p string) (*File, error) { return CreateRaw(p, 0o755) }} {
		done := make(chan *File, 1)
		go func() {
			o, err := create(fifo)
			if err != nil {
				t.Error(err)
			}
			done <- o
		}()
		var o *File
		select {
		case o = <-done:
		case <-time.After(3 * time.Second):
			t.Fatal("Create waited for a reader of the FIFO")
		}
		// A reader that came after Create ends when the file is
		// abandoned, as it did when Create opened the FIFO.
		ended := make(chan bool)
		go func() {
			os.ReadFile(fifo)
			ended <- true
		}()
		// (Abandoned again until the reader has come: it does nothing more
		// to a FIFO it did not open.)
		for deadline := time.Now().Add(3 * time.Second); ; {
			o.Abandon()
			select {
			case <-ended:
			case <-time.After(20 * time.Millisecond):
				if time.Now().Before(deadline) {
					continue
				}
				t.Fatal("the reader of an abandoned FIFO waited on")
			}
			break
		}
		if st, err := os.Stat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("Abandon removed the FIFO: %v", err)
		}
		// The reader comes after Create, or is there before it.
		for _, readerFirst := range []bool{false, true} {
			got := make(chan []byte)
			read := func() {
				b, _ := os.ReadFile(fifo)
				got <- b
			}
			if readerFirst {
				go read()
				time.Sleep(50 * time.Millisecond)
			}
			o, err := create(fifo)
			if err != nil {
				t.Fatal(err)
			}
			if !readerFirst {
				go read()
			}
			if err := o.Write([]byte("contents")); err != nil {
				t.Fatal(err)
			}
			want := "contents"
			if readerFirst && i == 0 {
				want = "\ncontents" // Create's probe of a pipe that takes writes
			}
			if b := <-got; string(b) != want {
				t.Errorf("reader first %v: the reader got %q, want %q", readerFirst, b, want)
			}
		}
	}
}

// Two outputs of a set may not be one regular file (by another name or a
// hard link too): the second is refused, naming the first's flag, the
// file keeps its contents, and a file the first made is removed when the
// set is abandoned. A device may be named twice (/dev/null).
func TestSetRefusesSameFile(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old")
	if err := os.WriteFile(old, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Link(old, link); err != nil {
		t.Fatal(err)
	}
	var s Set
	if _, err := s.Open("stats", old); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{old, link, filepath.Join(dir, ".", "old")} {
		_, err := s.OpenRaw("console", p, 0o644)
		if err == nil || err.Error() != "--console: "+p+" is also --stats's output" {
			t.Errorf("%s: %v", p, err)
		}
	}
	made := filepath.Join(dir, "made")
	if _, err := s.Open("timeline", made); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open("console", made); err == nil {
		t.Error("a file the set made was opened twice")
	}
	for range 2 {
		if _, err := s.Open("null", os.DevNull); err != nil {
			t.Errorf("%s twice: %v", os.DevNull, err)
		}
	}
	s.Abandon()
	if b, err := os.ReadFile(old); err != nil || string(b) != "before" {
		t.Errorf("the file has %q, %v; want its contents kept", b, err)
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("the file the set made is still there: %v", err)
	}
}
