package fabric

import (
	"fmt"
	"sort"

	"lanaiemu/sim"
)

// PortKind tells whether a Port belongs to an endpoint or to a switch.
type PortKind uint8

// Port kinds.
const (
	EndpointKind PortKind = iota // a board's link port
	SwitchKind                   // a port of a crossbar switch
)

// Port names one port of the network: an endpoint's only port, or port Num
// of a switch.
type Port struct {
	Kind PortKind
	ID   int // endpoint node id, or switch id
	Num  int // port number on a switch (0 for an endpoint)
}

// EndpointPort is the link port of the endpoint with node id node.
func EndpointPort(node int) Port { return Port{Kind: EndpointKind, ID: node} }

// SwitchPort is port num of switch sw.
func SwitchPort(sw, num int) Port { return Port{Kind: SwitchKind, ID: sw, Num: num} }

// String prints "node3" or "sw2.5" (switch 2, port 5).
func (p Port) String() string {
	if p.Kind == EndpointKind {
		return fmt.Sprintf("node%d", p.ID)
	}
	return fmt.Sprintf("sw%d.%d", p.ID, p.Num)
}

// LinkID names one direction of a connection; IDs count from 0 in the order
// links were made (Connect makes a->b, then b->a).
type LinkID int

// LinkParams are the physical parameters of one cable (both directions).
type LinkParams struct {
	// Rate is the data rate of each direction in bytes per second:
	// 160e6 for 1.28 Gb/s Myrinet-LAN (the NetVM measurements), 250e6 for
	// Myrinet-2000 (lanai9-hw.md §6.1).
	Rate uint64
	// Latency is the propagation delay of each direction, PHYs included.
	Latency sim.Time
}

// LinkInfo describes one directed link.
type LinkInfo struct {
	ID       LinkID
	From, To Port
	LinkParams
}

// portState is what is plugged into a port.
type portState struct {
	out *link // the link leaving the port (nil: unconnected)
	in  *link // the link arriving at the port
}

// endp is an endpoint: a board's link port.
type endp struct {
	node    int
	port    portState
	impl    Endpoint
	timeout sim.Time // network timeout for packets this node sends (0: none)
	waiting *worm    // the packet whose head waits for the receiver to be ready
	stats   EndpointStats
}

// swtch is a crossbar switch.
type swtch struct {
	id      int
	ports   []portState
	latency sim.Time
}

// link is one direction of a connection, with its transmitter (near end)
// and its receiver (far end).
type link struct {
	id       LinkID
	from, to Port
	LinkParams

	fromSW *swtch // near end's switch (nil for an endpoint)
	toSW   *swtch // far end's switch (nil for an endpoint)
	toEP   *endp  // far end's endpoint (nil for a switch)

	txOwner *hop    // packet transmitting (head started, tail not yet left)
	txWait  []*worm // heads waiting for the transmitter, first come first served
	rxOwner *hop    // packet whose tail has not yet drained from the far end
	rxWait  []*worm // heads arrived behind it, in arrival order

	faults *Faults
	stats  LinkStats
}

// AddEndpoint declares an endpoint (a board's link port) with node id node.
// Its link must still be connected (Connect) and, to receive, an Endpoint
// attached (Attach).
func (f *Fabric) AddEndpoint(node int) error {
	if node < 0 {
		return fmt.Errorf("fabric: endpoint node id %d: %w", node, ErrBadArgument)
	}
	if _, ok := f.eps[node]; ok {
		return fmt.Errorf("fabric: endpoint %d: %w", node, ErrExists)
	}
	e := &endp{node: node, timeout: f.cfg.Timeout}
	f.eps[node] = e
	i := sort.SearchInts(f.nodes, node)
	f.nodes = append(f.nodes, 0)
	copy(f.nodes[i+1:], f.nodes[i:])
	f.nodes[i] = node
	return nil
}

// AddSwitch adds a crossbar switch with the given number of ports and the
// configured per-hop latency, and returns its id (switches count from 0).
// Relative routing reaches at most 32 ports, absolute routing 64.
func (f *Fabric) AddSwitch(ports int) (int, error) {
	limit := f.cfg.Routing.MaxPorts()
	if ports < 1 || ports > limit {
		return 0, fmt.Errorf("fabric: switch with %d ports (1..%d with %v routing): %w", ports, limit, f.cfg.Routing, ErrBadArgument)
	}
	s := &swtch{id: len(f.sws), ports: make([]portState, ports), latency: f.cfg.SwitchLatency}
	f.sws = append(f.sws, s)
	return s.id, nil
}

// SetSwitchLatency changes the per-hop (fall-through) latency of one switch.
func (f *Fabric) SetSwitchLatency(sw int, lat sim.Time) error {
	if sw < 0 || sw >= len(f.sws) {
		return fmt.Errorf("fabric: switch %d: %w", sw, ErrUnknownSwitch)
	}
	f.sws[sw].latency = lat
	return nil
}

