package node

import (
	"fmt"
	"testing"

	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/internal/cputime"
	"lanaiemu/sim"
)

// busyLoop never idles (its counters change every pass, so no loop is
// proved): a load, an add, a store, a count, a branch, as in firmware.
const busyLoop = `
	.text
	.globl	_start
_start:
	mov	0x1000, %r6
	mov	0, %r9
.Lloop:
	ld	0[%r6], %r8
	add	%r8, 3, %r8
	st	%r8, 0[%r6]
	sub.f	%r9, 1, %r9
	bne	.Lloop
	add	%r7, 1, %r7
`

// BenchmarkStepCost runs boards that are busy every step (busyLoop) on a
// Clos of 8-node leaves, in the world's serial steps: with the default link latency each
// step is 20 core cycles (about 15 instructions a board, as a 64-node
// ring's busy runs), with the latency at 100 us 20,000 cycles. It reports
// the CPU time per board and step (ns-cpu/run) and per instruction: the
// difference between the two, per step, is what a board's run and its
// part of a step cost beyond the instructions.
func BenchmarkStepCost(b *testing.B) {
	img := buildSource(b, "busy.s", []byte(busyLoop))
	for _, nodes := range []int{8, 64} {
		for _, lat := range []sim.Time{fabric.DefaultLinkLatency, 100 * sim.Microsecond} {
			b.Run(fmt.Sprintf("nodes=%d/step=%v", nodes, lat), func(b *testing.B) {
				q := &sim.Queue{}
				cfg := fabric.DefaultConfig()
				cfg.Link.Latency = lat
				f, err := fabric.Clos(q, nil, cfg, nodes/8, 8, 8) // as the cluster's rings
				if err != nil {
					b.Fatal(err)
				}
				boards := make([]*board.Board, nodes)
				for i := range boards {
					if boards[i], err = board.New(board.Config{}); err != nil {
						b.Fatal(err)
					}
					if _, err := boards[i].Load(img); err != nil {
						b.Fatal(err)
					}
				}
				w, err := New(q, f, boards, Config{})
				if err != nil {
					b.Fatal(err)
				}
				w.ShareCode()
				const span = 200 * sim.Microsecond
				if err := w.Run(span); err != nil { // warm
					b.Fatal(err)
				}
				st0 := w.Stats()
				var cpu float64
				b.ResetTimer()
				for range b.N {
					c0 := cputime.Seconds()
					if err := w.Run(w.Now() + span); err != nil {
						b.Fatal(err)
					}
					cpu += cputime.Seconds() - c0
				}
				st := w.Stats()
				var instr uint64
				for i := range st.Nodes {
					instr += st.Nodes[i].Instructions - st0.Nodes[i].Instructions
				}
				runs := float64(st.Steps-st0.Steps) * float64(nodes)
				b.ReportMetric(cpu*1e9/runs, "ns-cpu/run")
				b.ReportMetric(cpu*1e9/float64(instr), "ns-cpu/instr")
				b.ReportMetric(float64(instr)/runs, "instr/run")
			})
		}
	}
}
