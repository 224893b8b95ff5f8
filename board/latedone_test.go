package board

import (
	"testing"

	"lanaiemu/lanai/lanaitest"
)

// A device event runs at the first instruction boundary at or after its
// cycle, and a core access to SRAM the DMA engine booked waits to the end
// of the booked cycles. The last host-to-SRAM burst books its 32 SRAM
// writes and the write-back back to back, and schedules the completion
// FIFOAccesses + WriteBackAccesses cycles after its own cycle; so while
// the core reads SRAM, the burst's event runs late enough that the
// completion is already due, and runs at the same boundary. A runner that
// let a board run through events could not tell the step of such a
// completion from the boundary alone (docs/timeline.md, "Running through
// the step of the leader's event"). Without SRAM reads the completion
// comes later than the burst's boundary.
func TestCompletionDueAtItsBurstsBoundary(t *testing.T) {
	const reads = "\t.globl _start\n_start:\n\tmov 0x20000, %r20\n.L:\n\tld 0[%r20], %r8\n\tbt .L\n\tnop\n"
	for _, tc := range []struct {
		name, src string
		late      bool
	}{{"SRAM reads", reads, true}, {"idle", idleSrc, false}} {
		var b *Board
		var burstAt, burstRan, doneAt, doneRan uint64
		cfg := Config{Host: NewHostRAM(hostBase, 1<<16), Trace: func(e Event) {
			switch e.Kind {
			case EvDMABurst:
				burstAt, burstRan = e.Cycle, b.CPU().Cycles
			case EvDMADone:
				doneAt, doneRan = e.Cycle, b.CPU().Cycles
			}
		}}
		b, _ = boot(t, cfg, lanaitest.Build(t, inline(tc.src)))
		b.CPU().Mem.Write(0x1000, Descriptor{Next: 0x1030 | DMAE2L, Len: 256, LAR: 0x10000, PCI: hostBase}.Bytes())
		b.CPU().Mem.Write(0x1030, Descriptor{Next: DMATerminal}.Bytes())
		b.HostWritePointerBank(0, 0x1000)
		at(t, b, 100, func() { coreWrite(t, b, RegPULSE, 2) })
		b.Run(5000)
		if doneAt == 0 {
			t.Fatalf("%s: no completion", tc.name)
		}
		p := b.PCIParams()
		if doneAt != burstAt+p.FIFOAccesses+p.WriteBackAccesses {
			t.Errorf("%s: completion due at %d, burst at %d", tc.name, doneAt, burstAt)
		}
		if late := doneAt <= burstRan; late != tc.late || late && doneRan != burstRan {
			t.Errorf("%s: burst due at %d ran at %d; completion due at %d ran at %d", tc.name, burstAt, burstRan, doneAt, doneRan)
		}
		t.Logf("%s: burst due at %d ran at %d; completion due at %d ran at %d", tc.name, burstAt, burstRan, doneAt, doneRan)
	}
}
