package textedit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteOptions say what a write may do beyond replacing a file its user
// can write.
type WriteOptions struct {
	// ForceReadOnly writes a file whose owner has no write permission
	// (mode 0444), or that the user cannot write: such a file is usually
	// read-only on purpose, so it is refused unless asked.
	ForceReadOnly bool
}

// ChangedError is a file that no longer holds the bytes its edits were
// computed from: another program (an editor, git, another rlsolve) wrote
// it in between. It is left as that program wrote it.
type ChangedError struct{ Path string }

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s changed since rlsolve read it (another program or another rlsolve wrote it); it was left as it is: re-run to compute the edits from what it holds now", e.Path)
}

// ReadOnlyError is a file refused because it is read-only.
type ReadOnlyError struct {
	Path string
	Mode fs.FileMode
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%s is read-only (mode %v) and was left as it is; make it writable or pass --force-readonly to write it anyway", e.Path, e.Mode.Perm())
}

// TestHookBeforeLock, when set (by tests only), runs just before a write
// takes the lock on its target: a second writer placed there shows what
// happens when a file changes between the read and the write.
var TestHookBeforeLock func(target string)

// TestHookTempWritten, when set (by tests only), runs once the temporary
// file holds the new text, before it is renamed over the target.
var TestHookTempWritten func(tmp string)

// Replace writes data to path if path holds old, byte for byte: the text
// the data was computed from. It follows a symbolic link to its target.
// While comparing and writing it holds an advisory lock on the target
// (flock, where the platform has it), so that two rlsolve runs never
// interleave; a program that does not lock is still caught by the
// comparison, up to the instant of the rename. The file keeps its owner,
// group, mode (setuid, setgid and sticky bits included) and extended
// attributes; see (*held).write for how.
func Replace(path string, old, data []byte, opt WriteOptions) error {
	h, err := hold(path, old, opt)
	if err != nil {
		return err
	}
	defer h.release()
	return h.write(data)
}

// held is a file locked, found writable and holding what was read.
type held struct {
	path, target string
	f            *os.File
	st           fs.FileInfo
}

// hold locks path's target and checks that it may be written and still
// holds old.
func hold(path string, old []byte, opt WriteOptions) (*held, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if TestHookBeforeLock != nil {
		TestHookBeforeLock(target)
	}
	f, err := openLocked(target)
	if err != nil {
		return nil, err
	}
	h := &held{path: path, target: target, f: f}
	if h.st, err = f.Stat(); err != nil {
		h.release()
		return nil, err
	}
	if err := h.check(old, opt); err != nil {
		h.release()
		return nil, err
	}
	return h, nil
}

// check refuses what is not a regular file, a read-only file and a file
// that changed.
func (h *held) check(old []byte, opt WriteOptions) error {
	if !h.st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", h.path)
	}
	if !opt.ForceReadOnly && (h.st.Mode().Perm()&0o200 == 0 || !canWrite(h.target)) {
		return &ReadOnlyError{Path: h.path, Mode: h.st.Mode()}
	}
	now, err := io.ReadAll(io.LimitReader(h.f, int64(len(old))+1))
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) {
		return &ChangedError{Path: h.path}
	}
	return nil
}

// openLocked opens target and locks it. Another rlsolve may have replaced
// the file (renamed a new one over it) while this one waited for the
// lock; the lock is then on the old file, so it opens the new one again.
func openLocked(target string) (*os.File, error) {
	for range 16 {
		f, err := os.Open(target)
		if err != nil {
			return nil, err
		}
		if err := lock(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", target, err)
		}
		locked, err1 := f.Stat()
		now, err2 := os.Stat(target)
		if err := errors.Join(err1, err2); err != nil {
			f.Close()
			return nil, err
		}
		if os.SameFile(locked, now) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s kept being replaced while rlsolve waited to write it", target)
}

// release closes the file, which drops the lock.
func (h *held) release() {
	if h != nil && h.f != nil {
		h.f.Close()
		h.f = nil
	}
}
