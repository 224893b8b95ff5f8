// Package driver is the NetVM kernel module of the modelled FreeBSD 4.6
// host (docs/netvm.md is its contract with the firmware): it configures
// the board, owns the kernel command ring, keeps the shadow page table in
// step with every pmap change of a NetVM process (the OS side of the
// lock handshake, §4.3), and serves the board's interrupts: redirected
// writes (fault the page in, one copy out of the system buffer,
// REDIR_DONE), source faults, counter wake-ups and errors.
//
// It talks to the board only as a host does: programmed I/O through the
// hostbus window (each access costs its PCI time on the calling thread)
// and host memory the board DMAs into.
package driver

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"lanaiemu/hostbus"
	"lanaiemu/netvm/abi"
	"lanaiemu/netvm/freebsd"
	"lanaiemu/sim"
)

// Errors of the driver's system calls.
var (
	ErrNoEndpoint = errors.New("netvm: no free endpoint")
	ErrTable      = errors.New("netvm: no free table entry")
	ErrStatus     = errors.New("netvm: the board refused the command")
	ErrBoard      = errors.New("netvm: the board did not start")
)

// Layout is where the driver's wired kernel memory is, in host physical
// frames (below the frames the VM system manages).
type Layout struct {
	StatusPages uint32 // abi.MaxEndpoints pages, one per endpoint
	KComp       uint32 // one page: kernel completion records
	Evq         uint32 // abi.EvqEntries * abi.EvqSize bytes
	SysBuf      uint32 // nodes * credits slots of abi.SysBufSlot bytes
	Frames      uint32 // frames used, from 0
}

// LayoutFor places the driver's memory for a cluster of nodes: frame 0
// unused, then the status pages, the completions, the event queue and
// the system buffer.
func LayoutFor(nodes, credits int) Layout {
	l := Layout{StatusPages: 1}
	l.KComp = l.StatusPages + abi.MaxEndpoints
	l.Evq = l.KComp + 1
	l.SysBuf = l.Evq + abi.EvqEntries*abi.EvqSize/freebsd.PageSize
	l.Frames = l.SysBuf + uint32(nodes*credits)
	return l
}

// Config is what the driver writes into the board at attach.
type Config struct {
	Node, Nodes int
	Credits     int
	Mode        uint32 // abi.ModeNetVM, ModeStatic, ModeDynamic, ModeNPF or ModeBackup
	// Routes[n] is the route to node n (its bytes, each with bit 7 set).
	Routes [][]byte
}

// Stats count what the driver did.
type Stats struct {
	Commands, SPTMaps, SPTUnmaps, SPTProtects       int
	LockWaits                                       int // the host found L set and waited
	Interrupts, Events, Redirects, RedirectedBytes  int
	SrcFaults, CtrWakes, EpErrors, SignalsDelivered int
	LockWaitTime                                    sim.Time
	SPTFull                                         int      // mappings not entered: no free entry in the probe sequence
	LateIRQs                                        int      // interrupts the timeline served after their time
	SpinTime                                        sim.Time // time threads spent spinning on host memory
	Pins, Unpins                                    int      // ModeDynamic: pages pinned and unpinned
	RecvFaults, RecvFaultsServed                    int      // ModeNPF: EvRecvFault events, and the faults they caused
	MaxSlotsBusy                                    int      // the most system-buffer slots busy at once
}

// Driver is the NetVM driver of one host.
type Driver struct {
	K      *freebsd.Kernel
	W      *hostbus.Window
	Mem    *hostbus.HostMemory
	Layout Layout
	Cfg    Config

	kslot    int
	kticket  uint32
	klock    lock
	sptLock  lock
	evRead   uint32
	tags     []uint32         // mirror of the SPT tags
	byTag    map[uint32]int   // vpn<<12|asid -> live entry index
	byPFN    map[uint32][]int // frame -> live entries mapping it
	eps      [abi.MaxEndpoints]*Endpoint
	byASID   map[uint32]*Endpoint
	intr     freebsd.WaitQueue
	pending  bool // an interrupt arrived while the handler ran
	redirQ   []redirect
	redirWQ  freebsd.WaitQueue
	slotBusy []bool // system-buffer slots between EvRedirect and REDIR_DONE
	stats    Stats

	watches []*watch
	// PollInterval is one iteration of a spin on host memory (a cached
	// load and a compare) [assumption, docs/host.md].
	PollInterval sim.Time

	exportOwner   [abi.MaxExports]*Endpoint
	exportGen     [abi.MaxExports]uint32
	importOwner   [abi.MaxImports]*Endpoint
	pins          map[uint32]int       // ModeDynamic: page tag -> pin count
	pinnedExports map[uint32][2]uint32 // ModeDynamic: export key -> its pinned range
	faulting      map[uint32]bool      // ModeNPF: pages being faulted in for the NIC
	slotsBusy     int                  // system-buffer slots between EvRedirect and REDIR_DONE
}

