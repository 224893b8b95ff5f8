package harness

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/board"
	"lanaiemu/lanai"
	"lanaiemu/netvm/abi"
	"lanaiemu/sim"
)

var update = flag.Bool("update", false, "rewrite fixtures/netvm/cycles.golden")

// goldenCycles is the table of firmware path costs (docs/netvm.md shows
// it).
var goldenCycles = filepath.Join(FirmwareDir(), "..", "..", "fixtures", "netvm", "cycles.golden")

// cycleRow is one measured path.
type cycleRow struct {
	name   string
	cycles uint64
	what   string
}

// recorder keeps the board events of both nodes with their cycles.
type recorder struct{ evs [2][]board.Event }

func (r *recorder) trace(n int, e board.Event) { r.evs[n] = append(r.evs[n], e) }

// first returns the cycle of node n's first event after cycle c that
// matches, and fails the test if there is none.
func (r *recorder) first(t *testing.T, n int, after uint64, what string, match func(board.Event) bool) uint64 {
	t.Helper()
	for _, e := range r.evs[n] {
		if e.Cycle >= after && match(e) {
			return e.Cycle
		}
	}
	t.Fatalf("node %d: no %s after cycle %d", n, what, after)
	return 0
}

func kind(k board.EventKind) func(board.Event) bool {
	return func(e board.Event) bool { return e.Kind == k }
}

func dma(k board.EventKind, ch int) func(board.Event) bool {
	return func(e board.Event) bool { return e.Kind == k && e.Channel == ch }
}

