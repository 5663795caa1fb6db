package yamlpos

import (
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// Each input as PyYAML 6.0.4 with OmegaConf 2.3.1 (OmegaConf.load) loads it
// or not, checked with /tmp/rayvenv/bin/python; where rlsolve refuses, the
// line and column of the error (the tab, the tag, the invisible character).
func TestPyYAMLRefusals(t *testing.T) {
	for _, c := range []struct {
		src       string
		loads     bool
		line, col int
	}{
		{"a:\t1\n", false, 1, 3},
		{"cluster:\n  num_nodes:\t1\n", false, 2, 13},
		{"a: \t1\n", false, 1, 4},
		{"a: 1\t# c\n", false, 1, 5},
		{"a: 1\t2\n", false, 1, 5},
		{"a: 1\n\t\n", false, 2, 1},
		{"a: 'x'\t\n", false, 1, 7},
		{"a: 1\n\t# c\n", false, 2, 1},
		{"a: |\n  x\n\t\n  y\n", false, 3, 1},
		{"a: |\n  x\n  \ty\n", true, 0, 0},
		{"a: >\n  x\n   \ty\n", true, 0, 0},
		{"a: |\n  x\ty\nb: 1\n", true, 0, 0},
		{"a: \"x\ty\"\n", true, 0, 0},
		{"a: 'x\n\ty'\n", true, 0, 0},
		{"a: 1 # x\ty\n", true, 0, 0},
		{"a: \"it's\"\nb: 1\n", true, 0, 0},
		{"a: it's\nb: 1\n", true, 0, 0},
		{"a: !foo 1\n", false, 1, 4},
		{"a: !foo {b: 1}\n", false, 1, 4},
		{"a: !<tag:example.com,2000:foo> 1\n", false, 1, 4},
		{"a: !!python/name:os.system\n", false, 1, 4},
		{"a: !!set {x}\n", false, 1, 4},
		{"a: !!timestamp 2001-12-14\n", false, 1, 4},
		{"a: !!str 1\n", true, 0, 0},
		{"a: !<tag:yaml.org,2002:str> 1\n", true, 0, 0},
		{"a: !!binary aGVsbG8=\n", true, 0, 0},
		{"a: !!omap [{x: 1}]\n", true, 0, 0},
		{"a: ! x\n", true, 0, 0},
		{"a\ufeffb: 1\n", false, 1, 2},
		{"a: 1\n\ufeffb: 2\n", false, 2, 1},
		{"\"a\u200b\": 1\n", false, 1, 2},
		{"\ufeffa: 1\n", true, 0, 0},
		{"a: x\ufeffy\n", true, 0, 0},
	} {
		d := Parse("p.yaml", []byte(c.src), testLimits)
		if c.loads {
			if d.Root == nil {
				t.Errorf("%q loads in RLinf, refused: %v", c.src, d.Diags)
			}
			continue
		}
		if d.Root != nil || len(d.Diags) != 1 || d.Diags[0].Code != model.CodeYAMLSyntax {
			t.Errorf("%q fails in RLinf; got root %v, %v", c.src, d.Root != nil, d.Diags)
			continue
		}
		if p := d.Diags[0].Primary; p.Line != c.line || p.Col != c.col {
			t.Errorf("%q: refused at %d:%d, want %d:%d (%s)", c.src, p.Line, p.Col, c.line, c.col, d.Diags[0].Summary)
		}
	}
}
