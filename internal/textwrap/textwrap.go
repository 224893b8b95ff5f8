// Package textwrap fills text into lines for the generated include files'
// comments (netvm/abi's abi.inc, firmware/crt's lanai9.h and lanai9.inc).
package textwrap

import "strings"

// Lines splits s at spaces into lines of at most width bytes (a word
// longer than width stands alone on its line).
func Lines(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}
