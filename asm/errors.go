package asm

import (
	"fmt"
	"strings"
)

// Pos is a position in a source file; Line and Col count from 1.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Error is one assembly error, with the source line it points into.
type Error struct {
	Pos    Pos
	Msg    string
	Source string // the source line, without its newline
	// Warning marks a warning (Result.Warnings), printed as one.
	Warning bool
}

// maxShownLine is the most of a source line an error shows: a longer line
// is cut to a window around the column, marked with "...".
const maxShownLine = 160

// Error formats the error as "file:line:col: error: message" ("warning:"
// for a warning), then the source line (or, for a long one, the part
// around the column) and a caret under the column.
func (e *Error) Error() string {
	var b strings.Builder
	kind := "error"
	if e.Warning {
		kind = "warning"
	}
	fmt.Fprintf(&b, "%v: %s: %s", e.Pos, kind, e.Msg)
	if e.Source != "" {
		src, col := e.Source, e.Pos.Col
		if len(src) > maxShownLine {
			start := max(0, min(col-1-maxShownLine/2, len(src)-maxShownLine))
			prefix, suffix := "", ""
			if start > 0 {
				prefix = "..."
			}
			if start+maxShownLine < len(src) {
				suffix = "..."
			}
			src = prefix + src[start:start+maxShownLine] + suffix
			col += len(prefix) - start
		}
		b.WriteString("\n" + src + "\n")
		for i := 1; i < col && i-1 < len(src); i++ {
			if src[i-1] == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('^')
	}
	return b.String()
}

// ErrorList is every error found in one assembly, in source order.
type ErrorList []*Error

// Error joins the errors, one per paragraph.
func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// maxErrors caps how many errors one assembly reports.
const maxErrors = 50

// errTooMany stops an assembly once maxErrors errors are recorded.
type errTooMany struct{}
