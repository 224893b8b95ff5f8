package debugger

import (
	"fmt"
	"strings"

	"lanaiemu/lanai"
	"lanaiemu/memsys"
)

// Expressions: the one evaluator of every command that takes an address
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
// A oldTerm is a number (0x hex or decimal), a register (%sp, $r3, or a
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
type oldValue func(c *lanai.CPU) (uint32, error)

// oldMaxNesting bounds the depth of ( and [ in an expression.
const oldMaxNesting = 64

// oldMaxExprLen bounds an expression's length: its value is a chain of
// closures as long as its operators, and evaluating a chain of millions
// would overflow the stack.
const oldMaxExprLen = 1 << 16

// oldCompile parses an expression against program p.
func oldCompile(p *Program, expr string) (oldValue, error) {
	v, _, err := oldCompileKind(p, expr)
	return v, err
}

// oldCompileKind is oldCompile that also says whether the expression is a
// value rather than an address (above).
func oldCompileKind(p *Program, expr string) (v oldValue, isValue bool, err error) {
	if len(expr) > oldMaxExprLen {
		return nil, false, fmt.Errorf("an expression of %d bytes: at most %d", len(expr), oldMaxExprLen)
	}
	s := strings.TrimSpace(expr)
	s = strings.TrimPrefix(s, "*")
	if strings.TrimSpace(s) == "" {
		return nil, false, fmt.Errorf("missing address")
	}
	x := &oldParser{p: p, src: expr, s: s}
	if v, err = x.binary(0); err != nil {
		return nil, false, err
	}
	if x.skipSpace(); x.i < len(x.s) {
		if x.at("]") || x.at(")") {
			return nil, false, x.errorf("unmatched %q", x.s[x.i:x.i+1])
		}
		return nil, false, x.errorf("expected an operator before %q", x.s[x.i:])
	}
	return v, x.value, nil
}

// oldParser reads one expression.
type oldParser struct {
	p     *Program
	src   string // as the user wrote it, for messages
	s     string
	i     int
	depth int
	value bool // it uses [ ] or an operator other than + and -
}

func (x *oldParser) errorf(format string, args ...any) error {
	return fmt.Errorf("bad expression %q: %s", x.src, fmt.Sprintf(format, args...))
}

func (x *oldParser) skipSpace() {
	for x.i < len(x.s) && (x.s[x.i] == ' ' || x.s[x.i] == '\t') {
		x.i++
	}
}

// at reports whether the text at the present position starts with tok.
func (x *oldParser) at(tok string) bool { return strings.HasPrefix(x.s[x.i:], tok) }

// oldBinaryOp is an operator of a precedence level.
type oldBinaryOp struct {
	tok string
	f   func(a, b uint32) uint32
}

