package scenario

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/fabric"
	"lanaiemu/sim"
)

var update = flag.Bool("update", false, "remake fixtures/firmware/cpingpong.s with clang-14 (on purpose only: say why in the commit)")

// clangCPingPong is how fixtures/firmware/cpingpong.s is made from
// cpingpong.c, run in fixtures/firmware (the command its comment gives).
var clangCPingPong = []string{"--target=lanai", "-O2", "-ffreestanding", "-Wall", "-Wextra", "-Werror",
	"-I../../firmware/crt", "-S", "cpingpong.c", "-o"}

// TestCPingPongSource: with clang-14 installed, the committed
// cpingpong.s must be what clang makes of cpingpong.c today (-update
// remakes it); without clang the other tests run the committed .s.
func TestCPingPongSource(t *testing.T) {
	if _, err := exec.LookPath("clang-14"); err != nil {
		t.Skip("clang-14 not installed: the tests run the committed cpingpong.s")
	}
	dir := filepath.Join("..", "fixtures", "firmware")
	golden := filepath.Join(dir, "cpingpong.s")
	out := filepath.Join(t.TempDir(), "cpingpong.s")
	if *update {
		out, _ = filepath.Abs(golden)
	}
	cmd := exec.Command("clang-14", append(clangCPingPong, out)...)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clang-14 cpingpong.c: %v\n%s", err, msg)
	}
	want, _ := os.ReadFile(out)
	if got, err := os.ReadFile(golden); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is not clang-14's output for cpingpong.c (remake it: go test ./scenario -run CPingPongSource -update)", golden)
	}
}

// pingResult is what one run of a ping-pong scenario gave.
type pingResult struct {
	exit   [2]uint32
	cycles [2]uint64
	vars   map[string]uint32 // the C firmware's globals on node 0 (good, bad, rtt_*), and node 1's good as "echoed"
	simPS  uint64
}

// runPingPong runs the scenario file name after edit has changed it, and
// reads the firmware's globals named in vars from node 0 (and "good" of
// node 1 as "echoed" when the firmware has it).
func runPingPong(t *testing.T, name string, edit func(*Scenario), vars ...string) pingResult {
	t.Helper()
	s, err := Load(fixture(name))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(s)
	}
	w, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(nil); err != nil {
		t.Fatal(err)
	}
	st := w.Stats(0)
	if st.Status != StatusOK || st.Outcome != "exit" {
		t.Fatalf("%s: status %d, outcome %s", name, st.Status, st.Outcome)
	}
	r := pingResult{vars: map[string]uint32{}, simPS: st.SimTimePS}
	for i, n := range st.Nodes {
		r.exit[i], r.cycles[i] = *n.ExitCode, n.Cycles
	}
	word := func(node int, sym string) uint32 {
		addr, ok := w.Syms[node][sym]
		if !ok {
			t.Fatalf("node %d: no symbol %q", node, sym)
		}
		b, err := w.Boards[node].CPU().Mem.Read(addr, 4)
		if err != nil {
			t.Fatal(err)
		}
		return binary.BigEndian.Uint32(b)
	}
	for _, v := range vars {
		r.vars[v] = word(0, v)
	}
	if _, ok := w.Syms[1]["good"]; ok {
		r.vars["echoed"] = word(1, "good")
	}
	return r
}

// cyclesOf is a duration in whole cycles at hz, rounded up.
func cyclesOf(d sim.Time, hz uint64) uint64 {
	return (uint64(d)*hz + 1e12 - 1) / 1e12
}

