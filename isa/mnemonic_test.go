package isa

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"

	"lanaiemu/internal/sweep"
)

// Every mnemonic the printer writes for a valid word is one the assembler
// can look up, with the operand count the printed text has and the fields
// the decoder found.
func TestLookupMnemonicPrinted(t *testing.T) {
	for _, w := range sweep.Words(1<<16, 3) {
		in := Decode(w)
		if !in.Valid() || w == retWord {
			continue
		}
		text := in.String()
		name, rest, _ := strings.Cut(text, "\t")
		if in.Class == RR && in.ALU == Sel {
			name, rest, _ = strings.Cut(text, " ")
		}
		nops := 0
		if rest != "" {
			nops = strings.Count(rest, ",") + 1
			if m := strings.Index(rest, "["); m >= 0 && strings.Contains(rest[m:], "add %") {
				nops -= strings.Count(rest[m:strings.Index(rest, "]")], ",")
			}
		}
		var m *Mnemonic
		for _, x := range LookupMnemonic(name) {
			if x.Operands.Count() == nops {
				m = &x
				break
			}
		}
		if m == nil {
			t.Fatalf("%08x %q: no meaning of %q with %d operands: %v", w, text, name, nops, LookupMnemonic(name))
		}
		switch m.Operands {
		case OpsALU, OpsSel:
			if m.Operands == OpsALU && in.Cond == CondF && !in.F {
				// LLVM prints condition f without flags as ".f", which
				// reads back as the flag.
				in.F, in.Cond = true, CondT
			}
			assert.Equal(t, []any{in.ALU, in.F, in.Cond}, []any{m.Inst.ALU, m.Inst.F, m.Inst.Cond}, "%08x %q", w, text)
		case OpsSpecial:
			assert.Equal(t, in.ALU, m.Inst.ALU, "%08x %q", w, text)
		case OpsLoad, OpsStore:
			assert.Equal(t, []any{in.Store, in.Size}, []any{m.Inst.Store, m.Inst.Size}, "%08x %q", w, text)
		case OpsBranch, OpsBranchRel, OpsSetCC:
			assert.Equal(t, in.Cond, m.Inst.Cond, "%08x %q", w, text)
		case OpsNone:
			got, err := Encode(m.Inst)
			assert.NoError(t, err)
			assert.Equal(t, w, got, "%q", text)
		}
	}
}

func TestLookupMnemonic(t *testing.T) {
	for name, want := range map[string][]Mnemonic{
		"nop":       {{OpsNone, Inst{Class: RI, ALU: Add, Imm: 1}}},
		"log_3":     {{OpsNone, Inst{Class: RI, ALU: Add, Imm: 5}}},
		"add.f.ugt": {{OpsALU, Inst{ALU: Add, F: true, Cond: CondUGT}}},
		"sha.f":     {{OpsALU, Inst{ALU: Sha, F: true}}},
		"or.hi":     {{OpsALU, Inst{ALU: Or, Cond: CondUGT}}},
		"sub.f.f":   {{OpsALU, Inst{ALU: Sub, F: true, Cond: CondF}}},
		"leadz":     {{OpsSpecial, Inst{Class: Special, ALU: Leadz}}},
		"mov":       {{Operands: OpsMov}},
		"sel.lt":    {{OpsSel, Inst{Class: RR, ALU: Sel, Cond: CondLT}}},
		"uld.b":     {{OpsLoad, Inst{Size: Byte, Zext: true}}},
		"st":        {{OpsStore, Inst{Store: true, Size: Word}}, {OpsSetCC, Inst{Class: SCC}}},
		"bne":       {{OpsBranch, Inst{Cond: CondNE}}},
		"bcs.r":     {{OpsBranchRel, Inst{Cond: CondUGE}}},
		"sgt":       {{OpsSetCC, Inst{Class: SCC, Cond: CondGT}}},
	} {
		if d := cmp.Diff(want, LookupMnemonic(name)); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
	for _, name := range []string{"frob", "add.", "sel", "sel.xx", "popc.f", "b", "s", "ld.w", "add.f.f.f", "log_5", "b.r"} {
		if m := LookupMnemonic(name); m != nil {
			t.Errorf("%s: %v, want unknown", name, m)
		}
	}
}