// lock is a sleeping mutex (lockmgr) on the host's threads.
type lock struct {
	held bool
	wq   freebsd.WaitQueue
}

func (l *lock) acquire(t *freebsd.Thread) {
	for l.held {
		t.Wait(&l.wq)
	}
	l.held = true
}

func (l *lock) release(k *freebsd.Kernel) {
	l.held = false
	k.Wakeup(&l.wq, 0)
}

// New makes the driver of one host; Attach starts the board.
func New(k *freebsd.Kernel, w *hostbus.Window, mem *hostbus.HostMemory, lay Layout, cfg Config) *Driver {
	d := &Driver{K: k, W: w, Mem: mem, Layout: lay, Cfg: cfg,
		tags: make([]uint32, abi.SPTEntries), byTag: map[uint32]int{}, pins: map[uint32]int{}, pinnedExports: map[uint32][2]uint32{}, faulting: map[uint32]bool{}, byPFN: map[uint32][]int{},
		byASID: map[uint32]*Endpoint{}, PollInterval: 50 * sim.Nanosecond,
		slotBusy: make([]bool, cfg.Nodes*cfg.Credits)}
	k.AddChecker(d.checkFrame)
	return d
}

// Stats returns the driver's counters.
func (d *Driver) Stats() Stats { return d.stats }

// ---- programmed I/O (the board's SRAM is big-endian, §1) --------------

// pio charges the PCI time of an access made at the thread's present.
func (d *Driver) pio(t *freebsd.Thread, end sim.Time, err error) {
	if err != nil {
		panic(fmt.Sprintf("netvm driver: PIO: %v", err)) // the driver's addresses are the contract's: a bug
	}
	if end > t.Now() {
		t.Compute(end - t.Now())
	}
}

func (d *Driver) write32(t *freebsd.Thread, off, v uint32) {
	d.W.At(t.Now())
	end, err := d.W.Write32(off, bits.ReverseBytes32(v))
	d.pio(t, end, err)
}

func (d *Driver) write8(t *freebsd.Thread, off uint32, v uint8) {
	d.W.At(t.Now())
	end, err := d.W.Write8(off, v)
	d.pio(t, end, err)
}

func (d *Driver) read32(t *freebsd.Thread, off uint32) uint32 {
	d.W.At(t.Now())
	v, end, err := d.W.Read32(off)
	d.pio(t, end, err)
	return bits.ReverseBytes32(v)
}

func (d *Driver) writeBlock(t *freebsd.Thread, off uint32, p []byte) {
	d.W.At(t.Now())
	end, err := d.W.WriteBlock(off, p)
	d.pio(t, end, err)
}

// glob writes a global word (§2.1).
func (d *Driver) glob(t *freebsd.Thread, off, v uint32) { d.write32(t, abi.GlobBase+off, v) }

// hostWord reads a big-endian word the board wrote into host memory.
func (d *Driver) hostWord(addr uint64) uint32 {
	var b [4]byte
	if err := d.Mem.Read(addr, b[:]); err != nil {
		panic(fmt.Sprintf("netvm driver: host memory %#x: %v", addr, err))
	}
	return binary.BigEndian.Uint32(b[:])
}

func frameAddr(f uint32) uint64 { return uint64(f) * freebsd.PageSize }

// BAR0 offsets of ISR and EIMR (docs/hostbus.md).
const (
	specialISR  = hostbus.SpecialOff + 0x050
	specialEIMR = hostbus.SpecialOff + 0x058
)

