package node

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"lanaiemu/lanai"
	"lanaiemu/sim"
)

// spinSend is firmware for four roles: role 0 sets IT0 (an event due long
// after its exit), counts spin down and exits with its CPUC (role 3 traps there instead, on an unaligned load); role 1 sends iters packets of len bytes back to back
// (waiting only for SEND_INT, the receiver never arms) and exits with the
// number sent; role 2 waits for a packet that never comes. Their polling
// loops store a heartbeat, so the core proves them by watching them
// (lanai.CPU.Polling) and the world takes lead steps.
const spinSend = `	.include "../../firmware/crt/lanai9.inc"
	.data
	.globl	role, iters, len, spin
role:	.word	0
iters:	.word	1
len:	.word	64
spin:	.word	1
hb:	.word	0		! a heartbeat: the polling loops store the RTC
	.align	8
txbuf:	.zero	4096
	.text
	.globl	_start
_start:	mov	hi(role), %r16
	or	%r16, lo(role), %r16
	ld	0[%r16], %r17
	ld	4[%r16], %r13
	ld	8[%r16], %r14
	ld	12[%r16], %r5
	sub.f	%r17, 1, %r0
	beq	.Lsend
	nop
	sub.f	%r17, 2, %r0
	beq	.Lwait
	nop
	mov	0x8000, %r9		! IT0 due long after the exit: the core has an event
	st	%r9, IT0[%r0]
1:	sub.f	%r5, 1, %r5
	bne	1b
	nop
	sub.f	%r17, 3, %r0
	beq	.Ltrap
	nop
	ld	CPUC[%r0], %r6
	nop
	st	%r6, SIM_EXIT[%r0]
	bt	.
	nop
.Lsend:	mov	ISR_SEND_INT, %r8
	mov	hi(txbuf), %r10
	or	%r10, lo(txbuf), %r10
	add	%r10, %r14, %r15
	st	%r0, SA[%r0]
	mov	0, %r20
.Lw1:	ld	RTC[%r0], %r9
	st	%r9, 16[%r16]
	mov	0, %r9
	ld	ISR[%r0], %r7
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lw1
	nop
	st	%r10, SMP[%r0]
	st	%r15, SMLT[%r0]
	add	%r20, 1, %r20
	sub.f	%r13, 1, %r13
	bne	.Lw1
	nop
.Lw2:	ld	RTC[%r0], %r9
	st	%r9, 16[%r16]
	mov	0, %r9
	ld	ISR[%r0], %r7
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lw2
	nop
	st	%r20, SIM_EXIT[%r0]
	bt	.
	nop
.Ltrap:	ld	2[%r16], %r6		! unaligned: a trap
	bt	.
	nop
.Lwait:	mov	ISR_RECV_INT, %r8
.Lw3:	ld	RTC[%r0], %r9
	st	%r9, 16[%r16]
	mov	0, %r9
	ld	ISR[%r0], %r7
	and	%r7, %r8, %r7
	sub.f	%r7, 0, %r0
	beq	.Lw3
	nop
	st	%r0, SIM_EXIT[%r0]
	bt	.
	nop
`

