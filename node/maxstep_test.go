package node

import (
	"errors"
	"testing"

	"lanaiemu/board"
	"lanaiemu/fabric"
	"lanaiemu/sim"
)

// A step longer than MaxStep is refused when the world is made: with a
// link latency near 2^64 ps the sum of a step's start and its length
// wrapped, and Run never reached its end.
func TestStepsOverMaxStepRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		latency sim.Time
		cfg     Config
		ok      bool
	}{
		{"default", fabric.DefaultLinkLatency, Config{}, true},
		{"latency at MaxStep", MaxStep, Config{}, true},
		{"latency over MaxStep", MaxStep + 1, Config{}, false},
		{"latency near 2^64", sim.Never - sim.Second, Config{}, false},
		{"quantum over MaxStep", sim.Never - sim.Second, Config{Quantum: MaxStep + 1}, false},
		{"quantum at MaxStep", sim.Never - sim.Second, Config{Quantum: MaxStep}, true},
		{"idle step over MaxStep", fabric.DefaultLinkLatency, Config{MaxIdleStep: MaxStep + 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &sim.Queue{}
			fc := fabric.DefaultConfig()
			fc.Link.Latency = tc.latency
			f, err := fabric.BackToBack(q, nil, fc)
			if err != nil {
				t.Fatal(err)
			}
			var boards []*board.Board
			for range 2 {
				b, err := board.New(board.Config{})
				if err != nil {
					t.Fatal(err)
				}
				boards = append(boards, b)
			}
			_, err = New(q, f, boards, tc.cfg)
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrBadConfig) {
				t.Fatalf("got %v, want ErrBadConfig", err)
			}
		})
	}
}
