package objfile

import (
	"fmt"
	"strconv"
	"strings"
)

// ArchiveMember is one file of an `ar` archive.
type ArchiveMember struct {
	// Name is the member's file name, such as "_mulsi3.o".
	Name string
	// Data is the member's contents (a sub-slice of the archive).
	Data []byte
}

// arMagic starts every `ar` archive.
const arMagic = "!<arch>\n"

const arHeaderSize = 60

// IsArchive reports whether data starts like an `ar` archive.
func IsArchive(data []byte) bool { return strings.HasPrefix(string(data), arMagic) }

// ReadArchive splits an `ar` archive in the System V / GNU layout (as
// Myricom's lanai-ar writes libgcc.a) into its members, in archive order.
// Each member has a 60-byte header (name 16, date 12, uid 6, gid 6, mode 8,
// size 10 in decimal, "`\n") and starts at an even offset. The symbol
// index ("/") and the long-name table ("//") are not members; names end at
// '/' and "/N" refers to offset N of the long-name table.
func ReadArchive(data []byte) ([]ArchiveMember, error) {
	if !IsArchive(data) {
		return nil, fmt.Errorf("ar: not an archive (no %q)", strings.TrimSpace(arMagic))
	}
	var members []ArchiveMember
	var longNames string
	for off := uint64(len(arMagic)); off < uint64(len(data)); {
		if off+arHeaderSize > uint64(len(data)) {
			return nil, fmt.Errorf("ar: member header at 0x%x extends past the end of the archive", off)
		}
		h := data[off : off+arHeaderSize]
		if string(h[58:60]) != "`\n" {
			return nil, fmt.Errorf("ar: member header at 0x%x lacks its end marker", off)
		}
		size, err := strconv.ParseUint(strings.TrimSpace(string(h[48:58])), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("ar: member header at 0x%x: bad size %q", off, strings.TrimSpace(string(h[48:58])))
		}
		start := off + arHeaderSize
		if start+size > uint64(len(data)) {
			return nil, fmt.Errorf("ar: member at 0x%x (%d bytes) extends past the end of the archive", off, size)
		}
		body := data[start : start+size]
		name := strings.TrimRight(string(h[:16]), " ")
		switch {
		case name == "/" || name == "/SYM64/" || name == "__.SYMDEF":
			// Symbol index: not a member.
		case name == "//":
			longNames = string(body)
		case strings.HasPrefix(name, "/") && len(name) > 1:
			n, err := strconv.ParseUint(name[1:], 10, 32)
			if err != nil || n >= uint64(len(longNames)) {
				return nil, fmt.Errorf("ar: member at 0x%x: long name %q outside the name table", off, name)
			}
			long := longNames[n:]
			if i := strings.IndexAny(long, "/\n"); i >= 0 {
				long = long[:i]
			}
			members = append(members, ArchiveMember{Name: long, Data: body})
		default:
			members = append(members, ArchiveMember{Name: strings.TrimSuffix(name, "/"), Data: body})
		}
		off = start + size + size&1
	}
	return members, nil
}
