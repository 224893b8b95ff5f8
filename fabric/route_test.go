package fabric

import (
	"errors"
	"testing"

	"lanaiemu/sim"
)

func TestRouteBytes(t *testing.T) {
	cases := []struct {
		mode    RouteMode
		in, out int
		b       byte
	}{
		{RouteRelative, 0, 0, 0x80}, // back where it came from
		{RouteRelative, 0, 1, 0x81},
		{RouteRelative, 5, 2, 0xBD}, // -3
		{RouteRelative, 31, 0, 0xA1},
		{RouteRelative, 0, 31, 0x9F},
		{RouteAbsolute, 7, 3, 0x83},
		{RouteAbsolute, 0, 63, 0xBF},
	}
	for _, c := range cases {
		b, err := EncodeRouteByte(c.mode, c.in, c.out)
		if err != nil || b != c.b {
			t.Errorf("Encode(%v, %d, %d) = %#x, %v; want %#x", c.mode, c.in, c.out, b, err, c.b)
		}
		out, ok := DecodeRouteByte(c.mode, c.in, c.b)
		if !ok || out != c.out {
			t.Errorf("Decode(%v, %d, %#x) = %d, %v", c.mode, c.in, c.b, out, ok)
		}
		// Bit 6 is ignored.
		if out, _ := DecodeRouteByte(c.mode, c.in, c.b|0x40); out != c.out {
			t.Errorf("bit 6 changed the port")
		}
	}
	if _, err := EncodeRouteByte(RouteRelative, 0, 32); !errors.Is(err, ErrBadRoute) {
		t.Error("offset 32 accepted")
	}
	if _, err := EncodeRouteByte(RouteAbsolute, 0, 64); !errors.Is(err, ErrBadRoute) {
		t.Error("port 64 accepted")
	}
	if _, ok := DecodeRouteByte(RouteRelative, 0, 0x01); ok {
		t.Error("0x01 read as a route byte")
	}
}

// routeErrNet: a 4-port switch with nodes 0, 1, 2 on ports 0..2, port 3
// unconnected; node 7 exists but has no cable.
func routeErrNet(t *testing.T, cfg Config) (*sim.Queue, *Fabric, map[int]*recv) {
	var q sim.Queue
	f, err := New(&q, nil, cfg)
	must(t, err)
	sw, _ := f.AddSwitch(4)
	for n := 0; n < 3; n++ {
		must(t, f.AddEndpoint(n))
		_, _, err := f.Connect(EndpointPort(n), SwitchPort(sw, n), cfg.Link)
		must(t, err)
	}
	must(t, f.AddEndpoint(7))
	return &q, f, attachAll(t, f, &q)
}

// The drop mode (DeliverUnstripped off): every route to nowhere is
// dropped with its cause.
func TestRoutesToNowhere(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DeliverUnstripped = false
	q, f, rs := routeErrNet(t, cfg)
	var recs []*PacketRecord
	f.SetObserver(func(r *PacketRecord) { recs = append(recs, r) })
	cases := []struct {
		route []byte
		cause DropCause
		err   error
	}{
		{[]byte{0x83}, DropNoRoute, ErrNoRoute},             // port 3: no cable
		{[]byte{0x80 | 0x3F}, DropNoRoute, ErrNoRoute},      // port -1
		{[]byte{0x80 | 0x10}, DropNoRoute, ErrNoRoute},      // port 16 of 4
		{nil, DropNoRoute, ErrNoRoute},                      // route ends at the switch
		{[]byte{0x81, 0x81}, DropUnstripped, ErrUnstripped}, // a byte left at node 1
	}
	var dones []doneAt = make([]doneAt, len(cases))
	for i, c := range cases {
		_, _, err := f.Resolve(0, c.route)
		if !errors.Is(err, c.err) {
			t.Errorf("Resolve(% x): %v", c.route, err)
		}
		must(t, f.Send(0, c.route, payload(100, 0, uint32(i)), 0, dones[i].fn()))
	}
	run(q)
	for _, r := range rs {
		if len(r.log) != 0 {
			t.Errorf("something was delivered: %v", r.log)
		}
	}
	// Each is consumed at its dead end; the sender's transmissions complete
	// back to back without error, route bytes included.
	var at sim.Time
	for i, c := range cases {
		at += WireTime(100+len(c.route), RateMyrinetLAN)
		if dones[i].at != at || dones[i].err != nil || dones[i].calls != 1 {
			t.Errorf("case %d: done %+v, want at %v", i, dones[i], at)
		}
		if recs[i].Cause != c.cause || recs[i].Dst != -1 {
			t.Errorf("case %d: record cause %v dst %d", i, recs[i].Cause, recs[i].Dst)
		}
	}
	es, _ := f.EndpointStats(0)
	if es.Drops[DropNoRoute] != 4 || es.Drops[DropUnstripped] != 1 {
		t.Errorf("drops %v", es.Drops)
	}
	l, _ := f.LinkFrom(EndpointPort(0))
	ls, _ := f.LinkStats(l)
	if ls.Drops[DropNoRoute] != 4 {
		t.Errorf("link drops %v", ls.Drops)
	}
}