// measurePaths runs the paths of docs/netvm.md's cycle table, on boards
// at the default board's clock (ClockHz) with the default PCI model and a 160 MB/s cable.
func measurePaths(t *testing.T) []cycleRow {
	var rows []cycleRow
	add := func(name string, c uint64, what string) { rows = append(rows, cycleRow{name, c, what}) }

	// A 4-byte WRITE with a counter, page-aligned at both ends.
	rec := &recorder{}
	w, src, _ := setupWith(t, Options{Trace: rec.trace})
	n0, n1 := w.Nodes[0], w.Nodes[1]
	copy(n0.HostBytes(src[0], 4), []byte{1, 2, 3, 4})
	w.W.Run(w.Now() + 10*sim.Microsecond) // both idle in their loops
	rec.evs = [2][]board.Event{}
	door := n0.Board.CPU().Cycles
	n0.Write(0, srcVA, 4, 0, impRegion, impCtr)
	w.RunUntil("counter", 100*sim.Nanosecond, sim.Millisecond, func() bool { return n1.Counter(0, ctrID) == 1 })
	w.W.Run(w.Now() + 10*sim.Microsecond)
	wire := rec.first(t, 0, door, "send", kind(board.EvSend))
	stored := rec.first(t, 1, door, "recv", kind(board.EvRecv))
	dmaStart := rec.first(t, 1, stored, "payload DMA", dma(board.EvDMAStart, 0))
	data := rec.first(t, 1, stored, "payload DMA done", dma(board.EvDMADone, 0))
	ctr := rec.first(t, 1, data+1, "counter DMA done", dma(board.EvDMADone, 0))
	add("write4.doorbell_to_wire", wire-door, "op byte posted -> first byte of the DATA packet on the sender's link")
	add("link.wire_to_stored", stored-wire, "first byte out -> packet stored at the receiver (cable, wire time of 41 bytes)")
	add("recv.arrival_to_host_dma", dmaStart-stored, "packet stored -> its SRAM->host DMA starts (checks, window, SPT lock)")
	add("write4.doorbell_to_data", data-door, "op byte posted -> the 4 bytes in the peer host's memory")
	add("notify.data_to_counter", ctr-data, "payload DMA done -> counter value DMA done (unlock, window, deferral, counter)")
	add("write4.doorbell_to_counter", ctr-door, "one-way latency: op byte posted -> counter visible in the peer host")

	// The redirect path: the same to a page that is not resident.
	e := sptEntry(t, n1, dstVA+abi.PageSize)
	n1.PIO(e+abi.SPTFlagsByte, []byte{abi.SPTV | abi.SPTW | abi.SPTP})
	n1.PIO(e+abi.SPTFlagsByte, []byte{0})
	w.MustKernel(n1, abi.KOpSPTUnmap, Field{abi.KSPTIndex, 4, (e - abi.SPTBase) / abi.SPTEntrySize})
	w.W.Run(w.Now() + 10*sim.Microsecond)
	rec.evs = [2][]board.Event{}
	door = n0.Board.CPU().Cycles
	n0.Write(0, srcVA, 4, abi.PageSize, impRegion, abi.NoCounter)
	w.RunEvents(n1, sim.Millisecond)
	stored = rec.first(t, 1, door, "recv", kind(board.EvRecv))
	irq := rec.first(t, 1, stored, "host interrupt", func(e board.Event) bool { return e.Kind == board.EvIRQ && e.Level })
	add("redirect.arrival_to_irq", irq-stored, "packet for a non-resident page stored -> host interrupt for its EvRedirect (slot, DMA to the system buffer, event)")

	// The per-page send cost: a 16-page WRITE with a link ten times
	// faster, so that the sender's work sets the pace.
	rec = &recorder{}
	w, _, _ = setupWith(t, Options{Trace: rec.trace, LinkRate: 10 * board.DefaultLinkRate})
	n0, n1 = w.Nodes[0], w.Nodes[1]
	const pages = 16
	for i := 2; i < pages; i++ {
		w.Map(n0, asid, srcVA+uint32(i)*abi.PageSize, abi.SPTV|abi.SPTW)
	}
	for i := range pages {
		w.Map(n1, asid, dstVA+0x100000+uint32(i)*abi.PageSize, abi.SPTV|abi.SPTW)
	}
	const key, imp = 5<<8 | 7, 9
	w.MustKernel(n1, abi.KOpExport, Field{abi.KEp, 4, 0}, Field{abi.KExpKey, 4, key},
		Field{abi.KExpBase, 4, dstVA + 0x100000}, Field{abi.KExpLen, 4, pages * abi.PageSize}, Field{abi.KExpKind, 4, abi.ExpKindRegion | abi.ExpPermW})
	w.MustKernel(n0, abi.KOpImport, Field{abi.KEp, 4, 0}, Field{abi.KImpIndex, 4, imp}, Field{abi.KImpNode, 4, 1},
		Field{abi.KImpEp, 4, 0}, Field{abi.KImpKey, 4, key}, Field{abi.KImpLen, 4, pages * abi.PageSize}, Field{abi.KImpKind, 4, abi.ExpKindRegion})
	w.W.Run(w.Now() + 10*sim.Microsecond)
	rec.evs = [2][]board.Event{}
	slot, tk := n0.Write(0, srcVA, pages*abi.PageSize, 0, imp, abi.NoCounter)
	w.RunUntil("completion", sim.Microsecond, 10*sim.Millisecond, func() bool { _, g := n0.Comp(0, slot); return g == tk })
	var starts []uint64
	for _, e := range rec.evs[0] {
		if e.Kind == board.EvDMAStart && e.Channel == 2 {
			starts = append(starts, e.Cycle)
		}
	}
	if len(starts) != pages {
		t.Fatalf("%d source DMAs for %d pages", len(starts), pages)
	}
	add("send.page_interval", starts[8]-starts[7], "one page packet to the next when the sender sets the pace (source DMA start to source DMA start, 1600 MB/s link)")

	// Lock-and-translate, routine by routine, on a board of its own.
	l, u, lk := sptCosts(t)
	add("spt.lookup_hit", l, "spt_lookup, hit at the first probe")
	add("spt.lock", lk, "spt_lock of a destination page: test, L = 1, re-read")
	add("spt.unlock", u, "spt_unlock: D = 1, L = 0")
	add("spt.lock_and_translate", l+lk+u, "the sum: what a page costs the firmware for the SPT")
	return rows
}

