package fabric

import (
	"errors"
	"testing"

	"lanaiemu/sim"
)

func TestWireTime(t *testing.T) {
	cases := []struct {
		n    int
		rate uint64
		want sim.Time
	}{
		{1, RateMyrinetLAN, 6250},          // 6.25 ns/byte (lanai9-hw.md §6.1)
		{4096, RateMyrinetLAN, 25600 * ns}, // 4096 * 6.25 ns
		{1, RateMyrinet2000, 4000},         // 4.0 ns/byte
		{1, 300_000_000, 3334},             // 3333.33 ps rounded up
		{3, 300_000_000, 10000},            // exact again
		{0, RateMyrinetLAN, 0},
		{-5, RateMyrinetLAN, 0},
		{1, 0, sim.Never},
	}
	for _, c := range cases {
		if got := WireTime(c.n, c.rate); got != c.want {
			t.Errorf("WireTime(%d, %d) = %d, want %d", c.n, c.rate, got, c.want)
		}
	}
}

// One 4096-byte packet over one 160 MB/s link of 100 ns: first byte at
// t0+100ns, last byte 25.6 us later; the sender's port is free at t0+25.6us.
func TestBackToBackTiming(t *testing.T) {
	var q sim.Queue
	f, err := BackToBack(&q, nil, DefaultConfig())
	must(t, err)
	rs := attachAll(t, f, &q)
	t0 := 3 * us
	var d doneAt
	must(t, f.Send(0, nil, payload(4096, 0, 1), t0, d.fn()))
	run(&q)
	r := rs[1]
	if len(r.log) != 1 {
		t.Fatalf("%d deliveries", len(r.log))
	}
	if g := r.log[0]; g.first != t0+100*ns || g.last != t0+100*ns+25600*ns {
		t.Errorf("first %v last %v, want %v %v", g.first, g.last, t0+100*ns, t0+100*ns+25600*ns)
	}
	if d.calls != 1 || d.at != t0+25600*ns || d.err != nil {
		t.Errorf("done %d times at %v err %v", d.calls, d.at, d.err)
	}
	ls, _ := f.LinkStats(0)
	if ls.Packets != 1 || ls.Bytes != 4096 || ls.Busy != 25600*ns || ls.Blocked != 0 {
		t.Errorf("link stats %+v", ls)
	}
	es, _ := f.EndpointStats(1)
	if es.Delivered != 1 || es.DeliveredBytes != 4096 {
		t.Errorf("endpoint stats %+v", es)
	}
}

