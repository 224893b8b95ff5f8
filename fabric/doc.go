// Package fabric is the Myrinet network between the emulated boards: links,
// cut-through crossbar switches, source routes, back-pressure, network
// timeouts and injected faults, at packet level with exact (picosecond)
// timing on the shared sim.Queue. docs/fabric.md describes the model and the
// sources of its parameters.
//
// # Topology
//
// Endpoints are board link ports, named by node id. Switches are crossbars
// with N ports. Connect joins two ports with a pair of unidirectional links,
// each with a rate in bytes per second and a propagation latency; every
// switch adds a fall-through latency per hop. BackToBack, Star, Tree and
// Clos build the usual shapes.
//
// # Packets and routes
//
// A packet is the bytes on the wire after the route: the header the sender
// wrote, its payload and the CRC bytes the board computed. The fabric does
// not interpret them (corruption faults flip bits in them). The route bytes
// travel in front of the packet (they are serialised on the wire too) and
// each switch consumes the first one: a byte with its top bit set is a route
// byte and bits 5..0 select the output port, relative to the input port by
// default (RouteRelative: out = in + signed 6-bit offset, so 0x80 returns a
// packet on the port it came in by) or as a port number (RouteAbsolute).
// Bit 6 is ignored.
//
// A route that ends at an unconnected or nonexistent port, that runs out at a
// switch, or that still has bytes left at an endpoint is "a route to
// nowhere": the packet is consumed where it ends, counted as a drop, and the
// sender's transmission completes as usual (the sender's hardware cannot tell).
//
// # Timing
//
// Switching is cut-through (wormhole). A packet of n wire bytes started at t
// on a link of rate R and latency L has its head at the far end at t+L and
// its last byte leaves the near end at t+n/R (rounded up to a picosecond).
// A switch forwards the head H (its latency) after it arrived, if the output
// link is free; the tail follows as fast as both links allow. A packet holds
// every link from its head to its tail: a head that cannot advance (output
// busy, the previous packet still draining at the far end, receiver not
// ready) stalls the whole worm behind it, so upstream transmitters, the
// sender's included, stay busy for as long as the stall lasts. A stall longer
// than the sender's network timeout drops the packet, frees its path and
// tells the sender (ErrTimeout).
//
// Every event runs through the sim.Queue (node -1) and every random choice
// comes from the sim.Rand given to New, so a run is reproducible bit for
// bit.
package fabric
