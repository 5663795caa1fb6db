package textedit

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rlsolve/rlsolve/model"
)

// ApplyFiles makes the edits in the files their spans name: each file is
// read, edited in memory and, once every file has been edited without
// error, replaced atomically (WriteAtomic). It returns the files written,
// in the order the edits first name them. Nothing is written when an edit
// does not apply.
func ApplyFiles(edits []model.Edit) ([]string, error) {
	files, by := ByFile(edits)
	out := make(map[string][]byte, len(files))
	for _, f := range files {
		if f == "" {
			return nil, fmt.Errorf("an edit names no file")
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		edited, err := Apply(data, by[f])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[f] = edited
	}
	for i, f := range files {
		if err := WriteAtomic(f, out[f]); err != nil {
			return files[:i], err
		}
	}
	return files, nil
}

// WriteAtomic replaces path's content with data: it writes a temporary
// file beside it (same directory, so the rename stays on one file system),
// gives it path's permissions, syncs it and renames it over path. A reader
// sees the old file or the new one, never half of it. path must exist and
// be a regular file (a symbolic link is followed to its target, which is
// what is replaced).
func WriteAtomic(path string, data []byte) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(target)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".rlsolve-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	done = true
	return nil
}
