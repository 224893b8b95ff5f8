package lanai

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/memsys"
)

// outsideLoop polls three words it only reads (0x2000, 0x2400 and the last
// word of a 64 KiB SRAM, one of them also read by byte) besides a
// heartbeat it stores from CPUC and a scratch word it stores and reads
// back. It leaves when their xor changes, stores to a read-only word and
// the word after it itself, and polls again with the new xor.
const outsideLoop = `
	mov 0x8000, %sp
	mov 0xfffc, %r20
	mov 0x2000, %r22
	mov 0, %r14
.Lre:
	ld 0x2000[%r0], %r8
	ld 0x2400[%r0], %r9
	ld 0[%r20], %r10
	xor %r8, %r9, %r13
	xor %r13, %r10, %r13
.Lw:
	ld -392[%r0], %r7
	st %r7, 0x1000[%r0]
	ld.b 1[%r22], %r21
	st %r14, 0x3000[%r0]
	ld 0x3000[%r0], %r11
	bt .Lsub
	add %pc, 4, %rca
	xor %r8, %r9, %r12
	xor %r12, %r10, %r12
	sub.f %r12, %r13, %r0
	beq .Lw
	mov 0, %r7
	add %r14, 1, %r14
	st %r14, 0x2404[%r0]
	st %r14, 0x2400[%r0]
	bt .Lre
	nop
.Lsub:
	st %rca, [--%sp]
	ld 0x2000[%r0], %r8
	ld 0x2400[%r0], %r9
	ld 0[%r20], %r10
	ld [%sp++], %rca
	add %rca, 0, %pc
	nop
`

// outsideAddrs are where the writes from outside in
// TestOutsideWritesRunEqualsStep land: on, across and beside the words
// the loop only reads, on the words it stores (heartbeat, scratch, the
// pushed return address, the counted word), between its reads, far away
// and at the ends of SRAM.
var outsideAddrs = []uint32{0x2000, 0x2001, 0x2003, 0x1ffd, 0x1ffc, 0x2004, 0x2200, 0x23fe, 0x2400, 0x2402, 0x2404, 0x2408,
	0x1000, 0x3000, 0x2ffe, 0x3100, 0x3102, 0x7ffc, 0x7ff8, 0x9000, 0, 0xfff0, 0xfffa, 0xfffc, 0xffff}

