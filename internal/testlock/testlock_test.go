package testlock

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// While a test holds the lock, nobody else can take it; after the test,
// anyone can.
func TestHoldIsExclusiveUntilCleanup(t *testing.T) {
	name := "rlsolve-testlock-" + filepath.Base(t.TempDir())
	path := filepath.Join(os.TempDir(), name+".lock")
	defer os.Remove(path)
	t.Run("holder", func(t *testing.T) {
		Hold(t, name)
		if tryLock(t, path) {
			t.Fatal("a second open file got the lock while the test held it")
		}
	})
	if !tryLock(t, path) {
		t.Fatal("the lock was not released when the test ended")
	}
}

func tryLock(t *testing.T, path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}
	return err == nil
}
