package fabric

import (
	"fmt"
)

// RouteMode is the rule by which a switch turns a route byte into an output
// port.
type RouteMode uint8

// Route modes. In both, a route byte has bit 7 set, bits 5..0 carry the
// port and bit 6 is ignored.
const (
	// RouteRelative: bits 5..0 are a two's-complement offset (-32..31)
	// from the input port: out = in + offset. 0x80 sends a packet back out
	// of the port it came in by (the Cplant self-test, lanai9-hw.md §4.1).
	// This is the scheme commonly described for Myrinet (§6.2).
	RouteRelative RouteMode = iota
	// RouteAbsolute: bits 5..0 are the output port number (0..63).
	RouteAbsolute
)

// String is "relative" or "absolute".
func (m RouteMode) String() string {
	if m == RouteAbsolute {
		return "absolute"
	}
	return "relative"
}

// MaxSwitchPorts is the largest switch any routing reaches: absolute
// routing's (a 6-bit port number).
const MaxSwitchPorts = 64

// MaxPorts is the largest switch the mode reaches: 32 ports with
// relative routing (an offset of -32..31 reaches every port from every
// other), MaxSwitchPorts with absolute.
func (m RouteMode) MaxPorts() int {
	if m == RouteAbsolute {
		return MaxSwitchPorts
	}
	return 32
}

// RouteBit marks a route byte.
const RouteBit = 0x80

// EncodeRouteByte is the route byte that makes a switch send a packet that
// came in on port in out of port out.
func EncodeRouteByte(mode RouteMode, in, out int) (byte, error) {
	switch mode {
	case RouteRelative:
		d := out - in
		if d < -32 || d > 31 {
			return 0, fmt.Errorf("fabric: relative route from port %d to %d: offset out of range: %w", in, out, ErrBadRoute)
		}
		return RouteBit | byte(d&0x3F), nil
	case RouteAbsolute:
		if out < 0 || out > 63 {
			return 0, fmt.Errorf("fabric: absolute route to port %d: %w", out, ErrBadRoute)
		}
		return RouteBit | byte(out), nil
	}
	return 0, fmt.Errorf("fabric: route mode %d: %w", mode, ErrBadArgument)
}

// DecodeRouteByte is the output port that route byte b selects for a packet
// that came in on port in. The result may be a port the switch lacks; ok is
// false when b is not a route byte (bit 7 clear).
func DecodeRouteByte(mode RouteMode, in int, b byte) (out int, ok bool) {
	if b&RouteBit == 0 {
		return 0, false
	}
	v := int(b & 0x3F)
	if mode == RouteAbsolute {
		return v, true
	}
	if v >= 32 {
		v -= 64
	}
	return in + v, true
}

// Resolve follows route from node src through the switches, as the packet
// would, and returns the node it reaches and the links it crosses. A route
// to nowhere gives an error (wrapping ErrNoRoute or ErrUnstripped) with the
// links crossed up to the dead end.
func (f *Fabric) Resolve(src int, route []byte) (dst int, links []LinkID, err error) {
	e, ok := f.eps[src]
	if !ok {
		return -1, nil, fmt.Errorf("fabric: node %d: %w", src, ErrUnknownNode)
	}
	l := e.port.out
	if l == nil {
		return -1, nil, fmt.Errorf("fabric: node %d: %w", src, ErrNotConnected)
	}
	for i := 0; ; i++ {
		links = append(links, l.id)
		if l.toEP != nil {
			if i < len(route) {
				return -1, links, fmt.Errorf("fabric: route % x from node %d reaches node %d with %d byte(s) left: %w", route, src, l.toEP.node, len(route)-i, ErrUnstripped)
			}
			return l.toEP.node, links, nil
		}
		if i >= len(route) {
			return -1, links, fmt.Errorf("fabric: route % x from node %d ends at switch %d: %w", route, src, l.to.ID, ErrNoRoute)
		}
		out, ok := DecodeRouteByte(f.cfg.Routing, l.to.Num, route[i])
		if !ok {
			return -1, links, fmt.Errorf("fabric: route byte %#02x: %w", route[i], ErrBadRoute)
		}
		s := l.toSW
		if out < 0 || out >= len(s.ports) || s.ports[out].out == nil {
			return -1, links, fmt.Errorf("fabric: route % x from node %d: switch %d port %d is not connected: %w", route, src, s.id, out, ErrNoRoute)
		}
		l = s.ports[out].out
	}
}

