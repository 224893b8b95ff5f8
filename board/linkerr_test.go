package board

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/fabric"
	"lanaiemu/lanai"
	"lanaiemu/lanai/lanaitest"
	"lanaiemu/sim"
)

// linkErrBoard boots testdata/linkerr.s with its data words set from vars
// and records the host interrupt line's changes in irq.
func linkErrBoard(t *testing.T, vars map[string]uint32, irq *[]bool) (*Board, func(name string) uint32) {
	t.Helper()
	cfg := Config{OnIRQ: func(_ uint64, level bool) { *irq = append(*irq, level) }}
	b, syms := boot(t, cfg, lanaitest.BuildFiles(t, "testdata/linkerr.s"))
	for name, v := range vars {
		a, ok := syms[name]
		require.True(t, ok, name)
		require.NoError(t, b.CPU().Mem.Write(a, binary.BigEndian.AppendUint32(nil, v)))
	}
	word := func(name string) uint32 {
		a := syms[name]
		return binary.BigEndian.Uint32(b.CPU().Mem.SRAM[a:])
	}
	return b, word
}

// runUntilExit runs the fabric's queue and the boards in steps of step
// cycles of the last board until that one stops.
func runUntilExit(t *testing.T, q *sim.Queue, step uint64, boards ...*Board) uint32 {
	t.Helper()
	last := boards[len(boards)-1]
	for range 1000 {
		q.RunUntil(last.Clock().Time(last.CPU().Cycles + step))
		for _, b := range boards[:len(boards)-1] {
			b.Run(step)
		}
		switch st := last.Run(step); st.Kind {
		case lanai.StopExit:
			return st.Code
		case lanai.StopCycleLimit:
		default:
			t.Fatalf("stopped: %s", stopText(st))
		}
	}
	t.Fatalf("no exit: %+v, ISR %#x", last.Link().Stats(), last.ISR())
	return 0
}

// LINK_DOWN is a level: up while the board's fabric port has no cable,
// whatever ISR writes (the firmware's and the host's) say, through a
// board reset; it falls when a cable is connected, and with it the host
// interrupt it raised through EIMR. A cabled board and one attached to no
// fabric never see it.
func TestLinkDownWithoutCable(t *testing.T) {
	q := &sim.Queue{}
	f, err := fabric.New(q, sim.NewRand(1), fabric.DefaultConfig())
	require.NoError(t, err)
	require.NoError(t, f.AddEndpoint(0))
	require.NoError(t, f.AddEndpoint(1))
	var irq []bool
	b, word := linkErrBoard(t, map[string]uint32{"eimr": LinkDownBit, "want": LinkDownBit, "clear": LinkDownBit, "gone": LinkDownBit}, &irq)
	require.Zero(t, b.ISR()&LinkDownBit, "attached to no fabric")
	require.NoError(t, b.Link().Connect(f, q, 0))
	require.NotZero(t, b.ISR()&LinkDownBit, "attached to a port without a cable")

	require.Equal(t, lanai.StopCycleLimit, b.Run(20_000).Kind, "the firmware saw LINK_DOWN fall without a cable")
	require.NotZero(t, word("seen")&LinkDownBit)
	require.NotZero(t, word("after")&LinkDownBit, "a LANai write of 1 cleared the level bit")
	require.Equal(t, []bool{true}, irq, "EIMR = LINK_DOWN raises the host interrupt")
	require.NoError(t, b.HostWriteSpecial(RegISR, LinkDownBit))
	require.NotZero(t, b.ISR()&LinkDownBit, "a host write of 1 cleared the level bit")

	_, _, err = f.Connect(fabric.EndpointPort(0), fabric.EndpointPort(1), fabric.DefaultConfig().Link)
	require.NoError(t, err)
	require.Zero(t, b.ISR()&LinkDownBit, "cabled")
	require.Equal(t, []bool{true, false}, irq)
	require.NotZero(t, runUntilExit(t, q, 1000, b)&LinkDownBit)

	// A board reset keeps the level of a port still without a cable.
	f2, err := fabric.New(q, sim.NewRand(1), fabric.DefaultConfig())
	require.NoError(t, err)
	require.NoError(t, f2.AddEndpoint(0))
	c, _ := boot(t, Config{}, lanaitest.Build(t, inline(idleSrc)))
	require.NoError(t, c.Link().Connect(f2, q, 0))
	c.Reset(0)
	require.Equal(t, LinkDownBit|SendIntBit, c.ISR())

	a, d, _ := linkPair(t, fabric.Faults{}, 0, 0, nil)
	require.Zero(t, (a.ISR()|d.ISR())&LinkDownBit, "back to back")
}