// ---- attach (§2.1) -----------------------------------------------------

// Attach brings the board up as the driver's attach routine does: it
// reads the EEPROM (the board's identity and SRAM size), loads the
// firmware image through the window (reset held, CLOCK, the sections,
// reset released: hostbus.LoadFirmware, its PIO time charged), sets EIMR
// (§2.1 step 1), then runs the boot handshake: it waits for
// FWWaitConfig, acknowledges the interrupt, writes the configuration and
// the routes, sets FWGo and waits for FWRunning. It starts the driver's
// interrupt and redirect threads. A nil image attaches to firmware that
// is already running.
func (d *Driver) Attach(t *freebsd.Thread, image []byte) error {
	if image != nil {
		var ee [hostbus.EEPROMSize]byte
		d.W.At(t.Now())
		end, err := d.W.ReadBlock(hostbus.EEPROMOff, ee[:])
		d.pio(t, end, err)
		if sram := binary.BigEndian.Uint32(ee[0x0C:]); sram < abi.SRAMSize {
			return fmt.Errorf("%w: the EEPROM says %d bytes of SRAM, NetVM needs %d", ErrBoard, sram, abi.SRAMSize)
		}
		d.W.At(t.Now())
		if _, err := d.W.LoadFirmware(image); err != nil {
			return fmt.Errorf("%w: %v", ErrBoard, err)
		}
		if d.W.Now() > t.Now() {
			t.Compute(d.W.Now() - t.Now())
		}
		d.W.At(t.Now())
		end, err = d.W.Write32(specialEIMR, bits.ReverseBytes32(abi.IRQMask))
		d.pio(t, end, err)
	}
	if err := d.waitStatus(t, abi.FWWaitConfig); err != nil {
		return err
	}
	if d.read32(t, abi.GlobBase+abi.GlobMagic) != abi.Magic || d.read32(t, abi.GlobBase+abi.GlobVersion) != abi.Version {
		return fmt.Errorf("%w: wrong magic or version", ErrBoard)
	}
	d.ackIRQ(t)
	d.W.At(t.Now()) // the board's interrupt enable (control register, little-endian)
	end, err := d.W.Write32(hostbus.ControlOff, hostbus.CtlIntEnable)
	d.pio(t, end, err)
	for off := uint32(0); off < abi.KRingSlots*abi.CompSize; off += 4 { // fresh completion records
		if err := d.Mem.PutUint32(frameAddr(d.Layout.KComp)+uint64(off), 0); err != nil {
			return err
		}
	}
	c := d.Cfg
	d.glob(t, abi.GlobNodeID, uint32(c.Node))
	d.glob(t, abi.GlobNodes, uint32(c.Nodes))
	d.glob(t, abi.GlobCredits, uint32(c.Credits))
	d.glob(t, abi.GlobSysBuf, uint32(frameAddr(d.Layout.SysBuf)))
	d.glob(t, abi.GlobEvq, uint32(frameAddr(d.Layout.Evq)))
	d.glob(t, abi.GlobKComp, uint32(frameAddr(d.Layout.KComp)))
	mode := c.Mode
	if mode == abi.ModeDynamic { // the host's: the firmware translates as with static pinning
		mode = abi.ModeStatic
	}
	d.glob(t, abi.GlobMode, mode)
	d.glob(t, abi.GlobSeqInit, 0)
	for n := range c.Nodes {
		var r []byte
		if n < len(c.Routes) {
			r = c.Routes[n]
		}
		entry := make([]byte, abi.RouteSize)
		entry[abi.RouteLen] = byte(len(r))
		copy(entry[abi.RouteBytes:], r)
		d.writeBlock(t, abi.RouteBase+uint32(n)*abi.RouteSize, entry)
	}
	d.glob(t, abi.GlobStatus, abi.FWGo)
	if err := d.waitStatus(t, abi.FWRunning); err != nil {
		return err
	}
	d.K.Go(fmt.Sprintf("netvm%d intr", c.Node), d.interruptThread)
	d.K.Go(fmt.Sprintf("netvm%d redirect", c.Node), d.redirectThread)
	return nil
}