// Route is a shortest route (fewest switches) from node src to node dst:
// the bytes to put in front of the packet. Among equally short routes it
// takes the lowest output port at each switch, so it is deterministic. A
// route from a node to itself goes through its first switch and back.
func (f *Fabric) Route(src, dst int) ([]byte, error) {
	rs, err := f.Routes(src, dst, 1)
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// maxDetour is how many switches longer than the shortest an alternate
// route from Routes may be.
const maxDetour = 2

// Routes lists up to max distinct loop-free routes from src to dst: every
// shortest route first, then routes one and two switches longer, each group
// in order of output ports (lowest first). Sending packets of one flow over
// several of them is how a real Myrinet reorders (lanai9-hw.md §6.3).
func (f *Fabric) Routes(src, dst int, max int) ([][]byte, error) {
	se, ok := f.eps[src]
	if !ok {
		return nil, fmt.Errorf("fabric: node %d: %w", src, ErrUnknownNode)
	}
	de, ok := f.eps[dst]
	if !ok {
		return nil, fmt.Errorf("fabric: node %d: %w", dst, ErrUnknownNode)
	}
	if se.port.out == nil {
		return nil, fmt.Errorf("fabric: node %d: %w", src, ErrNotConnected)
	}
	if de.port.in == nil {
		return nil, fmt.Errorf("fabric: node %d: %w", dst, ErrNotConnected)
	}
	if max < 1 {
		return nil, fmt.Errorf("fabric: Routes max %d: %w", max, ErrBadArgument)
	}
	first := se.port.out
	if first.toEP != nil {
		if first.toEP == de {
			return [][]byte{{}}, nil
		}
		return nil, fmt.Errorf("fabric: node %d to node %d: %w", src, dst, ErrNoPath)
	}
	// dist[s]: switches on the shortest way from switch s to dst, counting s.
	dist := make([]int, len(f.sws))
	for i := range dist {
		dist[i] = -1
	}
	last := de.port.in
	if last.fromSW == nil {
		return nil, fmt.Errorf("fabric: node %d to node %d: %w", src, dst, ErrNoPath)
	}
	dist[last.fromSW.id] = 1
	queue := []*swtch{last.fromSW}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, p := range s.ports {
			// A neighbour switch t reaches s over the link p.in (t -> s).
			if p.in == nil || p.in.fromSW == nil {
				continue
			}
			t := p.in.fromSW
			if dist[t.id] < 0 {
				dist[t.id] = dist[s.id] + 1
				queue = append(queue, t)
			}
		}
	}
	start := first.toSW
	if dist[start.id] < 0 {
		return nil, fmt.Errorf("fabric: node %d to node %d: %w", src, dst, ErrNoPath)
	}
	var out [][]byte
	on := make([]bool, len(f.sws))
	var path []byte
	var walk func(s *swtch, in, left int) bool
	// walk extends path at switch s (entered on port in) with exactly left
	// more switches, s included; it reports whether max routes were found.
	walk = func(s *swtch, in, left int) bool {
		on[s.id] = true
		defer func() { on[s.id] = false }()
		for o, p := range s.ports {
			l := p.out
			if l == nil {
				continue
			}
			b, err := EncodeRouteByte(f.cfg.Routing, in, o)
			if err != nil {
				continue
			}
			if left == 1 {
				if l.toEP == de {
					r := append(append([]byte(nil), path...), b)
					out = append(out, r)
					if len(out) >= max {
						return true
					}
				}
				continue
			}
			t := l.toSW
			if t == nil || on[t.id] || dist[t.id] < 0 || dist[t.id] > left-1 {
				continue
			}
			path = append(path, b)
			done := walk(t, l.to.Num, left-1)
			path = path[:len(path)-1]
			if done {
				return true
			}
		}
		return false
	}
	for n := dist[start.id]; n <= dist[start.id]+maxDetour && n <= len(f.sws); n++ {
		if walk(start, first.to.Num, n) {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("fabric: node %d to node %d: %w", src, dst, ErrNoPath)
	}
	return out, nil
}
