package scenario

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

var hostAlphabet = []string{"1", "0x10", "7", "0", "64K", "mbox", "$a", "$b", "$x", "$", "min", "max", "min(", "max(",
	"(", ")", ",", "+", "-", "*", "/", "%", "&", "&&", "|", "||", "^", "~", "!", "==", "!=", "<", "<=", ">", ">=", "<<", ">>",
	" ", "@", "[", "]", "0xZZ", "4294967296", "=", "-1", "0x80000000", "\t"}

// TestHostExprSameAsOld: the shared parser gives the old host-script
// parser's results: what compiled compiles to the same values and errors,
// what failed fails. Only two things differ: the wording of some error
// messages, and an operator where a term belongs ("1 + *") is an error
// at once; the old parser took it for a symbol's name and failed when
// the script ran.
func TestHostExprSameAsOld(t *testing.T) {
	env := testEnv{"a": 10, "b": 3, "x": 0x80000000, "sym:mbox": 0x100, "sym:min": 5}
	r := rand.New(rand.NewSource(1))
	var inputs []string
	for _, n := range []int{62, 63, 64, 65} {
		for _, open := range []string{"(", "-", "!", "(-", "min("} {
			closer := strings.NewReplacer("min(", ",1)", "(", ")", "-", "", "!", "").Replace(open)
			inputs = append(inputs, strings.Repeat(open, n)+"1"+strings.Repeat(closer, n))
		}
	}
	for range 200000 {
		var b strings.Builder
		for range 1 + r.Intn(8) {
			b.WriteString(hostAlphabet[r.Intn(len(hostAlphabet))])
		}
		inputs = append(inputs, b.String())
	}
	msgs, runtime := 0, 0
	for _, s := range inputs {
		oe, oerr := oldCompileExpr(s)
		ne, nerr := compileExpr(s)
		switch {
		case oerr != nil && nerr == nil:
			t.Errorf("%q: old %v, new compiles", s, oerr)
		case oerr != nil:
			if oerr.Error() != nerr.Error() {
				msgs++
			}
		case nerr != nil:
			_, err := oe(env)
			m := strings.TrimPrefix(nerr.Error(), strconv.Quote(s)+`: unexpected "`)
			if err == nil || m == nerr.Error() || !strings.ContainsAny(m[:1], "-+*/%^&|<>=!)~,") {
				t.Errorf("%q: old compiles (run: %v), new: %v", s, err, nerr)
			}
			runtime++
		default:
			o, oerr := oe(env)
			n, nerr := ne(env)
			if o != n || (oerr == nil) != (nerr == nil) || oerr != nil && oerr.Error() != nerr.Error() {
				t.Errorf("%q: old %#x %v, new %#x %v", s, o, oerr, n, nerr)
			}
		}
	}
	t.Logf("%d inputs: %d other error messages, %d errors at once that were errors at run time", len(inputs), msgs, runtime)
}
