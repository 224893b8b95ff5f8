package scenario

import (
	"os"
	"testing"
)

// TestCplantRTSMCP9 boots Sandia's Cplant MCP for the LANai 9 (rtsmcp.9,
// named by $LANAI_RTSMCP9; docs/cplant.md says where to get it) on two
// boards, back to back and through a switch, with the host side scripted
// in fixtures/scenarios/cplant/host.json from Cplant's driver: the loader,
// the MCP's 16 DMA self-tests, its self-test packet, then 19 packets each
// way (messages of 4 B to 16 KiB, cut at the MCP's 8160-byte MTU, and
// three odd sizes). Every packet must be marked good by the receiving MCP
// with its payload intact in the host page, with no wrngprtcl and no CRC
// error or CRC dump counted during the exchange.
func TestCplantRTSMCP9(t *testing.T) {
	path := os.Getenv("LANAI_RTSMCP9")
	if path == "" {
		t.Skip("LANAI_RTSMCP9 is not set: set it to Cplant's rtsmcp.9 to run this test (docs/cplant.md)")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("LANAI_RTSMCP9: %v", err)
	}
	for _, c := range []struct {
		file         string
		selfTest     uint32 // SELF_TEST_OK through a switch, UNKNOWN back to back
		setupWrong   uint32 // the peer's self-test packet back to back
		setupDumpCRC uint32
	}{
		{"cplant-switch.json", 1, 0, 0},
		{"cplant-b2b.json", 0, 1, 1},
	} {
		t.Run(c.file, func(t *testing.T) {
			w := build(t, c.file)
			if err := w.Run(nil); err != nil {
				t.Fatal(err)
			}
			if err := w.HostErr(); err != nil || w.Status() != StatusOK {
				t.Fatalf("status %d: %v", w.Status(), err)
			}
			st := w.W.Stats()
			for i, r := range w.HostResults() {
				v := r.Vars
				for _, l := range r.Log {
					t.Log(l)
				}
				l := st.Nodes[i].Link
				t.Logf("node %d link: %d packets sent, %d received, CRC-8 errors %d, CRC-32 errors %d",
					i, l.PacketsSent, l.PacketsRecv, l.CRC8Errors, l.CRC32Errors)
				want := map[string]uint32{
					"dma_ok": 16, "dma_test_failed": 2, "k": 19, "rx_pkts": 19, "rx_bad": 0, "rx_mismatch": 0,
					"sends": 19, "rcvs": 19, "crc": 0, "truncated": 0, "toolong": 0, "hst_dly": 0, "send_timeout": 0,
					"self_test": c.selfTest, "setup_wrngprtcl": c.setupWrong, "wrngprtcl": c.setupWrong,
					"setup_dumped_crc": c.setupDumpCRC, "dumped_crc": c.setupDumpCRC, "dumped": 0,
				}
				for k, x := range want {
					if v[k] != x {
						t.Errorf("node %d: %s = %d, want %d", i, k, v[k], x)
					}
				}
				if v["rx_bytes"] != v["tx_bytes"] || v["tx_bytes"] < 16384 {
					t.Errorf("node %d: %d bytes received, %d sent", i, v["rx_bytes"], v["tx_bytes"])
				}
			}
		})
	}
}
