package fabric

import (
	"errors"
	"fmt"
	"math/bits"

	"lanaiemu/sim"
)

// Errors. Functions wrap them with details; test with errors.Is.
var (
	ErrUnknownNode   = errors.New("unknown node")
	ErrUnknownSwitch = errors.New("unknown switch")
	ErrUnknownLink   = errors.New("unknown link")
	ErrBadPort       = errors.New("bad port")
	ErrPortInUse     = errors.New("port already connected")
	ErrNotConnected  = errors.New("port not connected")
	ErrExists        = errors.New("already exists")
	ErrBadArgument   = errors.New("bad argument")
	ErrEmptyPacket   = errors.New("empty packet")
	ErrBadRoute      = errors.New("bad route byte")
	ErrNoRoute       = errors.New("route to nowhere")
	ErrUnstripped    = errors.New("route bytes left at an endpoint")
	ErrNoPath        = errors.New("no path")
	ErrBusy          = errors.New("packets in the network")
	// ErrTimeout is given to a sender whose packet was blocked longer than
	// its network timeout while its transmission was still going on.
	ErrTimeout = errors.New("network timeout")
)

// Defaults (docs/fabric.md gives the sources).
const (
	// RateMyrinetLAN is 1.28 Gb/s Myrinet-LAN in bytes/s: the NetVM link.
	RateMyrinetLAN uint64 = 160_000_000
	// RateMyrinet2000 is 2.0 Gb/s Myrinet-2000 in bytes/s.
	RateMyrinet2000 uint64 = 250_000_000
	// DefaultLinkLatency is a cable plus two PHYs: Myricom's 0.5 us
	// port-to-port through one switch less a 0.3 us switch, split over two
	// links.
	DefaultLinkLatency = 100 * sim.Nanosecond
	// DefaultSwitchLatency is lanai9-hw.md §7.4 switch_latency.
	DefaultSwitchLatency = 300 * sim.Nanosecond
)

// MyrinetTimeout is the network (blocking) timeout selected by the TIMEOUT
// bits (6 and 7) of a LANai 9 MYRINET register value: 0 -> 1/16 s,
// 1 -> 1/4 s, 2 -> 1 s (inferred), 3 -> 4 s (lanai9-hw.md §3.4).
func MyrinetTimeout(reg uint32) sim.Time {
	switch (reg >> 6) & 3 {
	case 0:
		return sim.Second / 16
	case 1:
		return sim.Second / 4
	case 2:
		return sim.Second
	}
	return 4 * sim.Second
}

// Config holds the parameters of a fabric.
type Config struct {
	// Link is what the builders (BackToBack, Star, Tree, Clos) use for
	// every cable.
	Link LinkParams
	// SwitchLatency is the per-hop fall-through latency of new switches.
	SwitchLatency sim.Time
	// Timeout is the initial network timeout of every endpoint (see
	// SetTimeout); 0 disables timeouts.
	Timeout sim.Time
	// Routing is how switches read route bytes.
	Routing RouteMode
	// DeliverUnstripped delivers a packet that reaches an endpoint with
	// route bytes left, with those bytes in front, as the real receive
	// engine stores whatever arrives (GM counts such packets as
	// "unstripped route"; on a cable with no switch Cplant's self-test
	// byte 0x80 arrives so: docs/hardware.md). DefaultConfig sets it;
	// false drops such packets (DropUnstripped).
	DeliverUnstripped bool
}

// DefaultConfig is 160 MB/s links of 100 ns, 0.3 us switches, relative
// routes and the 1/16 s timeout of a MYRINET register with no timeout bits
// set (what Cplant's rtsmcp.9 writes).
func DefaultConfig() Config {
	return Config{
		Link:          LinkParams{Rate: RateMyrinetLAN, Latency: DefaultLinkLatency},
		SwitchLatency: DefaultSwitchLatency,
		Timeout:       MyrinetTimeout(0),
		Routing:       RouteRelative,

		DeliverUnstripped: true,
	}
}

// Endpoint is what a board implements to receive from the fabric.
type Endpoint interface {
	// Ready reports whether the receive engine can take a packet now (a
	// buffer is armed). It is asked when a packet's head arrives, and
	// again at the times given to Fabric.Ready.
	Ready() bool
	// Deliver hands over a packet (the slice is the endpoint's to keep).
	// It is called at time first, when the head is accepted; the last
	// byte has arrived at last (RECV_INT time). Nothing else arrives on the
	// port before last.
	// The endpoint may give the slice back with Fabric.Recycle once it
	// has stored the bytes.
	Deliver(pkt []byte, first, last sim.Time)
}

// NotedEndpoint is an Endpoint that takes the sender's note with a packet
// (SendNoted): the fabric calls DeliverNoted instead of Deliver, with the
// note when the packet arrives exactly as sent, NoteCorrupted when a
// corruption fault flipped one of its bits, and 0 otherwise.
type NotedEndpoint interface {
	Endpoint
	DeliverNoted(pkt []byte, first, last sim.Time, note uint32)
}

