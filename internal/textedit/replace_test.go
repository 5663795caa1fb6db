package textedit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// writeFile makes a file with the text and mode (chmod, so that the
// umask does not take bits off).
func writeFile(t *testing.T, path, text string, mode fs.FileMode) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(text), 0o600))
	must(t, os.Chmod(path, mode))
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	return string(data)
}

// onlyFiles fails unless dir holds exactly the names (no temporary file).
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

// hook sets a test hook for the test's duration.
func hook[F any](t *testing.T, h *F, f F) {
	old := *h
	*h = f
	t.Cleanup(func() { *h = old })
}

// TestReplaceSecondWriter: a file written by another program between the
// read and the write is left as that program wrote it.
func TestReplaceSecondWriter(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "c.yaml")
	writeFile(t, f, "actor: 1:0\n", 0o644)
	hook(t, &TestHookBeforeLock, func(target string) {
		must(t, os.WriteFile(target, []byte("actor: 1:0\nrollout: 2\n"), 0o644))
	})
	err := Replace(f, []byte("actor: 1:0\n"), []byte("actor: \"1:0\"\n"), WriteOptions{})
	var changed *ChangedError
	if !errors.As(err, &changed) || changed.Path != f {
		t.Fatalf("Replace: %v, want a ChangedError for %s", err, f)
	}
	if got := readString(t, f); got != "actor: 1:0\nrollout: 2\n" {
		t.Errorf("the second writer's text was lost: %q", got)
	}
	onlyFiles(t, dir, "c.yaml")
}

// TestReplaceConcurrent: two writers that read the same text: one
// writes, the other finds the file changed; never a mix of both.
func TestReplaceConcurrent(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	writeFile(t, f, "actor: 1:0\n", 0o644)
	texts := []string{"actor: \"1:0\"\n", "actor: '1:0'\n"}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, text := range texts {
		wg.Go(func() { errs[i] = Replace(f, []byte("actor: 1:0\n"), []byte(text), WriteOptions{}) })
	}
	wg.Wait()
	var changed *ChangedError
	won := slices.IndexFunc(errs, func(err error) bool { return err == nil })
	if won < 0 || !errors.As(errs[1-won], &changed) {
		t.Fatalf("errors %v: want one write and one ChangedError", errs)
	}
	if got := readString(t, f); got != texts[won] {
		t.Errorf("file %q, want the winner's %q", got, texts[won])
	}
}

// TestReplaceKeepsMode: the mode, special bits included, survives.
func TestReplaceKeepsMode(t *testing.T) {
	for _, mode := range []fs.FileMode{0o600, 0o640, 0o755 | fs.ModeSetuid, 0o755 | fs.ModeSetgid, 0o644 | fs.ModeSticky} {
		t.Run(mode.String(), func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "c.yaml")
			writeFile(t, f, "a: 1\n", mode)
			must(t, Replace(f, []byte("a: 1\n"), []byte("a: 2\n"), WriteOptions{}))
			st, err := os.Stat(f)
			must(t, err)
			if st.Mode()&modeBits != mode {
				t.Errorf("mode %v, want %v", st.Mode(), mode)
			}
			if got := readString(t, f); got != "a: 2\n" {
				t.Errorf("file %q", got)
			}
		})
	}
}

// TestReplaceReadOnly: a file without a write bit is refused, and written
// (still read-only) when forced.
func TestReplaceReadOnly(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	writeFile(t, f, "a: 1\n", 0o444)
	err := Replace(f, []byte("a: 1\n"), []byte("a: 2\n"), WriteOptions{})
	var ro *ReadOnlyError
	if !errors.As(err, &ro) || readString(t, f) != "a: 1\n" {
		t.Fatalf("Replace: %v, file %q: want a ReadOnlyError and the file untouched", err, readString(t, f))
	}
	must(t, Replace(f, []byte("a: 1\n"), []byte("a: 2\n"), WriteOptions{ForceReadOnly: true}))
	st, _ := os.Stat(f)
	if got := readString(t, f); got != "a: 2\n" || st.Mode().Perm() != 0o444 {
		t.Errorf("forced: file %q, mode %v", got, st.Mode())
	}
}

// TestReplaceHardLink: a file with two names is written in place: both
// names show the new text and stay one file.
func TestReplaceHardLink(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	writeFile(t, a, "a: 1\n", 0o640)
	must(t, os.Link(a, b))
	must(t, Replace(a, []byte("a: 1\n"), []byte("a: 22\n"), WriteOptions{}))
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	must(t, errors.Join(err1, err2))
	if !os.SameFile(sa, sb) || readString(t, b) != "a: 22\n" || sa.Mode().Perm() != 0o640 {
		t.Errorf("the link was split or lost the text: same %v, b %q, mode %v", os.SameFile(sa, sb), readString(t, b), sa.Mode())
	}
	// Shorter text: the old tail goes.
	must(t, Replace(b, []byte("a: 22\n"), []byte("a\n"), WriteOptions{}))
	if got := readString(t, a); got != "a\n" {
		t.Errorf("in place, shorter: %q", got)
	}
	onlyFiles(t, dir, "a.yaml", "b.yaml")
}

// TestReplaceSymlink: a symbolic link is followed; the link stays a link.
func TestReplaceSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "real.yaml"), filepath.Join(dir, "link.yaml")
	writeFile(t, target, "a: 1\n", 0o644)
	must(t, os.Symlink("real.yaml", link))
	must(t, Replace(link, []byte("a: 1\n"), []byte("a: 2\n"), WriteOptions{}))
	st, err := os.Lstat(link)
	must(t, err)
	if st.Mode()&fs.ModeSymlink == 0 || readString(t, target) != "a: 2\n" {
		t.Errorf("link mode %v, target %q", st.Mode(), readString(t, target))
	}
}

// TestReplaceStaleTemp: a temporary file a killed rlsolve left is removed
// by the next write; other files that look alike are not.
func TestReplaceStaleTemp(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "c.yaml")
	writeFile(t, f, "a: 1\n", 0o644)
	writeFile(t, filepath.Join(dir, ".c.yaml.rlsolve-123456"), "a: half", 0o600)
	writeFile(t, filepath.Join(dir, ".c.yaml.rlsolve-notes"), "mine", 0o600)
	must(t, Replace(f, []byte("a: 1\n"), []byte("a: 2\n"), WriteOptions{}))
	onlyFiles(t, dir, ".c.yaml.rlsolve-notes", "c.yaml")
}
