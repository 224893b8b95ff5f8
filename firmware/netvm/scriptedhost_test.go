// The firmware's tests run the NetVM firmware (the image Image builds)
// on emulated LANai 9.2 boards connected back to back, with a scripted
// host: the test plays the driver and the user library by writing SRAM
// as host PIO would (board.CPU().Mem.Write, big-endian as the contract
// says) and by reading and writing each node's host memory (a
// board.HostRAM). This file is that host.
//
// Host memory of every node (one HostRAM at HostBase, HostSize bytes):
// the status page of each endpoint e at HostBase + StatusPage + e*PageSize,
// the kernel completions, the event queue and the system buffer at fixed
// places, and user pages from UserPages on (allocated by AllocPage).

package netvm_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"lanaiemu/board"
	"lanaiemu/fabric"
	fwnetvm "lanaiemu/firmware/netvm"
	"lanaiemu/hostbus"
	"lanaiemu/netvm/abi"
	"lanaiemu/node"
	"lanaiemu/sim"
)

// Host memory layout of the scripted host (offsets from HostBase).
const (
	HostBase   = 0x1000_0000
	HostSize   = 4 << 20
	StatusPage = 0x00000 // abi.MaxEndpoints pages
	KComp      = 0x10000 // abi.KRingSlots x abi.CompSize
	Evq        = 0x11000 // abi.EvqEntries x abi.EvqSize
	SysBuf     = 0x20000 // N x C x abi.SysBufSlot
	UserPages  = 0x40000 // AllocPage hands out pages from here
)

