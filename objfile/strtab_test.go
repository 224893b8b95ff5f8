package objfile

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The string table llvm-mc-14 writes for an object with sections .text
// and .llvm_addrsig and symbols f, g and undefd (asm/testdata/mcobj/
// addrsig.s without its .comment): last characters greatest first, "g"
// inside ".llvm_addrsig".
func TestTailMergedStrtabAsLLVM(t *testing.T) {
	tab := tailMergedStrtab([]string{".strtab", ".text", ".llvm_addrsig", ".symtab", "f", "", "undefd", "g", "f"})
	require.Equal(t, "\x00.text\x00.llvm_addrsig\x00f\x00undefd\x00.strtab\x00.symtab\x00", string(tab.buf))
	for s, off := range map[string]uint32{"": 0, ".text": 1, ".llvm_addrsig": 7, "g": 19, "f": 21, ".strtab": 30, ".symtab": 38} {
		require.Equal(t, off, tab.offset(s), "offset of %q", s)
	}
}

// A suffix shares the bytes of the longer string; names that only share a
// prefix do not.
func TestTailMergedStrtabSuffixes(t *testing.T) {
	tab := tailMergedStrtab([]string{".text", ".rela.text", "text", ".data", ".data.rel"})
	require.Equal(t, "\x00.rela.text\x00.data.rel\x00.data\x00", string(tab.buf))
	require.Equal(t, uint32(1), tab.offset(".rela.text"))
	require.Equal(t, uint32(6), tab.offset(".text"))
	require.Equal(t, uint32(7), tab.offset("text"))
	require.Equal(t, uint32(12), tab.offset(".data.rel"))
}

// Executables keep each name once, in the order given.
func TestAppendedStrtab(t *testing.T) {
	tab := appendedStrtab([]string{"b", "a", "b", "", "ab"})
	require.Equal(t, "\x00b\x00a\x00ab\x00", string(tab.buf))
	require.Equal(t, uint32(5), tab.offset("ab"))
}
