package flagargs

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		files []string
		out   string
		c     bool
	}{
		{[]string{"x.s"}, []string{"x.s"}, "", false},
		{[]string{"x.s", "-c", "-o", "x.o"}, []string{"x.s"}, "x.o", true},
		{[]string{"-c", "a.s", "-o", "y", "b.s"}, []string{"a.s", "b.s"}, "y", true},
		{[]string{"a.s", "--", "-c", "-o"}, []string{"a.s", "-c", "-o"}, "", false},
		{[]string{"--", "-c"}, []string{"-c"}, "", false},
		{[]string{"-o", "--", "a.s", "-c"}, []string{"a.s"}, "--", true},
		{[]string{"-c", "--", "a.s", "-o", "z"}, []string{"a.s", "-o", "z"}, "", true},
		{[]string{"a.s", "-", "-c"}, []string{"a.s", "-"}, "", true},
		// -o's value is "-o"; the "--" after it ends the flags.
		{[]string{"-o", "-o", "--", "a.s", "-c"}, []string{"a.s", "-c"}, "-o", false},
		{[]string{"a.s", "-o", "-o", "--", "-c"}, []string{"a.s", "-c"}, "-o", false},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		c := fs.Bool("c", false, "")
		out := fs.String("o", "", "")
		files, err := Parse(fs, tc.args)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if !reflect.DeepEqual(files, tc.files) || *out != tc.out || *c != tc.c {
			t.Errorf("%q: files %q -o %q -c %v, want %q %q %v", tc.args, files, *out, *c, tc.files, tc.out, tc.c)
		}
	}
}

func TestParseErrors(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("o", "", "")
	if _, err := Parse(fs, []string{"a.s", "-x"}); err == nil || err.Error() != "flag provided but not defined: -x" {
		t.Errorf("unknown flag after a file: %v", err)
	}
	if _, err := Parse(fs, []string{"a.s", "-o"}); err == nil {
		t.Error("a flag without its value after a file: no error")
	}
	if _, err := Parse(fs, []string{"a.s", "-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h after a file: %v, want flag.ErrHelp", err)
	}
}
