package fabric

import (
	"bytes"
	"testing"

	"lanaiemu/sim"
)

// recycler is a board stand-in that gives its packets back: it checks a
// delivered packet when it arrives and again at its last byte (when a
// board stores it), then scribbles over the whole buffer and recycles it.
// A copy reused while the fabric or another packet still held it shows as
// a wrong payload or a misrouted packet.
type recycler struct {
	t       *testing.T
	f       *Fabric
	q       *sim.Queue
	node    int
	sizes   map[[2]int]int // (src, seq) -> payload length, deleted when seen
	rearm   sim.Time       // not ready this long after each last byte
	busy    bool
	arrived int
	reused  int
	given   map[*byte]bool // buffers recycled so far, by any node
}

func (r *recycler) Ready() bool { return !r.busy }

func (r *recycler) check(pkt []byte, when string) {
	r.t.Helper()
	if len(pkt) < 6 {
		r.t.Fatalf("node %d %s: %d-byte packet", r.node, when, len(pkt))
	}
	key := [2]int{srcOf(pkt), int(seqOf(pkt))}
	n, ok := r.sizes[key]
	if !ok || !bytes.Equal(pkt, payload(n, key[0], uint32(key[1]))) {
		r.t.Fatalf("node %d %s: packet %v is not what was sent (%d bytes)", r.node, when, key, len(pkt))
	}
}

func (r *recycler) Deliver(pkt []byte, first, last sim.Time) {
	r.check(pkt, "at its head")
	if cap(pkt) > 0 && r.given[&pkt[:1][0]] {
		r.reused++
	}
	r.busy = r.rearm > 0
	r.q.Schedule(last, r.node, func() {
		r.check(pkt, "at its last byte")
		delete(r.sizes, [2]int{srcOf(pkt), int(seqOf(pkt))})
		r.arrived++
		full := pkt[:cap(pkt)]
		for i := range full {
			full[i] = 0xEE // route bytes that lead nowhere, a payload no one sent
		}
		r.given[&full[0]] = true
		r.f.Recycle(pkt)
		if r.busy {
			r.q.Schedule(last+r.rearm, r.node, func() {
				r.busy = false
				_ = r.f.Ready(r.node, last+r.rearm)
			})
		}
	})
}

// recycleScenario sends 3,000 packets of random sizes between random
// nodes of a Clos with drops, detours, jitter, other routes and network
// timeouts (slow receivers), to recyclers. It returns them and the fabric.
func recycleScenario(t *testing.T, observe func(*PacketRecord)) (f *Fabric, rs []*recycler, routes [][]byte) {
	var q sim.Queue
	var err error
	f, err = Clos(&q, sim.NewRand(21), DefaultConfig(), 3, 3, 2)
	must(t, err)
	must(t, f.SetFaults(Faults{DropPPM: 20_000, DetourPPM: 50_000, DetourDelay: 5 * us,
		JitterPPM: 100_000, JitterMax: us, AltRoutePPM: 200_000}))
	if observe != nil {
		f.SetObserver(observe)
	}
	sizes, given := map[[2]int]int{}, map[*byte]bool{}
	rng := sim.NewRand(5)
	for _, n := range f.Endpoints() {
		r := &recycler{t: t, f: f, q: &q, node: n, sizes: sizes, given: given}
		if n%3 == 0 {
			r.rearm = sim.Time(rng.Intn(30)) * us
		}
		must(t, f.Attach(n, r))
		must(t, f.SetTimeout(n, 20*us))
		rs = append(rs, r)
	}
	eps := f.Endpoints()
	for i := 0; i < 3000; i++ {
		src, dst := eps[rng.Intn(len(eps))], eps[rng.Intn(len(eps))]
		if src == dst {
			dst = eps[(rng.Intn(len(eps)-1)+1+src)%len(eps)]
		}
		route, err := f.Route(src, dst)
		must(t, err)
		n := 6 + rng.Intn(2000)
		sizes[[2]int{src, i}] = n
		pkt, at := payload(n, src, uint32(i)), sim.Time(rng.Intn(1500))*us
		q.Schedule(at, src, func() { // sent in time: copies free up as it runs
			must(t, f.Send(src, route, pkt, at, nil))
			routes = append(routes, route) // packet IDs count Sends from 1
		})
	}
	run(&q)
	if !f.Idle() {
		t.Fatal("the fabric is not idle at the end")
	}
	return f, rs, routes
}

// Packet copies are reused while drops, detours, other routes and
// timeouts are going on, and no packet's bytes change while the fabric or
// its receiver holds them.
func TestRecycleUnderFaults(t *testing.T) {
	f, rs, _ := recycleScenario(t, nil)
	tot := f.Totals()
	arrived, reused := 0, 0
	for _, r := range rs {
		arrived += r.arrived
		reused += r.reused
	}
	var drops uint64
	for _, d := range tot.Drops {
		drops += d
	}
	if uint64(arrived) != tot.Delivered || tot.Delivered+drops != 3000 {
		t.Errorf("%d arrived, %d delivered, %d dropped of 3000", arrived, tot.Delivered, drops)
	}
	if tot.Drops[DropFault] == 0 || tot.Drops[DropTimeout] == 0 || tot.Detoured == 0 || tot.AltRouted == 0 {
		t.Errorf("the faults did not all happen: %+v", tot)
	}
	if reused < arrived/10 {
		t.Errorf("only %d of %d deliveries came in a recycled buffer", reused, arrived)
	}
	t.Logf("%d delivered (%d in recycled buffers), %d dropped (%d timed out)", arrived, reused, drops, tot.Drops[DropTimeout])
}

// An observed packet's copy is never reused: its record keeps the route.
func TestRecycleKeepsObservedRoutes(t *testing.T) {
	var recs []*PacketRecord
	_, _, routes := recycleScenario(t, func(r *PacketRecord) { recs = append(recs, r) })
	if len(recs) != 3000 {
		t.Fatalf("%d records of 3000 packets", len(recs))
	}
	for _, r := range recs {
		if !r.AltRouted && !bytes.Equal(r.Route, routes[r.ID-1]) {
			t.Fatalf("packet %d's recorded route is %x, sent %x", r.ID, r.Route, routes[r.ID-1])
		}
	}
}
