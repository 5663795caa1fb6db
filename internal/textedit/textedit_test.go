package textedit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func sp(line, col, endLine, endCol int) model.Span {
	return model.Span{File: "f.yaml", Line: line, Col: col, EndLine: endLine, EndCol: endCol}
}

func ed(s model.Span, text string) model.Edit { return model.Edit{Span: s, NewText: text} }

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		edits    []model.Edit
		want     string
		err      string
	}{
		{"replace a scalar", "a: 0-8\nb: 1\n", []model.Edit{ed(sp(1, 4, 1, 7), "0-7")}, "a: 0-7\nb: 1\n", ""},
		{"keeps CRLF", "a: 1\r\nb: 22\r\n", []model.Edit{ed(sp(2, 4, 2, 6), "3")}, "a: 1\r\nb: 3\r\n", ""},
		{"byte columns after UTF-8", "k: \"é\" # é\nv: 5\n", []model.Edit{ed(sp(1, 11, 1, 13), "x")}, "k: \"é\" # x\nv: 5\n", ""},
		{"insert at end of line", "a: 1\n", []model.Edit{ed(sp(1, 5, 1, 5), " # c")}, "a: 1 # c\n", ""},
		{"insert at end of file without newline", "a: 1", []model.Edit{ed(sp(1, 5, 1, 5), "0")}, "a: 10", ""},
		{"delete a whole line", "a: 1\nb: 2\nc: 3\n", []model.Edit{ed(sp(2, 1, 3, 1), "")}, "a: 1\nc: 3\n", ""},
		{"several edits, any order", "x: 1\ny: 2\n", []model.Edit{ed(sp(2, 4, 2, 5), "20"), ed(sp(1, 4, 1, 5), "10")}, "x: 10\ny: 20\n", ""},
		{"two inserts at one place keep their order", "ab", []model.Edit{ed(sp(1, 2, 1, 2), "1"), ed(sp(1, 2, 1, 2), "2")}, "a12b", ""},
		{"empty end means an insertion", "ab", []model.Edit{ed(model.Span{File: "f", Line: 1, Col: 2}, "-")}, "a-b", ""},
		{"overlap", "abcdef", []model.Edit{ed(sp(1, 1, 1, 4), "x"), ed(sp(1, 3, 1, 5), "y")}, "", "overlap"},
		{"past the line", "ab\ncd\n", []model.Edit{ed(sp(1, 2, 1, 5), "x")}, "", "the line has 2"},
		{"into the CR of a CRLF line", "ab\r\n", []model.Edit{ed(sp(1, 1, 1, 4), "x")}, "", "the line has 2"},
		{"past the last line", "ab\n", []model.Edit{ed(sp(3, 1, 3, 2), "x")}, "", "line(s)"},
		{"ends before it starts", "abc", []model.Edit{ed(sp(1, 3, 1, 2), "x")}, "", "ends before"},
		{"no position", "abc", []model.Edit{ed(model.Span{File: "f"}, "x")}, "", "no position"},
		{"column 0", "abc", []model.Edit{ed(sp(1, 0, 1, 1), "x")}, "", "count from 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply([]byte(tc.in), tc.edits)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestApplyFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	must(t, os.WriteFile(a, []byte("x: 1\n"), 0o640))
	must(t, os.WriteFile(b, []byte("y: 2\n"), 0o600))
	files, err := ApplyFiles([]model.Edit{
		{Span: model.Span{File: b, Line: 1, Col: 4, EndLine: 1, EndCol: 5}, NewText: "20"},
		{Span: model.Span{File: a, Line: 1, Col: 4, EndLine: 1, EndCol: 5}, NewText: "10"},
	}, readAll(t, a, b), WriteOptions{})
	if err != nil || len(files) != 2 || files[0] != b {
		t.Fatalf("ApplyFiles: %v, %v", files, err)
	}
	for f, want := range map[string]string{a: "x: 10\n", b: "y: 20\n"} {
		got, _ := os.ReadFile(f)
		if string(got) != want {
			t.Errorf("%s: %q, want %q", f, got, want)
		}
	}
	if st, _ := os.Stat(a); st.Mode().Perm() != 0o640 {
		t.Errorf("a.yaml lost its permissions: %v", st.Mode())
	}
	// One bad edit: nothing is written, and no temporary file is left.
	_, err = ApplyFiles([]model.Edit{
		{Span: model.Span{File: a, Line: 1, Col: 4, EndLine: 1, EndCol: 6}, NewText: "1"},
		{Span: model.Span{File: b, Line: 9, Col: 1, EndLine: 9, EndCol: 2}, NewText: "z"},
	}, readAll(t, a, b), WriteOptions{})
	if err == nil {
		t.Fatal("an edit past the end applied")
	}
	if got, _ := os.ReadFile(a); string(got) != "x: 10\n" {
		t.Errorf("a.yaml written although b.yaml's edit failed: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files left in the directory: %v", entries)
	}
}

// readAll reads files as a check would, before computing its edits.
func readAll(t *testing.T, files ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(t, err)
		out[f] = data
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzApply: any edit on any text either applies or says why; applied,
// the text outside the edit is unchanged.
func FuzzApply(f *testing.F) {
	f.Add("a: 1\r\nb: 2\n", 1, 4, 1, 5, "x")
	f.Add("", 1, 1, 1, 1, "y")
	f.Fuzz(func(t *testing.T, in string, l, c, el, ec int, text string) {
		out, err := Apply([]byte(in), []model.Edit{{Span: model.Span{File: "f", Line: l, Col: c, EndLine: el, EndCol: ec}, NewText: text}})
		if err != nil {
			return
		}
		from, _ := Offset([]byte(in), l, c)
		if !strings.HasPrefix(string(out), in[:from]) || !strings.Contains(string(out), text) {
			t.Fatalf("Apply(%q) = %q", in, out)
		}
	})
}
