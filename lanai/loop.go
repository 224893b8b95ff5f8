package lanai

import (
	"encoding/binary"
	"math/bits"

	"lanaiemu/isa"
	"lanaiemu/memsys"
)

// Watched loops: the general form of polling-loop skipping (poll.go handles
// the short loops it can prove from their text alone).
//
// Firmware such as the NetVM main loop polls many things per pass: it calls
// functions, pushes and pops return addresses, and stores a heartbeat read
// from the RTC. Such a pass is proved side-effect free from the
// instructions it executed: when a backward branch that poll.go rejected is
// taken, the core single-steps the next whole iteration (from the branch's
// target back to it) and follows every value through it:
//
//   - a value is "varying" when it is loaded from a device register that
//     changes by itself before the next event (the RTC, a timer, CPUC), or
//     from an SRAM word the iteration stores a varying value to; whatever
//     is computed from a varying value is varying too;
//   - a varying value may only be stored to SRAM: no branch, jump, address
//     or flag test may depend on one, and no register or flag may hold one
//     when the iteration ends;
//   - the iteration must end with every register, the flags and the
//     load-use interlock as they were when it began, and every SRAM word it
//     stored a steady value to must hold what it held before;
//   - it may not store to a device, trap, or meet a breakpoint; no event
//     may run, no event be scheduled, and nothing outside the core may
//     write SRAM or a special register while it is watched.
//
// A counter is the one exception to "registers and stored words as they
// were": an iteration whose only change besides varying stores is a word
// it counts (a statistics count: load the word, add a constant, store it
// back) is proved too. A watch that failed with exactly one steady word
// changed (and no varying register) names that word the branch's counted
// word (loopWatch.counters); the next watch follows the values loaded
// from it as "counted": one may only be added to or subtracted from by
// an immediate (so it is the loaded value plus a constant the same every
// iteration), stored back to the counted word as a whole word, or left in
// a register whose value at the iteration's start the iteration does not
// read; no branch, address, flag test or other store may depend on one,
// and the word may not be an instruction the iteration executes.
// Then each iteration adds the same delta to the word and leaves each
// counted register at the word plus the same offset, and a skip of k
// iterations adds k times the delta to the word and sets the registers
// from it (loopRun). Such a loop is skipped from its head only (a skip
// never lands inside an iteration, nor resumes from inside one), its
// registers are compared with the word (sameState), and the word is
// left out of the read set (its value decides nothing; a write from
// outside is counted on from, as executing would).
//
// Then every further iteration repeats it exactly (same instructions, same
// cycles) until an event or a write from outside, except for the varying
// values it stores, which nothing reads before the next iteration
// overwrites them. So the core skips up to the first instruction at or
// after the next event or the run's limit, landing inside an iteration in
// the state the watched one had there (loopRun); a loop that stores
// varying values lands on a head an iteration early and executes from
// there, so that every varying word holds what executing the loop would
// have left there.
// The proof stays valid while what the loop reads stays the same: the next
// time the loop comes round, and in every later run of the core, the skip
// is taken again after a register compare. The watched iteration notes
// every SRAM word and special register it loads a steady value from, with
// the value (its read set). An event, a scheduled event or a write from
// outside (loopChanged) does not end the proof by itself: before the core
// executes again (at the end of runEvents, and in Polling), the read set
// is checked against what SRAM and the registers hold now (loopRecheck).
// The proof is kept when every word holds the value it was read with,
// every register still has its value and stays steady to the next event,
// and every word the loop stores a steady value to still holds it; it ends
// otherwise, and when a write from outside touches code. So a DMA burst
// into a packet buffer the loop does not read leaves the loop skipped, and
// the core can leave a proved loop only after a failed check: while
// proved, it runs that loop from its fixed point. A branch is first watched
// after loopRetry takes; one whose iterations fail the test is watched
// again only after a growing number of takes (a success halves the count
// of failures rather than forgetting it).

const (
	maxLoopBody   = 512 // instructions a watched iteration may execute
	maxLoopStores = 32  // distinct SRAM words it may store to
	maxLoopReads  = 32  // distinct words and registers whose values a proof checks again
	loopRetry     = 250 // takes of a branch before its first watch; a backoff round
	// loopFirstRetry is the takes before a failed branch is watched again
	// after its first failure in a row, doubling with every further one
	// (up to maxLoopRounds rounds of loopRetry): a loop that is idle between
	// bursts of work is proved again soon after each burst.
	loopFirstRetry = 8
	// loopDeferTakes is the takes before a loop whose proof failed with
	// its registers unchanged (what it reads changed) is watched.
	loopDeferTakes = 1
	maxLoopRounds  = 64 // the most backoff rounds
)

// Values of a backward branch's poll state (CPU.pollOf) besides poll.go's (loopRetry+pollWait
// and below count down to the next watch).
const (
	pollWatch uint8 = 3 // the next take starts watching the loop
	pollWait  uint8 = 4 // pollWait+n: n more takes before watching
)

// Watch states.
const (
	loopOff     = iota
	loopToHead  // the branch was taken: step to its target
	loopRecord  // stepping through the iteration, following values
	loopSkipped // a skip was just taken: let the core run (no re-watch until the branch)
)

// loopWatch is the loop being watched or proved.
type loopWatch struct {
	state         int
	branch, head  uint32
	toHead        int    // steps taken towards the head
	n             int    // instructions of the iteration so far
	gen           uint64 // CPU.loopGen when the watch began
	specialWrites uint64 // the special registers' write count then
	regs          [32]uint32
	flags         isa.Flags
	lastLoad      uint8
	cycles        uint64
	instret       uint64
	stores        uint64
	varying       uint64 // bit r: register r holds a varying value; bit 63: the flags
	words         [maxLoopStores]loopWord
	nwords        int
	proved        bool // the iteration from regs/flags/lastLoad is a fixed point
	iterCycles    uint64
	iterInstret   uint64
	iterStores    uint64
	varyingStores bool
	lastVarying   int // the last instruction that stores a varying value (-1: none)
	reads         [maxLoopReads]loopRead
	nreads        int
	fragile       bool                         // a read that cannot be checked again: any change ends the proof
	proofs        uint64                       // iterations proved (tests count them)
	devPending    bool                         // the instruction being stepped loads a device register ...
	devAddr       uint32                       // ... at this address ...
	devRd         isa.Reg                      // ... into this register
	maxN          int                          // instructions this watch may follow
	trace         [maxLoopBody]loopStep        // the watched iteration, instruction by instruction
	endR2         uint32                       // R[2] at the iteration's end (see sameState)
	endStore      uint32                       // the iteration's last store (when it stores) ...
	endStoreSize  uint8                        // ... and its size
	headInstret   uint64                       // Instret at the head of the proved iteration the core is in (set where a skip lands too)
	stalled       uint64                       // skipped iterations (or rests of one) that met a booked SRAM cycle (tests count them)
	landed        uint64                       // skips that ended inside an iteration (tests count them)
	watchCalls    uint64                       // watchLoop calls (tests count them)
	watched       uint64                       // instructions watches stepped (benchmarks count them)
	regLog        [2*maxLoopBody + 32]regWrite // the watched iteration's register writes, in order
	tbuf          transferBuf                  // the transfers of the skip being worked out (newTransferBuf)
	skipped       [historySize + 1]skippedIter // the last whole iterations it skipped (loopRun)
	nregLog       int
	cur           [32]uint32 // the registers after the last watched instruction
	noLanding     bool       // the register log overflowed: skips end at heads only
	lastProved    uint32     // the branch whose proof the fields hold (0: none; it may not hold any more)
	deferred      uint32     // the branch whose watch was put off once after its proof failed
	writes        [2]isa.Reg // the registers the instruction being watched may write
	// The counted word (see the comment at the top): counting says the
	// watch follows loads of cword as counted values; counted holds the
	// registers holding one, cwritten those given one so far, readBefore
	// those whose value at the iteration's start it read. A proof with
	// counts (hasCount) adds cdelta to cword per iteration and leaves
	// each register of cmask at cword's value plus coff.
	cword                           uint32
	counting, hasCount, countMisuse bool
	counted, cwritten, readBefore   uint64
	cmask                           uint64
	cdelta                          uint32
	coff                            [32]uint32
	counters                        map[uint32]uint32 // the counted word per branch
	// The transfers of stall-free skips not yet written to the history
	// (see holdRange): a ring of up to maxHeld ranges, oldest first, from
	// heldFirst on. The newest may be extended by the next skip when it
	// goes on from where the newest ended (instruction extJ of the
	// iteration beginning at extBase, the range's transfer number extG),
	// with nothing recorded between (extOK); extBase begins the range's
	// iteration extD (below).
	held             [heldRing]heldRange
	heldFirst, nheld int
	extOK            bool
	extJ             int
	extBase, extG    uint64
	// For each instruction (and the iteration's end), the transfers, stores
	// and SRAM accesses of the iteration before it.
	transBefore, storesBefore, accessBefore [maxLoopBody + 1]uint16
	cycleAt                                 [maxLoopBody]uint32 // each instruction's first cycle (trace[i].at), packed for the searches
	transfers                               [maxLoopBody]uint16 // the iteration's transfers (trace indices) ...
	ntransfers                              int                 // ... and their number
	storeSteps                              [maxLoopBody]uint16 // its stores (trace indices) ...
	nstoreSteps                             int                 // ... and their number
	accessSteps                             [maxLoopBody]uint16 // its SRAM accesses (trace indices) ...
	naccessSteps                            int                 // ... and their number
	lastSteady                              [maxLoopBody]uint16 // for each instruction, the last at or before it where no register holds a varying value
	length                                  map[uint32]int      // instructions of the last proved iteration per branch
	fails                                   map[uint32]int      // backoff rounds per branch
	waitRounds                              map[uint32]int      // rounds left before the next watch
	// Kept after the rest so as not to move those: the first and last byte
	// of the read set's SRAM words the loop does not store (loopRecheck),
	// the history slots the held ranges take together (their n), and the
	// held range's iteration that extBase begins.
	readLo, readHi uint32
	heldSlots      int
	extD           uint64
	// The last counting proof (settleCount): its branch (0: none), and
	// whether its skips skipped anything so far.
	countBranch  uint32
	countSkipped bool
	// liveIn: the registers the watched iteration read before it changed
	// them (whose values at its start it used; a write of the value a
	// register holds is not seen, which only makes loopDeadRegsOnly say
	// no more often); changed: those it changed so far; again: the watch
	// was begun at once after one that failed on other registers only;
	// rewatches counts such watches (tests count them).
	liveIn, changed uint64
	again           bool
	rewatches       uint64
	// readSeen has bit ea/4 mod 64 set for each word of the read set (a
	// word whose bit is clear is not in it: loopNoteRead).
	readSeen uint64
	// Proofs kept to be taken again (loopRevive, lanai/revive.go):
	// keepable says the current proof may be (noteKeepable noted its code
	// and the registers it may write); kept holds the kept proofs (made at
	// the first keepable one), keepStamp counts the keeps, keepDebt is
	// each branch's debt (see keepTrials), revivals counts the proofs
	// taken again (tests count them).
	keepable  bool
	mayWrite  uint64 // the registers an instruction of the iteration may write (Rd, Rs1)
	kept      *keptStore
	keepStamp uint64
	keepDebt  map[uint32]int
	revivals  uint64
}

