// Package isa is the single description of the LANai instruction set used by
// every tool in this project: the assembler encodes through it, the
// disassembler prints through it and the emulator predecodes through it.
//
// The instruction set is the one of LLVM's Lanai target (LANai 11), which is a
// descendant of the Myricom LANai 3..9 line; see docs/isa.md. Every valid
// encoding is described once, by a row of the form table in table.go: the
// decoder matches words against the rows, the printer follows the row's
// syntax, and the encoder places fields and then checks the result by
// decoding it again, so nothing about an instruction is written twice.
//
// Instruction words are 32 bits, big-endian in memory, opcode in bits 31..28.
package isa

import "fmt"

// Reg is a general-purpose register number, 0..31.
type Reg uint8

// Registers with architectural roles.
const (
	R0  Reg = 0  // reads as 0, writes are discarded
	R1  Reg = 1  // reads as 0xFFFFFFFF, writes are discarded
	PC  Reg = 2  // program counter; writing it is a (delayed) jump
	SP  Reg = 4  // stack pointer by convention
	FP  Reg = 5  // frame pointer by convention
	RV  Reg = 8  // return value by convention
	RR1 Reg = 10 // reserved by LLVM's convention
	RR2 Reg = 11 // reserved by LLVM's convention
	RCA Reg = 15 // return address by convention
)

// regNames are the names LLVM prints for each register number.
var regNames = [32]string{
	"r0", "r1", "pc", "r3", "sp", "fp", "r6", "r7",
	"rv", "r9", "rr1", "rr2", "r12", "r13", "r14", "rca",
	"r16", "r17", "r18", "r19", "r20", "r21", "r22", "r23",
	"r24", "r25", "r26", "r27", "r28", "r29", "r30", "r31",
}

// String returns the register's canonical name without the '%' prefix.
func (r Reg) String() string {
	if r < 32 {
		return regNames[r]
	}
	return fmt.Sprintf("r?%d", uint8(r))
}

// RegByName maps a register name (without '%', lower case: "r7", "sp", "rca")
// to its number.
func RegByName(name string) (Reg, bool) {
	if len(name) >= 2 && len(name) <= 3 && name[0] == 'r' && name[1] >= '0' && name[1] <= '9' {
		n := int(name[1] - '0')
		if len(name) == 3 {
			if name[1] == '0' || name[2] < '0' || name[2] > '9' {
				return regAlias(name)
			}
			n = n*10 + int(name[2]-'0')
		}
		if n < 32 {
			return Reg(n), true
		}
		return 0, false
	}
	return regAlias(name)
}

// regAlias maps the names that are not "r" and a number: pc, sp, fp, rv,
// rr1, rr2, rca.
func regAlias(name string) (Reg, bool) {
	for i, n := range regNames {
		if n == name {
			return Reg(i), true
		}
	}
	return 0, false
}

// Cond is a 4-bit condition code (DDDI): the odd code is the negation of the
// even code below it.
type Cond uint8

// The sixteen condition codes.
const (
	CondT Cond = iota
	CondF
	CondUGT
	CondULE
	CondULT
	CondUGE
	CondNE
	CondEQ
	CondVC
	CondVS
	CondPL
	CondMI
	CondGE
	CondLT
	CondGT
	CondLE
)

// condNames are the names LLVM prints for each condition.
var condNames = [16]string{
	"t", "f", "ugt", "ule", "ult", "uge", "ne", "eq",
	"vc", "vs", "pl", "mi", "ge", "lt", "gt", "le",
}

// condAliases are other spellings the assembler accepts.
var condAliases = map[string]Cond{
	"hi": CondUGT, "ls": CondULE, "cc": CondULT, "cs": CondUGE,
}

// String returns the condition's canonical name ("eq", "ugt", ...).
func (c Cond) String() string { return condNames[c&15] }

// CondByName maps a condition name or alias to its code.
func CondByName(name string) (Cond, bool) {
	for i, n := range condNames {
		if n == name {
			return Cond(i), true
		}
	}
	c, ok := condAliases[name]
	return c, ok
}

// Holds reports whether the condition is true for flags packed as in Flags.
func (c Cond) Holds(f Flags) bool { return condTruth[c&15]>>(f&15)&1 != 0 }

// Flags packs the status flags in the LANai 3 "ps" layout: Z bit 0, N bit 1,
// V bit 2, C bit 3.
type Flags uint8

