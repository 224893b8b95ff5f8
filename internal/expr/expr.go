// Package expr is the one lexer and parser of the project's 32-bit
// integer expressions: the debugger's (conditions, print, logpoints, DAP
// evaluate) and the host scripts' of scenarios. One operator table in C's
// precedence, parsed by precedence climbing; what differs between the
// front ends (which operators and functions exist, signed or unsigned
// comparisons, what a name, $name or [x] means) is the Syntax each one
// gives.
//
// An expression compiles to an Eval, a function of the front end's
// environment E (a core, a script's variables), evaluated as often as
// needed.
package expr

import (
	"fmt"
	"strings"
)

// Eval is a compiled expression: its value in environment env.
type Eval[E any] func(env E) (uint32, error)

// Syntax is what a front end's expressions are made of.
type Syntax[E any] struct {
	// Ops are the binary operators allowed, space-separated tokens of
	// the table (Table).
	Ops string
	// Unary are the prefix operators allowed, of "-+!~".
	Unary string
	// Signed makes < <= > >= compare as signed 32-bit numbers.
	Signed bool
	// Eager makes && and || evaluate both sides (an error on either
	// side is an error) instead of stopping when the left decides.
	Eager bool
	// Prefixes are the characters that may start a name besides
	// NameChar ("$" for $name, "%" for %r3).
	Prefixes string
	// NameChar reports whether c may be in a name or number.
	NameChar func(c byte) bool
	// Funcs are the two-argument functions, called as f(a, b).
	Funcs map[string]func(a, b uint32) uint32
	// Word reads the word at address a for [EXPR]; nil: no [ ].
	Word func(env E, a uint32) (uint32, error)
	// Term compiles a number or a name (with its prefix).
	Term func(tok string) (Eval[E], error)
	// MaxLen bounds an expression's length in bytes.
	MaxLen int
	// MaxDepth bounds the nesting of ( [ and prefix operators.
	MaxDepth int
}

// SyntaxError is an expression that does not parse. Errors of Term are
// returned as Term gave them.
type SyntaxError struct{ Msg string }

func (e *SyntaxError) Error() string { return e.Msg }

// An Op is a binary operator of the table.
type Op struct {
	Tok   string
	Level int // precedence: 0 is the loosest
	f     func(a, b uint32) (uint32, error)
	// signed is f for signed comparisons (nil: the same as f).
	signed func(a, b uint32) (uint32, error)
}

