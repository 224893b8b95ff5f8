package lanai

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"

	"lanaiemu/isa"
)

// The cases below are those TestThreadedEqualsGo's random programs cannot
// reach (its cores have 64 KiB of SRAM, all of it predecoded, no
// breakpoint, no shared code, runs of at most 500 cycles and no trace):
// each runs the same cores with the Go loop and with the threaded loop
// and compares them (sameState) after every part.

// bothLoops makes two sets of cores with mk, runs part on the first set
// with the Go loop and on the second with the threaded loop, parts
// times, and fails t at the first difference between a core and its twin
// or between their stops. part gets the part's number and the set's
// cores; it stops early when every core stops otherwise than at its
// limit, a step or a breakpoint. It gives the threaded loop's cores.
func bothLoops(t *testing.T, parts int, mk func() []*CPU, part func(n int, cs []*CPU) []*Stop) []*CPU {
	t.Helper()
	defer func() { useThreaded = haveThreaded }()
	sets := [2][]*CPU{mk(), mk()}
	for n := 0; n < parts; n++ {
		var stops [2][]*Stop
		for i := range sets {
			useThreaded = i == 1
			stops[i] = part(n, sets[i])
		}
		for j := range sets[0] {
			a, b := sets[0][j], sets[1][j]
			if err := sameState(a, b); err != nil {
				t.Fatalf("part %d, core %d: %v", n, j, err)
			}
			sa, sb := stops[0][j], stops[1][j]
			if sa.Kind != sb.Kind || stopMessage(sa) != stopMessage(sb) {
				t.Fatalf("part %d, core %d: Go stopped with %s, threaded with %s", n, j, stopMessage(sa), stopMessage(sb))
			}
		}
		going := false
		for _, st := range stops[0] {
			going = going || st.Kind == StopCycleLimit || st.Kind == StopStep || st.Kind == StopBreakpoint
		}
		if !going {
			return sets[1]
		}
	}
	return sets[1]
}

// relocated is prog moved to base: its branch targets (class BR) moved
// with it, the words that cannot be moved left as they are.
func relocated(prog []uint32, base uint32) []uint32 {
	out := make([]uint32, len(prog))
	for i, w := range prog {
		out[i] = w
		if in := isa.Decode(w); in.Class == isa.BR {
			in.Imm += base
			if m, err := isa.Encode(in); err == nil {
				out[i] = m
			}
		}
	}
	return out
}

// farCore is diffCore with 1 MiB of SRAM and the program at base (past
// the words predecoded at first, initialUops), its data words addresses
// in it or random.
func farCore(prog []uint32, base uint32, rng *rand.Rand) *CPU {
	c, err := New(Config{SRAMSize: 1 << 20})
	if err != nil {
		panic(err)
	}
	for i, w := range relocated(prog, base) {
		binary.BigEndian.PutUint32(c.Mem.SRAM[base+uint32(4*i):], w)
	}
	for a := diffData; a < diffData+4*1024; a += 4 {
		v := rng.Uint32()
		if rng.Intn(2) == 0 {
			v = base + uint32(4*rng.Intn(len(prog)+1))
		}
		binary.BigEndian.PutUint32(c.Mem.SRAM[a:], v)
	}
	c.Reset(base)
	for r := 3; r < 32; r++ {
		c.R[r] = rng.Uint32()
	}
	for r := 4; r < 8; r++ {
		c.R[r] = diffData + uint32(4*rng.Intn(512))
		if rng.Intn(6) == 0 {
			c.R[r] = base + uint32(4*rng.Intn(len(prog)+1)) // stores into the code
		}
	}
	c.R[8], c.R[9] = uint32(2*rng.Intn(32)-32), uint32(4*rng.Intn(16))
	c.Flags = isa.Flags(rng.Intn(16))
	return c
}

