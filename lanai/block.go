package lanai

// Predecoded blocks. The run loop (exec) runs straight-line code a block at
// a time: one deadline compare, one cycle sum and one instruction count per
// block instead of per instruction. A block starts at any word and holds
// up to maxBlock instructions that call nothing in exec (the ALU operations,
// select, SCC, nop, the fast loads and stores), optionally ending with a
// branch or a jump through a register (opBR, opBT, opBRR, opJumpAdd) and
// its delay slot. Its cycle cost, the load-use interlocks between its
// instructions included, is fixed when it is formed; only the stall of its
// first instruction depends on what ran before, and exec adds it.
//
// exec runs a block whole only when it is entered outside a delay slot,
// after the last SRAM cycle booked by DMA, and with its last instruction
// starting before the deadline; otherwise it runs one instruction, as
// before. Inside a block exec keeps pc and npc per instruction, but its
// cycle count stays at the block's branch (so the branch records the cycle
// it executes at, and the fast accesses' booked-SRAM test, true at the
// block's start, stays true); an instruction that leaves the fast path
// hands over with the exact count of its own start (handOver).
//
// A block's description stays right as long as its words keep their uops.
// A word changes its uop only in slowFetch (after a store, DMA or a
// breakpoint cleared it to opUndecoded), which forgets every block that may
// hold the word; a cleared word inside a block that runs is handed over
// like any other instruction that leaves the fast path.

// maxBlock is the most instructions a block holds.
const maxBlock = 32

// block describes the block starting at a word: n instructions (0: not
// formed yet; 1: run one instruction at a time), cost cycles (the
// instructions' costs and the interlocks after the first), and br, the
// cycles before its branch without the first stall (0 when the block has
// no branch or starts with it).
type block struct {
	n, cost, br uint8
}

// inBlock reports the ops a block holds before its branch (and in its
// delay slot): those whose cases in exec neither call nor transfer
// control.
func inBlock(o op) bool {
	return o == opNop || o == opSel || o == opSCC || isALUOp(o) || isFastMem(o)
}

// endsBlock reports the ops that end a block, followed by their delay slot.
func endsBlock(o op) bool {
	return o == opBR || o == opBT || o == opBRR || o == opJumpAdd
}

// isLoadOp reports the generated loads (with or without a base update):
// they set the interlock's register to their destination.
func isLoadOp(o op) bool { return o >= opLoadFirst && o < opStoreFirst }

// stallAfter is the interlock stall of word j when word j-1 ran before it
// in a block: a cycle when j-1 is a load into a register j reads. It reads
// the op j-1 was predecoded to (c.decoded), which a store that clears the
// word leaves as it was.
func (c *CPU) stallAfter(j uint32) uint8 {
	if !isLoadOp(c.decoded[j-1]) {
		return 0
	}
	return uint8(uint64(c.pre[j].srcs) >> (c.pre[j-1].rd & 63) & 1)
}

// formBlock describes the block starting at word idx (idx < len(c.pre)).
// It looks only at words already predecoded: a block ends before the
// first word that is not, and is formed again once that word is.
func (c *CPU) formBlock(idx uint32) {
	pre := c.pre
	var n, cost, br uint8
	for j := idx; j < uint32(len(pre)) && n < maxBlock; j++ {
		u := &pre[j]
		var stall uint8
		if n > 0 {
			stall = c.stallAfter(j)
		}
		if inBlock(u.op) {
			n, cost = n+1, cost+u.cost+stall
			continue
		}
		if endsBlock(u.op) && n+2 <= maxBlock && j+1 < uint32(len(pre)) && inBlock(pre[j+1].op) {
			if n > 0 {
				br = cost + stall
			}
			n, cost = n+2, cost+u.cost+stall+pre[j+1].cost // a branch loads nothing: no stall in the slot
		}
		break
	}
	c.blk[idx] = block{n: max(n, 1), cost: cost, br: br}
}

// forgetBlocks forgets the blocks that may hold the word at index idx,
// whose uop is about to change.
func (c *CPU) forgetBlocks(idx uint32) {
	first := max(idx, maxBlock-1) - (maxBlock - 1)
	clear(c.blk[first : idx+1])
}

// handOver turns the state exec wrote back for an instruction in a block
// (c.Cycles the count at the block's branch, c.Instret the count at its
// end, c.handN the instructions left in it, this one included) into the
// instruction's own counts, for execSlow.
func (c *CPU) handOver() {
	i, n := c.PC>>2, c.handN
	u := &c.pre[i]
	cycles := c.Cycles + c.blockRest - uint64(u.cost) - uint64(u.srcs)>>(c.lastLoad&63)&1
	for j := i + 1; j < i+n; j++ {
		cycles -= uint64(c.pre[j].cost + c.stallAfter(j))
	}
	c.Cycles, c.Instret = cycles, c.Instret-uint64(n)
}