// loopWord is an SRAM word the watched iteration stored to.
type loopWord struct {
	addr    uint32
	before  uint32 // its value when the iteration began
	varying bool
	counted bool // the counted word: it stored counted values to it
}

// loopStep is one instruction of the watched iteration: where it is, when
// it starts, and what a skip must know of it (its SRAM access, which may
// stall on a booked cycle, and the control transfer it records).
type loopStep struct {
	pc    uint32 // its address
	at    uint32 // its first cycle, counted from the iteration's
	addr  uint32 // the SRAM address it accesses (stepSRAM)
	to    uint32 // the target of the control transfer it takes (stepTransfer)
	kind  uint8  // step* bits
	size  uint8  // the access's bytes
	value uint32 // the value a store wrote (a steady one: the same every iteration)
	// The state after it, for a skip that ends at the next instruction:
	// the end of its register writes in loopWatch.regLog, and the rest.
	regEnd        uint16
	lastLoad      uint8
	steady        bool // no register and not the flags hold a varying value
	flags         isa.Flags
	npc, nnpc, r2 uint32
}

// regWrite is a register the watched iteration wrote, with the value.
type regWrite struct {
	r uint8
	v uint32
}

// heldRange is a run of a stall-free skip's control transfers kept out
// of the history until something reads it (holdRange). The loop's
// transfers are numbered from the head of the iteration that began at
// cycle base (number g is transfer g mod the iteration's transfers of
// iteration g div them); the range holds numbers [g, g+n), which belong
// in the history slots from pos on, and ends at cycle end: a transfer
// recorded later comes at or after it, and takes a slot for good.
type heldRange struct {
	base, g, end uint64
	n, pos       int
}

// heldRing is the most ranges held at once; the oldest is written to the
// history to make room. (One range per history slot: the oldest of a
// full ring has almost never a slot left.)
const heldRing = historySize

// maxHeld is heldRing, except in the test that fills the ring sooner.
var maxHeld = heldRing

// loopStep kinds.
const (
	stepSRAM     = 1 << iota // accesses SRAM (Config.Contention may stall it)
	stepWrite                // the access is a store
	stepVarying              // the store writes a varying value
	stepTransfer             // takes a control transfer (recorded for trap reports)
)

// skippedIter is a skipped iteration's first cycle, and whether it met a
// booked SRAM cycle.
type skippedIter struct {
	start   uint64
	stalled bool
}

// stallSkew is added to every stall a skip computes: zero, except in the
// test that checks that a stall off by one is caught.
var stallSkew uint64

// loopRead is a steady value the watched iteration loaded: an SRAM word or
// a special register (dev), with the value it read.
type loopRead struct {
	addr uint32
	val  uint32
	dev  bool
	// stored: the iteration also stores to the word (loopEnd), so the
	// core's own stores may change it between two checks.
	stored bool
}

const flagsBit = 63

// loopChanged is told of everything that may change what a loop reads
// from outside the core: an event scheduled or run, a write behind the
// core's back. It ends any watch and poll.go's evidence of a fixed point
// (the iteration in flight may have loaded what changed); a proof is
// checked again (loopRecheck) before the core executes its next
// instruction.
func (c *CPU) loopChanged() {
	c.loopGen++
	c.pollTrack.valid = false // poll.go's iteration in flight may have read what changed
	if c.loop.state == loopRecord || c.loop.state == loopToHead {
		c.loop.state = loopOff
	}
}

// loopDirty reports whether something may have changed the proved loop's
// inputs since the proof or its last check.
func (c *CPU) loopDirty() bool {
	w := &c.loop
	return w.gen != c.loopGen || w.specialWrites != c.Mem.Specials.Writes()
}

// loopRecheck checks a proof after a change from outside: it is kept when
// the loop's read set and steady stores hold the values the proof saw
// (see the comment at the top), and forgotten otherwise. It reads SRAM and
// peeks registers only, so it changes nothing the core or a device sees.
func (c *CPU) loopRecheck() bool {
	w := &c.loop
	// A word the loop reads and does not store changes only by a write
	// from outside (invalidate): it is looked at only when one came near.
	written := c.outLo <= w.readHi && w.readLo <= c.outHi
	if !w.proved || w.fragile || !c.readsHold(w.reads[:w.nreads], w.words[:w.nwords], written) {
		w.proved = false
		return false
	}
	w.gen, w.specialWrites = c.loopGen, c.Mem.Specials.Writes()
	c.outLo, c.outHi = ^uint32(0), 0
	return true
}

// readsHold reports whether what a proof's iteration read (reads), and
// the words it stores a steady value to (words), hold the values they
// held then, the device registers steady to the next event. The words it
// reads and does not store are looked at only when all is true.
func (c *CPU) readsHold(reads []loopRead, words []loopWord, all bool) bool {
	for i := range reads {
		r := &reads[i]
		if !r.dev {
			if (all || r.stored) && c.sramWord(r.addr) != r.val {
				return false
			}
			continue
		}
		until := c.Mem.Specials.StableUntil(r.addr - memsys.SpecialBase) // (the memory's first device)
		v, err := c.Mem.Specials.Peek(r.addr - memsys.SpecialBase)
		if until == 0 || until < c.nextEvent() || err != nil || v != r.val {
			return false
		}
	}
	for i := range words {
		if wd := &words[i]; !wd.varying && !wd.counted && c.sramWord(wd.addr) != wd.before {
			return false
		}
	}
	return true
}

