package grammar_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// load runs LoadConfig on src with the default limits.
func load(src string) (*model.Config, model.Diagnostics) {
	return grammar.LoadConfig("test.yaml", []byte(src), grammar.DefaultLimits)
}

// mustLoad fails the test when src has errors.
func mustLoad(t *testing.T, src string) (*model.Config, model.Diagnostics) {
	t.Helper()
	cfg, ds := load(src)
	if ds.HasErrors() || cfg == nil {
		t.Fatalf("config does not load: %s", diagText(ds))
	}
	return cfg, ds
}

func diagText(ds model.Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "\n  %s %s %s: %s", d.Severity, d.Code, d.Primary, d.Summary)
	}
	return b.String()
}

func findDiag(ds model.Diagnostics, code string) *model.Diagnostic {
	for i := range ds {
		if ds[i].Code == code {
			return &ds[i]
		}
	}
	return nil
}

// wantDiag asserts a diagnostic with code and severity exists.
func wantDiag(t *testing.T, ds model.Diagnostics, code string, sev model.Severity) *model.Diagnostic {
	t.Helper()
	d := findDiag(ds, code)
	if d == nil {
		t.Fatalf("no %s diagnostic; got:%s", code, diagText(ds))
	}
	if d.Severity != sev {
		t.Errorf("%s has severity %s, want %s", code, d.Severity, sev)
	}
	return d
}

// posOf returns the 1-based line and column of the nth (0-based)
// occurrence of sub in src.
func posOf(t *testing.T, src, sub string, nth int) (int, int) {
	t.Helper()
	for li, line := range strings.Split(src, "\n") {
		for off := 0; ; {
			j := strings.Index(line[off:], sub)
			if j < 0 {
				break
			}
			if nth == 0 {
				return li + 1, off + j + 1
			}
			nth--
			off += j + 1
		}
	}
	t.Fatalf("%q not in source", sub)
	return 0, 0
}

// wantAt asserts the diagnostic's primary span starts at the nth
// occurrence of sub in src.
func wantAt(t *testing.T, d *model.Diagnostic, src, sub string, nth int) {
	t.Helper()
	line, col := posOf(t, src, sub, nth)
	if d.Primary.Line != line || d.Primary.Col != col {
		t.Errorf("%s at %d:%d, want %d:%d (%q)", d.Code, d.Primary.Line, d.Primary.Col, line, col, sub)
	}
}

// hasHelp reports whether any fix message contains s.
func hasHelp(d *model.Diagnostic, s string) bool {
	for _, h := range d.Help {
		if strings.Contains(h.Message, s) {
			return true
		}
	}
	return false
}
