// Package model is rlsolve's intermediate representation: configs, inventories,
// placements and diagnostics. It imports nothing of rlsolve's own.
package model

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Span is a range of source text. Lines and columns count from 1; End is
// exclusive (the column after the last character). A zero Span means "no
// position known", as for configs built from Go code rather than a file.
type Span struct {
	File    string
	Line    int
	Col     int
	EndLine int
	EndCol  int
}

// Known reports whether the span points into a file.
func (s Span) Known() bool { return s.Line > 0 }

// String renders file:line:col, the form editors and terminals link.
func (s Span) String() string {
	if !s.Known() {
		if s.File != "" {
			return s.File
		}
		return "<input>"
	}
	return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
}

// Sub returns the span of characters [from, to) of a single-line span, as
// used to point at one character inside a scalar. It falls back to s when the
// offsets do not fit.
func (s Span) Sub(from, to int) Span {
	if !s.Known() || s.EndLine != s.Line || from < 0 || to < from || s.Col+to > s.EndCol {
		return s
	}
	if to == from {
		to = from + 1
	}
	return Span{File: s.File, Line: s.Line, Col: s.Col + from, EndLine: s.Line, EndCol: s.Col + to}
}

// OffsetSpan is the span of n bytes at byte offset off of a file's text,
// for readers that locate errors by offset (JSON decoders): at least one
// character, cut at the end of its line; columns count characters. An
// offset outside the text gives the file alone.
func OffsetSpan(file string, data []byte, off, n int) Span {
	if off < 0 || off > len(data) {
		return Span{File: file}
	}
	lineStart := bytes.LastIndexByte(data[:off], '\n') + 1
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := 1 + utf8.RuneCount(data[lineStart:off])
	end := min(off+max(n, 1), len(data))
	if nl := bytes.IndexByte(data[off:end], '\n'); nl >= 0 {
		end = off + nl
	}
	return Span{File: file, Line: line, Col: col, EndLine: line, EndCol: col + max(utf8.RuneCount(data[off:end]), 1)}
}
