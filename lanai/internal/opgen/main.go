// Command opgen writes the core's run loop and instruction tables
// (lanai/exec_gen.go) and the threaded loop's generated handlers
// (lanai/run_gen_amd64.s) from the semantics of the ALU operations
// (lanai/semantics.go) and the templates (exec.tmpl, asm.tmpl): each
// operation is said once, and its fast cases, its general dispatcher, the
// predecoder's tables and its assembly handlers follow from it. Run it
// with go generate in lanai.
package main

import (
	"bytes"
	_ "embed"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"strconv"
	"strings"
	"text/template"
)

//go:embed exec.tmpl
var execTemplate string

//go:embed asm.tmpl
var asmTemplate string

// aluOp is a row of semantics.go's aluSemantics.
type aluOp struct {
	Op       string // the isa.ALU constant, e.g. "Add"
	Value    string // Go expression of x, y and cin: the result
	Flags    string // Go expression of x, y, cin and r: the flags
	ReadsC   bool
	RRKeepsC bool
	Asm      string // x86 instruction of the threaded handlers, or ""
	AsmFlags string // macro setting the flags after it, or ""
	Shift    bool   // a shift by a signed amount (Asm shifts right)
}

// UsesCarry reports whether the value or the flags read cin.
func (a aluOp) UsesCarry() bool {
	return strings.Contains(a.Value, "cin") || strings.Contains(a.Flags, "cin")
}

// ValueUsesCarry reports whether the value reads cin.
func (a aluOp) ValueUsesCarry() bool { return strings.Contains(a.Value, "cin") }

// form is one of the instruction forms an ALU operation has a fast case in.
type form struct {
	Suffix string // appended to the op name
	Reg    bool   // second operand R[rs2] (RR), else u.imm (RI)
	Flags  bool   // sets the flags (.f)
	Cond   bool   // conditional (RR with a condition other than t)
}

var forms = []form{
	{"RI", false, false, false},
	{"RIF", false, true, false},
	{"RR", true, false, false},
	{"RRF", true, true, false},
	{"RRC", true, false, true},
	{"RRCF", true, true, true},
}

// memOp is a load or store with a fast case.
type memOp struct {
	Name   string
	Store  bool
	Size   int    // bytes
	Signed bool   // a sign-extending part-word load
	Reg    bool   // the offset is R[rs2] (RRM with add), else u.imm
	Mode   string // "" (offset, or base with a zero offset), "Pre" or "Post"
}

// Update reports whether the op writes its base register back.
func (m memOp) Update() bool { return m.Mode != "" }

// sizeKinds are the access kinds, in the order of the predecoder's table.
var sizeKinds = []struct {
	name   string
	size   int
	signed bool
}{{"W", 4, false}, {"H", 2, true}, {"HU", 2, false}, {"B", 1, true}, {"BU", 1, false}}

// modes are the addressing modes in isa.Mode order (base, post, offset, pre).
var modes = []string{"", "Post", "", "Pre"}

func memOps() (loads, loadsUpdate, stores []memOp) {
	for _, mode := range []string{"", "Pre", "Post"} {
		for _, reg := range []bool{false, true} {
			addr := "I"
			if reg {
				addr = "R"
			}
			for _, k := range sizeKinds {
				if !hotMem(k.size, reg, mode) {
					continue
				}
				m := memOp{Name: "opLd" + k.name + addr + mode, Size: k.size, Signed: k.signed, Reg: reg, Mode: mode}
				if mode == "" {
					loads = append(loads, m)
				} else {
					loadsUpdate = append(loadsUpdate, m)
				}
				if k.signed || k.size == 4 {
					stores = append(stores, memOp{Name: "opSt" + strings.TrimSuffix(k.name, "U") + addr + mode, Store: true, Size: k.size, Reg: reg, Mode: mode})
				}
			}
		}
	}
	return
}

// hotMem says which loads and stores have a fast case: every size with an
// offset (immediate or register), and word pushes and pops (pre- and
// post-increment with an immediate). The others take the general handler,
// opMem: more cases would make the run loop too big for the compiler to
// inline into it (a function over 5,000 nodes only inlines the smallest
// callees).
func hotMem(size int, reg bool, mode string) bool {
	return mode == "" || size == 4 && !reg
}

