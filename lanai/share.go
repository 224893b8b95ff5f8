package lanai

import (
	"slices"

	"lanaiemu/isa"
)

// SharedCode lets cores that run the same code share their predecoded
// words (the uops, the decoded instructions and the ops before breakpoints
// and contention), so that a cluster of boards loaded with one firmware
// keeps one copy of its predecode in the host's caches instead of one per
// board. The zero value is an empty set; cores join with CPU.ShareCode.
//
// Every decoded shared word is right for every member: a member's SRAM
// holds, at every decoded word, the word it was predecoded from. It is kept
// so:
//   - a core joins only if its SRAM holds every decoded word (ShareCode);
//   - a member's write into a chunk that any member decoded forgets the
//     written words for all (CPU.code is the members' union);
//   - a member fetching a forgotten or never decoded word compares it with
//     the word the other members hold there first: those whose word
//     differs leave, with private copies, before it is decoded (agree);
//   - a member setting a breakpoint leaves (the breakpoint changes its uop).
//
// What each core decides from its own run stays its own: the polling and
// loop-watch state of its branches (CPU.poll), the chunks it decoded
// itself or proved a loop in (CPU.own), the length of its view of the
// arrays (it grows as the core alone would grow it). A shared core
// therefore runs with the same counts, traces and state as an unshared
// one, but for one thing: a write into code it ran but another member
// decoded, outside a loop it proved, keeps the proof, which alone it
// would end (the loop's code is unchanged: the proof holds, and only
// Polling and SkippedCycles may differ, never Cycles and Instret).
//
// A SharedCode is not safe for concurrent use: its members must run on one
// goroutine at a time (node.World shares code within each goroutine's
// boards).
type SharedCode struct {
	pre     []uop
	ins     []isa.Inst
	decoded []op
	code    []uint64
	members []*CPU
	key     shareKey
}

// shareKey is what besides a word and its address predecoding depends on:
// cores share code only if theirs are equal.
type shareKey struct {
	sramSize int
	rrr      bool // Config.RRR
	memSlow  bool // loads and stores take the general path (contention, slowFetch)
}

// key is c's shareKey.
func (c *CPU) shareKey() shareKey {
	return shareKey{sramSize: len(c.Mem.SRAM), rrr: c.cfg.RRR, memSlow: c.cfg.Contention != nil && !c.cfg.ContentionBooked}
}

// Members is the number of cores sharing the code.
func (s *SharedCode) Members() int { return len(s.members) }

// ShareCode makes c share its predecoded code with the other cores of s,
// and reports whether it does. It does not (and keeps its own) if it has
// a breakpoint, if its configuration or SRAM size predecodes differently
// from theirs, or if its SRAM differs from theirs at a word they decoded.
// A core in another SharedCode leaves that one first; a nil s only makes
// it leave. Call it between runs, on the goroutine that runs s's members.
func (c *CPU) ShareCode(s *SharedCode) bool {
	if s == nil {
		c.LeaveSharedCode()
		return false
	}
	if c.share == s {
		return true
	}
	c.LeaveSharedCode()
	if len(c.breakpoints) > 0 {
		return false
	}
	if len(s.members) == 0 {
		// The first member's arrays become the shared ones.
		c.takePoll()
		for i := range c.pre {
			c.pre[i].poll = pollUnknown
		}
		s.pre, s.ins, s.decoded = c.pre, c.ins, c.decoded
		s.code, s.key = slices.Clone(c.code), c.shareKey()
		s.members = append(s.members[:0], c)
		c.code, c.share = s.code, s
		return true
	}
	if c.shareKey() != s.key {
		return false
	}
	for i := range s.pre {
		if s.pre[i].op != opUndecoded && c.sramWord(uint32(i)*4) != s.ins[i].Word {
			return false
		}
	}
	c.takePoll()
	s.cover(len(c.pre))
	n := len(c.pre)
	for i, b := range c.code {
		s.code[i] |= b // the chunks c decoded: its writes there must be seen
	}
	c.pre, c.ins, c.decoded, c.code = s.pre[:n], s.ins[:n], s.decoded[:n], s.code
	c.share = s
	s.members = append(s.members, c)
	return true
}

// LeaveSharedCode gives c private copies of the code it shares (its view
// of the arrays, and the members' code bitmap, which covers every word of
// the copy any member decoded); nothing if it shares none.
func (c *CPU) LeaveSharedCode() {
	s := c.share
	if s == nil {
		return
	}
	c.pre, c.ins, c.decoded = slices.Clone(c.pre), slices.Clone(c.ins), slices.Clone(c.decoded)
	c.code = slices.Clone(s.code)
	c.share = nil
	i := slices.Index(s.members, c)
	s.members = slices.Delete(s.members, i, i+1)
	for i, p := range c.poll {
		u := &c.pre[i]
		if p != pollUnknown && u.op == opUndecoded {
			// A branch another member's write forgot (c's own writes reset
			// p): alone, c would still have it, with its state.
			c.slowFetch(u, uint32(i)*4)
		}
		u.poll = p
	}
}

// takePoll moves the polling states of c's own uops to c.poll, as it
// begins to share its code. A forgotten uop's state is pollUnknown, which
// slowFetch would have made it.
func (c *CPU) takePoll() {
	for i := range c.pre {
		c.poll[i] = pollUnknown
		if c.pre[i].op != opUndecoded {
			c.poll[i] = c.pre[i].poll
		}
	}
}

// agree is called before c decodes the shared word at pc, which holds w
// in c's SRAM. The members keep the word most of them hold there, of the
// word last decoded there and w (w on a tie): every member holding
// another leaves, c too, so that what is decoded is right for all who
// stay. A member that rewrote its code (or got it rewritten) so leaves
// alone, whoever fetches the word first.
func (s *SharedCode) agree(c *CPU, pc, w uint32) {
	keep := w
	if i := pc >> 2; s.decoded[i] != opUndecoded && s.ins[i].Word != w {
		last, n := s.ins[i].Word, 0
		for _, m := range s.members {
			switch m.sramWord(pc) {
			case last:
				n++
			case w:
				n--
			}
		}
		if n > 0 {
			keep = last
		}
	}
	for i := 0; i < len(s.members); {
		if m := s.members[i]; m.sramWord(pc) != keep {
			m.LeaveSharedCode() // removes m from s.members
			continue
		}
		i++
	}
}

// check forgets every shared word in [from, to) that c's SRAM does not
// hold, before c's view grows over them: c's writes there (past its view)
// forgot nothing. Forgetting is always safe: the next member to fetch the
// word predecodes it again after agree.
func (s *SharedCode) check(c *CPU, from, to int) {
	for i := from; i < to; i++ {
		if s.pre[i].op != opUndecoded && c.sramWord(uint32(i)*4) != s.ins[i].Word {
			s.pre[i].op = opUndecoded
		}
	}
}

// cover grows the shared arrays to at least n words, moving every
// member's view to the new arrays (each keeps its length).
func (s *SharedCode) cover(n int) {
	if n <= len(s.pre) {
		return
	}
	s.pre, s.ins, s.decoded = grown(s.pre, uint64(n)), grown(s.ins, uint64(n)), grown(s.decoded, uint64(n))
	for _, m := range s.members {
		k := len(m.pre)
		m.pre, m.ins, m.decoded = s.pre[:k], s.ins[:k], s.decoded[:k]
	}
}

// SharedCode is the SharedCode c shares its code with, or nil.
func (c *CPU) SharedCode() *SharedCode { return c.share }
