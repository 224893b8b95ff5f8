package debugger

import (
	"fmt"

	"lanaiemu/isa"
	"lanaiemu/lanai"
)

// ABI is a frame convention: how a routine's return address and its
// caller's stack are found.
type ABI int

const (
	// ABIClang is clang's LANai convention: the caller pushes the return
	// address ("st %rca, [--%sp]") and jumps; the callee's prologue is
	// "st %fp, [--%sp]; add %sp, 8, %fp", after which the return address
	// is at -4[%fp] and the caller's fp at -8[%fp]. Functions are the
	// STT_FUNC symbols.
	ABIClang ABI = iota
	// ABINetVM is the NetVM firmware's (firmware/netvm/src/netvm.s, the CALL,
	// RET and PUSH_RCA macros): CALL leaves the return address in rca; a
	// routine that calls another pushes rca first ("st %rca, [--%sp]").
	// Routines are the code labels; the stack words pushed before pc are
	// counted by reading the routine from its label to pc in order
	// (a routine entered by a jump to a label in its middle is not
	// followed).
	ABINetVM
)

// Frame is one activation: where it executes, and its stack and frame
// pointers (fp is meaningful for ABIClang only).
type Frame struct {
	PC, SP, FP uint32
	// Func names the function or routine ("" outside any).
	Func string
}

// maxFrames bounds a backtrace.
const maxFrames = 256

// word reads a word of the thread's SRAM for the unwinder.
func frameWord(cpu *lanai.CPU, a uint32) (uint32, error) {
	v, err := cpu.Mem.Word(a)
	if err != nil {
		return 0, fmt.Errorf("cannot read the frame at %#08x: %v", a, err)
	}
	return v, nil
}

// caller gives the frame that called f: its pc (the return address), sp
// after the return and fp. inner says f is the innermost frame (only
// there do the registers, rca, hold the callee's state). ra == 0 means f
// has no caller.
func (p *Program) caller(cpu *lanai.CPU, f Frame, inner bool) (Frame, bool, error) {
	if p.ABI == ABINetVM {
		return p.netvmCaller(cpu, f, inner)
	}
	ra, sp, fp, err := p.clangCaller(cpu, f.PC, f.SP, f.FP)
	if err != nil || ra == 0 {
		return Frame{}, false, err
	}
	return Frame{PC: ra, SP: sp, FP: fp, Func: p.funcName(ra)}, true, nil
}

// clangCaller follows clang's frame. Before the prologue has run (pc at
// the function's first or second instruction) the two words are found
// from sp instead of fp.
func (p *Program) clangCaller(cpu *lanai.CPU, pc, sp, fp uint32) (ra, callerSP, callerFP uint32, err error) {
	f, ok := p.funcAt(pc)
	if ok && f.name == "_start" {
		return 0, 0, 0, fmt.Errorf("%s is the program's entry: it has no caller", f.name)
	}
	switch {
	case ok && pc == f.addr:
		ra, err = frameWord(cpu, sp)
		return ra, sp + 4, fp, err
	case ok && pc == f.addr+4 && isPushFP(cpu, f.addr):
		if ra, err = frameWord(cpu, sp+4); err != nil {
			return
		}
		callerFP, err = frameWord(cpu, sp)
		return ra, sp + 8, callerFP, err
	}
	if ra, err = frameWord(cpu, fp-4); err != nil {
		return
	}
	callerFP, err = frameWord(cpu, fp-8)
	return ra, fp, callerFP, err
}

// isPushFP reports whether the instruction at a is "st %fp, [--%sp]".
func isPushFP(cpu *lanai.CPU, a uint32) bool {
	return isPush(cpu, a, isa.FP)
}

// isPush reports whether the instruction at a is "st %r, [--%sp]".
func isPush(cpu *lanai.CPU, a uint32, r isa.Reg) bool {
	w, err := cpu.Mem.Word(a)
	if err != nil {
		return false
	}
	in := isa.Decode(w)
	return in.Class == isa.RM && in.Store && in.Rd == r && in.Rs1 == isa.SP && in.Mode == isa.ModePre && int32(in.Imm) == -4
}

// isPop reports whether the instruction at a is "ld [%sp++], %r" and
// which register it loads.
func isPop(cpu *lanai.CPU, a uint32) (isa.Reg, bool) {
	w, err := cpu.Mem.Word(a)
	if err != nil {
		return 0, false
	}
	in := isa.Decode(w)
	if in.Class == isa.RM && !in.Store && in.Rs1 == isa.SP && in.Mode == isa.ModePost && in.Imm == 4 {
		return in.Rd, true
	}
	return 0, false
}

// routineAt gives the firmware routine holding pc: the nearest code label
// at or before it inside the image (lanai.Symbols.Func).
func (p *Program) routineAt(pc uint32) (symbol, bool) {
	if pc >= p.imgEnd && p.img.File != nil {
		return symbol{}, false
	}
	name, start, ok := p.syms.Func(pc)
	return symbol{addr: start, name: name}, ok
}

