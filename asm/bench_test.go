package asm

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchSource generates an assembly file of n lines in the dialect llvm-mc
// accepts, mixing what compiled code holds: labels, ALU operations with
// immediates and registers, loads and stores of every addressing form,
// branches to labels, hi/lo address pairs and data directives.
func benchSource(n int) []byte {
	forms := []string{
		"\tadd\t%%r6, 0x%x, %%r7\n",
		"\tsub.f\t%%r%d, %%r18, %%r0\n",
		"\tld\t-%d[%%fp], %%r3\n",
		"\tst\t%%r%d, [--%%sp]\n",
		"\tuld.b\t[%%r6 add %%r%d], %%r9\n",
		"\tmov\thi(.Ldata%d), %%r3\n",
		"\tor\t%%r3, lo(.Ldata%d), %%r3\n",
		"\tsh\t%%r%d, 0x4, %%r12\n",
		"\tbne\t.LBB%d\n",
		"\tsel.lt\t%%r%d, %%r7, %%rv\n",
		"\tst.h\t%%r%d, 6[%%r6]\n",
		"\tmov\t0x%x, %%r9\n",
	}
	var b []byte
	b = append(b, "\t.text\n\t.globl\tf\n\t.p2align\t2\nf:\n"...)
	labels := 0
	for i := 0; len(b) < 1<<30 && i < n-8; i++ {
		switch {
		case i%16 == 0:
			b = fmt.Appendf(b, ".LBB%d:\n", labels)
			labels++
		default:
			f := forms[i%len(forms)]
			arg := (i*7)%24 + 3
			switch i % len(forms) {
			case 0, 11:
				arg = i % 0xffff
			case 2:
				arg = 4 * (i % 100)
			case 5, 6:
				arg = i % 64
			case 8:
				arg = (i / 16) % (labels + 1)
				if arg >= labels {
					arg = labels - 1
				}
			}
			b = fmt.Appendf(b, f, arg)
		}
	}
	b = append(b, "\t.data\n"...)
	for i := 0; i < 64; i++ {
		b = fmt.Appendf(b, ".Ldata%d:\n\t.long\t%d\n", i, i)
	}
	return b
}

var benchSrcOut = flag.String("benchsrc", "", "write the 100,000-line benchmark source to this file (for scripts/bench-asm.sh)")

// TestWriteBenchSource writes the benchmark input when -benchsrc is given,
// so that a script can time llvm-mc on the very same file.
func TestWriteBenchSource(t *testing.T) {
	if *benchSrcOut == "" {
		t.Skip("no -benchsrc")
	}
	require.NoError(t, os.WriteFile(*benchSrcOut, benchSource(100000), 0o644))
}

func TestBenchSourceAssembles(t *testing.T) {
	src := benchSource(100000)
	if _, err := Assemble([]Source{{"bench.s", src}}, Options{}); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkAssemble100k assembles a generated 100,000-line file into an ELF
// object; scripts/bench-asm.sh compares it with llvm-mc on the same file.
func BenchmarkAssemble100k(b *testing.B) {
	src := benchSource(100000)
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		res, err := Assemble([]Source{{"bench.s", src}}, Options{})
		require.NoError(b, err)
		if _, err := res.Object.WriteELF(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(100000)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
