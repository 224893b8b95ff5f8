package fabric

import (
	"fmt"

	"lanaiemu/sim"
)

// DropCause says why a packet was lost.
type DropCause uint8

// Drop causes. NotDropped is the cause of a delivered packet.
const (
	NotDropped     DropCause = iota
	DropNoRoute              // routed to an unconnected or nonexistent port, or the route ran out at a switch
	DropUnstripped           // reached an endpoint with route bytes left (GM's "unstripped route")
	DropNoEndpoint           // reached an endpoint with no board attached
	DropTimeout              // blocked longer than the network timeout
	DropFault                // lost by an injected fault
	NumDropCauses            // number of causes, for arrays indexed by DropCause
)

var causeNames = [NumDropCauses]string{"delivered", "no-route", "unstripped-route", "no-endpoint", "timeout", "fault"}

// String is a short name: "no-route", "timeout", ...
func (c DropCause) String() string {
	if c < NumDropCauses {
		return causeNames[c]
	}
	return fmt.Sprintf("cause(%d)", uint8(c))
}

// LinkStats are the counters of one directed link. Utilisation over an
// interval is Busy divided by its length.
type LinkStats struct {
	Packets uint64   // packets whose head entered the link (a detoured packet counts twice)
	Bytes   uint64   // wire bytes, route bytes included
	Busy    sim.Time // time the transmitter was held, head to tail
	Blocked sim.Time // part of Busy during which the packet was stalled further on
	Wait    sim.Time // time heads waited for the transmitter to be free
	// Drops counts packets lost at the far end of this link, by cause.
	Drops [NumDropCauses]uint64
}

// EndpointStats are the counters of one endpoint.
type EndpointStats struct {
	Sent, SentBytes           uint64 // packets accepted by Send from this node, and their bytes (route excluded)
	Delivered, DeliveredBytes uint64 // packets delivered to this node, and their bytes
	// NotReady is the time heads of packets to this node waited for its
	// receiver to be ready (back-pressure), timed-out waits included.
	NotReady sim.Time
	// Drops counts packets sent by this node that were lost, by cause.
	Drops     [NumDropCauses]uint64
	Corrupted uint64 // packets sent by this node that had a bit flipped
	Detoured  uint64 // packets sent by this node that were delayed past later ones
	AltRouted uint64 // packets sent by this node moved to an alternate route
}

// Totals are fabric-wide counters.
type Totals struct {
	Sent, Delivered uint64
	Drops           [NumDropCauses]uint64
	Corrupted       uint64
	Detoured        uint64
	AltRouted       uint64
}

// HopRecord is one packet's passage over one link. A detoured packet crosses
// its detour link twice.
type HopRecord struct {
	Link     LinkID
	From, To Port
	Bytes    int      // wire bytes on this link (route bytes left included)
	Wait     sim.Time // time the head waited for the transmitter
	Start    sim.Time // head leaves the near end
	End      sim.Time // tail leaves the near end (the transmitter is free)
	Arrive   sim.Time // head reaches the far end (Start + latency)
	Drained  sim.Time // tail has passed the far end (the receiver is free)
}

// PacketRecord is what the observer learns about one packet once its fate
// is decided. Times in it may lie after the call (tails still travelling).
type PacketRecord struct {
	ID        uint64 // 1, 2, ... in Send order
	Src, Dst  int    // Dst is -1 when the route leads nowhere
	Route     []byte // the route used (an alternate one if AltRouted)
	Len       int    // packet bytes after the route
	Submitted sim.Time
	Cause     DropCause // NotDropped for a delivered packet
	// First and Last are when the first byte reached the receiver and when
	// the last byte had arrived (delivered packets only).
	First, Last sim.Time
	// SenderDone is when the sender's transmission completed (its done
	// callback), or sim.Never if that is still unknown.
	SenderDone sim.Time
	Hops       []HopRecord
	Corrupted  bool
	Detours    int
	AltRouted  bool
}

// Observer is called once per packet, when its fate is decided (delivered
// or dropped), from within a fabric event. It may keep the record.
type Observer func(r *PacketRecord)

// SetObserver installs (or, with nil, removes) the per-packet observer.
func (f *Fabric) SetObserver(o Observer) { f.obs = o }

// LinkStats returns the counters of link id.
func (f *Fabric) LinkStats(id LinkID) (LinkStats, error) {
	if id < 0 || int(id) >= len(f.links) {
		return LinkStats{}, fmt.Errorf("fabric: link %d: %w", id, ErrUnknownLink)
	}
	return f.links[id].stats, nil
}

// EndpointStats returns the counters of node.
func (f *Fabric) EndpointStats(node int) (EndpointStats, error) {
	e, ok := f.eps[node]
	if !ok {
		return EndpointStats{}, fmt.Errorf("fabric: node %d: %w", node, ErrUnknownNode)
	}
	return e.stats, nil
}

// Totals returns the fabric-wide counters.
func (f *Fabric) Totals() Totals { return f.totals }