// loopCodeWritten ends the proof and forgets the proofs kept to be taken
// again (the current one too): something outside the core wrote SRAM
// that holds code (the loops' instructions may have changed), or a
// breakpoint was set or cleared (the words stay the same: loopRevive's
// compare of them would not see it).
func (c *CPU) loopCodeWritten() {
	w := &c.loop
	w.proved, w.keepable = false, false
	if w.kept != nil {
		w.kept.owner = [keptSlots]uint32{}
	}
}

// stateWritten forgets every fixed point the core has evidence of (a
// watched or proved loop, poll.go's iteration in flight): something
// outside the core wrote a register or pc, so the core may leave the loop
// at once (Polling must not say otherwise).
func (c *CPU) stateWritten() {
	c.loopChanged() // (also poll.go's evidence)
	c.loop.proved = false
}

// sramWord is the big-endian word of SRAM at a (4-aligned, in SRAM).
func (c *CPU) sramWord(a uint32) uint32 {
	b := c.Mem.SRAM[a : a+4]
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// loopNoteRead adds the steady value the instruction about to execute
// loads from the word or register at ea (4-aligned) to the read set.
func (c *CPU) loopNoteRead(ea uint32, inSRAM bool) {
	w := &c.loop
	r := loopRead{addr: ea}
	switch {
	case inSRAM:
		r.val = c.sramWord(ea)
	case ea-memsys.SpecialBase < memsys.SpecialSize:
		v, err := c.Mem.Specials.Peek(ea - memsys.SpecialBase)
		if err != nil {
			w.fragile = true
			return
		}
		r.val, r.dev = v, true
	default:
		w.fragile = true // another device: no side-effect-free look
		return
	}
	if bit := uint64(1) << (ea >> 2 & 63); w.readSeen&bit == 0 {
		w.readSeen |= bit // no word noted yet has these address bits
	} else {
		for i := range w.nreads {
			if w.reads[i].addr == ea {
				return // the first read of a word is the one the iteration depends on
			}
		}
	}
	if w.nreads == maxLoopReads {
		w.fragile = true
		return
	}
	w.reads[w.nreads] = r
	w.nreads++
}

// loopTaken is called by the run loop when the backward branch u at pc is
// taken and poll.go cannot skip it. It says whether to leave the run loop
// after the branch (to watch the loop or reuse its proof).
func (c *CPU) loopTaken(u *uop, pc uint32) bool {
	switch p := c.pollOf(pc >> 2); *p {
	case pollWatch:
	case pollWait: // the run loop counted the takes down to here
		if c.loop.waitRounds[pc] > 0 {
			c.loop.waitRounds[pc]--
			*p = pollWait + loopRetry
			return false
		}
		*p = pollWatch
	default:
		return false
	}
	w := &c.loop
	if c.skipBreak || w.state == loopRecord {
		return false // single steps, or the branch inside the watched iteration
	}
	if w.proved && (w.branch != pc || c.deadline < c.Cycles+2*w.iterCycles) {
		// Another loop's proof, or a run too short for a skip (going to
		// the head and checking the proof would only cost time; c.Cycles
		// is where this run began, so the test errs towards trying).
		return false
	}
	w.state, w.branch, w.head, w.toHead = loopToHead, pc, u.imm, 0
	return true
}

// watchLoop advances a watched loop: it steps to the loop's head, then
// skips with a proof or steps through an iteration to prove it. It returns
// with the watch over or the run's deadline reached.
func (c *CPU) watchLoop(limit uint64) {
	w := &c.loop
	w.watchCalls++
	for w.state == loopToHead {
		if c.stop != nil || c.Cycles >= c.deadline {
			return
		}
		if c.PC != w.head || c.NPC != w.head+4 {
			if w.toHead++; w.toHead > 2 {
				w.state = loopOff
				return
			}
			c.step1()
			continue
		}
		if w.proved && c.sameState() && (!c.loopDirty() || c.loopRecheck()) {
			c.loopSkip(limit)
			w.state = loopSkipped
			return
		}
		if c.loopRevive(limit) {
			return
		}
		if w.lastProved == w.branch && w.deferred != w.branch && c.sameState() {
			// The state of the branch's last proof, which does not hold:
			// what the loop reads changed, so it is likely to leave.
			// Watching the iteration now would mostly follow the code
			// after the loop until the watch gives up; the loop is
			// watched the next time round instead.
			w.deferred, w.state = w.branch, loopOff
			if p := c.pollOf(w.branch / 4); *p == pollWatch {
				*p = pollWait + loopDeferTakes
			}
			return
		}
		c.loopStart()
	}
	for w.state == loopRecord {
		if c.stop != nil || c.Cycles >= c.deadline {
			return
		}
		if w.n > 0 && c.PC == w.head && c.NPC == w.head+4 {
			c.loopEnd(limit)
			return
		}
		if w.n == w.maxN {
			w.n++
			delete(w.length, w.branch) // longer than its last proof: the next watch follows it in full
			c.loopFail()
			return
		}
		st := &w.trace[w.n]
		if w.n++; !c.loopFollow(st) {
			c.loopFail()
			return
		}
		w.watched++
		hp := c.histPos
		c.step1()
		if c.stop != nil {
			w.state = loopOff
			return
		}
		if c.histPos != hp {
			st.kind |= stepTransfer
			st.to = c.hist[(c.histPos+historySize-1)%historySize].to
		}
		if w.devPending && !c.loopDeviceRead() {
			c.loopFail()
			return
		}
		c.loopNoteAfter(st)
	}
}

// loopNoteAfter notes the state the watched instruction st left: the
// registers it wrote, the value it stored, flags, interlock and pc.
func (c *CPU) loopNoteAfter(st *loopStep) {
	w := &c.loop
	if r := w.writes[0] & 31; r != 0 { // what an instruction may write (0: none; writable)
		if v := c.R[r]; v != w.cur[r] {
			w.noteWrite(r, v)
		}
		if r := w.writes[1] & 31; r != 0 {
			if v := c.R[r]; v != w.cur[r] {
				w.noteWrite(r, v)
			}
		}
	}
	if st.kind&stepWrite != 0 {
		a := st.addr &^ (uint32(st.size) - 1)
		switch st.size {
		case 4:
			st.value = binary.BigEndian.Uint32(c.Mem.SRAM[a:])
		case 2:
			st.value = uint32(binary.BigEndian.Uint16(c.Mem.SRAM[a:]))
		default:
			st.value = uint32(c.Mem.SRAM[a])
		}
	}
	st.regEnd, st.lastLoad, st.flags = uint16(w.nregLog), c.lastLoad, c.Flags
	st.npc, st.nnpc, st.r2 = c.NPC, c.NNPC, c.R[2]
	st.steady = w.varying == 0
}

// noteWrite notes that the watched instruction changed register r to v.
func (w *loopWatch) noteWrite(r isa.Reg, v uint32) {
	w.cur[r&31] = v
	w.changed |= 1 << r
	if w.nregLog == len(w.regLog) {
		w.noLanding = true
		return
	}
	w.regLog[w.nregLog] = regWrite{uint8(r), v}
	w.nregLog++
}

// writable is r if an instruction's write of it may change it (not r0,
// r1 or pc), else 0.
func writable(r isa.Reg) isa.Reg {
	if r > isa.PC && r < 32 {
		return r
	}
	return 0
}

// loopDeviceRead follows the device register load the watched iteration
// just executed: the value is steady when the register keeps it to the
// next event, varying when it changes by itself before; a register that
// cannot say ends the watch.
func (c *CPU) loopDeviceRead() bool {
	w := &c.loop
	w.devPending = false
	var until uint64
	if off := w.devAddr - memsys.SpecialBase; off < memsys.SpecialSize {
		until = c.Mem.Specials.StableUntil(off) // (the memory's first device: what Mem.StableUntil finds)
	} else {
		until = c.Mem.StableUntil(w.devAddr)
	}
	if until == 0 {
		return false
	}
	vary := until < c.nextEvent()
	if r := w.devRd; r > isa.R1 {
		if vary {
			w.varying |= 1 << r
		} else {
			w.varying &^= 1 << r
		}
	}
	if !vary {
		c.loopNoteRead(w.devAddr, false)
	}
	return true
}

// step1 executes one instruction with the run loop (events are not run:
// the caller's deadline is at or before the next one).
func (c *CPU) step1() {
	d, one := c.deadline, c.Cycles+1
	c.deadline = one
	c.exec()
	if c.deadline < one { // lowered while it executed (a halt, an event due at once)
		d = min(d, c.deadline)
	}
	// The caller's deadline, or an event the instruction scheduled before
	// it. (It used to stay at one: the watch went back to Run after every
	// instruction.)
	c.deadline = min(d, c.nextEvent())
}

// sameState reports whether the registers, flags and interlock are those
// of the proved iteration's start. R[2] is left out: the core writes the
// instruction's address there before every instruction that reads pc, so
// the value it holds is never read (it is what the last such instruction
// left, and the iterations executed after a skip leave it as executing
// every iteration would).
func (c *CPU) sameState() bool {
	w := &c.loop
	r := [32]uint32(c.R[:32])
	r[isa.PC] = w.regs[isa.PC]
	if w.cmask != 0 { // counted registers: at the counted word plus their offsets
		a := c.sramWord(w.cword)
		for m := w.cmask; m != 0; m &= m - 1 {
			if i := bits.TrailingZeros64(m); r[i] == a+w.coff[i] {
				r[i] = w.regs[i]
			}
		}
	}
	return r == w.regs && c.Flags == w.flags && c.lastLoad == w.lastLoad
}

// loopStart begins watching an iteration at the head.
func (c *CPU) loopStart() {
	c.settleHistory() // before the proof the held transfers come from is written over
	w := &c.loop
	c.settleCount()
	if w.keepable && w.lastProved != 0 {
		c.keepProof(-1)
	}
	w.lastProved, w.keepable = 0, false // the proof's data is written over
	w.state, w.n, w.nwords, w.varying, w.proved = loopRecord, 0, 0, 0, false
	w.nreads, w.readSeen, w.fragile, w.devPending = 0, 0, false, false
	w.cword, w.counting = w.counters[w.branch]
	w.hasCount, w.countMisuse, w.cmask = false, false, 0
	w.counted, w.cwritten, w.readBefore = 0, 0, 0
	w.liveIn, w.changed, w.again = 0, 0, false
	w.maxN = maxLoopBody
	if n := w.length[w.branch]; n > 0 {
		w.maxN = min(4*n+16, maxLoopBody) // the loop has left: no need to follow 512 instructions
	}
	w.regs, w.flags, w.lastLoad = [32]uint32(c.R[:32]), c.Flags, c.lastLoad
	w.cur, w.nregLog, w.noLanding = w.regs, 0, false
	w.cycles, w.instret, w.stores = c.Cycles, c.Instret, c.stores
	w.gen, w.specialWrites = c.loopGen, c.Mem.Specials.Writes()
}

// loopFollow follows the values through the instruction about to execute
// at c.PC, and begins its note st; false means the iteration is not
// provably side-effect free.
func (c *CPU) loopFollow(st *loopStep) bool {
	w := &c.loop
	pc := c.PC
	*st = loopStep{pc: pc, at: uint32(c.Cycles - w.cycles)}
	var u *uop
	if i := pc >> 2; int(i) < len(c.pre) {
		u = &c.pre[i]
	} else if u = c.uopAt(pc, true); u == nil { // between instructions: growing is safe
		return false
	}
	if u.op == opUndecoded {
		var ok bool
		if u, ok = c.slowFetch(u, pc); !ok {
			return false
		}
	}
	flagsVary := w.varying&(1<<flagsBit) != 0
	w.readBefore |= uint64(u.srcs) &^ w.cwritten
	w.liveIn |= uint64(u.srcs) &^ w.changed
	switch u.op { // what needs no look at the instruction's fields
	case opInvalid, opBreak:
		return false
	case opNop, opBT:
		w.writes = [2]isa.Reg{} // no register
		return true
	case opBR, opBRR:
		w.writes = [2]isa.Reg{}
		return !flagsVary
	}
	in := *c.inst(pc) // (a copy: the stores below need not be read back)
	w.writes = [2]isa.Reg{writable(in.Rd), writable(in.Rs1)}
	if w.writes[0] == 0 {
		w.writes = [2]isa.Reg{w.writes[1]}
	}
	srcVary := w.varying&uint64(u.srcs) != 0
	readsFlags := in.Class == isa.SCC || aluReadsCarry(in.ALU) ||
		in.Class == isa.RR && (in.Cond != isa.CondT || in.ALU == isa.Sel)
	set := func(r isa.Reg, vary bool) {
		if r <= isa.R1 {
			return
		}
		if vary {
			w.varying |= 1 << r
		} else {
			w.varying &^= 1 << r
		}
	}
	cnt := w.counted&uint64(u.srcs) != 0
	if in.Class == isa.RR && in.Cond != isa.CondT && in.ALU != isa.Sel {
		w.readBefore |= 1 << in.Rd &^ w.cwritten // a conditional write keeps Rd when false
		if w.counted&(1<<in.Rd) != 0 {
			w.countMisuse = true
			return false
		}
	}
	switch in.Class {
	case isa.RI, isa.RR, isa.Special, isa.SCC, isa.SLI:
		vary := srcVary || readsFlags && flagsVary
		if in.Rd == isa.PC && vary {
			return false // a jump to a varying address
		}
		if cnt && (in.Class != isa.RI || in.F || vary || in.Rd <= isa.R1 || in.Rd == isa.PC ||
			in.ALU != isa.Add && in.ALU != isa.Sub) {
			w.countMisuse = true
			return false // a counted value may only move by an immediate
		}
		if in.Rd > isa.R1 && in.Rd != isa.PC {
			w.setCounted(in.Rd, cnt)
		}
		if in.F {
			if vary {
				w.varying |= 1 << flagsBit
			} else {
				w.varying &^= 1 << flagsBit
			}
		}
		if in.Rd != isa.PC && (in.Class != isa.RR || in.Cond == isa.CondT || in.ALU == isa.Sel || !flagsVary) {
			set(in.Rd, vary)
		} else if in.Rd != isa.PC {
			return false // a conditional write on varying flags
		}
		return true
	case isa.RM, isa.RRM, isa.SPLS, isa.SLS:
	default:
		return false
	}
	// A load or store: its address must be steady.
	addrRegs := uint64(0)
	if in.Class != isa.SLS {
		addrRegs = 1 << in.Rs1
		if in.Class == isa.RRM && in.Mode != isa.ModeBase {
			addrRegs |= 1 << in.Rs2
		}
	}
	if w.varying&addrRegs != 0 || readsFlags && flagsVary {
		return false
	}
	if w.counted&addrRegs != 0 {
		w.countMisuse = true
		return false // an address from a counted value
	}
	st.addr, st.size = c.effAddr(pc), uint8(in.Size)
	ea := st.addr &^ 3
	if w.counting && ea == w.cword && in.Size != isa.Word {
		w.countMisuse = true
		return false // part of the counted word
	}
	if in.Store {
		if !c.Mem.InSRAM(ea, 4) {
			return false // a device store has effects of its own
		}
		vary := w.varying&(1<<in.Rd) != 0
		storesCount := w.counted&(1<<in.Rd) != 0
		if w.counting && (ea == w.cword) != storesCount || storesCount && vary {
			w.countMisuse = true
			return false // the counted word stores counted values only, and they go nowhere else
		}
		st.kind = stepSRAM | stepWrite
		if vary {
			st.kind |= stepVarying
		}
		i := 0
		for i < w.nwords && w.words[i].addr != ea {
			i++
		}
		if i == w.nwords {
			if w.nwords == maxLoopStores {
				return false
			}
			b := c.Mem.SRAM[ea:]
			w.words[i] = loopWord{addr: ea, before: uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])}
			w.nwords++
		}
		w.words[i].varying = w.words[i].varying || vary
		w.words[i].counted = storesCount
		return true
	}
	if w.counting && ea == w.cword {
		if in.Rd <= isa.R1 || in.Rd == isa.PC || !c.Mem.InSRAM(ea, 4) {
			w.countMisuse = true
			return false
		}
		// A count: the register holds the word's value, counted on.
		st.kind = stepSRAM
		w.varying &^= 1 << in.Rd
		w.setCounted(in.Rd, true)
		return true
	}
	if in.Rd > isa.R1 && in.Rd != isa.PC {
		w.setCounted(in.Rd, false)
	}
	vary := false
	inSRAM := c.Mem.InSRAM(ea, 4)
	if inSRAM {
		st.kind = stepSRAM
		for i := range w.nwords {
			if w.words[i].addr == ea && w.words[i].varying {
				vary = true
			}
		}
	} else if in.Rd != isa.PC {
		// A device register: whether it keeps the value it gives is asked
		// after the read (loopDeviceRead), since a change before it (which
		// a register reports as instability until the core reads it again)
		// does not matter to this iteration.
		w.devPending, w.devAddr, w.devRd = true, ea, in.Rd
		return true
	} else {
		until := c.Mem.StableUntil(ea)
		if until == 0 {
			return false // a register that cannot say how long it keeps its value
		}
		vary = until < c.nextEvent()
	}
	if !vary {
		c.loopNoteRead(ea, inSRAM)
	}
	if in.Rd == isa.PC {
		return !vary
	}
	set(in.Rd, vary)
	return true
}