// Code past the first predecoded words (the threaded loop hands a word
// past pre to Go, which grows pre): random programs at 0x40000 of 1 MiB.
func TestThreadedFarCode(t *testing.T) {
	needThreaded(t)
	if uint32(4*initialUops) > 0x40000 {
		t.Fatalf("the program at 0x40000 lies in the first predecoded words (%#x bytes)", 4*initialUops)
	}
	var far uint64
	for seed := int64(0); seed < 60; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			prog := randomProgram(rng, 16+rng.Intn(200))
			cs := bothLoops(t, 60, func() []*CPU {
				return []*CPU{farCore(prog, 0x40000, rand.New(rand.NewSource(seed)))}
			}, func(n int, cs []*CPU) []*Stop {
				return []*Stop{cs[0].Run(partBudget(seed, n, 400))}
			})
			far += cs[0].Instret
		})
	}
	if far < 5000 {
		t.Errorf("the programs ran only %d instructions", far)
	}
	if testing.Verbose() {
		t.Logf("%d instructions", far)
	}
}

// partBudget is the budget of part n of a run with seed: from 1 to max
// cycles, the same for both loops.
func partBudget(seed int64, n, max int) uint64 {
	return uint64(1 + rand.New(rand.NewSource(seed<<16^int64(n))).Intn(max))
}

// needThreaded skips t in a build without the threaded loop.
func needThreaded(t *testing.T) {
	if !haveThreaded {
		t.Skip("this build has no threaded run loop")
	}
}

// Breakpoints (a word the threaded loop hands to Go, which stops before
// it; Step runs it): random programs with breakpoints on a few of their
// words, run in parts, stepped past each breakpoint they stop at.
func TestThreadedBreakpoints(t *testing.T) {
	needThreaded(t)
	stopped := 0
	for seed := int64(0); seed < 80; seed++ {
		rng := rand.New(rand.NewSource(seed))
		prog := randomProgram(rng, 16+rng.Intn(200))
		var bps []uint32
		for range 1 + rng.Intn(4) {
			bps = append(bps, uint32(4*rng.Intn(len(prog))))
		}
		bothLoops(t, 80, func() []*CPU {
			c := diffCore(prog, rand.New(rand.NewSource(seed)))
			for _, a := range bps {
				c.SetBreakpoint(a, true)
			}
			return []*CPU{c}
		}, func(n int, cs []*CPU) []*Stop {
			c := cs[0]
			if st := c.stop; st != nil && st.Kind == StopBreakpoint {
				stopped++
				return []*Stop{c.Step()}
			}
			return []*Stop{c.Run(partBudget(seed, n, 300))}
		})
	}
	if stopped < 20 {
		t.Errorf("only %d stops at a breakpoint", stopped/2)
	}
	if testing.Verbose() {
		t.Logf("%d stops at a breakpoint", stopped/2)
	}
}

// Shared code (the uops of several cores in one array, their poll states
// apart, a store into code forgetting a word for all): three cores share
// each random program, two of them with other registers, run in turn.
func TestThreadedSharedCode(t *testing.T) {
	needThreaded(t)
	for seed := int64(0); seed < 60; seed++ {
		rng := rand.New(rand.NewSource(seed))
		prog := randomProgram(rng, 16+rng.Intn(200))
		bothLoops(t, 60, func() []*CPU {
			var s SharedCode
			var cs []*CPU
			for i := range 3 {
				c := diffCore(prog, rand.New(rand.NewSource(seed+int64(i>>1)))) // the first two alike
				if !c.ShareCode(&s) {
					t.Fatalf("seed %d: core %d does not share", seed, i)
				}
				cs = append(cs, c)
			}
			return cs
		}, func(n int, cs []*CPU) []*Stop {
			var stops []*Stop
			for i, c := range cs {
				if c.stop != nil && c.stop.Kind != StopCycleLimit && c.stop.Kind != StopStep {
					stops = append(stops, c.stop) // stopped in an earlier part
					continue
				}
				stops = append(stops, c.Run(partBudget(seed, 3*n+i, 300)))
			}
			return stops
		})
	}
}

