package fabric

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"lanaiemu/sim"
)

// benchRecv accepts everything and keeps the time of the last byte.
type benchRecv struct{ end *sim.Time }

func (r *benchRecv) Ready() bool { return true }
func (r *benchRecv) Deliver(_ []byte, _, last sim.Time) {
	if last > *r.end {
		*r.end = last
	}
}

// benchNet runs b.N packets of size bytes over f, each endpoint i sending
// to dst(i), a window of packets in flight per sender, and reports packets
// per host second and simulated link throughput.
func benchNet(b *testing.B, f *Fabric, q *sim.Queue, size int, dst func(int) int) {
	nodes := f.Endpoints()
	routes := make([][]byte, len(nodes))
	for i, n := range nodes {
		r, err := f.Route(n, dst(n))
		require.NoError(b, err)
		routes[i] = r
	}
	var end sim.Time
	for _, n := range nodes {
		require.NoError(b, f.Attach(n, &benchRecv{&end}))
	}
	pkt := make([]byte, size)
	sent := 0
	var send func(i int, at sim.Time)
	send = func(i int, at sim.Time) {
		if sent >= b.N {
			return
		}
		sent++
		require.NoError(b, f.Send(nodes[i], routes[i], pkt, at, func(t sim.Time, _ error) { send(i, t) }))
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := range nodes {
		for k := 0; k < 2; k++ {
			send(i, 0)
		}
	}
	run(q)
	el := time.Since(start)
	b.StopTimer()
	tot := f.Totals()
	if int(tot.Delivered) != b.N {
		b.Fatalf("delivered %d of %d", tot.Delivered, b.N)
	}
	b.ReportMetric(float64(b.N)/el.Seconds(), "packets/s")
	if !f.Idle() {
		b.Fatal("fabric not idle")
	}
	b.ReportMetric(float64(end)/float64(sim.Microsecond), "sim-us")
	b.ReportMetric(float64(b.N)*float64(size)/(float64(end)/float64(sim.Second))/1e6, "sim-MB/s")
}

func BenchmarkBackToBack4K(b *testing.B) {
	var q sim.Queue
	f, _ := BackToBack(&q, nil, DefaultConfig())
	benchNet(b, f, &q, 4096, func(n int) int { return 1 - n })
}

func BenchmarkStar8x256(b *testing.B) {
	var q sim.Queue
	f, _ := Star(&q, nil, DefaultConfig(), 8)
	benchNet(b, f, &q, 256, func(n int) int { return (n + 1) % 8 })
}

func BenchmarkClos64x64(b *testing.B) {
	var q sim.Queue
	f, _ := Clos(&q, nil, DefaultConfig(), 8, 8, 8)
	benchNet(b, f, &q, 64, func(n int) int { return (n + 9) % 64 })
}
