package textedit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func TestDiff(t *testing.T) {
	edit := func(line, col, endLine, endCol int, text string) model.Edit {
		return model.Edit{Span: model.Span{File: "f.yaml", Line: line, Col: col, EndLine: endLine, EndCol: endCol}, NewText: text}
	}
	ten := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	for _, c := range []struct {
		name  string
		data  string
		edits []model.Edit
		want  string
	}{
		{"one word", "a: 1\nb: 2\nc: 3\n", []model.Edit{edit(2, 4, 2, 5, "20")},
			"--- a/f.yaml\n+++ b/f.yaml\n@@ -1,3 +1,3 @@\n a: 1\n-b: 2\n+b: 20\n c: 3\n"},
		{"nothing changes", "a: 1\n", []model.Edit{edit(1, 4, 1, 5, "1")}, ""},
		{"two hunks, the second's lines shifted", ten, []model.Edit{edit(1, 2, 1, 2, "\nx"), edit(10, 1, 10, 3, "ten")},
			"--- a/f.yaml\n+++ b/f.yaml\n@@ -1,4 +1,5 @@\n 1\n+x\n 2\n 3\n 4\n@@ -7,4 +8,4 @@\n 7\n 8\n 9\n-10\n+ten\n"},
		{"near edits share a hunk", ten, []model.Edit{edit(4, 1, 4, 2, "four"), edit(7, 1, 7, 2, "seven")},
			"--- a/f.yaml\n+++ b/f.yaml\n@@ -1,10 +1,10 @@\n 1\n 2\n 3\n-4\n-5\n-6\n-7\n+four\n+5\n+6\n+seven\n 8\n 9\n 10\n"},
		{"no newline at the end", "a: 1", []model.Edit{edit(1, 4, 1, 5, "2")},
			"--- a/f.yaml\n+++ b/f.yaml\n@@ -1,1 +1,1 @@\n-a: 1\n\\ No newline at end of file\n+a: 2\n\\ No newline at end of file\n"},
		{"a line removed", "a: 1\nb: 2\n", []model.Edit{edit(2, 1, 3, 1, "")},
			"--- a/f.yaml\n+++ b/f.yaml\n@@ -1,2 +1,1 @@\n a: 1\n-b: 2\n"},
	} {
		got, err := Diff("f.yaml", []byte(c.data), c.edits)
		if err != nil || got != c.want {
			t.Errorf("%s: got (err %v)\n%s\nwant\n%s", c.name, err, got, c.want)
		}
	}
	if _, err := Diff("f.yaml", []byte("a\n"), []model.Edit{edit(5, 1, 5, 2, "x")}); err == nil {
		t.Error("an edit past the end must be refused, as Apply refuses it")
	}
}

// FuzzDiff: patching the old text with Diff's hunks gives what Apply
// gives, and a diff that is empty means Apply changed nothing.
func FuzzDiff(f *testing.F) {
	f.Add("a: 1\nb: 2\nc: 3\n", 2, 4, 2, 5, "20")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10", 10, 1, 10, 3, "x\ny\n")
	f.Add("", 1, 1, 0, 0, "new\n")
	f.Fuzz(func(t *testing.T, in string, l, c, el, ec int, text string) {
		edits := []model.Edit{{Span: model.Span{File: "f", Line: l, Col: c, EndLine: el, EndCol: ec}, NewText: text}}
		want, err := Apply([]byte(in), edits)
		if err != nil {
			return
		}
		d, err := Diff("f", []byte(in), edits)
		if err != nil {
			t.Fatalf("Diff(%q) failed where Apply did not: %v", in, err)
		}
		if got := patch(t, in, d); got != string(want) {
			t.Fatalf("patching %q with\n%s\ngives %q, Apply %q", in, d, got, want)
		}
	})
}

// patch applies a unified diff of one file to old (the test's own
// reading of the format, to check Diff against Apply).
func patch(t *testing.T, old, diff string) string {
	if diff == "" {
		return old
	}
	src := splitLines([]byte(old))
	lines := strings.SplitAfter(diff, "\n")
	var out strings.Builder
	at := 0 // old lines copied or consumed
	last := func() {}
	for _, l := range lines[2:] {
		switch {
		case l == "":
		case strings.HasPrefix(l, "@@ -"):
			var start, n int
			fmt.Sscanf(l, "@@ -%d,%d", &start, &n)
			if n == 0 {
				start++
			}
			for ; at < start-1; at++ {
				out.Write(src[at])
			}
		case strings.HasPrefix(l, `\ No newline`):
			last()
		case l[0] == ' ' || l[0] == '+':
			out.WriteString(l[1:])
			if l[0] == ' ' {
				at++
			}
			last = func() { s := out.String(); out.Reset(); out.WriteString(strings.TrimSuffix(s, "\n")) }
		case l[0] == '-':
			at++
			last = func() {}
		default:
			t.Fatalf("not a diff line: %q", l)
		}
	}
	for ; at < len(src); at++ {
		out.Write(src[at])
	}
	return out.String()
}
