package board

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/lanai/lanaitest"
	"lanaiemu/sim"
)

// Firmware: cplant.s drives Cplant's two-descriptor ring, polling the
// descriptors in SRAM for the TERMINAL bit the engine writes back. Over a
// sweep of read latencies (which moves the write-back to every phase of
// the polling loop) the program never hangs and reads CPUC at most 20
// cycles after the last write-back (one 6-cycle loop iteration, then 14
// cycles to the CPUC load), whether the core executed or skipped the
// polling loop.
func TestFirmwareCplantRing(t *testing.T) {
	img := lanaitest.Build(t, testdata(t, "cplant.s"))
	for i := range 100 {
		host := NewHostRAM(hostBase, 1<<16)
		src := pattern(1536, uint64(i))
		copy(host.Data, src)
		var done []uint64
		p := DefaultPCI()
		p.ReadLatency += sim.Time(i) * 5100 * sim.Picosecond
		b, syms := boot(t, Config{Host: host, PCI: p, Trace: func(e Event) {
			if e.Kind == EvDMADone {
				done = append(done, e.Cycle)
			}
		}}, img)
		code := uint64(runExit(t, b, 1<<24))
		got, _ := b.CPU().Mem.Read(syms["buf"], 1536)
		if d := cmp.Diff(src, got); d != "" {
			t.Fatalf("data (-sent +received):\n%s", d)
		}
		if len(done) != 3 {
			t.Fatalf("%d blocks done", len(done))
		}
		if code < done[2] || code > done[2]+20 {
			t.Fatalf("latency +%v: the firmware saw the last block done at cycle %d, the engine wrote it back at %d", p.ReadLatency-DefaultPCI().ReadLatency, code, done[2])
		}
	}
}
