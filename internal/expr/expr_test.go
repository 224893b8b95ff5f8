package expr

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// vars is a test environment: names and their values.
type vars map[string]uint32

func testSyntax(signed, eager bool) *Syntax[vars] {
	return &Syntax[vars]{
		Ops:      "|| && | ^ & == != < <= > >= << >> + - * / %",
		Unary:    "-!~",
		Signed:   signed,
		Eager:    eager,
		Prefixes: "$",
		NameChar: func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' },
		Funcs:    map[string]func(a, b uint32) uint32{"max": func(a, b uint32) uint32 { return max(a, b) }},
		Word:     func(v vars, a uint32) (uint32, error) { return a * 2, nil },
		Term: func(tok string) (Eval[vars], error) {
			if tok[0] >= '0' && tok[0] <= '9' {
				n, err := strconv.ParseUint(tok, 10, 32)
				if err != nil {
					return nil, fmt.Errorf("bad number %q", tok)
				}
				return func(vars) (uint32, error) { return uint32(n), nil }, nil
			}
			return func(v vars) (uint32, error) {
				if n, ok := v[tok]; ok {
					return n, nil
				}
				return 0, fmt.Errorf("no %s", tok)
			}, nil
		},
		MaxLen:   100,
		MaxDepth: 4,
	}
}

// Precedence and associativity are C's; signedness, eagerness and [ ]
// are the syntax's.
func TestParse(t *testing.T) {
	env := vars{"$a": 6, "$m": 0xFFFFFFFF}
	for _, c := range []struct {
		signed, eager bool
		s             string
		want          uint32
		plain         bool
	}{
		{false, false, "1 + 2 * 3", 7, false},
		{false, false, "10 - 4 - 3", 3, true},
		{false, false, "-$a + 10", 4, true},
		{false, false, "1 | 6 & 3 == 3", 1, false}, // & binds looser than ==
		{false, false, "1 << 2 + 1", 8, false},
		{false, false, "17 % 5 * 2", 4, false},
		{false, false, "$m > 0", 1, false},
		{true, false, "$m > 0", 0, false},
		{false, false, "max(2, $a) + [3]", 12, false},
		{false, false, "!0 && ~0 == $m", 1, false},
		{false, false, "0 && $unset", 0, false},
		{false, false, "1 || 1 / 0", 1, false},
	} {
		e, plain, err := testSyntax(c.signed, c.eager).Parse(c.s)
		if err != nil {
			t.Errorf("%q: %v", c.s, err)
			continue
		}
		if got, err := e(env); err != nil || got != c.want || plain != c.plain {
			t.Errorf("%q (signed %v) = %d, plain %v, %v; want %d, plain %v", c.s, c.signed, got, plain, err, c.want, c.plain)
		}
	}
	for _, s := range []string{"0 && $unset", "1 || 1 / 0"} { // eager: both sides
		e, _, _ := testSyntax(false, true).Parse(s)
		if _, err := e(env); err == nil {
			t.Errorf("%q evaluated eagerly: no error", s)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for s, want := range map[string]string{
		"1 +":       "it ends with an operator",
		"(1":        `missing ")"`,
		"[1":        `missing "]"`,
		"1 )":       `unmatched ")"`,
		"1 2":       `expected an operator before "2"`,
		"!=1":       `unexpected "=1"`,
		"$ + 1":     `unexpected "$ + 1"`,
		"+1":        `unexpected "+1"`, // + is not a prefix operator here
		"max(1)":    "max needs two arguments",
		"((((1))))": "", "(((((1)))))": "nested more than 4 deep",
		"----1":                  "",
		"-----1":                 "nested more than 4 deep",
		"1x2":                    `bad number "1x2"`,
		strings.Repeat("1", 99):  "",
		strings.Repeat("1", 101): "an expression of 101 bytes: at most 100",
	} {
		_, _, err := testSyntax(false, false).Parse(s)
		if want == "" {
			if err != nil && !strings.HasPrefix(err.Error(), "bad number") {
				t.Errorf("%q: %v", s, err)
			}
			continue
		}
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", s, err, want)
		}
	}
}

// An operator of the table that the syntax lacks is named as such, not
// taken for a missing operator (the debugger's "1 / 2" said `expected an
// operator before "/ 2"`), also inside parentheses (which said `missing
// ")"`).
func TestOperatorNotInSyntax(t *testing.T) {
	sx := testSyntax(false, false)
	sx.Ops = "+ - *"
	for _, s := range []string{"1 / 2", "(1 / 2)", "max(1 == 2, 3)"} {
		_, _, err := sx.Parse(s)
		want := `no "/" operator here (the operators: + - *)`
		if s == "max(1 == 2, 3)" {
			want = `no "==" operator here (the operators: + - *)`
		}
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", s, err, want)
		}
	}
}
