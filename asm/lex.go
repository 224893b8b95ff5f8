package asm

import (
	"fmt"
	"strconv"
	"strings"
)

// tokKind classifies tokens.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tIdent            // identifiers, directives, mnemonics: [A-Za-z_.$][A-Za-z0-9_.$]*
	tNum              // integer literal; val holds it
	tStr              // string literal; text holds the decoded bytes
	tLocalRef         // numeric local label reference such as 1f or 2b
	tPunct            // one or two punctuation characters
	tBigHex           // a hex literal wider than 64 bits (an MD5 sum); text holds it
)

type token struct {
	kind tokKind
	text string
	val  uint64
	col  int // 1-based column in the source line
}

func (t token) is(s string) bool { return t.kind == tPunct && t.text == s }

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of statement"
	case tStr:
		return strconv.Quote(t.text)
	}
	return "'" + t.text + "'"
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '.' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// isTwoCharPunct reports the punctuation pairs read as one token: << >> ==
// != <= >= && || <>.
func isTwoCharPunct(a, b byte) bool {
	switch a {
	case '<':
		return b == '<' || b == '=' || b == '>'
	case '>':
		return b == '>' || b == '='
	case '=', '!':
		return b == '='
	case '&', '|':
		return b == a
	}
	return false
}

// lexStatement splits one statement into tokens, appended to toks[:0]. base
// is the column of the statement's first byte in its line, minus one.
func lexStatement(toks []token, s string, base int) ([]token, *lexError) {
	toks = toks[:0]
	i := 0
	for i < len(s) {
		c := s[i]
		col := base + i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			toks = append(toks, token{kind: tIdent, text: s[i:j], col: col})
			i = j
		case c >= '0' && c <= '9':
			t, n, err := lexNumber(s[i:])
			if err != nil {
				return nil, &lexError{col, err.Error()}
			}
			t.col = col
			toks = append(toks, t)
			i += n
		case c == '"':
			str, n, err := lexString(s[i:])
			if err != nil {
				return nil, &lexError{col, err.Error()}
			}
			toks = append(toks, token{kind: tStr, text: str, col: col})
			i += n
		case c == '\'':
			v, n, err := lexChar(s[i:])
			if err != nil {
				return nil, &lexError{col, err.Error()}
			}
			toks = append(toks, token{kind: tNum, text: s[i : i+n], val: v, col: col})
			i += n
		default:
			if c < 0x20 || c >= 0x7f {
				return nil, &lexError{col, fmt.Sprintf("unexpected character %q", c)}
			}
			n := 1
			if i+1 < len(s) && isTwoCharPunct(c, s[i+1]) {
				n = 2
			}
			toks = append(toks, token{kind: tPunct, text: s[i : i+n], col: col})
			i += n
		}
	}
	return toks, nil
}

type lexError struct {
	col int
	msg string
}

// lexNumber reads an integer literal (decimal, 0x hex, 0b binary, 0 octal) or
// a local label reference (1f, 1b).
func lexNumber(s string) (token, int, error) {
	j := 0
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	lit := s[:j]
	// A local label reference: digits followed by 'f' or 'b'.
	if n := len(lit); n >= 2 && (lit[n-1] == 'f' || lit[n-1] == 'b') && allDigits(lit[:n-1]) {
		if !(lit[n-1] == 'b' && strings.HasPrefix(lit, "0") && n > 2) {
			return token{kind: tLocalRef, text: lit}, j, nil
		}
	}
	digits, base := lit, 10
	switch {
	case strings.HasPrefix(lit, "0x") || strings.HasPrefix(lit, "0X"):
		digits, base = lit[2:], 16
	case strings.HasPrefix(lit, "0b") || strings.HasPrefix(lit, "0B"):
		digits, base = lit[2:], 2
	case len(lit) > 1 && lit[0] == '0':
		digits, base = lit[1:], 8
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			if base == 16 && len(digits) <= 32 {
				return token{kind: tBigHex, text: lit}, j, nil // .file's md5; an error in an expression
			}
			return token{}, 0, fmt.Errorf("integer literal %s is too large", lit)
		}
		return token{}, 0, fmt.Errorf("invalid integer literal %q", lit)
	}
	return token{kind: tNum, text: lit, val: v}, j, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// lexString reads a double-quoted string with C escapes.
