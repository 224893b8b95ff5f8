// Package flagargs parses a command line whose flags and file names may be
// interleaved, as llvm-mc, gcc and ld accept them ("x.s -c -o x.o"). The
// standard flag package stops at the first argument that is not a flag;
// Parse parses, takes that argument as a file and parses on. "--" ends the
// flags: every argument after it is a file, even one that starts with "-".
package flagargs

import "flag"

// Parse parses fs's flags from args, which may come before, between or
// after the positional arguments, and returns the positional arguments in
// their order. Its error is fs.Parse's (flag.ErrHelp after -h), which fs
// has reported to its output.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if endedByDashes(fs, args, len(args)-len(rest)) {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// endedByDashes reports whether fs.Parse stopped at args[n] because
// args[n-1] was the "--" that ends the flags, not the value of a flag
// ("-o --"). args[:n] are flags and their values, so walking them flag by
// flag tells which: "--" ends the flags where a flag would stand.
func endedByDashes(fs *flag.FlagSet, args []string, n int) bool {
	if n == 0 || args[n-1] != "--" {
		return false
	}
	i := 0
	for i < n-1 {
		if takesValue(fs, args[i]) {
			i += 2
		} else {
			i++
		}
	}
	return i == n-1
}

// takesValue reports whether arg is a flag of fs ("-name" or "--name",
// without "=value") that takes the next argument as its value.
func takesValue(fs *flag.FlagSet, arg string) bool {
	name := arg
	switch {
	case len(name) > 2 && name[:2] == "--":
		name = name[2:]
	case len(name) > 1 && name[0] == '-':
		name = name[1:]
	default:
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '=' {
			return false
		}
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}
