package scenario

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lanaiemu/sim"
)

// hostScenario parses a scenario with a host script for both boards of a
// b2b pair running hostsig.s (paths resolve in fixtures/scenarios).
func hostScenario(t *testing.T, host string, extra string) (*Scenario, error) {
	t.Helper()
	js := `{"topology":{"kind":"b2b"},"time":"50ms","stop":"host",
		"defaults":{"asm":["hostsig.s"],"host_memory":"64K","sram":"256K","host":` + host + `}` + extra + `}`
	return Parse(fixture("hostscript.json"), []byte(js))
}

func runHost(t *testing.T, host, extra string) *World {
	t.Helper()
	s, err := hostScenario(t, host, extra)
	return runParsed(t, s, err)
}

// runParsed builds and runs a scenario Parse returned, failing the test
// on any error.
func runParsed(t *testing.T, s *Scenario, err error) *World {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(nil); err != nil {
		t.Fatal(err)
	}
	return w
}

// The handshake a driver does with an MCP: load through the window with
// the LANai held in reset, wait for HOST_SIG, enable the interrupt, post
// a word; the interrupt handler reads the firmware's answer. The answer,
// the handler's runs, the EEPROM identity read by the loader, the dump
// and the log are checked.
func TestHostScriptHandshake(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "mbox.bin")
	host := `{"main":[
		{"op":"set","var":"irqs","value":"0"},
		{"op":"set","var":"got","value":"0"},
		{"op":"load"},
		{"op":"wait","space":"special","reg":"ISR","mask":"0x40000000","value":"0x40000000","timeout":"1ms"},
		{"op":"sram_read","addr":"mbox","var":"magic"},
		{"op":"special_write","reg":"ISR","value":"0x40000000"},
		{"op":"special_write","reg":"EIMR","value":"0x40000000"},
		{"op":"set","var":"t0","value":"$now"},
		{"op":"sram_write","addr":"mbox+4","value":"41 + $node"},
		{"op":"wait","space":"expr","until":"$got != 0","timeout":"1ms"},
		{"op":"expect","value":"$got == 42 + $node","text":"the firmware's answer"},
		{"op":"dump","space":"sram","addr":"mbox","len":"16","file":"` + dump + `"},
		{"op":"log","text":"answer","vars":["got","irqs"]}],
	"on_irq":[
		{"op":"special_write","reg":"EIMR","value":"0"},
		{"op":"set","var":"irqs","value":"$irqs + 1"},
		{"op":"sram_read","addr":"mbox+8","var":"got"},
		{"op":"special_write","reg":"ISR","value":"0x40000000"},
		{"op":"special_write","reg":"EIMR","value":"0x40000000"}]}`
	w := runHost(t, host, "")
	st := w.Stats(0)
	if st.Status != StatusOK || st.Outcome != "host done" {
		t.Fatalf("status %d %s: %+v", st.Status, st.Outcome, st.Nodes)
	}
	for i, r := range w.HostResults() {
		v := r.Vars
		if v["magic"] != 0x600dcafe || v["got"] != 42+uint32(i) || v["irqs"] != 1 || v["eeprom_cpu_version"] != 0x0902 {
			t.Errorf("node %d: vars %v", i, v)
		}
		if len(r.Log) != 1 || !strings.Contains(r.Log[0], "answer got=") {
			t.Errorf("node %d: log %q", i, r.Log)
		}
	}
	got, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	want := binary.BigEndian.AppendUint32(nil, 0x600dcafe)
	want = binary.BigEndian.AppendUint32(want, 42)
	want = binary.BigEndian.AppendUint32(want, 43)
	if !bytes.Equal(got[:12], want) { // the last node to dump wrote it: node 1
		t.Errorf("dump % x, want % x", got[:12], want)
	}
}

// A LANai held in reset runs nothing: without a load the firmware never
// raises HOST_SIG and the wait times out (status 72, the step named).
func TestHostScriptNoLoadTimesOut(t *testing.T) {
	w := runHost(t, `{"main":[{"op":"wait","space":"special","reg":"ISR","mask":"0x40000000","value":"0x40000000","timeout":"200us"}]}`, "")
	err := w.HostErr()
	if w.Status() != StatusHostFail || err == nil || !strings.Contains(err.Error(), "main[0] (wait): timed out after 200.000us") {
		t.Fatalf("status %d, %v", w.Status(), err)
	}
	if n := w.W.Stats().Nodes[0].Instructions; n != 0 {
		t.Errorf("%d instructions ran in reset", n)
	}
}