// netvmCaller follows the firmware's convention: it reads the routine from
// its label to pc, counting the words pushed and popped, to find whether
// rca was pushed and where.
func (p *Program) netvmCaller(cpu *lanai.CPU, f Frame, inner bool) (Frame, bool, error) {
	r, ok := p.routineAt(f.PC)
	if !ok {
		return Frame{}, false, fmt.Errorf("%#08x is in no routine", f.PC)
	}
	if r.name == "_start" || r.name == "main_loop" {
		return Frame{}, false, nil
	}
	depth, rcaAt := 0, -1 // words pushed since the label; rca's position among them
	for a := r.addr; a < f.PC && f.PC-a <= 4096*4; a += 4 {
		if isPush(cpu, a, isa.RCA) {
			depth++
			rcaAt = depth
			continue
		}
		if isPushAny(cpu, a) {
			depth++
			continue
		}
		if reg, ok := isPop(cpu, a); ok {
			if depth > 0 {
				depth--
			}
			if reg == isa.RCA || rcaAt > depth {
				rcaAt = -1
			}
		}
	}
	var ra uint32
	if rcaAt < 0 {
		if !inner {
			return Frame{}, false, fmt.Errorf("%s keeps its return address in rca, which a callee has overwritten", r.name)
		}
		ra = cpu.Reg(isa.RCA)
	} else {
		v, err := frameWord(cpu, f.SP+uint32(4*(depth-rcaAt)))
		if err != nil {
			return Frame{}, false, err
		}
		ra = v
	}
	if ra == 0 {
		return Frame{}, false, nil
	}
	callerSP := f.SP + uint32(4*depth)
	name := ""
	if c, ok := p.routineAt(ra); ok {
		name = c.name
	}
	return Frame{PC: ra, SP: callerSP, Func: name}, true, nil
}

// isPushAny reports whether the instruction at a is "st %rN, [--%sp]".
func isPushAny(cpu *lanai.CPU, a uint32) bool {
	w, err := cpu.Mem.Word(a)
	if err != nil {
		return false
	}
	in := isa.Decode(w)
	return in.Class == isa.RM && in.Store && in.Rs1 == isa.SP && in.Mode == isa.ModePre && int32(in.Imm) == -4
}

// funcName names the function or routine holding pc.
func (p *Program) funcName(pc uint32) string {
	if f, ok := p.funcAt(pc); ok {
		return f.name
	}
	if p.ABI == ABINetVM {
		if r, ok := p.routineAt(pc); ok {
			return r.name
		}
	}
	return ""
}

// Frames unwinds the thread's stack from its registers: the innermost
// frame first, at most maxFrames; err says why the unwinding stopped early.
func (p *Program) Frames(cpu *lanai.CPU) (frames []Frame, err error) {
	f := Frame{PC: cpu.PC, SP: cpu.Reg(isa.SP), FP: cpu.Reg(isa.FP), Func: p.funcName(cpu.PC)}
	for len(frames) < maxFrames {
		frames = append(frames, f)
		if f.Func == "" || f.Func == "_start" || f.Func == "main_loop" {
			return frames, nil // outside any function, or at the entry
		}
		c, ok, err := p.caller(cpu, f, len(frames) == 1)
		if err != nil || !ok {
			return frames, err
		}
		f = c
	}
	return frames, nil
}

// callReturn recognises a call at pc and gives where it returns: at the
// first instruction of clang's call sequence, "add %pc, K, %rca", the
// return point is pc+K; at a branch whose delay slot is the firmware's
// "add %pc, K, %rca" (CALL), it is pc+4+K; at a control transfer (a
// branch or a write to pc) while rca holds pc+8 (which clang's add set),
// it is pc+8.
func callReturn(cpu *lanai.CPU, pc uint32) (uint32, bool) {
	w, err := cpu.Mem.Word(pc)
	if err != nil {
		return 0, false
	}
	in := isa.Decode(w)
	if isSetRCA(in) {
		return pc + in.Imm, true
	}
	transfer := false
	switch in.Class {
	case isa.BR, isa.BRR:
		transfer = in.Cond != isa.CondF
	case isa.RI, isa.RR, isa.Special:
		transfer = in.Rd == isa.PC
	}
	if !transfer {
		return 0, false
	}
	if w2, err := cpu.Mem.Word(pc + 4); err == nil {
		if slot := isa.Decode(w2); isSetRCA(slot) {
			return pc + 4 + slot.Imm, true
		}
	}
	if cpu.Reg(isa.RCA) == pc+8 {
		return pc + 8, true
	}
	return 0, false
}

// isSetRCA reports whether in is "add %pc, K, %rca".
func isSetRCA(in isa.Inst) bool {
	return in.Class == isa.RI && in.ALU == isa.Add && !in.F && in.Rs1 == isa.PC && in.Rd == isa.RCA
}
