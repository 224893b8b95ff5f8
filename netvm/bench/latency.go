package bench

import (
	"fmt"

	"lanaiemu/netvm/abi"
)

// latencySizes are E1's and E4's WRITE sizes (0: a notify-only WRITE).
func (r *runner) latencySizes() []uint32 {
	if r.c.Quick {
		return []uint32{0, 4, 256, 4 << 10, 64 << 10}
	}
	return []uint32{0, 4, 16, 64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10}
}

// throughputSizes are E2's.
func (r *runner) throughputSizes() []uint32 {
	if r.c.Quick {
		return []uint32{4, 256, 4 << 10, 64 << 10, 1 << 20}
	}
	return []uint32{4, 16, 64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}
}

// rounds is the number of ping-pong round trips per point.
func (r *runner) rounds(n uint32) int {
	base := 200
	if r.c.Quick {
		base = 40
	}
	if n >= 16<<10 {
		base /= 2
	}
	return base
}

func sizeName(n uint32) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// latency is E1: the one-way latency of an n-byte WRITE, ping-pong
// between a process on each node; one way = half the mean round trip.
// The thesis' minimum write latency is a plain write: no counter, the
// receiver polling the data (notification "adds" to it, E3), so the
// figure is the minimum of that series (n >= 4: a smaller write has no
// word to poll). Beside it, the same WRITE with a counter detected by a
// busy wait (E3's busy mode), the series E4 compares with static pinning.
func (r *runner) latency() error {
	plain, busy := Series{Name: "no counter, data polled"}, Series{Name: "counter, busy wait"}
	best := 0.0
	for _, n := range r.latencySizes() {
		l, err := pingpong(r.c, abi.ModeNetVM, n, r.rounds(n), "busy")
		if err != nil {
			return err
		}
		r.e1[n] = l
		busy.X, busy.Y = append(busy.X, float64(max(n, 1))), append(busy.Y, l)
		if n >= 4 {
			d, err := pingpong(r.c, abi.ModeNetVM, n, r.rounds(n), "data")
			if err != nil {
				return err
			}
			r.e1data[n] = d
			plain.X, plain.Y = append(plain.X, float64(n)), append(plain.Y, d)
			if best == 0 || d < best {
				best = d
			}
		}
		r.bar.step(sizeName(n))
	}
	r.figure(Figure{ID: "E1.min_latency_us", Paper: 5.56, Measured: best, Unit: "us"})
	r.figure(Figure{ID: "E1.write_busy_4B_us", NoPaper: true, Measured: r.e1[4], Unit: "us"})
	r.figure(Figure{ID: "E1.latency_64KiB_us", NoPaper: true, Measured: r.e1data[64<<10], Unit: "us"})
	r.curve(Curve{ID: "e1-latency", Title: "E1: one-way WRITE latency", XLabel: "WRITE size (bytes; 0 drawn at 1)",
		YLabel: "one-way latency (us)", LogX: true, LogY: true, Series: []Series{plain, busy},
		Marks: []Mark{{At: 5.56, Label: "thesis minimum 5.56 us"}}})
	return nil
}

// throughput is E2: the payload rate of n-byte WRITEs posted back to
// back, each with a counter, at sizes from 4 B to 1 MiB; the highest
// is the thesis' 155.46 MB/s, and its share of the link 97.2 %.
func (r *runner) throughput() error {
	s := Series{Name: "NetVM"}
	best := 0.0
	for _, n := range r.throughputSizes() {
		total := uint64(4 << 20)
		if r.c.Quick {
			total = 1 << 20
		}
		count := int(min(max(total/uint64(n), 64), 2000))
		mbps, err := stream(r.c, n, count)
		if err != nil {
			return err
		}
		r.bar.step(sizeName(n))
		s.X, s.Y = append(s.X, float64(n)), append(s.Y, mbps)
		best = max(best, mbps)
	}
	link := float64(r.c.LinkRate) / 1e6
	r.figure(Figure{ID: "E2.max_throughput_MBps", Paper: 155.46, Measured: best, Unit: "MB/s"})
	r.figure(Figure{ID: "E2.link_pct", Paper: 97.2, Measured: 100 * best / link, Unit: "%"})
	r.curve(Curve{ID: "e2-throughput", Title: "E2: throughput of back-to-back WRITEs", XLabel: "WRITE size (bytes)",
		YLabel: "MB/s (10^6 B/s)", LogX: true, Series: []Series{s},
		Marks: []Mark{{At: 155.46, Label: "thesis 155.46 MB/s"}, {At: link, Label: fmt.Sprintf("link %.0f MB/s", link)}}})
	return nil
}

