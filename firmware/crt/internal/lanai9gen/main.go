// Command lanai9gen writes the LANai 9.2 board's register headers for
// firmware, firmware/crt/lanai9.h (C) and firmware/crt/lanai9.inc
// (lanai-as), from the Go tables that the emulator itself runs on: the
// special registers (memsys), the ISR bits, PULSE bits, DMA descriptor
// layout and DMA pointer registers (board), and the simulation-control
// device (lanai). Each value is said once, in Go; the headers follow.
// Run it with go generate in firmware/crt:
//
//	go generate ./firmware/crt
//
// With a directory argument it writes the two files there instead.
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	gs := groups()
	for _, f := range []struct {
		name string
		text []byte
	}{{headerFile, header(gs)}, {includeFile, include(gs)}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.text, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "lanai9gen:", err)
			os.Exit(1)
		}
	}
}
