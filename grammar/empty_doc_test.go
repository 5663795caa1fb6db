package grammar_test

import (
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// An empty YAML document is RLS-E0101 wherever a config, an inventory or a
// slime file is read, located at its null (or line 1 when it has none).
func TestEmptyDocument(t *testing.T) {
	for _, c := range []struct {
		src       string
		line, col int
	}{{"---\n", 1, 1}, {"~\n", 1, 1}, {"null\n", 1, 1}, {"--- null\n", 1, 5}, {"# a\n--- ~\n", 2, 5}} {
		_, ds := load(c.src)
		d := wantDiag(t, ds, model.CodeYAMLSyntax, model.SeverityError)
		if d.Primary.Line != c.line || d.Primary.Col != c.col {
			t.Errorf("%q: at %d:%d, want %d:%d", c.src, d.Primary.Line, d.Primary.Col, c.line, c.col)
		}
		_, ds = grammar.LoadInventory("i.yaml", []byte(c.src), grammar.DefaultLimits)
		wantDiag(t, ds, model.CodeYAMLSyntax, model.SeverityError)
		_, ds = grammar.LoadSlime("s.yaml", []byte(c.src), grammar.DefaultLimits, true)
		wantDiag(t, ds, model.CodeYAMLSyntax, model.SeverityError)
	}
	// A null value inside a config is not an empty document.
	if _, ds := load("cluster: ~\n"); findDiag(ds, model.CodeYAMLSyntax) != nil {
		t.Errorf("cluster: ~ reported as an empty document:%s", diagText(ds))
	}
}