// notification is E3: what detection adds to a write. The baseline is
// E1's plain 4-byte write (no counter, the data polled); each mode is the
// same WRITE with a counter, detected through it by busy wait, block
// wait (CTR_ARM, interrupt, wake-up) or handler (signal delivery); the
// cost is its latency minus the baseline's.
func (r *runner) notification() error {
	rounds := r.rounds(4)
	base, ok := r.e1data[4]
	if !ok {
		var err error
		if base, err = pingpong(r.c, abi.ModeNetVM, 4, rounds, "data"); err != nil {
			return err
		}
	}
	r.bar.step("plain write")
	bars := Series{Name: "notification cost"}
	for i, m := range []struct {
		mode  string
		paper float64
	}{{"busy", 2.96}, {"block", 0}, {"handler", 17.49}} {
		l, ok := r.e1[4], m.mode == "busy"
		if !ok {
			var err error
			if l, err = pingpong(r.c, abi.ModeNetVM, 4, rounds/2, m.mode); err != nil {
				return err
			}
		}
		r.bar.step(m.mode)
		r.figure(Figure{ID: "E3.notify_" + m.mode + "_us", Paper: m.paper, NoPaper: m.paper == 0, Measured: l - base, Unit: "us"})
		bars.X, bars.Y = append(bars.X, float64(i)), append(bars.Y, l-base)
	}
	r.curve(Curve{ID: "e3-notification", Title: "E3: notification cost by detection", Bars: true,
		Cats: []string{"busy", "block", "handler"}, XLabel: "detection", YLabel: "added one-way latency (us)", Series: []Series{bars},
		Marks: []Mark{{At: 2.96, Label: "thesis busy 2.96 us"}, {At: 17.49, Label: "thesis handler 17.49 us"}}})
	return nil
}

// static is E4: E1 with the firmware in ModeStatic (the SPT translates
// without the lock handshake: static pinning as in VMMC), at every E1
// size; the largest relative overhead must stay under 5 %.
func (r *runner) static() error {
	nv, st := Series{Name: "NetVM"}, Series{Name: "static pinning"}
	ov := Series{Name: "overhead"}
	worst := 0.0
	for _, n := range r.latencySizes() {
		s, err := pingpong(r.c, abi.ModeStatic, n, r.rounds(n), "busy")
		if err != nil {
			return err
		}
		r.bar.step(sizeName(n))
		x := float64(max(n, 1))
		nv.X, nv.Y = append(nv.X, x), append(nv.Y, r.e1[n])
		st.X, st.Y = append(st.X, x), append(st.Y, s)
		o := 100 * (r.e1[n] - s) / s
		ov.X, ov.Y = append(ov.X, x), append(ov.Y, o)
		worst = max(worst, o)
	}
	r.figure(Figure{ID: "E4.max_overhead_vs_static_pct", Paper: 5.0, Bound: "<", Measured: worst, Unit: "%"})
	r.curve(Curve{ID: "e4-static", Title: "E4: NetVM and static pinning", XLabel: "WRITE size (bytes; 0 drawn at 1)",
		YLabel: "one-way latency (us)", LogX: true, LogY: true, Series: []Series{nv, st}})
	r.curve(Curve{ID: "e4-overhead", Title: "E4: overhead over static pinning", XLabel: "WRITE size (bytes; 0 drawn at 1)",
		YLabel: "overhead (%)", LogX: true, Series: []Series{ov}, Marks: []Mark{{At: 5, Label: "thesis bound 5 %"}}})
	return nil
}
