package lanai

import "lanaiemu/isa"

// Proofs taken again (loopRevive; the rules are in docs/timing.md). A
// busy firmware goes from its main loop to a wait loop (NetVM's
// dma_sync) and back, and every watch of one used to write over the
// other's proof: the core then watched each loop again on its way back.
// A proof about to be written over is kept (keepProof) when its branch's
// kept proofs are taken again, and taken again at the loop's head, instead
// of a watch, when everything it depends on holds. The current proof stays
// in loopWatch's fields (the skips read it there): keeping copies it out,
// taking it again copies it back.

// A branch's debt counts its proofs made keepable less keepCredit per
// proof taken again. At more than keepTrials its proofs are not kept
// (they are not taken again: keeping costs a copy) but for every
// keepProbe-th, which looks whether that changed; a proof taken again
// brings the debt back to keepTrials less keepCredit at once.
const (
	keepTrials = 8
	keepCredit = 4
	keepProbe  = 16
	keepFloor  = -16
	keptSlots  = 4   // proofs kept besides the current one
	keptBody   = 128 // the most instructions of a kept proof's iteration
)

// keptMin is the fewest instructions of a kept proof's iteration: a
// shorter loop is watched again for about what keeping and taking back
// its proof cost (docs/performance.md, "Tried and not kept"). Tests that
// run short loops lower it.
var keptMin = 24

// loopRevive outcomes.
const (
	reviveNo   = iota
	reviveNow  // the proof holds again
	reviveNext // it may hold after one more iteration
)

// keptStore is what loopRevive keeps, made at the first proof it may
// keep (a core whose loops are not kept allocates nothing): the kept
// proofs with their branches (0: none) and when each was kept (keepStamp),
// and the code words of the current proof (noteKeepable).
type keptStore struct {
	owner [keptSlots]uint32
	stamp [keptSlots]uint64
	code  [keptBody]uint32
	slot  [keptSlots]keptProof
}

// keptProof is a proof kept for loopRevive: the notes of loopWatch that a
// skip and a check use, for the n instructions of its iteration (the
// rest of the arrays is not copied).
type keptProof struct {
	n                                       int
	regs                                    [32]uint32
	flags                                   isa.Flags
	lastLoad                                uint8
	words                                   [maxLoopStores]loopWord
	nwords                                  int
	iterCycles, iterInstret, iterStores     uint64
	varyingStores                           bool
	lastVarying                             int
	reads                                   [maxLoopReads]loopRead
	nreads                                  int
	endR2, endStore                         uint32
	endStoreSize                            uint8
	nregLog                                 int
	noLanding                               bool
	ntransfers, nstoreSteps, naccessSteps   int
	readLo, readHi                          uint32
	liveIn, mayWrite                        uint64
	trace                                   [keptBody]loopStep
	regLog                                  [2 * keptBody]regWrite
	transBefore, storesBefore, accessBefore [keptBody + 1]uint16
	cycleAt                                 [keptBody]uint32
	transfers, storeSteps, accessSteps      [keptBody]uint16
	lastSteady                              [keptBody]uint16
	code                                    [keptBody]uint32
}

// noteKeepable notes, at the end of a proof (loopEnd), what loopRevive
// needs to take it again, when its branch is kept: the instruction words
// its iteration executed and the registers they may write. A counting
// proof, one with a read that cannot be checked again, one shorter than
// keptMin or longer than keptBody instructions, one with code outside
// SRAM and (but for every keepProbe-th) one of a branch in debt are not
// kept.
func (c *CPU) noteKeepable() {
	w := &c.loop
	w.keepable = false
	if w.hasCount || w.fragile || w.n < keptMin || w.n > keptBody || w.nregLog > 2*keptBody {
		return
	}
	if w.keepDebt == nil {
		w.keepDebt = map[uint32]int{}
	}
	d := w.keepDebt[w.branch] + 1
	w.keepDebt[w.branch] = d
	if d > keepTrials && d%keepProbe != 0 {
		return
	}
	if w.kept == nil {
		w.kept = new(keptStore)
	}
	w.mayWrite = 0
	for i := range w.n {
		pc := w.trace[i].pc
		if !c.Mem.InSRAM(pc, 4) {
			return
		}
		w.kept.code[i] = c.sramWord(pc)
		in := c.inst(pc)
		w.mayWrite |= 1<<(in.Rd&31) | 1<<(in.Rs1&31)
	}
	w.keepable = true
}

