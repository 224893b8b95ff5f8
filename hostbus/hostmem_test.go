package hostbus

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// boardHostMemory is a copy of the interface package board declares for
// its DMA engine (board.HostMemory); HostMemory must satisfy it.
type boardHostMemory interface {
	ReadHost(addr uint64, p []byte) error
	WriteHost(addr uint64, p []byte) error
}

var _ boardHostMemory = (*HostMemory)(nil)

func newHostMem(t *testing.T, size uint64) *HostMemory {
	t.Helper()
	m, err := NewHostMemory(size)
	require.NoError(t, err)
	return m
}

func TestNewHostMemorySizes(t *testing.T) {
	for _, size := range []uint64{0, 100, PageSize + 1, MaxHostMemory + PageSize} {
		if _, err := NewHostMemory(size); err == nil {
			t.Errorf("NewHostMemory(%#x) succeeded", size)
		}
	}
	m := newHostMem(t, DefaultHostMemory)
	if m.Size() != 256<<20 || m.Frames() != 65536 {
		t.Errorf("size %#x frames %d", m.Size(), m.Frames())
	}
}

func TestHostMemoryAcrossPages(t *testing.T) {
	m := newHostMem(t, 4*PageSize)
	// 6000 bytes starting 100 bytes before the end of frame 0: frames 0, 1, 2.
	src := make([]byte, 6000)
	for i := range src {
		src[i] = byte(i*7 + 3)
	}
	addr := uint64(PageSize - 100)
	require.NoError(t, m.WriteHost(addr, src))
	got := make([]byte, len(src))
	require.NoError(t, m.ReadHost(addr, got))
	if !bytes.Equal(got, src) {
		t.Fatal("read back differs")
	}
	// Byte by byte through the frames: the bytes are stored as written.
	for i, want := range src {
		a := addr + uint64(i)
		f, err := m.Frame(PFN(a))
		require.NoError(t, err)
		if f[a-FrameAddr(PFN(a))] != want {
			t.Fatalf("byte %d at %#x: %#x, want %#x", i, a, f[a-FrameAddr(PFN(a))], want)
		}
	}
	// A read spanning a written and an untouched frame.
	tail := make([]byte, 200)
	require.NoError(t, m.ReadHost(3*PageSize-100, tail))
	for i, b := range tail[100:] {
		if b != 0 {
			t.Fatalf("untouched frame byte %d = %#x", i, b)
		}
	}
	s := m.Stats()
	if s.DMAWrites != 1 || s.DMAReads != 2 || s.DMABytesIn != 6000 || s.DMABytesOut != 6200 || s.Frames != 3 {
		t.Errorf("stats %+v", s)
	}
}

func TestHostMemorySparse(t *testing.T) {
	m := newHostMem(t, DefaultHostMemory)
	b := make([]byte, 64)
	require.NoError(t, m.ReadHost(200<<20, b))
	if m.Stats().Frames != 0 || m.FrameAllocated(PFN(200<<20)) {
		t.Error("a read allocated a frame")
	}
	require.NoError(t, m.PutUint32(200<<20, 1))
	if !m.FrameAllocated(PFN(200<<20)) || m.Stats().Frames != 1 {
		t.Error("a write did not allocate its frame")
	}
	if s := m.Stats(); s.DMABytesIn != 0 || s.DMABytesOut != 64 {
		t.Errorf("host-model access counted as DMA: %+v", s)
	}
}