// NoteCorrupted is the note a NotedEndpoint gets with a packet a
// corruption fault changed: a bit error on the wire, which a board may
// report as a link error (docs/fabric.md, "Faults"). A sender's note may
// not use this bit.
const NoteCorrupted uint32 = 1 << 31

// PortWatcher is an Endpoint that is told whether its port has a cable:
// at Attach, when Connect cables the port later, and when Disconnect
// pulls the cable out at either end. A board reports an uncabled port as
// its link being down.
type PortWatcher interface {
	Endpoint
	PortCabled(cabled bool)
}

// Fabric is a Myrinet network: endpoints, switches, links and the packets
// in flight. It is driven by the sim.Queue given to New and is not safe for
// concurrent use.
type Fabric struct {
	q     *sim.Queue
	rng   *sim.Rand
	cfg   Config
	eps   map[int]*endp // lookup only; iterate nodes
	free  *fabEvent     // spent scheduled steps (later)
	nodes []int         // endpoint ids, ascending
	sws   []*swtch
	links []*link

	global *Faults
	obs    Observer
	totals Totals
	nextID uint64
	alt    map[[2]int][][]byte
	bufs   [][]byte // packet copies no one holds any more, for reuse (Recycle)

	timerSeq uint64 // timer sequence numbers

	timers  timerHeap // network-timeout deadlines of stalls (some stale)
	timerAt sim.Time  // when the one queued timer event fires (Never: none)
	live    int       // packets sent whose fate is not decided yet
	held    int       // transmitters and receivers held by packets
}

// New makes an empty fabric driven by q. rng is the scenario's generator
// for faults (nil: a generator seeded with 0).
func New(q *sim.Queue, rng *sim.Rand, cfg Config) (*Fabric, error) {
	if q == nil {
		return nil, fmt.Errorf("fabric: nil queue: %w", ErrBadArgument)
	}
	if cfg.Routing > RouteAbsolute {
		return nil, fmt.Errorf("fabric: route mode %d: %w", cfg.Routing, ErrBadArgument)
	}
	if rng == nil {
		rng = sim.NewRand(0)
	}
	return &Fabric{q: q, rng: rng, cfg: cfg, eps: map[int]*endp{}, alt: map[[2]int][][]byte{}, timerAt: sim.Never}, nil
}

// Config returns the fabric's configuration.
func (f *Fabric) Config() Config { return f.cfg }

// WireTime is the time n bytes take on a link of rate bytes/s, rounded up
// to a picosecond (sim.Never if it does not fit).
func WireTime(n int, rate uint64) sim.Time {
	if n <= 0 {
		return 0
	}
	if rate == 0 {
		return sim.Never
	}
	hi, lo := bits.Mul64(uint64(n), uint64(sim.Second))
	if hi >= rate {
		return sim.Never
	}
	q, r := bits.Div64(hi, lo, rate)
	if r != 0 {
		q++
	}
	return sim.Time(q)
}

func satAdd(a, b sim.Time) sim.Time {
	if s := a + b; s >= a {
		return s
	}
	return sim.Never
}

// SetTimeout sets the network timeout applied to packets node sends (what
// its board's MYRINET register selects: MyrinetTimeout). 0 disables it.
func (f *Fabric) SetTimeout(node int, t sim.Time) error {
	e, ok := f.eps[node]
	if !ok {
		return fmt.Errorf("fabric: node %d: %w", node, ErrUnknownNode)
	}
	e.timeout = t
	return nil
}

// packet is one Send: shared by the worms that carry it (two or more when
// it is detoured).
type packet struct {
	id        uint64
	src, dst  int
	route     []byte
	data      []byte
	buf       []byte // the fabric's copy of route and data (nil once released)
	submitted sim.Time
	note      uint32       // SendNoted's
	fill      func([]byte) // SendNoted's, until called (complete)
	done      func(sim.Time, error)
	timeout   sim.Time
	timedOut  bool
	senderHop *hop
	corrupted bool
	altRouted bool
	detours   int
	rec       *PacketRecord
	w0        worm // the worm leaving the sender, kept here to save an allocation
}

type stallKind uint8

const (
	stallTx     stallKind = iota + 1 // head waits for a switch's output link
	stallRx                          // head waits for the far end to drain the previous packet
	stallEP                          // head waits for the receiver to be ready
	stallJitter                      // head held by an injected delay
)

