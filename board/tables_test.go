package board

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var headerName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// isrBitConst is one constant of board.go's ISR bit block: its name and
// its value, written 1 << n.
type isrBitConst struct {
	name string
	mask uint32
}

// isrBitConsts returns the constants declared in board.go's const block
// that holds HeadIntBit, in order.
func isrBitConsts(t *testing.T) []isrBitConst {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "board.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		var consts []isrBitConst
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			for i, n := range v.Names {
				c := isrBitConst{name: n.Name}
				if i < len(v.Values) {
					if e, ok := v.Values[i].(*ast.BinaryExpr); ok && e.Op == token.SHL {
						x, _ := e.X.(*ast.BasicLit)
						y, _ := e.Y.(*ast.BasicLit)
						if x != nil && y != nil && x.Value == "1" {
							k, _ := strconv.Atoi(y.Value)
							c.mask = 1 << k
						}
					}
				}
				consts = append(consts, c)
			}
		}
		if len(consts) > 0 && consts[0].name == "HeadIntBit" {
			return consts
		}
	}
	t.Fatal("no const block starting with HeadIntBit in board.go")
	return nil
}

// headerNameOf is the header name of an ISR bit constant: Time0IntBit is
// TIME0_INT, RxTooLongIntBit RX_TOO_LONG_INT.
func headerNameOf(constName string) string {
	var b strings.Builder
	for i, r := range strings.TrimSuffix(constName, "Bit") {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// ISRBits lists every ISR bit constant once, in bit order, with a header
// name and a doc line: entry i is the i-th constant, its mask the
// constant's 1 << n and its name the constant's (Time0IntBit: TIME0_INT).
func TestISRBitsTable(t *testing.T) {
	consts := isrBitConsts(t)
	if len(ISRBits) != len(consts) {
		t.Fatalf("ISRBits has %d entries, board.go declares %d ISR bit constants %v", len(ISRBits), len(consts), consts)
	}
	seen := map[string]bool{}
	var prev uint32
	for i, b := range ISRBits {
		if c := consts[i]; b.Mask != c.mask || b.Name != headerNameOf(c.name) {
			t.Errorf("ISRBits[%d] = %s %#x, want %s %#x (the constant %s)", i, b.Name, b.Mask, headerNameOf(c.name), c.mask, c.name)
		}
		if bits.OnesCount32(b.Mask) != 1 || (i > 0 && b.Mask <= prev) {
			t.Errorf("ISRBits[%d] %s: mask %#x is not one bit above the previous %#x", i, b.Name, b.Mask, prev)
		}
		if !headerName.MatchString(b.Name) || seen[b.Name] || b.Doc == "" {
			t.Errorf("ISRBits[%d]: bad or duplicate name %q, or no doc", i, b.Name)
		}
		seen[b.Name] = true
		prev = b.Mask
	}
}

// DescriptorFields are where ParseDescriptor reads: a descriptor with one
// field set to all ones parses to a Descriptor with exactly that field set;
// the fields tile the descriptor without overlap. The flags are the
// DMA* constants, one bit each, below the 8-byte alignment of a next
// pointer.
func TestDescriptorTables(t *testing.T) {
	want := map[string]Descriptor{
		"NEXT":  {Next: ^uint32(0)},
		"CSUM0": {Csum: [2]uint16{0xFFFF, 0}},
		"CSUM1": {Csum: [2]uint16{0, 0xFFFF}},
		"LEN":   {Len: ^uint32(0)},
		"LAR":   {LAR: ^uint32(0)},
		"EAH":   {PCI: 0xFFFFFFFF << 32},
		"EAL":   {PCI: 0xFFFFFFFF},
	}
	if len(DescriptorFields) != len(want) {
		t.Fatalf("DescriptorFields has %d entries, Descriptor has %d fields", len(DescriptorFields), len(want))
	}
	end := uint32(0)
	for _, f := range DescriptorFields {
		if f.Value != end {
			t.Errorf("%s at %d, want %d (fields in order, without gaps)", f.Name, f.Value, end)
		}
		end = f.Value + uint32(f.Size)
		p := make([]byte, DescriptorSize)
		for i := range f.Size {
			p[int(f.Value)+i] = 0xFF
		}
		w, ok := want[f.Name]
		if got := ParseDescriptor(p); !ok || got != w {
			t.Errorf("%s (%d bytes at %d) parses to %+v, want %+v", f.Name, f.Size, f.Value, got, w)
		}
		if got := w.Bytes(); ok && string(got) != string(p) {
			t.Errorf("%s: Bytes gives % x, want % x", f.Name, got, p)
		}
	}
	if end != DescriptorSize {
		t.Errorf("fields end at %d, DescriptorSize is %d", end, DescriptorSize)
	}
	all := uint32(0)
	for _, f := range DescriptorFlags {
		if bits.OnesCount32(f.Value) != 1 || f.Value&all != 0 || f.Size != 0 || f.Doc == "" {
			t.Errorf("flag %s: %#x", f.Name, f.Value)
		}
		all |= f.Value
	}
	if all != dmaFlags || all >= 8 {
		t.Errorf("flags %#x, want dmaFlags %#x below 8", all, dmaFlags)
	}
}

// PulseBits start distinct channels, none of them channel 3 (host only).
func TestPulseBits(t *testing.T) {
	seen := map[int]bool{}
	for i, p := range PulseBits {
		if p.Channel < 0 || p.Channel >= NumChannels-1 || seen[p.Channel] || p.Doc == "" {
			t.Errorf("PulseBits[%d] = %+v", i, p)
		}
		seen[p.Channel] = true
	}
}
