package asm

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestErrors checks testdata/errors.s: every line marked ERROR "re" gives an
// error matching re, and no other line gives one (the style of Go's
// cmd/asm tests: the expectation stands beside the source line).
func TestErrors(t *testing.T) {
	src, err := os.ReadFile("testdata/errors.s")
	require.NoError(t, err)
	want := map[int]*regexp.Regexp{}
	mark := regexp.MustCompile(`! ERROR "((?:[^"\\]|\\.)*)"`)
	for i, line := range strings.Split(string(src), "\n") {
		if m := mark.FindStringSubmatch(line); m != nil {
			want[i+1] = regexp.MustCompile(strings.ReplaceAll(m[1], `\"`, `"`))
		}
	}
	_, err = Assemble([]Source{{"errors.s", src}}, Options{})
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want an ErrorList, got %v", err)
	}
	got := map[int][]string{}
	for _, e := range list {
		if e.Pos.File != "errors.s" {
			t.Errorf("error in file %q: %v", e.Pos.File, e)
		}
		got[e.Pos.Line] = append(got[e.Pos.Line], e.Msg)
	}
	for line, re := range want {
		msgs := got[line]
		ok := false
		for _, m := range msgs {
			ok = ok || re.MatchString(m)
		}
		if !ok {
			t.Errorf("line %d: want an error matching %q, got %q", line, re, msgs)
		}
	}
	for line, msgs := range got {
		if want[line] == nil {
			t.Errorf("line %d: unexpected errors %q", line, msgs)
		}
	}
}

// An error prints as file:line:col, the source line and a caret.
func TestErrorFormat(t *testing.T) {
	_, err := Assemble([]Source{{"f.s", []byte("\tnop\n\tadd\t%r1, 0x12345, %r2\n")}}, Options{})
	if err == nil {
		t.Fatal("want an error")
	}
	want := "f.s:2:11: error: immediate 0x12345 cannot be encoded: it must fit in the upper or lower 16 bits\n" +
		"\tadd\t%r1, 0x12345, %r2\n" +
		"\t   \t     ^"
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
}

// The number of errors reported is capped.
func TestErrorCap(t *testing.T) {
	src := strings.Repeat("\tbogus\n", 500)
	_, err := Assemble([]Source{{"many.s", []byte(src)}}, Options{})
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v", err)
	}
	if len(list) != maxErrors+1 || !strings.Contains(list[len(list)-1].Msg, "too many errors") {
		t.Errorf("got %d errors, last %q", len(list), list[len(list)-1].Msg)
	}
}

// '!' starts a comment, so "a != b" is "a", as llvm-mc reads it: the
// bytes stay llvm-mc's, and a warning names the column (only where the
// '!' follows a statement's text with '=' after it, and in live code).
func TestNotEqualWarning(t *testing.T) {
	src := "\t.set\tA, 1\n" +
		"\t.if\tA != 1\t! meant: A is not 1\n" + // line 2: the warning
		"\t.long\t7\n" +
		"\t.endif\n" +
		"\t.if\tA <> 1\n" +
		"\t.long\t8\n" +
		"\t.endif\n" +
		"\t.long\t9\t! a comment that has != in it\n" +
		"\t.if\t0\n" +
		"\t.long\tA != 2\n" + // skipped code: no warning
		"\t.endif\n" +
		"\t.ascii\t\"x != y\"\n"
	res, err := Assemble([]Source{{"ne.s", []byte(src)}}, Options{})
	require.NoError(t, err)
	var text []byte
	for _, s := range res.Object.Sections {
		if s.Name == ".text" {
			text = s.Data
		}
	}
	if want := "\x00\x00\x00\x07\x00\x00\x00\x09x != y"; string(text) != want {
		t.Errorf(".text %q, want %q (llvm-mc's)", text, want)
	}
	want := "ne.s:2:8: warning: '!' starts a comment, so '!=' and the rest of the line are ignored (as llvm-mc ignores them); write '<>' for not-equal\n" +
		"\t.if\tA != 1\t! meant: A is not 1\n" +
		"\t   \t  ^"
	if len(res.Warnings) != 1 || res.Warnings[0].Error() != want {
		t.Errorf("warnings %v, want one:\n%s", res.Warnings, want)
	}
}