// waitStatus polls GlobStatus every 10 us (at most 100 ms).
func (d *Driver) waitStatus(t *freebsd.Thread, want uint32) error {
	for i := 0; i < 10_000; i++ {
		st := d.read32(t, abi.GlobBase+abi.GlobStatus)
		if st == want {
			return nil
		}
		if st == abi.FWPanic {
			return fmt.Errorf("%w: firmware panic %d", ErrBoard, d.read32(t, abi.GlobBase+abi.GlobPanic))
		}
		t.Sleep(10 * sim.Microsecond)
	}
	return fmt.Errorf("%w: GlobStatus never became %d", ErrBoard, want)
}

// ---- the kernel ring (§3.1, §3.3) ----------------------------------------

// Kernel posts a kernel-ring command and waits for its completion
// record; it returns the status. Commands are serialised by the ring's
// lock. Fields that do not lay out (abi.EncodeCommand) are not posted:
// the status is StatusBadCmd.
func (d *Driver) Kernel(t *freebsd.Thread, op byte, fields ...abi.Field) uint32 {
	buf, err := abi.EncodeCommand(append(fields, abi.Field32(abi.CmdTicket, 0)))
	if err != nil {
		return abi.StatusBadCmd
	}
	d.klock.acquire(t)
	s := d.kslot
	d.kslot = (d.kslot + 1) % abi.KRingSlots
	d.kticket++
	if d.kticket == 0 {
		d.kticket++
	}
	tk := d.kticket
	binary.BigEndian.PutUint32(buf[abi.CmdTicket:], tk)
	slot := abi.KRingBase + uint32(s)*abi.CmdSize
	d.writeBlock(t, slot, buf)
	d.write8(t, slot+abi.CmdOp, op) // the op byte last
	rec := frameAddr(d.Layout.KComp) + uint64(s)*abi.CompSize
	d.Spin(t, rec, rec+abi.CompSize, func() bool { return d.hostWord(rec+abi.CompTicket) == tk }) // microseconds
	st := d.hostWord(rec + abi.CompStatus)
	d.stats.Commands++
	d.klock.release(d.K)
	return st
}

// ---- interrupts (§10) and events (§6.3) ----------------------------------

// IRQ is called when the board's interrupt line rises (from inside the
// board's run: it only schedules). The handler runs after the interrupt
// entry cost.
func (d *Driver) IRQ(at sim.Time) {
	if at+d.K.Timing.InterruptEntry < d.K.Q.Now() {
		d.stats.LateIRQs++ // raised inside a grown step: served late
	}
	d.K.Q.Schedule(at+d.K.Timing.InterruptEntry, d.K.Node, func() {
		d.pending = true
		d.K.Wakeup(&d.intr, 0)
	})
}

// ackIRQ clears HOST_SIG (the host's write of 1 clears it).
func (d *Driver) ackIRQ(t *freebsd.Thread) {
	d.W.At(t.Now())
	end, err := d.W.Write32(specialISR, bits.ReverseBytes32(abi.ISRHostSig))
	d.pio(t, end, err)
}

// interruptThread is the driver's interrupt handler (an ithread): it
// acknowledges HOST_SIG, then drains the event queue.
func (d *Driver) interruptThread(t *freebsd.Thread) {
	t.Intr = true
	for {
		for !d.pending {
			t.Wait(&d.intr)
		}
		d.pending = false
		d.stats.Interrupts++
		d.ackIRQ(t)
		n := 0
		for {
			a := frameAddr(d.Layout.Evq) + uint64(d.evRead%abi.EvqEntries)*abi.EvqSize
			if d.hostWord(a+abi.EvSeq) != d.evRead+1 {
				break
			}
			var rec [abi.EvqSize]byte
			if err := d.Mem.Read(a, rec[:]); err != nil {
				panic(err)
			}
			d.evRead++
			n++
			d.event(t, rec[:])
		}
		if n > 0 {
			d.glob(t, abi.GlobEvqRead, d.evRead)
		}
	}
}