// A cable pulled out during a run (fabric.Disconnect, between packets)
// raises LINK_DOWN at both ends and the host interrupt through EIMR; the
// firmware cannot clear it; plugged again, it falls.
func TestLinkDownWhenUnplugged(t *testing.T) {
	q := &sim.Queue{}
	f, err := fabric.BackToBack(q, sim.NewRand(1), fabric.DefaultConfig())
	require.NoError(t, err)
	a, _ := boot(t, Config{}, lanaitest.Build(t, inline(idleSrc)))
	var irq []bool
	b, word := linkErrBoard(t, map[string]uint32{"eimr": LinkDownBit, "want": LinkDownBit, "clear": LinkDownBit, "gone": LinkDownBit}, &irq)
	require.NoError(t, a.Link().Connect(f, q, 0))
	require.NoError(t, b.Link().Connect(f, q, 1))
	require.Equal(t, lanai.StopCycleLimit, b.Run(10_000).Kind)
	require.Zero(t, b.ISR()&LinkDownBit, "cabled")
	require.Empty(t, irq)

	require.NoError(t, f.Disconnect(fabric.EndpointPort(0)))
	require.NotZero(t, a.ISR()&LinkDownBit, "the end the cable was pulled at")
	require.NotZero(t, b.ISR()&LinkDownBit, "the far end")
	require.Equal(t, []bool{true}, irq)
	require.Equal(t, lanai.StopCycleLimit, b.Run(10_000).Kind, "the firmware saw LINK_DOWN fall without a cable")
	require.NotZero(t, word("seen")&LinkDownBit)
	require.NotZero(t, word("after")&LinkDownBit, "a LANai write of 1 cleared the level bit")

	_, _, err = f.Connect(fabric.EndpointPort(0), fabric.EndpointPort(1), fabric.DefaultConfig().Link)
	require.NoError(t, err)
	require.Zero(t, (a.ISR()|b.ISR())&LinkDownBit, "plugged again")
	require.Equal(t, []bool{true, false}, irq)
	require.NotZero(t, runUntilExit(t, q, 1000, b)&LinkDownBit)
}

// illegalRun sends a 256-byte packet with a CRC-8 from an idle board to
// linkerr.s, which writes my to MYRINET, enables ILLEGAL_RECEIVED_INT in
// EIMR, waits for RECV_INT and clears ILLEGAL_RECEIVED_INT.
func illegalRun(t *testing.T, fl fabric.Faults, my uint32) (seen, after uint32, irq []bool, st LinkStats) {
	q := &sim.Queue{}
	f, err := fabric.BackToBack(q, sim.NewRand(1), fabric.DefaultConfig())
	require.NoError(t, err)
	require.NoError(t, f.SetFaults(fl))
	a, _ := boot(t, Config{}, lanaitest.Build(t, inline(idleSrc)))
	b, word := linkErrBoard(t, map[string]uint32{"myrinet": my, "eimr": IllegalReceivedIntBit, "bufsize": 1024,
		"want": RecvIntBit | BuffIntBit, "clear": IllegalReceivedIntBit}, &irq)
	require.NoError(t, a.Link().Connect(f, q, 0))
	require.NoError(t, b.Link().Connect(f, q, 1))
	require.NoError(t, a.HostWriteSpecial(RegMYRINET, MyrinetTxCRC8Enable))
	for i := range uint32(256) {
		a.CPU().Mem.SRAM[0x2000+i] = byte(i*7+i>>5) &^ fabric.RouteBit
	}
	coreWrite(t, a, RegSMP, 0x2000)
	coreWrite(t, a, RegSMLT, 0x2000+256)
	seen = runUntilExit(t, q, 1000, a, b)
	require.Equal(t, seen, word("seen"))
	return seen, word("after"), irq, b.Link().Stats()
}

