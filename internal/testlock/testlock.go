// Package testlock serializes the tests that share one test cluster. go test
// runs packages in parallel processes, so a mutex is not enough: the lock is
// a file under the temp dir, held with flock until the test ends.
package testlock

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Hold blocks until tb holds the lock called name, and releases it when tb
// ends. One Hold per test and name: flock is per open file, so a second
// Hold of the same name in the same test would wait on the first forever.
func Hold(tb testing.TB, name string) {
	tb.Helper()
	path := filepath.Join(os.TempDir(), name+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		tb.Fatalf("test lock %s: %v", name, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		tb.Fatalf("test lock %s: %v", name, err)
	}
	tb.Cleanup(func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	})
}