// event dispatches one event record.
func (d *Driver) event(t *freebsd.Thread, rec []byte) {
	d.stats.Events++
	ev := abi.ParseEvent(rec)
	a, ep := ev.A, int(ev.Ep)
	switch ev.Type {
	case abi.EvRedirect:
		d.stats.Redirects++
		slot, from := a[0]>>16, int(a[0]&0xFFFF)
		c := d.Cfg.Credits
		switch {
		case from >= d.Cfg.Nodes || int(slot) < from*c || int(slot) >= (from+1)*c:
			d.K.Fail("system buffer: slot %d is outside node %d's allotment", slot, from)
		case d.slotBusy[slot]:
			d.K.Fail("system buffer overflow: slot %d reused before its REDIR_DONE", slot)
		}
		if int(slot) < len(d.slotBusy) {
			d.slotBusy[slot] = true
			d.slotsBusy++
			d.stats.MaxSlotsBusy = max(d.stats.MaxSlotsBusy, d.slotsBusy)
		}
		d.redirQ = append(d.redirQ, redirect{slot: slot, asid: a[1], va: a[2], len: a[3]})
		d.K.Wakeup(&d.redirWQ, 0)
	case abi.EvSrcFault:
		d.stats.SrcFaults++
		if e := d.endpoint(ep); e != nil {
			d.K.Go("netvm srcfault", func(t *freebsd.Thread) { d.serveSrcFault(t, e, a[2]) })
		}
	case abi.EvCtrWake:
		d.stats.CtrWakes++
		if e := d.endpoint(ep); e != nil {
			e.ctrWake(t, int(a[0]), uint64(a[1])<<32|uint64(a[2]), a[3])
		}
	case abi.EvRecvFault:
		d.recvFault(a[1], a[2])
	case abi.EvEpError:
		d.stats.EpErrors++
		if e := d.endpoint(ep); e != nil {
			e.errors = append(e.errors, RemoteError{Ticket: a[0], Status: a[1], Node: int(a[2])})
			for id, n := range e.errorWaiters { // WaitBlockUnless: ask again
				if n > 0 {
					d.K.Wakeup(&e.ctrWait[id], d.K.Timing.Wakeup)
				}
			}
		}
	case abi.EvCmdDone:
	}
}

func (d *Driver) endpoint(ep int) *Endpoint {
	if ep < 0 || ep >= abi.MaxEndpoints {
		return nil
	}
	return d.eps[ep]
}

// ---- watching host memory (spin loops without simulating each spin) -----

// watch is a thread spinning on a range of host memory.
type watch struct {
	lo, hi uint64
	t0     sim.Time // when the spin began (the poll phase)
	wq     freebsd.WaitQueue
	armed  bool
}

// HostWritten is told of every DMA write into host memory (the cluster
// wires the board's host memory through it), at the board's time at.
// Threads spinning on the range wake at their next poll after at.
func (d *Driver) HostWritten(addr uint64, n int, at sim.Time) {
	for _, w := range d.watches {
		if !w.armed || addr >= w.hi || addr+uint64(n) <= w.lo {
			continue
		}
		w.armed = false
		p := d.PollInterval
		if at < w.t0 {
			at = w.t0
		}
		wake := w.t0 + (at-w.t0+p-1)/p*p // the first poll that sees the write
		ww := w
		d.K.Q.Schedule(wake, d.K.Node, func() { d.K.Wakeup(&ww.wq, 0) })
	}
}

// Spin busy-waits until cond holds, polling [lo, hi) of host memory every
// PollInterval (a cached load and a compare): it is simulated by waking
// at the first poll after a DMA into the range, not by every poll. The
// wait goes to Stats.SpinTime; the CPU is charged only the last poll
// (PollInterval), not the wait (docs/host.md).
func (d *Driver) Spin(t *freebsd.Thread, lo, hi uint64, cond func() bool) {
	if cond() {
		return
	}
	w := &watch{lo: lo, hi: hi, t0: t.Now()}
	d.watches = append(d.watches, w)
	for !cond() {
		w.armed = true
		t.Wait(&w.wq)
	}
	for i, x := range d.watches {
		if x == w {
			d.watches = append(d.watches[:i], d.watches[i+1:]...)
			break
		}
	}
	d.stats.SpinTime += t.Now() - w.t0
	t.Compute(d.PollInterval) // the last poll and the loop's exit
}
