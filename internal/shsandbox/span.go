package shsandbox

import (
	"mvdan.cc/sh/v3/syntax"
)

// Span is a range of a script: byte offsets and 1-based lines and columns
// (bytes), End exclusive.
type Span struct {
	File                       string
	Off, End                   int
	Line, Col, EndLine, EndCol int
}

// Known reports whether the span points into a file.
func (s Span) Known() bool { return s.Line > 0 }

func spanAt(name string, src []byte, off int) Span {
	off = min(max(off, 0), len(src))
	line, col := 1, 1
	for _, c := range src[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	end := min(off+1, len(src))
	return Span{File: name, Off: off, End: end, Line: line, Col: col, EndLine: line, EndCol: col + end - off}
}

// posSpan is the span between two syntax positions.
func posSpan(name string, from, to syntax.Pos) Span {
	if !from.IsValid() {
		return Span{File: name}
	}
	sp := Span{File: name, Off: int(from.Offset()), Line: int(from.Line()), Col: int(from.Col())}
	if to.IsValid() && to.Offset() >= from.Offset() {
		sp.End, sp.EndLine, sp.EndCol = int(to.Offset()), int(to.Line()), int(to.Col())
	} else {
		sp.End, sp.EndLine, sp.EndCol = sp.Off+1, sp.Line, sp.Col+1
	}
	return sp
}

func nodeSpan(name string, _ []byte, n syntax.Node) Span {
	return posSpan(name, n.Pos(), n.End())
}
