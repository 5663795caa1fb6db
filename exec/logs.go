package exec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// DefaultLogDir is where runs keep their logs unless --log-dir says
// otherwise: $XDG_STATE_HOME/rlsolve/logs, else ~/.local/state/rlsolve/logs
// (never the current directory, which may be a source checkout).
func DefaultLogDir(getenv func(string) string) (string, error) {
	if s := getenv("XDG_STATE_HOME"); filepath.IsAbs(s) {
		return filepath.Join(s, "rlsolve", "logs"), nil
	}
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", errors.New("neither XDG_STATE_HOME nor HOME is an absolute path: give --log-dir")
	}
	return filepath.Join(home, ".local", "state", "rlsolve", "logs"), nil
}

// LatestLink is the name, in the log directory, of the link to the newest
// run's directory.
const LatestLink = "latest"

// runDir is one run's own directory of logs (and, for Slurm, of the plan
// and host files): made new under the log directory, never reused, and
// written only through its descriptor, so that nothing in it is reached
// through a link.
type runDir struct {
	path string
	f    *os.File // the directory, opened without following links
}

// makeRunDir makes parent/id (parent is made when missing), opens it, and
// points parent/latest at it. The directory is new: a run never writes
// into another's. note receives what did not stop the run (the link).
func makeRunDir(parent, id string, note func(string, ...any)) (*runDir, error) {
	if parent == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(parent)
	if err != nil {
		return nil, fmt.Errorf("log directory %s: %w", parent, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("log directory: %w", err)
	}
	pf, err := os.Open(abs)
	if err != nil {
		return nil, fmt.Errorf("log directory: %w", err)
	}
	defer pf.Close()
	pfd := int(pf.Fd())
	if err := unix.Mkdirat(pfd, id, 0o750); err != nil {
		return nil, fmt.Errorf("making the run's log directory %s: %w", filepath.Join(abs, id), err)
	}
	fd, err := unix.Openat(pfd, id, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the run's log directory %s: %w", filepath.Join(abs, id), err)
	}
	d := &runDir{path: filepath.Join(abs, id), f: os.NewFile(uintptr(fd), filepath.Join(abs, id))}
	if err := linkLatest(pfd, id); err != nil {
		note("could not point %s at this run: %v", filepath.Join(abs, LatestLink), err)
	}
	return d, nil
}

// linkLatest replaces parent/latest by a link to id, atomically (a new
// link renamed over the old one: the rename replaces a link, never
// follows it).
func linkLatest(pfd int, id string) error {
	tmp := "." + LatestLink + "-" + id
	if err := unix.Symlinkat(id, pfd, tmp); err != nil {
		return err
	}
	if err := unix.Renameat(pfd, tmp, pfd, LatestLink); err != nil {
		_ = unix.Unlinkat(pfd, tmp, 0)
		return err
	}
	return nil
}

func (d *runDir) close() {
	if d != nil && d.f != nil {
		_ = d.f.Close()
	}
}

// createIn makes a new file in the directory open: exclusively (never an
// existing file, never through a link).
func createIn(dir *os.File, name string, perm uint32) (*os.File, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name)), nil
}

// writeIn writes a new file in the directory.
func writeIn(dir *os.File, name string, data []byte) (string, error) {
	f, err := createIn(dir, name, 0o640)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

// logName is the file name of a worker's log: component-rank.log, with
// characters that do not belong in a file name replaced.
func logName(component string, rank int) string {
	return safeName(component) + "-" + strconv.Itoa(rank) + ".log"
}

// safeName keeps letters, digits, '_', '-' and '.', and never gives "",
// "." or "..".
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			b[i] = '_'
		}
	}
	name := string(b)
	if name == "" || name == "." || name == ".." {
		name = "_" + name
	}
	return name
}

// logNames gives every worker its log file name, unique in the run (two
// components whose names differ only in replaced characters get "~2").
func logNames(ws []*Worker) []string {
	out := make([]string, len(ws))
	used := map[string]bool{}
	for i, w := range ws {
		name := logName(w.Component, w.Rank)
		for n := 2; used[name]; n++ {
			name = safeName(w.Component) + "~" + strconv.Itoa(n) + "-" + strconv.Itoa(w.Rank) + ".log"
		}
		used[name] = true
		out[i] = name
	}
	return out
}
