package lanai

import (
	"runtime"
	"strings"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/internal/cputime"
)

// benchRun runs an image to its exit b.N times and reports guest
// instructions per host second (MIPS) and per second of the process's CPU
// time (MIPS-cpu: steadier on a shared machine).
func benchRun(b *testing.B, img []byte) {
	c, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	var instr uint64
	var cpu float64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		im, err := c.Mem.LoadFile(img)
		if err != nil {
			b.Fatal(err)
		}
		c.Reset(im.Entry)
		b.StartTimer()
		cpu0 := cputime.Seconds()
		st := c.Run(1 << 40)
		cpu += cputime.Seconds() - cpu0
		if st.Kind != StopExit {
			b.Fatalf("stopped: %v", st.Kind)
		}
		instr += c.Instret
	}
	b.ReportMetric(float64(instr)/b.Elapsed().Seconds()/1e6, "MIPS")
	b.ReportMetric(float64(instr)/cpu/1e6, "MIPS-cpu")
	b.ReportMetric(float64(instr)/float64(b.N), "instr/op")
}

// BenchmarkBranchy runs a corpus program (the bytecode interpreter vm.c at
// -O2: calls, a jump table, loads and stores, data-dependent branches).
func BenchmarkBranchy(b *testing.B) {
	benchRun(b, buildProgram(b, "../fixtures/c/s/vm.O2.s"))
}

// BenchmarkCorpus runs corpus programs at -O2, one sub-benchmark each:
// vm (the branchy program the core was tuned on) and programs it was not
// tuned on (docs/performance.md compares them with native code).
func BenchmarkCorpus(b *testing.B) {
	for _, name := range corpusBenchPrograms {
		b.Run(name, func(b *testing.B) {
			benchRun(b, buildProgram(b, "../fixtures/c/s/"+name+".O2.s"))
		})
	}
}

// corpusBenchPrograms are the corpus programs BenchmarkCorpus runs.
var corpusBenchPrograms = []string{"vm", "parse_expr", "lz", "hashtable", "sort_quick", "sha256", "switch_dense"}

// tightLoop is a counted loop of the shape compilers make: load, add,
// store, compare, branch with a filled delay slot.
const tightLoop = `
	.text
	.globl	_start
_start:
	mov	0x1000, %r6
	mov	hi(10000000), %r7   ! iterations
	or	%r7, lo(10000000), %r7
	mov	0, %r9
.Lloop:
	ld	0[%r6], %r8
	add	%r8, 3, %r8
	st	%r8, 0[%r6]
	sub.f	%r7, 1, %r7
	bne	.Lloop
	add	%r9, 1, %r9
	st	%r9, -4096[%r0]     ! exit
	bt	.
	nop
`

// BenchmarkTightLoop runs a six-instruction loop 10 million times.
func BenchmarkTightLoop(b *testing.B) {
	benchRun(b, linkSources(b, asm.Source{Name: "loop.s", Text: []byte(tightLoop)}))
}

// One core with 2 MiB of SRAM, predecode cache included, costs well under
// 32 MiB of host memory.
func TestMemoryFootprint(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, err := New(Config{SRAMSize: 2 << 20})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	used := after.HeapAlloc - before.HeapAlloc
	t.Logf("one core with 2 MiB SRAM: %.1f MiB", float64(used)/(1<<20))
	if used > 32<<20 {
		t.Errorf("%d bytes for one core", used)
	}
	runtime.KeepAlive(c)
}

// BenchmarkLoopResume runs bookedCore's proved DMA wait loop (about 160,000
// cycles, bursts every 103 cycles) in runs of 20 cycles, as a cluster's
// steps run a busy board: nearly every run resumes the proof inside an
// iteration and lands inside one. It reports the CPU time per run.
func BenchmarkLoopResume(b *testing.B) {
	for _, book := range []bool{false, true} {
		name := "free"
		if book {
			name = "booked"
		}
		b.Run(name, func(b *testing.B) {
			var runs uint64
			var cpu float64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				c := bookedCore(b, book)
				b.StartTimer()
				cpu0 := cputime.Seconds()
				for {
					runs++
					if st := c.Run(20); st.Kind != StopCycleLimit {
						break
					}
				}
				cpu += cputime.Seconds() - cpu0
			}
			b.ReportMetric(cpu*1e9/float64(runs), "ns-cpu/run")
		})
	}
}

// deviceLoop is tightLoop with one more access per iteration (ACCESS): an
// SRAM word, or a special register read or written as the NetVM firmware
// reads ISR and RTC and starts its DMA engines (ld imm[%r0], st rd,
// imm[%r0]), to measure what a hand-over out of the run loop costs.
const deviceLoop = `
	.text
	.globl	_start
_start:
	mov	0x1000, %r6
	mov	hi(2000000), %r7
	or	%r7, lo(2000000), %r7
	mov	0, %r9
.Lloop:
	ACCESS
	ld	0[%r6], %r8
	add	%r8, 3, %r8
	st	%r8, 0[%r6]
	add	%r5, %r8, %r10
	add	%r10, 1, %r11
	xor	%r11, %r9, %r12
	add	%r12, 2, %r13
	or	%r13, 0xff, %r14
	add	%r14, %r9, %r9
	sub.f	%r7, 1, %r7
	bne	.Lloop
	add	%r9, 1, %r9
	st	%r9, -4096[%r0]     ! exit
	bt	.
	nop
`

// BenchmarkDeviceAccess runs deviceLoop with each kind of access: the
// difference of its ns/op from sram's is the cost of two million
// hand-overs (CPUC, LED: registers without a device behind them).
func BenchmarkDeviceAccess(b *testing.B) {
	for _, v := range []struct{ name, access string }{
		{"sram", "ld 4[%r6], %r5"},
		{"special-load", "ld -392[%r0], %r5"},  // CPUC
		{"special-store", "st %r9, -192[%r0]"}, // LED
	} {
		b.Run(v.name, func(b *testing.B) {
			benchRun(b, linkSources(b, asm.Source{Name: "loop.s", Text: []byte(strings.Replace(deviceLoop, "ACCESS", v.access, 1))}))
		})
	}
}
