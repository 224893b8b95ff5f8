package abi

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzEncodeCommand lays out random fields: EncodeCommand either refuses
// them (a bad width, misaligned, past the opcode, overlapping) or returns
// CmdSize-1 bytes from which every field reads back its value, truncated
// to its width, and in which every byte no field names is zero.
func FuzzEncodeCommand(f *testing.F) {
	f.Add([]byte{0x00, 4, 1, 2, 3, 4, 0x04, 4, 5, 6, 7, 8})
	f.Add([]byte{0x3c, 2, 0, 1, 0x3e, 1, 0, 0, 0, 0})
	f.Add([]byte{0x3e, 2, 0, 0, 0, 1})                      // reaches the opcode
	f.Add([]byte{0x02, 4, 0, 0, 0, 1})                      // misaligned
	f.Add([]byte{0x08, 3, 0, 0, 0, 1})                      // width 3
	f.Add([]byte{0x08, 4, 1, 1, 1, 1, 0x0a, 2, 0, 0, 0, 2}) // overlap
	f.Fuzz(func(t *testing.T, data []byte) {
		var fields []Field
		for len(data) >= 6 && len(fields) < 32 {
			fields = append(fields, Field{Off: uint32(data[0]), Width: int(data[1]), Val: binary.BigEndian.Uint32(data[2:6])})
			data = data[6:]
		}
		buf, err := EncodeCommand(fields)
		if err != nil {
			return
		}
		if len(buf) != CmdSize-1 {
			t.Fatalf("%d bytes", len(buf))
		}
		named := make([]bool, len(buf))
		for _, fl := range fields {
			mask := uint32(1)<<(8*fl.Width) - 1
			if fl.Width == 4 {
				mask = ^uint32(0)
			}
			if got := DecodeField(buf, fl.Off, fl.Width); got != fl.Val&mask {
				t.Fatalf("field %+v reads back %#x", fl, got)
			}
			for i := fl.Off; i < fl.Off+uint32(fl.Width); i++ {
				named[i] = true
			}
		}
		for i, b := range buf {
			if !named[i] && b != 0 {
				t.Fatalf("byte %#x is %#x, but no field names it", i, b)
			}
		}
	})
}

// The refusals, one of each kind.
func TestEncodeCommandRefuses(t *testing.T) {
	for _, fs := range [][]Field{
		{{Off: 8, Width: 3}}, {{Off: 2, Width: 4}}, {{Off: CmdSize - 2, Width: 2}}, {{Off: CmdSize - 1, Width: 1}},
		{{Off: 8, Width: 4}, {Off: 10, Width: 2}}, {{Off: 0xFFFFFFFC, Width: 4}},
	} {
		if _, err := EncodeCommand(fs); err == nil {
			t.Errorf("%+v: accepted", fs)
		}
	}
	if _, err := EncodeCommand([]Field{{Off: CmdSize - 2, Width: 1}, {Off: 0, Width: 4}}); err != nil {
		t.Errorf("the last byte before the opcode: %v", err)
	}
}

// Field32, Field16 and Field8 lay out big-endian values of their widths.
func TestFieldWidths(t *testing.T) {
	buf, err := EncodeCommand([]Field{Field32(0, 0x01020304), Field16(4, 0xA0B0), Field8(7, 0xFF)})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{1, 2, 3, 4, 0xA0, 0xB0, 0, 0xFF}
	if !bytes.Equal(buf[:8], want) {
		t.Errorf("got % x, want % x", buf[:8], want)
	}
}
