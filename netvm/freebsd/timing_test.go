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
	for _, bad := range []string{"signal=17us", "wakeup", "wakeup=5", "wakeup=2s", "syscall=1us,nope=1us", "", "syscall=1ps,syscall=2ps", "wakeup=1us, wakeup=1us"} {
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

// FuzzTimingSet: any list either sets costs that each stay within a
// second, or is refused and changes nothing; it never panics.
func FuzzTimingSet(f *testing.F) {
	for _, s := range []string{"signal-delivery=17us", "wakeup=4.5us,syscall=0ns", "x=1", "page-in=1s", "=,", "pio-landing=1e9s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		tm := DefaultTiming()
		if err := tm.Set(list); err != nil {
			if tm != DefaultTiming() {
				t.Fatalf("refused %q but changed the costs", list)
			}
			return
		}
		for _, c := range timingCosts {
			if d := *c.field(&tm); d > maxCost {
				t.Fatalf("%q set %s to %v", list, c.name, d)
			}
		}
	})
}
