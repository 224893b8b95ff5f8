// Command lanai-as assembles LANai assembly (the dialect of LLVM's Lanai
// target) into a relocatable ELF object (-c), or assembles and links its
// inputs into an executable.
//
//	lanai-as [-c] [-o out] [-I dir]... [-l listing] file.s...
//
// Flags may come before or after the files ("lanai-as x.s -c -o x.o");
// after "--" every argument is a file.
//
// Exit status: 0 success, 1 an input error (assembly or link errors,
// unreadable files), 2 a usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/internal/flagargs"
	"lanaiemu/internal/outfile"
	"lanaiemu/internal/readfile"
	"lanaiemu/objfile"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	// A short-lived batch tool: trade memory for fewer collections.
	debug.SetGCPercent(400)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lanai-as", flag.ContinueOnError)
	fs.SetOutput(stderr)
	compile := fs.Bool("c", false, "write a relocatable object instead of linking")
	out := fs.String("o", "", "output file (default: a.out, or NAME.o for each input with -c)")
	listing := fs.String("l", "", "write a listing (address, bytes, source line) to this file")
	var incs multiFlag
	fs.Var(&incs, "I", "add a directory to the .include search path (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: lanai-as [-c] [-o out] [-I dir]... [-l listing] file.s...\n\n"+
			"Assembles LANai assembly in the dialect of LLVM's Lanai target. With -c it writes\n"+
			"relocatable ELF objects; without, it assembles each input and links them into an\n"+
			"executable with the default LANai 9.2 SRAM layout (see lanai-ld).\n\n"+
			"Flags may come before or after the files; after \"--\" every argument is a file.\n\n"+
			"Exit status: 0 success, 1 input error, 2 usage error.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	files, err := flagargs.Parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := outfile.CheckEmpty(fs, "-o", "-l"); err != nil {
		fmt.Fprintf(stderr, "lanai-as: error: %v\n", err)
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "lanai-as: error: no input files")
		fs.Usage()
		return 2
	}
	opt := asm.Options{IncludeDirs: incs, Listing: *listing != ""}
	if *listing != "" && len(files) > 1 && !(*compile && *out != "") {
		fmt.Fprintln(stderr, "lanai-as: error: -l needs a single input (or -c -o to combine inputs)")
		return 2
	}

	// The outputs are opened before anything is assembled, so that one
	// that cannot be written fails at once; an existing file keeps its
	// contents until it is written.
	var outs outfile.Set
	defer outs.Abandon()
	open := func(flag, name string, perm os.FileMode) *outfile.File {
		o, err := outfile.CreateRaw(name, perm)
		if err != nil {
			fmt.Fprintf(stderr, "lanai-as: error: %s: %v\n", flag, err)
			return nil
		}
		outs.Add(o)
		return o
	}
	var listOut *outfile.File
	if *listing != "" {
		if listOut = open("-l", *listing, 0o644); listOut == nil {
			return 1
		}
	}
	// With -c and -o, all inputs form one object, as with GNU as.
	if *compile && (*out != "" || len(files) == 1) {
		name := *out
		if name == "" {
			name = objName(files[0])
		}
		o := open("-o", name, 0o644)
		if o == nil {
			return 1
		}
		return assembleTo(files, o, listOut, opt, stderr)
	}
	if *compile {
		objs := make([]*outfile.File, len(files))
		for i, f := range files {
			if objs[i] = open("-c", objName(f), 0o644); objs[i] == nil {
				return 1
			}
		}
		for i, f := range files {
			if st := assembleTo([]string{f}, objs[i], nil, opt, stderr); st != 0 {
				return st
			}
		}
		return 0
	}
	name := *out
	if name == "" {
		name = "a.out"
	}
	exeOut := open("-o", name, 0o755) // an executable, as lanai-ld makes it
	if exeOut == nil {
		return 1
	}
	var results []*asm.Result
	opt.LineInfo = true
	for _, f := range files {
		res, st := assemble([]string{f}, opt, stderr)
		if st != 0 {
			return st
		}
		if listOut != nil { // a single input (checked above)
			if err := listOut.Write(res.Listing()); err != nil {
				fmt.Fprintf(stderr, "lanai-as: error: %v\n", err)
				return 1
			}
		}
		results = append(results, res)
	}
	// Carry each instruction's source line into the executable.
	exe, err := asm.LinkWithLines(results, files, link.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "lanai-as: %v\n", err)
		return 1
	}
	return write(exe, exeOut, stderr)
}

func objName(src string) string {
	return strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)) + ".o"
}

func assemble(files []string, opt asm.Options, stderr io.Writer) (*asm.Result, int) {
	var srcs []asm.Source
	for _, f := range files {
		text, err := readfile.Read(f, readfile.Text)
		if err != nil {
			fmt.Fprintf(stderr, "lanai-as: error: %v\n", err)
			return nil, 1
		}
		srcs = append(srcs, asm.Source{Name: f, Text: text})
	}
	res, err := asm.Assemble(srcs, opt)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, 1
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, w)
	}
	return res, 0
}

func assembleTo(files []string, out, listing *outfile.File, opt asm.Options, stderr io.Writer) int {
	res, st := assemble(files, opt, stderr)
	if st != 0 {
		return st
	}
	if listing != nil {
		if err := listing.Write(res.Listing()); err != nil {
			fmt.Fprintf(stderr, "lanai-as: error: %v\n", err)
			return 1
		}
	}
	return write(res.Object, out, stderr)
}

func write(f *objfile.File, out *outfile.File, stderr io.Writer) int {
	b, err := f.WriteELF()
	if err == nil {
		err = out.Write(b)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lanai-as: error: %v\n", err)
		return 1
	}
	return 0
}