// worm is a packet's passage from where it enters the network (its sender,
// or the near end of its detour link) to where its head is consumed.
type worm struct {
	p      *packet
	ri     int    // route bytes consumed so far
	hops   []*hop // links entered, in order
	detour *link  // the link this worm re-crosses after a detour: no faults there
	first  bool   // the worm leaving the sender (its first hop is the sender's port)

	stalled bool
	kind    stallKind
	since   sim.Time
	gen     uint64 // changes when a stall ends: stale timeouts see it

	waitTx  *link // link whose transmitter the head waits for
	txSince sim.Time
	waitRx  *link // link whose receiver the head waits for
	waitEP  *endp // endpoint whose readiness the head waits for

	hopBuf [wormInlineHops]hop  // the first hops, kept here to save allocations
	hopPtr [wormInlineHops]*hop // backing of hops while it fits
}

// wormInlineHops is how many hops a worm holds without allocating: a
// Clos path (sender, leaf, spine, leaf) has four.
const wormInlineHops = 4

// init makes w a fresh worm of p.
func (w *worm) init(p *packet) {
	*w = worm{p: p}
	w.hops = w.hopPtr[:0]
}

// newHop is the worm's next hop, zero, from its inline ones while they last.
func (w *worm) newHop() *hop {
	if k := len(w.hops); k < wormInlineHops {
		return &w.hopBuf[k]
	}
	return new(hop)
}

// hop is a worm's occupation of one link: the transmitter from g to txEnd,
// the receiver from the head's arrival to rxEnd.
type hop struct {
	w      *worm
	l      *link
	n      int // wire bytes
	wait   sim.Time
	g      sim.Time
	txEnd  sim.Time
	rxEnd  sim.Time
	txGen  uint64
	rxGen  uint64
	sender bool

	rxKnown, txDone, rxDone bool
	txExt, rxExt            bool // pending: to be extended by the current stall
}

// fabArgs are the operands of a scheduled fabric step.
type fabArgs struct {
	p   *packet
	w   *worm
	h   *hop
	l   *link
	e   *endp
	gen uint64
	at  sim.Time
}

// fabEvent is a scheduled fabric step. Spent events wait on the fabric's
// free list for reuse, so the per-packet and per-hop steps schedule
// without allocating; run is the event's bound fire method, made once.
type fabEvent struct {
	f    *Fabric
	step func(*Fabric, fabArgs)
	args fabArgs
	run  func()
	next *fabEvent
}

// fire returns the event to the free list, then runs its step.
func (ev *fabEvent) fire() {
	f, step, a := ev.f, ev.step, ev.args
	ev.step, ev.args, ev.next, f.free = nil, fabArgs{}, f.free, ev
	step(f, a)
}

// later runs step with a at time t (the fabric's events are node -1 on
// the queue).
func (f *Fabric) later(t sim.Time, step func(*Fabric, fabArgs), a fabArgs) {
	ev := f.free
	if ev == nil {
		ev = &fabEvent{f: f}
		ev.run = ev.fire
	} else {
		f.free = ev.next
	}
	ev.step, ev.args, ev.next = step, a, nil
	f.q.Schedule(t, -1, ev.run)
}

// The fabric's scheduled steps (later's step functions).
func stepStart(f *Fabric, a fabArgs)      { f.start(a.p) }
func stepArrive(f *Fabric, a fabArgs)     { f.arrive(a.w, a.h) }
func stepTxRelease(f *Fabric, a fabArgs)  { f.txRelease(a.h, a.gen) }
func stepRxRelease(f *Fabric, a fabArgs)  { f.rxRelease(a.h, a.gen) }
func stepRequest(f *Fabric, a fabArgs)    { f.request(a.w, a.l) }
func stepFireTimers(f *Fabric, a fabArgs) { f.fireTimers(a.at) }
func stepJitterEnd(f *Fabric, a fabArgs) {
	f.stallEnd(a.w)
	f.forward(a.w, a.h)
}
func stepReady(f *Fabric, a fabArgs) {
	e := a.e
	w := e.waiting
	if w != nil && e.impl != nil && e.impl.Ready() {
		f.accept(w, w.hops[len(w.hops)-1], e)
	}
}

// Send hands a packet to the fabric at time at (times before the queue's
// present count as now): route is the source route, pkt the bytes after it
// (both are copied). The packet waits for the sender's port if an earlier
// packet still uses it. done, if not nil, is called when the sender's
// transmission ends: when the last byte has left the port (err nil, also
// for packets that are later dropped), or when the network timeout reset
// the path while it was still sending (ErrTimeout). A node's packets take
// its port in the order of their times (Send order at equal times).
//
// Send rejects, without calling done, an unknown or unconnected sender, an
// empty packet, and route bytes without the route bit.
func (f *Fabric) Send(src int, route []byte, pkt []byte, at sim.Time, done func(at sim.Time, err error)) error {
	return f.SendNoted(src, route, pkt, 0, nil, at, done)
}