func TestSendRejects(t *testing.T) {
	_, f, _ := routeErrNet(t, DefaultConfig())
	called := false
	done := func(sim.Time, error) { called = true }
	checks := []struct {
		err  error
		want error
	}{
		{f.Send(9, nil, []byte{1}, 0, done), ErrUnknownNode},
		{f.Send(-1, nil, []byte{1}, 0, done), ErrUnknownNode},
		{f.Send(7, nil, []byte{1}, 0, done), ErrNotConnected},
		{f.Send(0, []byte{0x81}, nil, 0, done), ErrEmptyPacket},
		{f.Send(0, []byte{0x81}, []byte{}, 0, done), ErrEmptyPacket},
		{f.Send(0, []byte{0x81, 0x01}, []byte{1}, 0, done), ErrBadRoute},
		{f.Ready(42, 0), ErrUnknownNode},
		{f.SetTimeout(42, 0), ErrUnknownNode},
		{f.Attach(42, nil), ErrUnknownNode},
		{f.SetLinkFaults(99, Faults{DropPPM: 1}), ErrUnknownLink},
		{f.SetLinkFaults(-1, Faults{DropPPM: 1}), ErrUnknownLink},
		{f.SetFaults(Faults{DropPPM: 1_000_001}), ErrBadArgument},
	}
	for i, c := range checks {
		if !errors.Is(c.err, c.want) {
			t.Errorf("check %d: %v, want %v", i, c.err, c.want)
		}
	}
	if called {
		t.Error("done called for a rejected send")
	}
	if _, err := f.Route(0, 7); !errors.Is(err, ErrNotConnected) {
		t.Errorf("Route to unconnected: %v", err)
	}
	if _, err := f.Route(0, 99); !errors.Is(err, ErrUnknownNode) {
		t.Errorf("Route to unknown: %v", err)
	}
	if _, err := f.Routes(0, 1, 0); !errors.Is(err, ErrBadArgument) {
		t.Errorf("Routes max 0: %v", err)
	}
	if _, _, err := f.Resolve(7, nil); !errors.Is(err, ErrNotConnected) {
		t.Errorf("Resolve from unconnected: %v", err)
	}
	if _, err := f.LinkStats(1000); !errors.Is(err, ErrUnknownLink) {
		t.Error(err)
	}
	if _, err := f.EndpointStats(1000); !errors.Is(err, ErrUnknownNode) {
		t.Error(err)
	}
}

func TestTopologyErrors(t *testing.T) {
	var q sim.Queue
	if _, err := New(nil, nil, DefaultConfig()); !errors.Is(err, ErrBadArgument) {
		t.Error("nil queue accepted")
	}
	f, _ := New(&q, nil, DefaultConfig())
	lp := DefaultConfig().Link
	must(t, f.AddEndpoint(0))
	must(t, f.AddEndpoint(1))
	must(t, f.AddEndpoint(2))
	if err := f.AddEndpoint(1); !errors.Is(err, ErrExists) {
		t.Error(err)
	}
	if err := f.AddEndpoint(-3); !errors.Is(err, ErrBadArgument) {
		t.Error(err)
	}
	if _, err := f.AddSwitch(33); !errors.Is(err, ErrBadArgument) {
		t.Error("33-port switch with relative routes")
	}
	if _, err := f.AddSwitch(0); !errors.Is(err, ErrBadArgument) {
		t.Error("0-port switch")
	}
	sw, _ := f.AddSwitch(2)
	_, _, err := f.Connect(EndpointPort(0), EndpointPort(1), lp)
	must(t, err)
	errs := []struct {
		a, b Port
		lp   LinkParams
		want error
	}{
		{EndpointPort(0), EndpointPort(2), lp, ErrPortInUse},
		{EndpointPort(2), EndpointPort(1), lp, ErrPortInUse},
		{EndpointPort(2), EndpointPort(2), lp, ErrBadPort},
		{EndpointPort(2), SwitchPort(sw, 2), lp, ErrBadPort},
		{EndpointPort(2), SwitchPort(sw, -1), lp, ErrBadPort},
		{EndpointPort(2), SwitchPort(5, 0), lp, ErrUnknownSwitch},
		{EndpointPort(9), SwitchPort(sw, 0), lp, ErrUnknownNode},
		{Port{Kind: EndpointKind, ID: 2, Num: 1}, SwitchPort(sw, 0), lp, ErrBadPort},
		{Port{Kind: 9}, SwitchPort(sw, 0), lp, ErrBadPort},
		{EndpointPort(2), SwitchPort(sw, 0), LinkParams{}, ErrBadArgument},
	}
	for i, c := range errs {
		if _, _, err := f.Connect(c.a, c.b, c.lp); !errors.Is(err, c.want) {
			t.Errorf("connect %d (%v-%v): %v, want %v", i, c.a, c.b, err, c.want)
		}
	}
	if err := f.SetSwitchLatency(3, 0); !errors.Is(err, ErrUnknownSwitch) {
		t.Error(err)
	}
	if _, err := Star(&q, nil, DefaultConfig(), 40); err == nil {
		t.Error("40-port star with relative routes")
	}
	cfg := DefaultConfig()
	cfg.Routing = RouteAbsolute
	if _, err := Star(&q, nil, cfg, 40); err != nil {
		t.Errorf("40-port star with absolute routes: %v", err)
	}
	if _, err := Clos(&q, nil, DefaultConfig(), 0, 1, 1); !errors.Is(err, ErrBadArgument) {
		t.Error(err)
	}
	if _, _, err := f.Resolve(2, nil); !errors.Is(err, ErrNotConnected) {
		t.Error(err)
	}
	// Two endpoints back to back: no route between others, none to self.
	if _, err := f.Route(0, 0); !errors.Is(err, ErrNoPath) {
		t.Errorf("self route without a switch: %v", err)
	}
	if f.MinLatency() != lp.Latency {
		t.Errorf("MinLatency %v", f.MinLatency())
	}
}

