package abi

import (
	"encoding/binary"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/asm"
	"lanaiemu/objfile"
)

// sourceConsts returns the exported constants declared in abi.go, in order,
// with their doc comments on one line.
func sourceConsts(t *testing.T) (names []string, docs map[string]string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "abi.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	docs = map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for _, n := range vs.Names {
				if !n.IsExported() {
					continue
				}
				names = append(names, n.Name)
				if vs.Doc != nil {
					docs[n.Name] = strings.Join(strings.Fields(vs.Doc.Text()), " ")
				}
			}
		}
	}
	return names, docs
}

// tableIdents returns the identifiers used as Value in table.go's Table.
func tableIdents(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "table.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "Table" {
			return true
		}
		for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
			el := e.(*ast.CompositeLit).Elts
			id, ok := el[1].(*ast.Ident)
			if !ok {
				t.Errorf("Table entry %v: value is not a constant name", el[0])
				continue
			}
			ids = append(ids, id.Name)
		}
		return false
	})
	return ids
}

// TestTableMatchesSource: every exported constant of abi.go is in Table,
// once, in declaration order, with its doc comment; nothing else is.
func TestTableMatchesSource(t *testing.T) {
	names, docs := sourceConsts(t)
	ids := tableIdents(t)
	if len(ids) != len(Table) {
		t.Fatalf("parsed %d Table entries, Table has %d", len(ids), len(Table))
	}
	if strings.Join(names, " ") != strings.Join(ids, " ") {
		have := map[string]bool{}
		for _, id := range ids {
			have[id] = true
		}
		decl := map[string]bool{}
		for _, n := range names {
			decl[n] = true
			if !have[n] {
				t.Errorf("constant %s is not in Table (add it to table.go)", n)
			}
		}
		for _, id := range ids {
			if !decl[id] {
				t.Errorf("Table entry %s is not an exported constant of abi.go", id)
			}
		}
		t.Fatalf("Table must list abi.go's exported constants once each, in declaration order")
	}
	asmName := regexp.MustCompile(`^NVM_[A-Z][A-Z0-9_]*$`)
	seen := map[string]bool{}
	for i, c := range Table {
		if !asmName.MatchString(c.Name) || seen[c.Name] {
			t.Errorf("Table[%d]: bad or duplicate assembler name %q", i, c.Name)
		}
		seen[c.Name] = true
		if d := docs[ids[i]]; d == "" || d != c.Doc {
			t.Errorf("%s: Table doc %q differs from the doc comment %q", ids[i], c.Doc, d)
		}
	}
}

// TestIncludeUpToDate: the committed abi.inc is Include().
func TestIncludeUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", IncludePath)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate it: go run ./netvm/abi/gen)", err)
	}
	if d := cmp.Diff(string(Include()), string(got)); d != "" {
		t.Fatalf("%s is out of date with package netvm/abi (-generated +committed):\n%s\nregenerate it from the module root with: go run ./netvm/abi/gen", IncludePath, d)
	}
}