// Attach gives an endpoint the board-side implementation that receives its
// packets. A packet reaching an endpoint with nothing attached is dropped
// (DropNoEndpoint). Attach(node, nil) detaches.
func (f *Fabric) Attach(node int, ep Endpoint) error {
	e, ok := f.eps[node]
	if !ok {
		return fmt.Errorf("fabric: attach to node %d: %w", node, ErrUnknownNode)
	}
	e.impl = ep
	if w, ok := ep.(PortWatcher); ok {
		w.PortCabled(e.port.out != nil)
	}
	return nil
}

// port finds the state of a port.
func (f *Fabric) port(p Port) (*portState, error) {
	switch p.Kind {
	case EndpointKind:
		e, ok := f.eps[p.ID]
		if !ok {
			return nil, fmt.Errorf("fabric: %v: %w", p, ErrUnknownNode)
		}
		if p.Num != 0 {
			return nil, fmt.Errorf("fabric: %v port %d: an endpoint has port 0 only: %w", p, p.Num, ErrBadPort)
		}
		return &e.port, nil
	case SwitchKind:
		if p.ID < 0 || p.ID >= len(f.sws) {
			return nil, fmt.Errorf("fabric: %v: %w", p, ErrUnknownSwitch)
		}
		s := f.sws[p.ID]
		if p.Num < 0 || p.Num >= len(s.ports) {
			return nil, fmt.Errorf("fabric: %v: switch has %d ports: %w", p, len(s.ports), ErrBadPort)
		}
		return &s.ports[p.Num], nil
	}
	return nil, fmt.Errorf("fabric: port kind %d: %w", p.Kind, ErrBadPort)
}

// Connect joins ports a and b with a cable: a link a->b and a link b->a,
// both with the parameters lp. It returns their ids.
func (f *Fabric) Connect(a, b Port, lp LinkParams) (ab, ba LinkID, err error) {
	if a == b {
		return 0, 0, fmt.Errorf("fabric: connect %v to itself: %w", a, ErrBadPort)
	}
	if lp.Rate == 0 {
		return 0, 0, fmt.Errorf("fabric: connect %v-%v: zero rate: %w", a, b, ErrBadArgument)
	}
	pa, err := f.port(a)
	if err != nil {
		return 0, 0, err
	}
	pb, err := f.port(b)
	if err != nil {
		return 0, 0, err
	}
	if pa.out != nil {
		return 0, 0, fmt.Errorf("fabric: %v: %w", a, ErrPortInUse)
	}
	if pb.out != nil {
		return 0, 0, fmt.Errorf("fabric: %v: %w", b, ErrPortInUse)
	}
	l1 := f.newLink(a, b, lp)
	l2 := f.newLink(b, a, lp)
	pa.out, pa.in = l1, l2
	pb.out, pb.in = l2, l1
	f.tellCabled(a, true)
	f.tellCabled(b, true)
	return l1.id, l2.id, nil
}

// Disconnect pulls the cable out of port p (both its links), between
// packets: the network must be Idle. Afterwards sends from an endpoint
// without a cable are refused (ErrNotConnected), routes over the cable
// lead nowhere, the cable's links keep their ids and statistics but carry
// nothing, and a PortWatcher at either end hears that its port has no
// cable. Connect may plug the ports again (with new links).
func (f *Fabric) Disconnect(p Port) error {
	ps, err := f.port(p)
	if err != nil {
		return err
	}
	if ps.out == nil {
		return fmt.Errorf("fabric: disconnect %v: %w", p, ErrNotConnected)
	}
	if !f.Idle() {
		return fmt.Errorf("fabric: disconnect %v: %w", p, ErrBusy)
	}
	far := ps.out.to
	pf, err := f.port(far)
	if err != nil {
		return err
	}
	*ps, *pf = portState{}, portState{}
	clear(f.alt) // the alternate routes the cable carried
	f.tellCabled(p, false)
	f.tellCabled(far, false)
	return nil
}

// tellCabled tells the PortWatcher attached at endpoint port p, if any,
// whether its port has a cable.
func (f *Fabric) tellCabled(p Port, cabled bool) {
	if p.Kind != EndpointKind {
		return
	}
	if w, ok := f.eps[p.ID].impl.(PortWatcher); ok {
		w.PortCabled(cabled)
	}
}

func (f *Fabric) newLink(from, to Port, lp LinkParams) *link {
	l := &link{id: LinkID(len(f.links)), from: from, to: to, LinkParams: lp}
	if from.Kind == SwitchKind {
		l.fromSW = f.sws[from.ID]
	}
	if to.Kind == SwitchKind {
		l.toSW = f.sws[to.ID]
	} else {
		l.toEP = f.eps[to.ID]
	}
	f.links = append(f.links, l)
	return l
}

