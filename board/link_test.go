package board

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/fabric"
	"lanaiemu/lanai/lanaitest"
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

// linkPair is two idle boards back to back on a fabric with faults fl,
// with the MYRINET CRC bits myA and myB; board 1's receive buffer is
// armed. A non-nil other replaces board 1 on the fabric.
func linkPair(t *testing.T, fl fabric.Faults, myA, myB uint32, other fabric.Endpoint) (a, b *Board, q *sim.Queue) {
	q = &sim.Queue{}
	f, err := fabric.BackToBack(q, sim.NewRand(1), fabric.DefaultConfig())
	require.NoError(t, err)
	require.NoError(t, f.SetFaults(fl))
	img := lanaitest.Build(t, inline(idleSrc))
	a, _ = boot(t, Config{}, img)
	b, _ = boot(t, Config{}, img)
	require.NoError(t, a.Link().Connect(f, q, 0))
	if other != nil {
		require.NoError(t, f.Attach(1, other))
	} else {
		require.NoError(t, b.Link().Connect(f, q, 1))
	}
	require.NoError(t, a.HostWriteSpecial(RegMYRINET, myA))
	require.NoError(t, b.HostWriteSpecial(RegMYRINET, myB))
	coreWrite(t, b, RegRMP, 0x8000)
	coreWrite(t, b, RegRML, 0x9000)
	return a, b, q
}

// sendOne sends n bytes of a's SRAM at 0x2000 and runs both boards and
// the fabric until done says the packet arrived.
func sendOne(t *testing.T, a, b *Board, q *sim.Queue, n uint32, route bool, done func() bool) {
	for i := range n {
		a.CPU().Mem.SRAM[0x2000+i] = byte(i*7+i>>5) &^ fabric.RouteBit
	}
	if route {
		a.CPU().Mem.SRAM[0x2000] = 0x81 // nothing strips it back to back: the receiver gets it
	}
	coreWrite(t, a, RegSMP, 0x2000)
	coreWrite(t, a, RegSMLT, 0x2000+n)
	for range 100 {
		end := b.Clock().Time(b.CPU().Cycles + 1000)
		q.RunUntil(end)
		a.Run(1000)
		b.Run(1000)
		if done() {
			return
		}
	}
	t.Fatalf("nothing received: %+v", b.Link().Stats())
}

