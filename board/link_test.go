package board

import (
	"testing"

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