// Build assembles and links the NetVM firmware (Image), as every user of
// the firmware loads it.
func Build(t testing.TB) []byte {
	t.Helper()
	img, err := fwnetvm.Image()
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// ScriptedNode is one board and the scripted host that plays its driver.
type ScriptedNode struct {
	ID     int
	Board  *board.Board
	Host   *board.HostRAM
	next   uint64 // next free user page (offset from HostBase)
	kslot  int    // next kernel ring slot
	ticket uint32 // last kernel ticket
	eslot  [abi.MaxEndpoints]int
	etick  [abi.MaxEndpoints]uint32
	evRead uint32   // events consumed (GlobEvqRead)
	free   []uint64 // pages given back by FreePage
}

// World is N nodes on a fabric.
type World struct {
	T      testing.TB
	W      *node.World
	Fabric *fabric.Fabric
	Nodes  []*ScriptedNode
	opts   Options
}

// Options change how NewWorld builds the boards.
type Options struct {
	// Trace, if set, receives the device events of every board
	// (board.Config.Trace) with the node's number.
	Trace func(node int, e board.Event)
	// Mode is written to GlobMode at boot (abi.ModeNetVM by default).
	Mode uint32
	// Credits is written to GlobCredits (abi.DefaultCredits if 0).
	Credits uint32
	// Seed seeds the fabric's fault draws (1 if 0).
	Seed uint64
	// SeqInit is written to GlobSeqInit (the first sequence number).
	SeqInit uint32
	// LinkRate, if nonzero, is the rate of the cable and of both link
	// engines in bytes per second (board.DefaultLinkRate otherwise).
	LinkRate uint64
	// ClockHz, if nonzero, is the boards' clock (ClockHz otherwise).
	ClockHz uint64
}

// ClockHz is the boards' default clock: the rated clock of the thesis'
// board (hostbus.DefaultPart, docs/hardware.md "Boards"), as netvm's
// cluster runs it.
var ClockHz = defaultClock()

func defaultClock() uint64 {
	b, err := hostbus.BoardFor(hostbus.DefaultPart, 1)
	if err != nil {
		panic(err) // the default part is in the product table
	}
	return b.ClockHz
}

// NewBackToBack builds two boards back to back running img, boots them
// through the handshake of docs/netvm.md §2.1 (route length 0: a direct
// cable) and returns with both firmwares in FWRunning.
func NewBackToBack(t testing.TB, img []byte) *World { return NewWorld(t, img, Options{}) }

// NewWorld is NewBackToBack with options.
func NewWorld(t testing.TB, img []byte, o Options) *World {
	t.Helper()
	q := &sim.Queue{}
	seed := o.Seed
	if seed == 0 {
		seed = 1
	}
	fcfg := fabric.DefaultConfig()
	if o.LinkRate != 0 {
		fcfg.Link.Rate = o.LinkRate
	}
	f, err := fabric.BackToBack(q, sim.NewRand(seed), fcfg)
	if err != nil {
		t.Fatal(err)
	}
	w := &World{T: t, Fabric: f, opts: o}
	var boards []*board.Board
	for i := range 2 {
		h := board.NewHostRAM(HostBase, HostSize)
		cfg := board.Config{Host: h}
		cfg.ClockHz = o.ClockHz
		if cfg.ClockHz == 0 {
			cfg.ClockHz = ClockHz
		}
		if tr := o.Trace; tr != nil {
			id := i
			cfg.Trace = func(e board.Event) { tr(id, e) }
		}
		b, err := board.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Load(img); err != nil {
			t.Fatal(err)
		}
		if err := b.HostWriteSpecial(board.RegEIMR, abi.IRQMask); err != nil { // §2.1 step 1
			t.Fatal(err)
		}
		if o.LinkRate != 0 {
			b.Link().SetRate(o.LinkRate)
		}
		boards = append(boards, b)
		w.Nodes = append(w.Nodes, &ScriptedNode{ID: i, Board: b, Host: h, next: UserPages})
	}
	w.W, err = node.New(q, f, boards, node.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w.Boot()
	return w
}

// Now is the simulated time.
func (w *World) Now() sim.Time { return w.W.Now() }

// RunUntil advances the world in steps of dt until cond holds; it fails
// the test after limit. It returns the time at which cond was seen.
func (w *World) RunUntil(what string, dt, limit sim.Time, cond func() bool) sim.Time {
	w.T.Helper()
	end := w.Now() + limit
	for !cond() {
		if w.Now() >= end {
			w.T.Fatalf("%s: not reached after %v (%s)", what, limit, w.describe())
		}
		if err := w.W.Run(w.Now() + dt); err != nil {
			w.T.Fatalf("%s: %v", what, err)
		}
	}
	return w.Now()
}

func (w *World) describe() string {
	s := ""
	for _, n := range w.Nodes {
		s += fmt.Sprintf("node %d: status %d pc %#x fault %v; ", n.ID, n.Glob(abi.GlobStatus), n.Board.CPU().PC, n.Board.Fault())
	}
	return s
}

// Boot performs §2.1 steps 2-4 for every node.
func (w *World) Boot() {
	t := w.T
	t.Helper()
	w.RunUntil("FWWaitConfig", sim.Microsecond, 100*sim.Millisecond, func() bool {
		for _, n := range w.Nodes {
			if n.Glob(abi.GlobStatus) != abi.FWWaitConfig {
				return false
			}
		}
		return true
	})
	for _, n := range w.Nodes {
		if !n.Board.IRQ() {
			t.Fatalf("node %d: no host interrupt at FWWaitConfig", n.ID)
		}
		if err := n.Board.HostWriteSpecial(board.RegISR, abi.ISRHostSig); err != nil { // acknowledge it
			t.Fatal(err)
		}
		if n.Glob(abi.GlobMagic) != abi.Magic || n.Glob(abi.GlobVersion) != abi.Version {
			t.Fatalf("node %d: magic %#x version %d", n.ID, n.Glob(abi.GlobMagic), n.Glob(abi.GlobVersion))
		}
		n.SetGlob(abi.GlobNodeID, uint32(n.ID))
		n.SetGlob(abi.GlobNodes, uint32(len(w.Nodes)))
		credits := w.opts.Credits
		if credits == 0 {
			credits = abi.DefaultCredits
		}
		n.SetGlob(abi.GlobCredits, credits)
		n.SetGlob(abi.GlobMode, w.opts.Mode)
		n.SetGlob(abi.GlobSeqInit, w.opts.SeqInit)
		n.SetGlob(abi.GlobSysBuf, HostBase+SysBuf)
		n.SetGlob(abi.GlobEvq, HostBase+Evq)
		n.SetGlob(abi.GlobKComp, HostBase+KComp)
		for peer := range w.Nodes {
			n.PIO(abi.RouteBase+uint32(peer)*abi.RouteSize+abi.RouteLen, []byte{0}) // back to back: no route bytes
		}
		n.SetGlob(abi.GlobStatus, abi.FWGo)
	}
	w.RunUntil("FWRunning", sim.Microsecond, sim.Millisecond, func() bool {
		for _, n := range w.Nodes {
			if n.Glob(abi.GlobStatus) != abi.FWRunning {
				return false
			}
		}
		return true
	})
}

// PIO writes SRAM as the host's programmed I/O does.
func (n *ScriptedNode) PIO(addr uint32, b []byte) {
	if err := n.Board.CPU().Mem.Write(addr, b); err != nil {
		panic(err)
	}
}

// SRAMWord reads a big-endian SRAM word.
func (n *ScriptedNode) SRAMWord(addr uint32) uint32 {
	v, err := n.Board.CPU().Mem.Word(addr)
	if err != nil {
		panic(err)
	}
	return v
}

// Glob reads a global (§2.1); SetGlob writes one.
func (n *ScriptedNode) Glob(off uint32) uint32 { return n.SRAMWord(abi.GlobBase + off) }

// SetGlob writes a global word.
func (n *ScriptedNode) SetGlob(off, v uint32) {
	n.PIO(abi.GlobBase+off, binary.BigEndian.AppendUint32(nil, v))
}

// Stat reads GlobStats + off.
func (n *ScriptedNode) Stat(off uint32) uint32 { return n.Glob(abi.GlobStats + off) }

// HostWord reads a big-endian word of host memory at bus address a.
func (n *ScriptedNode) HostWord(a uint64) uint32 {
	return binary.BigEndian.Uint32(n.Host.Data[a-HostBase:])
}

// HostBytes is the slice of host memory at bus address a.
func (n *ScriptedNode) HostBytes(a uint64, l int) []byte {
	return n.Host.Data[a-HostBase : a-HostBase+uint64(l)]
}

// AllocPage returns the bus address of a free host page: one given back
// by FreePage, else a fresh one.
func (n *ScriptedNode) AllocPage() uint64 {
	if k := len(n.free); k > 0 {
		p := n.free[k-1]
		n.free = n.free[:k-1]
		return p
	}
	if n.next+abi.PageSize > HostSize {
		panic(fmt.Sprintf("node %d: host memory exhausted", n.ID))
	}
	p := n.next + HostBase
	n.next += abi.PageSize
	return p
}

// FreePage gives a page back for reuse by AllocPage.
func (n *ScriptedNode) FreePage(p uint64) { n.free = append(n.free, p) }

// StatusPageAddr is endpoint e's status page.
func StatusPageAddr(e int) uint64 { return HostBase + StatusPage + uint64(e)*abi.PageSize }

// post writes the fields of a command into the slot at base, then the
// opcode byte last (§3.1 host steps 2-3).
func (n *ScriptedNode) post(slot uint32, op byte, fields []abi.Field) {
	buf, err := abi.EncodeCommand(fields)
	if err != nil {
		panic(fmt.Sprintf("scripted host: a test's command does not lay out: %v", err))
	}
	n.PIO(slot, buf)
	n.PIO(slot+abi.CmdOp, []byte{op})
}

// Kernel posts a kernel-ring command (§3.3) and returns its slot and ticket.
func (n *ScriptedNode) Kernel(op byte, fields ...abi.Field) (int, uint32) {
	s := n.kslot
	n.kslot = (n.kslot + 1) % abi.KRingSlots
	n.ticket++
	fields = append(fields, abi.Field32(abi.CmdTicket, n.ticket))
	n.post(abi.KRingBase+uint32(s)*abi.CmdSize, op, fields)
	return s, n.ticket
}

// KComp reads kernel completion record s: (status, ticket).
func (n *ScriptedNode) KComp(s int) (uint32, uint32) {
	a := uint64(HostBase + KComp + s*abi.CompSize)
	return n.HostWord(a + abi.CompStatus), n.HostWord(a + abi.CompTicket)
}

// Write posts a WRITE (§3.2) on endpoint e's ring; it returns slot and ticket.
func (n *ScriptedNode) Write(e int, src, length, dstOff uint32, imp, ctrImp uint16) (int, uint32) {
	s := n.eslot[e]
	n.eslot[e] = (s + 1) % abi.RingSlots
	n.etick[e]++
	if n.etick[e] == 0 {
		n.etick[e]++
	}
	n.post(abi.EPRingBase+uint32(e)*abi.EPRingStride+uint32(s)*abi.CmdSize, abi.OpWrite, []abi.Field{
		abi.Field32(abi.CmdTicket, n.etick[e]), abi.Field32(abi.WrSrcVA, src), abi.Field32(abi.WrLen, length),
		abi.Field32(abi.WrDstOff, dstOff), abi.Field16(abi.WrImport, uint32(imp)), abi.Field16(abi.WrCtrImport, uint32(ctrImp)),
	})
	return s, n.etick[e]
}

// Comp reads endpoint e's completion record for ring slot s.
func (n *ScriptedNode) Comp(e, s int) (uint32, uint32) {
	a := StatusPageAddr(e) + abi.PageComp + uint64(s)*abi.CompSize
	return n.HostWord(a + abi.CompStatus), n.HostWord(a + abi.CompTicket)
}

// Counter reads endpoint e's counter c from its status page (§6.1).
func (n *ScriptedNode) Counter(e, c int) uint64 {
	a := StatusPageAddr(e) + abi.PageCtr + uint64(c)*8
	return uint64(n.HostWord(a))<<32 | uint64(n.HostWord(a+4))
}

// SPTHash is §4.2's hash (abi.SPTHash).
func SPTHash(asid, vpn uint32) uint32 { return abi.SPTHash(asid, vpn) }

// KernelSync posts a kernel command and runs until it completes; it
// returns the status.
func (w *World) KernelSync(n *ScriptedNode, op byte, fields ...abi.Field) uint32 {
	w.T.Helper()
	s, tk := n.Kernel(op, fields...)
	w.RunUntil(fmt.Sprintf("node %d kernel op %#x", n.ID, op), 100*sim.Nanosecond, sim.Millisecond, func() bool {
		_, got := n.KComp(s)
		return got == tk
	})
	st, _ := n.KComp(s)
	return st
}

// MustKernel is KernelSync that requires StatusOK.
func (w *World) MustKernel(n *ScriptedNode, op byte, fields ...abi.Field) {
	w.T.Helper()
	if st := w.KernelSync(n, op, fields...); st != abi.StatusOK {
		w.T.Fatalf("node %d kernel op %#x: status %d", n.ID, op, st)
	}
}

// OpenEP opens endpoint e with asid (§3.3 EP_OPEN).
func (w *World) OpenEP(n *ScriptedNode, e int, asid uint32) {
	w.MustKernel(n, abi.KOpEPOpen, abi.Field32(abi.KEp, uint32(e)), abi.Field32(abi.KOpenASID, asid),
		abi.Field32(abi.KOpenPage, uint32(StatusPageAddr(e))))
}

// Map maps the page at va of asid to a fresh host page with flags (SPT_MAP,
// the driver's allocation of §4.2: the first empty entry of the probe
// sequence, here always the home slot's sequence from scratch); it returns
// the page's bus address.
func (w *World) Map(n *ScriptedNode, asid, va, flags uint32) uint64 {
	w.T.Helper()
	pa := n.AllocPage()
	vpn := va >> abi.PageShift
	h := SPTHash(asid, vpn)
	idx := h
	for i := uint32(0); i < abi.SPTProbe; i++ {
		idx = (h + i) & (abi.SPTEntries - 1)
		if n.SRAMWord(abi.SPTBase+idx*abi.SPTEntrySize+abi.SPTTag) == abi.SPTTagEmpty {
			break
		}
	}
	w.MustKernel(n, abi.KOpSPTMap, abi.Field32(abi.KSPTIndex, idx), abi.Field32(abi.KSPTTag, vpn<<abi.PageShift|asid),
		abi.Field32(abi.KSPTFrame, uint32(pa)|flags))
	return pa
}

// Event is one record of the event queue (abi.Event).
type Event = abi.Event

// Events returns the events the firmware has written since the last call,
// in order, and acknowledges them as the driver does (GlobEvqRead). It
// fails the test on a record whose EvSeq is not its number + 1.
func (n *ScriptedNode) Events(t testing.TB) []Event {
	t.Helper()
	// §10: acknowledge HOST_SIG first, then drain.
	if err := n.Board.HostWriteSpecial(board.RegISR, abi.ISRHostSig); err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for {
		a := uint64(HostBase+Evq) + uint64(n.evRead%abi.EvqEntries)*abi.EvqSize
		if n.HostWord(a+abi.EvSeq) != n.evRead+1 {
			break
		}
		evs = append(evs, abi.ParseEvent(n.HostBytes(a, abi.EvqSize)))
		n.evRead++
	}
	// The firmware writes a record, waits for its DMA, then the count: the
	// count is the records readable, or one less while that happens.
	if w := n.Glob(abi.GlobEvqWrite); w != n.evRead && w+1 != n.evRead {
		t.Fatalf("node %d: GlobEvqWrite %d, but %d records readable", n.ID, w, n.evRead)
	}
	if len(evs) > 0 {
		n.SetGlob(abi.GlobEvqRead, n.evRead)
	}
	return evs
}

// RunEvents runs until node n has written at least one event and returns
// the new events.
func (w *World) RunEvents(n *ScriptedNode, limit sim.Time) []Event {
	w.T.Helper()
	w.RunUntil(fmt.Sprintf("node %d event", n.ID), 100*sim.Nanosecond, limit, func() bool {
		return n.Glob(abi.GlobEvqWrite) != n.evRead
	})
	return n.Events(w.T)
}

// MapAt maps the page at va of asid to the host page pa with flags
// (SPT_MAP, as Map), for re-mapping a page that came back in.
func (w *World) MapAt(n *ScriptedNode, asid, va uint32, pa uint64, flags uint32) uint32 {
	w.T.Helper()
	vpn := va >> abi.PageShift
	h := SPTHash(asid, vpn)
	idx := h
	for i := uint32(0); i < abi.SPTProbe; i++ {
		idx = (h + i) & (abi.SPTEntries - 1)
		tag := n.SRAMWord(abi.SPTBase + idx*abi.SPTEntrySize + abi.SPTTag)
		if tag == abi.SPTTagEmpty || tag == abi.SPTTagDead || tag == vpn<<abi.PageShift|asid {
			break
		}
	}
	w.MustKernel(n, abi.KOpSPTMap, abi.Field32(abi.KSPTIndex, idx), abi.Field32(abi.KSPTTag, vpn<<abi.PageShift|asid),
		abi.Field32(abi.KSPTFrame, uint32(pa)|flags))
	return idx
}

// SPTIndex is the index of the live entry of (asid, va), or -1.
func (n *ScriptedNode) SPTIndex(asid, va uint32) int {
	vpn := va >> abi.PageShift
	h := SPTHash(asid, vpn)
	for i := uint32(0); i < abi.SPTProbe; i++ {
		idx := (h + i) & (abi.SPTEntries - 1)
		tag := n.SRAMWord(abi.SPTBase + idx*abi.SPTEntrySize + abi.SPTTag)
		if tag == vpn<<abi.PageShift|asid {
			return int(idx)
		}
		if tag == abi.SPTTagEmpty {
			break
		}
	}
	return -1
}
