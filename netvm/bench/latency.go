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

// latency is E1: the one-way latency of an n-byte WRITE with a counter,
// ping-pong between a process on each node, each busy-waiting on its
// counter; one way = half the mean round trip. The minimum over the sizes
// is the thesis' 5.56 µs.
func (r *runner) latency() error {
	s := Series{Name: "NetVM"}
	best := 0.0
	for _, n := range r.latencySizes() {
		l, err := pingpong(r.c, abi.ModeNetVM, n, r.rounds(n), "busy")
		if err != nil {
			return err
		}
		r.bar.step(sizeName(n))
		r.e1[n] = l
		s.X, s.Y = append(s.X, float64(max(n, 1))), append(s.Y, l)
		if best == 0 || l < best {
			best = l
		}
	}
	r.figure(Figure{ID: "E1.min_latency_us", Paper: 5.56, Measured: best, Unit: "us"})
	r.figure(Figure{ID: "E1.latency_64KiB_us", NoPaper: true, Measured: r.e1[64<<10], Unit: "us"})
	r.curve(Curve{ID: "e1-latency", Title: "E1: one-way WRITE latency (busy wait)", XLabel: "WRITE size (bytes; 0 drawn at 1)",
		YLabel: "one-way latency (us)", LogX: true, LogY: true, Series: []Series{s},
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

// notification is E3: the 4-byte ping-pong detected by polling the last
// data byte, against detection through the counter by busy wait, block
// wait (CTR_ARM, interrupt, wake-up) and handler (signal delivery); the
// cost of each is its latency minus the data poll's.
func (r *runner) notification() error {
	rounds := r.rounds(4)
	base, err := pingpong(r.c, abi.ModeNetVM, 4, rounds, "data")
	if err != nil {
		return err
	}
	r.bar.step("poll the data")
	bars := Series{Name: "notification cost"}
	for i, m := range []struct {
		mode  string
		paper float64
	}{{"busy", 2.96}, {"block", 0}, {"handler", 17.49}} {
		l, err := pingpong(r.c, abi.ModeNetVM, 4, rounds/2, m.mode)
		if err != nil {
			return err
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
