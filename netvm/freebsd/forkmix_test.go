package freebsd

import (
	"bytes"
	"testing"

	"lanaiemu/sim"
)

// Random forks (of parents and children alike), exits in any order,
// writes, reads, forced evictions and remaps, under memory pressure:
// every live process reads back exactly what it wrote or inherited at its
// fork, through every chain the pruning of shadowed swap copies
// (dropShadowed) shortened.
func TestForkMixKeepsEveryProcessData(t *testing.T) {
	const frames, pages = 20, 8
	for seed := uint64(1); seed <= 6; seed++ {
		k := newHost(t, frames)
		k.StartPageout()
		rng := sim.NewRand(seed)
		type proc struct {
			p    *Proc
			va   uint32
			want []byte
		}
		run(t, k, 10000*sim.Second, func(th *Thread) {
			first := &proc{p: k.NewProc("p0"), want: make([]byte, pages*PageSize)}
			first.va, _ = first.p.Mmap(th, pages*PageSize, ProtRW)
			live := []*proc{first}
			for step := range 600 {
				x := live[rng.Intn(len(live))]
				switch op := rng.Intn(10); {
				case op < 4: // write a few bytes of a page
					off := uint32(rng.Intn(pages*PageSize - 16))
					for i := range 16 {
						x.want[off+uint32(i)] = byte(rng.Uint64())
					}
					if err := x.p.Write(th, x.va+off, x.want[off:off+16]); err != nil {
						t.Fatal(err)
					}
				case op < 5: // read a page in
					buf := make([]byte, 64)
					off := uint32(rng.Intn(pages)) * PageSize
					if err := x.p.Read(th, x.va+off, buf); err != nil || !bytes.Equal(buf, x.want[off:off+64]) {
						t.Fatalf("seed %d step %d: read back wrong", seed, step)
					}
				case op < 6:
					x.p.Evict(th, x.va+uint32(rng.Intn(pages))*PageSize)
				case op < 8 && len(live) < 5:
					c := &proc{p: x.p.Fork(th, "c"), va: x.va, want: bytes.Clone(x.want)}
					live = append(live, c)
				case op < 9 && len(live) > 1:
					i := rng.Intn(len(live))
					live[i].p.Exit(th)
					live = append(live[:i], live[i+1:]...)
				case op == 9 && rng.Intn(4) == 0: // remap: a fresh zero mapping
					if err := x.p.Munmap(th, x.va, pages*PageSize); err != nil {
						t.Fatal(err)
					}
					x.va, _ = x.p.Mmap(th, pages*PageSize, ProtRW)
					clear(x.want)
				}
				for _, y := range live {
					got := make([]byte, len(y.want))
					if err := y.p.Peek(y.va, got); err != nil || !bytes.Equal(got, y.want) {
						t.Fatalf("seed %d step %d: process %d's data changed", seed, step, y.p.PID)
					}
				}
			}
		})
		mustOK(t, k)
		if s := k.VMStats(); s.PageIns == 0 || s.COWCopies == 0 {
			t.Fatalf("seed %d: the test did not page: %+v", seed, s)
		}
	}
}
