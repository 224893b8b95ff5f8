package disasm

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/internal/cofftest"
)

var update = flag.Bool("update", false, "rewrite the COFF goldens (testdata/coff.*.golden) from our output")

// flagSets are the option sets of the golden files: tag, llvm-objdump
// flags, Options.
var flagSets = []struct {
	tag   string
	flags []string
	opt   Options
}{
	{"dr", []string{"-d", "-r"}, Options{Disassemble: true, Relocs: true}},
	{"d", []string{"-d"}, Options{Disassemble: true}},
	{"t", []string{"-t"}, Options{Syms: true}},
	{"h", []string{"-h"}, Options{SectionHeaders: true}},
	{"r", []string{"-r"}, Options{Relocs: true}},
	{"s", []string{"-s"}, Options{FullContents: true}},
	{"all", []string{"-h", "-t", "-r", "-s", "-d"}, Options{SectionHeaders: true, Syms: true, Relocs: true, FullContents: true, Disassemble: true}},
}

// normalize makes outputs comparable up to white space: runs of blanks and
// tabs become one space and line ends are trimmed (blank lines stay).
func normalize(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.FieldsFunc(l, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			lines[i] = " " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

func dump(t testing.TB, name string, data []byte, opt Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Dump(&b, name, data, opt); err != nil {
		t.Fatalf("Dump %s: %v", name, err)
	}
	return b.String()
}

// TestGolden compares our output with llvm-objdump-14's, recorded by
// testdata/regen.sh, for an llvm-mc object, a clang object and an
// executable linked by lanai-ld.
func TestGolden(t *testing.T) {
	for _, name := range []string{"mc.o", "prog.o", "prog.elf"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(t, err)
		for _, fs := range flagSets {
			want, err := os.ReadFile(filepath.Join("testdata", name+"."+fs.tag+".golden"))
			require.NoError(t, err)
			got := dump(t, name, data, fs.opt)
			if d := cmp.Diff(normalize(string(want)), normalize(got)); d != "" {
				t.Errorf("%s %v: output differs from llvm-objdump-14's (-llvm-objdump +ours):\n%s", name, fs.flags, d)
			} else if got != string(want) {
				t.Logf("%s %v: output differs from llvm-objdump-14's in white space only", name, fs.flags)
			}
		}
	}
}

// TestCOFFGolden checks the output for a COFF file against goldens that
// are our own reviewed output (llvm-objdump cannot read LANai COFF; the
// live test compares its disassembly and symbols with llvm-objdump's for
// the same image as ELF). Run with -update to rewrite them.
// The second input is a relocatable object in the layout of lanai-gcc 2.95
// (package cofftest), whose relocations print as ELF objects' do.
func TestCOFFGolden(t *testing.T) {
	for _, in := range []struct {
		name string
		data []byte
	}{
		{"coff", sampleCOFF(t)},
		{"coffobj", cofftest.Build(cofftest.SampleObject(0))},
	} {
		testCOFFGolden(t, in.name, in.data)
	}
}

func testCOFFGolden(t *testing.T, name string, data []byte) {
	for _, fs := range flagSets {
		path := filepath.Join("testdata", name+"."+fs.tag+".golden")
		got := dump(t, name, data, fs.opt)
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		if d := cmp.Diff(string(want), got); d != "" {
			t.Errorf("%s %v: output differs from the golden (-golden +ours):\n%s", name, fs.flags, d)
		}
	}
}

// TestCOFFFormat spot-checks the COFF output.
func TestCOFFFormat(t *testing.T) {
	got := dump(t, "coff", sampleCOFF(t), Options{Disassemble: true, SectionHeaders: true, Syms: true})
	for _, want := range []string{
		"\ncoff:\tfile format coff-lanai\n",
		"  0 .text         0000004c 00000100 TEXT\n",
		"  2 .bss          00000040 00000214 BSS\n",
		"\n00000100 <_start>:\n",
		"\tbt\t0x120 <_main_with_a_long_name>\n",
		"\tbne\t0x108 <_start+0x8>\n",
		"\tbt\t0x204 <_local+0x4>\n",
		"ff ff ff ff  \t<unknown>\n",
		"00000018         *COM*\t00000008 _comm\n",
		"fffffe50 g       *ABS*\t00000000 _ISR\n",
		"00000118  w      .text\t00000000 _weak\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestErrors checks that malformed input gives an error and no output.
func TestErrors(t *testing.T) {
	mc, err := os.ReadFile(filepath.Join("testdata", "mc.o"))
	require.NoError(t, err)
	for name, data := range map[string][]byte{
		"empty":     nil,
		"garbage":   []byte("this is not an object file"),
		"truncated": mc[:len(mc)/2],
		"header":    mc[:60],
		"coff":      sampleCOFF(t)[:100],
	} {
		var b bytes.Buffer
		err := Dump(&b, name, data, Options{Disassemble: true, Syms: true})
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if b.Len() != 0 {
			t.Errorf("%s: printed %q before failing", name, b.String())
		}
	}
}

// TestMutations feeds truncated and corrupted versions of the test inputs
// to Dump with every option: it may fail but must not panic.
func TestMutations(t *testing.T) {
	inputs := [][]byte{sampleCOFF(t)}
	for _, name := range []string{"mc.o", "prog.o", "prog.elf"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(t, err)
		inputs = append(inputs, data)
	}
	all := Options{SectionHeaders: true, Syms: true, Relocs: true, FullContents: true, Disassemble: true}
	var b bytes.Buffer
	x := uint32(2463534242)
	rnd := func() uint32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x }
	for _, in := range inputs {
		for n := 0; n < len(in); n += 1 + len(in)/64 {
			b.Reset()
			Dump(&b, "x", in[:n], all)
		}
		for i := 0; i < 3000; i++ {
			m := bytes.Clone(in)
			for k := 0; k < 1+int(rnd()%4); k++ {
				p := int(rnd() % uint32(len(m)))
				if rnd()%2 == 0 {
					m[p] = byte(rnd())
				} else {
					m[p] ^= 1 << (rnd() % 8)
				}
			}
			b.Reset()
			Dump(&b, "x", m, all)
			b.Reset()
			Dump(&b, "x", m, Options{Disassemble: true, Relocs: true, DisassembleZeroes: true})
		}
	}
}

// FuzzDump checks that no input makes Dump panic.
func FuzzDump(f *testing.F) {
	f.Add(sampleCOFF(f))
	f.Add(cofftest.Build(cofftest.SampleObject(0)))
	for _, name := range []string{"mc.o", "prog.o", "prog.elf"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var b bytes.Buffer
		Dump(&b, "fuzz", data, Options{SectionHeaders: true, Syms: true, Relocs: true, FullContents: true, Disassemble: true})
		b.Reset()
		Dump(&b, "fuzz", data, Options{Disassemble: true, Relocs: true, DisassembleZeroes: true})
	})
}