// TestCPingPong runs fixtures/scenarios/cpingpong.json (the C firmware
// fixtures/firmware/cpingpong.c, as clang's committed .s, on two boards
// back to back: 100 round trips of 32 bytes at 133 MHz), and the same
// through a 2-port switch, and holds the results to physics:
//
//   - every packet came back: the echoer counted 100 packets with the
//     right length and pattern and exited 0 (its bad count), the pinger
//     100 replies equal byte for byte to what it sent, which is its
//     exit code, and none bad;
//   - the round trip the pinger measured with CPUC is no shorter than
//     the wire allows and no longer than the wire plus a software budget.
//     The floor (docs/fabric.md, "Timing model"; defaults of "Parameters
//     and their sources": 160 MB/s = 6.25 ns a byte, 100 ns a link, 300 ns
//     a switch, no CRC trailer as MYRINET is 0 after reset): one way,
//     the last byte arrives latency + bytes/rate after the send starts,
//     so back to back 2 x (100 ns + 32 x 6.25 ns) = 600 ns = 80 cycles at
//     133 MHz; through a switch the route byte is on the wire as well and
//     the switch adds its latency: 2 x (2 x 100 + 300 + 33 x 6.25) ns =
//     1412.5 ns = 188 cycles. Above the floor is the C code's own work on
//     the path: the call of round_trip, the pinger's SA, SMP and SMLT
//     stores and its last poll of ISR, the echoer's last poll, its RMP read
//     and its send (and, through the switch, the route byte): about 40
//     instructions. The budget for it is 80 cycles, as long as the back to
//     back wire floor itself (the measured excess is logged: 51..56 back to
//     back, 59..64 through the switch); firmware that doubled the back to
//     back round trip, or a reply that waited for a packet time, would fail;
//   - two runs give the same cycle counts and round trips;
//   - the hand-written pingpong.s on the same settings, back to back and
//     through the switch, for the record (docs/first-firmware.md reports
//     both): its first round trip is no shorter than the wire allows.
func TestCPingPong(t *testing.T) {
	const iters, length, hz = 100, 32, 133_000_000
	const budget = 80 // cycles of firmware work on the path, above the wire floor
	vars := []string{"good", "bad", "rtt_first", "rtt_min", "rtt_max", "rtt_sum"}
	cfg := fabric.DefaultConfig()
	oneWay := func(switches, routeBytes int) sim.Time {
		links := switches + 1
		return sim.Time(links)*cfg.Link.Latency + sim.Time(switches)*cfg.SwitchLatency +
			fabric.WireTime(routeBytes+length, cfg.Link.Rate)
	}
	star := func(s *Scenario) {
		s.Topology.Kind = "star"
		s.Nodes[0].Params["route"] = 0x81 // port 0 to port 1
		s.Nodes[1].Params["route"] = 0xbf // port 1 to port 0 (-1)
	}
	for _, c := range []struct {
		name  string
		edit  func(*Scenario)
		floor sim.Time
	}{
		{"b2b", nil, 2 * oneWay(0, 0)},
		{"star", star, 2 * oneWay(1, 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runPingPong(t, "cpingpong.json", c.edit, vars...)
			if r.exit != [2]uint32{iters, 0} || r.vars["good"] != iters || r.vars["bad"] != 0 || r.vars["echoed"] != iters {
				t.Errorf("exits %v, pinger good %d bad %d, echoer good %d: want %d replies byte for byte, %d packets echoed",
					r.exit, r.vars["good"], r.vars["bad"], r.vars["echoed"], iters, iters)
			}
			floor := cyclesOf(c.floor, hz)
			mean := float64(r.vars["rtt_sum"]) / iters
			t.Logf("round trip: first %d, min %d, max %d, mean %.1f cycles (floor %d = %v); %d and %d cycles run",
				r.vars["rtt_first"], r.vars["rtt_min"], r.vars["rtt_max"], mean, floor, c.floor, r.cycles[0], r.cycles[1])
			if lo, hi := uint32(floor), uint32(floor+budget); r.vars["rtt_min"] < lo || r.vars["rtt_max"] > hi {
				t.Errorf("round trips %d..%d cycles, want within %d..%d (the wire floor and %d cycles of firmware)",
					r.vars["rtt_min"], r.vars["rtt_max"], lo, hi, budget)
			}
			if again := runPingPong(t, "cpingpong.json", c.edit, vars...); !cmp.Equal(again, r, cmp.AllowUnexported(pingResult{})) {
				t.Errorf("second run differs:\n%s", cmp.Diff(r, again, cmp.AllowUnexported(pingResult{})))
			}
		})
	}
	// The assembly on the same settings: its exit code is the cycles of
	// the whole run, rtt1 the first round trip.
	asm := runPingPong(t, "pingpong.json", nil, "rtt1")
	t.Logf("pingpong.s b2b: first round trip %d cycles, %d round trips in %d cycles (%.1f each)",
		asm.vars["rtt1"], iters, asm.exit[0], float64(asm.exit[0])/iters)
	if floor := cyclesOf(2*oneWay(0, 0), hz); uint64(asm.vars["rtt1"]) < floor {
		t.Errorf("pingpong.s: first round trip %d cycles, under the wire floor %d", asm.vars["rtt1"], floor)
	}
	// Through the switch, with the route byte in the first byte of its
	// packet (as clos64.json): 31 bytes of data arrive, 32 go on the wire.
	asmStar := runPingPong(t, "pingpong.json", func(s *Scenario) {
		s.Topology.Kind = "star"
		s.Nodes[0].Params["txbuf"] = 0x81080001
		s.Nodes[1].Params["txbuf"] = 0xbf080001
	}, "rtt1")
	t.Logf("pingpong.s star: first round trip %d cycles, %d round trips in %d cycles (%.1f each)",
		asmStar.vars["rtt1"], iters, asmStar.exit[0], float64(asmStar.exit[0])/iters)
	if floor := cyclesOf(2*oneWay(1, 0), hz); uint64(asmStar.vars["rtt1"]) < floor {
		t.Errorf("pingpong.s star: first round trip %d cycles, under the wire floor %d", asmStar.vars["rtt1"], floor)
	}
}
