package objfile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"lanaiemu/internal/cofftest"
)

// buildArchive writes members as Myricom's lanai-ar would (package cofftest).
func buildArchive(members []ArchiveMember) []byte {
	ms := make([]cofftest.Member, len(members))
	for i, m := range members {
		ms[i] = cofftest.Member{Name: m.Name, Data: m.Data}
	}
	return cofftest.BuildArchive(ms)
}

func TestReadArchive(t *testing.T) {
	obj := buildCOFF(t, cofftest.SampleObject(0))
	in := []ArchiveMember{
		{Name: "_mulsi3.o", Data: obj},
		{Name: "odd.o", Data: []byte("abc")},
		{Name: "a_very_long_member_name.o", Data: obj[:10]},
		{Name: "empty.o", Data: []byte{}},
	}
	ar := buildArchive(in)
	if !IsArchive(ar) || IsArchive(obj) {
		t.Fatal("IsArchive")
	}
	got, err := ReadArchive(ar)
	require.NoError(t, err)
	if d := cmp.Diff(in, got, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("members (-written +read):\n%s", d)
	}
	if _, err := Read(got[0].Data); err != nil {
		t.Errorf("member 0 does not read: %v", err)
	}
}

func TestReadArchiveErrors(t *testing.T) {
	valid := buildArchive([]ArchiveMember{{Name: "a.o", Data: []byte("abcd")}})
	checkCorruptions(t, valid, ReadArchive, "ar: ", []corruption{
		{"magic", func(b []byte) []byte { b[1] = 'x'; return b }, "not an archive"},
		{"truncated header", func(b []byte) []byte { return b[:len(b)-30] }, "extends past the end"},
		{"end marker", func(b []byte) []byte { b[8+58] = 'x'; return b }, "end marker"},
		{"size", func(b []byte) []byte { copy(b[8+48:], "12x4      "); return b }, "bad size"},
		{"body", func(b []byte) []byte { copy(b[len(b)-4-60+48:], "99        "); return b }, "extends past the end"},
		{"long name", func(b []byte) []byte { copy(b[8+60+4:], "/7  "); return b }, "long name"},
	})
}

// FuzzReadArchive checks that ReadArchive never panics and that members lie
// inside the archive.
func FuzzReadArchive(f *testing.F) {
	f.Add(buildArchive([]ArchiveMember{{Name: "_mulsi3.o", Data: buildCOFF(f, cofftest.SampleObject(0))}, {Name: "a_very_long_member_name.o", Data: []byte("x")}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := ReadArchive(data)
		if err != nil {
			return
		}
		total := 0
		for _, m := range ms {
			total += len(m.Data)
		}
		if total > len(data) {
			t.Fatalf("members hold %d bytes of a %d-byte archive", total, len(data))
		}
	})
}
