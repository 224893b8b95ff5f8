package crt

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"lanaiemu/asm"
	"lanaiemu/asm/link"
	"lanaiemu/board"
	"lanaiemu/lanai"
	"lanaiemu/objfile"
)

var update = flag.Bool("update", false, "remake testdata/it0.s with clang-14 (on purpose only: say why in the commit)")

// clangIt0 is how testdata/it0.s is made from it0.c, run in testdata.
var clangIt0 = []string{"--target=lanai", "-O2", "-ffreestanding", "-Wall", "-Wextra", "-Werror", "-I..", "-S", "it0.c", "-o"}

// buildImage assembles files (with .include searched in incs), links them
// as lanai-as does and returns the ELF executable.
func buildImage(t *testing.T, incs []string, files ...string) []byte {
	t.Helper()
	var objs []*objfile.File
	for _, f := range files {
		r, err := asm.AssembleFile(f, asm.Options{IncludeDirs: incs})
		if err != nil {
			t.Fatalf("assembling %s: %v", f, err)
		}
		objs = append(objs, r.Object)
	}
	exe, err := link.Link(objs, files, link.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := exe.WriteELF()
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// runBoard loads img on a board and runs it to its exit.
func runBoard(t *testing.T, cfg board.Config, img []byte) (*board.Board, uint32) {
	t.Helper()
	b, err := board.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Load(img); err != nil {
		t.Fatal(err)
	}
	st := b.Run(100_000_000)
	if st.Kind != lanai.StopExit {
		t.Fatalf("stopped with %v at pc %#x (fault: %v)", st.Kind, b.CPU().PC, b.Fault())
	}
	return b, st.Code
}

// TestLanai9C runs testdata/it0.c, clang's output of it kept as
// testdata/it0.s, on the board at two clocks: IT0 armed with 25 ticks
// fires when the RTC, zeroed with it, reads 25; the wait it measured with
// the cycle counter is 25 ticks of 0.5 us at that clock (less the part of
// a tick already gone at the arming, plus a few cycles of polling); the
// TIME0_INT bit it cleared is clear. With clang-14 installed, it0.s must
// be what clang makes of it0.c with today's lanai9.h.
func TestLanai9C(t *testing.T) {
	golden := filepath.Join("testdata", "it0.s")
	if _, err := exec.LookPath("clang-14"); err == nil {
		out := filepath.Join(t.TempDir(), "it0.s")
		if *update {
			out, _ = filepath.Abs(golden)
		}
		cmd := exec.Command("clang-14", append(clangIt0, out)...)
		cmd.Dir = "testdata"
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("clang-14 it0.c: %v\n%s", err, msg)
		}
		want, _ := os.ReadFile(out)
		if got, err := os.ReadFile(golden); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not clang-14's output for it0.c (remake it: go test ./firmware/crt -run Lanai9C -update)", golden)
		}
	} else {
		t.Log("clang-14 not installed: running the committed it0.s only")
	}
	const ticks = 25
	img := buildImage(t, nil, append(runtimeFiles(t), golden)...)
	for _, hz := range []uint64{133_000_000, 200_000_000} {
		var console bytes.Buffer
		b, code := runBoard(t, board.Config{Config: lanai.Config{ClockHz: hz, Console: &console}}, img)
		if code != ticks {
			t.Errorf("%d Hz: exit %#x, want the RTC at TIME0_INT = %d", hz, code, ticks)
		}
		var waited uint64
		if _, err := fmt.Sscanf(console.String(), "waited %d cycles\n", &waited); err != nil {
			t.Fatalf("%d Hz: console %q: %v", hz, console.String(), err)
		}
		tick := float64(hz) / 2e6 // cycles per RTC tick
		t.Logf("%d Hz: RTC %d at TIME0_INT, waited %d cycles", hz, code, waited)
		if lo, hi := (ticks-1)*tick, ticks*tick+20; float64(waited) < lo || float64(waited) > hi {
			t.Errorf("%d Hz: waited %d cycles, want %.0f..%.0f (%d ticks of %.1f cycles)", hz, waited, lo, hi, ticks, tick)
		}
		if b.ISR()&board.Time0IntBit != 0 {
			t.Errorf("%d Hz: TIME0_INT still set at exit (ISR %#x)", hz, b.ISR())
		}
	}
}

// TestLanai9Asm runs testdata/dma9.s, which takes its names from
// lanai9.inc (found by -I firmware/crt, as lanai-as -I would): 1000
// bytes go from host memory into SRAM by channel 2 and back out by
// channel 0; the copy in host memory is byte for byte the source, and the
// exit code is the engine's checksum of the block, which must be the RFC
// 1071 sum computed here.
func TestLanai9Asm(t *testing.T) {
	const length, src, dst = 1000, 0x100, 0x8000 // dma9.s's LEN, SRC, DST
	img := buildImage(t, []string{"."}, filepath.Join("testdata", "dma9.s"))
	host := board.NewHostRAM(0, 0x10000)
	for i := range length {
		host.Data[src+i] = byte(i*7 + i>>3)
	}
	b, code := runBoard(t, board.Config{Host: host}, img)
	want := host.Data[src : src+length]
	if got := host.Data[dst : dst+length]; !bytes.Equal(got, want) {
		t.Errorf("host copy differs from the source")
	}
	var sum uint32
	for i := 0; i < length; i += 2 {
		sum += uint32(want[i])<<8 | uint32(want[i+1])
	}
	for sum > 0xFFFF {
		sum = sum&0xFFFF + sum>>16
	}
	t.Logf("exit %#x (the engine's checksum), %d cycles", code, b.CPU().Cycles)
	if code != sum {
		t.Errorf("exit %#x, want the block's ones'-complement sum %#x (0x71: timeout, 0xbad: DMA fault)", code, sum)
	}
}
