package fabric

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/sim"
)

// Times used in the hand derivations.
const (
	ns = sim.Nanosecond
	us = sim.Microsecond
)

// got is one delivery.
type got struct {
	pkt         []byte
	first, last sim.Time
}

// recv is a board stand-in: ready unless told otherwise, logs deliveries.
type recv struct {
	notReady bool
	log      []got
	// rearm, if set, makes the receiver not ready after each delivery and
	// ready again (with Fabric.Ready) this long after the last byte.
	rearm sim.Time
	f     *Fabric
	q     *sim.Queue
	node  int
}

func (r *recv) Ready() bool { return !r.notReady }

func (r *recv) Deliver(pkt []byte, first, last sim.Time) {
	r.log = append(r.log, got{pkt, first, last})
	if r.rearm > 0 {
		r.notReady = true
		r.q.Schedule(last+r.rearm, r.node, func() {
			r.notReady = false
			_ = r.f.Ready(r.node, last+r.rearm)
		})
	}
}

// attachAll attaches a recv to every endpoint.
func attachAll(t testing.TB, f *Fabric, q *sim.Queue) map[int]*recv {
	t.Helper()
	m := map[int]*recv{}
	for _, n := range f.Endpoints() {
		r := &recv{f: f, q: q, node: n}
		require.NoError(t, f.Attach(n, r))
		m[n] = r
	}
	return m
}

// doneAt records a sender's completion.
type doneAt struct {
	at    sim.Time
	err   error
	calls int
}

func (d *doneAt) fn() func(sim.Time, error) {
	return func(at sim.Time, err error) { d.at, d.err = at, err; d.calls++ }
}

// payload is n bytes: a 4-byte sequence number, a 2-byte source, then a
// pattern.
func payload(n int, src int, seq uint32) []byte {
	if n < 6 {
		n = 6
	}
	b := make([]byte, n)
	binary.BigEndian.PutUint32(b, seq)
	binary.BigEndian.PutUint16(b[4:], uint16(src))
	for i := 6; i < n; i++ {
		b[i] = byte(i*7 + int(seq))
	}
	return b
}

func seqOf(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
func srcOf(b []byte) int    { return int(binary.BigEndian.Uint16(b[4:])) }

func must(t testing.TB, err error) {
	t.Helper()
	require.NoError(t, err)
}

func run(q *sim.Queue) {
	for q.Len() > 0 {
		q.RunUntil(q.Next())
	}
}
