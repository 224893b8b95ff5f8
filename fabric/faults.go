package fabric

import (
	"fmt"

	"lanaiemu/sim"
)

// Faults are injected errors, drawn from the fabric's sim.Rand. Rates are in
// parts per million. Installed with SetLinkFaults they apply to every
// crossing of that link; installed with SetFaults they apply everywhere,
// once per packet, on the packet's last link (the one into its destination).
// A crossing draws, in this order: drop, corrupt, detour, jitter; a dropped
// or detoured packet draws nothing more there.
type Faults struct {
	// DropPPM: the packet is lost at the far end of the link. It still
	// occupies the link; the sender is not told.
	DropPPM uint32
	// CorruptPPM: one bit, chosen uniformly among the packet's bytes (not
	// the route), is flipped. The board's CRC check should catch it.
	CorruptPPM uint32
	// DetourPPM: the packet is pulled aside at the far end of the link (as
	// if it took a longer way round), waits DetourDelay, and crosses the
	// link again behind whatever was queued meanwhile. Later packets
	// overtake it: this is the reordering fault. The re-crossing draws no
	// faults.
	DetourPPM   uint32
	DetourDelay sim.Time
	// JitterPPM: the head is held an extra delay, uniform in
	// [0, JitterMax], at the far end of the link (stalling the packet like
	// any other block; no timeout applies to it). Jitter alone never
	// reorders packets that share a link.
	JitterPPM uint32
	JitterMax sim.Time
	// AltRoutePPM (SetFaults only): the packet is sent over another route
	// to its destination (one of Routes(src, dst, 8), uniformly), when one
	// exists. Whether that reorders depends on the traffic.
	AltRoutePPM uint32
}

func (fl Faults) validate() error {
	for _, p := range []uint32{fl.DropPPM, fl.CorruptPPM, fl.DetourPPM, fl.JitterPPM, fl.AltRoutePPM} {
		if p > 1_000_000 {
			return fmt.Errorf("fabric: fault rate %d ppm > 1e6: %w", p, ErrBadArgument)
		}
	}
	return nil
}

func (fl Faults) zero() bool { return fl == Faults{} }

// SetFaults installs faults applied to every packet (once, on its last
// link). The zero Faults removes them.
func (f *Fabric) SetFaults(fl Faults) error {
	if err := fl.validate(); err != nil {
		return err
	}
	if fl.zero() {
		f.global = nil
		return nil
	}
	f.global = &fl
	return nil
}

// SetLinkFaults installs faults on one directed link (every crossing). The
// zero Faults removes them. AltRoutePPM is ignored here.
func (f *Fabric) SetLinkFaults(id LinkID, fl Faults) error {
	if id < 0 || int(id) >= len(f.links) {
		return fmt.Errorf("fabric: link %d: %w", id, ErrUnknownLink)
	}
	if err := fl.validate(); err != nil {
		return err
	}
	if fl.zero() {
		f.links[id].faults = nil
		return nil
	}
	f.links[id].faults = &fl
	return nil
}

// faultAction is what the draws decided for one crossing.
type faultAction uint8

const (
	faultNone faultAction = iota
	faultDrop
	faultDetour
)

// draw makes the draws of one fault set for worm w at a crossing; it may
// flip a bit and add jitter.
func (f *Fabric) draw(fl *Faults, w *worm, jitter *sim.Time) (faultAction, sim.Time) {
	if fl.DropPPM > 0 && f.rng.Chance(fl.DropPPM) {
		return faultDrop, 0
	}
	if fl.CorruptPPM > 0 && f.rng.Chance(fl.CorruptPPM) {
		p := w.p
		p.complete() // the flip changes the bytes as sent
		bit := f.rng.Intn(len(p.data) * 8)
		p.data[bit/8] ^= 1 << (bit % 8)
		if !p.corrupted {
			p.corrupted = true
			f.totals.Corrupted++
			f.eps[p.src].stats.Corrupted++
		}
	}
	if fl.DetourPPM > 0 && f.rng.Chance(fl.DetourPPM) {
		return faultDetour, fl.DetourDelay
	}
	if fl.JitterPPM > 0 && f.rng.Chance(fl.JitterPPM) {
		v := f.rng.Uint64()
		if m := uint64(fl.JitterMax); m != ^uint64(0) {
			v %= m + 1
		}
		*jitter = satAdd(*jitter, sim.Time(v))
	}
	return faultNone, 0
}