// SendNoted is Send with a note for the receiver: an endpoint that
// implements NotedEndpoint gets it with the packet when the packet arrives
// exactly as given here (every route byte stripped, no bit flipped), and 0
// otherwise. A board notes what it knows of the bytes (a check byte it
// appended over the others), so that the receiver need not compute it
// again. fill, if not nil, completes the bytes: the sender left some of
// them (that check byte) to be computed from the others, and the fabric
// calls fill on its copy before anything reads or changes it, except a
// delivery with a non-zero note, whose receiver knows what they hold.
func (f *Fabric) SendNoted(src int, route []byte, pkt []byte, note uint32, fill func(pkt []byte), at sim.Time, done func(at sim.Time, err error)) error {
	if err := f.CheckSend(src, route, pkt); err != nil {
		return err
	}
	if note&NoteCorrupted != 0 {
		return fmt.Errorf("fabric: send from node %d: note %#x uses NoteCorrupted: %w", src, note, ErrBadArgument)
	}
	e := f.eps[src]
	if at < f.q.Now() {
		at = f.q.Now()
	}
	f.nextID++
	// One copy of both, the bytes first, so that the delivered bytes
	// (data) begin the buffer and give it back whole (Recycle).
	n := len(pkt)
	buf := append(append(f.buffer(n+len(route)), pkt...), route...)
	p := &packet{
		id:        f.nextID,
		src:       src,
		dst:       f.destination(e, route),
		route:     buf[n:],
		data:      buf[:n],
		buf:       buf,
		submitted: at,
		note:      note,
		fill:      fill,
		done:      done,
		timeout:   e.timeout,
	}
	if f.obs != nil {
		p.rec = &PacketRecord{ID: p.id, Src: src, Len: len(pkt), Submitted: at}
		// The record keeps the route for good: the endpoint's bytes must
		// not reach into it (Recycle).
		p.data = buf[:n:n]
	}
	e.stats.Sent++
	e.stats.SentBytes += uint64(len(pkt))
	f.totals.Sent++
	f.live++
	f.later(at, stepStart, fabArgs{p: p})
	return nil
}

// CheckSend is the error Send would return, without sending: it reads
// only the topology, so boards running in parallel may call it.
func (f *Fabric) CheckSend(src int, route []byte, pkt []byte) error {
	e, ok := f.eps[src]
	if !ok {
		return fmt.Errorf("fabric: send from node %d: %w", src, ErrUnknownNode)
	}
	if e.port.out == nil {
		return fmt.Errorf("fabric: send from node %d: %w", src, ErrNotConnected)
	}
	if len(pkt) == 0 {
		return fmt.Errorf("fabric: send from node %d: %w", src, ErrEmptyPacket)
	}
	for i, b := range route {
		if b&RouteBit == 0 {
			return fmt.Errorf("fabric: send from node %d: route byte %d is %#02x: %w", src, i, b, ErrBadRoute)
		}
	}
	return nil
}

// destination is the node route leads to from e, or -1.
func (f *Fabric) destination(e *endp, route []byte) int {
	node, left := f.walk(e, route)
	if left > 0 {
		return -1 // delivered unstripped or dropped: not re-routed
	}
	return node
}

// walk follows route from e through the switches: the endpoint node it
// reaches and the route bytes left when it gets there (-1, 0 for a route
// to nowhere).
func (f *Fabric) walk(e *endp, route []byte) (node, left int) {
	l := e.port.out
	for i := 0; ; i++ {
		if l.toEP != nil {
			return l.toEP.node, len(route) - i
		}
		if i >= len(route) {
			return -1, 0
		}
		out, _ := DecodeRouteByte(f.cfg.Routing, l.to.Num, route[i])
		s := l.toSW
		if out < 0 || out >= len(s.ports) || s.ports[out].out == nil {
			return -1, 0
		}
		l = s.ports[out].out
	}
}

// Unstripped is the number of route bytes a packet sent from node src
// with route still carries when it reaches an endpoint (0 when the
// switches strip them all, or when the route leads nowhere). With
// Config.DeliverUnstripped the receiver gets them in front of the packet;
// a sender's link CRC-8 covers them (each switch regenerates it).
func (f *Fabric) Unstripped(src int, route []byte) int {
	e, ok := f.eps[src]
	if !ok || e.port.out == nil {
		return 0
	}
	_, left := f.walk(e, route)
	return left
}

// Ready tells the fabric that node's receiver may have become ready: at
// time at, a packet waiting for it is delivered if Endpoint.Ready says so.
func (f *Fabric) Ready(node int, at sim.Time) error {
	e, ok := f.eps[node]
	if !ok {
		return fmt.Errorf("fabric: ready on node %d: %w", node, ErrUnknownNode)
	}
	f.later(at, stepReady, fabArgs{e: e})
	return nil
}