// loopEnd checks the watched iteration at its end and skips if it is a
// fixed point.
func (c *CPU) loopEnd(limit uint64) {
	w := &c.loop
	ok := c.loopCounts() && c.sameState() && w.varying == 0 && w.gen == c.loopGen &&
		w.specialWrites == c.Mem.Specials.Writes() && c.Cycles > w.cycles &&
		c.Instret-w.instret == uint64(w.n) // every instruction noted (skips index the notes by count)
	w.varyingStores = false
	for i := 0; ok && i < w.nwords; i++ {
		wd := &w.words[i]
		if wd.varying {
			w.varyingStores = true
			continue
		}
		if wd.counted {
			continue
		}
		b := c.Mem.SRAM[wd.addr:]
		ok = uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3]) == wd.before
	}
	if ok && c.cfg.ContentionBooked && c.sramFreeFrom(w.cycles) < c.Cycles {
		ok = false // the iteration met SRAM cycles booked by another master: it may have stalled
	}
	if !ok {
		if !w.again && c.loopDeadRegsOnly() {
			// The iteration began with registers another path left (the
			// pass after one that did work) and set them before it read
			// them: the next one, which begins with the values this one
			// left, is watched at once instead of backing off.
			c.loopStart()
			w.again = true
			w.rewatches++
			return
		}
		c.noteCounter()
		c.loopFail()
		return
	}
	w.proved = true
	w.proofs++
	// The read set's words the loop does not store, and where they lie
	// (loopRecheck looks at them after a write from outside near them).
	w.readLo, w.readHi = ^uint32(0), 0
	for i := range w.nreads {
		r := &w.reads[i]
		if r.dev {
			continue
		}
		r.stored = false
		for x := range w.nwords {
			r.stored = r.stored || w.words[x].addr == r.addr
		}
		if !r.stored {
			w.readLo, w.readHi = min(w.readLo, r.addr), max(w.readHi, r.addr+3)
		}
	}
	c.outLo, c.outHi = ^uint32(0), 0 // the proof read them now
	for i := range w.n {
		// The loop's chunks are the core's own (CPU.own): a core sharing
		// its code may run code another core decoded without fetching
		// it, and a write into the loop's code must end the proof
		// (invalidate), as it does alone.
		chunk := w.trace[i].pc / codeChunk
		if bit := uint64(1) << (chunk % 64); c.own[chunk/64]&bit == 0 {
			c.own[chunk/64] |= bit // (a test first: no store for every instruction)
		}
	}
	w.lastProved, w.deferred = w.branch, 0
	c.noteKeepable()
	if w.length == nil {
		w.length = map[uint32]int{}
	}
	w.length[w.branch] = w.n
	w.iterCycles, w.iterInstret, w.iterStores = c.Cycles-w.cycles, c.Instret-w.instret, c.stores-w.stores
	w.endR2, w.endStore, w.endStoreSize = c.R[2], c.storeAddr, c.storeSize
	w.ntransfers, w.nstoreSteps, w.naccessSteps, w.lastVarying = 0, 0, 0, -1
	for i := range w.n {
		k := w.trace[i].kind
		if k&stepTransfer != 0 {
			w.transfers[w.ntransfers] = uint16(i)
			w.ntransfers++
		}
		if k&stepWrite != 0 {
			w.storeSteps[w.nstoreSteps] = uint16(i)
			w.nstoreSteps++
		}
		if k&stepVarying != 0 {
			w.lastVarying = i
		}
		if k&stepSRAM != 0 {
			w.accessSteps[w.naccessSteps] = uint16(i)
			w.naccessSteps++
		}
		w.lastSteady[i] = uint16(i)
		if i > 0 && !w.trace[i-1].steady {
			w.lastSteady[i] = w.lastSteady[i-1]
		}
		w.transBefore[i+1] = uint16(w.ntransfers)
		w.cycleAt[i] = w.trace[i].at
		w.storesBefore[i+1] = uint16(w.nstoreSteps)
		w.accessBefore[i+1] = uint16(w.naccessSteps)
	}
	if w.fails != nil && !w.hasCount {
		w.fails[w.branch] /= 2 // a loop that is idle only now and then is watched less often
	}
	if w.hasCount {
		w.countBranch, w.countSkipped = w.branch, false
	}
	c.loopSkip(limit)
	w.state = loopSkipped
}

