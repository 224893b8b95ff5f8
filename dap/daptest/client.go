// Package daptest is a Debug Adapter Protocol client for tests: it drives
// an adapter as an editor does, over github.com/google/go-dap's codec
// (requests written as the protocol's JSON, every message read back
// through go-dap's decoder into its typed structs).
package daptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// Timeout bounds every wait for a message.
var Timeout = 60 * time.Second

// Client is one connection to an adapter.
type Client struct {
	w      io.Writer
	msgs   chan godap.Message
	errc   chan error
	seq    int
	events []godap.Message // read while waiting for something else
}

// New connects a client to an adapter reading r's other end and writing
// w's: it writes requests to w and reads messages from r.
func New(r io.Reader, w io.Writer) *Client {
	c := &Client{w: w, msgs: make(chan godap.Message, 1024), errc: make(chan error, 1)}
	go func() {
		br := bufio.NewReader(r)
		for {
			m, err := godap.ReadProtocolMessage(br)
			if err != nil {
				c.errc <- err
				close(c.msgs)
				return
			}
			c.msgs <- m
		}
	}()
	return c
}

// Pipe starts serve on a pair of pipes and gives a client connected to
// it; done is closed when serve returns.
func Pipe(serve func(r io.Reader, w io.Writer) error) (c *Client, done chan error) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done = make(chan error, 1)
	go func() {
		err := serve(sr, sw)
		sw.Close()
		done <- err
	}()
	return New(cr, cw), done
}

// next reads the next message.
func (c *Client) next() (godap.Message, error) {
	select {
	case m, ok := <-c.msgs:
		if !ok {
			return nil, fmt.Errorf("the adapter closed the connection: %v", <-c.errc)
		}
		return m, nil
	case <-time.After(Timeout):
		return nil, fmt.Errorf("no message from the adapter in %v", Timeout)
	}
}

// Send writes a request and gives its sequence number.
func (c *Client) Send(command string, args any) (int, error) {
	c.seq++
	req := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		req["arguments"] = args
	}
	b, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	return c.seq, godap.WriteBaseMessage(c.w, b)
}

// Do sends a request and waits for its response (events that arrive
// before it are kept for Event). A response with success false is
// returned with an error holding its message.
func (c *Client) Do(command string, args any) (godap.ResponseMessage, error) {
	seq, err := c.Send(command, args)
	if err != nil {
		return nil, err
	}
	for {
		m, err := c.next()
		if err != nil {
			return nil, err
		}
		if r, ok := m.(godap.ResponseMessage); ok && r.GetResponse().RequestSeq == seq {
			if !r.GetResponse().Success {
				return r, fmt.Errorf("%s failed: %s", command, r.GetResponse().Message)
			}
			return r, nil
		}
		c.events = append(c.events, m)
	}
}

// Must is Do for a request that must succeed with a response of type T
// (a *godap.XxxResponse, or godap.ResponseMessage for any): anything else
// fails the test.
func Must[T any](t testing.TB, c *Client, command string, args any) T {
	t.Helper()
	r, err := c.Do(command, args)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := r.(T)
	if !ok {
		t.Fatalf("%s: response %T", command, r)
	}
	return v
}

// Event waits for the next event named name (earlier events of other
// names are dropped, and also given to seen if it is not nil).
func (c *Client) Event(name string, seen func(godap.EventMessage)) (godap.EventMessage, error) {
	for {
		var m godap.Message
		if len(c.events) > 0 {
			m, c.events = c.events[0], c.events[1:]
		} else {
			var err error
			if m, err = c.next(); err != nil {
				return nil, err
			}
		}
		e, ok := m.(godap.EventMessage)
		if !ok {
			continue
		}
		if e.GetEvent().Event == name {
			return e, nil
		}
		if seen != nil {
			seen(e)
		}
	}
}