func lexString(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			v, n, err := lexEscape(s[i:])
			if err != nil {
				return "", 0, err
			}
			b.WriteByte(v)
			i += n - 1
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// lexEscape decodes one backslash escape at the start of s.
func lexEscape(s string) (byte, int, error) {
	if len(s) < 2 {
		return 0, 0, fmt.Errorf("unterminated escape")
	}
	switch c := s[1]; c {
	case 'n':
		return '\n', 2, nil
	case 't':
		return '\t', 2, nil
	case 'r':
		return '\r', 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'v':
		return '\v', 2, nil
	case 'a':
		return 7, 2, nil
	case 'e':
		return 27, 2, nil
	case '\\', '"', '\'':
		return c, 2, nil
	case 'x', 'X':
		j, v := 2, 0
		for j < len(s) && j < 4 && isHex(s[j]) {
			v = v*16 + hexVal(s[j])
			j++
		}
		if j == 2 {
			return 0, 0, fmt.Errorf("\\x used with no following hex digits")
		}
		return byte(v), j, nil
	default:
		if c >= '0' && c <= '7' {
			j, v := 1, 0
			for j < len(s) && j < 4 && s[j] >= '0' && s[j] <= '7' {
				v = v*8 + int(s[j]-'0')
				j++
			}
			return byte(v), j, nil
		}
		return 0, 0, fmt.Errorf("invalid escape sequence \\%c", c)
	}
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case c <= '9':
		return int(c - '0')
	case c >= 'a':
		return int(c-'a') + 10
	default:
		return int(c-'A') + 10
	}
}

// lexChar reads a character constant 'c' or '\n'.
func lexChar(s string) (uint64, int, error) {
	if len(s) >= 3 && s[1] != '\\' && s[2] == '\'' {
		return uint64(s[1]), 3, nil
	}
	if len(s) >= 2 && s[1] == '\\' {
		v, n, err := lexEscape(s[1:])
		if err != nil {
			return 0, 0, err
		}
		if 1+n < len(s) && s[1+n] == '\'' {
			return uint64(v), n + 2, nil
		}
	}
	return 0, 0, fmt.Errorf("invalid character constant")
}

// splitStatements removes comments from a line and splits it at ';'. It
// returns each statement with its starting offset in the line. inBlock
// carries an open /* comment across lines.
// The results are appended to stmts and offs; notEq is the offset of a
// '!' comment that reads "!=" right after a statement's text (the
// operator the writer meant, which '!' makes a comment), or -1.
func splitStatements(stmts []string, offs []int, line string, inBlock *bool) (_ []string, _ []int, notEq int) {
	// '#' as the first non-blank character starts a comment (C preprocessor
	// line markers included).
	if t := strings.TrimLeft(line, " \t"); !*inBlock && strings.HasPrefix(t, "#") {
		return stmts, offs, -1
	}
	start := -1 // start of the current statement's remaining text
	origin := 0 // where the current statement began in the line
	var blocked []byte
	useBlocked := false // a block comment inside this statement: build it
	flush := func(end int) {
		if start >= 0 {
			st := line[start:end]
			if useBlocked {
				st = string(append(blocked, line[start:end]...))
			}
			if st = strings.TrimRight(st, " \t\r"); st != "" {
				stmts = append(stmts, st)
				offs = append(offs, origin)
			}
		}
		start, blocked, useBlocked = -1, nil, false
	}
	inStr := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if *inBlock {
			if c == '*' && i+1 < len(line) && line[i+1] == '/' {
				*inBlock = false
				i++
				if start >= 0 {
					start = i + 1
				}
			}
			continue
		}
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '!' || c == '/' && i+1 < len(line) && line[i+1] == '/':
			notEq = -1
			if c == '!' && start >= 0 && i+1 < len(line) && line[i+1] == '=' {
				notEq = i
			}
			flush(i)
			return stmts, offs, notEq
		case c == '/' && i+1 < len(line) && line[i+1] == '*':
			if start >= 0 {
				blocked = append(blocked, line[start:i]...)
				blocked = append(blocked, ' ')
				useBlocked = true
				start = i + 2
			}
			*inBlock = true
			i++
			continue
		case c == ';':
			flush(i)
			continue
		case c == '\'' && i+2 < len(line):
			// A character constant may hold ';' or '!'.
			n := 3
			if line[i+1] == '\\' && i+3 < len(line) {
				n = 4
			}
			if line[i+n-1] == '\'' {
				if start < 0 {
					start, origin = i, i
				}
				i += n - 1
				continue
			}
		case c == '"':
			inStr = true
		}
		if start < 0 && c != ' ' && c != '\t' {
			start, origin = i, i
		}
	}
	flush(len(line))
	return stmts, offs, -1
}
