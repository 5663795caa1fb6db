package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// TestChooseFixes: the first fix of each diagnostic, unless it overlaps
// one chosen before (said, for the next round), edits what is not a file,
// or is the same edit again (kept once); a fix of a composed file only
// when shared files may be fixed.
func TestChooseFixes(t *testing.T) {
	dir := t.TempDir()
	f, g := filepath.Join(dir, "c.yaml"), filepath.Join(dir, "group", "g.yaml")
	if err := errors.Join(os.WriteFile(f, []byte("a: 1\nb: 2\n"), 0o666), os.Mkdir(filepath.Dir(g), 0o777), os.WriteFile(g, []byte("c: 3\n"), 0o666)); err != nil {
		t.Fatal(err)
	}
	at := func(file string, line, col, end int) model.Span {
		return model.Span{File: file, Line: line, Col: col, EndLine: line, EndCol: end}
	}
	fix := func(msg string, sp model.Span, text string) model.Fix {
		return model.Fix{Message: msg, Edits: []model.Edit{{Span: sp, NewText: text}}}
	}
	ds := model.Diagnostics{
		{Code: "A", Help: []model.Fix{{Message: "no edits"}, fix("a1", at(f, 1, 4, 5), "3"), fix("a2", at(f, 1, 4, 5), "4")}},
		{Code: "B", Help: []model.Fix{fix("b", at(f, 1, 3, 5), " 9")}},               // overlaps A's
		{Code: "C", Help: []model.Fix{fix("c", at(f, 1, 4, 5), "3")}},                // A's edit again
		{Code: "D", Help: []model.Fix{fix("d", at("<command line>", 1, 1, 2), "x")}}, // not a file
		{Code: "E", Help: []model.Fix{fix("e", at(f, 2, 4, 5), "5")}},                // elsewhere
		{Code: "F", Help: []model.Fix{fix("f", at(f, 1, 5, 5), "0")}},                // an insertion right after A's
		{Code: "G", Help: []model.Fix{fix("g", at(g, 1, 4, 5), "4")}},                // a composed file
	}
	edits, applied, skipped := chooseFixes(ds, func(es []model.Edit) string { return editable(es, f, false) })
	var names []string
	for _, a := range applied {
		names = append(names, a.Fix.Message)
	}
	if got := strings.Join(names, " "); got != "a1 c e f" {
		t.Errorf("applied %q, want a1 c e f", got)
	}
	if len(edits) != 3 {
		t.Errorf("edits %v: the same edit twice must be kept once", edits)
	}
	if len(skipped) != 3 || !strings.Contains(skipped[0], "B at") || !strings.Contains(skipped[1], "not a file") ||
		!strings.Contains(skipped[2], "G at") || !strings.Contains(skipped[2], "re-run with --fix-shared") {
		t.Errorf("skipped %q", skipped)
	}
	_, applied, _ = chooseFixes(ds, func(es []model.Edit) string { return editable(es, f, true) })
	if len(applied) != 5 || applied[4].Fix.Message != "g" {
		t.Errorf("with shared files allowed, applied %v", applied)
	}
}
