package dap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
	"github.com/stretchr/testify/require"

	"lanaiemu/asm"
	"lanaiemu/dap/daptest"
	"lanaiemu/debugger"
	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
)

// exitProg stores 7 to the simulation-control EXIT register.
const exitProg = "\t.text\n\t.globl _start\n_start:\n\tmov 7, %r3\n\tst %r3, -4096[%r0]\n\tbt .\n\tnop\n"

// tinyLauncher launches exitProg, or fails when the arguments ask for it.
func tinyLauncher(t testing.TB) Launcher {
	image := lanaitest.Build(t, asm.Source{Name: "exit.s", Text: []byte(exitProg)})
	return func(raw json.RawMessage, console, transcript io.Writer) (*Session, error) {
		var a struct{ Fail bool }
		json.Unmarshal(raw, &a)
		if a.Fail {
			return nil, errors.New("no such program")
		}
		c, err := lanai.New(lanai.Config{Console: console})
		if err != nil {
			return nil, err
		}
		img, err := c.Mem.LoadFile(image)
		if err != nil {
			return nil, err
		}
		c.Reset(img.Entry)
		return &Session{Debugger: debugger.New(c, img, transcript)}, nil
	}
}

// Requests out of order, unknown or malformed get error responses and the
// session goes on; a launch failure is reported; a second launch is refused.
func TestServeErrors(t *testing.T) {
	launch := tinyLauncher(t)
	c, done := daptest.Pipe(func(r io.Reader, w io.Writer) error { return Serve(r, w, launch) })
	for _, cmd := range []string{"stackTrace", "variables", "continue", "readMemory", "frobnicate"} {
		if _, err := c.Do(cmd, map[string]any{"threadId": 1}); err == nil {
			t.Errorf("%s before launch succeeded", cmd)
		}
	}
	if _, err := c.Do("launch", map[string]any{"fail": true}); err == nil || !strings.Contains(err.Error(), "no such program") {
		t.Errorf("failing launch: %v", err)
	}
	if _, err := c.Do("launch", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do("launch", map[string]any{}); err == nil {
		t.Error("a second launch succeeded")
	}
	for cmd, args := range map[string]any{
		"continue":           map[string]any{"threadId": 9},
		"readMemory":         map[string]any{"memoryReference": "zz", "count": 4},
		"writeMemory":        map[string]any{"memoryReference": "0x7ffffff0", "data": "AAAA"},
		"disassemble":        map[string]any{"memoryReference": "0", "instructionCount": -1},
		"evaluate":           map[string]any{"expression": "nosuchsymbol"},
		"setVariable":        map[string]any{"variablesReference": 9<<3 | 1, "name": "r3", "value": "1"},
		"scopes":             map[string]any{"frameId": 0},
		"variables":          map[string]any{"variablesReference": 1 << 20},
		"stackTrace":         map[string]any{"threadId": 0},
		"setDataBreakpoints": map[string]any{"breakpoints": []map[string]any{{"dataId": "garbage"}}},
	} {
		r, err := c.Do(cmd, args)
		if cmd == "setDataBreakpoints" {
			if b := r.(*godap.SetDataBreakpointsResponse).Body.Breakpoints; len(b) != 1 || b[0].Verified {
				t.Errorf("bad data id accepted: %+v", b)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s %v succeeded", cmd, args)
		}
	}
	do := func(cmd string, args any) {
		if _, err := c.Do(cmd, args); err != nil {
			t.Fatal(err)
		}
	}
	do("configurationDone", nil)
	e, err := c.Event("exited", nil)
	require.NoError(t, err)
	if code := e.(*godap.ExitedEvent).Body.ExitCode; code != 7 {
		t.Errorf("exit code %d", code)
	}
	if _, err := c.Do("continue", map[string]any{"threadId": 1}); err == nil {
		t.Error("continue after the exit succeeded")
	}
	do("disconnect", nil)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// A broken frame ends the session with an error.
func TestServeBadFraming(t *testing.T) {
	for _, in := range []string{"Content-Length: 5\r\n\r\n{zzz}", "Content-Length: 99999999999\r\n\r\n", "Bad-Header: 1\r\n\r\n"} {
		var out bytes.Buffer
		if err := Serve(strings.NewReader(in), &out, tinyLauncher(t)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// FuzzServe: any input stream is answered or refused, never a panic or a
// hang (the stream ends, and the target is stopped).
func FuzzServe(f *testing.F) {
	frame := func(s string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s) }
	f.Add(frame(`{"seq":1,"type":"request","command":"initialize","arguments":{}}`) +
		frame(`{"seq":2,"type":"request","command":"launch","arguments":{}}`) +
		frame(`{"seq":3,"type":"request","command":"configurationDone"}`))
	f.Add(frame(`{"seq":1,"type":"request","command":"launch","arguments":{"stopOnEntry":true}}`) +
		frame(`{"seq":2,"type":"request","command":"evaluate","arguments":{"expression":"x/4 0","context":"repl"}}`))
	launch := tinyLauncher(f)
	f.Fuzz(func(t *testing.T, in string) {
		Serve(strings.NewReader(in), io.Discard, launch)
	})
}

// names is a Target of named threads that never runs (for where).
type names []*debugger.Thread

func (n names) Threads() []*debugger.Thread  { return n }
func (names) Tick() (*debugger.Event, error) { return nil, errors.New("not run") }

// A breakpoint's message says where it is set, threads with one address
// or one reason together, and nothing when it is set everywhere at one
// address.
func TestWhere(t *testing.T) {
	s := &server{d: debugger.NewTarget(names{{Name: "node 0"}, {Name: "node 1"}, {Name: "node 2"}, {Name: "node 3"}}, io.Discard)}
	pl := func(th int, a uint32) debugger.Place { return debugger.Place{Thread: th, Addr: a} }
	miss := errors.New(`no symbol "x"`)
	require.Equal(t, "", s.where([]debugger.Place{pl(0, 4), pl(1, 4), pl(2, 4), pl(3, 4)}, make([]error, 4)))
	require.Equal(t, `node 0, node 2 at 0x00000004; node 3 at 0x00000018; not in node 1: no symbol "x"`,
		s.where([]debugger.Place{pl(0, 4), pl(2, 4), pl(3, 0x18)}, []error{nil, miss, nil, nil}))
	require.Equal(t, `node 2 at 0x00000008; not in node 0, node 1, node 3: no symbol "x"`,
		s.where([]debugger.Place{pl(2, 8)}, []error{miss, miss, nil, miss}))
}
