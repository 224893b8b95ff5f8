// Package outfile opens the output files named on a tool's command line
// before a long run, so that a path that cannot be written fails at once,
// not after the run, and writes them when the run is done. An existing
// regular file keeps its contents until Write, so a failed run leaves it
// as it was. An output that grows with the run (a console, a timeline) is
// written as the run goes instead (Stream), so that it does not stay in
// memory.
package outfile

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// File is an output file opened before the run and written after it.
type File struct {
	f       *os.File // nil for a FIFO without a reader yet (path)
	path    string
	regular bool
	created bool // it did not exist: Abandon removes it
}

// Create opens path for writing, creating it if needed; an existing
// regular file keeps its contents until Write. An empty path is an error.
// A device or pipe gets a newline (white space before JSON) to find out
// whether it takes writes: /dev/full does not. A FIFO that no one reads
// yet is opened at Write, as a plain write would open it: opening it now
// would wait for a reader, so a tool refusing its input hung instead, and
// one writing two FIFOs read in turn waited for ever.
func Create(path string) (*File, error) { return create(path, 0o644, true) }

// CreateRaw is Create for an output whose bytes must be exactly its
// contents (an object, an executable, a listing that may go to
// /dev/stdout): a device is not probed with a newline, so one that
// refuses writes fails at Write. A file it makes gets perm (0o755 for an
// executable).
func CreateRaw(path string, perm os.FileMode) (*File, error) { return create(path, perm, false) }

// create is Create and CreateRaw; probe writes the newline to a device.
func create(path string, perm os.FileMode, probe bool) (*File, error) {
	if path == "" {
		return nil, errors.New("an empty file name")
	}
	_, err := os.Lstat(path)
	created := errors.Is(err, os.ErrNotExist)
	flags := os.O_WRONLY | os.O_CREATE
	if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
		flags |= syscall.O_NONBLOCK // a FIFO: not waiting for a reader
	}
	f, err := os.OpenFile(path, flags, perm)
	if flags&syscall.O_NONBLOCK != 0 && errors.Is(err, syscall.ENXIO) {
		return &File{path: path}, nil // no reader yet (the permission was checked first)
	}
	if err != nil {
		return nil, err
	}
	o := &File{f: f, path: path, created: created}
	st, err := f.Stat()
	if err == nil {
		if o.regular = st.Mode().IsRegular(); !o.regular && probe {
			_, err = f.Write([]byte("\n"))
		}
	}
	if err != nil {
		o.Abandon()
		return nil, err
	}
	return o, nil
}

// Write replaces the file's contents with b and closes the file.
func (o *File) Write(b []byte) error {
	if o.f == nil { // a FIFO: it waits for its reader now
		if err := o.openFIFO(); err != nil {
			return err
		}
	}
	var err error
	if o.regular {
		err = o.f.Truncate(0)
	}
	if err == nil {
		_, err = o.f.Write(b)
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteFrom replaces the file's contents with what write produces (a
// profile's or a timeline's writer) and closes the file. If write fails
// the file is abandoned.
func (o *File) WriteFrom(write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		o.Abandon()
		return err
	}
	return o.Write(buf.Bytes())
}

// Abandon closes the file, and removes it if Create created it; a FIFO
// it has not opened yet ends a reader waiting on it. A nil *File has
// nothing to abandon; abandoning a written file does nothing more.
func (o *File) Abandon() {
	if o == nil {
		return
	}
	if o.f == nil { // a FIFO not opened: a reader that came since gets its end
		if f, err := os.OpenFile(o.path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		return
	}
	if o.f.Close() == nil && o.created {
		os.Remove(o.path)
	}
}

// CheckEmpty refuses an output flag among flags that fs was given with
// an empty value ("--json="): an output named as nothing is a mistake, not
// a request for no output. Each flag is written as the tool's help writes
// it ("-o", "--json"); the error names it so.
func CheckEmpty(fs *flag.FlagSet, flags ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil || f.Value.String() != "" {
			return
		}
		for _, name := range flags {
			if strings.TrimLeft(name, "-") == f.Name {
				err = fmt.Errorf("%s: an empty file name", name)
			}
		}
	})
	return err
}

// Set is the output files of one run, opened together before it.
type Set struct {
	files []*File
	names []string // each file's flag ("--stats") or, if added, path
}

// Open opens path for flag (its name, for the error) and adds it to the
// set; an error names the flag. A regular file the set holds already is
// refused: two outputs in one file overwrite each other, and two streamed
// ones (a console and a timeline) mixed their bytes.
func (s *Set) Open(flag, path string) (*File, error) { return s.open(flag, path, Create) }

// OpenRaw is Open with CreateRaw (perm for a file it makes).
func (s *Set) OpenRaw(flag, path string, perm os.FileMode) (*File, error) {
	return s.open(flag, path, func(p string) (*File, error) { return CreateRaw(p, perm) })
}

// open is Open and OpenRaw; create opens the file.
func (s *Set) open(flag, path string, create func(string) (*File, error)) (*File, error) {
	o, err := create(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	if i := s.holding(o); i >= 0 {
		o.Abandon()
		return nil, fmt.Errorf("--%s: %s is also %s's output", flag, path, s.names[i])
	}
	s.files = append(s.files, o)
	s.names = append(s.names, "--"+flag)
	return o, nil
}

// holding is the index of the set's file that is the regular file o, or
// -1.
func (s *Set) holding(o *File) int {
	st, err := regularStat(o)
	if err != nil {
		return -1
	}
	for i, p := range s.files {
		if pst, err := regularStat(p); err == nil && os.SameFile(st, pst) {
			return i
		}
	}
	return -1
}

// regularStat is the file information of o if it is an open regular file.
func regularStat(o *File) (os.FileInfo, error) {
	if o.f == nil || !o.regular {
		return nil, errors.New("not an open regular file")
	}
	return o.f.Stat()
}

// Add adds a file opened with Create to the set: an output that is not a
// flag's, such as a scenario's host dump, whose error names it otherwise.
func (s *Set) Add(o *File) {
	s.files = append(s.files, o)
	s.names = append(s.names, o.path)
}

// OpenNodes opens one file per node, name(0) to name(n-1), for flag (a
// profile per board) and adds them to the set.
func (s *Set) OpenNodes(flag string, n int, name func(node int) string) ([]*File, error) {
	files := make([]*File, 0, n)
	for i := range n {
		o, err := s.Open(flag, name(i))
		if err != nil {
			return nil, err
		}
		files = append(files, o)
	}
	return files, nil
}

// Abandon abandons every file of the set not yet written: those made for
// the run are removed, those that existed keep their contents.
func (s *Set) Abandon() {
	for _, o := range s.files {
		o.Abandon()
	}
	s.files, s.names = nil, nil
}