// An instruction at an offset that is not a multiple of 4 assembles where
// llvm-mc places it (internal/disasm/testdata/mc.s has one), with a
// warning: the LANai cannot fetch it.
func TestUnalignedInstructionWarns(t *testing.T) {
	res, err := Assemble([]Source{{"u.s", []byte("\t.byte 1, 2\n\tnop\n")}}, Options{})
	require.NoError(t, err)
	if text := res.Object.Section(".text").Data; string(text) != "\x01\x02\x00\x00\x00\x01" {
		t.Errorf(".text % x, want 01 02 00 00 00 01 (llvm-mc's)", text)
	}
	want := "u.s:2:2: warning: instruction at offset 0x2 of .text is not word-aligned; the LANai cannot execute it\n\tnop\n\t^"
	if len(res.Warnings) != 1 || res.Warnings[0].Error() != want {
		t.Errorf("warnings %v, want one:\n%s", res.Warnings, want)
	}
}

// TestUndefinedLocalLabels: a numeric label referenced forward with none
// following, or a .L label never defined, is an error at the reference, as
// in llvm-mc ("directional label undefined", "Undefined temporary
// symbol"); it was written as an external reference to .Ltmp0 or .Lq.
func TestUndefinedLocalLabels(t *testing.T) {
	wantOneError(t, []errorCase{
		{"\tnop\n\tbt 1f\n\tnop\n", "t.s:2:5: local label 1f is not defined: no 1: follows"},
		{"1:\tnop\n\tbt 1b\n\tbt 1f\n\tnop\n", "t.s:3:5: local label 1f is not defined: no 1: follows"},
		{"\t.data\n\t.long 0, .Lq\n", "t.s:2:11: undefined temporary symbol .Lq (.L labels are local to the file)"},
		{"\tmov hi(.Lx), %r3\n", "t.s:1:6: undefined temporary symbol .Lx (.L labels are local to the file)"},
	})
}

// TestRefusedSectionFlags: section groups and sections linked to a symbol,
// which lanai-as does not write, are refused by name (G was dropped in
// silence when no group followed).
func TestRefusedSectionFlags(t *testing.T) {
	wantOneError(t, []errorCase{
		{"\t.section .g,\"axG\",@progbits,grp,comdat\n", "t.s:1:14: section groups (flag 'G') are not supported"},
		{"\t.section .g,\"axG\",@progbits\n", "t.s:1:14: section groups (flag 'G') are not supported"},
		{"f:\t.section .o,\"axo\",@progbits,f\n", "t.s:1:16: sections linked to a symbol (flag 'o') are not supported"},
	})
}

// TestChangedSectionAttributes: a .section that gives a section it does
// not make other flags, type or entry size is refused, as llvm-mc refuses
// it (the section kept its own in silence); llvm-mc's presets count as
// made, and a name's default flags count as given.
func TestChangedSectionAttributes(t *testing.T) {
	foo := "\t.section .foo,\"a\",@progbits\n"
	wantOneError(t, []errorCase{
		{foo + "\t.section .foo,\"aw\",@progbits\n", "t.s:2:2: changed section flags for .foo, expected: 0x2"},
		{foo + "\t.section .foo,\"a\",@nobits\n", "t.s:2:2: changed section type for .foo, expected: 0x1"},
		{foo + "\t.section .foo,\"a\",@progbits,4\n", "t.s:2:2: changed section entsize for .foo, expected: 0"},
		{"\t.section .rodata.cst4,\"a\",@progbits\n", "t.s:1:2: changed section flags for .rodata.cst4, expected: 0x12"},
		{"\t.section .bss,\"aw\",@progbits\n", "t.s:1:2: changed section type for .bss, expected: 0x8"},
	})
	src := foo + "\t.section .foo\n\t.section .foo,\"a\",@progbits\n\t.section .text,\"a\",@progbits\n\t.section .rodata.cst8,\"aM\",@progbits,8\n"
	if _, err := Assemble([]Source{{"t.s", []byte(src)}}, Options{}); err != nil {
		t.Errorf("the same attributes again: %v", err)
	}
}

// errorCase is a source (file t.s) and the one error it must give,
// "file:line:col: message".
type errorCase struct{ src, want string }

// wantOneError assembles each case's source and checks its one error.
func wantOneError(t *testing.T, cases []errorCase) {
	t.Helper()
	for _, c := range cases {
		_, err := Assemble([]Source{{"t.s", []byte(c.src)}}, Options{})
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 || list[0].Pos.String()+": "+list[0].Msg != c.want {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
}
