package disasm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/asm/link"
	"lanaiemu/objfile"
)

// liveFlagSets are the option sets the live test compares.
var liveFlagSets = flagSets[:1:1]

func init() {
	for _, fs := range flagSets {
		switch fs.tag {
		case "t", "h", "s":
			liveFlagSets = append(liveFlagSets, fs)
		}
	}
}

// llvmObjdump runs llvm-objdump-14 with flags on path.
func llvmObjdump(t *testing.T, path string, flags []string) string {
	t.Helper()
	out, err := exec.Command("llvm-objdump-14", append(flags, path)...).Output()
	if err != nil {
		t.Fatalf("llvm-objdump-14 %v %s: %v", flags, path, err)
	}
	return string(out)
}

// TestLiveLLVM runs llvm-objdump-14 and Dump on every object of the C
// corpus (fixtures/c/obj) and of objfile/testdata with -d -r, -t, -h and
// -s and requires the same output up to white space; likewise for
// executables linked from the -O1 and -O2 corpus objects. It also compares
// the disassembly and symbol table of the COFF test file with
// llvm-objdump's for the same image converted to ELF by objfile.
func TestLiveLLVM(t *testing.T) {
	if _, err := exec.LookPath("llvm-objdump-14"); err != nil {
		t.Skip("llvm-objdump-14 not on PATH")
	}
	var files []string
	for _, pat := range []string{"../../fixtures/c/obj/*.o", "../../objfile/testdata/*.o"} {
		m, err := filepath.Glob(pat)
		require.NoError(t, err)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no input files found")
	}
	var mu sync.Mutex
	compared, matched, exact := 0, 0, 0
	// check compares the listing of the file at path (holding data) with
	// llvm-objdump's under every flag set, and counts the comparisons.
	check := func(t *testing.T, path string, data []byte) {
		for _, fs := range liveFlagSets {
			want := llvmObjdump(t, path, fs.flags)
			got := dump(t, path, data, fs.opt)
			ok := normalize(got) == normalize(want)
			mu.Lock()
			compared++
			if ok {
				matched++
			}
			if got == want {
				exact++
			}
			mu.Unlock()
			if !ok {
				t.Errorf("%v: output differs from llvm-objdump-14's (-llvm-objdump +ours):\n%s", fs.flags, cmp.Diff(normalize(want), normalize(got)))
			}
		}
	}
	t.Run("files", func(t *testing.T) {
		for _, path := range files {
			t.Run(filepath.Base(path), func(t *testing.T) {
				t.Parallel()
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				check(t, path, data)
			})
		}
	})
	t.Logf("%d files, %d comparisons (-d -r, -t, -h, -s): %d matched up to white space, %d byte-identical", len(files), compared, matched, exact)

	// Executables: every -O1 and -O2 corpus object linked by package link
	// after objfile/testdata/crt0.o, with stub runtime helpers, at .text
	// address 0 or 0x400.
	crt0, err := os.ReadFile("../../objfile/testdata/crt0.o")
	require.NoError(t, err)
	exes, _ := filepath.Glob("../../fixtures/c/obj/*.O[12].o")
	compared, matched = 0, 0
	t.Run("exec", func(t *testing.T) {
		dir := t.TempDir()
		for i, path := range exes {
			t.Run(filepath.Base(path), func(t *testing.T) {
				t.Parallel()
				obj, err := os.ReadFile(path)
				require.NoError(t, err)
				var objs []*objfile.File
				for _, b := range [][]byte{crt0, obj} {
					f, err := objfile.Read(b)
					require.NoError(t, err)
					objs = append(objs, f)
				}
				objs = append(objs, stubRuntime())
				exe, err := link.Link(objs, []string{"crt0.o", path, "stubs.o"}, link.Options{TextAddr: uint32(i%2) * 0x400})
				require.NoError(t, err)
				image, err := exe.WriteELF()
				require.NoError(t, err)
				out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".o")+".elf")
				require.NoError(t, os.WriteFile(out, image, 0o644))
				check(t, out, image)
			})
		}
	})
	t.Logf("%d linked executables, %d comparisons: %d matched up to white space", len(exes), compared, matched)

	t.Run("coff", func(t *testing.T) {
		data := sampleCOFF(t)
		f, err := objfile.Read(data)
		require.NoError(t, err)
		elf, err := f.WriteELF()
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "coff.elf")
		require.NoError(t, os.WriteFile(path, elf, 0o644))
		for _, fs := range []struct {
			flags []string
			opt   Options
		}{
			{[]string{"-d"}, Options{Disassemble: true}},
			{[]string{"-t"}, Options{Syms: true}},
		} {
			want := llvmObjdump(t, path, fs.flags)
			want = strings.Replace(want, path+":\tfile format elf32-lanai", "coff:\tfile format coff-lanai", 1)
			got := dump(t, "coff", data, fs.opt)
			if d := cmp.Diff(normalize(want), normalize(got)); d != "" {
				t.Errorf("COFF %v: output differs from llvm-objdump-14's for the ELF conversion (-llvm-objdump +ours):\n%s", fs.flags, d)
			}
		}
	})
}

// stubRuntime is a relocatable object defining the runtime helpers the C
// corpus calls, each as a return sequence.
func stubRuntime() *objfile.File {
	names := []string{"__ashrdi3", "__divdi3", "__divsi3", "__moddi3", "__modsi3", "__muldi3", "__mulsi3",
		"__udivdi3", "__udivsi3", "__umoddi3", "__umodsi3", "memcpy", "memmove", "memset"}
	text := &objfile.Section{Name: ".text", Type: objfile.SHT_PROGBITS, Flags: objfile.SHF_ALLOC | objfile.SHF_EXECINSTR, Align: 4}
	f := &objfile.File{Kind: objfile.REL, Sections: []*objfile.Section{text}}
	for i, n := range names {
		text.Data = append(text.Data, words(0x8116fffc, 0x02140000, 0x8296fff8)...)
		f.Symbols = append(f.Symbols, &objfile.Symbol{Name: n, Value: uint32(12 * i), Size: 12,
			Bind: objfile.STB_GLOBAL, Type: objfile.STT_FUNC, Section: text})
	}
	text.Size = uint32(len(text.Data))
	return f
}