// keepProof copies the current proof (of branch lastProved, keepable)
// into a kept slot before a watch writes over it: a free one, else the
// one kept longest; never slot avoid (-1: none).
func (c *CPU) keepProof(avoid int) {
	w := &c.loop
	ks := w.kept // (made by noteKeepable)
	i := -1
	for x := range keptSlots {
		if x == avoid {
			continue
		}
		if i < 0 || ks.owner[x] == 0 && ks.owner[i] != 0 ||
			(ks.owner[x] == 0) == (ks.owner[i] == 0) && ks.stamp[x] < ks.stamp[i] {
			i = x
		}
	}
	w.keepStamp++
	ks.owner[i], ks.stamp[i] = w.lastProved, w.keepStamp
	w.trade(&ks.slot[i], true)
}

// trade copies a proof's notes between the current proof and kept slot k:
// into k when keep, out of it otherwise.
func (w *loopWatch) trade(k *keptProof, keep bool) {
	mv(&w.n, &k.n, keep)
	mv(&w.regs, &k.regs, keep)
	mv(&w.flags, &k.flags, keep)
	mv(&w.lastLoad, &k.lastLoad, keep)
	mv(&w.nwords, &k.nwords, keep)
	mv(&w.iterCycles, &k.iterCycles, keep)
	mv(&w.iterInstret, &k.iterInstret, keep)
	mv(&w.iterStores, &k.iterStores, keep)
	mv(&w.varyingStores, &k.varyingStores, keep)
	mv(&w.lastVarying, &k.lastVarying, keep)
	mv(&w.nreads, &k.nreads, keep)
	mv(&w.endR2, &k.endR2, keep)
	mv(&w.endStore, &k.endStore, keep)
	mv(&w.endStoreSize, &k.endStoreSize, keep)
	mv(&w.nregLog, &k.nregLog, keep)
	mv(&w.noLanding, &k.noLanding, keep)
	mv(&w.ntransfers, &k.ntransfers, keep)
	mv(&w.nstoreSteps, &k.nstoreSteps, keep)
	mv(&w.naccessSteps, &k.naccessSteps, keep)
	mv(&w.readLo, &k.readLo, keep)
	mv(&w.readHi, &k.readHi, keep)
	mv(&w.liveIn, &k.liveIn, keep)
	mv(&w.mayWrite, &k.mayWrite, keep)
	n := w.n // (the counts are the same on both sides now)
	mvs(w.words[:w.nwords], k.words[:w.nwords], keep)
	mvs(w.reads[:w.nreads], k.reads[:w.nreads], keep)
	mvs(w.trace[:n], k.trace[:n], keep)
	mvs(w.regLog[:w.nregLog], k.regLog[:w.nregLog], keep)
	mvs(w.transBefore[:n+1], k.transBefore[:n+1], keep)
	mvs(w.storesBefore[:n+1], k.storesBefore[:n+1], keep)
	mvs(w.accessBefore[:n+1], k.accessBefore[:n+1], keep)
	mvs(w.cycleAt[:n], k.cycleAt[:n], keep)
	mvs(w.transfers[:w.ntransfers], k.transfers[:w.ntransfers], keep)
	mvs(w.storeSteps[:w.nstoreSteps], k.storeSteps[:w.nstoreSteps], keep)
	mvs(w.accessSteps[:w.naccessSteps], k.accessSteps[:w.naccessSteps], keep)
	mvs(w.lastSteady[:n], k.lastSteady[:n], keep)
	mvs(w.kept.code[:n], k.code[:n], keep)
}

// mv copies *a to *b when ab, *b to *a otherwise.
func mv[T any](a, b *T, ab bool) {
	if ab {
		*b = *a
	} else {
		*a = *b
	}
}