// Two switches: node0 - sw0 - sw1 - node1, three 100 ns links, 0.3 us
// switches. The two route bytes are on the first link's wire (4098 bytes),
// one on the second (4097), none on the last (4096). The head reaches node1
// at t0 + 3*100ns + 2*300ns; the tail follows the first link's 4098 byte
// times: last - first = 4098 * 6.25 ns = 25.6125 us.
func TestTwoSwitchTiming(t *testing.T) {
	var q sim.Queue
	f, err := New(&q, nil, DefaultConfig())
	must(t, err)
	lp := DefaultConfig().Link
	must(t, f.AddEndpoint(0))
	must(t, f.AddEndpoint(1))
	s0, _ := f.AddSwitch(4)
	s1, _ := f.AddSwitch(4)
	_, _, err = f.Connect(EndpointPort(0), SwitchPort(s0, 0), lp)
	must(t, err)
	_, _, err = f.Connect(SwitchPort(s0, 1), SwitchPort(s1, 0), lp)
	must(t, err)
	_, _, err = f.Connect(SwitchPort(s1, 1), EndpointPort(1), lp)
	must(t, err)
	rs := attachAll(t, f, &q)
	route, err := f.Route(0, 1)
	must(t, err)
	if string(route) != "\x81\x81" {
		t.Fatalf("route % x, want 81 81 (relative +1 at each switch)", route)
	}
	var recs []*PacketRecord
	f.SetObserver(func(r *PacketRecord) { recs = append(recs, r) })
	t0 := 1 * us
	var d doneAt
	must(t, f.Send(0, route, payload(4096, 0, 1), t0, d.fn()))
	run(&q)
	ser := 4098 * 6250 * sim.Picosecond
	first := t0 + 3*100*ns + 2*300*ns
	g := rs[1].log[0]
	if g.first != first || g.last != first+ser {
		t.Errorf("first %v last %v, want %v %v", g.first, g.last, first, first+ser)
	}
	if d.at != t0+ser || d.err != nil {
		t.Errorf("sender done at %v (%v), want %v", d.at, d.err, t0+ser)
	}
	if len(recs) != 1 || len(recs[0].Hops) != 3 {
		t.Fatalf("records %+v", recs)
	}
	r := recs[0]
	for i, h := range r.Hops {
		start := t0 + sim.Time(i)*400*ns // each hop: 100 ns link + 300 ns switch
		if h.Bytes != 4098-i || h.Start != start || h.End != t0+ser+sim.Time(i)*400*ns || h.Arrive != start+100*ns {
			t.Errorf("hop %d: %+v", i, h)
		}
	}
	if r.Cause != NotDropped || r.Dst != 1 || r.First != first || r.SenderDone != t0+ser {
		t.Errorf("record %+v", r)
	}
}

// Myrinet-2000 rates through one switch: 65 wire bytes at 4 ns.
func TestStarMyrinet2000(t *testing.T) {
	var q sim.Queue
	cfg := DefaultConfig()
	cfg.Link = LinkParams{Rate: RateMyrinet2000, Latency: 100 * ns}
	f, err := Star(&q, nil, cfg, 8)
	must(t, err)
	rs := attachAll(t, f, &q)
	route, _ := f.Route(2, 5)
	if string(route) != "\x83" {
		t.Fatalf("route % x, want 83", route)
	}
	must(t, f.Send(2, route, payload(64, 2, 0), 0, nil))
	run(&q)
	g := rs[5].log[0]
	if g.first != 500*ns || g.last != 500*ns+65*4*ns {
		t.Errorf("first %v last %v", g.first, g.last)
	}
	// 0.5 us port to port through one switch, as Myricom quotes.
}

// Back-pressure: the receiver has no buffer until t1; the head waits at the
// receiver, the sender's transmission is held as long, then everything
// flows: first = t1, last = t1 + 25.6 us, the sender done 100 ns earlier.
// A second packet queued behind it at the sender starts when the first
// finished leaving and arrives exactly as the first's last byte is in.
func TestBackPressure(t *testing.T) {
	var q sim.Queue
	f, err := BackToBack(&q, nil, DefaultConfig())
	must(t, err)
	rs := attachAll(t, f, &q)
	r := rs[1]
	r.notReady = true
	t0, t1 := 1*us, 50*us
	q.Schedule(t1, 1, func() { r.notReady = false; must(t, f.Ready(1, t1)) })
	var d1, d2 doneAt
	must(t, f.Send(0, nil, payload(4096, 0, 1), t0, d1.fn()))
	must(t, f.Send(0, nil, payload(4096, 0, 2), t0, d2.fn()))
	run(&q)
	ser := 25600 * ns
	if len(r.log) != 2 {
		t.Fatalf("%d deliveries", len(r.log))
	}
	if g := r.log[0]; g.first != t1 || g.last != t1+ser {
		t.Errorf("first packet %v..%v, want %v..%v", g.first, g.last, t1, t1+ser)
	}
	if d1.at != t1+ser-100*ns || d1.err != nil {
		t.Errorf("first sender done %v %v", d1.at, d1.err)
	}
	if g := r.log[1]; g.first != t1+ser || g.last != t1+2*ser {
		t.Errorf("second packet %v..%v", g.first, g.last)
	}
	if d2.at != t1+2*ser-100*ns {
		t.Errorf("second sender done %v", d2.at)
	}
	es, _ := f.EndpointStats(1)
	if es.NotReady != t1-(t0+100*ns) {
		t.Errorf("NotReady %v", es.NotReady)
	}
	ls, _ := f.LinkStats(0)
	if ls.Blocked != t1-(t0+100*ns) || ls.Busy != 2*ser+ls.Blocked || ls.Wait != ser+ls.Blocked {
		t.Errorf("link stats %+v", ls)
	}
}

