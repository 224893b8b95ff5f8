package progress

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var nilFile *os.File
	for name, wr := range map[string]io.Writer{"buffer": &bytes.Buffer{}, "regular file": f, "pipe": w, "nil file": nilFile} {
		if IsTerminal(wr) {
			t.Errorf("%s taken for a terminal", name)
		}
	}
	// A character device is what a terminal is to Stat.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer null.Close()
	if !IsTerminal(null) {
		t.Errorf("%s (a character device) not taken for a terminal", os.DevNull)
	}
}

// Not a terminal: plain lines, one per step, the first call always shown;
// End adds nothing.
func TestPlainLines(t *testing.T) {
	var b bytes.Buffer
	l := New(&b)
	for i := range 100 {
		l.Show(i/25, "at "+string(rune('0'+i/10)))
	}
	l.End()
	if got, want := b.String(), "at 0\nat 2\nat 5\nat 7\n"; got != want {
		t.Errorf("plain lines %q, want %q", got, want)
	}
	if bytes.ContainsRune(b.Bytes(), '\r') {
		t.Error("carriage return in a log")
	}
}

// A terminal: every call redraws the line in place, blanking the rest of
// a longer earlier text; End closes the line.
func TestTerminalLine(t *testing.T) {
	var b bytes.Buffer
	l := &Line{w: &b, tty: true}
	l.Show(0, "long text")
	l.Show(0, "short")
	l.Show(1, "done")
	l.End()
	if got, want := b.String(), "\rlong text\rshort    \rdone \n"; got != want {
		t.Errorf("terminal line %q, want %q", got, want)
	}
	var none *Line
	none.Show(1, "x") // a nil line draws nothing and does not panic
	none.End()
	if New(nil) != nil {
		t.Error("New(nil) is not nil")
	}
}