// mvs copies slice a to b when ab, b to a otherwise.
func mvs[T any](a, b []T, ab bool) {
	if ab {
		copy(b, a)
	} else {
		copy(a, b)
	}
}

// loopRevive takes a proof of the branch being watched again at the
// loop's head (watchLoop, before a watch): the current one when it is the
// branch's and keepable (its check failed), or a kept one. It reports
// whether it did something instead of the watch: a skip (the proof holds
// again), or letting the core execute one iteration first (reviveNext).
func (c *CPU) loopRevive(limit uint64) bool {
	w := &c.loop
	var k *keptProof
	how, kept := reviveNo, -1
	if w.lastProved == w.branch && w.keepable {
		how = c.reviveHolds(&w.regs, w.flags, w.lastLoad, w.liveIn, w.mayWrite,
			w.reads[:w.nreads], w.words[:w.nwords], w.trace[:w.n], w.kept.code[:w.n])
	}
	for i := 0; how != reviveNow && w.kept != nil && i < keptSlots; i++ {
		if p := &w.kept.slot[i]; w.kept.owner[i] == w.branch {
			if h := c.reviveHolds(&p.regs, p.flags, p.lastLoad, p.liveIn, p.mayWrite,
				p.reads[:p.nreads], p.words[:p.nwords], p.trace[:p.n], p.code[:p.n]); h != reviveNo {
				how = h
				if h == reviveNow {
					k, kept = p, i
				}
			}
		}
	}
	switch how {
	case reviveNo:
		return false
	case reviveNext:
		if w.deferred == w.branch {
			return false // looked again already: watch it
		}
		// The registers the iteration only writes hold other values:
		// after one iteration they hold its own.
		w.deferred, w.state = w.branch, loopOff
		return true
	}
	if k != nil {
		c.settleHistory() // the held transfers are the current proof's
		c.settleCount()
		if w.keepable && w.lastProved != 0 {
			c.keepProof(kept)
		}
		w.kept.owner[kept] = 0 // its notes are the current proof's now
		w.trade(k, false)
		w.hasCount, w.cmask = false, 0
		w.lastProved, w.keepable = w.branch, true
	}
	// A register the iteration neither reads first nor may write keeps the
	// core's value through it.
	copy(w.regs[3:], c.R[3:32])
	if !c.sameState() {
		return false
	}
	w.proved = true
	w.gen, w.specialWrites = c.loopGen, c.Mem.Specials.Writes()
	c.outLo, c.outHi = ^uint32(0), 0
	w.deferred = 0
	w.revivals++
	w.keepDebt[w.branch] = max(min(w.keepDebt[w.branch], keepTrials)-keepCredit, keepFloor)
	c.loopSkip(limit)
	w.state = loopSkipped
	return true
}

// reviveHolds says whether a proof with these notes holds at the core's
// state, at the loop's head: the registers its iteration read before it
// changed them, the flags and the interlock are those of its head; the
// instructions it executed are the same words (trace, code); and what it
// read and the words it stores a steady value to hold what they held
// then (readsHold, every word looked at: the core's own stores since may
// have changed them). A register that differs and that the iteration may
// write (mayWrite) holds the iteration's value only after an iteration:
// reviveNext.
func (c *CPU) reviveHolds(regs *[32]uint32, flags isa.Flags, lastLoad uint8, liveIn, mayWrite uint64,
	reads []loopRead, words []loopWord, trace []loopStep, code []uint32) int {
	if c.Flags != flags || c.lastLoad != lastLoad {
		return reviveNo
	}
	next := false
	for i := 3; i < 32; i++ {
		if c.R[i] != regs[i] {
			if liveIn&(1<<i) != 0 {
				return reviveNo
			}
			next = next || mayWrite&(1<<i) != 0
		}
	}
	if !c.readsHold(reads, words, true) {
		return reviveNo
	}
	for i := range trace {
		if c.sramWord(trace[i].pc) != code[i] {
			return reviveNo
		}
	}
	if next {
		return reviveNext
	}
	return reviveNow
}