// A packet a corruption fault changed raises ILLEGAL_RECEIVED_INT with its
// RECV_INT when MYRINET's ILLEGAL_ENABLE is on, and the host interrupt
// through EIMR; a LANai write of 1 clears it and the line falls. Without
// ILLEGAL_ENABLE, or without a fault, nothing but RECV_INT rises.
func TestIllegalReceived(t *testing.T) {
	corrupt := fabric.Faults{CorruptPPM: 1_000_000}
	on := MyrinetRxCRC8Enable | MyrinetIllegalEnable

	seen, after, irq, st := illegalRun(t, corrupt, on)
	require.Equal(t, uint64(1), st.CRC8Errors, "the flipped bit fails the CRC-8")
	require.NotZero(t, seen&IllegalReceivedIntBit, "seen %#x", seen)
	require.NotZero(t, seen&RecvIntBit)
	require.Zero(t, after&IllegalReceivedIntBit, "a write of 1 clears it: after %#x", after)
	require.NotZero(t, after&RecvIntBit, "RECV_INT is a level")
	require.Equal(t, []bool{true, false}, irq)

	seen, _, irq, st = illegalRun(t, corrupt, MyrinetRxCRC8Enable)
	require.Equal(t, uint64(1), st.CRC8Errors)
	require.Zero(t, seen&IllegalReceivedIntBit, "ILLEGAL_ENABLE off: seen %#x", seen)
	require.Empty(t, irq)

	seen, _, irq, st = illegalRun(t, fabric.Faults{}, on)
	require.Zero(t, st.CRC8Errors)
	require.Zero(t, seen&IllegalReceivedIntBit, "an intact packet: seen %#x", seen)
	require.Empty(t, irq)
}

// A packet over 16 MiB (the send engine's limit, linkMaxPacket) raises
// RX_TOO_LONG_INT with its BUFF_INT; one of exactly 16 MiB does not. A
// LANai write of 1 clears it; the host interrupt follows through EIMR.
func TestRxTooLong(t *testing.T) {
	for _, n := range []int{linkMaxPacket, linkMaxPacket + 1} {
		q := &sim.Queue{}
		f, err := fabric.BackToBack(q, sim.NewRand(1), fabric.DefaultConfig())
		require.NoError(t, err)
		var irq []bool
		b, word := linkErrBoard(t, map[string]uint32{"eimr": RxTooLongIntBit, "bufsize": 64,
			"want": RecvIntBit | BuffIntBit, "clear": RxTooLongIntBit}, &irq)
		require.NoError(t, b.Link().Connect(f, q, 1))
		require.NoError(t, f.Send(0, nil, make([]byte, n), 0, func(sim.Time, error) {}))
		seen := runUntilExit(t, q, 1_000_000, b)
		require.NotZero(t, seen&BuffIntBit, "seen %#x", seen)
		if n == linkMaxPacket {
			require.Zero(t, seen&RxTooLongIntBit, "%d bytes: seen %#x", n, seen)
			require.Empty(t, irq)
			continue
		}
		require.NotZero(t, seen&RxTooLongIntBit, "%d bytes: seen %#x", n, seen)
		require.Zero(t, word("after")&RxTooLongIntBit, "a write of 1 clears it")
		require.NotZero(t, word("after")&BuffIntBit, "BUFF_INT is a level")
		require.Equal(t, []bool{true, false}, irq)
	}
}

// The send engine's largest packet (16 MiB from SRAM, no TX_TOO_LONG_INT)
// is not too long for the receiver that checks its CRC trailer: the limit
// counts the bytes before the trailer on both sides. One byte more, sent
// in two segments, is.
func TestRxTooLongCountsNoTrailer(t *testing.T) {
	const crcs = MyrinetTxCRC8Enable | MyrinetRxCRC8Enable | MyrinetCRC32Enable
	for _, extra := range []uint32{0, 1} {
		q := &sim.Queue{}
		f, err := fabric.BackToBack(q, sim.NewRand(1), fabric.DefaultConfig())
		require.NoError(t, err)
		a, _ := boot(t, Config{Config: lanai.Config{SRAMSize: 2 * linkMaxPacket}}, lanaitest.Build(t, inline(idleSrc)))
		var irq []bool
		b, _ := linkErrBoard(t, map[string]uint32{"myrinet": crcs, "eimr": RxTooLongIntBit, "bufsize": 64,
			"want": RecvIntBit | BuffIntBit}, &irq)
		require.NoError(t, a.Link().Connect(f, q, 0))
		require.NoError(t, b.Link().Connect(f, q, 1))
		require.NoError(t, a.HostWriteSpecial(RegMYRINET, crcs))
		start := uint32(linkMaxPacket / 2) // zeros: no route bytes
		coreWrite(t, a, RegSMP, start)
		if extra > 0 {
			coreWrite(t, a, RegSML, start) // the first word, the packet stays open
			coreWrite(t, a, RegSMP, start+8)
		}
		coreWrite(t, a, RegSMLT, start+linkMaxPacket+extra)
		require.Zero(t, a.ISR()&TxTooLongIntBit, "the send engine took it whole")
		seen := runUntilExit(t, q, 1_000_000, a, b)
		require.NotZero(t, seen&BuffIntBit, "seen %#x", seen)
		require.Equal(t, extra > 0, seen&RxTooLongIntBit != 0, "%d bytes before the trailer: seen %#x", linkMaxPacket+extra, seen)
	}
}
