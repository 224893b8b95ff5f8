package hostbus

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/memsys"
)

const fifoBase = 0x10000

// entry reads FIFO slot i as the LANai does (two big-endian words).
func entry(mem *memsys.Memory, base uint32, i uint32) (addr, data uint32) {
	e := mem.SRAM[base+8*i:]
	return binary.BigEndian.Uint32(e), binary.BigEndian.Uint32(e[4:])
}

// dbReg reads a doorbell register as the LANai does.
func dbReg(t *testing.T, mem *memsys.Memory, off uint32) uint32 {
	t.Helper()
	v, err := mem.ReadIO(DefaultDoorbellRegs+off, 4)
	require.NoError(t, err)
	return v
}

func doorbellWindow(t *testing.T, depth uint32, overflow Overflow) (*Window, *memsys.Memory, *int) {
	t.Helper()
	wakes := new(int)
	w, mem := newWindow(t, func(p *Params) {
		p.DoorbellDepth, p.DoorbellOverflow = depth, overflow
	}, Hooks{Wake: func() { *wakes++ }})
	if _, err := w.Write32(PointerOff+4*PtrFIFOBase0, fifoBase); err != nil {
		t.Fatal(err)
	}
	return w, mem, wakes
}

func TestDoorbellOrder(t *testing.T) {
	w, mem, wakes := doorbellWindow(t, 0, OverflowOverwrite)
	if w.DoorbellDepth() != 512 || dbReg(t, mem, DoorbellRegDepth) != 512 {
		t.Fatalf("default depth %d", w.DoorbellDepth())
	}
	offs := []uint32{DoorbellOff, DoorbellOff + 4, DoorbellOff + 0x2000, EEPROMOff, BARSize - 4}
	for i, off := range offs {
		if _, err := w.Write32(off, 0xA0B0C000+uint32(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i, off := range offs {
		a, d := entry(mem, fifoBase, uint32(i))
		// The address is the BAR offset; the data bytes keep the host's
		// byte lanes, so the LANai sees the host's value byte-swapped.
		if a != off || d != swap32(0xA0B0C000+uint32(i)) {
			t.Errorf("entry %d = {%#x, %#x}, want {%#x, %#x}", i, a, d, off, swap32(0xA0B0C000+uint32(i)))
		}
	}
	if got := fmt.Sprintf("% x", mem.SRAM[fifoBase:fifoBase+8]); got != "00 80 80 00 00 c0 b0 a0" {
		t.Errorf("first entry bytes %s", got)
	}
	if *wakes != len(offs) || dbReg(t, mem, DoorbellRegWrite) != uint32(len(offs)) || dbReg(t, mem, DoorbellRegLost) != 0 {
		t.Errorf("wakes %d, write %d", *wakes, dbReg(t, mem, DoorbellRegWrite))
	}
	if s := w.Stats(); s.Doorbells != uint64(len(offs)) || s.Writes != uint64(len(offs))+1 {
		t.Errorf("stats %+v", s)
	}
	st := w.Doorbell()
	if st.Write != 5 || st.Read != 0 || st.Depth != 512 || st.Base != fifoBase {
		t.Errorf("state %+v", st)
	}
}

func swap32(v uint32) uint32 { return v>>24 | v>>8&0xFF00 | v<<8&0xFF0000 | v<<24 }

// ring lists the data words of the ring's slots (host values, low byte
// first as the host wrote them).
func ring(mem *memsys.Memory, depth uint32) string {
	var s []string
	for i := range depth {
		_, d := entry(mem, fifoBase, i)
		s = append(s, fmt.Sprint(swap32(d)))
	}
	return strings.Join(s, " ")
}

func TestDoorbellOverwrite(t *testing.T) {
	w, mem, wakes := doorbellWindow(t, 4, OverflowOverwrite)
	for i := range uint32(6) {
		w.Write32(DoorbellOff, 10+i)
	}
	// The ring wrapped: entries 14 and 15 overwrote the unconsumed 10 and 11.
	if got := ring(mem, 4); got != "14 15 12 13" {
		t.Errorf("ring %s", got)
	}
	if dbReg(t, mem, DoorbellRegWrite) != 6 || dbReg(t, mem, DoorbellRegLost) != 2 || *wakes != 6 {
		t.Errorf("write %d lost %d wakes %d", dbReg(t, mem, DoorbellRegWrite), dbReg(t, mem, DoorbellRegLost), *wakes)
	}
	// The firmware consumes everything it can see and clears the loss count.
	mem.WriteIO(DefaultDoorbellRegs+DoorbellRegRead, 4, 6)
	mem.WriteIO(DefaultDoorbellRegs+DoorbellRegLost, 4, 0xFFFF)
	w.Write32(DoorbellOff, 16)
	if got := ring(mem, 4); got != "14 15 16 13" || dbReg(t, mem, DoorbellRegLost) != 0 {
		t.Errorf("after consuming: ring %s lost %d", got, dbReg(t, mem, DoorbellRegLost))
	}
	if w.Stats().DoorbellLost != 2 {
		t.Errorf("stats lost %d", w.Stats().DoorbellLost)
	}
}

func TestDoorbellDrop(t *testing.T) {
	w, mem, wakes := doorbellWindow(t, 4, OverflowDrop)
	for i := range uint32(6) {
		if _, err := w.Write32(DoorbellOff+8*i, 10+i); err != nil { // posted: no error on overflow
			t.Fatal(err)
		}
	}
	if got := ring(mem, 4); got != "10 11 12 13" {
		t.Errorf("ring %s", got)
	}
	if dbReg(t, mem, DoorbellRegWrite) != 4 || dbReg(t, mem, DoorbellRegLost) != 2 || *wakes != 4 {
		t.Errorf("write %d lost %d wakes %d", dbReg(t, mem, DoorbellRegWrite), dbReg(t, mem, DoorbellRegLost), *wakes)
	}
	// The firmware consumed two entries: two more fit, in order.
	require.NoError(t, mem.WriteIO(DefaultDoorbellRegs+DoorbellRegRead, 4, 2))
	for i := range uint32(3) {
		w.Write32(DoorbellOff, 20+i)
	}
	if got := ring(mem, 4); got != "20 21 12 13" {
		t.Errorf("ring after consuming two: %s", got)
	}
	if dbReg(t, mem, DoorbellRegWrite) != 6 || dbReg(t, mem, DoorbellRegLost) != 3 {
		t.Errorf("write %d lost %d", dbReg(t, mem, DoorbellRegWrite), dbReg(t, mem, DoorbellRegLost))
	}
	// A read count past the write count means an empty FIFO, not a full one.
	mem.WriteIO(DefaultDoorbellRegs+DoorbellRegRead, 4, 100)
	w.Write32(DoorbellOff, 30)
	if dbReg(t, mem, DoorbellRegWrite) != 7 {
		t.Error("write refused with the read count ahead")
	}
}

func TestDoorbellDepthFromControl(t *testing.T) {
	w, mem, _ := doorbellWindow(t, 0, OverflowOverwrite)
	for n := range uint32(8) {
		w.Write32(ControlOff, n)
		if w.DoorbellDepth() != 512<<n || dbReg(t, mem, DoorbellRegDepth) != 512<<n {
			t.Errorf("queue size %d: depth %d", n, w.DoorbellDepth())
		}
	}
	// 64 K entries at 0x10000 fit in 2 MiB (512 KB ring); the write goes to
	// slot 0.
	if _, err := w.Write32(DoorbellOff, 1); err != nil {
		t.Fatal(err)
	}
	// A ring that does not fit is refused.
	w.Write32(PointerOff+4*PtrFIFOBase0, uint32(len(mem.SRAM))-0x1000)
	if _, err := w.Write32(DoorbellOff, 1); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("oversized ring: %v", err)
	}
}

func TestDoorbellErrors(t *testing.T) {
	w, mem := newWindow(t, nil, Hooks{})
	if _, err := w.Write32(DoorbellOff, 1); err == nil || !strings.Contains(err.Error(), "not set") {
		t.Errorf("no FIFO base: %v", err)
	}
	w.Write32(PointerOff+4*PtrFIFOBase0, 0x10004)
	if _, err := w.Write32(DoorbellOff, 1); err == nil || !strings.Contains(err.Error(), "aligned") {
		t.Errorf("unaligned FIFO base: %v", err)
	}
	for _, off := range []uint32{DoorbellRegWrite, DoorbellRegDepth, 0x10} {
		if err := mem.WriteIO(DefaultDoorbellRegs+off, 4, 1); err == nil {
			t.Errorf("write to doorbell register %#x accepted", off)
		}
	}
	if _, err := mem.ReadIO(DefaultDoorbellRegs+0x2, 4); err == nil {
		t.Error("unaligned doorbell register read accepted")
	}
	if mem.StableUntil(DefaultDoorbellRegs) != ^uint64(0) {
		t.Error("doorbell registers not stable between events")
	}
	// Unmapped when asked.
	w2mem, _ := memsys.New(memsys.DefaultSRAMSize)
	p := DefaultParams()
	p.DoorbellRegs = 0
	if _, err := NewWindow(w2mem, p, Hooks{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w2mem.ReadIO(DefaultDoorbellRegs, 4); err == nil {
		t.Error("doorbell registers mapped with DoorbellRegs = 0")
	}
	if OverflowDrop.String() != "drop" || Overflow(7).String() != "Overflow(7)" {
		t.Error("Overflow.String")
	}
}

// TestDoorbellLimitCheck: with control bit 4 each 4 KB doorbell page has a
// {limit, count} byte pair in the last 4 KB of SRAM; a write at the limit
// is dropped, others count up (ParaStation's FIFO_COUNTER).
func TestDoorbellLimitCheck(t *testing.T) {
	w, mem, wakes := doorbellWindow(t, 0, OverflowOverwrite)
	end := uint32(len(mem.SRAM))
	counters := end - LimitCounterBytes
	mem.SRAM[counters+2*1] = 2 // page 1: limit 2
	// page 0: limit 0, every write dropped
	mem.SRAM[counters+2*2039] = 1 // the last page (BAR0+0xFFF000): limit 1
	w.Write32(ControlOff, CtlLimitCheck)
	for i := range uint32(3) {
		w.Write32(DoorbellOff+DoorbellPageSize+4*i, i)
	}
	w.Write32(DoorbellOff, 99)
	w.Write32(BARSize-4, 7)
	w.Write32(BARSize-8, 8)
	if got := mem.SRAM[counters+3]; got != 2 {
		t.Errorf("page 1 count %d, want 2", got)
	}
	if got := mem.SRAM[counters+2*2039+1]; got != 1 {
		t.Errorf("last page count %d, want 1", got)
	}
	if dbReg(t, mem, DoorbellRegWrite) != 3 || dbReg(t, mem, DoorbellRegLost) != 3 || *wakes != 3 {
		t.Errorf("write %d lost %d wakes %d", dbReg(t, mem, DoorbellRegWrite), dbReg(t, mem, DoorbellRegLost), *wakes)
	}
	// The firmware lowers the count: the page takes one more write.
	mem.SRAM[counters+3] = 1
	w.Write32(DoorbellOff+DoorbellPageSize, 5)
	if dbReg(t, mem, DoorbellRegWrite) != 4 {
		t.Error("write after the count was lowered dropped")
	}
	if a, _ := entry(mem, fifoBase, 2); a != BARSize-4 {
		t.Errorf("slot 2 address %#x", a)
	}
}
