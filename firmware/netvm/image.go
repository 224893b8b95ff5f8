// Package netvm holds the NetVM firmware (docs/netvm.md): its LANai
// assembly sources in src/ (a folder without Go files, so the go tool does
// not take them for Go assembly), embedded, and Image, which assembles and
// links them with our toolchain.
package netvm

import (
	"embed"
	"fmt"
	"path"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
)

//go:embed src/*.s src/abi.inc
var sources embed.FS

// Image assembles firmware/netvm/src/netvm.s (which includes the other files
// and abi.inc) and links it: the ELF image a board loads, with its line
// table (each instruction's file, relative to the module's root, and
// line) for the debugger and traces.
func Image() ([]byte, error) {
	const main = "firmware/netvm/src/netvm.s"
	src, err := sources.ReadFile("src/" + path.Base(main))
	if err != nil {
		return nil, err
	}
	res, err := asm.Assemble([]asm.Source{{Name: main, Text: src}}, asm.Options{
		ReadFile: func(name string) ([]byte, error) { return sources.ReadFile("src/" + path.Base(name)) },
		LineInfo: true,
	})
	if err != nil {
		return nil, fmt.Errorf("netvm firmware: %w", err)
	}
	exe, err := asm.LinkWithLines([]*asm.Result{res}, []string{main}, link.Options{})
	if err != nil {
		return nil, fmt.Errorf("netvm firmware: %w", err)
	}
	return exe.WriteELF()
}