// The Cplant self-test: route byte 0x80 sends a packet back to its sender
// from the first switch.
func TestSelfRoute(t *testing.T) {
	q, f, rs := routeErrNet(t, DefaultConfig())
	route, err := f.Route(1, 1)
	must(t, err)
	if string(route) != "\x80" {
		t.Fatalf("self route % x", route)
	}
	must(t, f.Send(1, route, payload(32, 1, 5), 0, nil))
	run(q)
	if len(rs[1].log) != 1 || seqOf(rs[1].log[0].pkt) != 5 {
		t.Errorf("self delivery %v", rs[1].log)
	}
}

func TestAbsoluteRouting(t *testing.T) {
	var q sim.Queue
	cfg := DefaultConfig()
	cfg.Routing = RouteAbsolute
	f, err := Clos(&q, nil, cfg, 2, 2, 2)
	must(t, err)
	rs := attachAll(t, f, &q)
	// node 0 -> leaf 0 port 2 (spine 0) -> spine 0 port 1 (leaf 1) -> port 1 (node 3)
	route, _ := f.Route(0, 3)
	if string(route) != "\x82\x81\x81" {
		t.Errorf("route % x", route)
	}
	must(t, f.Send(0, route, payload(10, 0, 1), 0, nil))
	run(&q)
	if len(rs[3].log) != 1 {
		t.Error("not delivered")
	}
}

// By default (as the hardware) a packet with route bytes left reaches the
// endpoint with them in front; Unstripped says how many.
func TestDeliverUnstrippedAndNoEndpoint(t *testing.T) {
	cfg := DefaultConfig()
	q, f, rs := routeErrNet(t, cfg)
	if n := f.Unstripped(0, []byte{0x81, 0x85}); n != 1 {
		t.Errorf("Unstripped = %d, want 1", n)
	}
	if n := f.Unstripped(0, []byte{0x81}); n != 0 {
		t.Errorf("Unstripped of a full route = %d", n)
	}
	must(t, f.Send(0, []byte{0x81, 0x85}, []byte{1, 2, 3}, 0, nil))
	must(t, f.Attach(2, nil))
	route, _ := f.Route(0, 2)
	must(t, f.Send(0, route, []byte{9}, 0, nil))
	run(q)
	if len(rs[1].log) != 1 || string(rs[1].log[0].pkt) != "\x85\x01\x02\x03" {
		t.Errorf("unstripped delivery %v", rs[1].log)
	}
	if tot := f.Totals(); tot.Drops[DropNoEndpoint] != 1 || tot.Delivered != 1 {
		t.Errorf("totals %+v", tot)
	}
}

