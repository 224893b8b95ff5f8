package run

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"lanaiemu/dap"
	"lanaiemu/internal/readfile"
)

// dapArgs are the launch request's arguments for a cluster.
type dapArgs struct {
	// Scenario is the scenario file (relative to Cwd, if given).
	Scenario string `json:"scenario"`
	// Root is the module's root, where the firmware's sources are found
	// (default: the first directory holding firmware/netvm upward from
	// the scenario, else Cwd).
	Root string `json:"root"`
	Cwd  string `json:"cwd"`
}

// Launcher makes the Debug Adapter Protocol's sessions of a cluster (netvm
// dap): the launch request names a scenario; every node's core is a
// thread; the scenario's end reports the exit code 0 when every workload
// is done (1 otherwise) and the result on the console.
func Launcher() dap.Launcher {
	return func(raw json.RawMessage, console, transcript io.Writer) (*dap.Session, error) {
		var a dapArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("launch arguments: %v", err)
		}
		if a.Scenario == "" {
			return nil, fmt.Errorf("launch: \"scenario\" must name a scenario file (fixtures/netvm/scenarios)")
		}
		path := a.Scenario
		if !filepath.IsAbs(path) && a.Cwd != "" {
			path = filepath.Join(a.Cwd, path)
		}
		data, err := readfile.Read(path, readfile.Text)
		if err != nil {
			return nil, err
		}
		sc, err := Parse(a.Scenario, data) // messages name the file as the client did
		if err != nil {
			return nil, err
		}
		root := a.Root
		if root == "" {
			root = findRoot(filepath.Dir(path), a.Cwd)
		}
		s, d, err := NewDebugSession(sc, transcript, DebugConfig{Root: root})
		if err != nil {
			return nil, err
		}
		return &dap.Session{
			Debugger: d,
			Close:    s.Close,
			Devices:  s.devices,
			Finish: func() (int, string) {
				res, err := s.Finish()
				if err != nil {
					return 1, fmt.Sprintf("the run failed: %v\n", err)
				}
				code := 0
				for _, w := range res.Workloads {
					if !w.Done {
						code = 1
					}
				}
				out, _ := json.MarshalIndent(res, "", "  ")
				return code, string(out) + "\n"
			},
		}, nil
	}
}

// findRoot gives the first directory holding firmware/netvm at or above
// dir, else cwd.
func findRoot(dir, cwd string) string {
	d, err := filepath.Abs(dir)
	for err == nil {
		if st, e := os.Stat(filepath.Join(d, "firmware", "netvm")); e == nil && st.IsDir() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return cwd
}

// devices shows node th's board and the time.
func (s *DebugSession) devices(th int) []dap.Var {
	return append(dap.BoardVars(s.c.Nodes[th].Board), dap.Var{Name: "time", Value: us(s.c.Now())})
}
