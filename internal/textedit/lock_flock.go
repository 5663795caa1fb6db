//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package textedit

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive advisory lock on f, waiting for it; closing f
// drops it. Other rlsolve runs honour it; editors mostly do not, which is
// why the text is compared too. A file system without locks (some network
// file systems) leaves the comparison as the only guard, as on platforms
// without flock.
func lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EOPNOTSUPP):
			return nil
		}
		return err
	}
}