// A packet shorter than the wire (8 bytes = 50 ns < 100 ns) has left the
// sender before its head finds the receiver not ready: the sender is not
// held; the bytes wait in the pipeline and stream in from t1.
func TestBackPressureShortPacket(t *testing.T) {
	var q sim.Queue
	f, _ := BackToBack(&q, nil, DefaultConfig())
	rs := attachAll(t, f, &q)
	r := rs[1]
	r.notReady = true
	t1 := 10 * us
	q.Schedule(t1, 1, func() { r.notReady = false; must(t, f.Ready(1, t1)) })
	var d doneAt
	must(t, f.Send(0, nil, payload(8, 0, 1), 0, d.fn()))
	run(&q)
	if d.at != 50*ns {
		t.Errorf("sender done %v", d.at)
	}
	if g := r.log[0]; g.first != t1 || g.last != t1+50*ns {
		t.Errorf("delivery %v..%v", g.first, g.last)
	}
}

// A receiver that never becomes ready: after the network timeout the packet
// is dropped, the path freed and the sender told. A packet queued behind it
// then gets through once the receiver is ready.
func TestTimeout(t *testing.T) {
	var q sim.Queue
	f, _ := BackToBack(&q, nil, DefaultConfig())
	rs := attachAll(t, f, &q)
	must(t, f.SetTimeout(0, 1*sim.Millisecond))
	r := rs[1]
	r.notReady = true
	t0 := 1 * us
	ready := t0 + 1500*us
	q.Schedule(ready, 1, func() { r.notReady = false; must(t, f.Ready(1, ready)) })
	var d1, d2 doneAt
	must(t, f.Send(0, nil, payload(4096, 0, 1), t0, d1.fn()))
	must(t, f.Send(0, nil, payload(4096, 0, 2), t0, d2.fn()))
	run(&q)
	reset := t0 + 100*ns + 1*sim.Millisecond
	if d1.at != reset || !errors.Is(d1.err, ErrTimeout) {
		t.Errorf("first sender done %v %v, want %v timeout", d1.at, d1.err, reset)
	}
	// The second packet starts at the reset, its head waits from reset+100ns
	// to the ready time, then it flows.
	if len(r.log) != 1 || seqOf(r.log[0].pkt) != 2 {
		t.Fatalf("deliveries %d", len(r.log))
	}
	if g := r.log[0]; g.first != ready || g.last != ready+25600*ns {
		t.Errorf("second packet %v..%v", g.first, g.last)
	}
	if d2.err != nil || d2.at != ready+25600*ns-100*ns {
		t.Errorf("second sender %v %v", d2.at, d2.err)
	}
	es, _ := f.EndpointStats(0)
	if es.Drops[DropTimeout] != 1 {
		t.Errorf("sender drops %v", es.Drops)
	}
	ls, _ := f.LinkStats(0)
	if ls.Drops[DropTimeout] != 1 {
		t.Errorf("link drops %v", ls.Drops)
	}
	if tot := f.Totals(); tot.Sent != 2 || tot.Delivered != 1 || tot.Drops[DropTimeout] != 1 {
		t.Errorf("totals %+v", tot)
	}
}

