package lanai

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"lanaiemu/internal/cputime"
)

// devLog is what a logged device register (0x050) saw of the core's
// reads: how many, and the cycle and instruction count of the last.
type devLog struct{ n, cycle, instret uint64 }

// heartbeatCore loads a variant of workLoop that stores a heartbeat from
// the RTC-like register (0x068) in every pass, as the NetVM main loop
// does (ld RTC; st HEARTBEAT): 1 to 9 calls of f2; the heartbeat at the
// head, after the work flag's test, in f2 (stored once a call), before
// the exit flag's load, or twice (0x1010 and 0x1014, the register held
// across the calls), stored as loaded or plus 5, and a second chain in
// f1 or not; a counted loop
// in f2 (three takes of its backward branch a call) or not; a steady device
// register (0x050, ISR-like) read at the head, before the calls, after
// them or not at all, whose reads go to log; with randomLoopCore's events.
func heartbeatCore(t testing.TB, rng *rand.Rand, log *devLog) *CPU {
	src := workLoop
	calls := []int{1, 2, 5, 9}[rng.Intn(4)]
	src = strings.Replace(src, "\tbt f2\n\tadd %pc, 4, %rca\n", strings.Repeat("\tbt f2\n\tadd %pc, 4, %rca\n", calls), 1)
	hb := "\tld -408[%r0], %r6\n\tst %r6, 0x1010[%r0]\n\tmov 0, %r6\n"
	switch rng.Intn(5) {
	case 0:
		src = strings.Replace(src, ".Lmain:\n", ".Lmain:\n"+hb, 1)
	case 1:
		src = strings.Replace(src, "\tbt f1\n", hb+"\tbt f1\n", 1)
	case 2:
		src = strings.Replace(src, "f2:\n\tst %rca, [--%sp]\n", "f2:\n\tst %rca, [--%sp]\n"+hb, 1)
	case 3:
		src = strings.Replace(src, "\tld 0x1004[%r0], %r7", hb+"\tld 0x1004[%r0], %r7", 1)
	case 4:
		src = strings.Replace(src, "\tld 0x1000[%r0], %r8", "\tld -408[%r0], %r6\n\tst %r6, 0x1010[%r0]\n\tld 0x1000[%r0], %r8", 1)
		src = strings.Replace(src, "\tld 0x1004[%r0], %r7", "\tst %r6, 0x1014[%r0]\n\tmov 0, %r6\n\tld 0x1004[%r0], %r7", 1)
	}
	if rng.Intn(3) == 0 { // a heartbeat computed from the register's value (a store of no load's value as loaded)
		src = strings.ReplaceAll(src, "\tld -408[%r0], %r6\n", "\tld -408[%r0], %r6\n\tadd %r6, 5, %r6\n")
	}
	if rng.Intn(2) == 0 {
		src = strings.Replace(src, "f1:\n\tst %rca, [--%sp]\n", "f1:\n\tst %rca, [--%sp]\n\tld -408[%r0], %r11\n\tst %r11, 0x1018[%r0]\n\tmov 0, %r11\n", 1)
	}
	if rng.Intn(2) == 0 { // a counted loop inside the pass: a backward branch the run loop counts takes of
		src = strings.Replace(src, "f2:\n\tst %rca, [--%sp]\n", "f2:\n\tst %rca, [--%sp]\n\tmov 3, %r12\n.Lin:\n\tsub.f %r12, 1, %r12\n\tbne .Lin\n\tnop\n", 1)
	}
	dev := "\tld -432[%r0], %r10\n"
	switch rng.Intn(4) {
	case 0:
		src = strings.Replace(src, ".Lmain:\n", ".Lmain:\n"+dev, 1)
	case 1:
		src = strings.Replace(src, "\tbt f1\n", dev+"\tbt f1\n", 1)
	case 2:
		src = strings.Replace(src, "\tld 0x1004[%r0], %r7", dev+"\tld 0x1004[%r0], %r7", 1)
	}
	c := randomEvents(t, rng, src)
	c.Mem.Specials.Hook(0x050, func() uint32 {
		log.n++
		log.cycle, log.instret = c.Cycles, c.Instret
		return 7
	}, nil)
	c.Mem.Specials.HookStable(0x050, func() uint64 { return ^uint64(0) })
	c.Mem.Specials.SetPeek(func(off uint32) (uint32, error) { // a look without a read (as the board's)
		switch off {
		case 0x050:
			return 7, nil
		case 0x068:
			return uint32(c.Cycles), nil // (varying: its value is never checked again)
		}
		return 0, nil
	})
	return c
}

// The heartbeat's landing (loopGhost) against stepping and against the
// plain rule (ghostOff): random heartbeatCore loops in random runs and
// single steps, with breakpoints, register writes, writes from outside
// and SRAM booked or not (randomLockstepTwin), give stepping's state,
// SRAM, last store, transfers and trap report, and the plain rule's
// counts (Cycles, Instret, SkippedCycles, SkippedInstret, pc) and device
// reads (how many, and when the last was) after every run.
func TestHeartbeatLandingAgainstStepping(t *testing.T) {
	var ghosts, skipped uint64
	for seed := int64(1); seed <= int64(*lockstepSeeds); seed++ {
		var lf, lp, ls devLog
		fast := heartbeatCore(t, rand.New(rand.NewSource(seed)), &lf)
		plain := heartbeatCore(t, rand.New(rand.NewSource(seed)), &lp)
		slow := heartbeatCore(t, rand.New(rand.NewSource(seed)), &ls)
		same := func() string {
			if lf != lp {
				return fmt.Sprintf("device reads %+v, with the landing off %+v", lf, lp)
			}
			return ""
		}
		randomLockstepTwin(t, seed, fast, slow, []uint32{0x1000, 0x3000, 0x7ffc, 0x7ff8, 0x1010}, &twin{plain, same})
		ghosts += fast.loop.ghosts
		skipped += fast.SkippedCycles
	}
	if ghosts < uint64(*lockstepSeeds)*20 || skipped < uint64(*lockstepSeeds)*100_000 {
		t.Errorf("%d moves of the heartbeat's landing, %d cycles skipped", ghosts, skipped)
	}
	t.Logf("%d moves of the heartbeat's landing, %d cycles skipped", ghosts, skipped)
}

// BenchmarkHeartbeatLanding runs eight heartbeatCore loops (seeds 1 to 8,
// about 400,000 cycles each, events every 1 to 300-30,000 cycles) in
// runs of 20 and 200 cycles, as a cluster's steps run a busy board, with
// the heartbeat's landing on and off (ghostOff). It reports the CPU time
// per run.
func BenchmarkHeartbeatLanding(b *testing.B) {
	for _, run := range []uint64{20, 200} {
		for _, off := range []bool{false, true} {
			b.Run(fmt.Sprintf("run=%d/off=%v", run, off), func(b *testing.B) {
				defer func() { ghostOff = false }()
				var runs uint64
				var cpu float64
				for i := 0; i < b.N; i++ {
					for seed := int64(1); seed <= 8; seed++ {
						b.StopTimer()
						var log devLog
						c := heartbeatCore(b, rand.New(rand.NewSource(seed)), &log)
						ghostOff = off
						b.StartTimer()
						cpu0 := cputime.Seconds()
						for {
							runs++
							if st := c.Run(run); st.Kind != StopCycleLimit {
								break
							}
						}
						cpu += cputime.Seconds() - cpu0
					}
				}
				b.ReportMetric(cpu*1e9/float64(runs), "ns-cpu/run")
			})
		}
	}
}
