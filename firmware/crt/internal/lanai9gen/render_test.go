package main

import (
	"bytes"
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
// as unsigned literals, with the tables' values and nothing else.
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
}

// headerUse includes lanai9.h twice and with lanai.h (before or after it,
// by %s and %s) and uses its registers, bits and descriptor struct.
const headerUse = `%s
#include "lanai9.h"
#include "lanai9.h"
%s
static struct lanai9_dma_desc ring[2];

unsigned int use(void)
{
	volatile struct lanai9_dma_desc *d = &ring[0];
	d->next = (unsigned int)&ring[1] | LANAI9_DESC_E2L | LANAI9_DESC_WAKE;
	d->len = LANAI9_DESC_SIZE;
	d->lar = 0;
	d->eah = 0;
	d->eal = 0x100;
	LANAI9_DMAPTR2 = (unsigned int)d;
	LANAI9_PULSE = LANAI9_PULSE_CH2;
	LANAI9_IT0 = 1;
	lanai_putchar('x');
	LANAI_SIMCTL_REG(LANAI_SIMCTL_BASE - 0xFFFFF000u + 4) = 'y';
	while ((d->next & LANAI9_DESC_TERMINAL) == 0)
		;
	return (LANAI9_ISR & (LANAI9_ISR_TIME0_INT | LANAI9_ISR_DEBUG)) + d->csum0;
}
`

