// Command gen writes firmware/netvm/src/abi.inc from package lanaiemu/netvm/abi.
// Run it from the module root:
//
//	go run ./netvm/abi/gen
package main

import (
	"fmt"
	"os"

	"lanaiemu/netvm/abi"
)

func main() {
	out := abi.IncludePath
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	if err := os.WriteFile(out, abi.Include(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
