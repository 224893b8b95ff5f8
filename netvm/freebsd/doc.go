// Package freebsd models the parts of a FreeBSD 4.6 i386 host that NetVM
// touches: kernel threads on one CPU, physical pages (vm_page with its
// wire and hold counts, busy flag and page queues), anonymous memory
// objects with shadow chains for copy-on-write, per-process pmaps with a
// reverse map, vm_fault with a swap pager, the pageout daemon, wiring
// (mlock/vslock), fork and exit. Every pmap change of a process that has
// hooks (a NetVM process) calls them first, so that the driver can run the
// OS side of the lock handshake (docs/netvm.md §4.3) before a page goes.
//
// Everything runs on the deterministic timeline of package sim: host
// threads are coroutines resumed by events of the node's sim.Queue, one at
// a time, so that the same inputs give the same run. Timing constants are
// in timing.go and docs/host.md.
package freebsd