// loopDeadRegsOnly reports whether the watched iteration failed only
// because registers end with other values than they began with, none of
// which it read before it changed it: everything else loopEnd asks for
// holds, so the next iteration, which begins with the values this one
// left, does what this one did and is likely a fixed point. Only when a
// loop is watched depends on it (the next iteration is watched as any).
func (c *CPU) loopDeadRegsOnly() bool {
	w := &c.loop
	if !c.loopCounts() || w.hasCount || w.varying != 0 || w.gen != c.loopGen || w.specialWrites != c.Mem.Specials.Writes() ||
		c.Instret-w.instret != uint64(w.n) || c.Flags != w.flags || c.lastLoad != w.lastLoad {
		return false
	}
	for i := 3; i < 32; i++ {
		if c.R[i] != w.regs[i] && w.liveIn&(1<<i) != 0 {
			return false
		}
	}
	for i := range w.nwords {
		if wd := &w.words[i]; !wd.varying && c.sramWord(wd.addr) != wd.before {
			return false
		}
	}
	return !c.cfg.ContentionBooked || c.sramFreeFrom(w.cycles) >= c.Cycles
}

// settleCount accounts the last counting proof when the next watch writes
// over it (loopStart: its skips are over). A loop that counts is often a
// busy loop's pass that found nothing to do this time: a proof that
// skipped something in its life forgets the branch's failures; one that
// skipped nothing cost a watch for no gain and counts as a failure, so
// that the branch is watched less often. Only when a branch is watched
// depends on it. (Halving the failures at every skip instead, s26-prove,
// kept the 8-node ring's short passes watched.)
func (c *CPU) settleCount() {
	w := &c.loop
	if w.countBranch == 0 {
		return
	}
	if w.fails == nil {
		w.fails, w.waitRounds = map[uint32]int{}, map[uint32]int{}
	}
	if w.countSkipped {
		w.fails[w.countBranch] = 0
	} else {
		w.fails[w.countBranch]++
	}
	w.countBranch = 0
}

// loopSkip skips whole iterations of the proved loop from its head (see
// loopRun).
func (c *CPU) loopSkip(limit uint64) { c.loopRun(0, limit) }

// loopResume skips the rest of the proved iteration the core is in the
// middle of (after an event the proof survived, or at the start of a
// run), then whole iterations (see loopRun). The core is at instruction j
// of the iteration, j the instructions it executed since it was last at
// the head with the proof held, modulo the iteration's length: while the
// proof holds, it repeats the watched iteration instruction by
// instruction. It reports whether the
// core reached the run's deadline (nothing to execute before it).
func (c *CPU) loopResume(limit uint64) bool {
	w := &c.loop
	if !w.proved || c.loopDirty() {
		return false
	}
	j := c.Instret - w.headInstret
	if j >= w.iterInstret {
		j %= w.iterInstret
	}
	if w.trace[j].pc != c.PC || j > 0 && (!w.trace[j-1].steady || w.hasCount) {
		// Elsewhere, or where a register holds a varying value: the
		// replay writes only what differs from the watched iteration's
		// values, so it would leave this one's varying value where the
		// watched iteration overwrote its own with the same steady one.
		return false
	}
	c.loopRun(int(j), limit)
	return c.Cycles >= c.deadline
}

