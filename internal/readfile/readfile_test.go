package readfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A regular file within the limit is read whole; one over it, a device, a
// directory and a missing file are errors that name the file.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(small, 5); err != nil || string(data) != "hello" {
		t.Fatalf("Read(small, 5) = %q, %v", data, err)
	}
	if _, err := Read(small, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), small) {
		t.Fatalf("Read(small, 4): %v, want ErrTooLarge naming the file", err)
	}
	for _, name := range []string{"/dev/zero", dir, filepath.Join(dir, "missing")} {
		if _, err := Read(name, 1<<20); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Read(%s): %v, want an error naming it", name, err)
		}
	}
}

// A pipe is read up to the limit and no further.
func TestReadPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 4096)
		for i := 0; i < 64; i++ {
			if _, err := w.Write(buf); err != nil {
				break
			}
		}
		w.Close()
	}()
	defer r.Close()
	name := "/dev/fd/" + strconv.Itoa(int(r.Fd()))
	if _, err := Read(name, 1000); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a 256 KiB pipe with a 1000-byte limit: %v", err)
	}
}