// The sender leaves a packet's trailer (its CRC-32 word and CRC-8 byte)
// to be computed where it is needed (noteCRC8, noteCRC32). A packet that
// arrives as sent at a receiver that checks the same trailer is checked
// from the note: no CRC is run over it and the check values read 0. The
// fabric computes the trailer before it flips a bit, so a corrupted packet
// fails the checks computed over it, as before; so does one whose sender
// appended no CRC-8. One that keeps a route byte carries a CRC-8 over it,
// computed by the sender. A receiver that checks another trailer takes
// check bytes for data (stored, or in the word its CRC-32 check reads,
// which the check value it stores shows) or checks them at other offsets:
// it computes them. Every time, the stored bytes, check values and
// counters are those of the run that computes every CRC where it is made
// (carryTrailer off).
func TestTrailerCarried(t *testing.T) {
	const (
		c8  = MyrinetTxCRC8Enable | MyrinetRxCRC8Enable
		c32 = MyrinetCRC32Enable
	)
	corrupt := fabric.Faults{CorruptPPM: 1_000_000}
	for _, tc := range []struct {
		name              string
		fl                fabric.Faults
		myA, myB          uint32
		carried8, errs8   uint64
		carried32, errs32 uint64
		route             bool
	}{
		{"intact", fabric.Faults{}, c8, c8, 1, 0, 0, 0, false},
		{"intact with CRC-32", fabric.Faults{}, c8 | c32, c8 | c32, 1, 0, 1, 0, false},
		{"intact, CRC-32 only", fabric.Faults{}, c32, c32, 0, 0, 1, 0, false},
		{"corrupted", corrupt, c8, c8, 0, 1, 0, 0, false},
		{"corrupted with CRC-32", corrupt, c8 | c32, c8 | c32, 0, 1, 0, 1, false},
		{"corrupted, CRC-32 only", corrupt, c32, c32, 0, 0, 0, 1, false},
		{"no CRC-8 sent", fabric.Faults{}, MyrinetRxCRC8Enable, MyrinetRxCRC8Enable, 0, 1, 0, 0, false},
		{"no CRC-8 sent, CRC-32 checked before it", fabric.Faults{}, c32, c32 | MyrinetRxCRC8Enable, 0, 1, 0, 1, false},
		{"unstripped route", fabric.Faults{}, c8 | c32, c8 | c32, 0, 0, 0, 1, true},
		{"stored as data", fabric.Faults{}, c8 | c32, 0, 0, 0, 0, 0, false},
		{"under the CRC-32 check", fabric.Faults{}, c8 | c32, c32, 0, 0, 0, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rx [2][]byte
			var st [2]LinkStats
			for k, carry := range []bool{true, false} {
				carryTrailer = carry
				a, b, q := linkPair(t, tc.fl, tc.myA, tc.myB, nil)
				sendOne(t, a, b, q, 1000, tc.route, func() bool { return b.Link().Stats().PacketsRecv > 0 && !b.Link().rxBusy })
				carryTrailer = true
				st[k] = b.Link().Stats()
				rx[k] = b.CPU().Mem.SRAM[0x8000:0x9000]
				w8, w32 := tc.carried8, tc.carried32
				if !carry {
					w8, w32 = 0, 0
				}
				l := b.Link()
				if l.crc8Carried != w8 || l.crc32Carried != w32 || st[k].CRC8Errors != tc.errs8 || st[k].CRC32Errors != tc.errs32 {
					t.Fatalf("carry %v: carried %d and %d, errors %d and %d; want %d, %d, %d, %d", carry,
						l.crc8Carried, l.crc32Carried, st[k].CRC8Errors, st[k].CRC32Errors, w8, w32, tc.errs8, tc.errs32)
				}
			}
			require.Equal(t, st[1], st[0])
			require.Equal(t, rx[1], rx[0])
		})
	}
}

// recorder is an endpoint that keeps copies of the packets it gets.
type recorder struct{ pkts [][]byte }

func (r *recorder) Ready() bool                       { return true }
func (r *recorder) Deliver(pkt []byte, _, _ sim.Time) { r.pkts = append(r.pkts, slices.Clone(pkt)) }

// An endpoint that takes no note gets the packet complete: the fabric
// computes the trailer the sender left, intact or corrupted.
func TestTrailerFilledForOtherEndpoints(t *testing.T) {
	for _, fl := range []fabric.Faults{{}, {CorruptPPM: 1_000_000}} {
		var got [2][]byte
		for k, carry := range []bool{true, false} {
			carryTrailer = carry
			r := &recorder{}
			a, b, q := linkPair(t, fl, MyrinetTxCRC8Enable|MyrinetCRC32Enable, 0, r)
			sendOne(t, a, b, q, 1000, false, func() bool { return len(r.pkts) > 0 })
			carryTrailer = true
			got[k] = r.pkts[0]
		}
		require.Equal(t, got[1], got[0])
		if fl.CorruptPPM == 0 {
			require.Equal(t, crc32.ChecksumIEEE(got[0][:1000]), binary.BigEndian.Uint32(got[0][1000:]))
			require.Equal(t, CRC8(got[0][:1004]), got[0][1004])
		}
	}
}

