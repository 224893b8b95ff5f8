package lanai

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// watchProgram is a program TestWatchConclusions runs: a name and a core.
type watchProgram struct {
	name string
	core func(t *testing.T) *CPU
}

// watchPrograms are the loops whose watches TestWatchConclusions follows:
// BenchmarkWatch's two, and the loops of the skip-against-stepping tests
// (a heartbeat from an RTC, a DMA wait through booked SRAM, passes that
// set registers before they read them, a count, random work loops, two
// loops in turn).
func watchPrograms() []watchProgram {
	ps := []watchProgram{
		{"main", func(t *testing.T) *CPU { return watchCore(t, watchMainLoop, 400) }},
		{"dmawait", func(t *testing.T) *CPU { return watchCore(t, watchDMAWait, 150) }},
		{"rtc", func(t *testing.T) *CPU { return rtcHeartbeatCore(t) }},
		{"booked", func(t *testing.T) *CPU { return bookedCore(t, true) }},
		{"free", func(t *testing.T) *CPU { return bookedCore(t, false) }},
		{"deadregs", func(t *testing.T) *CPU { return workCore(t, deadRegLoop, 1) }},
		{"count", func(t *testing.T) *CPU { return countCore(t, countLoop) }},
	}
	for seed := int64(1); seed <= 8; seed++ {
		ps = append(ps, watchProgram{fmt.Sprintf("random%d", seed), func(t *testing.T) *CPU {
			return randomLoopCore(t, rand.New(rand.NewSource(seed)))
		}})
	}
	for variant := range 3 {
		ps = append(ps, watchProgram{fmt.Sprintf("twoloops%d", variant), func(t *testing.T) *CPU {
			return twoLoopsCore(t, rand.New(rand.NewSource(int64(variant)+1)), variant)
		}})
	}
	return ps
}

// watchConclusions runs c for up to 600,000 cycles in runs of chunk cycles
// and hashes what its watches concluded, after every run: the counts
// (skipped ones too), the watch's state, calls, proofs and watches begun
// again, the varying registers, and the read set and stored words of the
// watch or proof; at every new proof its iteration as noted (each
// instruction's note, the register log).
func watchConclusions(c *CPU, chunk uint64) uint64 {
	h := fnv.New64a()
	proofs := uint64(0)
	for c.Cycles < 600_000 {
		st := c.Run(chunk)
		hashWatch(h, c, &proofs)
		if st.Kind != StopCycleLimit {
			hashPut(h, uint64(st.Kind))
			break
		}
	}
	return h.Sum64()
}

// hashWatch adds to h what c's watch concluded so far (watchConclusions
// says what), with the noted iteration when the proofs counted in
// *proofs went up.
func hashWatch(h hash.Hash64, c *CPU, proofs *uint64) {
	b2u := func(b bool) uint64 {
		if b {
			return 1
		}
		return 0
	}
	w := &c.loop
	hashPut(h, c.Cycles, c.Instret, c.SkippedInstret, c.SkippedCycles, uint64(w.state), w.watchCalls, w.proofs, w.rewatches,
		w.varying, uint64(w.nreads), uint64(w.nwords), b2u(w.proved), b2u(w.fragile), uint64(w.n))
	for _, r := range w.reads[:w.nreads] {
		hashPut(h, uint64(r.addr), uint64(r.val), b2u(r.dev))
	}
	for _, wd := range w.words[:w.nwords] {
		hashPut(h, uint64(wd.addr), uint64(wd.before), b2u(wd.varying), b2u(wd.counted))
	}
	if w.proofs != *proofs {
		*proofs = w.proofs
		hashPut(h, w.iterCycles, w.iterInstret, w.iterStores, b2u(w.hasCount), uint64(w.cdelta), w.cmask, uint64(w.nregLog), b2u(w.noLanding))
		for _, s := range w.trace[:w.n] {
			hashPut(h, uint64(s.pc), uint64(s.at), uint64(s.addr), uint64(s.to), uint64(s.kind), uint64(s.size), uint64(s.value),
				uint64(s.regEnd), uint64(s.lastLoad), b2u(s.steady), uint64(s.flags), uint64(s.npc), uint64(s.nnpc), uint64(s.r2))
		}
		for _, rw := range w.regLog[:w.nregLog] {
			hashPut(h, uint64(rw.r), uint64(rw.v))
		}
	}
}

// hashPut adds vs to h, little-endian.
func hashPut(h hash.Hash64, vs ...uint64) {
	var b [8]byte
	for _, v := range vs {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
}

// What every watch concludes (the proofs, the failures and where they
// come, the read sets, stored words, noted iterations and register logs,
// and the counts they lead to) is what main's code before the tenth pass
// (dfeb82e) concluded: the hashes in testdata/watch/conclusions.golden
// were made with it. A cheaper way of following a watched instruction
// that concludes anything differently (a read set with a word twice or
// one missing, a device register's stability asked of another device, a
// register write noted or not) changes a hash. (-update rewrites the file:
// only for a change of what watches conclude, made on purpose.) Proofs
// taken again are off, as in TestWatchEdgeConclusions: they change which
// watches are made, by design.
func TestWatchConclusions(t *testing.T) {
	const file = "testdata/watch/conclusions.golden"
	defer func(n int) { keptMin = n }(keptMin)
	keptMin = math.MaxInt // no proof is kept
	var got []string
	for _, p := range watchPrograms() {
		for _, chunk := range []uint64{97, 13} {
			got = append(got, fmt.Sprintf("%s chunk %d: %016x", p.name, chunk, watchConclusions(p.core(t), chunk)))
		}
	}
	compareHashGolden(t, file, got)
}

// compareHashGolden compares the lines got with the golden file (one hash a
// line), or writes them there with -update.
func compareHashGolden(t *testing.T, file string, got []string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	defer f.Close()
	var want []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		want = append(want, sc.Text())
	}
	if len(want) != len(got) {
		t.Fatalf("%d hashes, the golden has %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s, want %s", got[i], want[i])
		}
	}
}
