package board

import (
	"testing"

	"github.com/stretchr/testify/require"

	"lanaiemu/fabric"
	"lanaiemu/lanai"
	"lanaiemu/lanai/profile"
	"lanaiemu/sim"
)

// A runner that keeps a link's notes (SetNotes) and asks NextSync again
// only when they say the send records changed keeps the link's answer
// through every kind of change: sends made directly and deferred (the
// crew's replay), packets held back by an unarmed receiver, the fabric's
// done calls, completions and a reset of the sending board with packets
// in flight. The interactions it takes are the link's count of them.
func TestLinkNotesMarkEveryChange(t *testing.T) {
	a, b, q := linkPair(t, fabric.Faults{}, 0, 0, nil)
	coreWrite(t, b, RegRML, 0x8000) // not armed: packets wait in the fabric
	l := a.Link()
	var notes LinkNotes
	l.notes.SyncStale = false // as if asked already: the runner's copy must still be stale
	l.SetNotes(&notes)
	require.True(t, notes.SyncStale, "SetNotes marks the notes stale")
	sync, asked := sim.Never, 0
	inter := l.Stats().Interactions
	check := func() {
		t.Helper()
		if notes.SyncStale {
			notes.SyncStale = false
			sync = l.NextSync()
			asked++
		}
		require.Equal(t, l.NextSync(), sync, "NextSync kept by the runner")
		k, _ := notes.Take()
		require.Equal(t, l.Stats().Interactions-inter, k, "interactions taken")
		inter = l.Stats().Interactions
	}
	sent, stored, resets, blocked := 0, uint64(0), 0, uint64(0)
	for step := range 6000 {
		if sent < 8 && l.sendIdle && step >= 400*sent {
			a.SetDeferred(sent%2 == 1) // every other packet as a parallel step sends it
			coreWrite(t, a, RegSMP, 0x2000)
			coreWrite(t, a, RegSMLT, 0x2000+512)
			a.SetDeferred(false)
			check()
			a.RunDeferred()
			sent++
		}
		if step == 300 || b.Link().Stats().PacketsRecv > stored && !b.Link().rxBusy {
			stored = b.Link().Stats().PacketsRecv
			coreWrite(t, b, RegRMP, 0x8000)
			coreWrite(t, b, RegRML, 0x9000) // (re-)arm: the next packet may come
		}
		if resets == 0 && step >= 2000 && len(l.pending) > 0 {
			blocked = l.Stats().BlockedSends // the reset clears the counters
			a.SetReset(true)                 // the records in flight are dropped
			a.SetReset(false)
			resets++
			inter = 0 // the reset also clears the link's counters
		}
		check()
		q.RunUntil(a.Clock().Time(a.CPU().Cycles + 50))
		check()
		if st := a.Run(50); st.Kind == lanai.StopTrap {
			t.Fatalf("sender: %v", st)
		}
		b.Run(50)
		check()
	}
	if blocked += l.Stats().BlockedSends; sent != 8 || blocked == 0 || resets != 1 || asked < 2*sent {
		t.Fatalf("sent %d, received %d, blocked %d, reset %d times; NextSync asked %d times",
			sent, b.Link().Stats().PacketsRecv, blocked, resets, asked)
	}
	t.Logf("sent %d, received %d, blocked %d, NextSync asked %d times in 6000 steps", sent, b.Link().Stats().PacketsRecv, blocked, asked)

	// Back to the link's own notes: what the runner had not taken moves along.
	coreWrite(t, b, RegRMP, 0x8000)
	coreWrite(t, b, RegRML, 0x9000)
	coreWrite(t, b, RegRML, 0x9000) // a second arm: still one interaction each
	kb, _ := b.Link().TakeInteractions()
	require.NotZero(t, kb)
	coreWrite(t, a, RegSMP, 0x2000)
	coreWrite(t, a, RegSMLT, 0x2000+64)
	l.SetNotes(nil)
	k, _ := l.TakeInteractions()
	require.Equal(t, uint64(1), k, "the send noted in the runner's notes, taken from the link's own")
}

// stepCounter counts the instructions it is told of.
type stepCounter struct{ n uint64 }

func (o *stepCounter) Observe(*lanai.CPU, *profile.Step) { o.n++ }

// Direct says whether Run is the core's Run, and the run hook hears of
// every change of it: holding in reset, releasing, observing.
func TestRunHookHearsDirect(t *testing.T) {
	b, err := New(Config{})
	require.NoError(t, err)
	for i, w := range []uint32{0x018C0001, 0xE0000000, 0x00000000} { // add %r3, 1, %r3; bt 0; nop
		b.CPU().Mem.Write(uint32(4*i), []byte{byte(w >> 24), byte(w >> 16), byte(w >> 8), byte(w)})
	}
	var heard []bool
	b.SetRunHook(func() { heard = append(heard, b.Direct()) })
	require.True(t, b.Direct())
	b.SetReset(true)
	b.SetReset(true) // no change: nothing to hear
	i0 := b.CPU().Instret
	b.Run(100)
	require.Equal(t, i0, b.CPU().Instret, "held")
	b.SetReset(false)
	var o stepCounter
	b.Observe(&o)
	i0 = b.CPU().Instret
	b.Run(100)
	require.Equal(t, b.CPU().Instret-i0, o.n, "observed")
	require.Equal(t, []bool{false, true, false}, heard)
	b.SetRunHook(nil)
	b.SetReset(true)
	require.Len(t, heard, 3)
}
