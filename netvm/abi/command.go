package abi

import (
	"encoding/binary"
	"fmt"
)

// Field is one argument of a command (§3.2, §3.3): a big-endian value of
// Width bytes (1, 2 or 4) at offset Off of the slot.
type Field struct {
	Off   uint32
	Width int
	Val   uint32
}

// Field32, Field16 and Field8 are the fields of 4, 2 and 1 bytes: value
// v at offset off of the slot.
func Field32(off, v uint32) Field { return Field{Off: off, Width: 4, Val: v} }

// Field16 is a field of 2 bytes (Field32).
func Field16(off, v uint32) Field { return Field{Off: off, Width: 2, Val: v} }

// Field8 is a field of 1 byte (Field32).
func Field8(off, v uint32) Field { return Field{Off: off, Width: 1, Val: v} }

// EncodeCommand lays fields out in the bytes of a command slot that come
// before the opcode (CmdSize-1 bytes; the opcode is written last and
// alone, §3.1). Unnamed bytes are zero. A field of another width than 1, 2
// or 4, not aligned to its width (the firmware loads it with one ld, ld.h
// or ld.b), reaching the opcode byte, or overlapping another field is an
// error.
func EncodeCommand(fields []Field) ([]byte, error) {
	buf := make([]byte, CmdSize-1)
	var used [CmdSize - 1]bool
	for _, f := range fields {
		if f.Width != 1 && f.Width != 2 && f.Width != 4 {
			return nil, fmt.Errorf("abi: command field at %#x: width %d (1, 2 or 4)", f.Off, f.Width)
		}
		if f.Off%uint32(f.Width) != 0 || f.Off > uint32(len(buf)-f.Width) {
			return nil, fmt.Errorf("abi: command field of %d bytes at %#x: misaligned or past the %d bytes before the opcode", f.Width, f.Off, len(buf))
		}
		for i := f.Off; i < f.Off+uint32(f.Width); i++ {
			if used[i] {
				return nil, fmt.Errorf("abi: command field of %d bytes at %#x overlaps another", f.Width, f.Off)
			}
			used[i] = true
		}
		switch f.Width {
		case 1:
			buf[f.Off] = byte(f.Val)
		case 2:
			binary.BigEndian.PutUint16(buf[f.Off:], uint16(f.Val))
		default:
			binary.BigEndian.PutUint32(buf[f.Off:], f.Val)
		}
	}
	return buf, nil
}

// DecodeField reads a field's value back from an encoded command (the
// firmware's view of it).
func DecodeField(buf []byte, off uint32, width int) uint32 {
	switch width {
	case 1:
		return uint32(buf[off])
	case 2:
		return uint32(binary.BigEndian.Uint16(buf[off:]))
	}
	return binary.BigEndian.Uint32(buf[off:])
}

// Event is one record of the event queue (§6.3).
type Event struct {
	Type  uint8
	Flags uint8
	Ep    uint16
	A     [6]uint32
	Seq   uint32
}

// ParseEvent decodes an event record of EvqSize bytes.
func ParseEvent(rec []byte) Event {
	e := Event{Type: rec[EvType], Flags: rec[EvFlags], Ep: binary.BigEndian.Uint16(rec[EvEp:]), Seq: binary.BigEndian.Uint32(rec[EvSeq:])}
	for i := range e.A {
		e.A[i] = binary.BigEndian.Uint32(rec[EvA0+4*i:])
	}
	return e
}
