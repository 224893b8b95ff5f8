package board

import (
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/sim"
)

// The table-driven CRC-8 equals the bitwise definition on random data.
func TestCRC8Table(t *testing.T) {
	r := sim.NewRand(5)
	for n := range 300 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint64())
		}
		if CRC8(b) != crc8Bitwise(b) {
			t.Fatalf("length %d: %#x != %#x", n, CRC8(b), crc8Bitwise(b))
		}
	}
}

// A board held in reset runs no instruction while time passes; released,
// it starts at address 0 with its cycle count kept.
func TestSetReset(t *testing.T) {
	b, err := New(Config{})
	require.NoError(t, err)
	// a loop at 0 that counts in r3: add %r3, 1, %r3; bt 0; nop
	for i, w := range []uint32{0x018C0001, 0xE0000000, 0x00000000} {
		b.CPU().Mem.Write(uint32(4*i), []byte{byte(w >> 24), byte(w >> 16), byte(w >> 8), byte(w)})
	}
	b.SetReset(true)
	b.Run(1000)
	if b.CPU().Instret != 0 || b.CPU().Cycles != 1000 || !b.InReset() {
		t.Fatalf("held: %d instructions, %d cycles", b.CPU().Instret, b.CPU().Cycles)
	}
	b.SetReset(false)
	b.Run(300)
	if b.CPU().Cycles < 1300 || b.CPU().R[3] == 0 {
		t.Fatalf("released: cycles %d, r3 %d", b.CPU().Cycles, b.CPU().R[3])
	}
}