// loopRun moves the core over the proved loop from instruction j of an
// iteration (0: its head) without executing it, with exactly the counts,
// registers, SRAM and transfers executing it gives. Stepping runs an event
// (or ends a run) at the first instruction boundary at or after its
// cycle, so the core skips the instructions that start before the next
// event and the run's limit, and lands at the first that does not: in
// the middle of an iteration, in the state the watched iteration had
// there (its register writes, stores, flags, interlock and pc, noted
// instruction by instruction). When the loop stores varying values, or a
// register holds one there, it lands at the last head before instead
// (and one iteration earlier when it skipped whole ones, so that the
// executed iteration leaves the varying words as executing every one
// would); the rest of an iteration is skipped only if it stores none.
//
// A core access to SRAM in a cycle another master booked (Config.NextBooked)
// stalls (Config.Contention): an iteration that may meet one is followed
// instruction by instruction from the watched iteration's cycles, each
// SRAM access stalled as Contention says for the cycle it comes in; the
// others are skipped in one step. (Bookings are made only in events and
// device stores, so none appears before the next event.)
func (c *CPU) loopRun(j int, limit uint64) {
	w := &c.loop
	w.headInstret = c.Instret - uint64(j)
	if c.cfg.Contention != nil && !c.cfg.ContentionBooked {
		return // any access may stall, at any cycle
	}
	stop := min(limit, c.nextEvent())
	free := c.sramFreeFrom(c.Cycles)
	if c.loopRunFree(j, stop, free) {
		return
	}
	w.extOK = false // the transfers below are recorded: a held range ends here
	n := int(w.iterInstret)
	t0, t := c.Cycles, c.Cycles
	if j > 0 {
		if j <= w.lastVarying {
			return // the rest of the iteration stores a varying value: the core executes it
		}
		tb := w.newTransferBuf()
		k, at := c.loopWalk(j, t, stop, free, tb)
		switch {
		case k == j:
			return
		case k < n:
			if c.loopCanLand(k) {
				c.commitTransfers(tb)
				c.loopLand(j, k, at)
			}
			return
		}
		c.commitTransfers(tb)
		c.loopLand(j, n, at)
		t0, t = at, at
	}
	// Whole iterations. The last few skipped are noted (their first
	// cycles, and whether they met a booked cycle) to record their
	// transfers: every iteration takes at least one (its branch), so the
	// last historySize iterations fill the history (the last
	// historySize/transfers ones do).
	last := uint64(w.trace[n-1].at) // the last instruction's first cycle
	iter := w.iterCycles
	var k uint64
	starts := &w.skipped
	note := func(start uint64, stalled bool) {
		starts[k%(historySize+1)] = skippedIter{start, stalled}
		k++
	}
	for t+last < stop {
		if free = c.sramFreeFrom(t); t+iter <= free {
			m := min((stop-1-last-t)/iter+1, (free-t)/iter)
			k += m - min(m, historySize)
			for i := m - min(m, historySize); i < m; i++ {
				note(t+i*iter, false)
			}
			t += m * iter
			continue
		}
		i, end := c.loopWalk(0, t, stop, free, nil)
		stalled := end-t != iter
		if i < n {
			break // stalled past stop
		}
		if stalled {
			w.stalled++
		}
		note(t, stalled)
		t = end
	}
	if w.varyingStores && k > 0 {
		k--
		t = starts[k%(historySize+1)].start
	}
	x := max(w.ntransfers, 1)
	first := k - min(k, uint64((historySize+x-1)/x))
	if c.holdTransfers(starts, first, k) {
		first = k
	}
	for i := first; i < k; i++ {
		st := starts[i%(historySize+1)]
		if st.stalled {
			tb := w.newTransferBuf()
			c.loopSteps(0, st.start, ^uint64(0), c.sramFreeFrom(st.start), tb)
			c.commitTransfers(tb)
			continue
		}
		for _, x := range w.transfers[w.ntransfers-min(w.ntransfers, historySize) : w.ntransfers] {
			s := &w.trace[x]
			c.record(s.pc, s.to, st.start+uint64(s.at))
		}
	}
	if k > 0 {
		c.Instret += k * w.iterInstret
		c.stores += k * w.iterStores
		c.SkippedInstret += k * w.iterInstret
		if w.iterStores > 0 {
			c.storeAddr, c.storeSize = w.endStore, w.endStoreSize
		}
	}
	c.Cycles = t
	c.SkippedCycles += t - t0
	w.headInstret = c.Instret
	if w.hasCount {
		w.countSkipped = w.countSkipped || k > 0
		c.loopCount(k)
		return // no landing: the counted registers are known at heads only
	}
	// The iteration the core is at the head of, up to stop.
	if t < stop && !w.varyingStores && !w.noLanding {
		tb := w.newTransferBuf()
		if k, at := c.loopWalk(0, t, stop, c.sramFreeFrom(t), tb); k > 0 && k < n && c.loopCanLand(k) {
			c.commitTransfers(tb)
			c.loopLand(0, k, at)
		}
	}
}

