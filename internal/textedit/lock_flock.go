//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package textedit

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive advisory lock on f, waiting for it; closing f
// drops it. Other rlsolve runs honour it; editors mostly do not, which is
// why the text is compared too.
func lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}
