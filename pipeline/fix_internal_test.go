package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// TestChooseFixes: the first fix of each diagnostic, unless it overlaps
// one chosen before (said, for the next round), edits what is not a file,
// or is the same edit again (kept once).
func TestChooseFixes(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(f, []byte("a: 1\nb: 2\n"), 0o666); err != nil {
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
	}
	edits, applied, skipped := chooseFixes(ds)
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
	if len(skipped) != 2 || !strings.Contains(skipped[0], "B at") || !strings.Contains(skipped[1], "not a file") {
		t.Errorf("skipped %q", skipped)
	}
}
