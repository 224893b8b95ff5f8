package bench

import (
	"testing"

	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
)

// E6's three designs on WRITEs to untouched pages: every byte arrives in
// each (npfRun checks); NetVM's redirect copies each payload once and
// never drops; drop-and-retry copies nothing, drops each packet once with
// an RNR NACK and is slower by about the RNR delay; and in a burst the
// backup ring without credits overflows where NetVM's credits keep the
// system buffer within its allotment.
func TestRedirectAgainstNPF(t *testing.T) {
	c := Config{}
	res := map[uint32]npfResult{}
	burst := map[uint32]npfResult{}
	for _, d := range designs {
		o, err := npfRun(c, d.mode, "untouched", 4, false)
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		b, err := npfRun(c, d.mode, "untouched", npfBurst, true)
		if err != nil {
			t.Fatalf("%s burst: %v", d.name, err)
		}
		res[d.mode], burst[d.mode] = o, b
		t.Logf("%-20s one at a time %+v", d.name, o)
		t.Logf("%-20s burst         %+v", d.name, b)
	}
	nv, drop, ring := res[abi.ModeNetVM], res[abi.ModeNPF], burst[abi.ModeBackup]
	if nv.copied != 4*freebsd.PageSize || nv.recvFault != 0 || nv.retx != 0 {
		t.Errorf("NetVM: %+v", nv)
	}
	if drop.copied != 0 || drop.recvFault < 4 || drop.retx < 4 || drop.meanUs < nv.meanUs+200 {
		t.Errorf("drop and retry: %+v (NetVM %.1f us)", drop, nv.meanUs)
	}
	if b := burst[abi.ModeNetVM]; b.ringFull != 0 || b.peakSlots > abi.DefaultCredits || b.peakSlots == 0 {
		t.Errorf("NetVM burst: %+v", b)
	}
	if ring.ringFull == 0 || ring.retx == 0 {
		t.Errorf("the backup ring without credits did not overflow: %+v", ring)
	}
}
