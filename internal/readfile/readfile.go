// Package readfile reads the files the tools are given (sources, images,
// scenarios, scripts, host-memory loads) with a bound: a device such as
// /dev/zero, a directory or a file larger than the caller's limit is an
// error naming the file, found at once and in bounded memory, never a
// read that runs until memory is gone.
package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Limits for the kinds of input the tools read.
const (
	// Text is the limit for assembly sources, scenarios and debugger
	// scripts.
	Text = 64 << 20
	// Binary is the limit for object files, images and archives.
	Binary = 256 << 20
)

// ErrTooLarge is wrapped by the error for a file over the limit.
var ErrTooLarge = errors.New("file too large")

// Read returns the contents of the file name, which must be a regular file
// or a pipe of at most limit bytes. Its errors are *fs.PathError, as
// os.ReadFile's are.
func Read(name string, limit int64) ([]byte, error) {
	r, err := Open(name, limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// Open opens the file name for reading with Read's checks, for a caller
// that copies it on in pieces rather than holding it whole (a host-memory
// load): a directory or a device is refused now, a regular file over limit
// bytes too, and a pipe's read fails past limit bytes.
func Open(name string, limit int64) (io.ReadCloser, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	refuse := func(err error) error { return &fs.PathError{Op: "read", Path: name, Err: err} }
	switch m := st.Mode(); {
	case m.IsDir():
		err = refuse(errors.New("is a directory"))
	case m&(os.ModeDevice|os.ModeCharDevice|os.ModeSocket) != 0:
		err = refuse(errors.New("not a regular file (a device or socket)"))
	case m.IsRegular() && st.Size() > limit:
		err = refuse(fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, st.Size(), limit))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &bounded{f: f, left: limit, tooLarge: refuse(fmt.Errorf("%w: over %d bytes", ErrTooLarge, limit))}, nil
}

// bounded reads a file up to its limit and fails with tooLarge if there
// is more.
type bounded struct {
	f        *os.File
	left     int64
	tooLarge error
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.f.Read(one[:]); n > 0 {
			return 0, b.tooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.f.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *bounded) Close() error { return b.f.Close() }