// NextEvent compares cycles with the first cycle at or after the segment
// end (Clock.Cycles) instead of converting the cycle count to a time on
// every call: t <= Clock.Time(n) exactly when n >= Clock.Cycles(t).
func TestSegmentEndCycleCompare(t *testing.T) {
	r := sim.NewRand(3)
	for _, hz := range []uint64{133_000_000, 200_000_000, 66_000_000, 1_000_000_007} {
		c := sim.Clock{Hz: hz}
		for range 100_000 {
			ts := sim.Time(r.Uint64() % uint64(10*sim.Second))
			n := c.Cycles(ts) + r.Uint64()%5 - 2
			if (ts <= c.Time(n)) != (n >= c.Cycles(ts)) {
				t.Fatalf("%d Hz: t %d, n %d: Time(n) %d, Cycles(t) %d", hz, ts, n, c.Time(n), c.Cycles(ts))
			}
		}
	}
}

// The send records' part of NextSync and NextEvent comes from a cache
// (pendingTimes): at every step of a run in which packets wait for the
// fabric (the receiver is not armed at first, then stores them one at a
// time), the cached answers equal the ones worked out afresh.
func TestPendingTimesCache(t *testing.T) {
	a, b, q := linkPair(t, fabric.Faults{}, 0, 0, nil)
	coreWrite(t, b, RegRML, 0x8000) // not armed: RMP = RML
	l := a.Link()
	check := func() {
		t.Helper()
		sync, ev := l.NextSync(), l.NextEvent()
		l.pendChanged()
		require.Equal(t, l.NextSync(), sync, "NextSync")
		require.Equal(t, l.NextEvent(), ev, "NextEvent")
	}
	sent, stored := 0, uint64(0)
	for step := range 4000 {
		if sent < 5 && l.sendIdle {
			coreWrite(t, a, RegSMP, 0x2000)
			coreWrite(t, a, RegSMLT, 0x2000+512)
			sent++
		}
		if step == 300 || b.Link().Stats().PacketsRecv > stored && !b.Link().rxBusy {
			stored = b.Link().Stats().PacketsRecv
			coreWrite(t, b, RegRMP, 0x8000)
			coreWrite(t, b, RegRML, 0x9000) // (re-)arm: the next packet may come
		}
		check()
		q.RunUntil(a.Clock().Time(a.CPU().Cycles + 50))
		check()
		a.Run(50)
		b.Run(50)
	}
	if sent != 5 || b.Link().Stats().PacketsRecv != 5 || l.Stats().BlockedSends == 0 {
		t.Fatalf("sent %d, received %d, blocked %d", sent, b.Link().Stats().PacketsRecv, l.Stats().BlockedSends)
	}
}

// A reset of the sending board while its packet is blocked in the network
// drops the send: the network's timeout of that packet, which comes after
// the reset, must not reach the fresh link engine (no TX_BLOCKED_INT, no
// send timeout counted).
func TestResetDropsABlockedSend(t *testing.T) {
	a, b, q := linkPair(t, fabric.Faults{}, 0, 0, nil)
	coreWrite(t, b, RegRML, 0x8000) // not armed: the packet blocks in the network
	coreWrite(t, a, RegSMP, 0x2000)
	coreWrite(t, a, RegSMLT, 0x2000+512)
	for range 200 { // past the packet's local end: the send waits for the network
		q.RunUntil(a.Clock().Time(a.CPU().Cycles + 50))
		a.Run(50)
		b.Run(50)
	}
	l := a.Link()
	require.Equal(t, uint64(1), l.Stats().BlockedSends, "the send is blocked")
	a.SetReset(true)
	a.SetReset(false)
	end := a.Clock().Time(a.CPU().Cycles) + fabric.MyrinetTimeout(0) + sim.Millisecond
	for a.Clock().Time(a.CPU().Cycles) < end {
		q.RunUntil(a.Clock().Time(a.CPU().Cycles + 200_000))
		a.Run(200_000)
	}
	require.Zero(t, l.Stats().SendTimeouts, "a send from before the reset timed out on the fresh engine")
	require.Zero(t, a.ISR()&TxBlockedIntBit, "TX_BLOCKED_INT raised by a send from before the reset")
}