// Flag bits.
const (
	FlagZ Flags = 1 << 0
	FlagN Flags = 1 << 1
	FlagV Flags = 1 << 2
	FlagC Flags = 1 << 3
)

// condTruth[c] has bit f set when condition c holds for flag value f. It is
// computed once from the definitions in the LANai documentation.
var condTruth = func() (t [16]uint16) {
	for f := Flags(0); f < 16; f++ {
		z, n, v, c := f&FlagZ != 0, f&FlagN != 0, f&FlagV != 0, f&FlagC != 0
		even := [8]bool{true, c && !z, !c, !z, !v, !n, n == v, !z && n == v}
		for i := 0; i < 8; i++ {
			if even[i] {
				t[2*i] |= 1 << f
			} else {
				t[2*i+1] |= 1 << f
			}
		}
	}
	return
}()

// ALU names an operation: the RI/RR/RRM arithmetic and logic operations, the
// shifts, select, and the SPECIAL counting operations.
type ALU uint8

// ALU operations. The first eight values are the 3-bit operation field.
const (
	Add ALU = iota
	Addc
	Sub
	Subb
	And
	Or
	Xor
	Sh    // logical shift; positive amounts shift left, negative right
	Sha   // arithmetic shift
	Sel   // select on condition
	Popc  // population count
	Leadz // count leading zeros
	Trailz
)

var aluNames = [...]string{"add", "addc", "sub", "subb", "and", "or", "xor", "sh", "sha", "sel", "popc", "leadz", "trailz"}

// String returns the operation's mnemonic.
func (a ALU) String() string {
	if int(a) < len(aluNames) {
		return aluNames[a]
	}
	return "alu?"
}

// ALUByName maps an operation mnemonic ("add", "sha", ...) to its value.
func ALUByName(name string) (ALU, bool) {
	for i, n := range aluNames {
		if n == name {
			return ALU(i), true
		}
	}
	return 0, false
}

// Class is an instruction format.
type Class uint8

// Instruction formats (docs/isa.md has their bit layouts).
const (
	Invalid Class = iota
	RI            // register, immediate ALU
	RR            // register, register ALU (conditional)
	Special       // popc, leadz, trailz
	RM            // word load/store, register + 16-bit offset
	RRM           // load/store, register op register, with size
	SLS           // word load/store at a 21-bit absolute address
	SLI           // load a 21-bit constant
	SPLS          // part-word load/store, register + 10-bit offset
	BR            // absolute conditional branch
	BRR           // relative conditional branch
	SCC           // set register on condition
)

var classNames = [...]string{"invalid", "RI", "RR", "SPECIAL", "RM", "RRM", "SLS", "SLI", "SPLS", "BR", "BRR", "SCC"}

// String returns the format's name.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class?"
}

// Mode is the P,Q addressing mode of a memory instruction.
type Mode uint8

// Addressing modes, numbered as the P,Q bit pair.
const (
	ModeBase   Mode = 0 // ea = base
	ModePost   Mode = 1 // ea = base, then base += offset
	ModeOffset Mode = 2 // ea = base + offset
	ModePre    Mode = 3 // ea = base + offset, and base = ea
)

// Size is the width of a memory access.
type Size uint8

// Access sizes.
const (
	Word Size = 4
	Half Size = 2
	Byte Size = 1
)

// Inst is a decoded instruction: a compact, allocation-free value from which
// the emulator predecodes and the printer prints.
type Inst struct {
	Word  uint32
	Form  FormID // the table row that matched; 0 for an invalid word
	Class Class
	ALU   ALU // operation (RI, RR, SPECIAL) or address operation (RRM)
	Cond  Cond
	Rd    Reg // destination, or the data register of a store
	Rs1   Reg // first source or memory base
	Rs2   Reg // second source or memory offset register
	F     bool
	Mode  Mode
	Size  Size
	Zext  bool // zero-extending load ("uld")
	Store bool
	// Imm depends on the class: RI the expanded 32-bit second operand (for
	// shifts the sign-extended amount); RM and SPLS the sign-extended offset;
	// SLS the address; SLI the constant; BR the target; BRR the
	// sign-extended byte offset. Negative values are two's complement.
	Imm uint32
}

// Valid reports whether the instruction decoded from a valid word.
func (i Inst) Valid() bool { return i.Class != Invalid }