// memTable is the predecoder's table: [store][size kind][reg][mode] op name
// (opMem for the forms without a fast case).
func memTable() [2][5][2][4]string {
	var t [2][5][2][4]string
	for s := 0; s < 2; s++ {
		for k, sk := range sizeKinds {
			for r := 0; r < 2; r++ {
				addr := "I"
				if r == 1 {
					addr = "R"
				}
				for m, mode := range modes {
					switch {
					case !hotMem(sk.size, r == 1, mode):
						t[s][k][r][m] = "opMem"
					case s == 0:
						t[s][k][r][m] = "opLd" + sk.name + addr + mode
					default:
						t[s][k][r][m] = "opSt" + strings.TrimSuffix(sk.name, "U") + addr + mode
					}
				}
			}
		}
	}
	return t
}

// aluCase is an ALU operation in one form.
type aluCase struct {
	A   aluOp
	F   form
	Hot bool // the run loop has the case (the others call execALU)
}

// hotFlags and hotCond are the operations whose .f forms and conditional
// RR forms have their case in the run loop (compilers use them for
// compares, bit tests and conditional adds); the rest are rare enough to
// pay a call.
var (
	hotFlags = map[string]bool{"Add": true, "Sub": true, "And": true, "Or": true, "Xor": true}
	hotCond  = map[string]bool{"Add": true, "Sub": true, "And": true, "Or": true}
)

func aluCases(ops []aluOp) []aluCase {
	var cs []aluCase
	for _, a := range ops {
		for _, f := range forms {
			hot := !f.Flags && !f.Cond || f.Flags && !f.Cond && hotFlags[a.Op] || f.Cond && !f.Flags && hotCond[a.Op]
			cs = append(cs, aluCase{a, f, hot})
		}
	}
	return cs
}

// parseSemantics reads the rows of aluSemantics in semantics.go.
func parseSemantics(path string) ([]aluOp, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	var ops []aluOp
	var bad error
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "aluSemantics" || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			bad = fmt.Errorf("%s: aluSemantics is not a composite literal", path)
			return false
		}
		for _, e := range lit.Elts {
			row, ok := e.(*ast.CompositeLit)
			if !ok {
				bad = fmt.Errorf("%s: a row of aluSemantics is not a composite literal", fset.Position(e.Pos()))
				return false
			}
			var op aluOp
			for _, kv := range row.Elts {
				kv, ok := kv.(*ast.KeyValueExpr)
				if !ok {
					bad = fmt.Errorf("%s: write the rows of aluSemantics with field names", fset.Position(row.Pos()))
					return false
				}
				key := kv.Key.(*ast.Ident).Name
				switch v := kv.Value.(type) {
				case *ast.BasicLit:
					str, err := strconv.Unquote(v.Value)
					if err != nil {
						bad = err
						return false
					}
					switch key {
					case "Op":
						op.Op = str
					case "Value":
						op.Value = str
					case "Flags":
						op.Flags = str
					case "Asm":
						op.Asm = str
					case "AsmFlags":
						op.AsmFlags = str
					}
				case *ast.Ident:
					switch key {
					case "ReadsC":
						op.ReadsC = v.Name == "true"
					case "RRKeepsC":
						op.RRKeepsC = v.Name == "true"
					case "Shift":
						op.Shift = v.Name == "true"
					}
				}
			}
			if op.Op == "" || op.Value == "" || op.Flags == "" {
				bad = fmt.Errorf("%s: a row of aluSemantics needs Op, Value and Flags", fset.Position(row.Pos()))
				return false
			}
			ops = append(ops, op)
		}
		return false
	})
	if bad != nil {
		return nil, bad
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s: no aluSemantics rows", path)
	}
	return ops, nil
}

// handler is a generated op's handler in the threaded loop: the macro of
// run_amd64.h that writes it, and the op it is for.
type handler struct {
	Op    string // the op constant, e.g. "opAddRI"
	Name  string // the handler's symbol, e.g. "·tAddRI<>"
	Macro string // the macro call that writes it
}

