package textedit

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// diffContext is the unchanged lines a hunk shows around a change, as
// diff -u does.
const diffContext = 3

// Diff is the unified diff (diff -u, a/ and b/ prefixes) that applying
// edits to data, the bytes of file, would make; "" when they change
// nothing. It is what `check --fix --diff` prints instead of writing: a
// hunk per group of edits within twice the context of each other.
func Diff(file string, data []byte, edits []model.Edit) (string, error) {
	if _, err := Apply(data, edits); err != nil {
		return "", err // out of range or overlapping: as Apply would refuse
	}
	lines := splitLines(data)
	if len(lines) == 0 {
		lines = [][]byte{{}} // an empty file: one empty line to edit
	}
	var out strings.Builder
	delta := 0
	for _, g := range groupEdits(edits, len(lines)) {
		seg := bytes.Join(lines[g.from-1:g.to], nil)
		rebased := make([]model.Edit, len(g.edits))
		for i, e := range g.edits {
			e.Span.Line -= g.from - 1
			if e.Span.EndLine > 0 {
				e.Span.EndLine -= g.from - 1
			}
			rebased[i] = e
		}
		after, err := Apply(seg, rebased)
		if err != nil {
			return "", err
		}
		delta += hunk(&out, lines[g.from-1:g.to], splitLines(after), g.from, delta)
	}
	if out.Len() == 0 {
		return "", nil
	}
	return fmt.Sprintf("--- a/%s\n+++ b/%s\n", file, file) + out.String(), nil
}

// group is edits whose hunks touch, and the lines (from 1, inclusive)
// their hunk spans.
type group struct {
	from, to int
	edits    []model.Edit
}

func groupEdits(edits []model.Edit, n int) []group {
	sorted := append([]model.Edit(nil), edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Span.Line < sorted[j].Span.Line })
	var gs []group
	for _, e := range sorted {
		last := max(e.Span.Line, e.Span.EndLine)
		from, to := max(1, e.Span.Line-diffContext), min(max(n, 1), last+diffContext)
		if k := len(gs) - 1; k >= 0 && from <= gs[k].to+1 {
			gs[k].to = max(gs[k].to, to)
			gs[k].edits = append(gs[k].edits, e)
			continue
		}
		gs = append(gs, group{from: from, to: to, edits: []model.Edit{e}})
	}
	return gs
}

// hunk writes one hunk: old and new are the same stretch of the file
// (from line from) before and after; the lines both start and end with
// are context. It returns how many lines the hunk adds (negative when it
// removes).
func hunk(out *strings.Builder, old, new [][]byte, from, delta int) int {
	p := 0
	for p < len(old) && p < len(new) && bytes.Equal(old[p], new[p]) {
		p++
	}
	s := 0
	for s < len(old)-p && s < len(new)-p && bytes.Equal(old[len(old)-1-s], new[len(new)-1-s]) {
		s++
	}
	if p == len(old) && p == len(new) {
		return 0
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(from, len(old)), hunkRange(from+delta, len(new)))
	line := func(mark string, l []byte) {
		if len(l) == 0 {
			return // the empty file's one empty line
		}
		out.WriteString(mark)
		out.Write(l)
		if !bytes.HasSuffix(l, []byte("\n")) {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for _, l := range old[:p] {
		line(" ", l)
	}
	for _, l := range old[p : len(old)-s] {
		line("-", l)
	}
	for _, l := range new[p : len(new)-s] {
		line("+", l)
	}
	for _, l := range old[len(old)-s:] {
		line(" ", l)
	}
	return len(new) - len(old)
}

// hunkRange is a hunk header's "start,count" (start is the line before
// an empty range, as diff -u writes it).
func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// splitLines splits data after each \n, keeping it.
func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}
