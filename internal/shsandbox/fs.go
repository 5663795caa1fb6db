package shsandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/interp"
)

// The script sees one file system: writes land in memory (a heredoc written
// to $(mktemp) and passed as --sglang-config is read back from there);
// reads come from memory first, then from disk under the allowed roots
// only. Nothing on disk is ever created, changed or removed.

// memFS is the sandbox's file system.
type memFS struct {
	mu    sync.Mutex
	files map[string][]byte
	dirs  map[string]bool
	size  int
	max   int
	roots []string
	dir   string // the script's folder
	// refused are the reads outside the roots, in order, first one kept
	// per path.
	refused []Refusal
	// read are the disk files read, for code frames.
	read map[string][]byte
	// at is where the command reading lies (set by the sandbox).
	at func(ctx context.Context) Span
	// sourcing adapts a file read by `source` (set by the sandbox).
	sourcing func(ctx context.Context, p string, data []byte) []byte
}

// Refusal is a read the sandbox refused.
type Refusal struct {
	Path string
	Why  string
	At   Span // the command that read, when known
}

func newMemFS(roots []string, max int) *memFS {
	return &memFS{files: map[string][]byte{}, dirs: map[string]bool{"/": true, TempDir: true}, max: max, roots: roots, read: map[string][]byte{}}
}

// randomStandIn is what /dev/urandom reads as: fixed bytes, so a script's
// random suffixes come out the same on every run.
var randomStandIn = bytes.Repeat([]byte("rlsolve-sandbox-0123456789\n"), 64)

// TempDir is the virtual folder mktemp creates files in.
const TempDir = "/tmp/rlsolve-sandbox"

var errRefused = errors.New("refused by rlsolve's sandbox")

// refusedErr is a *fs.PathError: the interpreter then fails the one
// command, as bash does for an unreadable file, and the script goes on.
func refusedErr(p, why string) error {
	return &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("%w (%s)", errRefused, why)}
}

func (m *memFS) refuse(ctx context.Context, p, why string) error {
	var at Span
	if m.at != nil && ctx != nil {
		at = m.at(ctx)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.refused {
		if r.Path == p {
			return refusedErr(p, why)
		}
	}
	if len(m.refused) < 64 {
		m.refused = append(m.refused, Refusal{Path: p, Why: why, At: at})
	}
	return refusedErr(p, why)
}

// allowed reports whether a disk path may be read: it lies, links
// resolved, under one of the roots.
func (m *memFS) allowed(p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		real = p
	}
	for _, r := range m.roots {
		if real == r || strings.HasPrefix(real, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// ReadFile reads a file as the script would see it: memory, then the
// allowed disk.
func (m *memFS) ReadFile(ctx context.Context, p string) ([]byte, error) {
	p = path.Clean(p)
	if p == "/dev/urandom" || p == "/dev/random" {
		return randomStandIn, nil
	}
	m.mu.Lock()
	data, ok := m.files[p]
	m.mu.Unlock()
	if ok {
		return data, nil
	}
	if !m.allowed(p) {
		return nil, m.refuse(ctx, p, "outside the folders the sandbox reads: "+strings.Join(m.roots, ", "))
	}
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, m.refuse(ctx, p, "not a regular file")
	}
	if info.Size() > int64(m.max) {
		return nil, m.refuse(ctx, p, fmt.Sprintf("larger than %d bytes", m.max))
	}
	data, err = os.ReadFile(p)
	if err == nil {
		m.mu.Lock()
		m.read[p] = data
		m.mu.Unlock()
	}
	return data, err
}

// write stores a file in memory, bounded in total.
func (m *memFS) write(p string, data []byte, appendTo bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.files[p]
	if !appendTo {
		m.size -= len(old)
		old = nil
	}
	if m.size+len(data) > m.max {
		return fmt.Errorf("%s: the sandbox's files would exceed %d bytes", p, m.max)
	}
	m.size += len(data)
	m.files[p] = append(old[:len(old):len(old)], data...)
	m.dirs[path.Dir(p)] = true
	return nil
}

// Files is a copy of what the script wrote.
func (m *memFS) Files() map[string][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string][]byte, len(m.files))
	for k, v := range m.files {
		out[k] = v
	}
	return out
}

// open is the interpreter's OpenHandler.
func (m *memFS) open(ctx context.Context, p string, flag int, _ os.FileMode) (io.ReadWriteCloser, error) {
	p = absPath(interp.HandlerCtx(ctx).Dir, p)
	if p == "/dev/null" {
		return nopFile{}, nil
	}
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		if flag&(os.O_APPEND) == 0 {
			if err := m.write(p, nil, false); err != nil {
				return nil, err
			}
		}
		return &memWriter{fs: m, path: p}, nil
	}
	data, err := m.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	if m.sourcing != nil {
		data = m.sourcing(ctx, p, data)
	}
	return readFile{bytes.NewReader(data)}, nil
}

// stat is the interpreter's StatHandler: memory, then allowed disk; any
// other path does not exist for the script (so `[ -f /etc/shadow ]` is
// false rather than an answer about this machine).
func (m *memFS) stat(_ context.Context, name string, _ bool) (fs.FileInfo, error) {
	p := absPath(m.dir, name) // the interpreter passes absolute paths, without a HandlerContext
	m.mu.Lock()
	data, isFile := m.files[p]
	isDir := m.dirs[p]
	m.mu.Unlock()
	switch {
	case isFile:
		return fileInfo{name: path.Base(p), size: int64(len(data))}, nil
	case isDir:
		return fileInfo{name: path.Base(p), dir: true}, nil
	case p == "/dev/null":
		return fileInfo{name: "null"}, nil
	case m.allowed(p) || m.underRoot(p):
		return os.Stat(p)
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// underRoot reports whether p is a folder above a root (cd "$DIR/../..").
func (m *memFS) underRoot(p string) bool {
	for _, r := range m.roots {
		if strings.HasPrefix(r+"/", strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// readDir is the interpreter's ReadDirHandler2 (globs): memory, then
// allowed disk.
func (m *memFS) readDir(_ context.Context, name string) ([]fs.DirEntry, error) {
	p := absPath(m.dir, name)
	var out []fs.DirEntry
	m.mu.Lock()
	for f, data := range m.files {
		if path.Dir(f) == p {
			out = append(out, fs.FileInfoToDirEntry(fileInfo{name: path.Base(f), size: int64(len(data))}))
		}
	}
	m.mu.Unlock()
	if m.allowed(p) {
		if ents, err := os.ReadDir(p); err == nil {
			out = append(out, ents...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

func absPath(dir, p string) string {
	if !path.IsAbs(p) {
		p = path.Join(dir, p)
	}
	return path.Clean(p)
}

type memWriter struct {
	fs   *memFS
	path string
}

func (w *memWriter) Write(b []byte) (int, error) {
	if err := w.fs.write(w.path, b, true); err != nil {
		return 0, err
	}
	return len(b), nil
}
func (w *memWriter) Read([]byte) (int, error) { return 0, io.EOF }
func (w *memWriter) Close() error             { return nil }

type readFile struct{ *bytes.Reader }

func (readFile) Write([]byte) (int, error) { return 0, errors.New("opened for reading") }
func (readFile) Close() error              { return nil }

type nopFile struct{}

func (nopFile) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopFile) Write(b []byte) (int, error) { return len(b), nil }
func (nopFile) Close() error                { return nil }

type fileInfo struct {
	name string
	size int64
	dir  bool
}

func (f fileInfo) Name() string { return f.name }
func (f fileInfo) Size() int64  { return f.size }
func (f fileInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return f.dir }
func (f fileInfo) Sys() any           { return nil }
