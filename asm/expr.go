package asm

import (
	"fmt"
	"strings"
)

// exprOp is the operation of an expression node.
type exprOp uint8

const (
	eNum exprOp = iota
	eSym
	eNeg
	eNot  // ~
	eLNot // logical !
	eHi   // hi(x): the upper half, as an RI operand (x & 0xffff0000)
	eLo   // lo(x): the lower half (x & 0xffff)
	eBinary
)

// expr is a parsed expression. Symbols are bound when parsed, so an
// expression can be evaluated later, after every label is defined.
type expr struct {
	op  exprOp
	val int64
	sym *symbol
	bin string // binary operator
	x   *expr
	y   *expr
	pos Pos
}

// value is an evaluated expression: a constant, or a symbol plus an offset.
type value struct {
	sym     *symbol // nil for a constant
	off     int64
	variant exprOp // eHi, eLo, or eNum for none
}

func (v value) isConst() bool { return v.sym == nil }

// binaryPrec gives each binary operator its precedence (higher binds
// tighter), as in C.
var binaryPrec = map[string]int{
	"*": 10, "/": 10, "%": 10,
	"+": 9, "-": 9,
	"<<": 8, ">>": 8,
	"<": 7, "<=": 7, ">": 7, ">=": 7,
	"==": 6, "!=": 6, "<>": 6,
	"&":  5,
	"^":  4,
	"|":  3,
	"&&": 2,
	"||": 1,
}

// parser reads one statement's tokens.
type parser struct {
	a    *assembler
	toks []token
	i    int
	pos  Pos // position of the statement; Col is replaced per token
	// nest counts the parentheses and unary operators being parsed.
	nest int
}

// maxExprNesting bounds an expression's nesting (parentheses, unary
// operators, hi/lo): deeper input is an error, not a stack overflow.
const maxExprNesting = 100

func (p *parser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	col := 1
	if n := len(p.toks); n > 0 {
		col = p.toks[n-1].col + len(p.toks[n-1].text)
	}
	return token{kind: tEOF, col: col}
}

func (p *parser) next() token {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

func (p *parser) at(t token) Pos { q := p.pos; q.Col = t.col; return q }

func (p *parser) atEnd() bool { return p.i >= len(p.toks) }

// accept consumes the punctuation s if it comes next.
func (p *parser) accept(s string) bool {
	if p.peek().is(s) {
		p.i++
		return true
	}
	return false
}

// expect consumes the punctuation s or fails.
func (p *parser) expect(s string) error {
	if !p.accept(s) {
		t := p.peek()
		return p.errAt(t, "expected '%s', found %v", s, t)
	}
	return nil
}

// errCol is an error at a column of the statement's line.
func (p *parser) errCol(col int32, format string, args ...any) error {
	return p.errAt(token{col: int(col)}, format, args...)
}

func (p *parser) errAt(t token, format string, args ...any) error {
	return &posError{p.at(t), fmt.Sprintf(format, args...)}
}

// posError is an error at a position, turned into an Error by the assembler.
type posError struct {
	pos Pos
	msg string
}

func (e *posError) Error() string { return e.pos.String() + ": " + e.msg }

// parseExpr parses an expression.
func (p *parser) parseExpr() (*expr, error) { return p.parseBinary(1) }

func (p *parser) parseBinary(minPrec int) (*expr, error) {
	x, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		prec, ok := binaryPrec[t.text]
		if t.kind != tPunct || !ok || prec < minPrec {
			return x, nil
		}
		p.next()
		y, err := p.parseBinary(prec + 1)
		if err != nil {
			return nil, err
		}
		x = p.a.newExpr(expr{op: eBinary, bin: t.text, x: x, y: y, pos: p.at(t)})
	}
}

func (p *parser) parseUnary() (*expr, error) {
	t := p.next()
	pos := p.at(t)
	if p.nest >= maxExprNesting {
		return nil, &posError{pos, fmt.Sprintf("expression nests more than %d deep", maxExprNesting)}
	}
	p.nest++
	defer func() { p.nest-- }()
	switch t.kind {
	case tNum:
		return p.a.newExpr(expr{op: eNum, val: int64(t.val), pos: pos}), nil
	case tBigHex:
		return nil, &posError{pos, fmt.Sprintf("integer literal %s is too large", t.text)}
	case tLocalRef:
		s, err := p.a.localRef(t.text)
		if err != nil {
			return nil, &posError{pos, err.Error()}
		}
		return p.a.newExpr(expr{op: eSym, sym: s, pos: pos}), nil
	case tIdent:
		if t.text == "." {
			return p.a.newExpr(expr{op: eSym, sym: p.a.here(), pos: pos}), nil
		}
		if l := strings.ToLower(t.text); (l == "hi" || l == "lo") && p.peek().is("(") {
			p.next()
			x, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			op := eHi
			if l == "lo" {
				op = eLo
			}
			return p.a.newExpr(expr{op: op, x: x, pos: pos}), nil
		}
		return p.a.newExpr(expr{op: eSym, sym: p.a.lookup(t.text), pos: pos}), nil
	case tPunct:
		switch t.text {
		case "(":
			x, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			return x, p.expect(")")
		case "-", "~", "!", "+":
			x, err := p.parseUnary()
			if err != nil {
				return nil, err
			}
			op := map[string]exprOp{"-": eNeg, "~": eNot, "!": eLNot}[t.text]
			if t.text == "+" {
				return x, nil
			}
			return p.a.newExpr(expr{op: op, x: x, pos: pos}), nil
		}
	}
	return nil, &posError{pos, fmt.Sprintf("expected an expression, found %v", t)}
}

