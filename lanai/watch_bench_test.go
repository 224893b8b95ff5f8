package lanai

import (
	"encoding/binary"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/internal/cputime"
)

// watchMainLoop is a pass of the shape of the NetVM firmware's main loop
// (firmware/netvm/src/netvm.s, main_loop, with one endpoint open): ISR
// against the engine mask, the heartbeat from the RTC, the kernel ring's
// command byte, the transmit queue, and a call of an endpoint poll that
// finds nothing to do. ISR reads 0, so the engine mask decides nothing:
// watchCore's events write a new mask, which ends the proof (the loop read
// the word) without changing what the pass does, and the next pass is
// watched again.
const watchMainLoop = `
	mov 0x8000, %sp
	mov 0x1100, %r6
	mov 0x1200, %r7
	st %r7, 0x1010[%r0]        ! kr_ptr: a command slot
	mov 1, %r7
	st %r7, 0x1024[%r0]        ! ep_mask: endpoint 0 open
	mov 0x1300, %r7
	st %r7, 0x1340[%r0]        ! the endpoint's slot pointer
	mov 2, %r7
	st %r7, 0x1300[%r0]        ! the endpoint's state: open
.Lmain:
	ld -432[%r0], %r28         ! ISR
	ld 0x1004[%r0], %r7        ! eng_mask
	and.f %r28, %r7, %r0
	beq 1f
	nop
	bt engines
	add %pc, 4, %rca
1:	ld -408[%r0], %r7          ! RTC
	mov 0x1000, %r6
	st %r7, 0x40[%r6]          ! the heartbeat
	ld 0x1010[%r0], %r7        ! kr_ptr
	uld.b 0[%r7], %r7          ! its command byte
	sub.f %r7, 0, %r0
	beq 1f
	nop
	bt engines
	add %pc, 4, %rca
1:	ld 0x1018[%r0], %r7        ! txq_head
	ld 0x101c[%r0], %r8        ! txq_tail
	sub %r8, %r7, %r8
	sub.f %r8, 1, %r0
	buge .Lmain
	ld 0x1024[%r0], %r27       ! (delay slot) ep_mask
	sub.f %r27, 0, %r0
	beq .Lpass_end
	mov 0, %r26
	ld -432[%r0], %r28         ! ISR again
	ld 0x1004[%r0], %r7
	and.f %r28, %r7, %r0
	beq .Leploop
	nop
	bt engines
	add %pc, 4, %rca
.Leploop:
	sub.f %r27, 0, %r0
	beq .Lpass_end
	mov 1, %r7
	and %r27, %r7, %r7
	sub.f %r7, 0, %r0
	beq .Lepnext
	nop
	mov %r26, %r6
	bt ep_poll
	add %pc, 4, %rca
.Lepnext:
	sh %r27, -1, %r27
	bt .Leploop
	add %r26, 1, %r26
.Lpass_end:
	ld 0x1020[%r0], %r7        ! piggy_n
	sub.f %r7, 0, %r0
	beq .Lmain
	nop
engines:
	st %r0, -4096[%r0]         ! (never: exit)
ep_poll:
	mov %r6, %r16
	sh %r16, 6, %r17
	mov 0x1300, %r13
	add %r17, %r13, %r17       ! its state
	ld 0[%r17], %r7
	sub.f %r7, 2, %r0
	bne 9f
	ld 4[%r17], %r7            ! (delay slot) the command in progress
	sub.f %r7, 0, %r0
	bne 9f
	ld 0x40[%r17], %r9         ! (delay slot) the next slot
	uld.b 0[%r9], %r7
	sub.f %r7, 0, %r0
	bne 9f
	nop
9:	add %rca, 0, %pc
	nop
`

// watchDMAWait is the wait of the NetVM firmware's dma_sync
// (firmware/netvm/src/netvm.s): a block is started (the descriptor's
// address, a pulse), then the loop polls the descriptor for the terminal
// bit, ISR for a fault, and the transmit work word. watchCore's pulse
// handler sets the bit some cycles later; the next block has another
// local address (r6), so its wait is watched again.
const watchDMAWait = `
	mov 0x8000, %sp
	mov 0x4000, %r6
	mov 0x1040, %r10
	mov 8, %r11
.Lblock:
	add %r6, 0x40, %r6
	st %r6, 4[%r10]            ! DESC_LAR
	st %r10, 0[%r10]           ! DESC_NEXT: not terminal
	st %r11, -328[%r0]         ! PULSE
2:	mov 1, %r13
	ld 0[%r10], %r12
	and %r12, %r13, %r12
	sub.f %r12, 0, %r0
	bne .Lblock
	nop
	ld -432[%r0], %r12         ! ISR
	and.f %r12, %r11, %r0
	bne 6f
	sh %r12, 28, %r12
	sub.f %r12, 0, %r0
	bpl 2b
	ld 0x1008[%r0], %r12       ! (delay slot) txwork
6:	st %r0, -4096[%r0]         ! (never: exit)
`

// watchCore loads a watch benchmark's loop with its devices: an RTC that
// ticks every 100 cycles (2 MHz at 200 MHz; a read is stable until the
// next tick after it, as the board's), and either an event every period
// cycles that writes a new engine mask (the main loop), or a pulse
// register whose write sets the descriptor's terminal bit period cycles
// later (the DMA wait).
func watchCore(tb testing.TB, src string, period uint64) *CPU {
	c, _ := load(tb, linkSources(tb, asm.Source{Name: "watch.s", Text: []byte("\t.globl _start\n_start:\n" + src)}), Config{})
	var lastRead uint64
	c.Mem.Specials.Hook(0x068, func() uint32 { lastRead = c.Cycles; return uint32(c.Cycles / 100) }, nil)
	c.Mem.Specials.HookStable(0x068, func() uint64 { return (lastRead/100 + 1) * 100 })
	n := uint32(0)
	var mask func()
	mask = func() {
		n++
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], n)
		c.Mem.Write(0x1004, b[:])
		c.Schedule(c.Cycles+period, mask)
	}
	if src == watchMainLoop {
		c.Schedule(period, mask)
	}
	c.Mem.Specials.Hook(0x0B8, nil, func(uint32) {
		c.Schedule(c.Cycles+period, func() { c.Mem.Write(0x1040, []byte{0, 0, 0x10, 0x41}) })
	})
	return c
}

// BenchmarkWatch runs watchCore's loops for 2,000,000 cycles in runs of
// 40 cycles (a cluster's steps) and reports the CPU time per watched
// instruction (watches dominate: most other instructions are skipped),
// and per run the instructions watched and executed.
func BenchmarkWatch(b *testing.B) {
	for _, v := range []struct {
		name   string
		src    string
		period uint64
	}{{"main", watchMainLoop, 400}, {"dmawait", watchDMAWait, 150}} {
		b.Run(v.name, func(b *testing.B) {
			var cpu float64
			var watched, executed uint64
			for range b.N {
				b.StopTimer()
				c := watchCore(b, v.src, v.period)
				b.StartTimer()
				cpu0 := cputime.Seconds()
				for c.Cycles < 2_000_000 {
					if st := c.Run(40); st.Kind != StopCycleLimit {
						b.Fatalf("stopped: %s", stopMessage(st))
					}
				}
				cpu += cputime.Seconds() - cpu0
				watched += c.loop.watched
				executed += c.Instret - c.SkippedInstret - c.loop.watched
			}
			b.ReportMetric(cpu*1e9/float64(watched), "ns-cpu/watched")
			b.ReportMetric(float64(watched)/float64(b.N), "watched/op")
			b.ReportMetric(float64(executed)/float64(b.N), "executed/op")
		})
	}
}
