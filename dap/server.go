// Package dap serves the Debug Adapter Protocol (the protocol of VS Code
// and other editors) over the debugger of package debugger: one core, or
// a cluster's boards, each a thread, where a stop stops all. The messages
// are github.com/google/go-dap's. A Launcher makes the debugger from the
// launch request's arguments; cmd/lanai-emu ("lanai-emu dap") and
// cmd/netvm ("netvm dap") supply theirs. docs/debugging.md is the manual.
package dap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	godap "github.com/google/go-dap"

	"lanaiemu/debugger"
)

// Session is a launched target.
type Session struct {
	// Debugger is the debugger over the target; its transcript must go
	// to the transcript writer the Launcher was given.
	Debugger *debugger.Debugger
	// Finish, if set, runs when the target has reached its end (a
	// cluster's scenario): it gives the exit code and a summary for the
	// console.
	Finish func() (code int, summary string)
	// Devices, if set, gives thread th's devices for the variables view.
	Devices func(th int) []Var
	// Close, if set, releases the target.
	Close func()
}

// Var is a named value for the variables view.
type Var struct {
	Name, Value string
}

// Launcher makes a session from a launch (or attach) request's
// arguments. The target's console device (the program's PUTC output)
// must go to console, the debugger's transcript to transcript; both reach
// the editor as output events.
type Launcher func(args json.RawMessage, console, transcript io.Writer) (*Session, error)

// Serve answers the requests read from r, writing responses and events to
// w, until the client disconnects or r ends.
func Serve(r io.Reader, w io.Writer, launch Launcher) error {
	s := &server{in: bufio.NewReader(r), out: w, launch: launch, done: make(chan struct{})}
	defer s.close()
	for {
		msg, err := godap.ReadProtocolMessage(s.in)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			var fe *godap.DecodeProtocolMessageFieldError
			if errors.As(err, &fe) {
				s.send(&godap.ErrorResponse{Response: s.response(&godap.Request{ProtocolMessage: godap.ProtocolMessage{Seq: fe.Seq, Type: "request"}, Command: fe.SubType}, false, err.Error())})
				continue
			}
			return err
		}
		req, ok := msg.(godap.RequestMessage)
		if !ok {
			continue // responses to reverse requests and events: none expected
		}
		s.handle(req)
		if s.quit {
			return nil
		}
	}
}

// server is one client's connection.
type server struct {
	in     *bufio.Reader
	launch Launcher

	wmu sync.Mutex // guards out and seq
	out io.Writer
	seq int

	mu      sync.Mutex  // held while the target runs, and by every request that looks at it
	busy    atomic.Bool // the target is running (requests that look at it are refused)
	sess    *Session
	d       *debugger.Debugger
	entry   bool // stopOnEntry
	ran     bool // configurationDone has started the target
	ended   bool // the exited (or terminated) event was sent
	quit    bool
	last    int  // the thread of the last stop (for memory requests given a plain address)
	named   bool // several threads: memory and instruction references name their thread
	capture *bytes.Buffer
	running sync.WaitGroup
	done    chan struct{}

	bps  map[string][]bp // by source path, function ("fn:"), instruction ("ins:")
	data []bp
	nbp  int
}

// bp is a breakpoint as the client knows it: one id, and points in the
// debugger (a source, function or instruction breakpoint: one per thread
// whose program has its location; a data breakpoint: one).
type bp struct {
	id int
	// at are the places where its location resolved (one a thread whose
	// program has it), points its debugger points there (0: none, the
	// qualifiers do not compile in that program).
	at     []debugger.Place
	points []int
}

// send writes a message with the next sequence number.
func (s *server) send(m godap.Message) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.seq++
	switch v := m.(type) {
	case godap.ResponseMessage:
		v.GetResponse().Seq = s.seq
	case godap.EventMessage:
		v.GetEvent().Seq = s.seq
	}
	godap.WriteProtocolMessage(s.out, m)
}

// response makes the response to req.
func (s *server) response(req *godap.Request, ok bool, msg string) godap.Response {
	return godap.Response{ProtocolMessage: godap.ProtocolMessage{Type: "response"}, Command: req.Command, RequestSeq: req.Seq, Success: ok, Message: msg}
}

// event makes an event.
func event(name string) godap.Event {
	return godap.Event{ProtocolMessage: godap.ProtocolMessage{Type: "event"}, Event: name}
}

// fail answers req with an error.
func (s *server) fail(req *godap.Request, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	s.send(&godap.ErrorResponse{Response: s.response(req, false, msg), Body: godap.ErrorResponseBody{Error: &godap.ErrorMessage{Id: 1, Format: msg, ShowUser: true}}})
}

// output sends text as an output event.
func (s *server) output(category, text string) {
	s.send(&godap.OutputEvent{Event: event("output"), Body: godap.OutputEventBody{Category: category, Output: text}})
}

// writerFunc is an io.Writer of output events.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// transcript is the debugger's transcript: output events, or the
// evaluate request's result while one runs a command.
func (s *server) transcript(p []byte) (int, error) {
	if s.capture != nil {
		return s.capture.Write(p)
	}
	s.output("console", string(p))
	return len(p), nil
}

// interrupt stops a run: each command a run is made of clears the
// request when it begins, so it is repeated until the run has stopped
// (for at most a minute).
func (s *server) interrupt() {
	for i := 0; s.d != nil && s.busy.Load() && i < 60000; i++ {
		s.d.Interrupt()
		time.Sleep(time.Millisecond)
	}
}

func (s *server) close() {
	s.interrupt()
	s.running.Wait()
	if s.sess != nil && s.sess.Close != nil {
		s.sess.Close()
		s.sess = nil
	}
}

// ListenAndServe listens on addr (host:port; port 0 picks one), tells
// ready the address it listens on, and serves the first client that
// connects, until it disconnects.
func ListenAndServe(addr string, launch Launcher, ready func(addr string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if ready != nil {
		ready(ln.Addr().String())
	}
	conn, err := ln.Accept()
	if err != nil {
		return err
	}
	defer conn.Close()
	return Serve(conn, conn, launch)
}