func truth(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func plain(f func(a, b uint32) uint32) func(a, b uint32) (uint32, error) {
	return func(a, b uint32) (uint32, error) { return f(a, b), nil }
}

func divide(f func(a, b uint32) uint32) func(a, b uint32) (uint32, error) {
	return func(a, b uint32) (uint32, error) {
		if b == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		return f(a, b), nil
	}
}

// Table is every binary operator, in C's precedence from the loosest.
// && and || are evaluated by the parser's combine (they may stop early).
var Table = []Op{
	{"||", 0, plain(func(a, b uint32) uint32 { return truth(a != 0 || b != 0) }), nil},
	{"&&", 1, plain(func(a, b uint32) uint32 { return truth(a != 0 && b != 0) }), nil},
	{"|", 2, plain(func(a, b uint32) uint32 { return a | b }), nil},
	{"^", 3, plain(func(a, b uint32) uint32 { return a ^ b }), nil},
	{"&", 4, plain(func(a, b uint32) uint32 { return a & b }), nil},
	{"==", 5, plain(func(a, b uint32) uint32 { return truth(a == b) }), nil},
	{"!=", 5, plain(func(a, b uint32) uint32 { return truth(a != b) }), nil},
	{"<=", 6, plain(func(a, b uint32) uint32 { return truth(a <= b) }), plain(func(a, b uint32) uint32 { return truth(int32(a) <= int32(b)) })},
	{">=", 6, plain(func(a, b uint32) uint32 { return truth(a >= b) }), plain(func(a, b uint32) uint32 { return truth(int32(a) >= int32(b)) })},
	{"<", 6, plain(func(a, b uint32) uint32 { return truth(a < b) }), plain(func(a, b uint32) uint32 { return truth(int32(a) < int32(b)) })},
	{">", 6, plain(func(a, b uint32) uint32 { return truth(a > b) }), plain(func(a, b uint32) uint32 { return truth(int32(a) > int32(b)) })},
	{"<<", 7, plain(func(a, b uint32) uint32 { return a << (b & 31) }), nil},
	{">>", 7, plain(func(a, b uint32) uint32 { return a >> (b & 31) }), nil},
	{"+", 8, plain(func(a, b uint32) uint32 { return a + b }), nil},
	{"-", 8, plain(func(a, b uint32) uint32 { return a - b }), nil},
	{"*", 9, plain(func(a, b uint32) uint32 { return a * b }), nil},
	{"/", 9, divide(func(a, b uint32) uint32 { return a / b }), nil},
	{"%", 9, divide(func(a, b uint32) uint32 { return a % b }), nil},
}

// unaryOps are the prefix operators.
var unaryOps = map[string]func(uint32) uint32{
	"-": func(v uint32) uint32 { return -v },
	"+": func(v uint32) uint32 { return v },
	"!": func(v uint32) uint32 { return truth(v == 0) },
	"~": func(v uint32) uint32 { return ^v },
}

// punct are the tokens other than names, longest first where one starts
// another.
var punct = []string{"||", "&&", "==", "!=", "<=", ">=", "<<", ">>",
	"(", ")", "[", "]", ",", "+", "-", "*", "/", "%", "^", "~", "|", "&", "<", ">", "!"}

// Parse compiles s. isPlain reports that s uses only terms, + and -
// (binary or prefix): no [ ], function or other operator.
func (sx *Syntax[E]) Parse(s string) (e Eval[E], isPlain bool, err error) {
	if len(s) > sx.MaxLen {
		return nil, false, fmt.Errorf("an expression of %d bytes: at most %d", len(s), sx.MaxLen)
	}
	x := &parser[E]{sx: sx, s: s}
	x.next()
	if e, err = x.binary(0); err != nil {
		return nil, false, err
	}
	if x.tok != "" {
		if x.tok == "]" || x.tok == ")" {
			return nil, false, x.errorf("unmatched %q", x.tok)
		}
		return nil, false, x.errorf("expected an operator before %q", x.rest())
	}
	return e, !x.value, nil
}

// parser reads one expression.
type parser[E any] struct {
	sx    *Syntax[E]
	s     string
	i     int    // after the present token
	at    int    // the present token's start
	tok   string // the present token; "" at the end
	name  bool   // tok is a name or number
	depth int
	value bool // it uses [ ], a function or an operator other than + and -
}

func (x *parser[E]) errorf(format string, args ...any) error {
	return &SyntaxError{fmt.Sprintf(format, args...)}
}

// rest is the text from the present token on.
func (x *parser[E]) rest() string { return x.s[x.at:] }

// next reads the next token.
func (x *parser[E]) next() {
	for x.i < len(x.s) && (x.s[x.i] == ' ' || x.s[x.i] == '\t') {
		x.i++
	}
	x.at, x.name = x.i, false
	if x.i == len(x.s) {
		x.tok = ""
		return
	}
	c := x.s[x.i]
	if strings.IndexByte(x.sx.Prefixes, c) >= 0 || x.sx.NameChar(c) {
		j := x.i + 1
		for j < len(x.s) && x.sx.NameChar(x.s[j]) {
			j++
		}
		x.tok, x.name, x.i = x.s[x.i:j], true, j
		return
	}
	for _, p := range punct {
		if strings.HasPrefix(x.s[x.i:], p) {
			x.tok, x.i = p, x.i+len(p)
			return
		}
	}
	x.tok, x.i = x.s[x.i:x.i+1], x.i+1 // a character of no token
}

// op gives the present token as a binary operator of the table (known)
// and whether the syntax has it (ok).
func (x *parser[E]) op() (o Op, known, ok bool) {
	if x.name || x.tok == "" {
		return Op{}, false, false
	}
	for _, o := range Table {
		if o.Tok == x.tok {
			return o, true, strings.Contains(" "+x.sx.Ops+" ", " "+o.Tok+" ")
		}
	}
	return Op{}, false, false
}

// binary parses the operators of level min and tighter (precedence
// climbing: left-associative).
func (x *parser[E]) binary(min int) (Eval[E], error) {
	left, err := x.unary()
	if err != nil {
		return nil, err
	}
	for {
		o, known, ok := x.op()
		if known && !ok {
			return nil, x.errorf("no %q operator here (the operators: %s)", o.Tok, x.sx.Ops)
		}
		if !ok || o.Level < min {
			return left, nil
		}
		x.next()
		x.value = x.value || o.Tok != "+" && o.Tok != "-"
		right, err := x.binary(o.Level + 1)
		if err != nil {
			return nil, err
		}
		left = x.combine(o, left, right)
	}
}

// combine makes the value of a binary operator.
func (x *parser[E]) combine(o Op, a, b Eval[E]) Eval[E] {
	if (o.Tok == "&&" || o.Tok == "||") && !x.sx.Eager {
		or := o.Tok == "||"
		return func(env E) (uint32, error) {
			l, err := a(env)
			if err != nil || (l != 0) == or {
				return truth(l != 0), err
			}
			r, err := b(env)
			return truth(r != 0), err
		}
	}
	f := o.f
	if x.sx.Signed && o.signed != nil {
		f = o.signed
	}
	return func(env E) (uint32, error) {
		l, err := a(env)
		if err != nil {
			return 0, err
		}
		r, err := b(env)
		if err != nil {
			return 0, err
		}
		return f(l, r)
	}
}

// nest enters a ( [ or prefix operator.
func (x *parser[E]) nest() error {
	if x.depth++; x.depth > x.sx.MaxDepth {
		return x.errorf("nested more than %d deep", x.sx.MaxDepth)
	}
	return nil
}

func (x *parser[E]) unary() (Eval[E], error) {
	if x.tok == "" {
		return nil, x.errorf("it ends with an operator")
	}
	if !x.name && len(x.tok) == 2 && strings.Contains(x.sx.Unary, x.tok[:1]) {
		x.tok, x.i = x.tok[:1], x.at+1 // "!=" here is ! then =
	}
	if f, ok := unaryOps[x.tok]; ok && !x.name && strings.Contains(x.sx.Unary, x.tok) {
		x.value = x.value || x.tok == "!" || x.tok == "~"
		x.next()
		if err := x.nest(); err != nil {
			return nil, err
		}
		v, err := x.unary()
		x.depth--
		if err != nil {
			return nil, err
		}
		return func(env E) (uint32, error) {
			r, err := v(env)
			return f(r), err
		}, nil
	}
	return x.primary()
}

// group parses EXPR closer after an opening ( or [ (or a function's
// first argument, when closer is ","); missing is the error when closer
// does not follow.
func (x *parser[E]) group(closer, missing string) (Eval[E], error) {
	x.next()
	if err := x.nest(); err != nil {
		return nil, err
	}
	v, err := x.binary(0)
	x.depth--
	if err != nil {
		return nil, err
	}
	if x.tok != closer || x.name {
		return nil, x.errorf("%s", missing)
	}
	return v, nil
}

func (x *parser[E]) primary() (Eval[E], error) {
	switch {
	case x.tok == "(" && !x.name:
		v, err := x.group(")", `missing ")"`)
		if err != nil {
			return nil, err
		}
		x.next()
		return v, nil
	case x.tok == "[" && !x.name && x.sx.Word != nil:
		v, err := x.group("]", `missing "]"`)
		if err != nil {
			return nil, err
		}
		x.next()
		x.value = true
		word := x.sx.Word
		return func(env E) (uint32, error) {
			a, err := v(env)
			if err != nil {
				return 0, err
			}
			return word(env, a)
		}, nil
	case !x.name || len(x.tok) == 1 && strings.IndexByte(x.sx.Prefixes, x.tok[0]) >= 0:
		return nil, x.errorf("unexpected %q", x.rest())
	}
	tok := x.tok
	x.next()
	if f, ok := x.sx.Funcs[tok]; ok && x.tok == "(" && !x.name {
		return x.call(tok, f)
	}
	return x.sx.Term(tok)
}

// call parses a function's arguments "(a, b)".
func (x *parser[E]) call(name string, f func(a, b uint32) uint32) (Eval[E], error) {
	x.value = true
	a, err := x.group(",", name+" needs two arguments")
	if err != nil {
		return nil, err
	}
	b, err := x.group(")", `missing ")"`)
	if err != nil {
		return nil, err
	}
	x.next()
	return func(env E) (uint32, error) {
		l, err := a(env)
		if err != nil {
			return 0, err
		}
		r, err := b(env)
		return f(l, r), err
	}, nil
}
