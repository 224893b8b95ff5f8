package board

import (
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/fabric"
	"lanaiemu/sim"
)

// The table-driven CRC-8 equals the bitwise definition on random data.
func TestCRC8Table(t *testing.T) {
	r := sim.NewRand(5)
	for n := range 300 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint64())
		}
		if CRC8(b) != crc8Bitwise(b) {
			t.Fatalf("length %d: %#x != %#x", n, CRC8(b), crc8Bitwise(b))
		}
	}
}

// A board held in reset runs no instruction while time passes; released,
// it starts at address 0 with its cycle count kept.
func TestSetReset(t *testing.T) {
	b, err := New(Config{})
	require.NoError(t, err)
	// a loop at 0 that counts in r3: add %r3, 1, %r3; bt 0; nop
	for i, w := range []uint32{0x018C0001, 0xE0000000, 0x00000000} {
		b.CPU().Mem.Write(uint32(4*i), []byte{byte(w >> 24), byte(w >> 16), byte(w >> 8), byte(w)})
	}
	b.SetReset(true)
	b.Run(1000)
	if b.CPU().Instret != 0 || b.CPU().Cycles != 1000 || !b.InReset() {
		t.Fatalf("held: %d instructions, %d cycles", b.CPU().Instret, b.CPU().Cycles)
	}
	b.SetReset(false)
	b.Run(300)
	if b.CPU().Cycles < 1300 || b.CPU().R[3] == 0 {
		t.Fatalf("released: cycles %d, r3 %d", b.CPU().Cycles, b.CPU().R[3])
	}
}

// crc8Update continues a CRC over a second piece: the CRC of a split
// packet (an unstripped route and the body) is that of the whole.
func TestCRC8Update(t *testing.T) {
	r := sim.NewRand(9)
	b := make([]byte, 200)
	for i := range b {
		b[i] = byte(r.Uint64())
	}
	for n := range len(b) {
		for _, k := range []int{0, min(1, n), n / 3, n / 2, n} {
			if got, want := crc8Update(CRC8(b[:k]), b[k:n]), crc8Bitwise(b[:n]); got != want {
				t.Fatalf("length %d split at %d: %#x, want %#x", n, k, got, want)
			}
		}
	}
}

// sink is an endpoint that takes every packet and gives its bytes back.
type sink struct{ f *fabric.Fabric }

func (s *sink) Ready() bool                       { return true }
func (s *sink) Deliver(pkt []byte, _, _ sim.Time) { s.f.Recycle(pkt) }

// A packet sent in a parallel step (SetDeferred) costs no more allocations
// than one sent directly: the send buffer comes back from the deferred
// Send (Link.giveBack) instead of being grown anew for every packet.
func TestDeferredSendReusesBuffer(t *testing.T) {
	allocs := func(deferred bool) float64 {
		q := &sim.Queue{}
		f, err := fabric.BackToBack(q, sim.NewRand(1), fabric.DefaultConfig())
		require.NoError(t, err)
		require.NoError(t, f.Attach(1, &sink{f}))
		b, err := New(Config{})
		require.NoError(t, err)
		require.NoError(t, b.Link().Connect(f, q, 0))
		send := func() {
			b.SetDeferred(deferred)
			coreWrite(t, b, RegSMP, 0x1000)
			coreWrite(t, b, RegSMLT, 0x1000+2048)
			b.SetDeferred(false)
			b.RunDeferred()
			b.CPU().Cycles += 100_000 // the packet has left
			q.RunUntil(b.Clock().Time(b.CPU().Cycles))
			b.Run(1)
		}
		for range 10 {
			send()
		}
		if b.Link().Stats().PacketsSent != 10 {
			t.Fatalf("%+v", b.Link().Stats())
		}
		return testing.AllocsPerRun(50, send)
	}
	direct, deferred := allocs(false), allocs(true)
	if deferred > direct {
		t.Fatalf("a deferred send allocates %.1f objects, a direct one %.1f", deferred, direct)
	}
	t.Logf("allocations per packet: direct %.1f, deferred %.1f", direct, deferred)
}
