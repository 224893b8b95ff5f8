//go:build unix

// Package cputime reads the CPU time the process has used, the clock the
// speed benchmarks report their rates by (docs/performance.md: on a shared
// machine it varies far less than the wall clock).
package cputime

import "syscall"

// Seconds is the user and system CPU time the process has used, in
// seconds (0 when the system does not say).
func Seconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