// start puts a packet on its sender's port.
func (f *Fabric) start(p *packet) {
	if g := f.global; g != nil && g.AltRoutePPM > 0 && p.dst >= 0 && f.rng.Chance(g.AltRoutePPM) {
		f.altRoute(p)
	}
	w := &p.w0
	w.init(p)
	w.first = true
	f.request(w, f.eps[p.src].port.out)
}

// altRoute moves p to another route to its destination, if there is one.
func (f *Fabric) altRoute(p *packet) {
	key := [2]int{p.src, p.dst}
	rs, ok := f.alt[key]
	if !ok {
		rs, _ = f.Routes(p.src, p.dst, 8)
		f.alt[key] = rs
	}
	var others [][]byte
	for _, r := range rs {
		if string(r) != string(p.route) {
			others = append(others, r)
		}
	}
	if len(others) == 0 {
		return
	}
	p.route = others[f.rng.Intn(len(others))]
	p.altRouted = true
	f.totals.AltRouted++
	f.eps[p.src].stats.AltRouted++
}

// request: w's head wants link l's transmitter, now.
func (f *Fabric) request(w *worm, l *link) {
	if l.txOwner == nil && len(l.txWait) == 0 {
		f.grant(w, l)
		return
	}
	w.waitTx = l
	w.txSince = f.q.Now()
	l.txWait = append(l.txWait, w)
	if len(w.hops) > 0 {
		f.stallBegin(w, stallTx)
	}
}

// grant gives w's head link l's transmitter, now.
func (f *Fabric) grant(w *worm, l *link) {
	now := f.q.Now()
	if w.stalled {
		f.stallEnd(w)
	}
	var wait sim.Time
	if w.waitTx == l {
		wait = now - w.txSince
		w.waitTx = nil
	}
	p := w.p
	n := len(p.route) - w.ri + len(p.data)
	h := w.newHop()
	*h = hop{w: w, l: l, n: n, wait: wait, g: now, txEnd: satAdd(now, WireTime(n, l.Rate))}
	if k := len(w.hops); k > 0 {
		// Cut-through: the tail cannot leave before it has come in and
		// crossed the switch; the previous link's receiver drains as it
		// leaves.
		prev := w.hops[k-1]
		var sw sim.Time
		if l.fromSW != nil {
			sw = l.fromSW.latency
		}
		in := satAdd(prev.txEnd, prev.l.Latency)
		if up := satAdd(in, sw); up > h.txEnd {
			h.txEnd = up
		}
		rx := h.txEnd - sw
		if rx < in {
			rx = in
		}
		if rx < now {
			rx = now
		}
		prev.rxEnd, prev.rxKnown = rx, true
		f.schedRx(prev)
	} else if w.first {
		h.sender = true
		p.senderHop = h
	}
	l.txOwner = h
	f.held++
	l.stats.Packets++
	l.stats.Bytes += uint64(n)
	l.stats.Wait += wait
	w.hops = append(w.hops, h)
	f.schedTx(h)
	f.later(satAdd(now, l.Latency), stepArrive, fabArgs{w: w, h: h})
}

func (f *Fabric) schedTx(h *hop) {
	f.later(h.txEnd, stepTxRelease, fabArgs{h: h, gen: h.txGen})
}

func (f *Fabric) schedRx(h *hop) {
	f.later(h.rxEnd, stepRxRelease, fabArgs{h: h, gen: h.rxGen})
}

// txRelease: h's tail has left the near end of its link.
func (f *Fabric) txRelease(h *hop, gen uint64) {
	if h.txDone || h.txGen != gen {
		return
	}
	h.txDone = true
	f.held--
	l := h.l
	l.stats.Busy += h.txEnd - h.g
	if l.txOwner == h {
		l.txOwner = nil
	}
	if h.sender {
		p := h.w.p
		if p.done != nil {
			var err error
			if p.timedOut {
				err = ErrTimeout
			}
			p.done(h.txEnd, err)
		}
	}
	if l.txOwner == nil && len(l.txWait) > 0 {
		var next *worm
		next, l.txWait = popFront(l.txWait)
		f.grant(next, l)
	}
}

// rxRelease: h's tail has drained from the far end of its link.
func (f *Fabric) rxRelease(h *hop, gen uint64) {
	if h.rxDone || h.rxGen != gen {
		return
	}
	h.rxDone = true
	l := h.l
	if l.rxOwner != h {
		return
	}
	l.rxOwner = nil
	f.held--
	if len(l.rxWait) > 0 {
		var next *worm
		next, l.rxWait = popFront(l.rxWait)
		next.waitRx = nil
		nh := next.hops[len(next.hops)-1]
		l.rxOwner = nh
		f.held++
		f.stallEnd(next)
		f.farEnd(next, nh)
	}
}