// TestIncludeAssembles assembles abi.inc with package asm, checks every .set
// through the object's absolute symbols, and a few values through .long data.
func TestIncludeAssembles(t *testing.T) {
	dir := filepath.Join("..", "..", filepath.Dir(IncludePath))
	src := ".include \"abi.inc\"\n.data\n" +
		".long NVM_SPT_BASE + 5 * NVM_SPT_ENTRY_SIZE\n" +
		".long NVM_EP_RING_BASE + 3 * NVM_EP_RING_STRIDE + NVM_CMD_OP\n" +
		".long NVM_HDR_SIZE\n.long NVM_WINDOW\n.long NVM_MAGIC\n"
	res, err := asm.Assemble([]asm.Source{{Name: filepath.Join(dir, "check.s"), Text: []byte(src)}},
		asm.Options{IncludeDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	syms := map[string]*objfile.Symbol{}
	for _, s := range res.Object.Symbols {
		syms[s.Name] = s
	}
	for _, c := range Table {
		s := syms[c.Name]
		switch {
		case s == nil:
			t.Errorf("%s: no symbol in the assembled object", c.Name)
		case s.Shndx != objfile.SHN_ABS || s.Value != c.Value:
			t.Errorf("%s: symbol value %#x (shndx %d), want absolute %#x", c.Name, s.Value, s.Shndx, c.Value)
		}
	}
	var data []byte
	for _, s := range res.Object.Sections {
		if s.Name == ".data" {
			data = s.Data
		}
	}
	want := []uint32{SPTBase + 5*SPTEntrySize, EPRingBase + 3*EPRingStride + CmdOp, HdrSize, Window, Magic}
	if len(data) != 4*len(want) {
		t.Fatalf(".data is %d bytes, want %d", len(data), 4*len(want))
	}
	for i, w := range want {
		if g := binary.BigEndian.Uint32(data[4*i:]); g != w {
			t.Errorf(".long %d = %#x, want %#x", i, g, w)
		}
	}
}

// TestLayout checks that the SRAM regions are ordered, disjoint, aligned and
// large enough for the counts they hold, and that the structures fit.
func TestLayout(t *testing.T) {
	type region struct {
		name       string
		base, size uint32
		align      uint32
	}
	regs := []region{
		{"firmware+stack", FWBase, FWStackTop - FWBase, 8},
		{"globals", GlobBase, GlobSize, 8},
		{"kernel ring", KRingBase, KRingSlots * CmdSize, PageSize},
		{"DMA descriptors", DMADescBase, DMADescSize, 8},
		{"endpoint rings", EPRingBase, MaxEndpoints * EPRingStride, PageSize},
		{"endpoint state", EPStateBase, MaxEndpoints * EPStateSize, 8},
		{"exports", ExportBase, MaxExports * ExpSize, 8},
		{"imports", ImportBase, MaxImports * ImpSize, 8},
		{"routes", RouteBase, MaxNodes * RouteSize, 8},
		{"peers", PeerBase, MaxNodes * PeerSize, 8},
		{"counters", CtrBase, MaxEndpoints * MaxCounters * CtrSize, 8},
		{"deferred", DeferBase, MaxNodes * DeferMax * DeferSize, 8},
		{"slot table", SlotTabBase, MaxNodes * MaxCredits * SlotSize, 8},
		{"SPT", SPTBase, SPTEntries * SPTEntrySize, 8},
		{"send buffers", SendBufBase, SendBufs * BufStride, 8},
		{"control buffers", CtrlBufBase, 0x1000, 8},
		{"receive area", RecvBase, RecvSize, 8},
		{"free", FreeBase, FreeEnd - FreeBase, 8},
		{"reserved (doorbell counters)", FreeEnd, SRAMSize - FreeEnd, PageSize},
	}
	end := uint32(0)
	for _, r := range regs {
		if r.base < end {
			t.Errorf("%s at %#x overlaps the previous region (ends %#x)", r.name, r.base, end)
		}
		if r.base%r.align != 0 {
			t.Errorf("%s at %#x not aligned to %#x", r.name, r.base, r.align)
		}
		end = r.base + r.size
	}
	if end != SRAMSize {
		t.Errorf("layout ends at %#x, SRAM is %#x", end, SRAMSize)
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"a ring is one page", RingSlots*CmdSize == EPRingStride},
		{"CmdOp is the last byte of a slot", CmdOp == CmdSize-1 && CmdFlags < CmdOp},
		{"page fields fit", PageComp+RingSlots*CompSize <= PageCtr && PageCtr+MaxCounters*8 <= PageErr && PageErr+12 <= PageSize},
		{"header fields fit", HdrAux+4 == HdrSize},
		{"send buffer fits", BufPayload == BufHdr+HdrSize && BufPayload+MTU+TrailerSize <= BufStride && MaxRoute+1 <= BufHdr},
		{"receive area holds 31 full packets", RecvSize >= 31*((HdrSize+MTU+TrailerSize+7)&^7)},
		{"credits fit the window", MaxCredits <= Window && DefaultCredits <= MaxCredits},
		{"window bitmap is one word", Window <= 32},
		{"deferred queue covers the window", DeferMax >= Window},
		{"SPT size", 1<<SPTHashBits == SPTEntries},
		{"MTU is a page", MTU == PageSize && 1<<PageShift == PageSize},
		{"event record", EvSeq+4 == EvqSize},
		{"REDIR_DONE slots fit", KRedirSlots+2*KRedirMax <= CmdFlags},
		{"slot numbers fit u16", MaxNodes*MaxCredits <= 0xFFFF},
		{"export keys index the table", ExpKeyIndexMask+1 == MaxExports},
		{"counter page", PageCtr+8*MaxCounters <= PageSize},
		{"host flags fit their byte", (SPTV | SPTW | SPTP | SPTR) <= 0xFF},
		{"ASIDs", MaxASID < ASIDDead && ASIDDead == SPTTagDead && SPTASIDMask == ASIDDead},
		{"packet type has MSB 0", PktType < 0x8000},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("layout check failed: %s", c.name)
		}
	}
}
