package isa

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/internal/sweep"
)

// normText is the normalisation of fixtures/llvm: no comment, white space
// collapsed, "<unknown>" for invalid words.
func normText(w uint32) string {
	s, ok := Disassemble(w)
	if !ok {
		return "<unknown>"
	}
	if i := strings.Index(s, "!"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// lanai9Or reports the one deliberate difference from LLVM: register "or"
// and "addc" with J = 10000, which Myricom's compilers emitted and LLVM
// rejects.
func lanai9Or(w uint32) bool {
	return w>>28 == 0xC && (w>>8&7 == uint32(Or) || w>>8&7 == uint32(Addc)) && w>>3&31 == 16
}

// llvmText is what LLVM prints for a word, derived from our decoder: equal to
// normText except for the deliberate difference.
func llvmText(w uint32) string {
	if lanai9Or(w) {
		return "<unknown>"
	}
	return normText(w)
}

// Every word of LLVM's disassembler test disassembles to llvm-mc's text.
func TestLLVMDisassemblerWords(t *testing.T) {
	data, err := os.ReadFile("../fixtures/llvm/mc/dis.golden")
	if err != nil {
		t.Skip("no fixtures/llvm/mc/dis.golden")
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		hexw, want, _ := strings.Cut(line, "\t")
		w, err := strconv.ParseUint(hexw, 16, 32)
		if err != nil {
			t.Fatalf("bad line %q", line)
		}
		if want == "<invalid>" {
			want = "<unknown>"
		}
		if got := llvmText(uint32(w)); got != want {
			t.Errorf("%08x: got %q, llvm-mc prints %q", w, got, want)
		}
		n++
	}
	t.Logf("%d words agree", n)
}

// The decoder sweep: 1,048,576 words of every class (internal/sweep) agree
// with llvm-objdump on validity and text: the first 102,400 line by line,
// all of them by per-chunk SHA-256.
func TestDecoderSweep(t *testing.T) {
	gz, err := os.ReadFile("../fixtures/llvm/sweep/first100k.txt.gz")
	if err != nil {
		t.Skip("no sweep golden")
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	require.NoError(t, err)
	first, err := io.ReadAll(zr)
	require.NoError(t, err)
	want := strings.Split(strings.TrimSuffix(string(first), "\n"), "\n")
	sums, err := os.ReadFile("../fixtures/llvm/sweep/chunks.sha256")
	require.NoError(t, err)
	chunkSums := strings.Split(strings.TrimSpace(string(sums)), "\n")
	words := sweep.Words(1<<20, 1)
	if len(chunkSums) != len(words)/1024 {
		t.Fatalf("%d chunk sums for %d words", len(chunkSums), len(words))
	}
	bad, deliberate := 0, 0
	var chunk bytes.Buffer
	for i, w := range words {
		got := llvmText(w)
		if lanai9Or(w) {
			deliberate++
		}
		if i < len(want) && got != want[i] && bad < 20 {
			bad++
			t.Errorf("word %d %08x: got %q, llvm-objdump prints %q", i, w, got, want[i])
		}
		chunk.WriteString(got + "\n")
		if (i+1)%1024 == 0 {
			sum := sha256.Sum256(chunk.Bytes())
			idx := i / 1024
			if f := strings.Fields(chunkSums[idx]); len(f) != 2 || f[1] != hex.EncodeToString(sum[:]) {
				if bad < 20 {
					bad++
					t.Errorf("chunk %d (words %d..%d) differs from llvm-objdump", idx, idx*1024, i)
				}
			}
			chunk.Reset()
		}
	}
	t.Logf("%d words agree with llvm-objdump; %d are register or/addc words with J = 10000 (Myricom's) that we accept and LLVM rejects", len(words), deliberate)
}

// A live cross-check on words the goldens do not hold (another seed), when
// llvm-mc is installed.
func TestDecoderLiveLLVM(t *testing.T) {
	mc, err := exec.LookPath("llvm-mc-14")
	if err != nil {
		if mc, err = exec.LookPath("llvm-mc"); err != nil {
			t.Skip("llvm-mc not installed")
		}
	}
	n := 200000
	if testing.Short() {
		n = 20000
	}
	words := sweep.Words(n, 7)
	var in bytes.Buffer
	for _, w := range words {
		fmt.Fprintf(&in, "0x%02x 0x%02x 0x%02x 0x%02x\n", w>>24, w>>16&255, w>>8&255, w&255)
	}
	cmd := exec.Command(mc, "-triple=lanai", "-disassemble")
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("llvm-mc: %v\n%s", err, stderr.String()[:min(stderr.Len(), 2000)])
	}
	invalid := map[int]bool{}
	for _, m := range regexp.MustCompile(`<stdin>:(\d+):\d+: warning: invalid instruction encoding`).FindAllStringSubmatch(stderr.String(), -1) {
		k, _ := strconv.Atoi(m[1])
		invalid[k-1] = true
	}
	var lines []string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && l != ".text" {
			lines = append(lines, l)
		}
	}
	li, bad := 0, 0
	for i, w := range words {
		want := "<unknown>"
		if !invalid[i] {
			if li >= len(lines) {
				t.Fatalf("llvm-mc printed %d lines for %d valid words", len(lines), len(words)-len(invalid))
			}
			want = lines[li]
			if j := strings.Index(want, "!"); j >= 0 {
				want = want[:j]
			}
			want = strings.Join(strings.Fields(want), " ")
			li++
		}
		if got := llvmText(w); got != want {
			if bad++; bad < 20 {
				t.Errorf("%08x: got %q, llvm-mc prints %q", w, got, want)
			}
		}
	}
	t.Logf("%d words checked live against llvm-mc, %d invalid", len(words), len(invalid))
}
