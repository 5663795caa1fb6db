package textedit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// write replaces the held file's text with data. Normally a temporary
// file beside the target takes the data, the target's owner, group,
// extended attributes and mode, and is renamed over it: a reader sees the
// old text or the new, never half of each. The target is written in place
// instead (under the lock, after the comparison, but not atomically: a
// crash during the write can leave it half written) when a rename would
// lose something:
//   - it has hard links: a new file would leave the other names with the
//     old text;
//   - its folder does not let rlsolve create a file beside it;
//   - the new file cannot take its owner, group, mode or attributes (a
//     user who is not root cannot give a file away).
func (h *held) write(data []byte) error {
	m, err := metaOf(h.f, h.st)
	if err != nil {
		return err
	}
	if m.nlink > 1 {
		return h.inPlace(data, m)
	}
	dir := filepath.Dir(h.target)
	removeStale(h.target)
	tmp, err := createTemp(dir, tempPrefix(h.target)+"*")
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || readOnlyFS(err) {
			return h.inPlace(data, m)
		}
		return fmt.Errorf("creating a temporary file beside %s: %w", h.path, err)
	}
	stop := guardTemp(tmp.Name())
	defer stop()
	renamed := false
	defer func() {
		if !renamed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if m.apply(tmp) != nil {
		return h.inPlace(data, m) // the deferred function removes tmp
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if TestHookTempWritten != nil {
		TestHookTempWritten(tmp.Name())
	}
	if err := os.Rename(tmp.Name(), h.target); err != nil {
		return err
	}
	renamed = true
	syncDir(dir)
	return nil
}

// inPlace writes data over the target's own bytes, so that its inode, and
// with it every hard link, its owner and its attributes, stays.
func (h *held) inPlace(data []byte, m meta) error {
	f, err := os.OpenFile(h.target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("writing %s in place: %w", h.path, err)
	}
	defer f.Close()
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("writing %s in place: %w", h.path, err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return fmt.Errorf("writing %s in place: %w", h.path, err)
	}
	// A write by a user who is not root clears the setuid and setgid
	// bits; the owner may set them again.
	if st, err := f.Stat(); err == nil && st.Mode()&modeBits != m.mode {
		if err := f.Chmod(m.mode); err != nil {
			return fmt.Errorf("%s was written but lost its mode %v: %w", h.path, m.mode, err)
		}
	}
	return f.Sync()
}

// createTemp is os.CreateTemp; a test makes it fail as a read-only
// folder does for a user who is not root.
var createTemp = os.CreateTemp

// modeBits are the mode bits a rewritten file keeps.
const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// tempPrefix starts the name of a temporary file for target:
// .NAME.rlsolve-, then digits.
func tempPrefix(target string) string {
	return "." + filepath.Base(target) + ".rlsolve-"
}

// removeStale removes the temporary files a killed rlsolve (SIGKILL, a
// crash) left beside target. Temporary files are only made under the
// lock held now, so any found belongs to no running rlsolve.
func removeStale(target string) {
	prefix := tempPrefix(target)
	entries, _ := os.ReadDir(filepath.Dir(target))
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if ok && e.Type().IsRegular() && rest != "" && allDigits(rest) {
			os.Remove(filepath.Join(filepath.Dir(target), e.Name()))
		}
	}
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// syncDir makes the rename durable; a folder that cannot be synced (some
// platforms) is no reason to fail a write that is done.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
