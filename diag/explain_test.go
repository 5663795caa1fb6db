package diag

import (
	"strings"
	"testing"
)

func TestWriteExplanation(t *testing.T) {
	var b strings.Builder
	WriteExplanation(&b, Explanation{Code: "RLS-E0000", Title: "t", Text: "x", Example: "a:\n  b: 1\n"})
	if want := "RLS-E0000: t\n\nx\n\nExample:\n\n    a:\n      b: 1\n    \n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	WriteCodes(&b)
	if n := strings.Count(b.String(), "\n"); n != len(Codes()) || !strings.HasPrefix(b.String(), "RLS-") {
		t.Errorf("%d lines for %d codes", n, len(Codes()))
	}
}
