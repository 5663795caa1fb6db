//go:build unix

package textedit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// meta is what a rewritten file keeps of the file it replaces.
type meta struct {
	mode     fs.FileMode
	uid, gid int
	nlink    uint64
	xattrs   []xattr
}

// metaOf reads the held file's owner, group, mode, links and extended
// attributes.
func metaOf(f *os.File, st fs.FileInfo) (meta, error) {
	m := meta{mode: st.Mode() & modeBits, uid: -1, gid: -1, nlink: 1}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		m.uid, m.gid, m.nlink = int(s.Uid), int(s.Gid), uint64(s.Nlink)
	}
	xs, err := readXattrs(f)
	if err != nil {
		return m, fmt.Errorf("reading the extended attributes of %s: %w", f.Name(), err)
	}
	m.xattrs = xs
	return m, nil
}

// apply gives the new file the owner, group, attributes and mode of the
// old one. An error means it could not (the caller writes in place).
// The owner goes first: changing it clears the setuid and setgid bits.
func (m meta) apply(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok && m.uid >= 0 && (int(s.Uid) != m.uid || int(s.Gid) != m.gid) {
		if err := f.Chown(m.uid, m.gid); err != nil {
			return err
		}
	}
	if err := writeXattrs(f, m.xattrs); err != nil {
		return err
	}
	if err := f.Chmod(m.mode); err != nil {
		return err
	}
	// The kernel drops a setgid bit for a group the user is not in,
	// without an error.
	if st, err = f.Stat(); err != nil || st.Mode()&modeBits != m.mode {
		return errors.Join(err, fmt.Errorf("the mode %v did not hold", m.mode))
	}
	return nil
}

// canWrite reports whether this process may write path (root may write
// any file; the owner's write bit is checked on its own).
func canWrite(path string) bool {
	return unix.Access(path, unix.W_OK) == nil
}

// readOnlyFS reports a file system mounted read-only.
func readOnlyFS(err error) bool { return errors.Is(err, syscall.EROFS) }

// raise sends s to this process again once its handler is gone, so that
// it ends the process as it would have without rlsolve's.
func raise(s os.Signal) {
	if n, ok := s.(syscall.Signal); ok {
		syscall.Kill(os.Getpid(), n)
	}
}
