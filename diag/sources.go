// Package diag renders model.Diagnostics for people and tools: text with code
// frames, one line per problem, a JSON envelope, and SARIF 2.1.0. It also
// holds the explanations behind `rlsolve explain CODE`.
package diag

import (
	"bytes"
	"os"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// Sources gives the renderer the text of the files that spans point into, so
// it can print code frames. The zero value knows no files; the renderer then
// prints positions without frames rather than failing. With Load set it
// caches into Files, so one Sources must not be used by two goroutines.
type Sources struct {
	// Files holds contents by the same name that Span.File uses.
	Files map[string][]byte
	// Load, when set, reads a file that Files lacks (for example os.ReadFile).
	// What it returns is cached in Files when Files is not nil.
	Load func(name string) ([]byte, error)
}

// MapSources returns Sources over contents already in memory, which is what
// check uses: it has read the file once to parse it.
func MapSources(files map[string][]byte) Sources {
	if files == nil {
		files = map[string][]byte{}
	}
	return Sources{Files: files}
}

// DiskSources returns Sources that read files from disk when first needed.
func DiskSources() Sources {
	return Sources{Files: map[string][]byte{}, Load: os.ReadFile}
}

// content returns the file's bytes, or false when it cannot be had.
func (s Sources) content(name string) ([]byte, bool) {
	if b, ok := s.Files[name]; ok {
		return b, true
	}
	if s.Load == nil || name == "" {
		return nil, false
	}
	b, err := s.Load(name)
	if err != nil {
		return nil, false
	}
	if s.Files != nil {
		s.Files[name] = b
	}
	return b, true
}

// Line returns line n (from 1) of the file without its line ending, or false
// when the file is unknown or has no such line.
func (s Sources) Line(name string, n int) (string, bool) {
	b, ok := s.content(name)
	if !ok || n < 1 {
		return "", false
	}
	for i := 1; ; i++ {
		j := bytes.IndexByte(b, '\n')
		if i == n {
			if j >= 0 {
				b = b[:j]
			}
			return strings.TrimSuffix(string(b), "\r"), true
		}
		if j < 0 {
			return "", false
		}
		b = b[j+1:]
	}
}

// Text returns the source text a span covers, clamped to what exists, and
// false when any of it cannot be found. Fix rendering uses it to show the
// text an edit replaces.
func (s Sources) Text(sp model.Span) (string, bool) {
	if sp.Line < 1 {
		return "", false
	}
	end := sp.EndLine
	if end < sp.Line {
		end = sp.Line
	}
	var parts []string
	for n := sp.Line; n <= end; n++ {
		line, ok := s.Line(sp.File, n)
		if !ok {
			return "", false
		}
		from, to := 0, len(line)
		if n == sp.Line {
			from = clamp(sp.Col-1, 0, len(line))
		}
		if n == end && sp.EndLine >= sp.Line {
			to = clamp(sp.EndCol-1, from, len(line))
		}
		parts = append(parts, line[from:to])
	}
	return strings.Join(parts, "\n"), true
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// norm repairs a known span whose end is missing or before its start, as a
// producer that only knows where something begins may leave it, so that every
// output form sees start <= end.
func norm(sp model.Span) model.Span {
	if !sp.Known() {
		return sp
	}
	if sp.Col < 1 {
		sp.Col = 1
	}
	if sp.EndLine < sp.Line || (sp.EndLine == sp.Line && sp.EndCol < sp.Col) {
		sp.EndLine, sp.EndCol = sp.Line, sp.Col
	}
	if sp.EndCol < 1 {
		sp.EndCol = 1
	}
	return sp
}
