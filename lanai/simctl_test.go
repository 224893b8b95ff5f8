package lanai

import (
	"testing"

	"lanaiemu/memsys"
)

// SimCtlRegisters lists exactly the offsets the device serves: every
// listed one takes a read or a write, every other word of the device
// refuses both.
func TestSimCtlRegistersTable(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[uint32]bool{}
	for _, r := range SimCtlRegisters {
		if listed[r.Off] || r.Name == "" || r.Doc == "" {
			t.Errorf("bad or duplicate entry %+v", r)
		}
		listed[r.Off] = true
	}
	for off := uint32(0); off < memsys.SimCtlSize; off += 4 {
		if off == SimExit {
			continue // a write would stop the core; listed below
		}
		c.simctl = simCtl{cpu: c}
		_, rerr := c.simctl.Read32(off)
		werr := c.simctl.Write32(off, 'x')
		if serves := rerr == nil || werr == nil; serves != listed[off] {
			t.Errorf("offset %#x: device serves it %v, listed %v", off, serves, listed[off])
		}
	}
	if c.simctl.Write32(SimExit, 7); c.stop == nil || c.stop.Code != 7 || !listed[SimExit] {
		t.Errorf("EXIT: stop %+v, listed %v", c.stop, listed[SimExit])
	}
}