// Links lists every directed link, by id.
func (f *Fabric) Links() []LinkInfo {
	out := make([]LinkInfo, len(f.links))
	for i, l := range f.links {
		out[i] = LinkInfo{ID: l.id, From: l.from, To: l.to, LinkParams: l.LinkParams}
	}
	return out
}

// LinkFrom is the id of the link leaving port p.
func (f *Fabric) LinkFrom(p Port) (LinkID, error) {
	ps, err := f.port(p)
	if err != nil {
		return 0, err
	}
	if ps.out == nil {
		return 0, fmt.Errorf("fabric: %v: %w", p, ErrNotConnected)
	}
	return ps.out.id, nil
}

// Endpoints lists the node ids of all endpoints, ascending.
func (f *Fabric) Endpoints() []int { return append([]int(nil), f.nodes...) }

// Switches is the number of switches.
func (f *Fabric) Switches() int { return len(f.sws) }

// MinLatency is the smallest link latency in the network: the lookahead of
// a conservative parallel runner (docs/timeline.md), since nothing a node
// sends reaches another node sooner. It is sim.Never with no links.
func (f *Fabric) MinLatency() sim.Time {
	m := sim.Never
	for _, l := range f.links {
		if l.Latency < m {
			m = l.Latency
		}
	}
	return m
}

// BackToBack builds two endpoints, nodes 0 and 1, joined by one cable with
// cfg.Link (no switch: routes are empty).
func BackToBack(q *sim.Queue, rng *sim.Rand, cfg Config) (*Fabric, error) {
	f, err := New(q, rng, cfg)
	if err != nil {
		return nil, err
	}
	for n := 0; n < 2; n++ {
		if err := f.AddEndpoint(n); err != nil {
			return nil, err
		}
	}
	if _, _, err := f.Connect(EndpointPort(0), EndpointPort(1), cfg.Link); err != nil {
		return nil, err
	}
	return f, nil
}

// Star builds k endpoints, nodes 0..k-1, on one k-port switch (switch 0):
// node i is on port i.
func Star(q *sim.Queue, rng *sim.Rand, cfg Config, k int) (*Fabric, error) {
	f, err := New(q, rng, cfg)
	if err != nil {
		return nil, err
	}
	sw, err := f.AddSwitch(k)
	if err != nil {
		return nil, err
	}
	for n := 0; n < k; n++ {
		if err := f.AddEndpoint(n); err != nil {
			return nil, err
		}
		if _, _, err := f.Connect(EndpointPort(n), SwitchPort(sw, n), cfg.Link); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Tree builds a two-level tree: leaves leaf switches with perLeaf endpoints
// each, under one root switch. It is Clos with one spine.
func Tree(q *sim.Queue, rng *sim.Rand, cfg Config, leaves, perLeaf int) (*Fabric, error) {
	return Clos(q, rng, cfg, leaves, perLeaf, 1)
}

// Clos builds a two-level folded Clos network: leaves leaf switches
// (switches 0..leaves-1) of perLeaf+spines ports and spines spine switches
// (switches leaves..leaves+spines-1) of leaves ports. Node l*perLeaf+h is on
// port h of leaf l; port perLeaf+s of leaf l goes to port l of spine s.
// Clos(8, 8, 8) is a 64-endpoint network of 16-port leaves; every pair of
// nodes on different leaves has spines shortest routes.
func Clos(q *sim.Queue, rng *sim.Rand, cfg Config, leaves, perLeaf, spines int) (*Fabric, error) {
	if leaves < 1 || perLeaf < 1 || spines < 1 {
		return nil, fmt.Errorf("fabric: Clos(%d, %d, %d): %w", leaves, perLeaf, spines, ErrBadArgument)
	}
	f, err := New(q, rng, cfg)
	if err != nil {
		return nil, err
	}
	for l := 0; l < leaves; l++ {
		if _, err := f.AddSwitch(perLeaf + spines); err != nil {
			return nil, err
		}
	}
	for s := 0; s < spines; s++ {
		if _, err := f.AddSwitch(leaves); err != nil {
			return nil, err
		}
	}
	for l := 0; l < leaves; l++ {
		for h := 0; h < perLeaf; h++ {
			n := l*perLeaf + h
			if err := f.AddEndpoint(n); err != nil {
				return nil, err
			}
			if _, _, err := f.Connect(EndpointPort(n), SwitchPort(l, h), cfg.Link); err != nil {
				return nil, err
			}
		}
		for s := 0; s < spines; s++ {
			if _, _, err := f.Connect(SwitchPort(l, perLeaf+s), SwitchPort(leaves+s, l), cfg.Link); err != nil {
				return nil, err
			}
		}
	}
	return f, nil
}
