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
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	refuse := func(err error) error { return &fs.PathError{Op: "read", Path: name, Err: err} }
	switch m := st.Mode(); {
	case m.IsDir():
		return nil, refuse(errors.New("is a directory"))
	case m&(os.ModeDevice|os.ModeCharDevice|os.ModeSocket) != 0:
		return nil, refuse(errors.New("not a regular file (a device or socket)"))
	case m.IsRegular() && st.Size() > limit:
		return nil, refuse(fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, st.Size(), limit))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, refuse(fmt.Errorf("%w: over %d bytes", ErrTooLarge, limit))
	}
	return data, nil
}
