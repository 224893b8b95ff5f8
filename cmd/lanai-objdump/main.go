// Command lanai-objdump prints LANai object files and executables in the
// format of llvm-objdump (version 14): section headers, symbol table,
// relocation records, section contents and disassembly.
//
// Usage:
//
//	lanai-objdump [-d] [-r] [-t] [-h] [-s] [-z] file...
//
// Short flags may be combined ("-dr"); each also has llvm-objdump's long
// name. Input files are ELF32 big-endian EM_LANAI relocatable objects or
// executables, LANai COFF executables and objects ("file format
// coff-lanai", docs/coff.md), or `ar` archives of them. With
// no file, a.out is read. The output is produced by package lanaiemu/internal/disasm,
// which documents how it follows llvm-objdump.
//
// Exit status: 0 success, 1 an input file is unreadable or malformed (the
// message is "lanai-objdump: error: 'file': reason" and no further files
// are read, as llvm-objdump does), 2 usage error (no output selected, or an
// unknown flag), after printing the usage to standard error.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"lanaiemu/internal/disasm"
	"lanaiemu/internal/readfile"
	"lanaiemu/objfile"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageText = `OVERVIEW: LANai object file dumper (output formatted as llvm-objdump 14's)

USAGE: lanai-objdump [options] <input object files>

OPTIONS:
  --disassemble          Disassemble all executable sections found in the input files
  -d                     Alias for --disassemble
  --disassemble-zeroes   Do not skip blocks of zeroes when disassembling
  -z                     Alias for --disassemble-zeroes
  --full-contents        Display the content of each section
  -s                     Alias for --full-contents
  --headers              Alias for --section-headers
  --help                 Display available options
  -h                     Alias for --section-headers
  --reloc                Display the relocation entries in the file
  -r                     Alias for --reloc
  --section-headers      Display summaries of the headers for each section.
  --syms                 Display the symbol table
  -t                     Alias for --syms

Short options may be grouped (-dr). Inputs: LANai ELF32 objects and
executables, LANai COFF objects and executables, ar archives of them;
a.out if none is given.
Exit status: 0 ok, 1 input error, 2 usage error.
`

// run is the whole command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	var opt disasm.Options
	var files []string
	usageErr := func(format string, a ...any) int {
		if format != "" {
			fmt.Fprintf(stderr, "lanai-objdump: error: "+format+"\n", a...)
		}
		fmt.Fprint(stderr, usageText)
		return 2
	}
	long := map[string]*bool{
		"--disassemble":        &opt.Disassemble,
		"--disassemble-zeroes": &opt.DisassembleZeroes,
		"--full-contents":      &opt.FullContents,
		"--headers":            &opt.SectionHeaders,
		"--section-headers":    &opt.SectionHeaders,
		"--reloc":              &opt.Relocs,
		"--syms":               &opt.Syms,
	}
	short := map[byte]*bool{
		'd': &opt.Disassemble, 'z': &opt.DisassembleZeroes, 's': &opt.FullContents,
		'h': &opt.SectionHeaders, 'r': &opt.Relocs, 't': &opt.Syms,
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case a == "--help" || a == "-help":
			fmt.Fprint(stdout, usageText)
			return 0
		case strings.HasPrefix(a, "--"):
			p, ok := long[a]
			if !ok {
				return usageErr("unknown argument '%s'", a)
			}
			*p = true
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				p, ok := short[a[j]]
				if !ok {
					return usageErr("unknown argument '%s'", a)
				}
				*p = true
			}
		default:
			files = append(files, a)
		}
	}
	if !opt.Any() {
		return usageErr("")
	}
	if len(files) == 0 {
		files = []string{"a.out"}
	}

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	for _, name := range files {
		data, err := readfile.Read(name, readfile.Binary)
		if err == nil {
			name, err = dumpFile(out, name, data, opt)
		}
		if err != nil {
			out.Flush()
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			fmt.Fprintf(stderr, "lanai-objdump: error: '%s': %v\n", name, err)
			return 1
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "lanai-objdump: error: writing output: %v\n", err)
		return 1
	}
	return 0
}

// dumpFile prints one input file; an `ar` archive is printed member by
// member, each named "archive(member)" as llvm-objdump names them. It
// returns the name to put in an error message.
func dumpFile(out io.Writer, name string, data []byte, opt disasm.Options) (string, error) {
	if !objfile.IsArchive(data) {
		return name, disasm.Dump(out, name, data, opt)
	}
	members, err := objfile.ReadArchive(data)
	if err != nil {
		return name, err
	}
	for _, m := range members {
		full := name + "(" + m.Name + ")"
		if err := disasm.Dump(out, full, m.Data, opt); err != nil {
			return full, err
		}
	}
	return name, nil
}