// newExpr allocates an expression node from a slab, sparing the garbage
// collector one object per node.
func (a *assembler) newExpr(e expr) *expr {
	if len(a.exprSlab) == 0 {
		a.exprSlab = make([]expr, 1024)
	}
	n := &a.exprSlab[0]
	a.exprSlab = a.exprSlab[1:]
	*n = e
	return n
}

// isConstant reports whether an expression involves no symbol at all.
func (e *expr) isConstant() bool {
	switch e.op {
	case eNum:
		return true
	case eSym:
		return false
	}
	return e.x.isConstant() && (e.y == nil || e.y.isConstant())
}

// evalError is an evaluation failure at an expression's position.
func evalError(e *expr, format string, args ...any) error {
	return &posError{e.pos, fmt.Sprintf(format, args...)}
}

// eval evaluates an expression with the symbols defined so far.
func (a *assembler) eval(e *expr) (value, error) { return a.evalDepth(e, 0) }

func (a *assembler) evalDepth(e *expr, depth int) (value, error) {
	if depth > 100 {
		return value{}, evalError(e, "expression nests too deeply (a .set cycle?)")
	}
	switch e.op {
	case eNum:
		return value{off: e.val}, nil
	case eSym:
		s := e.sym
		if s.equ != nil {
			if s.evaluating {
				return value{}, evalError(e, "symbol %s is defined in terms of itself", s.name)
			}
			s.evaluating = true
			v, err := a.evalDepth(s.equ, depth+1)
			s.evaluating = false
			if pe, ok := err.(*posError); ok && pe.pos.Line != e.pos.Line {
				// Report at the use, naming the symbol whose value failed.
				return v, evalError(e, "%s (in the value of %s, set at %v)", pe.msg, s.name, s.defPos)
			}
			return v, err
		}
		if s.isAbs {
			return value{off: s.absVal}, nil
		}
		return value{sym: s}, nil
	case eHi, eLo:
		v, err := a.evalDepth(e.x, depth+1)
		if err != nil {
			return v, err
		}
		if v.variant != eNum {
			return value{}, evalError(e, "hi() and lo() cannot be nested")
		}
		if v.isConst() {
			if e.op == eHi {
				return value{off: v.off & 0xFFFF0000}, nil
			}
			return value{off: v.off & 0xFFFF}, nil
		}
		v.variant = e.op
		return v, nil
	}
	x, err := a.evalDepth(e.x, depth+1)
	if err != nil {
		return x, err
	}
	if e.op != eBinary {
		if !x.isConst() || x.variant != eNum {
			return value{}, evalError(e, "operand of a unary operator must be a constant")
		}
		switch e.op {
		case eNeg:
			return value{off: -x.off}, nil
		case eNot:
			return value{off: ^x.off}, nil
		default:
			return value{off: b2i(x.off == 0)}, nil
		}
	}
	y, err := a.evalDepth(e.y, depth+1)
	if err != nil {
		return y, err
	}
	if x.variant != eNum || y.variant != eNum {
		return value{}, evalError(e, "hi() and lo() must enclose the whole operand")
	}
	switch e.bin {
	case "+":
		if x.sym != nil && y.sym != nil {
			return value{}, evalError(e, "cannot add two symbols")
		}
		if x.sym == nil {
			x.sym = y.sym
		}
		return value{sym: x.sym, off: x.off + y.off}, nil
	case "-":
		if y.sym == nil {
			return value{sym: x.sym, off: x.off - y.off}, nil
		}
		if x.sym == nil {
			return value{}, evalError(e, "cannot subtract a symbol from a constant")
		}
		xs, xo, xok := x.sym.location()
		ys, yo, yok := y.sym.location()
		if !xok || !yok {
			return value{}, evalError(e, "cannot subtract symbols that are not both defined (%s - %s)", x.sym.name, y.sym.name)
		}
		if xs != ys {
			return value{}, evalError(e, "cannot subtract symbols in different sections (%s - %s)", x.sym.name, y.sym.name)
		}
		return value{off: int64(xo) + x.off - int64(yo) - y.off}, nil
	}
	if !x.isConst() || !y.isConst() {
		return value{}, evalError(e, "operator %s needs constant operands", e.bin)
	}
	a1, b1 := x.off, y.off
	var r int64
	switch e.bin {
	case "*":
		r = a1 * b1
	case "/", "%":
		if b1 == 0 {
			return value{}, evalError(e, "division by zero")
		}
		if e.bin == "/" {
			r = a1 / b1
		} else {
			r = a1 % b1
		}
	case "<<":
		r = a1 << (uint64(b1) & 63)
	case ">>":
		r = a1 >> (uint64(b1) & 63)
	case "&":
		r = a1 & b1
	case "^":
		r = a1 ^ b1
	case "|":
		r = a1 | b1
	case "&&":
		r = b2i(a1 != 0 && b1 != 0)
	case "||":
		r = b2i(a1 != 0 || b1 != 0)
	case "<":
		r = b2i(a1 < b1)
	case "<=":
		r = b2i(a1 <= b1)
	case ">":
		r = b2i(a1 > b1)
	case ">=":
		r = b2i(a1 >= b1)
	case "==":
		r = b2i(a1 == b1)
	case "!=", "<>":
		r = b2i(a1 != b1)
	}
	return value{off: r}, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// evalConst evaluates an expression that must be a constant now.
func (a *assembler) evalConst(e *expr) (int64, error) {
	v, err := a.eval(e)
	if err != nil {
		return 0, err
	}
	if !v.isConst() {
		if v.sym.location2() {
			return 0, evalError(e, "expression must be a constant, but it refers to the address of %s", v.sym.name)
		}
		return 0, evalError(e, "expression must be a constant, but %s is not defined yet", v.sym.name)
	}
	return v.off, nil
}