// Long runs (many slices of threadedSlice cycles, an exit) of the
// longest benchmark program and a traced run (one instruction per call,
// the trace's text) of another.
func TestThreadedLongAndTracedRuns(t *testing.T) {
	needThreaded(t)
	img := buildProgram(t, "../fixtures/c/s/lz.O2.s")
	cs := bothLoops(t, 1000, func() []*CPU {
		c, _ := load(t, img, Config{})
		return []*CPU{c}
	}, func(n int, cs []*CPU) []*Stop {
		return []*Stop{cs[0].Run(uint64(threadedSlice) * uint64(1+n%7))}
	})
	if st := cs[0].stop; st == nil || st.Kind != StopExit || cs[0].Instret < 500_000 {
		t.Fatalf("stopped after %d instructions: %v", cs[0].Instret, cs[0].stop)
	}
	img = buildProgram(t, "../fixtures/c/s/sort_quick.O2.s")
	var traces [2]bytes.Buffer
	bothLoops(t, 1, func() []*CPU {
		c, _ := load(t, img, Config{})
		return []*CPU{c}
	}, func(n int, cs []*CPU) []*Stop {
		i := 0
		if useThreaded {
			i = 1
		}
		return []*Stop{cs[0].RunTraced(30_000, NewTracer(&traces[i], NewSymbols(nil)))}
	})
	if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) || traces[0].Len() < 100_000 {
		t.Errorf("the traces differ, or are short (%d and %d bytes)", traces[0].Len(), traces[1].Len())
	}
}

// A run whose deadline has passed (0, or the cycle count) executes
// nothing, in delay slots too: exec called so after every part of random
// programs' runs.
func TestThreadedDeadlinePassed(t *testing.T) {
	needThreaded(t)
	for seed := int64(0); seed < 100; seed++ {
		rng := rand.New(rand.NewSource(seed))
		prog := randomProgram(rng, 16+rng.Intn(200))
		bothLoops(t, 40, func() []*CPU {
			return []*CPU{diffCore(prog, rand.New(rand.NewSource(seed)))}
		}, func(n int, cs []*CPU) []*Stop {
			c := cs[0]
			st := c.Run(partBudget(seed, n, 100))
			cycles, instret := c.Cycles, c.Instret
			for _, d := range []uint64{0, c.Cycles} {
				c.deadline = d
				c.exec()
			}
			if c.Cycles != cycles || c.Instret != instret {
				t.Fatalf("seed %d: exec past its deadline ran from %d to %d cycles (threaded %v)", seed, cycles, c.Cycles, useThreaded)
			}
			return []*Stop{st}
		})
	}
}

// The core's other configurations: no contention (the fast accesses never
// booked), contention charged on every access (no fast access: every
// load and store and return to Go), and LANai 3/4 RRR instructions.
func TestThreadedConfigs(t *testing.T) {
	needThreaded(t)
	for name, set := range map[string]func(*Config){
		"plain":    func(cfg *Config) { cfg.Contention, cfg.ContentionBooked = nil, false },
		"unbooked": func(cfg *Config) { cfg.ContentionBooked = false },
		"rrr":      func(cfg *Config) { cfg.RRR = true },
	} {
		t.Run(name, func(t *testing.T) {
			for seed := int64(0); seed < 100; seed++ {
				rng := rand.New(rand.NewSource(seed))
				prog := randomProgram(rng, 16+rng.Intn(200))
				for i := range prog {
					if name == "rrr" && rng.Intn(20) == 0 {
						prog[i] = 0xD<<28 | rng.Uint32()>>4 // an RRR word, or not
					}
				}
				bothLoops(t, 60, func() []*CPU {
					c := diffCore(prog, rand.New(rand.NewSource(seed)))
					set(&c.cfg) // before anything is predecoded
					return []*CPU{c}
				}, func(n int, cs []*CPU) []*Stop {
					return []*Stop{cs[0].Run(partBudget(seed, n, 300))}
				})
			}
		})
	}
}
