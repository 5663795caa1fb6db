// Package model is rlsolve's intermediate representation: configs, inventories,
// placements and diagnostics. It imports nothing of rlsolve's own.
package model

import "fmt"

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
