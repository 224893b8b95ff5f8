package objfile

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/internal/cofftest"
)

// corruption damages a copy of a valid input; the read must then fail
// with an error that mentions want.
type corruption struct {
	name   string
	modify func(b []byte) []byte
	want   string
}

// checkCorruptions reads each corruption of valid and checks for a clear
// error: one that starts with prefix (the format's name) and mentions
// the case's want.
func checkCorruptions[T any](t *testing.T, valid []byte, read func([]byte) (T, error), prefix string, cases []corruption) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := read(tc.modify(append([]byte{}, valid...)))
			if err == nil {
				t.Fatalf("the read succeeded: %+v", got)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q does not start with %q and mention %q", err, prefix, tc.want)
			}
		})
	}
}

// validInputs returns valid ELF and COFF files to corrupt.
func validInputs(t testing.TB) map[string][]byte {
	t.Helper()
	in := map[string][]byte{}
	for _, name := range []string{"crt0.o", "relocs.o", "prog.o"} {
		b, err := readFileTB(t, name)
		require.NoError(t, err)
		in[name] = b
	}
	for name, f := range map[string]*File{"sample-rel": sampleREL(), "sample-exec": sampleEXEC()} {
		b, err := f.WriteELF()
		require.NoError(t, err)
		in[name] = b
	}
	in["sample-coff"] = buildCOFF(t, sampleCOFF())
	in["coff-object"] = buildCOFF(t, cofftest.SampleObject(0))
	return in
}

// checkFile verifies the invariants every successfully read File must
// satisfy, then that writing it as ELF either fails cleanly or produces a
// file that reads back and rewrites to the same bytes.
func checkFile(t *testing.T, f *File) {
	t.Helper()
	if f == nil {
		t.Fatal("nil File without error")
	}
	secs := map[*Section]bool{}
	for _, s := range f.Sections {
		secs[s] = true
		if s.Type != SHT_NOBITS && int64(s.Size) != int64(len(s.Data)) {
			t.Fatalf("section %s: Size %d, len(Data) %d", s.Name, s.Size, len(s.Data))
		}
		if s.Type == SHT_NOBITS && s.Data != nil {
			t.Fatalf("NOBITS section %s has data", s.Name)
		}
		for _, r := range s.Relocs {
			if r.Type != R_LANAI_NONE && (s.Size < 4 || r.Offset > s.Size-4) {
				t.Fatalf("section %s: relocation offset %#x outside size %#x", s.Name, r.Offset, s.Size)
			}
		}
	}
	for _, s := range f.Symbols {
		if s.Section != nil && !secs[s.Section] {
			t.Fatalf("symbol %q points to a section outside the file", s.Name)
		}
	}
	out, err := f.WriteELF()
	if err != nil {
		return
	}
	g, err := ReadELF(out)
	if err != nil {
		t.Fatalf("reading our own output failed: %v", err)
	}
	out2, err := g.WriteELF()
	if err != nil {
		t.Fatalf("rewriting our own output failed: %v", err)
	}
	if !bytes.Equal(out, out2) { // checked first: cmp.Diff is slow on equal bytes, and this runs for every flip
		t.Fatalf("write(read(write(f))) differs from write(f) (-first +second):\n%s", cmp.Diff(out, out2))
	}
}

// TestTruncation reads every prefix of every valid input.
func TestTruncation(t *testing.T) {
	for name, b := range validInputs(t) {
		for n := 0; n < len(b); n++ {
			f, err := Read(b[:n])
			if err == nil {
				checkFile(t, f)
			} else if f != nil {
				t.Fatalf("%s[:%d]: File and error both returned", name, n)
			}
		}
	}
}

// TestByteFlips corrupts random bytes of every valid input.
func TestByteFlips(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	iters := 3000
	if testing.Short() {
		iters = 300
	}
	for name, b := range validInputs(t) {
		for i := 0; i < iters; i++ {
			c := append([]byte{}, b...)
			for k := rng.Intn(4); k >= 0; k-- {
				p := rng.Intn(len(c))
				switch rng.Intn(3) {
				case 0:
					c[p] = byte(rng.Intn(256))
				case 1:
					c[p] ^= 1 << rng.Intn(8)
				default:
					c[p] = []byte{0, 0xff, 0x7f, 0x80}[rng.Intn(4)]
				}
			}
			f, err := Read(c)
			if err == nil {
				checkFile(t, f)
			} else if f != nil {
				t.Fatalf("%s flip %d: File and error both returned", name, i)
			}
		}
	}
}
