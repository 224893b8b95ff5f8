package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"lanaiemu/asm"
	"lanaiemu/board"
	"lanaiemu/lanai"
	"lanaiemu/memsys"
	"lanaiemu/objfile"
)

// crtDir is firmware/crt, where the generated files live.
var crtDir = filepath.Join("..", "..")

// TestFilesCurrent: the committed lanai9.h and lanai9.inc are what the
// generator makes from today's Go tables. A table changed without
// go generate fails here.
func TestFilesCurrent(t *testing.T) {
	gs := groups()
	for name, want := range map[string][]byte{headerFile: header(gs), includeFile: include(gs)} {
		got, err := os.ReadFile(filepath.Join(crtDir, name))
		if err != nil {
			t.Fatalf("%v (run go generate ./firmware/crt)", err)
		}
		if d := cmp.Diff(string(want), string(got)); d != "" {
			t.Errorf("firmware/crt/%s is out of date with the Go tables (-generated +committed):\n%s\nremake it: go generate ./firmware/crt", name, d)
		}
	}
}

// value is a name's expected value in the headers and whether it names a
// register (an address) rather than a constant.
type value struct {
	v   uint32
	reg bool
}

// tableValues computes every name the headers must define straight from
// the Go tables (not through groups), with its value.
func tableValues() map[string]value {
	m := map[string]value{}
	for _, r := range memsys.SpecialRegisters {
		m[r.Name] = value{memsys.SpecialBase + r.Off, true}
	}
	for _, b := range board.ISRBits {
		m["ISR_"+b.Name] = value{b.Mask, false}
	}
	for bit, p := range board.PulseBits {
		m["PULSE_CH"+strconv.Itoa(p.Channel)] = value{1 << bit, false}
	}
	for _, f := range board.DescriptorFields {
		m["DESC_"+f.Name] = value{f.Value, false}
	}
	for _, f := range board.DescriptorFlags {
		m["DESC_"+f.Name] = value{f.Value, false}
	}
	m["DESC_SIZE"] = value{board.DescriptorSize, false}
	for ch := range board.NumChannels {
		m["DMAPTR"+strconv.Itoa(ch)] = value{board.DMAPointerBase + 4*uint32(ch), true}
	}
	for _, r := range lanai.SimCtlRegisters {
		m["SIM_"+r.Name] = value{memsys.SimCtlBase + r.Off, true}
	}
	return m
}

// TestIncludeValues assembles the committed lanai9.inc with package asm:
// it defines exactly the names of the Go tables, each with its value
// (registers r0-relative: the 32-bit address as a signed offset); and a
// register used as a load's offset from r0 reaches its address.
func TestIncludeValues(t *testing.T) {
	src := ".include \"lanai9.inc\"\n.data\n.long ISR\n.long ISR_TIME0_INT | ISR_WAKE0_INT\n.long DMAPTR2\n" +
		".text\nld ISR[%r0], %r7\n"
	res, err := asm.Assemble([]asm.Source{{Name: filepath.Join(crtDir, "check.s"), Text: []byte(src)}}, asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := tableValues()
	got := map[string]uint32{}
	for _, s := range res.Object.Symbols {
		if s.IsAbs() && s.Type != objfile.STT_FILE {
			got[s.Name] = s.Value
		}
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: not defined by lanai9.inc", name)
		} else if g != w.v {
			t.Errorf("%s = %#x, want %#x", name, g, w.v)
		}
		if w.reg && int32(w.v) < -0x8000 {
			t.Errorf("%s at %#x is out of r0-relative reach", name, w.v)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("lanai9.inc defines %s, which no Go table holds", name)
		}
	}
	sec := map[string][]byte{}
	for _, s := range res.Object.Sections {
		sec[s.Name] = s.Data
	}
	data := sec[".data"]
	for i, w := range []uint32{memsys.SpecialBase + 0x50, board.Time0IntBit | board.Wake0IntBit, board.DMAPointerBase + 8} {
		if g := binary.BigEndian.Uint32(data[4*i:]); g != w {
			t.Errorf(".long %d = %#x, want %#x", i, g, w)
		}
	}
	// ld -432[%r0], %r7: RM form, rD = 7, rS1 = 0, 16-bit offset 0xFE50.
	if g := binary.BigEndian.Uint32(sec[".text"]); g&0xFFFF != 0xFE50 || (g>>18)&31 != 0 || (g>>23)&31 != 7 {
		t.Errorf("ld ISR[%%r0], %%r7 assembled to %#08x", g)
	}
}

var cDefine = regexp.MustCompile(`(?m)^#define (LANAI9_\w+)\s+(?:LANAI9_REG\((0x[0-9A-F]+)u\)|(0x[0-9A-F]+)u)\s`)

// TestHeaderValues reads the committed lanai9.h: it defines LANAI9_ and
// each name of the Go tables, registers as LANAI9_REG(address), constants
// as unsigned literals, with the tables' values and nothing else. When
// clang-14 is installed the header also compiles for the LANai with
// -Wall -Werror -pedantic, its descriptor struct checked against the
// offsets by its _Static_asserts.
func TestHeaderValues(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(crtDir, headerFile))
	if err != nil {
		t.Fatal(err)
	}
	want := tableValues()
	seen := map[string]bool{}
	for _, m := range cDefine.FindAllStringSubmatch(string(text), -1) {
		name := strings.TrimPrefix(m[1], cPrefix)
		w, ok := want[name]
		lit, reg := m[3], false
		if m[2] != "" {
			lit, reg = m[2], true
		}
		v, err := strconv.ParseUint(lit, 0, 32)
		switch {
		case !ok:
			t.Errorf("lanai9.h defines %s, which no Go table holds", m[1])
		case err != nil || uint32(v) != w.v || reg != w.reg:
			t.Errorf("%s = %s (register %v), want %#x (register %v)", m[1], lit, reg, w.v, w.reg)
		}
		seen[name] = true
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("lanai9.h does not define %s%s", cPrefix, name)
		}
	}
	if _, err := exec.LookPath("clang-14"); err != nil {
		t.Skip("clang-14 not installed: the header's compile check is skipped")
	}
	c := filepath.Join(t.TempDir(), "check.c")
	prog := fmt.Sprintf("#include %q\nunsigned int f(void) { LANAI9_IT0 = 1; return LANAI9_ISR & LANAI9_ISR_TIME0_INT; }\n", headerFile)
	if err := os.WriteFile(c, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("clang-14", "--target=lanai", "-std=gnu11", "-ffreestanding", "-Wall", "-Wextra", "-pedantic", "-Werror",
		"-fsyntax-only", "-I", crtDir, c).CombinedOutput()
	if err != nil {
		t.Fatalf("clang-14 rejects lanai9.h: %v\n%s", err, out)
	}
}