// Timeouts where heads block at a switch: A holds the output to C (never
// ready), B's head waits behind it at the switch from t0+L+H and times out
// first, one timeout later; A's times out one timeout after its head
// reached C. Both senders are still transmitting, so both are told.
func TestTimeoutAtSwitch(t *testing.T) {
	var q sim.Queue
	f, _ := Star(&q, nil, DefaultConfig(), 3)
	rs := attachAll(t, f, &q)
	rs[2].notReady = true
	to := 1 * sim.Millisecond
	for n := 0; n < 3; n++ {
		must(t, f.SetTimeout(n, to))
	}
	var da, db doneAt
	ra, _ := f.Route(0, 2)
	rb, _ := f.Route(1, 2)
	t0 := 2 * us
	L, H := 100*ns, 300*ns
	must(t, f.Send(0, ra, payload(4096, 0, 1), t0, da.fn()))
	must(t, f.Send(1, rb, payload(4096, 1, 1), t0, db.fn()))
	run(&q)
	if db.at != t0+L+H+to || !errors.Is(db.err, ErrTimeout) {
		t.Errorf("B done %v %v", db.at, db.err)
	}
	if da.at != t0+2*L+H+to || !errors.Is(da.err, ErrTimeout) {
		t.Errorf("A done %v %v", da.at, da.err)
	}
	out, _ := f.LinkFrom(SwitchPort(0, 2))
	ls, _ := f.LinkStats(out)
	if ls.Drops[DropTimeout] != 1 || ls.Busy != to+L {
		t.Errorf("output link %+v", ls)
	}
	es, _ := f.EndpointStats(2)
	if es.NotReady != to {
		t.Errorf("NotReady %v", es.NotReady)
	}
	checkIdle(t, f)
}

func TestMyrinetTimeout(t *testing.T) {
	want := map[uint32]sim.Time{0: sim.Second / 16, 0x40: sim.Second / 4, 0x80: sim.Second, 0xC0: 4 * sim.Second, 0x20E: sim.Second / 16}
	for reg, w := range want {
		if got := MyrinetTimeout(reg); got != w {
			t.Errorf("MyrinetTimeout(%#x) = %v, want %v", reg, got, w)
		}
	}
	if DefaultConfig().Timeout != 62500*us {
		t.Error("default timeout")
	}
}

// Two senders to one receiver through a switch, both at t0 with 1000-byte
// packets (1001 wire bytes on the first link). Node 0 asked first and wins
// the output; node 1's head waits at the switch from t0+L+H until node 0's
// tail has left the output (t0 + ser(1001) + L + H), and its own sender is
// held as long. n = ser(1001) = 6.25625 us.
func TestContention(t *testing.T) {
	var q sim.Queue
	f, _ := Star(&q, nil, DefaultConfig(), 3)
	rs := attachAll(t, f, &q)
	var da, db doneAt
	ra, _ := f.Route(0, 2)
	rb, _ := f.Route(1, 2)
	t0 := 2 * us
	must(t, f.Send(0, ra, payload(1000, 0, 1), t0, da.fn()))
	must(t, f.Send(1, rb, payload(1000, 1, 1), t0, db.fn()))
	run(&q)
	n := 1001 * 6250 * sim.Picosecond
	L, H := 100*ns, 300*ns
	log := rs[2].log
	if len(log) != 2 || srcOf(log[0].pkt) != 0 || srcOf(log[1].pkt) != 1 {
		t.Fatalf("deliveries %v", log)
	}
	if g := log[0]; g.first != t0+2*L+H || g.last != t0+n+2*L+H {
		t.Errorf("A %v..%v", g.first, g.last)
	}
	if g := log[1]; g.first != t0+n+2*L+H || g.last != t0+2*n+2*L+H {
		t.Errorf("B %v..%v", g.first, g.last)
	}
	if da.at != t0+n || db.at != t0+2*n {
		t.Errorf("senders done %v %v", da.at, db.at)
	}
	out, _ := f.LinkFrom(SwitchPort(0, 2))
	ls, _ := f.LinkStats(out)
	if ls.Wait != n || ls.Packets != 2 {
		t.Errorf("output link %+v", ls)
	}
}

