package outfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A stream reaches its file while it is written, not only at Finish: the
// file holds all but the last buffer's worth of what was written (a run's
// console, which stayed in memory until the run's end, took 311 MB for
// 81 MB of output). An existing file is made empty by Stream, not before.
func TestStreamWritesAsItGoes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "console.txt")
	os.WriteFile(path, []byte("old contents"), 0o644)
	o, err := CreateRaw(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old contents" {
		t.Fatalf("opened: %q", b)
	}
	s, err := o.Stream()
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Size() != 0 {
		t.Fatalf("Stream left %d bytes of the old file", st.Size())
	}
	line := []byte(strings.Repeat("x", 99) + "\n")
	var want bytes.Buffer
	for i := range 10 * streamBuffer / len(line) {
		s.Write(line)
		want.Write(line)
		if i%1000 == 999 {
			if st, _ := os.Stat(path); st.Size() < int64(want.Len()-streamBuffer) {
				t.Fatalf("after %d bytes written the file holds %d", want.Len(), st.Size())
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, want.Bytes()) {
		t.Errorf("the file holds %d bytes, want %d", len(b), want.Len())
	}
	o.Abandon() // after Close: the file stays
	if _, err := os.Stat(path); err != nil {
		t.Error("Abandon after Close removed the file")
	}
}

// A head-last stream's head comes before its body: in a regular file the
// body is moved up (here over several pieces of the move's buffer, and
// with a head longer than a small body), to a FIFO the body waits in a
// spill file.
func TestStreamHeadLast(t *testing.T) {
	dir := t.TempDir()
	body := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i%26 + i/7919%3)
		}
		return b
	}
	for _, n := range []int{0, 3, streamBuffer + 5, 2*moveBuffer + 12345} {
		path := filepath.Join(dir, "tl.json")
		o, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := o.StreamHeadLast()
		if err != nil {
			t.Fatal(err)
		}
		if s.spill {
			t.Errorf("body %d: a regular file spilled", n)
		}
		b := body(n)
		for p := b; len(p) > 0; p = p[min(len(p), 1000):] {
			s.Write(p[:min(len(p), 1000)])
		}
		s.WriteString("]}")
		head := []byte("{\"head\":" + strings.Repeat("h", 17) + "[")
		if err := s.Finish(head); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if want := string(head) + string(b) + "]}"; string(got) != want {
			t.Errorf("body %d: %d bytes, want %d (head %q)", n, len(got), len(want), got[:min(len(got), 40)])
		}
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	o, err := CreateRaw(fifo, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	s, err := o.StreamHeadLast()
	if err != nil {
		t.Fatal(err)
	}
	if !s.spill {
		t.Error("a FIFO did not spill")
	}
	b := body(3*streamBuffer + 1)
	s.Write(b)
	if err := s.Finish([]byte("head:")); err != nil {
		t.Fatal(err)
	}
	if g := <-got; string(g) != "head:"+string(b) {
		t.Errorf("the FIFO's reader got %d bytes, want %d", len(g), 5+len(b))
	}
}

// The first error writing a stream stays: later writes return it at
// once, and Finish reports it.
func TestStreamError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	o, err := CreateRaw("/dev/full", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	s, err := o.Stream()
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 1000))
	for range 2 * streamBuffer / len(line) {
		s.Write(line)
	}
	if s.Err() == nil || !strings.Contains(s.Err().Error(), "no space left on device") {
		t.Fatalf("after %d bytes to /dev/full: %v", 2*streamBuffer, s.Err())
	}
	if _, err := s.Write(line); err != s.Err() {
		t.Errorf("a later write: %v", err)
	}
	if err := s.Close(); err != s.Err() {
		t.Errorf("Close: %v", err)
	}
}

// A head-last stream to a regular file that cannot be read (write-only
// permission) needs a temporary file; when $TMPDIR cannot take one,
// StreamHeadLast fails before the file is made empty. (Root reads any
// file: skipped.)
func TestStreamHeadLastSpillFailsKeepsFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can read a write-only file")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "tl.json")
	if err := os.WriteFile(name, []byte("keep"), 0o200); err != nil {
		t.Fatal(err)
	}
	o, err := Create(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	if _, err := o.StreamHeadLast(); err == nil {
		t.Fatal("StreamHeadLast made a temporary file in a missing directory")
	}
	o.Abandon()
	os.Chmod(name, 0o600)
	if b, _ := os.ReadFile(name); string(b) != "keep" {
		t.Errorf("the file has %q, want its contents kept", b)
	}
}
