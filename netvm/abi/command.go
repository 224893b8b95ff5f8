package abi

import "encoding/binary"

// Field is one argument of a command (§3.2, §3.3): a big-endian value of
// Width bytes (1, 2 or 4) at offset Off of the slot.
type Field struct {
	Off   uint32
	Width int
	Val   uint32
}

// EncodeCommand lays fields out in the bytes of a command slot that come
// before the opcode (CmdSize-1 bytes; the opcode is written last and
// alone, §3.1). Unnamed bytes are zero.
func EncodeCommand(fields []Field) []byte {
	buf := make([]byte, CmdSize-1)
	for _, f := range fields {
		switch f.Width {
		case 1:
			buf[f.Off] = byte(f.Val)
		case 2:
			binary.BigEndian.PutUint16(buf[f.Off:], uint16(f.Val))
		default:
			binary.BigEndian.PutUint32(buf[f.Off:], f.Val)
		}
	}
	return buf
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
