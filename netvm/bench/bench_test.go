package bench

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"lanaiemu/plot"
)

// The quick run gives every figure the issue names, finite, with the
// latencies and throughputs positive and no ordering violation, and
// curves whose series are well formed.
func TestQuick(t *testing.T) {
	res, err := Run(Config{Quick: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Figure{}
	for _, f := range res.Figures {
		t.Logf("%-32s paper %8.2f measured %8.2f %s  %s", f.ID, f.Paper, f.Measured, f.Unit, f.Verdict())
		if math.IsNaN(f.Measured) || math.IsInf(f.Measured, 0) {
			t.Errorf("%s = %v", f.ID, f.Measured)
		}
		got[f.ID] = f
	}
	for _, id := range []string{"E1.min_latency_us", "E2.max_throughput_MBps", "E2.link_pct", "E3.notify_busy_us",
		"E3.notify_block_us", "E3.notify_handler_us", "E4.max_overhead_vs_static_pct", "E5.netvm_cheaper_up_to_hit_pct",
		"E8.waitqueue_overhead_pct", "E8.semaphore_overhead_pct", "E7.violations"} {
		if _, ok := got[id]; !ok {
			t.Errorf("no figure %s", id)
		}
	}
	for _, id := range []string{"E1.min_latency_us", "E2.max_throughput_MBps", "E3.notify_block_us", "E3.notify_handler_us", "E5.miss_cost_us"} {
		if got[id].Measured <= 0 {
			t.Errorf("%s = %v", id, got[id].Measured)
		}
	}
	if v := got["E7.violations"]; v.Measured != 0 || v.Verdict() != "holds" {
		t.Errorf("E7: %v violations (%s)", v.Measured, v.Verdict())
	}
	if len(res.Curves) < 7 {
		t.Errorf("%d curves", len(res.Curves))
	}
	checkPlots(t, res.Curves)
	for _, c := range res.Curves {
		for _, s := range c.Series {
			if len(s.X) != len(s.Y) || len(s.X) == 0 || !c.Bars && len(s.X) < 2 {
				t.Errorf("curve %s, series %q: %d x, %d y", c.ID, s.Name, len(s.X), len(s.Y))
			}
		}
	}
}

// No figure is hard-coded: a faster LANai lowers the latency, and a faster
// link raises the throughput. (Not to 95 % of a 250 MB/s link: the
// sender's page build, host DMA at about 227 MB/s on the default PCI
// model plus 2,810 cycles per page at 133 MHz, caps it near 195 MB/s;
// docs/netvm.md §15.)
func TestParametersMoveFigures(t *testing.T) {
	l133, err := pingpong(Config{}, 0, 4, 20, "busy")
	if err != nil {
		t.Fatal(err)
	}
	l200, err := pingpong(Config{ClockHz: 200_000_000}, 0, 4, 20, "busy")
	if err != nil {
		t.Fatal(err)
	}
	if l200 >= l133 {
		t.Fatalf("latency at 200 MHz %.2f us, at 133 MHz %.2f us", l200, l133)
	}
	mb, err := stream(Config{LinkRate: 250_000_000}, 64<<10, 24)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("latency 133 MHz %.2f us, 200 MHz %.2f us; stream on a 250 MB/s link %.1f MB/s", l133, l200, mb)
	if mb < 170 {
		t.Fatalf("%.1f MB/s on a 250 MB/s link: it did not move up from the 160 MB/s link's 155", mb)
	}
}

// checkPlots draws the curves and checks that every file parses and
// holds every series of its curve.
func checkPlots(t *testing.T, curves []Curve) {
	t.Helper()
	dir := t.TempDir()
	files, err := WritePlots(dir, curves)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*len(curves) {
		t.Fatalf("%d files for %d curves", len(files), len(curves))
	}
	for _, c := range curves {
		var want []string
		for _, s := range c.Series {
			want = append(want, s.Name)
		}
		for ext, read := range map[string]func(io.Reader) ([]string, error){".svg": plot.SeriesInSVG, ".png": plot.SeriesInPNG} {
			f, err := os.Open(filepath.Join(dir, c.ID+ext))
			if err != nil {
				t.Fatal(err)
			}
			got, err := read(f)
			f.Close()
			if err != nil {
				t.Errorf("%s%s: %v", c.ID, ext, err)
				continue
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s%s holds %q, want %q", c.ID, ext, got, want)
			}
		}
	}
}
