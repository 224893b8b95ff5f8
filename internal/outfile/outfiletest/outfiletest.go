// Package outfiletest makes a file that can be read but not written, for
// tests of outputs that are also inputs (a budget file that --update
// rewrites): its mode forbids writing, and for root, whom the mode does not
// stop, it is made immutable (chattr +i). A test is skipped where neither
// works.
package outfiletest

import (
	"os"
	"os/exec"
	"testing"
)

// ReadOnly makes the existing file path unwritable until the test ends.
func ReadOnly(t testing.TB, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, 0o644) })
	if writable(path) {
		if exec.Command("chattr", "+i", path).Run() != nil {
			t.Skip("cannot make a file unwritable here (root without chattr +i)")
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
	}
	if writable(path) {
		t.Skip("cannot make a file unwritable here")
	}
}

// writable reports whether path opens for writing.
func writable(path string) bool {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
