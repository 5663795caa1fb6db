// Package textedit applies located edits to a file's bytes. Spans count
// lines and byte columns from 1, End exclusive, as every rlsolve span does;
// Apply turns them into byte offsets and changes nothing else, so that a
// file keeps its comments, quoting, line endings and layout byte for byte.
// `check --fix` and `solve --write` both write through it.
package textedit

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/rlsolve/rlsolve/model"
)

// Offset is the byte offset of line and column (both from 1) in data. A
// column may point just past the line's last character (an insertion at
// the end of a line), never into its line ending or past it.
func Offset(data []byte, line, col int) (int, error) {
	if line < 1 || col < 1 {
		return 0, fmt.Errorf("line %d, column %d: positions count from 1", line, col)
	}
	start := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("line %d: the text has %d line(s)", line, l)
		}
		start += i + 1
	}
	end := len(data)
	if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
		end = start + i
	}
	if end > start && data[end-1] == '\r' {
		end-- // a CRLF line: its \r is the line ending, not text
	}
	if start+col-1 > end {
		return 0, fmt.Errorf("line %d, column %d: the line has %d byte(s)", line, col, end-start)
	}
	return start + col - 1, nil
}

// Apply returns data with every edit made. The edits must be in one file
// (their spans' File is not checked: the caller picks the edits of each
// file) and must not overlap; two insertions at one place keep their
// order. data is not changed.
func Apply(data []byte, edits []model.Edit) ([]byte, error) {
	type change struct {
		from, to int
		text     string
		order    int
	}
	cs := make([]change, 0, len(edits))
	for i, e := range edits {
		sp := e.Span
		if !sp.Known() {
			return nil, fmt.Errorf("edit %d has no position", i+1)
		}
		from, err := Offset(data, sp.Line, sp.Col)
		if err != nil {
			return nil, fmt.Errorf("edit at %s: %w", sp, err)
		}
		endLine, endCol := sp.EndLine, sp.EndCol
		if endLine == 0 {
			endLine, endCol = sp.Line, sp.Col
		}
		to, err := Offset(data, endLine, endCol)
		if err != nil {
			return nil, fmt.Errorf("edit at %s: end: %w", sp, err)
		}
		if to < from {
			return nil, fmt.Errorf("edit at %s ends before it starts", sp)
		}
		cs = append(cs, change{from, to, e.NewText, i})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].from < cs[j].from })
	var out bytes.Buffer
	out.Grow(len(data))
	at := 0
	for i, c := range cs {
		if i > 0 && c.from < cs[i-1].to {
			return nil, fmt.Errorf("edits %d and %d overlap", cs[i-1].order+1, c.order+1)
		}
		out.Write(data[at:c.from])
		out.WriteString(c.text)
		at = c.to
	}
	out.Write(data[at:])
	return out.Bytes(), nil
}

// ByFile groups edits by the file their spans name, in the order files are
// first named.
func ByFile(edits []model.Edit) (files []string, by map[string][]model.Edit) {
	by = map[string][]model.Edit{}
	for _, e := range edits {
		if _, seen := by[e.Span.File]; !seen {
			files = append(files, e.Span.File)
		}
		by[e.Span.File] = append(by[e.Span.File], e)
	}
	return files, by
}
