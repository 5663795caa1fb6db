// Package wheel writes a Python wheel (PEP 427) that carries rlsolve's
// binary inside the Python package, so that `pip install` needs no Go and
// no build tool. The archive is reproducible: its entries are sorted and
// carry one fixed time, so the same inputs give the same bytes.
package wheel

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"time"
)

// File is one file of the package, its path relative to site-packages.
type File struct {
	Path string
	Data []byte
	Exec bool // written with mode 0o100755, the executable bit pip restores
}

// Spec says what the wheel holds.
type Spec struct {
	Name    string // the distribution name, e.g. rlsolve
	Version string // a PEP 440 version
	// Tags are the platform tags the binary runs on (manylinux_2_17_x86_64,
	// musllinux_1_2_x86_64, ...); the file name joins them with dots.
	Tags    []string
	Summary string
	// Scripts are console_scripts entries: name -> module:function.
	Scripts map[string]string
	// RequiresPython is the Requires-Python field (">=3.8").
	RequiresPython string
	// Description is the long description (Markdown), after the headers.
	Description string
	Files       []File
	// Time is every entry's modification time (zip times start in 1980).
	Time time.Time
}

// pep440 is PEP 440's canonical public version form (appendix B), which
// is what an index accepts.
var pep440 = regexp.MustCompile(`^([1-9][0-9]*!)?(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*((a|b|rc)(0|[1-9][0-9]*))?(\.post(0|[1-9][0-9]*))?(\.dev(0|[1-9][0-9]*))?$`)

// tag is one platform tag: lowercase letters, digits and underscores.
var tag = regexp.MustCompile(`^[a-z0-9_]+$`)

// name is a distribution name that needs no normalisation in file names.
var name = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

// FileName is the wheel's file name: NAME-VERSION-py3-none-TAGS.whl.
func (s Spec) FileName() string {
	return fmt.Sprintf("%s-%s-py3-none-%s.whl", s.Name, s.Version, strings.Join(s.Tags, "."))
}

func (s Spec) validate() error {
	switch {
	case !name.MatchString(s.Name):
		return fmt.Errorf("distribution name %q: use lowercase letters, digits and single underscores", s.Name)
	case !pep440.MatchString(s.Version):
		return fmt.Errorf("version %q is not a canonical PEP 440 version (such as 1.2.0 or 0.0.0.dev207)", s.Version)
	case len(s.Tags) == 0:
		return fmt.Errorf("no platform tag")
	case s.Time.Year() < 1980:
		return fmt.Errorf("time %v is before 1980, which zip cannot store", s.Time)
	}
	for _, t := range s.Tags {
		if !tag.MatchString(t) {
			return fmt.Errorf("platform tag %q: use lowercase letters, digits and underscores", t)
		}
	}
	seen := map[string]bool{}
	for _, f := range s.Files {
		if f.Path == "" || strings.HasPrefix(f.Path, "/") || strings.Contains(f.Path, "..") || strings.Contains(f.Path, "\\") {
			return fmt.Errorf("file path %q must be relative, with forward slashes", f.Path)
		}
		if seen[f.Path] {
			return fmt.Errorf("file %q given twice", f.Path)
		}
		seen[f.Path] = true
	}
	return nil
}

// Write writes the wheel to w: the package's files, then the dist-info
// directory with METADATA, WHEEL, entry_points.txt and RECORD last, as
// PEP 427 recommends.
func Write(w io.Writer, s Spec) error {
	if err := s.validate(); err != nil {
		return err
	}
	files := append([]File(nil), s.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	info := s.Name + "-" + s.Version + ".dist-info/"
	files = append(files,
		File{Path: info + "METADATA", Data: metadata(s)},
		File{Path: info + "WHEEL", Data: wheelFile(s)})
	if len(s.Scripts) > 0 {
		files = append(files, File{Path: info + "entry_points.txt", Data: entryPoints(s.Scripts)})
	}
	files = append(files, File{Path: info + "RECORD", Data: record(files, info+"RECORD")})
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, f := range files {
		if err := add(zw, f, s.Time); err != nil {
			return err
		}
	}
	return zw.Close()
}

func add(zw *zip.Writer, f File, at time.Time) error {
	h := &zip.FileHeader{Name: f.Path, Method: zip.Deflate, Modified: at.UTC()}
	mode := 0o644
	if f.Exec {
		mode = 0o755
	}
	h.SetMode(fs.FileMode(mode)) // also marks the entry as made on Unix, so pip reads the mode
	out, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = out.Write(f.Data)
	return err
}

// metadata is the core metadata (version 2.1: every installer reads it).
func metadata(s Spec) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n", s.Name, s.Version)
	if s.Summary != "" {
		fmt.Fprintf(&b, "Summary: %s\n", s.Summary)
	}
	if s.RequiresPython != "" {
		fmt.Fprintf(&b, "Requires-Python: %s\n", s.RequiresPython)
	}
	if s.Description != "" {
		fmt.Fprintf(&b, "Description-Content-Type: text/markdown\n\n%s", s.Description)
	}
	return b.Bytes()
}

// wheelFile is the WHEEL file: not purelib, since the binary is platform
// code, and one Tag line per platform tag.
func wheelFile(s Spec) []byte {
	var b bytes.Buffer
	b.WriteString("Wheel-Version: 1.0\nGenerator: rlsolve internal/wheel\nRoot-Is-Purelib: false\n")
	for _, t := range s.Tags {
		fmt.Fprintf(&b, "Tag: py3-none-%s\n", t)
	}
	return b.Bytes()
}

func entryPoints(scripts map[string]string) []byte {
	names := make([]string, 0, len(scripts))
	for n := range scripts {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString("[console_scripts]\n")
	for _, n := range names {
		fmt.Fprintf(&b, "%s = %s\n", n, scripts[n])
	}
	return b.Bytes()
}

// record is RECORD: each file's urlsafe, unpadded sha256 and size; RECORD
// itself has neither.
func record(files []File, self string) []byte {
	var b bytes.Buffer
	for _, f := range files {
		sum := sha256.Sum256(f.Data)
		fmt.Fprintf(&b, "%s,sha256=%s,%d\n", csvField(f.Path), base64.RawURLEncoding.EncodeToString(sum[:]), len(f.Data))
	}
	fmt.Fprintf(&b, "%s,,\n", csvField(self))
	return b.Bytes()
}

// csvField quotes a path as Python's csv module would when it needs it.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