// Head-of-line blocking across switches: a packet stalled at a receiver
// holds the uplink it crosses, so a packet from another node that needs the
// same uplink (to a ready receiver) waits until the stalled packet's tail
// has passed. Tree(2, 2): nodes 0,1 on leaf 0, nodes 2,3 on leaf 1.
func TestHeadOfLine(t *testing.T) {
	var q sim.Queue
	f, _ := Tree(&q, nil, DefaultConfig(), 2, 2)
	rs := attachAll(t, f, &q)
	r2 := rs[2]
	r2.notReady = true
	t0, t1 := 0*us, 40*us
	q.Schedule(t1, 2, func() { r2.notReady = false; must(t, f.Ready(2, t1)) })
	route02, _ := f.Route(0, 2)
	route13, _ := f.Route(1, 3)
	if len(route02) != 3 || len(route13) != 3 {
		t.Fatalf("routes % x % x", route02, route13)
	}
	must(t, f.Send(0, route02, payload(4096, 0, 1), t0, nil))
	must(t, f.Send(1, route13, payload(64, 1, 1), t0+1*us, nil))
	run(&q)
	// P1 (4099 wire bytes) is stalled at node 2 from its arrival
	// a = t0 + 4L + 3H to t1; its uplink's tail leaves at
	// t0 + ser(4099) + L + H + (t1 - a) = t1 + ser(4099) - 3L - 2H, and P2
	// follows it through root and leaf 1: first = t1 + ser(4099). P2 is a
	// rigid worm shifted by its stall: last - first is still the time of
	// its 67 wire bytes on its first link.
	ser := 4099 * 6250 * sim.Picosecond
	g := rs[3].log[0]
	if g.first != t1+ser || g.last != t1+ser+67*6250*sim.Picosecond {
		t.Errorf("P2 %v..%v, want first %v", g.first, g.last, t1+ser)
	}
	if p1 := r2.log[0]; p1.first != t1 || p1.last != t1+ser {
		t.Errorf("P1 %v..%v", p1.first, p1.last)
	}
}

// Back-to-back streaming to a receiver that is always ready keeps the link
// full: busy = packets * wire time, and packet k's head arrives as packet
// k-1's last byte does.
func TestUtilisation(t *testing.T) {
	var q sim.Queue
	f, _ := BackToBack(&q, nil, DefaultConfig())
	rs := attachAll(t, f, &q)
	const n = 100
	for i := 0; i < n; i++ {
		must(t, f.Send(0, nil, payload(4096, 0, uint32(i)), 0, nil))
	}
	run(&q)
	ls, _ := f.LinkStats(0)
	if ls.Busy != n*25600*ns || len(rs[1].log) != n {
		t.Errorf("busy %v, %d delivered", ls.Busy, len(rs[1].log))
	}
	if last := rs[1].log[n-1].last; last != n*25600*ns+100*ns {
		t.Errorf("last byte at %v", last)
	}
	// A receiver that needs 1 us after each last byte to re-arm stalls
	// every following head (which arrives at that last byte) for 1 us.
	var q2 sim.Queue
	f2, _ := BackToBack(&q2, nil, DefaultConfig())
	rs2 := attachAll(t, f2, &q2)
	rs2[1].rearm = 1 * us
	for i := 0; i < n; i++ {
		must(t, f2.Send(0, nil, payload(4096, 0, uint32(i)), 0, nil))
	}
	run(&q2)
	// Packet k's head waits from the previous last byte to +1 us; with
	// the whole worm stalled, each packet takes 25.6 us + 1 us.
	if last := rs2[1].log[n-1].last; last != n*25600*ns+(n-1)*1*us+100*ns {
		t.Errorf("slow receiver: last byte at %v", last)
	}
}
