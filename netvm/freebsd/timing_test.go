package freebsd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"lanaiemu/sim"
)

// Set changes exactly the costs it names, and refuses a bad list whole.
func TestTimingSet(t *testing.T) {
	tm := DefaultTiming()
	require.NoError(t, tm.Set("signal-delivery=17us, wakeup=4.5us,pio-landing=0ns"))
	want := DefaultTiming()
	want.SignalDelivery, want.Wakeup, want.PIOLanding = 17*sim.Microsecond, 4500*sim.Nanosecond, 0
	if d := cmp.Diff(want, tm); d != "" {
		t.Errorf("after Set (-want +got):\n%s", d)
	}
	for _, bad := range []string{"signal=17us", "wakeup", "wakeup=5", "wakeup=2s", "syscall=1us,nope=1us", ""} {
		before := tm
		require.Error(t, tm.Set(bad), bad)
		require.Equal(t, before, tm, "%q changed the costs", bad)
	}
	// Every name reaches a field of its own.
	seen := map[Timing]string{}
	for _, name := range TimingCostNames() {
		tm := Timing{}
		require.NoError(t, tm.Set(name+"=1ps"))
		require.NotEqual(t, Timing{}, tm, name)
		require.NotContains(t, seen, tm, "%s sets %s's field", name, seen[tm])
		seen[tm] = name
	}
}
