package grammar_test

import (
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// A name read from an inventory with a control character is refused where
// it is written: it would forge a line of the plan table or reach the
// terminal raw.
func TestInventoryControlCharacters(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line, col int
	}{
		{"NUL in a host name", "nodes:\n  - {rank: 0, hostname: \"a\\0b\", accelerators: 8}\n", 2, 25},
		{"newline in a host name", "nodes:\n  - {rank: 0, hostname: \"a\\nrank 1 b\", accelerators: 8}\n", 2, 25},
		{"escape in a host list", "nodes:\n  - ranks: 0-1\n    hostnames: \"n\\e[31m-[0-1]\"\n    accelerators: 8\n", 3, 16},
		{"DEL in an address", "nodes:\n  - rank: 0\n    ip: \"10.0.0.1\\x7f\"\n    accelerators: 8\n", 3, 9},
		{"C1 in a model", "nodes:\n  - rank: 0\n    accelerators: {count: 8, model: \"A\\x85\"}\n", 3, 37},
		{"tab in a hardware name", "inventory:\n  nodes:\n    - rank: 0\n      accelerators: 0\n      hardware: {\"Fr\\tanka\": 1}\n", 5, 18},
	} {
		_, ds := grammar.LoadInventory("i.yaml", []byte(c.src), grammar.DefaultLimits)
		d := wantDiag(t, ds, model.CodeInvalidValue, model.SeverityError)
		if d.Primary.Line != c.line || d.Primary.Col != c.col {
			t.Errorf("%s: at %d:%d, want %d:%d (%s)", c.name, d.Primary.Line, d.Primary.Col, c.line, c.col, d.Summary)
		}
		_, ds = grammar.LoadInventoryEntries([]grammar.InventoryFile{{File: "i.yaml", Data: []byte(c.src)}}, grammar.DefaultLimits)
		wantDiag(t, ds, model.CodeInvalidValue, model.SeverityError)
	}
	if _, ds := grammar.LoadInventory("i.yaml", []byte("nodes:\n  - {rank: 0, hostname: \"a-é\", accelerators: 8}\n"), grammar.DefaultLimits); ds.HasErrors() {
		t.Errorf("a printable name refused:%s", diagText(ds))
	}
}
