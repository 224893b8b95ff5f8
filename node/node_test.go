package node

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/objfile"
	"lanaiemu/sim"
)

// build assembles and links fixtures/firmware/name (named by its path, so
// that its .include of firmware/crt/lanai9.inc resolves).
func build(t testing.TB, name string) []byte {
	t.Helper()
	path := filepath.Join("..", "fixtures", "firmware", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return buildSource(t, path, src)
}

// buildSource assembles and links one source file, src named name.
func buildSource(t testing.TB, name string, src []byte) []byte {
	t.Helper()
	res, err := asm.Assemble([]asm.Source{{Name: name, Text: src}}, asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := link.Link([]*objfile.File{res.Object}, []string{name}, link.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := exe.WriteELF()
	if err != nil {
		t.Fatal(err)
	}
	return img
}

type setup struct {
	w    *World
	syms []map[string]uint32
}

// world boots two boards back to back with img and per-node parameter
// words (symbol -> value).
func world(t testing.TB, img []byte, params []map[string]uint32) *setup {
	t.Helper()
	q := &sim.Queue{}
	f, err := fabric.BackToBack(q, nil, fabric.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := &setup{}
	var boards []*board.Board
	for i := range 2 {
		b, err := board.New(board.Config{})
		if err != nil {
			t.Fatal(err)
		}
		im, err := b.Load(img)
		if err != nil {
			t.Fatal(err)
		}
		syms := map[string]uint32{}
		for _, sy := range im.Symbols {
			syms[sy.Name] = sy.Value
		}
		for k, v := range params[i] {
			a, ok := syms[k]
			if !ok {
				t.Fatalf("no symbol %s", k)
			}
			b.CPU().Mem.Write(a, binary.BigEndian.AppendUint32(nil, v))
		}
		s.syms = append(s.syms, syms)
		boards = append(boards, b)
	}
	s.w, err = New(q, f, boards, Config{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *setup) word(t testing.TB, node int, sym string) uint32 {
	v, err := s.w.Nodes[node].Board.CPU().Mem.Word(s.syms[node][sym])
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func run(t testing.TB, s *setup, until sim.Time) Stats {
	t.Helper()
	if err := s.w.Run(until); err != nil {
		t.Fatal(err)
	}
	return s.w.Stats()
}

// One 16-byte packet: every time follows from the parameters.
func TestOnePacketExact(t *testing.T) {
	s := world(t, build(t, "pingpong.s"), []map[string]uint32{{"role": 0, "iters": 1, "len": 16}, {"role": 1, "iters": 1, "len": 16}})
	st := run(t, s, sim.Millisecond)
	if st.LateRisk != 0 {
		t.Fatalf("late risk %d", st.LateRisk)
	}
	a, b := st.Nodes[0], st.Nodes[1]
	if !a.Exited || !b.Exited {
		t.Fatalf("not exited: %+v %+v", a, b)
	}
	clk := s.w.Nodes[0].Board.Clock()
	cfg := fabric.DefaultConfig()
	W := fabric.WireTime(16, cfg.Link.Rate)
	t0 := clk.Time(a.Link.LastCloseCycle)
	if a.Link.FirstSendStart != t0 {
		t.Fatalf("send start %v, SMLT at %v", a.Link.FirstSendStart, t0)
	}
	// B's RECV_INT: the cycle the last byte arrives.
	last := t0 + cfg.Link.Latency + W
	if want := clk.Cycles(last); b.Link.LastRecvCycle < want || b.Link.LastRecvCycle > want+1 {
		t.Fatalf("B RECV at cycle %d, want %d (t0 %v, last %v)", b.Link.LastRecvCycle, want, t0, last)
	}
	// B's reply: A's RECV.
	tb := clk.Time(b.Link.LastCloseCycle)
	if want := clk.Cycles(tb + cfg.Link.Latency + W); a.Link.LastRecvCycle < want || a.Link.LastRecvCycle > want+1 {
		t.Fatalf("A RECV at cycle %d, want %d", a.Link.LastRecvCycle, want)
	}
	// A's first SEND_INT: its last byte left at t0 + W.
	if a.Link.SendInts < 1 {
		t.Fatal("no SEND_INT")
	}
	// The reply's payload arrived intact.
	if got := s.word(t, 0, "rxbuf"); got != 0x00080001 {
		t.Fatalf("A received %#x", got)
	}
	rtt := s.word(t, 0, "rtt1")
	min := 2 * clk.Cycles(cfg.Link.Latency+W)
	t.Logf("one-way wire %v + %v; round trip %d cycles (%v), floor %d cycles; B turnaround %d cycles",
		cfg.Link.Latency, W, rtt, clk.Time(uint64(rtt)), min, b.Link.LastCloseCycle-b.Link.LastRecvCycle)
	if uint64(rtt) < min || uint64(rtt) > min+40 {
		t.Fatalf("round trip %d cycles, want %d..%d", rtt, min, min+40)
	}
}

func TestPingPong(t *testing.T) {
	const n = 100
	s := world(t, build(t, "pingpong.s"), []map[string]uint32{{"role": 0, "iters": n, "len": 32}, {"role": 1, "iters": n, "len": 32}})
	st := run(t, s, 10*sim.Millisecond)
	a := st.Nodes[0]
	if !a.Exited || a.Link.PacketsRecv != n || st.Nodes[1].Link.PacketsRecv != n || st.LateRisk != 0 {
		t.Fatalf("%+v", st)
	}
	rtt := float64(a.ExitCode) / n
	clk := s.w.Nodes[0].Board.Clock()
	t.Logf("%d round trips of 32 bytes: %.1f cycles each (%v); half round trip %v", n, rtt, clk.Time(uint64(rtt)), clk.Time(uint64(rtt/2)))
}

// stream runs count packets of size bytes from node 0 to node 1; jobs > 1
// shares every step out among that many goroutines.
func stream(t testing.TB, size, count uint32, myr uint32, jobs int) (*setup, Stats) {
	p := map[string]uint32{"iters": count, "len": size, "bufsize": 65536 + 8, "myrinet": myr}
	q := map[string]uint32{"role": 1, "iters": count, "len": size, "bufsize": 65536 + 8, "myrinet": myr}
	s := world(t, build(t, "stream.s"), []map[string]uint32{p, q})
	// distinctive payload
	tx := s.syms[0]["txbuf"]
	data := make([]byte, 65536)
	for i := range data {
		data[i] = byte(i*7 + i>>8)
	}
	s.w.Nodes[0].Board.CPU().Mem.Write(tx, data)
	if jobs > 1 {
		s.w.SetJobs(jobs)
		s.w.SetParallelCycles(1)
		s.w.SetBackoff(false)
	}
	st := run(t, s, sim.Second)
	return s, st
}

func TestStream64K(t *testing.T) {
	const size, count = 65536, 20
	s, st := stream(t, size, count, board.MyrinetCRC32Enable|board.MyrinetTxCRC8Enable|board.MyrinetRxCRC8Enable, 1)
	a, b := st.Nodes[0], st.Nodes[1]
	if !a.Exited || !b.Exited || b.ExitCode != count {
		t.Fatalf("%+v", st)
	}
	trailer := uint32(5)
	if got := s.word(t, 1, "total"); got != count*((size+trailer+7)&^7) {
		t.Fatalf("B stored %d bytes", got)
	}
	if b.Link.CRC8Errors != 0 || b.Link.CRC32Errors != 0 || b.Link.Overflows != 0 {
		t.Fatalf("errors %+v", b.Link)
	}
	// every byte that arrived equals what left (the last packet)
	rx, _ := s.w.Nodes[1].Board.CPU().Mem.Read(s.syms[1]["rxbuf"], size+trailer)
	tx, _ := s.w.Nodes[0].Board.CPU().Mem.Read(s.syms[0]["txbuf"], size)
	if d := cmp.Diff(tx, rx[:len(tx)]); d != "" {
		t.Fatalf("received bytes (-sent +received):\n%s", d)
	}
	for i := uint32(size); i < size+trailer; i++ {
		if rx[i] != 0 {
			t.Fatalf("trailer check byte %d = %#x", i-size, rx[i])
		}
	}
	id, _ := s.w.Fabric.LinkFrom(fabric.EndpointPort(0))
	ls, _ := s.w.Fabric.LinkStats(id)
	clk := s.w.Nodes[0].Board.Clock()
	elapsed := clk.Time(uint64(a.ExitCode))
	util := float64(ls.Busy) / float64(elapsed)
	bw := float64(count*size) / (float64(elapsed) / 1e12) / 1e6
	t.Logf("%d x %d B: %v, link busy %.4f, payload %.2f MB/s, blocked sends %d, steps %d", count, size, elapsed, util, bw, a.Link.BlockedSends, st.Steps)
	if util < 0.95 {
		t.Fatalf("link utilisation %.3f", util)
	}
	if st.LateRisk != 0 {
		t.Fatalf("late risk %d", st.LateRisk)
	}
}

func TestStreamSizes(t *testing.T) {
	for _, size := range []uint32{4, 64, 1024, 8192} {
		_, st := stream(t, size, 50, 0, 1)
		a, b := st.Nodes[0], st.Nodes[1]
		if !a.Exited || !b.Exited || b.Link.PacketsRecv != 50 || b.Link.BytesStored != uint64(50*((size+7)&^7)) {
			t.Fatalf("size %d: %+v", size, st)
		}
		el := sim.Clock{Hz: 133_000_000}.Time(uint64(a.ExitCode))
		t.Logf("%5d B: %.2f MB/s payload", size, float64(50*size)/(float64(el)/1e12)/1e6)
	}
}

func TestOverflow(t *testing.T) {
	s := world(t, build(t, "overflow.s"), []map[string]uint32{{"role": 0, "len": 256}, {"role": 1, "bufsize": 64}})
	tx := s.syms[0]["txbuf"]
	data := make([]byte, 256)
	for i := range data {
		data[i] = byte(i) & 0x7f
	}
	data[0] = 1
	s.w.Nodes[0].Board.CPU().Mem.Write(tx, data)
	st := run(t, s, sim.Millisecond)
	b := st.Nodes[1]
	if !b.Exited || b.ExitCode&uint32(board.BuffIntBit) == 0 || b.ExitCode&uint32(board.RecvIntBit) != 0 {
		t.Fatalf("B exit %#x", b.ExitCode)
	}
	rx := s.syms[1]["rxbuf"]
	if got := s.w.Nodes[1].Board.Special(board.RegRMP); got != rx+64 {
		t.Fatalf("RMP %#x, want %#x", got, rx+64)
	}
	m, _ := s.w.Nodes[1].Board.CPU().Mem.Read(rx, 72)
	if d := cmp.Diff(data[:64], m[:64]); d != "" {
		t.Fatalf("stored bytes (-sent +stored):\n%s", d)
	}
	for i := 64; i < 72; i++ {
		if m[i] != 0 {
			t.Fatalf("byte %d past RML written", i)
		}
	}
	if b.Link.Overflows != 1 || b.Link.BytesStored != 64 {
		t.Fatalf("%+v", b.Link)
	}
}

// Back to back nothing strips a route byte: the packet arrives with it in
// front (as the hardware delivers it, docs/hardware.md), and the send
// engine's bad sends (MEM_INT) and empty sends are counted.
func TestUnstrippedRouteAndBadSends(t *testing.T) {
	s := world(t, build(t, "overflow.s"), []map[string]uint32{{"role": 0, "len": 32, "badsend": 1}, {"role": 1, "bufsize": 64}})
	s.w.Nodes[0].Board.CPU().Mem.Write(s.syms[0]["txbuf"], []byte{0x81, 0, 8, 0, 1})
	st := run(t, s, sim.Millisecond)
	a, b := st.Nodes[0], st.Nodes[1]
	if !a.Exited || !b.Exited || b.Link.PacketsRecv != 1 || st.Fabric.Drops[fabric.DropUnstripped] != 0 {
		t.Fatalf("%+v", st)
	}
	if got, _ := s.w.Nodes[1].Board.CPU().Mem.Read(s.syms[1]["rxbuf"], 5); string(got) != "\x81\x00\x08\x00\x01" {
		t.Fatalf("stored % x", got)
	}
	if a.Link.BadSends != 1 || a.Link.EmptySends < 1 || a.ISR&board.MemIntBit == 0 {
		t.Fatalf("%+v ISR %#x", a.Link, a.ISR)
	}
}

// Two runs give the same counts; so do three more with the boards of every
// step on two goroutines (Config.Jobs), received bytes included: the
// worker's share of each step claimed by whoever comes first, by the
// caller, by the worker (claimTest; -race checks the hand-overs of each).
func TestDeterminism(t *testing.T) {
	var got []Stats
	var rx [][]byte
	defer func() { claimTest = claimFirst }()
	for k, jobs := range []int{1, 1, 2, 2, 2} {
		claimTest = []int{claimFirst, claimFirst, claimFirst, claimCaller, claimWorker}[k]
		s, st := stream(t, 1000, 30, board.MyrinetCRC32Enable, jobs)
		if jobs > 1 && st.ParallelSteps < st.Steps/2 {
			t.Fatalf("%d of %d steps shared out", st.ParallelSteps, st.Steps)
		}
		st.ParallelSteps = 0
		got = append(got, st)
		b, _ := s.w.Nodes[1].Board.CPU().Mem.Read(s.syms[1]["rxbuf"], 1008)
		rx = append(rx, b)
	}
	for k := 1; k < len(got); k++ {
		a, b := got[0], got[k]
		if a.Steps != b.Steps || a.Time != b.Time || len(a.Nodes) != len(b.Nodes) || a.Fabric != b.Fabric || a.IdleSteps != b.IdleSteps || a.LateRisk != b.LateRisk {
			t.Fatalf("run %d differs: %+v\n%+v", k, a, b)
		}
		for i := range a.Nodes {
			if a.Nodes[i] != b.Nodes[i] || a.Endpoints[i] != b.Endpoints[i] {
				t.Fatalf("run %d: node %d differs", k, i)
			}
		}
		if string(rx[0]) != string(rx[k]) {
			t.Fatalf("run %d: received bytes differ", k)
		}
	}
}

// BenchmarkIdle: two boards polling ISR for a packet that never comes.
func BenchmarkIdle(bm *testing.B) {
	img := build(bm, "pingpong.s")
	var simT sim.Time
	var wall time.Duration
	for bm.Loop() {
		s := world(bm, img, []map[string]uint32{{"role": 1, "iters": 1}, {"role": 1, "iters": 1}})
		start := time.Now()
		run(bm, s, 100*sim.Millisecond)
		wall += time.Since(start)
		simT += 100 * sim.Millisecond
	}
	bm.ReportMetric(float64(simT)/1e12/wall.Seconds(), "sim-s/s")
}

// BenchmarkStream: 64 KB packets back to back.
func BenchmarkStream(bm *testing.B) {
	var simT sim.Time
	var wall time.Duration
	for bm.Loop() {
		start := time.Now()
		s, _ := stream(bm, 65536, 50, 0, 1)
		wall += time.Since(start)
		simT += s.w.Now()
	}
	bm.ReportMetric(float64(simT)/1e12/wall.Seconds(), "sim-s/s")
}

// A packet gathered as Cplant's MCP sends one: a first segment from SA
// bytes into the word at SMP through the word at SML (inclusive), then a
// payload segment from SMP (SA not applied again) up to SMLT (exclusive).
// The receiver stores whole words: the body, the CRC-8 check byte, zeros
// over stale memory, and the CRC-32 check word at RMP-4; ORUN = (-wire) mod 8.
func TestGatherAndTrailer(t *testing.T) {
	const crcs = board.MyrinetCRC32Enable | board.MyrinetTxCRC8Enable | board.MyrinetRxCRC8Enable
	hdr := []byte{0, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0x08, 0x00, 0x00, 0x0d, 0xde, 0xad, 0xbe, 0xef}
	pay := []byte("thirteen byte")
	body := append(append([]byte(nil), hdr[5:]...), pay...) // 11 + 13 = 24 bytes
	for _, c := range []struct {
		myr   uint32
		words int    // bytes stored
		orun  uint32 // ISR bits 10..8
	}{
		{0, 24, 0},
		{crcs, 32, 3}, // 24 + CRC-32 + CRC-8 = 29 on the wire: 3 bytes short of a word
		{board.MyrinetTxCRC8Enable | board.MyrinetRxCRC8Enable, 32, 7},
	} {
		s := world(t, build(t, "gather.s"), []map[string]uint32{{"role": 0, "myr": c.myr}, {"role": 1, "myr": c.myr}})
		s.w.Nodes[0].Board.CPU().Mem.Write(s.syms[0]["txbuf"], hdr)
		s.w.Nodes[0].Board.CPU().Mem.Write(s.syms[0]["paybuf"], pay)
		stale := bytes.Repeat([]byte{0xAA}, 64)
		s.w.Nodes[1].Board.CPU().Mem.Write(s.syms[1]["rxbuf"], stale)
		st := run(t, s, sim.Millisecond)
		b := st.Nodes[1]
		if !st.Nodes[0].Exited || !b.Exited || b.Link.PacketsRecv != 1 || b.Link.CRC8Errors != 0 || b.Link.CRC32Errors != 0 {
			t.Fatalf("myr %#x: %+v", c.myr, st)
		}
		rx := s.syms[1]["rxbuf"]
		got, _ := s.w.Nodes[1].Board.CPU().Mem.Read(rx, 40)
		want := append(append([]byte(nil), body...), make([]byte, c.words-len(body))...)
		want = append(want, stale[:40-c.words]...)
		if !bytes.Equal(got, want) {
			t.Errorf("myr %#x: stored\n% x\nwant\n% x", c.myr, got, want)
		}
		if end := s.word(t, 1, "rmpend"); end != rx+uint32(c.words) {
			t.Errorf("myr %#x: RMP %#x, want %#x", c.myr, end, rx+uint32(c.words))
		}
		if orun := b.ExitCode >> 8 & 7; orun != c.orun {
			t.Errorf("myr %#x: ORUN %d, want %d (ISR %#x)", c.myr, orun, c.orun, b.ExitCode)
		}
	}
}