// A failed expect stops the run with status 72 and its text.
func TestHostScriptExpectFails(t *testing.T) {
	w := runHost(t, `{"main":[{"op":"set","var":"x","value":"3"},{"op":"expect","value":"$x == 4","text":"x is four"}]}`, "")
	if err := w.HostErr(); w.Status() != StatusHostFail || err == nil || !strings.Contains(err.Error(), "expected x is four ($x == 4)") {
		t.Fatalf("status %d, %v", w.Status(), err)
	}
	if st := w.Stats(0); st.Outcome != "host failed" || st.Nodes[0].HostError == "" {
		t.Fatalf("%+v", st)
	}
}

// A barrier holds the first node until the second arrives, 50 us later;
// loops run their counts.
func TestHostScriptBarrierAndLoops(t *testing.T) {
	host := `{"main":[
		{"op":"if","value":"$node == 1","then":[{"op":"delay","time":"50us"}]},
		{"op":"barrier","name":"b"},
		{"op":"set","var":"t","value":"$now"},
		{"op":"set","var":"sum","value":"0"},
		{"op":"repeat","count":"5","var":"i","do":[{"op":"set","var":"sum","value":"$sum + $i"}]},
		{"op":"set","var":"n","value":"0"},
		{"op":"while","until":"$n < 7","do":[{"op":"set","var":"n","value":"$n + 1"}]}]}`
	w := runHost(t, host, "")
	if w.Status() != StatusOK {
		t.Fatal(w.HostErr())
	}
	r := w.HostResults()
	for i := range 2 {
		v := r[i].Vars
		if v["t"] < uint32(50*sim.Microsecond/sim.Nanosecond) || v["sum"] != 10 || v["n"] != 7 {
			t.Errorf("node %d: %v", i, v)
		}
	}
}

// Host memory ops: a pattern filled and checked; one word changed is one
// mismatch.
func TestHostScriptHostMemory(t *testing.T) {
	host := `{"main":[
		{"op":"host_fill","addr":"0x1000","len":"103","pattern":"xor_index","value":"0x5555aaaa"},
		{"op":"host_check","addr":"0x1000","len":"103","pattern":"xor_index","value":"0x5555aaaa","var":"good"},
		{"op":"host_write","addr":"0x1010","value":"7"},
		{"op":"host_read","addr":"0x1010","var":"w"},
		{"op":"host_check","addr":"0x1000","len":"103","pattern":"xor_index","value":"0x5555aaaa","var":"bad"},
		{"op":"host_read","addr":"0x1004","var":"w1"}]}`
	w := runHost(t, host, "")
	v := w.HostResults()[0].Vars
	if w.Status() != StatusOK || v["good"] != 0 || v["bad"] != 1 || v["w"] != 7 || v["w1"] != 0x5555aaaa^0x10001 {
		t.Fatalf("status %d vars %v err %v", w.Status(), v, w.HostErr())
	}
}

func TestHostScriptErrors(t *testing.T) {
	cases := []struct{ host, extra, want string }{
		{`{"main":[{"op":"jump"}]}`, "", "main[0] (jump): unknown op"},
		{`{"main":[{"op":"set","var":"x","value":"1 +"}]}`, "", "value"},
		{`{"main":[{"op":"set","value":"1"}]}`, "", "var missing"},
		{`{"main":[{"op":"special_read","reg":"FOO","var":"x"}]}`, "", `reg "FOO" unknown`},
		{`{"main":[{"op":"wait","space":"disk","value":"1"}]}`, "", "space"},
		{`{"main":[{"op":"host_fill","addr":"0","len":"4","pattern":"stripes"}]}`, "", "pattern"},
		{`{"main":[{"op":"if","value":"1","then":[{"op":"nop"}]}]}`, "", "main[0] (if).then[0] (nop): unknown op"},
		{`{"main":[],"bogus":1}`, "", "bogus"},
		{`{"main":[]}`, `,"nodes":[{"params":{"mbox":1}}]`, "params with a host script"},
		// Polls so frequent that a wait of the run's length takes hours
		// (1ps: 10^12 checks a simulated second).
		{`{"poll":"1ps","main":[]}`, "", "nodes[0].host.poll: 1ps: at least 10.000ns"},
		{`{"main":[{"op":"wait","space":"host","addr":"0","value":"1","every":"9ns"}]}`, "", "main[0] (wait): every 9.000ns: at least 10.000ns"},
	}
	for _, c := range cases {
		_, err := hostScenario(t, c.host, c.extra)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.host, err, c.want)
		}
	}
	// stop "host" needs a script on every node
	_, err := Parse(fixture("x.json"), []byte(`{"topology":{"kind":"b2b"},"time":"1ms","stop":"host","defaults":{"asm":["hostsig.s"]}}`))
	if err == nil || !strings.Contains(err.Error(), "no host script") {
		t.Errorf("stop host without scripts: %v", err)
	}
	// errors at run time: a division by zero, an unset variable
	for _, c := range []struct{ host, want string }{
		{`{"main":[{"op":"set","var":"x","value":"1 / 0"}]}`, "division by zero"},
		{`{"main":[{"op":"set","var":"x","value":"$nope"}]}`, "$nope is not set"},
		{`{"main":[{"op":"sram_read","addr":"nosuch","var":"x"}]}`, `no symbol "nosuch"`},
		{`{"main":[{"op":"host_fill","addr":"0xFFFF0","len":"64","pattern":"zero"}]}`, "outside host memory"},
		{`{"main":[{"op":"pointer_write","word":"16","value":"0"}]}`, "pointer word 16"},
		// 4 GiB dumps: the buffer was made before the range was checked
		// (a crash out of memory, or 4 GiB taken to say no).
		{`{"main":[{"op":"dump","space":"host","addr":"0","len":"0xffffffff","file":"never-written"}]}`, "outside host memory"},
		{`{"main":[{"op":"dump","space":"sram","addr":"0","len":"0xffffffff","file":"never-written"}]}`, "outside SRAM"},
	} {
		w := runHost(t, c.host, "")
		if err := w.HostErr(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.host, err, c.want)
		}
	}
}

