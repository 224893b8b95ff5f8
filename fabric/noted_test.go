package fabric

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/sim"
)

// notedRecv is a NotedEndpoint that logs deliveries with their notes.
type notedRecv struct {
	pkts  [][]byte
	notes []uint32
}

func (r *notedRecv) Ready() bool                       { return true }
func (r *notedRecv) Deliver(pkt []byte, _, _ sim.Time) { r.DeliverNoted(pkt, 0, 0, 0) }
func (r *notedRecv) DeliverNoted(pkt []byte, _, _ sim.Time, note uint32) {
	r.pkts, r.notes = append(r.pkts, pkt), append(r.notes, note)
}

// SendNoted's contract: the note reaches a NotedEndpoint only with the
// bytes as sent, and then the bytes left to compute stay as given; the
// fabric fills them in (once) before a corruption fault flips a bit, before
// it delivers with route bytes in front, and before it delivers to an
// endpoint that takes no note. A corrupted packet comes with NoteCorrupted
// instead, noted or not.
func TestSendNoted(t *testing.T) {
	const note = 7
	sent := payload(100, 0, 1) // its last byte is "left to compute": 0 here
	sent[99] = 0
	filled := append([]byte(nil), sent...)
	filled[99] = 0xA5
	for _, tc := range []struct {
		name     string
		corrupt  bool
		route    []byte
		plain    bool
		note     uint32
		wantNote uint32
		fills    int
	}{
		{"intact", false, nil, false, note, note, 0},
		{"corrupted", true, nil, false, note, NoteCorrupted, 1},
		{"corrupted without a note", true, nil, false, 0, NoteCorrupted, 1},
		{"corrupted, route byte in front", true, []byte{0x81}, false, note, NoteCorrupted, 1},
		{"route byte in front", false, []byte{0x81}, false, note, 0, 1},
		{"endpoint without notes", false, nil, true, note, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q sim.Queue
			f, err := BackToBack(&q, sim.NewRand(3), DefaultConfig())
			require.NoError(t, err)
			nr, pr := &notedRecv{}, &recv{}
			if tc.plain {
				require.NoError(t, f.Attach(1, pr))
			} else {
				require.NoError(t, f.Attach(1, nr))
			}
			if tc.corrupt {
				require.NoError(t, f.SetFaults(Faults{CorruptPPM: 1_000_000}))
			}
			fills := 0
			fill := func(p []byte) { fills++; p[len(p)-1] = 0xA5 }
			require.NoError(t, f.SendNoted(0, tc.route, sent, tc.note, fill, 0, nil))
			q.RunUntil(sim.Millisecond)
			var pkt []byte
			if tc.plain {
				require.Len(t, pr.log, 1)
				pkt = pr.log[0].pkt
			} else {
				require.Len(t, nr.pkts, 1)
				pkt = nr.pkts[0]
				require.Equal(t, tc.wantNote, nr.notes[0])
			}
			require.Equal(t, tc.fills, fills)
			pkt = pkt[len(tc.route):]
			switch {
			case tc.fills == 0:
				require.Equal(t, sent, pkt)
			case tc.corrupt:
				diff := 0
				for i := range pkt {
					diff += bits.OnesCount8(pkt[i] ^ filled[i])
				}
				require.Equal(t, 1, diff, "one bit flipped after the fill")
			default:
				require.Equal(t, filled, pkt)
			}
		})
	}
}

// A sender's note may not use NoteCorrupted: the receiver could not tell
// it from a corruption.
func TestSendNotedRejectsNoteCorrupted(t *testing.T) {
	var q sim.Queue
	f, err := BackToBack(&q, sim.NewRand(3), DefaultConfig())
	require.NoError(t, err)
	require.ErrorIs(t, f.SendNoted(0, nil, payload(10, 0, 1), NoteCorrupted|1, nil, 0, nil), ErrBadArgument)
	require.Zero(t, f.Totals().Sent)
}

