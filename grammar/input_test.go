package grammar_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// quick fails when f takes longer than a second: hostile inputs must be
// refused before anything proportional to them is built.
func quick(t *testing.T, f func()) {
	t.Helper()
	start := time.Now()
	f()
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

// Files that cannot be used at all.
func TestInputUnusable(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line, col int
	}{
		{"empty", "", 0, 0},
		{"only whitespace", "  \n\n", 0, 0},
		{"not UTF-8", "cluster:\n  num_nodes: \xff1\n", 2, 14},
		{"no document", "# just a comment\n", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ds := load(tc.src)
			if cfg != nil {
				t.Errorf("config %+v from an unusable file", cfg)
			}
			d := wantDiag(t, ds, model.CodeYAMLSyntax, model.SeverityError)
			if d.Primary.Line != tc.line || (tc.line > 0 && d.Primary.Col != tc.col) {
				t.Errorf("at %d:%d, want %d:%d", d.Primary.Line, d.Primary.Col, tc.line, tc.col)
			}
		})
	}
}

// A tab-indented file is a YAML error whose help says why.
func TestInputTabIndented(t *testing.T) {
	_, ds := load("cluster:\n\tnum_nodes: 1\n\tcomponent_placement: {}\n")
	d := wantDiag(t, ds, model.CodeYAMLSyntax, model.SeverityError)
	if !hasHelp(d, "tab") {
		t.Errorf("help %+v should mention tabs", d.Help)
	}
	if len(d.Labels) == 0 || d.Labels[0].Span.Line != 2 || d.Labels[0].Span.Col != 1 {
		t.Errorf("labels %+v should point at the tab on line 2", d.Labels)
	}
}

// CRLF line ends and a UTF-8 byte-order mark are accepted, with the same
// positions as the plain file.
func TestInputCRLFAndBOM(t *testing.T) {
	plain := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-3\n    env: 1:0\n"
	for name, src := range map[string]string{
		"LF":   plain,
		"CRLF": strings.ReplaceAll(plain, "\n", "\r\n"),
		"BOM":  "\xef\xbb\xbf" + plain,
	} {
		t.Run(name, func(t *testing.T) {
			cfg, ds := load(src)
			if cfg == nil || len(cfg.Components) != 1 || cfg.Components[0].Placement != "0-3" {
				t.Fatalf("not read: %s", diagText(ds))
			}
			if sp := cfg.Components[0].PlacementSpan; sp.Line != 4 || sp.Col != 12 || sp.EndCol != 15 {
				t.Errorf("placement span %+v, want 4:12-15", sp)
			}
			d := wantDiag(t, ds, model.CodeYAML11, model.SeverityError)
			if d.Primary.Line != 5 || d.Primary.Col != 10 {
				t.Errorf("D3 error at %s, want 5:10", d.Primary)
			}
		})
	}
}

// Billion laughs: 10 levels of 10 aliases each expand to 10^10 values and
// are refused without being expanded.
func TestInputBillionLaughs(t *testing.T) {
	src := "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 10; i++ {
		refs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", ")
		src += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, refs)
	}
	src += "cluster:\n  num_nodes: 1\n  component_placement: {actor: all}\n"
	quick(t, func() {
		cfg, ds := load(src)
		wantDiag(t, ds, model.CodeLimit, model.SeverityError)
		if cfg != nil {
			t.Error("config returned")
		}
	})
}

// Nesting 200 levels deep is refused (block and flow style).
func TestInputDeepNesting(t *testing.T) {
	var block strings.Builder
	for i := 0; i < 200; i++ {
		block.WriteString(strings.Repeat("  ", i) + "a:\n")
	}
	block.WriteString(strings.Repeat("  ", 200) + "b: 1\n")
	flow := "x: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n"
	for name, src := range map[string]string{"block": block.String(), "flow": flow} {
		t.Run(name, func(t *testing.T) {
			quick(t, func() {
				cfg, ds := load(src)
				if cfg != nil {
					t.Error("config returned")
				}
				wantDiag(t, ds, model.CodeLimit, model.SeverityError)
			})
		})
	}
}

// Size limits on the file and on one scalar.
func TestInputSizeLimits(t *testing.T) {
	lim := grammar.DefaultLimits
	lim.MaxFileBytes = 64
	_, ds := grammar.LoadConfig("big.yaml", []byte("cluster:\n  num_nodes: 1\n  component_placement:\n    actor: "+strings.Repeat("0", 100)+"\n"), lim)
	wantDiag(t, ds, model.CodeLimit, model.SeverityError)

	lim = grammar.DefaultLimits
	lim.MaxStringBytes = 16
	src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: \"" + strings.Repeat("0,", 20) + "1\"\n"
	_, ds = grammar.LoadConfig("long.yaml", []byte(src), lim)
	wantAt(t, wantDiag(t, ds, model.CodeLimit, model.SeverityError), src, "0,0", 0)
}

// Huge rank values are refused quickly, before any expansion.
func TestInputHugeRanks(t *testing.T) {
	t.Run("node_ranks within the rank limit", func(t *testing.T) {
		quick(t, func() {
			_, ds := load(groupsYAML(2, "    - {label: a, node_ranks: 0-99999999}\n"))
			wantDiag(t, ds, model.CodeNodeRanksRange, model.SeverityError)
		})
	})
	for _, v := range []string{"0-999999999", "0:0-999999999"} {
		t.Run(v, func(t *testing.T) {
			quick(t, func() {
				_, ds := load("cluster:\n  num_nodes: 1\n  component_placement:\n    actor: " + v + "\n")
				if !ds.HasErrors() {
					t.Fatal("accepted")
				}
				if findDiag(ds, model.CodeLimit) == nil && findDiag(ds, model.CodeNodeRanksRange) == nil {
					t.Errorf("%q is refused with %s, not %s or %s", v, ds[0].Code, model.CodeLimit, model.CodeNodeRanksRange)
				}
			})
		})
	}
}