func TestHostMemoryWildAddress(t *testing.T) {
	m := newHostMem(t, 2*PageSize)
	p := []byte{1, 2, 3, 4}
	cases := []struct {
		addr uint64
		n    int
	}{
		{2 * PageSize, 1},          // first byte past the end
		{2*PageSize - 2, 4},        // straddles the end
		{1 << 40, 4},               // far away (a 64-bit PCI address)
		{^uint64(0) - 1, 4},        // wraps around
		{2*PageSize + 1, 0},        // empty, but starts past the end
		{0, 2*PageSize + 1},        // longer than memory
		{^uint64(0), 2 * PageSize}, // overflow of addr+len
	}
	for _, c := range cases {
		buf := make([]byte, c.n)
		copy(buf, p)
		for _, op := range []struct {
			name string
			f    func(uint64, []byte) error
			dma  bool
		}{{"ReadHost", m.ReadHost, true}, {"WriteHost", m.WriteHost, true}, {"Read", m.Read, false}, {"Write", m.Write, false}} {
			before := bytes.Clone(buf)
			err := op.f(c.addr, buf)
			if !bytes.Equal(buf, before) { // (the board's DMA engine reads into SRAM in place)
				t.Errorf("%s(%#x, %d) failed but changed its buffer", op.name, c.addr, c.n)
			}
			if !errors.Is(err, ErrWildAddress) {
				t.Errorf("%s(%#x, %d): %v, want a wild-address error", op.name, c.addr, c.n, err)
				continue
			}
			var ae *AddressError
			if !errors.As(err, &ae) || ae.Addr != c.addr || ae.Len != c.n || ae.DMA != op.dma {
				t.Errorf("%s: error %#v", op.name, ae)
			}
		}
	}
	if m.Stats().Frames != 0 {
		t.Error("a failed write changed memory")
	}
	err := m.WriteHost(1<<40, p)
	if got := err.Error(); got != "hostbus: wild DMA address: 4-byte DMA write at 0x10000000000, outside host memory [0, 0x2000)" {
		t.Errorf("message %q", got)
	}
	// Exactly up to the end is fine.
	if err := m.WriteHost(2*PageSize-4, p); err != nil {
		t.Error(err)
	}
	if _, err := m.Frame(2); !errors.Is(err, ErrWildAddress) {
		t.Errorf("Frame(2): %v", err)
	}
	if err := m.CopyFrame(0, 5); !errors.Is(err, ErrWildAddress) {
		t.Errorf("CopyFrame: %v", err)
	}
	if m.Stats().Wild == 0 {
		t.Error("wild accesses not counted")
	}
}

func TestHostMemoryLittleEndian(t *testing.T) {
	m := newHostMem(t, 2*PageSize)
	a := uint64(PageSize - 3) // crosses into frame 1
	require.NoError(t, m.PutUint64(a, 0x0102030405060708))
	want := []byte{8, 7, 6, 5, 4, 3, 2, 1}
	got := make([]byte, 8)
	if err := m.Read(a, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("bytes % x (%v), want % x", got, err, want)
	}
	if v, _ := m.Uint32(a); v != 0x05060708 {
		t.Errorf("Uint32 %#x", v)
	}
	if v, _ := m.Uint16(a + 6); v != 0x0102 {
		t.Errorf("Uint16 %#x", v)
	}
	if v, _ := m.Uint8(a + 7); v != 1 {
		t.Errorf("Uint8 %#x", v)
	}
	if v, _ := m.Uint64(a); v != 0x0102030405060708 {
		t.Errorf("Uint64 %#x", v)
	}
	_ = m.PutUint16(0, 0xBEEF)
	_ = m.PutUint32(4, 0xCAFEF00D)
	_ = m.PutUint8(9, 0x7F)
	if err := m.Read(0, got); err != nil || !bytes.Equal(got, []byte{0xEF, 0xBE, 0, 0, 0x0D, 0xF0, 0xFE, 0xCA}) {
		t.Errorf("% x", got)
	}
	if _, err := m.Uint32(2*PageSize - 2); !errors.Is(err, ErrWildAddress) {
		t.Errorf("Uint32 at the end: %v", err)
	}
}

func TestHostMemoryFrames(t *testing.T) {
	m := newHostMem(t, 8*PageSize)
	f, err := m.Frame(3)
	require.NoError(t, err)
	f[10] = 0x5A // the slice aliases memory
	if v, _ := m.Uint8(FrameAddr(3) + 10); v != 0x5A {
		t.Fatalf("frame write not visible: %#x", v)
	}
	require.NoError(t, m.CopyFrame(5, 3))
	f[10] = 0 // the copy is independent
	if v, _ := m.Uint8(FrameAddr(5) + 10); v != 0x5A {
		t.Errorf("copied frame byte %#x", v)
	}
	if err := m.CopyFrame(5, 6); err != nil { // from an untouched frame
		t.Fatal(err)
	}
	if m.FrameAllocated(5) {
		t.Error("copy of an untouched frame left store behind")
	}
	_ = m.PutUint32(FrameAddr(1), 7)
	require.NoError(t, m.ZeroFrame(1))
	if v, _ := m.Uint32(FrameAddr(1)); v != 0 || m.FrameAllocated(1) {
		t.Errorf("zeroed frame reads %#x", v)
	}
	if err := m.ReleaseFrame(8); !errors.Is(err, ErrWildAddress) {
		t.Errorf("ReleaseFrame past the end: %v", err)
	}
	if PFN(0x12345) != 0x12 || FrameAddr(0x12) != 0x12000 {
		t.Error("PFN/FrameAddr")
	}
}