// arrive: w's head reaches the far end of h's link.
func (f *Fabric) arrive(w *worm, h *hop) {
	l := h.l
	if l.rxOwner != nil || len(l.rxWait) > 0 {
		w.waitRx = l
		l.rxWait = append(l.rxWait, w)
		f.stallBegin(w, stallRx)
		return
	}
	l.rxOwner = h
	f.held++
	f.farEnd(w, h)
}

// farEnd: w's head is at the far end of h's link and owns its receiver.
func (f *Fabric) farEnd(w *worm, h *hop) {
	l := h.l
	e := l.toEP
	if e != nil && w.ri < len(w.p.route) && !f.cfg.DeliverUnstripped {
		f.sink(w, h, DropUnstripped)
		return
	}
	var jitter sim.Time
	if !(w.detour == l && h == w.hops[0]) {
		sets := [2]*Faults{l.faults}
		if e != nil {
			sets[1] = f.global
		}
		for _, fl := range sets {
			if fl == nil {
				continue
			}
			switch act, d := f.draw(fl, w, &jitter); act {
			case faultDrop:
				f.sink(w, h, DropFault)
				return
			case faultDetour:
				f.detour(w, h, d)
				return
			}
		}
	}
	if jitter > 0 {
		f.stallBegin(w, stallJitter)
		f.later(satAdd(f.q.Now(), jitter), stepJitterEnd, fabArgs{w: w, h: h})
		return
	}
	f.forward(w, h)
}

// forward: w's head, at the far end of h's link, goes on: into the
// receiver, or through the switch.
func (f *Fabric) forward(w *worm, h *hop) {
	l := h.l
	p := w.p
	if e := l.toEP; e != nil {
		if e.impl == nil {
			f.sink(w, h, DropNoEndpoint)
			return
		}
		if e.impl.Ready() {
			f.accept(w, h, e)
			return
		}
		e.waiting = w
		w.waitEP = e
		f.stallBegin(w, stallEP)
		return
	}
	s := l.toSW
	if w.ri >= len(p.route) {
		f.sink(w, h, DropNoRoute)
		return
	}
	out, _ := DecodeRouteByte(f.cfg.Routing, l.to.Num, p.route[w.ri])
	w.ri++
	if out < 0 || out >= len(s.ports) || s.ports[out].out == nil {
		f.sink(w, h, DropNoRoute)
		return
	}
	next := s.ports[out].out
	f.later(satAdd(f.q.Now(), s.latency), stepRequest, fabArgs{w: w, l: next})
}

// accept delivers w's packet to endpoint e, now.
func (f *Fabric) accept(w *worm, h *hop, e *endp) {
	if w.stalled {
		f.stallEnd(w)
	}
	e.waiting = nil
	w.waitEP = nil
	l := h.l
	p := w.p
	first := f.q.Now()
	last := satAdd(first, WireTime(h.n, l.Rate))
	if t := satAdd(h.txEnd, l.Latency); t > last {
		last = t
	}
	h.rxEnd, h.rxKnown = last, true
	f.schedRx(h)
	ne, noted := e.impl.(NotedEndpoint)
	noted = noted && p.note != 0 && w.ri == len(p.route) && !p.corrupted // p's copy is what was sent, unchanged
	if !noted {
		p.complete()
	}
	data := p.data
	lent := true // p's copy passes to the endpoint
	if w.ri < len(p.route) {
		data = append(append(f.buffer(len(p.route)-w.ri+len(p.data)), p.route[w.ri:]...), p.data...)
		lent = false
	}
	e.stats.Delivered++
	e.stats.DeliveredBytes += uint64(len(data))
	f.totals.Delivered++
	f.finish(w, NotDropped, first, last)
	if lent {
		p.buf = nil
	} else {
		f.release(p)
	}
	switch {
	case noted:
		ne.DeliverNoted(data, first, last, p.note)
	case ne != nil && p.corrupted:
		ne.DeliverNoted(data, first, last, NoteCorrupted)
	case ne != nil:
		ne.DeliverNoted(data, first, last, 0)
	default:
		e.impl.Deliver(data, first, last)
	}
}

// complete fills in the bytes the sender left to compute (SendNoted).
func (p *packet) complete() {
	if p.fill != nil {
		p.fill(p.data)
		p.fill = nil
	}
}

// drain makes h's far end absorb the rest of the packet at the rate it
// comes in.
func (f *Fabric) drain(h *hop) {
	rx := satAdd(h.txEnd, h.l.Latency)
	if now := f.q.Now(); rx < now {
		rx = now
	}
	h.rxEnd, h.rxKnown = rx, true
	f.schedRx(h)
}

// sink: w's head is consumed at the far end of h's link: the packet is lost.
func (f *Fabric) sink(w *worm, h *hop, cause DropCause) {
	f.drain(h)
	h.l.stats.Drops[cause]++
	f.finish(w, cause, 0, 0)
}

