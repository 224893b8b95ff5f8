// Package netvm holds the NetVM firmware (docs/netvm.md): its LANai
// assembly sources, embedded, and Image, which assembles and links them
// with our toolchain. The sources carry a build constraint so that the go
// tool does not take them for Go assembly.
package netvm

import (
	"embed"
	"fmt"
	"path"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
)

//go:embed *.s abi.inc
var sources embed.FS

// Image assembles firmware/netvm/netvm.s (which includes the other files
// and abi.inc) and links it: the ELF image a board loads, with its line
// table (each instruction's file, relative to the module's root, and
// line) for the debugger and traces.
func Image() ([]byte, error) {
	const main = "firmware/netvm/netvm.s"
	src, err := sources.ReadFile(path.Base(main))
	if err != nil {
		return nil, err
	}
	res, err := asm.Assemble([]asm.Source{{Name: main, Text: src}}, asm.Options{
		ReadFile: func(name string) ([]byte, error) { return sources.ReadFile(path.Base(name)) },
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
