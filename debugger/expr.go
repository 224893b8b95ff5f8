package debugger

import (
	"fmt"
	"strings"

	"lanaiemu/internal/expr"
	"lanaiemu/lanai"
	"lanaiemu/memsys"
)

// Expressions (parsed by internal/expr, shared with scenario's host
// scripts): the one evaluator of every command that takes an address
// or a value (break, until, x, watch, print, disas, a breakpoint's
// condition, a logpoint's {EXPR}) and of the DAP adapter's evaluate. An
// address expression of old (terms joined by + and -) means what it
// always meant; the rest extends it. Values are 32-bit words; operators,
// in C's precedence from the loosest:
//
//	||   &&   |   ^   &   == !=   < <= > >= (signed)   << >>   + -   *
//	unary - + ! ~
//
// (as in C, & ^ | bind looser than the comparisons: write
// ([ISR] & 0x10) == 0x10)
//
// A term is a number (0x hex or decimal), a register (%sp, $r3, or a
// bare register name that is not a symbol; also npc and flags), a symbol
// (its address), a special register by name ($ISR: its value; a bare
// ISR only where no symbol has that name: firmware that includes
// lanai9.inc names the registers' addresses), [EXPR]
// (the big-endian word at EXPR: SRAM at any alignment, or a special
// register), or (EXPR). A comparison or ! gives 1 or 0. A leading '*'
// (gdb's "break *ADDR") is ignored.
//
// An expression of terms, + and - only is an address: print and evaluate
// show the word stored there, as they always did. One that uses [ ] or
// any other operator is a value: they show the value itself.
//
// An expression is compiled once against a thread's program (symbols
// are resolved then: an unknown name is an error at once) and evaluated
// on a core as often as needed. Evaluating has no side effects: it reads
// registers, SRAM and the special registers (through their Peek), never
// a device; the only error it can meet is a word it cannot read.

// value is a compiled expression: its value on core c.
type value = expr.Eval[*lanai.CPU]

// maxNesting bounds the depth of ( and [ in an expression.
const maxNesting = 64

// maxExprLen bounds an expression's length: its value is a chain of
// closures as long as its operators, and evaluating a chain of millions
// would overflow the stack.
const maxExprLen = 1 << 16

// compile parses an expression against program p.
func compile(p *Program, expr string) (value, error) {
	v, _, err := compileKind(p, expr)
	return v, err
}

// compileKind is compile that also says whether the expression is a
// value rather than an address (above).
func compileKind(p *Program, src string) (v value, isValue bool, err error) {
	if len(src) > maxExprLen {
		return nil, false, fmt.Errorf("an expression of %d bytes: at most %d", len(src), maxExprLen)
	}
	s := strings.TrimSpace(src)
	s = strings.TrimPrefix(s, "*")
	if strings.TrimSpace(s) == "" {
		return nil, false, fmt.Errorf("missing address")
	}
	sx := syntax
	sx.Term = func(tok string) (value, error) { return term(p, tok) }
	v, isPlain, err := sx.Parse(s)
	if se, ok := err.(*expr.SyntaxError); ok {
		return nil, false, fmt.Errorf("bad expression %q: %s", src, se.Msg)
	}
	return v, !isPlain, err
}

// syntax is the debugger's expressions (the package's Term is set per
// program by compileKind): C's operators without / and %, signed
// comparisons, registers as %name and $name, [ADDR] words.
var syntax = expr.Syntax[*lanai.CPU]{
	Ops:      "|| && | ^ & == != < <= > >= << >> + - *",
	Unary:    "-+!~",
	Signed:   true,
	Prefixes: "%$",
	NameChar: isNameChar,
	Word:     func(c *lanai.CPU, a uint32) (uint32, error) { return peekWord(c.Mem, a) },
	MaxLen:   maxExprLen,
	MaxDepth: maxNesting,
}

// term compiles a number, a register or a name.
func term(p *Program, tok string) (value, error) {
	constant := func(v uint32) value { return func(*lanai.CPU) (uint32, error) { return v, nil } }
	if tok[0] >= '0' && tok[0] <= '9' {
		v, err := parseNumber(tok)
		return constant(v), err
	}
	prefixed := tok[0] == '%' || tok[0] == '$'
	if !prefixed {
		if a, ok := p.syms.Addr(tok); ok {
			return constant(a), nil
		}
	}
	name := strings.TrimLeft(tok, "%$")
	if r, ok := regByName(name); ok {
		return func(c *lanai.CPU) (uint32, error) { return c.Reg(r), nil }, nil
	}
	switch strings.ToLower(name) {
	case "npc":
		return func(c *lanai.CPU) (uint32, error) { return c.NPC, nil }, nil
	case "flags":
		return func(c *lanai.CPU) (uint32, error) { return uint32(c.Flags), nil }, nil
	}
	if sr, ok := memsys.SpecialByName(strings.ToUpper(name)); ok {
		return func(c *lanai.CPU) (uint32, error) { return c.Mem.Specials.Peek(sr.Off) }, nil
	}
	if prefixed {
		return nil, fmt.Errorf("no register %q", tok)
	}
	return nil, fmt.Errorf("no symbol %q", tok)
}

// peekWord reads the big-endian word at a without side effects: from
// SRAM (any alignment) or a special register (through its Peek).
func peekWord(m *memsys.Memory, a uint32) (uint32, error) {
	if m.InSRAM(a, 4) {
		b := m.SRAM[a : a+4]
		return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]), nil
	}
	if off := a - memsys.SpecialBase; off < memsys.SpecialSize && off%4 == 0 {
		return m.Specials.Peek(off)
	}
	return 0, fmt.Errorf("cannot read [0x%08x]: not a word of SRAM or a special register (a device is read only by the program)", a)
}