// detour pulls w's packet aside at the far end of h's link; after delay it
// crosses that link again as a new worm.
func (f *Fabric) detour(w *worm, h *hop, delay sim.Time) {
	f.drain(h)
	p := w.p
	if p.detours == 0 {
		f.totals.Detoured++
		f.eps[p.src].stats.Detoured++
	}
	p.detours++
	f.recordHops(w)
	w2 := new(worm)
	w2.init(p)
	w2.ri, w2.detour = h.ri(), h.l
	l := h.l
	f.later(satAdd(h.rxEnd, delay), stepRequest, fabArgs{w: w2, l: l})
}

// ri is the number of route bytes consumed before the packet entered h's
// link.
func (h *hop) ri() int { return len(h.w.p.route) + len(h.w.p.data) - h.n }

// stallBegin: w's head stops, now. Everything behind it that is still
// moving stops too, until stallEnd.
func (f *Fabric) stallBegin(w *worm, kind stallKind) {
	if w.stalled {
		f.stallEnd(w)
	}
	now := f.q.Now()
	w.stalled, w.kind, w.since = true, kind, now
	for _, h := range w.hops {
		if !h.txDone && h.txEnd > now {
			h.txExt = true
			h.txGen++
		}
		if h.rxKnown && !h.rxDone && h.rxEnd > now {
			h.rxExt = true
			h.rxGen++
		}
	}
	if kind != stallJitter && w.p.timeout > 0 {
		gen := w.gen
		f.armTimeout(satAdd(now, w.p.timeout), w, gen)
	}
}

// stallEnd: w's head moves again, now; what was stopped behind it ends
// later by the length of the stall.
func (f *Fabric) stallEnd(w *worm) {
	now := f.q.Now()
	d := now - w.since
	for _, h := range w.hops {
		if h.txExt {
			h.txExt = false
			h.txEnd = satAdd(h.txEnd, d)
			h.l.stats.Blocked += d
			f.schedTx(h)
		}
		if h.rxExt {
			h.rxExt = false
			h.rxEnd = satAdd(h.rxEnd, d)
			f.schedRx(h)
		}
	}
	if w.kind == stallEP && w.waitEP != nil {
		w.waitEP.stats.NotReady += d
	}
	w.stalled = false
	w.gen++
}

// expire: the network timeout of a stall. If the stall is still on, the
// packet is dropped and its path freed now.
func (f *Fabric) expire(w *worm, gen uint64) {
	if !w.stalled || w.gen != gen {
		return
	}
	now := f.q.Now()
	d := now - w.since
	switch w.kind {
	case stallTx:
		w.waitTx.txWait = remove(w.waitTx.txWait, w)
		w.waitTx = nil
	case stallRx:
		w.waitRx.rxWait = remove(w.waitRx.rxWait, w)
		w.waitRx = nil
	case stallEP:
		w.waitEP.waiting = nil
		w.waitEP.stats.NotReady += d
		w.waitEP = nil
	}
	w.stalled = false
	w.gen++
	p := w.p
	p.timedOut = true
	w.hops[len(w.hops)-1].l.stats.Drops[DropTimeout]++
	for _, h := range w.hops {
		if !h.txDone {
			if h.txExt {
				h.l.stats.Blocked += d
			}
			h.txExt = false
			h.txEnd = now
			h.txGen++
			f.txRelease(h, h.txGen)
		}
		if !h.rxDone && h.l.rxOwner == h {
			h.rxExt = false
			h.rxEnd, h.rxKnown = now, true
			h.rxGen++
			f.rxRelease(h, h.rxGen)
		}
	}
	f.finish(w, DropTimeout, 0, 0)
}

// popFront removes the first of ws, shifting the rest down in place so
// that a queue's array serves for ever instead of sliding off its end.
func popFront(ws []*worm) (*worm, []*worm) {
	w := ws[0]
	n := copy(ws, ws[1:])
	ws[n] = nil
	return w, ws[:n]
}

func remove(ws []*worm, w *worm) []*worm {
	for i, x := range ws {
		if x == w {
			return append(ws[:i:i], ws[i+1:]...)
		}
	}
	return ws
}

// recordHops adds w's (final) hops to the packet's record.
func (f *Fabric) recordHops(w *worm) {
	r := w.p.rec
	if r == nil {
		return
	}
	for _, h := range w.hops {
		r.Hops = append(r.Hops, HopRecord{
			Link: h.l.id, From: h.l.from, To: h.l.to, Bytes: h.n, Wait: h.wait,
			Start: h.g, End: h.txEnd, Arrive: satAdd(h.g, h.l.Latency), Drained: h.rxEnd,
		})
	}
}