type testEnv map[string]uint32

func (e testEnv) variable(n string) (uint32, bool) { v, ok := e[n]; return v, ok }
func (e testEnv) symbol(n string) (uint32, bool)   { v, ok := e["sym:"+n]; return v, ok }

func TestHostExpr(t *testing.T) {
	env := testEnv{"a": 10, "b": 3, "sym:mbox": 0x100}
	cases := map[string]uint32{
		"1 + 2 * 3":              7,
		"(1 + 2) * 3":            9,
		"$a - $b - 1":            6,
		"0x10 | 1 << 4":          0x10,
		"mbox + 4":               0x104,
		"min($a, $b) + max(2,5)": 8,
		"$a > $b && $b != 3":     0,
		"-1":                     0xFFFFFFFF,
		"~0 >> 28":               15,
		"!$a":                    0,
		"64K":                    65536,
		"$a % $b ^ 1":            0,
		"$a >= 10 || 0":          1,
		// docs/lanai-sim.md: unsigned, shift counts modulo 32, Go's numbers
		"-8 / 2":                       0x7ffffffc,
		"-0x80000000 / -1":             0,
		"-0x80000000 % -1":             0x80000000,
		"1 << 32":                      1,
		"$a << 33":                     20,
		"010 + 0b11 + 1_000 + 2K + 1M": 8 + 3 + 1000 + 2048 + 1<<20,
	}
	for s, want := range cases {
		e, err := compileExpr(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if got, err := e(env); err != nil || got != want {
			t.Errorf("%s = %d, %v; want %d", s, got, err, want)
		}
	}
	deep := strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100)
	long := strings.Repeat("1+", 3000) + "1"
	for _, bad := range []string{"", "1 +", "(1", "min(1)", "$", "1 @ 2", "0xZZ", "99999999999", deep, long, strings.Repeat("-", 100) + "1"} {
		if _, err := compileExpr(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

// An expression over the length limit is refused in a message of its
// own size, not one that quotes the whole expression (a megabyte operand
// gave a megabyte of error).
func TestHostExprTooLongMessage(t *testing.T) {
	for _, n := range []int{maxExprLen + 1, 1 << 20} {
		_, err := compileExpr(strings.Repeat("1", n))
		if err == nil || !strings.Contains(err.Error(), "at most 4096") || len(err.Error()) > 100 {
			t.Errorf("%d bytes: an error of %d bytes: %.100v", n, len(fmt.Sprint(err)), err)
		}
	}
}

// FuzzHostExpr: any text compiles or fails cleanly, and evaluates without
// panicking.
func FuzzHostExpr(f *testing.F) {
	for _, s := range []string{"1 + 2 * 3", "$shm+$RCV_LIST+8*(($rk + $RCV_PAGES) % 2048)+4", "min($left, $MTU - 16)", "(($a", "~-!1", "1/0", "$x<<40"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := compileExpr(s)
		if err != nil {
			return
		}
		_, _ = e(testEnv{"a": 1, "x": 2, "shm": 3})
	})
}

// The same scenario gives the same statistics and host results, bit for
// bit; a script still waiting at the time limit is status 71.
func TestHostScriptDeterminismAndTimeLimit(t *testing.T) {
	host := `{"main":[{"op":"load"},
		{"op":"wait","space":"special","reg":"ISR","mask":"0x40000000","value":"0x40000000","timeout":"1ms"},
		{"op":"special_read","reg":"RTC","var":"rtc"},
		{"op":"sram_write","addr":"mbox+4","value":"$rtc | 1"},
		{"op":"wait","space":"sram","addr":"mbox+8","value":"0","cond":"ne"},
		{"op":"sram_read","addr":"mbox+8","var":"ans"},
		{"op":"set","var":"t","value":"$now"}]}`
	var outs []string
	for range 2 {
		w := runHost(t, host, "")
		data, err := json.Marshal(struct {
			S Stats
			H []*HostResult
		}{w.Stats(0), w.HostResults()})
		if err != nil {
			t.Fatal(err)
		}
		if w.Status() != StatusOK || w.HostResults()[0].Vars["ans"] != w.HostResults()[0].Vars["rtc"]|1+1 {
			t.Fatalf("status %d: %v", w.Status(), w.HostResults()[0].Vars)
		}
		outs = append(outs, string(data))
	}
	if outs[0] != outs[1] {
		t.Fatal("two runs differ")
	}
	// a script with no handler may wait for its interrupt line
	w := runHost(t, `{"main":[{"op":"load"},
		{"op":"special_write","reg":"EIMR","value":"0x40000000"},
		{"op":"wait","space":"irq","timeout":"1ms"},
		{"op":"special_read","reg":"ISR","var":"isr"},
		{"op":"special_write","reg":"ISR","value":"0x40000000"},
		{"op":"wait","space":"irq","value":"0","timeout":"1ms"}]}`, "")
	if v := w.HostResults()[0].Vars; w.Status() != StatusOK || v["isr"]&0x40000000 == 0 {
		t.Fatalf("status %d, %v: %v", w.Status(), w.HostErr(), v)
	}
	w = runHost(t, `{"main":[{"op":"wait","space":"expr","until":"0","timeout":"1s"}]}`, "")
	if w.Status() != StatusTimeLimit || w.HostErr() != nil {
		t.Fatalf("status %d, %v", w.Status(), w.HostErr())
	}
}

// A node's board preset carries its identity (what a driver's load reads
// from the EEPROM) and its rated clock; clock_mhz overrides the clock
// alone; an unknown board is refused by the parser.
func TestBoardPreset(t *testing.T) {
	w := runHost(t, `{"main":[{"op":"load"}]}`, `,"nodes":[{"board":"M2L-PCI64B"},{"board":"M2L-PCI64C","clock_mhz":150}]`)
	for i, c := range []struct {
		cpu uint32
		hz  uint64
	}{{0x0900, 133_000_000}, {0x0902, 150_000_000}} {
		if v := w.HostResults()[i].Vars["eeprom_cpu_version"]; v != c.cpu {
			t.Errorf("node %d: cpu_version %#x, want %#x", i, v, c.cpu)
		}
		if hz := w.Boards[i].Clock().Hz; hz != c.hz {
			t.Errorf("node %d: %d Hz, want %d", i, hz, c.hz)
		}
	}
	if _, err := hostScenario(t, `{"main":[]}`, `,"nodes":[{"board":"M9X-PCI64Z"}]`); err == nil || !strings.Contains(err.Error(), "board") {
		t.Errorf("an unknown board: %v", err)
	}
}

// A host keeps its first MaxHostLog log lines and counts the others: a
// script that logs in a loop kept every line until the run's end, in
// memory without bound (a while loop that logs each microsecond).
func TestHostLogBounded(t *testing.T) {
	host := `{"main":[{"op":"repeat","count":"` + strconv.Itoa(MaxHostLog+2345) + `","do":[{"op":"log","text":"tick"}]}]}`
	w := runHost(t, host, "")
	if w.Status() != StatusOK {
		t.Fatal(w.HostErr())
	}
	st := w.Stats(0)
	for i, n := range st.Nodes {
		want := fmt.Sprintf("node %d: 2345 more log lines not kept (a host keeps its first %d)", i, MaxHostLog)
		if len(n.HostLog) != MaxHostLog+1 || n.HostLog[MaxHostLog] != want || !strings.HasSuffix(n.HostLog[0], "tick ") {
			t.Errorf("node %d: %d lines, the first %q, the last %q", i, len(n.HostLog), n.HostLog[0], n.HostLog[len(n.HostLog)-1])
		}
	}
	if r := w.HostResults(); len(r[0].Log) != MaxHostLog || r[0].LogDropped != 2345 {
		t.Errorf("kept %d lines, dropped %d", len(r[0].Log), r[0].LogDropped)
	}
}