// threadedHandlers lists the handlers of the generated ops the threaded
// loop runs: every ALU form of an operation with an Asm instruction but the
// conditional .f forms (and a shift's .f and conditional forms, and the .f
// forms without AsmFlags), and every fast load and store.
func threadedHandlers(cases []aluCase, loads, loadsUpdate, stores []memOp) ([]handler, error) {
	var hs []handler
	add := func(op, format string, args ...any) {
		name := "·t" + strings.TrimPrefix(op, "op") + "<>"
		hs = append(hs, handler{op, name, fmt.Sprintf(format, append([]any{name}, args...)...)})
	}
	for _, c := range cases {
		a, f := c.A, c.F
		op := "op" + a.Op + f.Suffix
		y := map[bool]string{false: "YIMM", true: "YRR"}[f.Reg]
		switch {
		case a.Asm == "" || f.Cond && f.Flags || f.Flags && a.AsmFlags == "":
		case a.Shift:
			if !f.Flags && !f.Cond {
				add(op, "SHIFT(%s, %s, %s)", y, a.Asm)
			}
		case f.Cond:
			add(op, "ALURRC(%s, %s)", a.Asm)
		case f.Flags:
			flags := a.AsmFlags
			if f.Reg && a.RRKeepsC {
				if flags != "LOGICF" {
					return nil, fmt.Errorf("%s keeps C in its RR form, but its AsmFlags is %s, not LOGICF", a.Op, flags)
				}
				flags = "LOGICKEEPCF"
			}
			add(op, "ALU"+f.Suffix+"(%s, %s, %s)", a.Asm, flags)
		default:
			add(op, "ALU"+f.Suffix+"(%s, %s)", a.Asm)
		}
	}
	access := map[int]string{4: "W", 2: "H", 1: "B"}
	for _, m := range append(append(append([]memOp(nil), loads...), loadsUpdate...), stores...) {
		kind := access[m.Size]
		if !m.Store && m.Size < 4 && !m.Signed {
			kind += "U"
		}
		addr := map[bool]string{false: "AI", true: "AR"}[m.Reg]
		switch {
		case m.Update() && (m.Size != 4 || m.Reg):
			return nil, fmt.Errorf("%s: the threaded loop updates the base of word accesses with an immediate offset only", m.Name)
		case m.Update():
			addr, base := "AI", "NEWPRE"
			if m.Mode == "Post" {
				addr, base = "XOP", "NEWPOST"
			}
			if m.Store {
				add(m.Name, "STOREUPDATE(%s, %s, %s)", addr, base)
			} else {
				add(m.Name, "LOADUPDATE(%s, %s, %s)", addr, base)
			}
		case m.Store:
			add(m.Name, "STORE(%s, %s, %d, ST%s, %d)", addr, m.Size-1, kind, m.Size)
		default:
			add(m.Name, "LOAD(%s, %s, %d, LD%s)", addr, m.Size-1, kind)
		}
	}
	return hs, nil
}

// generate renders the templates: the Go run loop and the generated
// handlers of the threaded one.
func generate(semantics string) (goSrc, asmSrc []byte, err error) {
	ops, err := parseSemantics(semantics)
	if err != nil {
		return nil, nil, err
	}
	loads, loadsUpdate, stores := memOps()
	data := map[string]any{
		"ALU":         ops,
		"Cases":       aluCases(ops),
		"Forms":       forms,
		"Loads":       loads,
		"LoadsUpdate": loadsUpdate,
		"Stores":      stores,
		"MemTable":    memTable(),
	}
	tmpl, err := template.New("exec").Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
		"only": func(hot bool, cases []aluCase) any {
			var out []aluCase
			for _, c := range cases {
				if c.Hot || !hot {
					out = append(out, c)
				}
			}
			return struct {
				Hot   bool // the cases of exec, which calls nothing
				Cases []aluCase
			}{hot, out}
		},
	}).Parse(execTemplate)
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		return nil, nil, err
	}
	goSrc, err = format.Source(b.Bytes())
	if err != nil {
		return b.Bytes(), nil, fmt.Errorf("generated code does not parse: %v", err)
	}
	hs, err := threadedHandlers(aluCases(ops), loads, loadsUpdate, stores)
	if err != nil {
		return nil, nil, err
	}
	atmpl, err := template.New("asm").Parse(asmTemplate)
	if err != nil {
		return nil, nil, err
	}
	var a bytes.Buffer
	if err := atmpl.Execute(&a, hs); err != nil {
		return nil, nil, err
	}
	return goSrc, a.Bytes(), nil
}

func main() {
	semantics := flag.String("semantics", "semantics.go", "the file holding aluSemantics")
	out := flag.String("o", "exec_gen.go", "output file of the Go run loop")
	asmOut := flag.String("asm", "run_gen_amd64.s", "output file of the threaded loop's generated handlers")
	flag.Parse()
	src, asmSrc, err := generate(*semantics)
	if err != nil {
		if src != nil {
			os.WriteFile(*out, src, 0o644)
		}
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*asmOut, asmSrc, 0o644); err != nil {
		log.Fatal(err)
	}
}
