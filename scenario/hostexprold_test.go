package scenario

import (
	"fmt"
	"strings"
)

// oldExpr is a compiled host-script expression: 32-bit unsigned arithmetic
// over numbers, the script's variables ($name) and the firmware's symbols
// (a bare name).
type oldExpr func(env oldExprEnv) (uint32, error)

// oldExprEnv is what an expression reads.
type oldExprEnv interface {
	variable(name string) (uint32, bool)
	symbol(name string) (uint32, bool)
}

// Binary operators by precedence level (lowest first), as in C.
var oldExprLevels = [][]string{
	{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
}

var oldExprOps = map[string]func(a, b uint32) (uint32, error){
	"||": func(a, b uint32) (uint32, error) { return b2u(a != 0 || b != 0), nil },
	"&&": func(a, b uint32) (uint32, error) { return b2u(a != 0 && b != 0), nil },
	"|":  func(a, b uint32) (uint32, error) { return a | b, nil },
	"^":  func(a, b uint32) (uint32, error) { return a ^ b, nil },
	"&":  func(a, b uint32) (uint32, error) { return a & b, nil },
	"==": func(a, b uint32) (uint32, error) { return b2u(a == b), nil },
	"!=": func(a, b uint32) (uint32, error) { return b2u(a != b), nil },
	"<=": func(a, b uint32) (uint32, error) { return b2u(a <= b), nil },
	">=": func(a, b uint32) (uint32, error) { return b2u(a >= b), nil },
	"<":  func(a, b uint32) (uint32, error) { return b2u(a < b), nil },
	">":  func(a, b uint32) (uint32, error) { return b2u(a > b), nil },
	"<<": func(a, b uint32) (uint32, error) { return a << (b & 31), nil },
	">>": func(a, b uint32) (uint32, error) { return a >> (b & 31), nil },
	"+":  func(a, b uint32) (uint32, error) { return a + b, nil },
	"-":  func(a, b uint32) (uint32, error) { return a - b, nil },
	"*":  func(a, b uint32) (uint32, error) { return a * b, nil },
	"/": func(a, b uint32) (uint32, error) {
		if b == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		return a / b, nil
	},
	"%": func(a, b uint32) (uint32, error) {
		if b == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		return a % b, nil
	},
}

// oldExprFuncs are the functions an expression may call.
var oldExprFuncs = map[string]func(a, b uint32) uint32{
	"min": func(a, b uint32) uint32 { return min(a, b) },
	"max": func(a, b uint32) uint32 { return max(a, b) },
}

// oldCompileExpr parses s. An empty s is an error (callers check for
// optional operands first).
func oldCompileExpr(s string) (oldExpr, error) {
	if len(s) > oldMaxExprLen {
		return nil, fmt.Errorf("expression of %d characters (at most %d)", len(s), oldMaxExprLen)
	}
	toks, err := oldLexExpr(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("empty expression")
	}
	p := &oldExprParser{toks: toks}
	e, err := p.binary(0)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", s, err)
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("%q: unexpected %q", s, p.toks[p.i])
	}
	return e, nil
}

func oldLexExpr(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case oldIsIdent(c) || c == '$':
			j := i + 1
			for j < len(s) && oldIsIdent(s[j]) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case strings.ContainsRune("()+-*/%^~,", rune(c)):
			toks = append(toks, s[i:i+1])
			i++
		default:
			two := ""
			if i+1 < len(s) {
				two = s[i : i+2]
			}
			switch two {
			case "||", "&&", "==", "!=", "<=", ">=", "<<", ">>":
				toks = append(toks, two)
				i += 2
				continue
			}
			if strings.ContainsRune("|&<>!", rune(c)) {
				toks = append(toks, s[i:i+1])
				i++
				continue
			}
			return nil, fmt.Errorf("%q: unexpected character %q", s, c)
		}
	}
	return toks, nil
}

func oldIsIdent(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Expression limits: bad input fails fast and in bounded memory.
const (
	oldMaxExprLen   = 4096
	oldMaxExprDepth = 64
)

type oldExprParser struct {
	toks  []string
	i     int
	depth int
}

func (p *oldExprParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *oldExprParser) binary(level int) (oldExpr, error) {
	if level == len(oldExprLevels) {
		return p.unary()
	}
	left, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		op := p.peek()
		found := false
		for _, o := range oldExprLevels[level] {
			found = found || o == op
		}
		if !found {
			return left, nil
		}
		p.i++
		right, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		f, l := oldExprOps[op], left
		left = func(env oldExprEnv) (uint32, error) {
			a, err := l(env)
			if err != nil {
				return 0, err
			}
			b, err := right(env)
			if err != nil {
				return 0, err
			}
			return f(a, b)
		}
	}
}

func (p *oldExprParser) unary() (oldExpr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > oldMaxExprDepth {
		return nil, fmt.Errorf("nested deeper than %d", oldMaxExprDepth)
	}
	switch t := p.peek(); t {
	case "-", "~", "!":
		p.i++
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return func(env oldExprEnv) (uint32, error) {
			v, err := x(env)
			switch t {
			case "-":
				v = -v
			case "~":
				v = ^v
			default:
				v = b2u(v == 0)
			}
			return v, err
		}, nil
	case "(":
		p.i++
		x, err := p.binary(0)
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("missing )")
		}
		p.i++
		return x, nil
	case "":
		return nil, fmt.Errorf("expression ends early")
	default:
		p.i++
		return p.atom(t)
	}
}

func (p *oldExprParser) atom(t string) (oldExpr, error) {
	if f, ok := oldExprFuncs[t]; ok && p.peek() == "(" {
		p.i++
		a, err := p.binary(0)
		if err != nil {
			return nil, err
		}
		if p.peek() != "," {
			return nil, fmt.Errorf("%s needs two arguments", t)
		}
		p.i++
		b, err := p.binary(0)
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("missing ) after %s", t)
		}
		p.i++
		return func(env oldExprEnv) (uint32, error) {
			x, err := a(env)
			if err != nil {
				return 0, err
			}
			y, err := b(env)
			return f(x, y), err
		}, nil
	}
	if t[0] >= '0' && t[0] <= '9' {
		v, err := ParseNum(t)
		if err != nil || v > 1<<32-1 {
			return nil, fmt.Errorf("bad number %q", t)
		}
		return func(oldExprEnv) (uint32, error) { return uint32(v), nil }, nil
	}
	if name, ok := strings.CutPrefix(t, "$"); ok {
		if name == "" {
			return nil, fmt.Errorf("$ without a variable name")
		}
		return func(env oldExprEnv) (uint32, error) {
			v, ok := env.variable(name)
			if !ok {
				return 0, fmt.Errorf("variable $%s is not set", name)
			}
			return v, nil
		}, nil
	}
	return func(env oldExprEnv) (uint32, error) {
		v, ok := env.symbol(t)
		if !ok {
			return 0, fmt.Errorf("no symbol %q in the firmware", t)
		}
		return v, nil
	}, nil
}