// TestHeaderCompiles (with clang-14): lanai9.h compiles for the LANai
// without a warning under -Wall -Wextra -pedantic in C99 and C11 (plain
// and GNU), included twice and with lanai.h in either order; and its
// _Static_asserts are live: a copy with one offset off by 4 is rejected.
func TestHeaderCompiles(t *testing.T) {
	if _, err := exec.LookPath("clang-14"); err != nil {
		t.Skip("clang-14 not installed: the header's compile check is skipped")
	}
	dir := t.TempDir()
	compile := func(std, prog string, inc ...string) ([]byte, error) {
		c := filepath.Join(dir, "use.c")
		if err := os.WriteFile(c, []byte(prog), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"--target=lanai", "-std=" + std, "-O2", "-ffreestanding", "-Wall", "-Wextra", "-pedantic", "-Werror", "-S", "-o", os.DevNull}
		for _, d := range inc {
			args = append(args, "-I", d)
		}
		return exec.Command("clang-14", append(args, c)...).CombinedOutput()
	}
	for _, std := range []string{"c99", "gnu99", "c11", "gnu11"} {
		for _, order := range [][2]string{{"#include \"lanai.h\"", ""}, {"", "#include \"lanai.h\""}} {
			prog := fmt.Sprintf(headerUse, order[0], order[1])
			if out, err := compile(std, prog, crtDir); err != nil {
				t.Errorf("-std=%s, lanai.h %s lanai9.h: %v\n%s", std, map[bool]string{true: "before", false: "after"}[order[0] != ""], err, out)
			}
		}
	}
	text, err := os.ReadFile(filepath.Join(crtDir, headerFile))
	if err != nil {
		t.Fatal(err)
	}
	const good, bad = "#define LANAI9_DESC_LAR      0xCu", "#define LANAI9_DESC_LAR      0x10u"
	if !bytes.Contains(text, []byte(good)) {
		t.Fatalf("lanai9.h has no line %q to break", good)
	}
	broken := filepath.Join(dir, "broken")
	if err := os.Mkdir(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, headerFile), bytes.Replace(text, []byte(good), []byte(bad), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := compile("c99", "#include \"lanai9.h\"\n", broken)
	if err == nil || !bytes.Contains(out, []byte("static_assert failed")) || !bytes.Contains(out, []byte("lar)")) {
		t.Errorf("lanai9.h with DESC_LAR moved compiles (%v): its _Static_asserts check nothing\n%s", err, out)
	}
}

// cplantIncludeEnv names the Cplant tree's folder of vendored Myricom
// headers (Myrinet/include); they are evidence, never part of the
// repository.
const cplantIncludeEnv = "LANAI_CPLANT_INCLUDE"

var (
	myriReg    = regexp.MustCompile(`(?m)^#define\s+(\w+)\s+MM_REG_FULLWORD(?:_P)?\s*\((0x[0-9A-Fa-f]+)\)`)
	myriBit    = regexp.MustCompile(`(?m)^#define\s+(\w+?)_BIT\s+\(1<<(\d+)\)`)
	myriFlag   = regexp.MustCompile(`(?m)^#define\s+DMA_(\w+)\s+(0x[0-9A-Fa-f]+)`)
	myriStruct = regexp.MustCompile(`(?s)struct %s \{(.*?)\n\};`)
	myriField  = regexp.MustCompile(`(?m)^\s*(?:volatile\s+)?unsigned\s+(int|short)\s+(\w+)(?:\[(\d+)\])?;`)
)

// structFields lays out struct name of a Myricom header: each field's
// upper-case name (an array's elements get 0, 1, ...) and byte offset, and
// the struct's size. Fields are unsigned int or short, naturally aligned.
func structFields(t *testing.T, text []byte, name string) (map[string]uint32, uint32) {
	t.Helper()
	m := regexp.MustCompile(fmt.Sprintf(myriStruct.String(), name)).FindSubmatch(text)
	if m == nil {
		t.Fatalf("no struct %s", name)
	}
	fields, off := map[string]uint32{}, uint32(0)
	for _, f := range myriField.FindAllSubmatch(m[1], -1) {
		size := map[string]uint32{"int": 4, "short": 2}[string(f[1])]
		off = (off + size - 1) &^ (size - 1)
		n := strings.ToUpper(string(f[2]))
		if len(f[3]) == 0 {
			fields[n] = off
			off += size
			continue
		}
		count, _ := strconv.Atoi(string(f[3]))
		for i := range count {
			fields[n+strconv.Itoa(i)] = off
			off += size
		}
	}
	return fields, off
}

// TestMyricomHeaders (with LANAI_CPLANT_INCLUDE) holds the headers' LANai
// 9.2 groups to Myricom's own headers: every register of lanai9_def.h is a
// special register at the same address and every special register is in
// lanai_device.h's struct LANAI9_REG at its offset; the ISR bits are
// exactly lanai9_def.h's *_BIT names and values; the descriptor's fields,
// size and flags are struct DMA_BLOCK's and DMA_E2L, DMA_TERMINAL,
// DMA_WAKE.
func TestMyricomHeaders(t *testing.T) {
	dir := os.Getenv(cplantIncludeEnv)
	if dir == "" {
		t.Skipf("%s is not set: the headers are not checked against Myricom's lanai9_def.h", cplantIncludeEnv)
	}
	def, err := os.ReadFile(filepath.Join(dir, "lanai9_def.h"))
	if err != nil {
		t.Fatal(err)
	}
	device, err := os.ReadFile(filepath.Join(dir, "lanai_device.h"))
	if err != nil {
		t.Fatal(err)
	}
	want := tableValues()
	check := func(name string, got uint32, what string) {
		t.Helper()
		if w, ok := want[name]; !ok {
			t.Errorf("%s (%s = %#x): the headers do not define it", name, what, got)
		} else if w.v != got {
			t.Errorf("%s = %#x, %s says %#x", name, w.v, what, got)
		}
	}
	regs := myriReg.FindAllSubmatch(def, -1)
	for _, m := range regs {
		off, _ := strconv.ParseUint(string(m[2]), 0, 32)
		check(string(m[1]), memsys.SpecialBase+uint32(off), "lanai9_def.h")
	}
	l9, _ := structFields(t, device, "LANAI9_REG")
	for _, r := range memsys.SpecialRegisters {
		if off, ok := l9[r.Name]; !ok || off != r.Off {
			t.Errorf("%s at %#x: lanai_device.h's struct LANAI9_REG has it at %#x (present %v)", r.Name, r.Off, off, ok)
		}
	}
	isrDefs := def
	if i := bytes.Index(def, []byte("Bits in the IMR and ISR")); i >= 0 {
		isrDefs = def[i:]
	}
	if i := bytes.Index(isrDefs, []byte("Bits in the MYRINET register")); i >= 0 {
		isrDefs = isrDefs[:i] // the MYRINET register's bits are named *_BIT too
	}
	isr := map[string]bool{}
	for _, m := range myriBit.FindAllSubmatch(isrDefs, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		name := "ISR_" + string(m[1])
		check(name, 1<<n, "lanai9_def.h")
		isr[name] = true
	}
	for _, b := range board.ISRBits {
		if !isr["ISR_"+b.Name] {
			t.Errorf("ISR_%s: lanai9_def.h has no %s_BIT", b.Name, b.Name)
		}
	}
	flags := myriFlag.FindAllSubmatch(def, -1)
	for _, m := range flags {
		v, _ := strconv.ParseUint(string(m[2]), 0, 32)
		if string(m[1]) != "L2E" { // 0: the absence of E2L
			check("DESC_"+string(m[1]), uint32(v), "lanai9_def.h")
		}
	}
	desc, size := structFields(t, def, "DMA_BLOCK")
	for n, off := range desc {
		check("DESC_"+n, off, "struct DMA_BLOCK")
	}
	check("DESC_SIZE", size, "struct DMA_BLOCK")
	if len(desc) != len(board.DescriptorFields) || len(regs) < 20 || len(isr) != len(board.ISRBits) || len(flags) != 4 {
		t.Errorf("read %d descriptor fields, %d registers, %d ISR bits, %d flags: the headers' format changed?", len(desc), len(regs), len(isr), len(flags))
	}
}
