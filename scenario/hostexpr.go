package scenario

import (
	"fmt"
	"strings"

	sharedexpr "lanaiemu/internal/expr"
)

// expr is a compiled host-script expression: 32-bit unsigned arithmetic
// over numbers, the script's variables ($name) and the firmware's symbols
// (a bare name).
type expr = sharedexpr.Eval[exprEnv]

// exprEnv is what an expression reads.
type exprEnv interface {
	variable(name string) (uint32, bool)
	symbol(name string) (uint32, bool)
}

// Expression limits: bad input fails fast and in bounded memory.
const (
	maxExprLen   = 4096
	maxExprDepth = 63 // ( min( and prefix operators: 64 levels with the innermost term
)

// hostSyntax is the host scripts' expressions (parsed by internal/expr,
// shared with the debugger): C's operators with / and %, unsigned
// comparisons, && and || evaluating both sides, min and max, $variables
// and symbols; no [ ].
var hostSyntax = sharedexpr.Syntax[exprEnv]{
	Ops:      "|| && | ^ & == != < <= > >= << >> + - * / %",
	Unary:    "-!~",
	Eager:    true,
	Prefixes: "$",
	NameChar: isIdent,
	Funcs: map[string]func(a, b uint32) uint32{
		"min": func(a, b uint32) uint32 { return min(a, b) },
		"max": func(a, b uint32) uint32 { return max(a, b) },
	},
	Term:     hostTerm,
	MaxLen:   maxExprLen,
	MaxDepth: maxExprDepth,
}

// compileExpr parses s. An empty s is an error (callers check for
// optional operands first).
func compileExpr(s string) (expr, error) {
	if len(s) <= maxExprLen && strings.Trim(s, " \t") == "" {
		return nil, fmt.Errorf("empty expression")
	}
	e, _, err := hostSyntax.Parse(s)
	if err != nil && len(s) > maxExprLen {
		return nil, err // too long to quote in the message
	}
	if err != nil {
		return nil, fmt.Errorf("%q: %v", s, err)
	}
	return e, nil
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// hostTerm compiles a number, a $variable or a symbol.
func hostTerm(t string) (expr, error) {
	if t[0] >= '0' && t[0] <= '9' {
		v, err := ParseNum(t)
		if err != nil || v > 1<<32-1 {
			return nil, fmt.Errorf("bad number %q", t)
		}
		return func(exprEnv) (uint32, error) { return uint32(v), nil }, nil
	}
	if name, ok := strings.CutPrefix(t, "$"); ok {
		return func(env exprEnv) (uint32, error) {
			v, ok := env.variable(name)
			if !ok {
				return 0, fmt.Errorf("variable $%s is not set", name)
			}
			return v, nil
		}, nil
	}
	return func(env exprEnv) (uint32, error) {
		v, ok := env.symbol(t)
		if !ok {
			return 0, fmt.Errorf("no symbol %q in the firmware", t)
		}
		return v, nil
	}, nil
}