// cableWatch is a PortWatcher that logs what it is told.
type cableWatch struct {
	recv
	told []bool
}

func (w *cableWatch) PortCabled(cabled bool) { w.told = append(w.told, cabled) }

// A PortWatcher hears at Attach whether its port has a cable, and hears
// when Connect cables it later, whichever end of the cable it is.
func TestPortWatcher(t *testing.T) {
	var q sim.Queue
	f, err := New(&q, sim.NewRand(1), DefaultConfig())
	require.NoError(t, err)
	require.NoError(t, f.AddEndpoint(0))
	require.NoError(t, f.AddEndpoint(1))
	require.NoError(t, f.AddEndpoint(2))
	sw, err := f.AddSwitch(4)
	require.NoError(t, err)
	w0, w1, w2 := &cableWatch{}, &cableWatch{}, &cableWatch{}
	require.NoError(t, f.Attach(0, w0))
	require.NoError(t, f.Attach(1, w1))
	_, _, err = f.Connect(EndpointPort(0), EndpointPort(1), DefaultConfig().Link)
	require.NoError(t, err)
	_, _, err = f.Connect(SwitchPort(sw, 0), EndpointPort(2), DefaultConfig().Link)
	require.NoError(t, err)
	require.NoError(t, f.Attach(2, w2))
	require.Equal(t, []bool{false, true}, w0.told)
	require.Equal(t, []bool{false, true}, w1.told)
	require.Equal(t, []bool{true}, w2.told)
}

// Disconnect pulls a cable between packets: both ends' watchers hear it,
// the uncabled endpoint's sends are refused, a route over the cable leads
// nowhere, and Connect plugs the port again. A busy network, an uncabled
// port and an unknown port are errors.
func TestDisconnect(t *testing.T) {
	var q sim.Queue
	f, err := Star(&q, sim.NewRand(1), DefaultConfig(), 3)
	require.NoError(t, err)
	w0, w1 := &cableWatch{}, &cableWatch{}
	require.NoError(t, f.Attach(0, w0))
	require.NoError(t, f.Attach(1, w1))
	route, err := f.Route(0, 1)
	require.NoError(t, err)

	require.NoError(t, f.Send(0, route, payload(100, 0, 1), 0, nil))
	require.ErrorIs(t, f.Disconnect(EndpointPort(1)), ErrBusy)
	q.RunUntil(sim.Millisecond)
	require.Len(t, w1.log, 1)

	require.NoError(t, f.Disconnect(EndpointPort(1)))
	require.Equal(t, []bool{true, false}, w1.told, "the unplugged end")
	require.Equal(t, []bool{true}, w0.told, "the other end of the route keeps its cable")
	require.ErrorIs(t, f.Disconnect(EndpointPort(1)), ErrNotConnected)
	require.ErrorIs(t, f.Disconnect(EndpointPort(7)), ErrUnknownNode)
	require.ErrorIs(t, f.Send(1, nil, payload(10, 0, 1), q.Now(), nil), ErrNotConnected)
	_, err = f.LinkFrom(EndpointPort(1))
	require.ErrorIs(t, err, ErrNotConnected)

	done := false
	require.NoError(t, f.Send(0, route, payload(100, 0, 1), q.Now(), func(sim.Time, error) { done = true }))
	q.RunUntil(2 * sim.Millisecond)
	require.True(t, done, "the sender's transmission completes")
	require.Len(t, w1.log, 1, "nothing reaches the unplugged endpoint")
	require.Equal(t, uint64(1), f.Totals().Drops[DropNoRoute])

	_, _, err = f.Connect(EndpointPort(1), SwitchPort(0, 1), DefaultConfig().Link)
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, true}, w1.told)
	require.NoError(t, f.Send(0, route, payload(100, 0, 1), q.Now(), nil))
	q.RunUntil(3 * sim.Millisecond)
	require.Len(t, w1.log, 2, "plugged again")
}
