package lanai

// The cycle model: every timing constant of the core, with its source. Each
// instruction's cost is computed once, at predecode, from this table
// (costOf); the only dynamic cost is the load-use interlock. docs/timing.md
// explains the model.
const (
	// DefaultClockHz is the LANai 9.2 core clock on PCI64B boards: "LANai 9
	// RISC operating at up to 133 MHz for the PCI64B interfaces" (Myricom
	// PCI64 specification; lanai9-hw.md section 7.1). PCI64C boards run at
	// 200 MHz; the clock is configurable.
	DefaultClockHz = 133_000_000

	// CyclesPerInstruction: the LANai is an in-order, single-issue pipeline
	// that issues one instruction per clock absent stalls (LANai 3.0
	// manual, isa.md 3.3; LLVM's LanaiSchedule.td: IssueWidth = 1).
	CyclesPerInstruction = 1

	// LoadUseStall: "Loads appear in Rd one cycle after this instruction
	// executes. If the following instruction reads Rd, that instruction
	// will be delayed by 1 clock cycle" (LLVM LanaiInstrFormats.td); LLVM's
	// scheduling model gives loads latency 2 (LoadLatency = 2, WriteLD).
	LoadUseStall = 1

	// PartWordExtra: part-word (SPLS) loads and stores occupy the load/store
	// unit for 2 cycles in LLVM's itineraries (IIC_LDSW, IIC_STSW), and a
	// part-word store has latency 4 (WriteSTSW). We charge the second cycle
	// of the unit; the store latency has no visible effect in an in-order
	// core without store-to-load hazards.
	PartWordExtra = 1

	// TakenBranchExtra: branches have architectural delay slots and no
	// further penalty (LLVM's MispredictPenalty of 10 is a placeholder for a
	// predictor the LANai does not have; isa.md 3.2).
	TakenBranchExtra = 0
)

// SRAMContention is the hook for the SRAM arbiter of the DMA engines (issue
// "The LANai 9.2 board"): extra cycles charged to a core memory access at a
// given cycle. Nil means no contention.
type SRAMContention func(cycle uint64, addr uint32, write bool) uint64
