package outfile

import (
	"bufio"
	"errors"
	"io"
	"os"
)

// streamBuffer is a Stream's buffer: its writes reach the file in pieces
// of this size.
const streamBuffer = 64 << 10

// moveBuffer is the buffer that moves a head-last stream's body up at
// Finish.
const moveBuffer = 1 << 20

// Stream is an output written as the run goes (a console, a timeline),
// through a buffer, so that a long run's output does not stay in memory.
// Its first write error is kept: every later Write returns it, and Finish
// reports it. The file holds what was written so far: a run that fails or
// is killed leaves what it had written (a head-last stream without its
// head).
type Stream struct {
	o        *File
	f        *os.File // where the body goes: the output, or a spill file
	spill    bool     // f is a temporary file (a head-last stream to a device or pipe)
	headLast bool
	w        *bufio.Writer
	n        int64 // bytes of body written to f
	err      error
	done     bool
}

// Stream starts writing o as the run goes. A regular file is made empty
// now (until then it kept its contents); a FIFO without a reader waits
// for one here, as a plain write would. Call it just before the run,
// after every check that may refuse the run.
func (o *File) Stream() (*Stream, error) { return o.stream(false) }

// StreamHeadLast is Stream for a document whose head is known only at
// its end (a timeline names its tracks before its events, and a track is
// named when first used): the body goes to the file as the run goes,
// and Finish puts the head before it. In a regular file Finish moves the
// body up through a buffer of a MiB (the file is opened again to be read
// too); a device or pipe cannot move it, nor can a file that cannot be
// read, so its body waits in a temporary file (in os.TempDir, removed at
// once, so that nothing is left behind) until Finish; a FIFO that had no
// reader at Create is opened at Finish.
func (o *File) StreamHeadLast() (*Stream, error) { return o.stream(true) }

func (o *File) stream(headLast bool) (*Stream, error) {
	if o.f == nil && !headLast { // a FIFO without a reader when opened: it waits for one now
		if err := o.openFIFO(); err != nil {
			return nil, err
		}
	}
	if o.regular && headLast { // moving the body up reads it back
		if f, err := os.OpenFile(o.path, os.O_RDWR, 0); err == nil {
			o.f.Close()
			o.f = f
		}
	}
	s := &Stream{o: o, f: o.f, headLast: headLast}
	// A head-last stream that cannot move its body up spills it; to a FIFO
	// not opened yet it writes only at Finish, so the FIFO is opened then
	// (a reader that reads another output first does not wait for it).
	if headLast && (o.f == nil || !o.regular || !readable(o.f)) { // before the file is made empty: this may fail
		f, err := os.CreateTemp("", "lanaiemu-stream-*")
		if err != nil {
			return nil, err
		}
		os.Remove(f.Name()) // the open file lives on; nothing is left behind
		s.f, s.spill = f, true
	}
	if o.regular {
		if err := o.f.Truncate(0); err != nil {
			return nil, err
		}
		if _, err := o.f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
	s.w = bufio.NewWriterSize(bodyWriter{s}, streamBuffer)
	return s, nil
}

// readable reports whether f was opened for reading too.
func readable(f *os.File) bool {
	var b [1]byte
	_, err := f.ReadAt(b[:], 0)
	return err == nil || errors.Is(err, io.EOF)
}

// bodyWriter writes a stream's buffer out and counts the bytes.
type bodyWriter struct{ s *Stream }

func (b bodyWriter) Write(p []byte) (int, error) {
	n, err := b.s.f.Write(p)
	b.s.n += int64(n)
	return n, err
}

// Write adds p to the file (through the buffer).
func (s *Stream) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// WriteString is Write for a string.
func (s *Stream) WriteString(p string) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.WriteString(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// Err is the first error writing the stream, or nil.
func (s *Stream) Err() error { return s.err }

// Close is Finish without a head.
func (s *Stream) Close() error { return s.Finish(nil) }

// Finish writes what the buffer holds, puts head before the body (a
// head-last stream only; nil for the others) and closes the file. A
// stream finished once does nothing more. Its error is the first of the
// stream's.
func (s *Stream) Finish(head []byte) error {
	if s.done {
		return s.err
	}
	s.done = true
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err == nil && len(head) > 0 {
		if !s.headLast {
			s.err = errors.New("outfile: a head for a stream that is not head-last")
		} else if s.spill {
			s.err = s.copySpill(head)
		} else {
			s.err = moveUp(s.f, s.n, head)
		}
	}
	if s.spill {
		s.f.Close()
	}
	if s.o.f == nil { // a FIFO never opened (no head): a reader waiting gets its end
		s.o.Abandon()
	} else if err := s.o.f.Close(); s.err == nil {
		s.err = err
	}
	return s.err
}

// openFIFO opens o, a FIFO that had no reader at Create, for writing: it
// waits for a reader.
func (o *File) openFIFO() error {
	f, err := os.OpenFile(o.path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	o.f = f
	return nil
}

// copySpill writes head and then the spilled body to the output (opening
// a FIFO first).
func (s *Stream) copySpill(head []byte) error {
	if s.o.f == nil {
		if err := s.o.openFIFO(); err != nil {
			return err
		}
	}
	if _, err := s.o.f.Write(head); err != nil {
		return err
	}
	_, err := io.Copy(s.o.f, io.NewSectionReader(s.f, 0, s.n))
	return err
}

// moveUp moves the first n bytes of f up by len(head), from the end down
// (a piece is read before anything is written over it), and writes head
// before them.
func moveUp(f *os.File, n int64, head []byte) error {
	buf := make([]byte, min(n, moveBuffer))
	h := int64(len(head))
	for end := n; end > 0; {
		start := max(0, end-int64(len(buf)))
		p := buf[:end-start]
		if _, err := f.ReadAt(p, start); err != nil {
			return err
		}
		if _, err := f.WriteAt(p, start+h); err != nil {
			return err
		}
		end = start
	}
	_, err := f.WriteAt(head, 0)
	return err
}