// loopRunFree is loopRun when no SRAM cycle is booked before stop (free:
// the first booked from now, sramFreeFrom) and
// the skip may end anywhere (the loop stores no varying value): the
// instruction to land at is found from the watched iteration's cycles,
// m iterations on, and the state there made from what it noted. It
// reports false (and does nothing) when it does not apply.
func (c *CPU) loopRunFree(j int, stop, free uint64) bool {
	w := &c.loop
	t := c.Cycles
	if w.noLanding || w.varyingStores || w.hasCount || free < stop {
		return false
	}
	n := int(w.iterInstret)
	iter := w.iterCycles
	base := t - uint64(w.trace[j].at) // where iteration 0 (the core's) began
	m, r := uint64(0), stop-base      // the iteration holding stop, and stop's cycle in it
	if r >= iter {
		m, r = r/iter, r%iter
	}
	k := 0 // its first instruction starting at or after stop
	for lo, hi := 0, n; ; {
		if lo >= hi {
			k = lo
			break
		}
		if mid := int(uint(lo+hi) >> 1); uint64(w.cycleAt[mid]) >= r {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	// Land there, or at the last point before where no register holds a
	// varying value (the core executes from there): before instruction k
	// of iteration m (k = n: the next head).
	if k < n {
		if k = int(w.lastSteady[k]); k == 0 { // a head: the end of the iteration before
			if m == 0 {
				return false
			}
			m, k = m-1, n
		}
	}
	if m == 0 && k <= j {
		return false
	}
	// Registers and stores: iteration 0's from j on, then (m > 0) the
	// head's state and iteration m's up to k.
	at := base + m*iter
	if k < n {
		at += uint64(w.trace[k].at)
	} else {
		at += iter
	}
	var stores uint64
	if m == 0 {
		stores = c.loopReplay(j, k, true)
	} else {
		// The registers end as the head's (copied below).
		stores = c.loopReplay(j, n, false) + (m-1)*w.iterStores
		if m > 1 && w.iterStores > 0 { // the whole iterations' last store
			c.storeAddr, c.storeSize = w.endStore, w.endStoreSize
		}
		copy(c.R[:32], w.regs[:])
		stores += c.loopReplay(0, k, true)
	}
	c.holdRange(base, j, m, k, at)
	c.loopArrive(k, at, m*w.iterInstret+uint64(k-j), stores)
	return true
}

// loopArrive puts the core before instruction k of the proved iteration
// (n: the next head) at cycle at, with the flags, interlock, R[2] and pc
// the instruction before left, ins instructions and stores stores on
// (skipped).
func (c *CPU) loopArrive(k int, at, ins, stores uint64) {
	w := &c.loop
	s := &w.trace[k-1]
	c.R[2], c.Flags, c.lastLoad = s.r2, s.flags, s.lastLoad
	c.NPC, c.NNPC = s.npc, s.nnpc
	c.PC = w.head
	c.SkippedCycles += at - c.Cycles
	c.SkippedInstret += ins
	c.Cycles = at
	c.Instret += ins
	c.stores += stores
	w.headInstret = c.Instret // where the iteration the core is in began (loopResume)
	if k < int(w.iterInstret) {
		c.PC = w.trace[k].pc
		w.landed++
		w.headInstret -= uint64(k)
	}
}

// loopReplay makes the stores of instructions [j, k) of the proved
// iteration, and with regs their register writes (j from the state of
// instruction j), and returns the stores it made; the last is left as the
// core's last store.
func (c *CPU) loopReplay(j, k int, regs bool) uint64 {
	w := &c.loop
	if regs {
		from := 0
		if j > 0 {
			from = int(w.trace[j-1].regEnd)
		}
		for _, rw := range w.regLog[from:w.trace[k-1].regEnd] {
			c.R[rw.r] = rw.v
		}
	}
	lo, hi := w.storesBefore[j], w.storesBefore[k]
	for _, i := range w.storeSteps[lo:hi] {
		s := &w.trace[i]
		a := s.addr &^ (uint32(s.size) - 1)
		switch s.size {
		case 4:
			binary.BigEndian.PutUint32(c.Mem.SRAM[a:], s.value)
		case 2:
			binary.BigEndian.PutUint16(c.Mem.SRAM[a:], uint16(s.value))
		default:
			c.Mem.SRAM[a] = byte(s.value)
		}
		c.forget(a)
		c.storeAddr, c.storeSize = a, s.size
	}
	return uint64(hi - lo)
}

// holdRange holds the control transfers of a stall-free skip from
// instruction j of the iteration that began at cycle base to instruction
// k of the m-th after it, a skip that ends at cycle end: the history slots
// the last historySize of them take are kept for them, and fillRange
// writes them only when something reads the history (settleHistory) or
// the ring of ranges is full. A skip that goes on from where the last one
// ended, with nothing recorded between, extends its range. A transfer
// recorded later takes a slot for good.
func (c *CPU) holdRange(base uint64, j int, m uint64, k int, end uint64) {
	w := &c.loop
	nt := uint64(w.ntransfers)
	if w.extOK && w.nheld > 0 && w.extBase == base && w.extJ == j {
		r := &w.held[(w.heldFirst+w.nheld-1)%heldRing]
		d := w.extD // this skip's iteration 0 in the range's numbering
		last := (d+m)*nt + uint64(w.transBefore[k])
		r.end = end
		c.reserve(r, w.extG, last)
		c.noteRangeEnd(base, d, m, k, last)
		return
	}
	first, last := uint64(w.transBefore[j]), m*nt+uint64(w.transBefore[k])
	if first == last {
		w.extOK = false
		return
	}
	c.reserve(c.pushRange(base, end), first, last)
	c.noteRangeEnd(base, 0, m, k, last)
}

// noteRangeEnd notes where the skip that made or extended the newest
// range ended (instruction k of the m-th iteration from base, which is
// iteration d of the range's numbering; last: the number after its last
// transfer in that numbering), for the next skip to go on from.
func (c *CPU) noteRangeEnd(base, d, m uint64, k int, last uint64) {
	w := &c.loop
	w.extOK, w.extBase, w.extJ, w.extG, w.extD = true, base+m*w.iterCycles, k, last, d+m
	if k == int(w.iterInstret) {
		w.extBase, w.extJ, w.extD = w.extBase+w.iterCycles, 0, w.extD+1
	}
}

// pushRange adds an empty range numbered from the iteration beginning at
// base and ending at cycle end to the held ones (the oldest is written out
// when there is no room) and returns it.
func (c *CPU) pushRange(base, end uint64) *heldRange {
	w := &c.loop
	if w.nheld == maxHeld {
		c.dropOldest()
	}
	r := &w.held[(w.heldFirst+w.nheld)%heldRing]
	w.nheld++
	*r = heldRange{base: base, end: end}
	return r
}

// reserve makes the newest range r, whose transfers end before number
// from (r.n of them), end before number to: it takes the next history
// slots for them, keeping the last historySize. A range that takes every
// slot leaves none to the older ones, which are dropped.
func (c *CPU) reserve(r *heldRange, from, to uint64) {
	w := &c.loop
	add := to - from
	c.histPos = int((uint64(c.histPos) + add%historySize) % historySize)
	n0 := r.n
	r.n = int(min(uint64(r.n)+add, historySize))
	w.heldSlots += r.n - n0
	r.g = to - uint64(r.n)
	r.pos = (c.histPos - r.n + historySize) % historySize
	if r.n == historySize && w.nheld > 1 {
		w.held[0] = *r
		w.heldFirst, w.nheld, w.heldSlots = 0, 1, r.n
	}
}

// dropOldest writes the oldest held range out and forgets it. Its
// transfers are not written when the newer ranges hold historySize slots
// or more: those take every slot it has (each range's slots follow the
// older ranges'), and their own writes, which come later, would overwrite
// it.
func (c *CPU) dropOldest() {
	w := &c.loop
	r := &w.held[w.heldFirst]
	if w.heldSlots-r.n < historySize {
		c.fillRange(r)
	}
	w.heldSlots -= r.n
	w.heldFirst, w.nheld = (w.heldFirst+1)%heldRing, w.nheld-1
}

// holdTransfers holds the transfers of the skipped iterations
// [first, k) of starts instead of recording them, when they met no booked
// cycle and follow one another (see holdRange). It reports whether it
// held them.
func (c *CPU) holdTransfers(starts *[historySize + 1]skippedIter, first, k uint64) bool {
	w := &c.loop
	if first == k || w.ntransfers == 0 {
		return false
	}
	base := starts[first%(historySize+1)].start
	for i := first; i < k; i++ {
		if st := starts[i%(historySize+1)]; st.stalled || st.start != base+(i-first)*w.iterCycles {
			return false
		}
	}
	c.reserve(c.pushRange(base, base+(k-first)*w.iterCycles), 0, (k-first)*uint64(w.ntransfers))
	w.extOK = false
	return true
}

// fillRange writes the held range r's transfers into its slots that no
// later transfer has taken. Later transfers take the slots in order, from
// the one after r's last, and come at or after r.end; r's transfers and
// whatever a slot held before (an older range's, written out first) come
// earlier.
func (c *CPU) fillRange(r *heldRange) {
	w := &c.loop
	if r.n == 0 || c.hist[(r.pos+r.n-1)%historySize].cycle >= r.end {
		return // r's last slot is the last a later transfer takes: all are taken
	}
	nt := uint64(w.ntransfers)
	it, x := r.g/nt, int(r.g%nt)
	for i := 0; i < r.n; i++ {
		if h := &c.hist[(r.pos+i)%historySize]; h.cycle < r.end {
			s := &w.trace[w.transfers[x]]
			*h = transfer{s.pc, s.to, r.base + it*w.iterCycles + uint64(s.at)}
		}
		if x++; x == w.ntransfers {
			it, x = it+1, 0
		}
	}
}

// settleHistory writes every held transfer to the history.
func (c *CPU) settleHistory() {
	w := &c.loop
	for w.nheld > 0 {
		c.dropOldest()
	}
	w.extOK = false
}

// loopCanLand reports whether a skip may end before instruction k of the
// iteration (k > 0): the loop stores no varying value and no register
// holds one there.
func (c *CPU) loopCanLand(k int) bool {
	w := &c.loop
	return !w.varyingStores && !w.noLanding && !w.hasCount && w.trace[k-1].steady
}

// loopLand moves the core from instruction j of the proved iteration,
// whose state it is in, to instruction k (n: the next head), at cycle at:
// it makes the register writes and stores of the instructions between,
// takes the flags, interlock and pc they left, and counts them skipped.
func (c *CPU) loopLand(j, k int, at uint64) {
	w := &c.loop
	end := uint64(w.iterCycles)
	if k < int(w.iterInstret) {
		end = uint64(w.trace[k].at)
	}
	if at-c.Cycles != end-uint64(w.trace[j].at) {
		w.stalled++
	}
	stores := c.loopReplay(j, k, true)
	c.loopArrive(k, at, uint64(k-j), stores)
}

// loopWalk finds where a skip from instruction j of the proved
// iteration, which starts at cycle t, must end: the first instruction that
// starts at or after stop (the iteration's length if none does) and the
// cycle it starts at (the next head's). With no booked cycle before stop
// it looks the instruction up in the watched iteration's cycles;
// otherwise it follows the iteration (loopSteps). The transfers on the
// way go to tb (when not nil), for commitTransfers if the skip is made.
// free is sramFreeFrom(t).
func (c *CPU) loopWalk(j int, t, stop, free uint64, tb *transferBuf) (int, uint64) {
	w := &c.loop
	if free < stop {
		return c.loopSteps(j, t, stop, free, tb)
	}
	base := t - uint64(w.trace[j].at)
	lo, hi := j, int(w.iterInstret) // the answer is in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if base+uint64(w.cycleAt[m]) >= stop {
			hi = m
		} else {
			lo = m + 1
		}
	}
	k, at := lo, base+w.iterCycles
	if k < int(w.iterInstret) {
		at = base + uint64(w.trace[k].at)
	}
	if tb != nil {
		lo, hi := int(w.transBefore[j]), int(w.transBefore[k])
		for _, x := range w.transfers[max(lo, hi-historySize):hi] {
			s := &w.trace[x]
			tb.add(s.pc, s.to, base+uint64(s.at))
		}
	}
	return k, at
}

// transferBuf holds the last historySize control transfers of a skip
// being worked out, to be recorded if it is made.
type transferBuf struct {
	t [historySize]transfer
	n int
}