// A node that exits inside a lead step while the other keeps sending: its
// count stays at its exit, the step ends at the step of length Q that
// holds the exit, and the other node, the fabric and the world's end are
// where the steps of length Q (and the debugger's ticks, an instruction
// at a time) leave them, with one goroutine or two, with or without the
// sit-outs, the lag set and the runs through a step end. Cases: the exit long
// before the sender's end, the exit at the first cycles, and the run cut
// by its time limit while the sender still sends; a trap instead of the
// exit; two nodes that stop in the same step.
func TestExitWhileOthersRun(t *testing.T) {
	img := buildSource(t, filepath.Join("..", "fixtures", "firmware", "spinsend.s"), []byte(spinSend))
	for _, c := range []struct {
		name         string
		roles, spins [2]uint32
		iters        uint32
		until        sim.Time
		stops        [2]lanai.StopKind // StopNone: still running at until
	}{
		{"exit amid the sends", [2]uint32{0, 1}, [2]uint32{20000, 0}, 60, sim.Millisecond, [2]lanai.StopKind{lanai.StopExit, lanai.StopExit}},
		{"exit at once", [2]uint32{0, 1}, [2]uint32{1, 0}, 60, sim.Millisecond, [2]lanai.StopKind{lanai.StopExit, lanai.StopExit}},
		{"the time limit", [2]uint32{0, 1}, [2]uint32{3000, 0}, 1000, 100 * sim.Microsecond, [2]lanai.StopKind{lanai.StopExit, lanai.StopNone}},
		{"exit while the other waits", [2]uint32{0, 2}, [2]uint32{20000, 0}, 0, 600 * sim.Microsecond, [2]lanai.StopKind{lanai.StopExit, lanai.StopNone}},
		{"a trap amid the sends", [2]uint32{3, 1}, [2]uint32{20000, 0}, 60, sim.Millisecond, [2]lanai.StopKind{lanai.StopTrap, lanai.StopExit}},
		{"a trap while the other waits", [2]uint32{3, 2}, [2]uint32{20000, 0}, 0, 600 * sim.Microsecond, [2]lanai.StopKind{lanai.StopTrap, lanai.StopNone}},
		{"two exits in one step", [2]uint32{0, 0}, [2]uint32{5000, 5001}, 0, sim.Millisecond, [2]lanai.StopKind{lanai.StopExit, lanai.StopExit}},
		{"an exit and a trap in one step", [2]uint32{0, 3}, [2]uint32{5000, 5000}, 0, sim.Millisecond, [2]lanai.StopKind{lanai.StopExit, lanai.StopTrap}},
	} {
		type result struct {
			nodes []NodeStats
			now   sim.Time
		}
		var want *result
		for _, mode := range []string{"debugger ticks", "steps of length Q", "proved jumps", "lead steps", "lead steps, 2 jobs",
			"lead steps, no sit-outs", "lead steps, no lag set", "lead steps, no run-through"} {
			var params []map[string]uint32
			for i := range 2 {
				params = append(params, map[string]uint32{"role": c.roles[i], "spin": c.spins[i], "iters": c.iters, "len": 2048})
			}
			s := world(t, img, params)
			s.w.SetProvedJumps(mode != "steps of length Q" && mode != "debugger ticks")
			s.w.SetLeadSteps(strings.HasPrefix(mode, "lead steps"))
			switch mode {
			case "lead steps, 2 jobs":
				s.w.SetJobs(2)
			case "lead steps, no sit-outs":
				s.w.SetSitOut(false)
			case "lead steps, no lag set":
				s.w.SetLagSet(false)
			case "lead steps, no run-through":
				s.w.SetRunThrough(false)
			}
			if mode == "debugger ticks" {
				for s.w.Running() && s.w.Now() < c.until {
					if err := s.w.Run(min(max(s.w.NextCycle(), s.w.Now()+1), c.until)); err != nil && !trapped(s.w) {
						t.Fatal(err)
					}
				}
			} else if err := s.w.Run(c.until); (err != nil) != trapped(s.w) {
				t.Fatalf("%s, %s: %v", c.name, mode, err)
			}
			st := s.w.Stats()
			for i := range st.Nodes {
				st.Nodes[i].SkippedCycles = 0 // how much of the polling the core skipped depends on its runs' lengths
			}
			got := &result{st.Nodes, st.Time}
			for i, n := range s.w.Nodes {
				if k := kind(n.Stop); k != c.stops[i] {
					t.Fatalf("%s, %s: node %d: %v, want %v", c.name, mode, i, k, c.stops[i])
				}
				// Stop.Cycle is where the stopping instruction began: the
				// one-cycle EXIT store one cycle before its end, the
				// trapping load where the count stays.
				if n.Stop != nil && n.Stop.Cycle != n.Board.CPU().Cycles-map[lanai.StopKind]uint64{lanai.StopExit: 1, lanai.StopTrap: 0}[n.Stop.Kind] {
					t.Errorf("%s, %s: node %d: %v: Stop.Cycle %d, count %d", c.name, mode, i, n.Stop.Kind, n.Stop.Cycle, n.Board.CPU().Cycles)
				}
				if n.Stop != nil && n.Stop.Kind == lanai.StopTrap {
					// Its count at the trap: Stats gives none.
					got.nodes[i].ExitCode = uint32(n.Board.CPU().Cycles)
				}
			}
			if (c.roles[1] == 1 || c.roles[1] == 2) && c.spins[0] > 1 && mode == "lead steps" && st.LeadSteps == 0 {
				t.Errorf("%s: no lead step", c.name)
			}
			if want == nil {
				want = got
				continue
			}
			for i := range got.nodes {
				if g, w := fmt.Sprintf("%+v", got.nodes[i]), fmt.Sprintf("%+v", want.nodes[i]); g != w {
					t.Errorf("%s, %s: node %d:\n%s\nwith the debugger's ticks:\n%s", c.name, mode, i, g, w)
				}
			}
			if got.now != want.now {
				t.Errorf("%s, %s: the world ends at %v; with the debugger's ticks at %v", c.name, mode, got.now, want.now)
			}
		}
		t.Logf("%s: node 0 stops at cycle %d, node 1 at %d (%v); the end %v", c.name, want.nodes[0].Cycles, want.nodes[1].Cycles, c.stops[1], want.now)
	}
}

// trapped reports whether a node of w trapped.
func trapped(w *World) bool {
	for _, n := range w.Nodes {
		if n.Stop != nil && n.Stop.Kind == lanai.StopTrap {
			return true
		}
	}
	return false
}

// kind is why a node stopped, StopNone if it runs.
func kind(s *lanai.Stop) lanai.StopKind {
	if s == nil {
		return lanai.StopNone
	}
	return s.Kind
}