// Writes from outside the core (a DMA burst, a packet received, a host's
// PIO write or a debugger's), done in events or between runs, at random
// cycles, places and sizes, with new bytes or the bytes already there,
// leave a core that skips proved loops exactly where a core that
// executes every instruction is: counts, registers, pc, SRAM and the
// transfer history, also when the history is read between runs, when a
// runner asks Polling, with SRAM cycles booked after the writes, across
// a reset, and with the code shared with another core.
func TestOutsideWritesRunEqualsStep(t *testing.T) {
	// Seeds from 20 on: the loop also keeps a statistics count (a counted
	// word, see loop.go), which writes from outside hit too.
	img := linkSources(t, asm.Source{Name: "o.s", Text: []byte("\t.globl _start\n_start:\n" + outsideLoop)})
	counting := linkSources(t, asm.Source{Name: "c.s", Text: []byte("\t.globl _start\n_start:\n" +
		strings.Replace(outsideLoop, ".Lw:\n", ".Lw:\n\tld 0x3100[%r0], %r15\n\tadd %r15, 3, %r15\n\tst %r15, 0x3100[%r0]\n", 1))})
	var skipped, proofs uint64
	for seed := range int64(40) {
		img := img
		if seed >= 20 {
			img = counting
		}
		// Odd seeds: SRAM contended, each write in an event booking SRAM
		// cycles after it, as a DMA burst does.
		var cs [2]*CPU
		var booked [2][]window
		var im *memsys.Image
		for i := range cs {
			cfg := Config{}
			if seed%2 == 1 {
				cfg = bookedConfig(&booked[i])
			}
			cfg.SRAMSize = 64 << 10
			cs[i], im = load(t, img, cfg)
		}
		entry, reset := im.Entry, false
		// Every third seed: the skipping core shares its code with a
		// third core that runs beside it and sees the writes between runs
		// only (its SRAM comes to differ where events wrote).
		var sharer *CPU
		if seed%3 == 2 {
			sharer, _ = load(t, img, Config{SRAMSize: 64 << 10})
			var s SharedCode
			if !sharer.ShareCode(&s) || !cs[0].ShareCode(&s) {
				t.Fatal("the cores do not share their code")
			}
		}
		// The writes: the same ones, at the same cycles, on both cores.
		rng := rand.New(rand.NewSource(seed))
		type write struct {
			at   uint64
			addr uint32
			data []byte // the bytes; empty: rewrite the cap(data) bytes there
		}
		var ws []write
		for range 30 + rng.Intn(60) {
			w := write{at: uint64(rng.Int63n(200_000)), addr: outsideAddrs[rng.Intn(len(outsideAddrs))]}
			n := 1 + rng.Intn(8)
			if rng.Intn(8) == 0 {
				n = []int{256, 4096}[rng.Intn(2)] // a DMA burst, a packet
			}
			n = min(n, 64<<10-int(w.addr))
			if rng.Intn(3) > 0 {
				w.data = make([]byte, n)
				rng.Read(w.data)
			} else {
				w.data = make([]byte, n)[:0:n] // rewrite: filled at the write
			}
			ws = append(ws, w)
		}
		do := func(c *CPU, w write) {
			d := w.data
			if len(d) == 0 {
				d = bytes.Clone(c.Mem.SRAM[w.addr : w.addr+uint32(cap(w.data))])
			}
			if err := c.Mem.Write(w.addr, d); err != nil {
				t.Fatal(err)
			}
		}
		// Half the writes in events, half between runs of random length.
		var between []write
		for i, w := range ws {
			if i%2 == 0 {
				for i, c := range cs {
					c.Schedule(w.at, func() {
						do(c, w)
						if seed%2 == 1 {
							b := window{c.Cycles + uint64(w.addr%64), 0}
							if k := len(booked[i]); k > 0 {
								b.from = max(b.from, booked[i][k-1].to)
							}
							b.to = b.from + 1 + uint64(cap(w.data)%40)
							booked[i] = append(booked[i], b)
							c.BookSRAM(b.to)
						}
					})
				}
			} else {
				between = append(between, w)
			}
		}
		for len(between) > 0 || cs[0].Cycles < 200_000 {
			limit := cs[0].Cycles + uint64(1+rng.Intn(9000))
			if len(between) > 0 && between[0].at < limit {
				limit = max(between[0].at, cs[0].Cycles+1)
			}
			st := cs[0].Run(limit - cs[0].Cycles)
			if sharer != nil && sharer.Cycles < limit {
				if st := sharer.Run(limit - sharer.Cycles); st.Kind != StopCycleLimit {
					sharer = nil // it trapped: its part is over
				}
			}
			b := cs[1]
			if st.Kind != StopCycleLimit {
				// A write over the pushed return address sends the loop
				// into the weeds: both cores must trap alike.
				sb := b.Step()
				for sb.Kind == StopStep {
					sb = b.Step()
				}
				if st.Kind != sb.Kind || stopMessage(st) != stopMessage(sb) {
					t.Fatalf("seed %d: run stopped: %v; stepping: %v", seed, stopMessage(st), stopMessage(sb))
				}
				break
			}
			for b.Cycles < cs[0].Cycles {
				if st := b.Step(); st.Kind != StopStep {
					t.Fatalf("seed %d: stepping stopped: %v", seed, stopMessage(st))
				}
			}
			b.stop = nil  // (Step leaves its stop, which holds events back)
			b.runEvents() // what Run ran before it returned
			// The whole state (which reads the history) now and then only.
			if a := cs[0]; a.Cycles != b.Cycles || a.Instret != b.Instret || a.PC != b.PC {
				t.Fatalf("seed %d: skipping at pc %#x after %d cycles %d instructions; stepping at pc %#x after %d cycles %d instructions",
					seed, a.PC, a.Cycles, a.Instret, b.PC, b.Cycles, b.Instret)
			}
			if rng.Intn(4) == 0 {
				sameCores(t, fmt.Sprintf("seed %d", seed), cs[0], b)
			}
			if rng.Intn(2) == 0 {
				cs[0].Polling()
			}
			if !reset && rng.Intn(40) == 0 {
				// A reset (SRAM kept) with a proof held and writes pending:
				// the events and bookings go, the between-run writes stay.
				reset = true
				for i, c := range cs {
					c.Reset(entry)
					booked[i] = nil
				}
			}
			for len(between) > 0 && between[0].at <= cs[0].Cycles {
				for _, c := range cs {
					do(c, between[0])
				}
				if sharer != nil {
					do(sharer, between[0])
				}
				between = between[1:]
			}
			if len(between) == 0 && cs[0].Cycles >= 200_000 {
				break
			}
		}
		sameCores(t, fmt.Sprintf("seed %d at the end", seed), cs[0], cs[1])
		skipped += cs[0].SkippedCycles
		proofs += cs[0].loop.proofs
	}
	// The skipping core must skip for the test to mean anything.
	if skipped < 40*100_000 {
		t.Errorf("%d cycles skipped in 40 runs of 200,000", skipped)
	}
	t.Logf("%d cycles skipped, %d proofs", skipped, proofs)
}
