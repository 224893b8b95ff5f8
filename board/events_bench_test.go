package board

import (
	"fmt"
	"testing"

	"lanaiemu/internal/cputime"
	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
)

// dmaWaitSrc moves 64 KiB between host memory and SRAM in one descriptor
// (256 bursts of 256 bytes) while the core waits in a loop of the kind the
// NetVM firmware's dma_sync is (a call that pushes and pops its return
// address and reads EIMR, a steady store): the loop is proved by a watch
// and skipped from burst to burst. FLAGS is the descriptor's direction.
const dmaWaitSrc = `
	.set	ISR, -432
	.set	PULSE, -328
	.set	CH2, -3832
	.set	EXIT, -4096
	.globl	_start
_start:
	mov	0x8000, %sp
	mov	desc, %r9
	st	%r9, CH2[%r0]
	mov	4, %r9
	st	%r9, PULSE[%r0]		! start channel 2
	mov	0x1000, %r11		! WAKE0
.Lwait:
	ld	ISR[%r0], %r7
	st	%r11, 0x2000[%r0]	! a steady store
	bt	poll
	add	%pc, 4, %rca
	and	%r7, %r11, %r7
	sub.f	%r7, 0, %r0
	beq	.Lwait
	nop
	st	%r7, ISR[%r0]
	st	%r7, EXIT[%r0]
poll:
	st	%rca, [--%sp]
	ld	-424[%r0], %r8		! EIMR
	and	%r8, 0xffff0001, %r8
	ld	[%sp++], %rca
	add	%rca, 0, %pc
	nop

	.data
	.p2align 3
desc:
	.long	desc2 + FLAGS
	.short	0, 0
	.long	0x10000
	.long	0x10000
	.long	1			! eah: host memory is above 4 GiB
	.long	0
desc2:
	.long	2			! TERMINAL
	.short	0, 0
	.long	0, 0, 0, 0
`

// BenchmarkDMAWait runs dmaWaitSrc in runs of 20 cycles (a cluster's
// quantum at 200 MHz) in both directions and reports the CPU time per
// DMA burst: the burst's event and the proved loop's resumes and landings
// around it (the core executes a few dozen instructions in all).
func BenchmarkDMAWait(bm *testing.B) {
	for _, dir := range []struct {
		name  string
		flags string
	}{{"host-to-sram", "5"}, {"sram-to-host", "4"}} { // E2L|WAKE, WAKE
		bm.Run(dir.name, func(bm *testing.B) {
			img := lanaitest.Build(bm, inline(fmt.Sprintf("\t.set FLAGS, %s\n%s", dir.flags, dmaWaitSrc)))
			var bursts, runs, n uint64
			var cpu float64
			b, _ := boot(bm, Config{Config: lanai.Config{ClockHz: 200_000_000}, Host: NewHostRAM(hostBase, 1<<16), Trace: func(e Event) {
				if e.Kind == EvDMABurst {
					n++
				}
			}}, img)
			for i := 0; i < bm.N; i++ {
				bm.StopTimer()
				if _, err := b.Load(img); err != nil {
					bm.Fatal(err)
				}
				n = 0
				bm.StartTimer()
				cpu0 := cputime.Seconds()
				for {
					runs++
					if st := b.Run(20); st.Kind != lanai.StopCycleLimit {
						if st.Kind != lanai.StopExit || st.Code != 0x1000 {
							bm.Fatalf("stopped with %s (fault %v)", stopText(st), b.Fault())
						}
						break
					}
				}
				cpu += cputime.Seconds() - cpu0
				if n != 256 || b.CPU().SkippedCycles < b.CPU().Cycles/2 {
					bm.Fatalf("%d bursts, %d of %d cycles skipped", n, b.CPU().SkippedCycles, b.CPU().Cycles)
				}
				bursts += n
			}
			bm.ReportMetric(cpu*1e9/float64(bursts), "ns-cpu/burst")
			bm.ReportMetric(float64(runs)/float64(bursts), "runs/burst")
		})
	}
}