// sptCosts calls spt_lookup, spt_lock and spt_unlock on a loaded board,
// for an entry at its home index, and returns their cycles.
func sptCosts(t *testing.T) (lookup, unlock, lock uint64) {
	cfg := board.Config{}
	cfg.ClockHz = ClockHz
	b, err := board.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	im, err := b.Load(Build(t))
	if err != nil {
		t.Fatal(err)
	}
	syms := lanai.NewSymbols(im.Symbols)
	c := b.CPU()
	const va, frame = 0x1234_5000, 0x0765_4000
	idx := abi.SPTHash(asid, va>>abi.PageShift)
	e := abi.SPTBase + idx*abi.SPTEntrySize
	put := func(a, v uint32) {
		if err := c.Mem.Write(a, []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	put(e+abi.SPTTag, va|asid)
	put(e+abi.SPTFrame, frame|abi.SPTV|abi.SPTW)
	ret, _ := syms.Addr("boot_panic") // never reached by these routines
	call := func(fn string, regs map[int]uint32) uint64 {
		addr, ok := syms.Addr(fn)
		if !ok {
			t.Fatalf("no symbol %s", fn)
		}
		for r, v := range regs {
			c.R[r] = v
		}
		c.R[15] = ret
		c.R[4] = abi.FWStackTop
		c.Jump(addr)
		c.SetBreakpoint(ret, true)
		c0 := c.Cycles
		if st := c.Run(100_000); st.Kind != lanai.StopBreakpoint || c.PC != ret {
			t.Fatalf("%s did not return (%v at %#x)", fn, st.Kind, c.PC)
		}
		return c.Cycles - c0
	}
	lookup = call("spt_lookup", map[int]uint32{6: asid, 7: va})
	if c.R[8] != e {
		t.Fatalf("spt_lookup found %#x, want %#x", c.R[8], e)
	}
	lock = call("spt_lock", map[int]uint32{8: e, 6: abi.SPTR, 7: abi.SPTV | abi.SPTW})
	if c.R[9] != frame {
		t.Fatalf("spt_lock gave %#x, want %#x", c.R[9], frame)
	}
	unlock = call("spt_unlock", map[int]uint32{8: e, 6: 1})
	return lookup, unlock, lock
}

func formatRows(rows []cycleRow) string {
	var sb strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&sb, "%-28s %7d  %s\n", r.name, r.cycles, r.what)
	}
	return sb.String()
}

// The firmware's path costs are exact and do not move unless someone
// means them to: go test ./netvm/harness -run FirmwareCycles -update
// rewrites fixtures/netvm/cycles.golden, and docs/netvm.md shows the
// table. The SPT's lock-and-translate per page must stay under 5% of the
// 4-byte one-way latency (the goal).
func TestFirmwareCycles(t *testing.T) {
	rows := measurePaths(t)
	got := formatRows(rows)
	if *update {
		if err := os.WriteFile(goldenCycles, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenCycles)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); d != "" {
		t.Errorf("firmware path cycles moved (rerun with -update if meant) (-golden +now):\n%s", d)
	}
	byName := map[string]uint64{}
	for _, r := range rows {
		byName[r.name] = r.cycles
	}
	lt, lat := byName["spt.lock_and_translate"], byName["write4.doorbell_to_counter"]
	t.Logf("lock-and-translate %d cycles = %.2f%% of the 4-byte latency (%d cycles = %v at %d MHz)",
		lt, 100*float64(lt)/float64(lat), lat, sim.Time(lat)*sim.Second/sim.Time(ClockHz), ClockHz/1_000_000)
	if 20*lt >= lat {
		t.Fatalf("lock-and-translate %d cycles is not under 5%% of the 4-byte latency %d", lt, lat)
	}
	doc, err := os.ReadFile(filepath.Join(FirmwareDir(), "..", "..", "docs", "netvm.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !strings.Contains(string(doc), fmt.Sprintf("| `%s` | %d |", r.name, r.cycles)) {
			t.Errorf("docs/netvm.md's cycle table lacks | `%s` | %d |", r.name, r.cycles)
		}
	}
}
