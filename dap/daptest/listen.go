package daptest

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer collects a command's standard error while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *lockedBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *lockedBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Listen runs a command's `dap --listen 127.0.0.1:0` (run gets the args and
// the stream it reports "listening on ADDR" to), waits for the address,
// and gives a client connected to it over TCP, the command's exit status
// once it returns, and what it wrote to standard error. The connection is
// closed when the test ends.
func Listen(t testing.TB, run func(args []string, stderr io.Writer) int) (*Client, <-chan int, fmt.Stringer) {
	t.Helper()
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"dap", "--listen", "127.0.0.1:0"}, &stderr) }()
	var addr string
	for i := 0; i < 500 && addr == ""; i++ {
		if _, a, ok := strings.Cut(stderr.String(), "listening on "); ok {
			addr = strings.TrimSpace(a)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if addr == "" {
		t.Fatalf("no address: %q", stderr.String())
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return New(conn, conn), done, &stderr
}
