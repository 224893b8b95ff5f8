// Command lanai-ld links LANai relocatable objects into an executable ELF
// image for the LANai 9.2 SRAM: ELF objects (ours, llvm-mc's, clang's),
// the COFF objects of Myricom's lanai-gcc 2.95 (docs/coff.md), and `ar`
// archives of either, whose members are linked when they define a symbol
// still undefined (link.SelectMembers).
//
// Usage:
//
//	lanai-ld [-o out] [-e sym|addr] [-Ttext addr] [-Tdata addr] [-Map file] [-sram-size n] obj.o...
//
// Flags and object files may be mixed; after "--" every argument is a
// file. Numbers are decimal or 0x hex. The
// layout, linker-defined symbols and error rules are those of package
// lanaiemu/asm/link (see docs/linker.md). Exit status: 0 success, 1 input
// or link error, 2 usage error. Diagnostics go to standard error as
// "lanai-ld: error: ..." and "lanai-ld: warning: ...".
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"lanaiemu/asm/link"
	"lanaiemu/internal/flagargs"
	"lanaiemu/internal/outfile"
	"lanaiemu/internal/readfile"
	"lanaiemu/memsys"
	"lanaiemu/objfile"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageText = `usage: lanai-ld [options] obj.o|lib.a...

Links LANai relocatable objects (ELF, or lanai-gcc's COFF) and ar archives
into an executable (see docs/linker.md).

Options:
  -o file         output file (default a.out)
  -e sym|addr     entry symbol or address (default _start, else start of .text)
  -Ttext addr     address of .text (default 0)
  -Tdata addr     address of .data (default: after .rodata)
  -Map file       write a link map
  -sram-size n    SRAM size the image must fit in (default 0x200000)
  -h, --help      show this help

Flags and files may be interleaved; after "--" every argument is a file.
Numbers are decimal or 0x hex. Exit status: 0 ok, 1 input or link error, 2 usage error.
`

// numFlag is a flag.Value holding an optional address.
type numFlag struct {
	v   uint32
	set bool
}

func (n *numFlag) String() string {
	if n == nil || !n.set {
		return ""
	}
	return fmt.Sprintf("0x%x", n.v)
}

func (n *numFlag) Set(s string) error {
	v, err := link.ParseNumber(s)
	if err != nil {
		return err
	}
	n.v, n.set = v, true
	return nil
}

// run is the whole command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	errorf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "lanai-ld: error: "+format+"\n", a...)
	}
	fs := flag.NewFlagSet("lanai-ld", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "a.out", "output file")
	entry := fs.String("e", "", "entry symbol or address")
	var ttext, tdata, sram numFlag
	fs.Var(&ttext, "Ttext", "address of .text")
	fs.Var(&tdata, "Tdata", "address of .data")
	mapFile := fs.String("Map", "", "link map file")
	fs.Var(&sram, "sram-size", "SRAM size")

	// Flags and files may be interleaved.
	files, err := flagargs.Parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText)
			return 0
		}
		errorf("%v", err)
		fmt.Fprintln(stderr, "run 'lanai-ld --help' for usage")
		return 2
	}
	if err := outfile.CheckEmpty(fs, "-o", "-Map"); err != nil {
		errorf("%v", err)
		return 2
	}
	if len(files) == 0 {
		errorf("no input files")
		fmt.Fprintln(stderr, "run 'lanai-ld --help' for usage")
		return 2
	}

	if sram.set && (sram.v == 0 || sram.v%4 != 0 || sram.v > memsys.MaxSRAMSize) {
		errorf("-sram-size %#x: want a non-zero multiple of 4 up to %#x (the emulator's SRAM sizes)", sram.v, memsys.MaxSRAMSize)
		return 2
	}
	// The outputs are opened before the inputs are read and linked, so
	// that one that cannot be written fails at once; an existing file
	// keeps its contents until the link succeeds.
	var outs outfile.Set
	defer outs.Abandon()
	exeOut, err := outfile.CreateRaw(*out, 0o755)
	if err != nil {
		errorf("-o: %v", err)
		return 1
	}
	outs.Add(exeOut)
	var mapOut *outfile.File
	if *mapFile != "" {
		if mapOut, err = outfile.CreateRaw(*mapFile, 0o644); err != nil {
			errorf("-Map: %v", err)
			return 1
		}
		outs.Add(mapOut)
	}
	inputs := make([]link.Input, 0, len(files))
	bad := false
	for _, name := range files {
		data, err := readfile.Read(name, readfile.Binary)
		if err != nil {
			errorf("%v", err)
			bad = true
			continue
		}
		in := link.Input{Name: name}
		if objfile.IsArchive(data) {
			in.Members, err = objfile.ReadArchive(data)
		} else {
			in.Object, err = objfile.Read(data)
		}
		if err != nil {
			errorf("%s: %v", name, err)
			bad = true
			continue
		}
		inputs = append(inputs, in)
	}
	if bad {
		return 1
	}
	objs, names, err := link.SelectMembers(inputs)
	if err != nil {
		errorf("%v", err)
		return 1
	}

	opt := link.Options{
		TextAddr: ttext.v,
		Entry:    *entry,
		SRAMSize: sram.v,
		Warn:     func(m string) { fmt.Fprintf(stderr, "lanai-ld: warning: %s\n", m) },
		Archives: inputs,
	}
	if tdata.set {
		opt.DataAddr = &tdata.v
	}
	var mapBuf bytes.Buffer
	if *mapFile != "" {
		opt.MapFile = &mapBuf
	}
	exe, err := link.Link(objs, names, opt)
	if err != nil {
		var multi interface{ Unwrap() []error }
		if errors.As(err, &multi) {
			for _, e := range multi.Unwrap() {
				errorf("%v", e)
			}
		} else {
			errorf("%v", err)
		}
		return 1
	}
	image, err := exe.WriteELF()
	if err != nil {
		errorf("%v", err)
		return 1
	}
	if err := exeOut.Write(image); err != nil {
		errorf("-o: %v", err)
		return 1
	}
	if mapOut != nil {
		if err := mapOut.Write(mapBuf.Bytes()); err != nil {
			errorf("-Map: %v", err)
			return 1
		}
	}
	return 0
}