// finish records the fate of w's packet.
func (f *Fabric) finish(w *worm, cause DropCause, first, last sim.Time) {
	p := w.p
	f.live--
	if cause != NotDropped {
		f.totals.Drops[cause]++
		f.eps[p.src].stats.Drops[cause]++
		f.release(p)
	}
	r := p.rec
	if r == nil || f.obs == nil {
		return
	}
	f.recordHops(w)
	r.Dst = p.dst
	r.Route = p.route
	r.Cause = cause
	r.First, r.Last = first, last
	r.SenderDone = sim.Never
	if p.senderHop != nil {
		r.SenderDone = p.senderHop.txEnd
	}
	r.Corrupted = p.corrupted
	r.Detours = p.detours
	r.AltRouted = p.altRouted
	f.obs(r)
}

// Packet copies are reused. The fabric holds a packet's copy (packet.buf)
// from Send until the packet's fate is decided (finish): nothing reads the
// bytes after that, as a packet has one moving worm at a time and the
// steps left behind (releases of links, stale timers) read only lengths.
// A dropped packet's copy is free then; a delivered one passes to the
// endpoint, which may give it back with Recycle once it has stored it. A
// packet seen by an Observer is never reused: its record keeps the route.

// maxFreeBufs bounds the free list of packet copies.
const maxFreeBufs = 64

// freeBufSize is the least capacity of a new packet copy, so that a copy
// can serve the bigger packets that follow.
const freeBufSize = 256

// buffer is an empty slice with room for n bytes: a free copy if one is
// big enough, else a new one.
func (f *Fabric) buffer(n int) []byte {
	for i := len(f.bufs) - 1; i >= 0; i-- {
		if b := f.bufs[i]; cap(b) >= n {
			last := len(f.bufs) - 1
			f.bufs[i] = f.bufs[last]
			f.bufs[last] = nil
			f.bufs = f.bufs[:last]
			return b
		}
	}
	return make([]byte, 0, max(n, freeBufSize))
}

// release frees p's copy if no record keeps it.
func (f *Fabric) release(p *packet) {
	if p.rec == nil && p.buf != nil {
		f.Recycle(p.buf)
	}
	p.buf = nil
}

// Recycle gives back a packet's bytes that Endpoint.Deliver handed over:
// the endpoint must not use them afterwards. The fabric reuses them for a
// later packet. Recycling is optional (an endpoint may keep its packets
// for good), and, like every call into the fabric, not safe for
// concurrent use.
func (f *Fabric) Recycle(pkt []byte) {
	if cap(pkt) == 0 || len(f.bufs) >= maxFreeBufs {
		return
	}
	f.bufs = append(f.bufs, pkt[:0])
}

// Idle reports whether no packet is in the network: every packet sent has
// been delivered or dropped and has released every link. The queue may
// still hold one timer event, which does nothing: a runner should stop on
// Idle rather than on an empty queue.
func (f *Fabric) Idle() bool { return f.live == 0 && f.held == 0 }

// timer is the network-timeout deadline of one stall.
type timer struct {
	at  sim.Time
	seq uint64
	w   *worm
	gen uint64
}

// timerHeap is a binary min-heap of timers ordered by (at, seq), written
// out for the element type so that pushing and popping allocate nothing
// (container/heap boxes every element in an interface). seq is unique, so
// the order of pops does not depend on the heap's layout.
type timerHeap []timer

func (h timerHeap) less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

// push adds t.
func (h *timerHeap) push(t timer) {
	*h = append(*h, t)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// pop removes and returns the earliest timer.
func (h *timerHeap) pop() timer {
	s := *h
	t := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = timer{} // drop the worm for the collector
	s = s[:n]
	*h = s
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s.less(r, l) {
			m = r
		}
		if !s.less(m, i) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return t
}

// armTimeout records that stall gen of w times out at at. The queue holds
// at most one timer event (the earliest deadline), so that stalls that end
// early leave no pile of dead events behind.
func (f *Fabric) armTimeout(at sim.Time, w *worm, gen uint64) {
	f.timerSeq++
	f.timers.push(timer{at: at, seq: f.timerSeq, w: w, gen: gen})
	f.schedTimer()
}

// schedTimer drops dead deadlines from the top and makes sure an event is
// queued for the earliest live one.
func (f *Fabric) schedTimer() {
	for len(f.timers) > 0 {
		t := f.timers[0]
		if t.w.stalled && t.w.gen == t.gen {
			break
		}
		f.timers.pop()
	}
	if len(f.timers) == 0 {
		return
	}
	at := f.timers[0].at
	if at >= f.timerAt {
		return
	}
	f.timerAt = at
	f.later(at, stepFireTimers, fabArgs{at: at})
}

// fireTimers runs the timeouts due at now.
func (f *Fabric) fireTimers(at sim.Time) {
	if at != f.timerAt {
		return // superseded by an earlier event
	}
	f.timerAt = sim.Never
	now := f.q.Now()
	for len(f.timers) > 0 && f.timers[0].at <= now {
		t := f.timers.pop()
		f.expire(t.w, t.gen)
	}
	f.schedTimer()
}
