package board

// devEvent is a device's step scheduled on the core (a DMA channel's, a
// link's, a timer's). Spent events wait on the board's free list for
// reuse, so a DMA burst, a packet or a timer expiry schedules without
// allocating; run is the event's bound fire method, made once.
type devEvent struct {
	b    *Board
	step func(*Board, *devArgs)
	args devArgs
	run  func()
	next *devEvent
}

// devArgs are the operands of a scheduled device step.
type devArgs struct {
	ch     *channel
	chStep func(*channel, uint64)
	l      *Link
	r      *sendRec
	pkt    []byte
	note   uint32 // a received packet's note (fabric.SendNoted)
	t      *timer
	gen    uint64
	at     uint64 // core cycle of the event
	k      uint64 // timer tick
}

// fire runs the event's step on its operands in place, then returns the
// event to the free list (a step that schedules takes another one).
func (ev *devEvent) fire() {
	b := ev.b
	ev.step(b, &ev.args)
	b.recycle(ev)
}

// later runs step with a at core cycle at (cpu.Schedule's rules).
func (b *Board) later(at uint64, step func(*Board, *devArgs), a devArgs) {
	b.cpu.Schedule(at, b.newEvent(step, a).run)
}

// newEvent is an event for step with a: a spent one from the free list,
// or a new one.
func (b *Board) newEvent(step func(*Board, *devArgs), a devArgs) *devEvent {
	ev := b.free
	if ev == nil {
		ev = &devEvent{b: b}
		ev.run = ev.fire
	} else {
		b.free = ev.next
	}
	ev.step, ev.args, ev.next = step, a, nil
	return ev
}

// recycle returns an event taken out of the core's queue unrun
// (lanai.CPU.Cancel) to the free list.
func (b *Board) recycle(ev *devEvent) {
	ev.step, ev.args, ev.next, b.free = nil, devArgs{}, b.free, ev
}
