package disasm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCplantImages disassembles Cplant's rtsmcp.4, .7 and .9 when
// LANAI_CPLANT_MCP names their folder (docs/coff.md): every word of the
// LANai 7 and 9 images decodes; the LANai 4 image has exactly the 8 RRR
// words docs/isa.md explains, at the addresses it lists.
func TestCplantImages(t *testing.T) {
	dir := os.Getenv("LANAI_CPLANT_MCP")
	if dir == "" {
		t.Skip("LANAI_CPLANT_MCP is not set: no Cplant rtsmcp images to disassemble (see docs/coff.md)")
	}
	want := map[string]string{
		"rtsmcp.4": "2a64 4c28 4e50 5054 50f4 581c 5b7c 62bc",
		"rtsmcp.7": "",
		"rtsmcp.9": "",
	}
	for name, addrs := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		out := dump(t, name, b, Options{Disassemble: true})
		var unknown []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasSuffix(line, "<unknown>") {
				addr, _, _ := strings.Cut(strings.TrimSpace(line), ":")
				unknown = append(unknown, addr)
				if !strings.Contains(line, ": d") {
					t.Errorf("%s: an unknown word that is not op 1101: %s", name, line)
				}
			}
		}
		if got := strings.Join(unknown, " "); got != addrs {
			t.Errorf("%s: unknown words at [%s], want [%s]", name, got, addrs)
		}
	}
}
