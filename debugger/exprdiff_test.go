package debugger

import (
	"math/rand"
	"strings"
	"testing"

	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
)

// exprAlphabet are the pieces the differential check joins into
// expressions.
var exprAlphabet = []string{"1", "0x10", "7", "0", "main", "fib", "%sp", "$r3", "r6", "ISR", "$ISR", "npc", "flags", "%", "$",
	"[", "]", "(", ")", "+", "-", "*", "/", "&", "&&", "|", "||", "^", "~", "!", "==", "!=", "<", "<=", ">", ">=", "<<", ">>",
	" ", ",", "@", "0xZZ", "4294967296", "=", "min", "[0xfffffe00]", "[%sp]", "-1", "0x80000000"}

// TestExprSameAsOld: the shared parser gives the old debugger parser's
// results: the same values, kinds and error messages.
func TestExprSameAsOld(t *testing.T) {
	p := crtAnd(t, recursionS)
	c, img := lanaitest.Load(t, p.image, lanai.Config{})
	prog := NewProgram(img)
	r := rand.New(rand.NewSource(1))
	inputs := []string{"main+4", "[%sp] == 3 && r6 != 0", "!(~ISR & 0x10) || [grid+4] >> 3", "((1))*-2", "[", "1 <<= 2",
		"% 3", ">= 10", "*main", "a || b", "[0xfffffe00] | [0x40000000]", "3 == 3 < 2 | 6 & 3 != $ISR ^ 1 << 2"}
	for _, n := range []int{63, 64, 65} {
		for _, open := range []string{"(", "[", "-", "!", "(-", "~["} {
			closer := strings.NewReplacer("(", ")", "[", "]", "-", "", "!", "", "~", "").Replace(open)
			inputs = append(inputs, strings.Repeat(open, n)+"1"+strings.Repeat(closer, n))
		}
	}
	inputs = append(inputs, strings.Repeat("1+", maxExprLen/2-1)+"1", strings.Repeat("1+", maxExprLen/2)+"1")
	for range 200000 {
		var b strings.Builder
		for range 1 + r.Intn(8) {
			b.WriteString(exprAlphabet[r.Intn(len(exprAlphabet))])
		}
		inputs = append(inputs, b.String())
	}
	diffs := 0
	for _, s := range inputs {
		ov, okind, oerr := oldCompileKind(prog, s)
		nv, nkind, nerr := compileKind(prog, s)
		if (oerr == nil) != (nerr == nil) || oerr != nil && oerr.Error() != nerr.Error() {
			if diffs++; diffs < 40 {
				t.Errorf("%q: old %v, new %v", s, oerr, nerr)
			}
			continue
		}
		if oerr != nil {
			continue
		}
		o, oe := ov(c)
		n, ne := nv(c)
		if o != n || okind != nkind || (oe == nil) != (ne == nil) || oe != nil && oe.Error() != ne.Error() {
			t.Errorf("%q: old %#x %v %v, new %#x %v %v", s, o, okind, oe, n, nkind, ne)
		}
	}
	t.Logf("%d inputs, %d error differences", len(inputs), diffs)
}