func TestRoutesAlternates(t *testing.T) {
	var q sim.Queue
	f, _ := Clos(&q, nil, DefaultConfig(), 2, 2, 3)
	rs, err := f.Routes(0, 2, 10)
	must(t, err)
	if len(rs) != 3 {
		t.Fatalf("%d routes: % x", len(rs), rs)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if len(r) != 3 || seen[string(r)] {
			t.Errorf("route % x", r)
		}
		seen[string(r)] = true
		if d, _, err := f.Resolve(0, r); err != nil || d != 2 {
			t.Errorf("route % x reaches %d (%v)", r, d, err)
		}
	}
	// Same leaf: one switch, one route.
	if r, _ := f.Routes(0, 1, 10); len(r) != 1 || string(r[0]) != "\x81" {
		t.Errorf("same-leaf routes % x", r)
	}
	// A ring of 4 switches has a short way and a long way round.
	f2, _ := New(&q, nil, DefaultConfig())
	lp := DefaultConfig().Link
	for s := 0; s < 4; s++ {
		_, _ = f2.AddSwitch(3)
	}
	for s := 0; s < 4; s++ {
		_, _, err := f2.Connect(SwitchPort(s, 1), SwitchPort((s+1)%4, 2), lp)
		must(t, err)
	}
	must(t, f2.AddEndpoint(0))
	must(t, f2.AddEndpoint(1))
	_, _, _ = f2.Connect(EndpointPort(0), SwitchPort(0, 0), lp)
	_, _, _ = f2.Connect(EndpointPort(1), SwitchPort(1, 0), lp)
	rr, err := f2.Routes(0, 1, 5)
	must(t, err)
	if len(rr) != 2 || len(rr[0]) != 2 || len(rr[1]) != 4 {
		t.Errorf("ring routes % x", rr)
	}
	for _, r := range rr {
		if d, _, err := f2.Resolve(0, r); d != 1 || err != nil {
			t.Errorf("ring route % x: %d %v", r, d, err)
		}
	}
}

// Every pair of 64 endpoints exchanges a packet, all at once, on a Clos and
// on a tree; everything arrives, intact, at the right node.
func TestAllPairs64(t *testing.T) {
	for _, shape := range []string{"clos", "tree"} {
		t.Run(shape, func(t *testing.T) {
			var q sim.Queue
			var f *Fabric
			var err error
			if shape == "clos" {
				f, err = Clos(&q, nil, DefaultConfig(), 8, 8, 8)
			} else {
				f, err = Tree(&q, nil, DefaultConfig(), 8, 8)
			}
			must(t, err)
			if n := len(f.Endpoints()); n != 64 {
				t.Fatalf("%d endpoints", n)
			}
			rs := attachAll(t, f, &q)
			for s := 0; s < 64; s++ {
				for d := 0; d < 64; d++ {
					if s == d {
						continue
					}
					route, err := f.Route(s, d)
					must(t, err)
					want := 3
					if s/8 == d/8 {
						want = 1
					}
					if len(route) != want {
						t.Fatalf("route %d->%d % x", s, d, route)
					}
					must(t, f.Send(s, route, payload(256, s, uint32(d)), 0, nil))
				}
			}
			run(&q)
			for d := 0; d < 64; d++ {
				log := rs[d].log
				if len(log) != 63 {
					t.Fatalf("node %d got %d packets", d, len(log))
				}
				from := map[int]bool{}
				for _, g := range log {
					s := srcOf(g.pkt)
					if seqOf(g.pkt) != uint32(d) || from[s] || string(g.pkt) != string(payload(256, s, uint32(d))) {
						t.Fatalf("node %d: bad packet from %d", d, s)
					}
					from[s] = true
				}
			}
			if tot := f.Totals(); tot.Delivered != 64*63 || tot.Sent != 64*63 {
				t.Errorf("totals %+v", tot)
			}
		})
	}
}

// Back to back (no switch) a packet's route byte is not consumed by
// anything: it reaches the other board in front of the packet (Cplant's
// self-test byte 0x80, docs/hardware.md).
func TestBackToBackRouteByteDelivered(t *testing.T) {
	var q sim.Queue
	f, err := New(&q, nil, DefaultConfig())
	must(t, err)
	rs := map[int]*recv{}
	for n := range 2 {
		must(t, f.AddEndpoint(n))
		rs[n] = &recv{}
		must(t, f.Attach(n, rs[n]))
	}
	_, _, err = f.Connect(EndpointPort(0), EndpointPort(1), DefaultConfig().Link)
	must(t, err)
	if n := f.Unstripped(0, []byte{0x80}); n != 1 {
		t.Fatalf("Unstripped = %d", n)
	}
	must(t, f.Send(0, []byte{0x80}, []byte{8, 3, 0x59}, 0, nil))
	run(&q)
	if len(rs[1].log) != 1 || string(rs[1].log[0].pkt) != "\x80\x08\x03\x59" {
		t.Fatalf("delivered %v", rs[1].log)
	}
}