// newTransferBuf is the watch's transfer buffer, emptied (kept in the
// watch: a skip's buffers are used one after the other, and one on the
// stack would be cleared at every use).
func (w *loopWatch) newTransferBuf() *transferBuf {
	w.tbuf.n = 0
	return &w.tbuf
}

func (tb *transferBuf) add(from, to uint32, cycle uint64) {
	tb.t[tb.n%historySize] = transfer{from, to, cycle}
	tb.n++
}

// commitTransfers records the transfers of tb, oldest first (after those
// of earlier skips, held or recorded).
func (c *CPU) commitTransfers(tb *transferBuf) {
	c.loop.extOK = false
	for i := tb.n - min(tb.n, historySize); i < tb.n; i++ {
		t := &tb.t[i%historySize]
		c.record(t.from, t.to, t.cycle)
	}
}

// loopSteps follows the proved iteration from its instruction j, which
// starts at cycle t: it returns the first instruction that starts at or
// after stop (the iteration's length if none does) and the cycle it
// starts at (the next head's). Each SRAM access in a cycle another master
// may use stalls as Config.Contention says; the control transfers on the
// way go to tb (when not nil) with the cycles executing gives. It goes from one access
// that may stall to the next, finding each (and stop) in the watched
// iteration's cycles: the instructions between take the cycles they took
// there, shifted by the stalls so far.
func (c *CPU) loopSteps(j int, t, stop, free uint64, tb *transferBuf) (int, uint64) {
	w := &c.loop
	n := int(w.iterInstret)
	base := t - uint64(w.trace[j].at) // plus stall: where the iteration would have begun
	var stall uint64
	acc := w.accessSteps[:w.naccessSteps]
	a := int(w.accessBefore[j]) // the next access
	for k := j; ; {
		// The first access from a on that starts at or after free (the
		// ones before cannot stall), and the first instruction from k on
		// that starts at or after stop.
		for lo, hi := a, len(acc); ; {
			if lo >= hi {
				a = lo
				break
			}
			if m := int(uint(lo+hi) >> 1); base+stall+uint64(w.cycleAt[acc[m]]) >= free {
				hi = m
			} else {
				lo = m + 1
			}
		}
		next := n
		if a < len(acc) {
			next = int(acc[a])
		}
		e := k
		for lo, hi := k, next; ; {
			if lo >= hi {
				e = lo
				break
			}
			if m := int(uint(lo+hi) >> 1); base+stall+uint64(w.cycleAt[m]) >= stop {
				hi = m
			} else {
				lo = m + 1
			}
		}
		if tb != nil {
			lo, hi := int(w.transBefore[k]), int(w.transBefore[e])
			for _, x := range w.transfers[max(lo, hi-historySize):hi] {
				s := &w.trace[x]
				tb.add(s.pc, s.to, base+stall+uint64(s.at))
			}
		}
		if e < next || next == n {
			if e == n {
				return n, base + stall + w.iterCycles
			}
			return e, base + stall + uint64(w.trace[e].at)
		}
		s := &w.trace[next] // an access that may stall
		at := base + stall + uint64(s.at)
		if at >= stop {
			return next, at
		}
		own := c.cfg.Contention(at, s.addr, s.kind&stepWrite != 0)
		if own > 0 {
			own += stallSkew
		}
		if tb != nil && s.kind&stepTransfer != 0 {
			tb.add(s.pc, s.to, at+own) // a load into pc records after its access
		}
		stall += own
		free = c.sramFreeFrom(at + own + 1)
		k, a = next+1, a+1
	}
}

// loopFail ends a watch that proved nothing: the branch is watched again
// after loopRetry takes times a number of rounds that doubles with every
// failure in a row.
func (c *CPU) loopFail() {
	w := &c.loop
	w.state, w.proved = loopOff, false
	if w.fails == nil {
		w.fails, w.waitRounds = map[uint32]int{}, map[uint32]int{}
	}
	if w.countMisuse {
		delete(w.counters, w.branch) // the word is no count
	}
	f := w.fails[w.branch]
	w.fails[w.branch] = f + 1
	takes := min(loopFirstRetry<<min(f, 16), loopRetry*maxLoopRounds)
	rounds := (takes - 1) / loopRetry
	w.waitRounds[w.branch] = rounds
	if int(w.branch)/4 < len(c.pre) {
		if p := c.pollOf(w.branch / 4); *p == pollWatch {
			*p = pollWait + uint8(takes-rounds*loopRetry)
		}
	}
}

// Polling reports whether the core is in a loop proved side-effect free
// (nothing it can do changes anything before its next event), so that a
// runner may count it as idle. After a change from outside it checks the
// proof again (loopRecheck).
func (c *CPU) Polling() bool {
	w := &c.loop
	return w.proved && (!c.loopDirty() || c.loopRecheck())
}

// SRAMFree is the first cycle from now in which another master (the DMA
// engine) may use SRAM (Config.NextBooked): an access before it is never
// stalled. ^0 when none is booked.
func (c *CPU) SRAMFree() uint64 { return c.sramFreeFrom(c.Cycles) }

// sramFreeFrom is the first cycle at or after at in which another master
// may use SRAM (Config.ContentionBooked, Config.NextBooked), ^0 when none
// is booked: a core access before it is never stalled.
func (c *CPU) sramFreeFrom(at uint64) uint64 {
	switch {
	case c.cfg.Contention == nil:
		return ^uint64(0)
	case !c.cfg.ContentionBooked:
		return at // unknown: any cycle may stall
	case c.sramBooked <= at:
		return ^uint64(0)
	case c.cfg.NextBooked == nil:
		return at
	}
	return c.cfg.NextBooked(at)
}

// setCounted notes whether register r (not r0, r1 or pc) now holds a
// counted value (see the comment at the top).
func (w *loopWatch) setCounted(r isa.Reg, counted bool) {
	if counted {
		w.counted |= 1 << r
		w.cwritten |= 1 << r
	} else {
		w.counted &^= 1 << r
	}
}

// loopCounts checks the watched iteration's counts at its end and notes
// them for the proof: every register holding a counted value was given
// it before the iteration read the register (so its value at the start
// decides nothing), and the counted word moved by the delta skips add.
// It reports false when the counts would make the iteration differ.
func (c *CPU) loopCounts() bool {
	w := &c.loop
	w.hasCount, w.cmask, w.cdelta = false, 0, 0
	if !w.counting || w.cwritten == 0 {
		return true
	}
	if w.counted&w.readBefore != 0 {
		return false
	}
	if w.executes(w.cword) {
		w.countMisuse = true
		return false // the count would change what the iteration does
	}
	a := c.sramWord(w.cword)
	before := a // not stored: the word kept its value
	for i := range w.nwords {
		if wd := &w.words[i]; wd.counted {
			before = wd.before
		}
	}
	w.hasCount, w.cmask, w.cdelta = true, w.counted, a-before
	for m := w.cmask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		w.coff[i] = c.R[i] - a
	}
	return true
}

// loopCount makes k skipped iterations' counts: the counted word moves by
// k deltas from what it holds now (a write from outside is counted on
// from, as executing would), and each counted register takes its offset
// from the word.
func (c *CPU) loopCount(k uint64) {
	w := &c.loop
	if k == 0 {
		return
	}
	a := c.sramWord(w.cword) + uint32(k)*w.cdelta
	binary.BigEndian.PutUint32(c.Mem.SRAM[w.cword:], a)
	c.forget(w.cword)
	for m := w.cmask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		c.R[i] = a + w.coff[i]
	}
}

// noteCounter names the counted word of a watch that failed (see the
// comment at the top): the one steady word that does not hold its value
// at the end, when no register holds a varying value.
func (c *CPU) noteCounter() {
	w := &c.loop
	if w.counting || w.varying != 0 || w.n == 0 {
		return
	}
	found, addr := 0, uint32(0)
	for i := range w.nwords {
		if wd := &w.words[i]; !wd.varying && c.sramWord(wd.addr) != wd.before {
			found, addr = found+1, wd.addr
		}
	}
	if found == 1 && w.executes(addr) {
		return // code the iteration runs: no count
	}
	if found != 1 {
		return
	}
	if w.counters == nil {
		w.counters = map[uint32]uint32{}
	}
	w.counters[w.branch] = addr
}

// executes reports whether the watched iteration executed the word at a
// (a loop that counts in its own code changes what it does: the count is
// no count).
func (w *loopWatch) executes(a uint32) bool {
	for i := range w.n {
		if w.trace[i].pc == a {
			return true
		}
	}
	return false
}