func oldTruth(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// oldLevels are the binary operators by precedence, loosest first; within a
// level the longer token is tried first ("<=" before "<"). && and || are
// handled by binary itself (they do not evaluate their right side when
// the left decides).
var oldLevels = [][]oldBinaryOp{
	{{"||", nil}},
	{{"&&", nil}},
	{{"|", func(a, b uint32) uint32 { return a | b }}},
	{{"^", func(a, b uint32) uint32 { return a ^ b }}},
	{{"&", func(a, b uint32) uint32 { return a & b }}},
	{{"==", func(a, b uint32) uint32 { return oldTruth(a == b) }}, {"!=", func(a, b uint32) uint32 { return oldTruth(a != b) }}},
	{{"<=", func(a, b uint32) uint32 { return oldTruth(int32(a) <= int32(b)) }}, {">=", func(a, b uint32) uint32 { return oldTruth(int32(a) >= int32(b)) }},
		{"<", func(a, b uint32) uint32 { return oldTruth(int32(a) < int32(b)) }}, {">", func(a, b uint32) uint32 { return oldTruth(int32(a) > int32(b)) }}},
	{{"<<", func(a, b uint32) uint32 { return a << (b & 31) }}, {">>", func(a, b uint32) uint32 { return a >> (b & 31) }}},
	{{"+", func(a, b uint32) uint32 { return a + b }}, {"-", func(a, b uint32) uint32 { return a - b }}},
	{{"*", func(a, b uint32) uint32 { return a * b }}},
}

// op finds an operator of level lv at the present position: not the
// first character of a longer operator of another level ("||" is not
// "|", "<<" is not "<", "&&" is not "&").
func (x *oldParser) op(lv int) (oldBinaryOp, bool) {
	for _, o := range oldLevels[lv] {
		if !x.at(o.tok) {
			continue
		}
		if len(o.tok) == 1 && x.i+1 < len(x.s) && x.s[x.i+1] == o.tok[0] && strings.IndexByte("|&<>", o.tok[0]) >= 0 {
			continue
		}
		return o, true
	}
	return oldBinaryOp{}, false
}

// binary parses the operators of level lv and tighter.
func (x *oldParser) binary(lv int) (oldValue, error) {
	if lv == len(oldLevels) {
		return x.unary()
	}
	left, err := x.binary(lv + 1)
	if err != nil {
		return nil, err
	}
	for {
		x.skipSpace()
		o, ok := x.op(lv)
		if !ok {
			return left, nil
		}
		x.i += len(o.tok)
		x.value = x.value || o.tok != "+" && o.tok != "-"
		right, err := x.binary(lv + 1)
		if err != nil {
			return nil, err
		}
		left = oldCombine(o, left, right)
	}
}

// oldCombine makes the value of a binary operator.
func oldCombine(o oldBinaryOp, a, b oldValue) oldValue {
	switch o.tok {
	case "&&", "||":
		or := o.tok == "||"
		return func(c *lanai.CPU) (uint32, error) {
			l, err := a(c)
			if err != nil || (l != 0) == or {
				return oldTruth(l != 0), err
			}
			r, err := b(c)
			return oldTruth(r != 0), err
		}
	}
	f := o.f
	return func(c *lanai.CPU) (uint32, error) {
		l, err := a(c)
		if err != nil {
			return 0, err
		}
		r, err := b(c)
		if err != nil {
			return 0, err
		}
		return f(l, r), nil
	}
}

// oldUnaryOps are the prefix operators.
var oldUnaryOps = map[byte]func(uint32) uint32{
	'-': func(v uint32) uint32 { return -v },
	'+': func(v uint32) uint32 { return v },
	'!': func(v uint32) uint32 { return oldTruth(v == 0) },
	'~': func(v uint32) uint32 { return ^v },
}

func (x *oldParser) unary() (oldValue, error) {
	x.skipSpace()
	if x.i >= len(x.s) {
		return nil, x.errorf("it ends with an operator")
	}
	if f, ok := oldUnaryOps[x.s[x.i]]; ok {
		x.value = x.value || x.s[x.i] == '!' || x.s[x.i] == '~'
		x.i++
		if x.depth++; x.depth > oldMaxNesting {
			return nil, x.errorf("nested more than %d deep", oldMaxNesting)
		}
		v, err := x.unary()
		x.depth--
		if err != nil {
			return nil, err
		}
		return func(c *lanai.CPU) (uint32, error) {
			r, err := v(c)
			return f(r), err
		}, nil
	}
	return x.primary()
}

func (x *oldParser) primary() (oldValue, error) {
	ch := x.s[x.i]
	if ch == '(' || ch == '[' {
		closer := ")"
		if ch == '[' {
			closer = "]"
		}
		x.i++
		if x.depth++; x.depth > oldMaxNesting {
			return nil, x.errorf("nested more than %d deep", oldMaxNesting)
		}
		v, err := x.binary(0)
		x.depth--
		if err != nil {
			return nil, err
		}
		if x.skipSpace(); !x.at(closer) {
			return nil, x.errorf("missing %q", closer)
		}
		x.i++
		if ch == '(' {
			return v, nil
		}
		x.value = true
		return func(c *lanai.CPU) (uint32, error) {
			a, err := v(c)
			if err != nil {
				return 0, err
			}
			return peekWord(c.Mem, a)
		}, nil
	}
	j := x.i
	if ch == '%' || ch == '$' {
		j++
	}
	for j < len(x.s) && isNameChar(x.s[j]) {
		j++
	}
	tok := x.s[x.i:j]
	if tok == "" || tok == "%" || tok == "$" {
		return nil, x.errorf("unexpected %q", x.s[x.i:])
	}
	x.i = j
	return oldTerm(x.p, tok)
}

// oldTerm compiles a number, a register or a name.
func oldTerm(p *Program, tok string) (oldValue, error) {
	constant := func(v uint32) oldValue { return func(*lanai.CPU) (uint32, error) { return v, nil } }
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
