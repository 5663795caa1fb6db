package diag

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"actor", "actor"},
		{"rollout-é 0", "rollout-é 0"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"title\x1b]0;owned\x07", `title\x1b]0;owned\x07`},
		{"line\nspoof\r", `line\nspoof\r`},
		{"tab\there", `tab\there`},
		{"nul\x00", `nul\x00`},
		{"del\x7f", `del\x7f`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"rtl\u202edesab", `rtl\u202edesab`},
		{"\ufeffkey", `\ufeffkey`},
		{"sep\u2028", `sep\u2028`},
		{"bad\xff\xfe", `bad\xff\xfe`},
		{"", ""},
	}
	for _, tt := range tests {
		got := Printable(tt.in)
		if got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
		for _, r := range got {
			if Unsafe(r) {
				t.Errorf("Printable(%q) still holds %U", tt.in, r)
			}
		}
	}
}

func TestPrintableLines(t *testing.T) {
	in := "cannot read a\x1b[2J.yaml\nhelp: install\tit\n"
	if got, want := PrintableLines(in), "cannot read a\\x1b[2J.yaml\nhelp: install\\tit\n"; got != want {
		t.Errorf("PrintableLines(%q) = %q, want %q", in, got, want)
	}
	if got := PrintableLines("plain\ntext"); got != "plain\ntext" {
		t.Errorf("plain text changed: %q", got)
	}
}

// TestTextEscapesInputText: names from the input reach every part of a
// diagnostic (summary, labels, notes, why, help, file names); none of it
// is written raw.
func TestTextEscapesInputText(t *testing.T) {
	const evil = "act\x1b[2J\x1b]0;owned\x07or\nerror: spoofed"
	d := model.Diagnostic{
		Code: "RLS-E0203", Severity: model.SeverityError,
		Summary: evil + ": out of range", Primary: span("c\x1b[31m.yaml", 1, 1, 3), PrimaryLabel: evil,
		Labels: []model.Label{{Span: model.Span{File: "other\x1b.yaml"}, Message: evil}},
		Why:    evil, Denied: evil,
		Help: []model.Fix{{Message: evil}},
	}
	src := MapSources(map[string][]byte{"c\x1b[31m.yaml": []byte("\x1b[2J: 0-9\n")})
	var b bytes.Buffer
	Text(&b, []model.Diagnostic{d}, src, false)
	SummaryAllowed(&b, []model.Diagnostic{d}, "c\x1b[31m.yaml", nil)
	out := b.String()
	for _, r := range out {
		if r != '\n' && Unsafe(r) {
			t.Fatalf("a %U reached the text:\n%s", r, out)
		}
	}
	if strings.Contains(out, "\nerror: spoofed") {
		t.Errorf("a line break in a name started a line of its own:\n%s", out)
	}
	if !strings.Contains(out, `act\x1b[2J\x1b]0;owned\x07or\nerror: spoofed: out of range`) {
		t.Errorf("the summary is not shown escaped:\n%s", out)
	}
}
