package topology

import (
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// loadInv reads an encoded inventory back with the real grammar.
func loadInv(t *testing.T, file string, data []byte) *model.Inventory {
	t.Helper()
	inv, ds := grammar.LoadInventory(file, data, grammar.DefaultLimits)
	if ds.HasErrors() || inv == nil {
		for _, d := range ds {
			t.Errorf("%s %s: %s", d.Code, d.Primary, d.Summary)
		}
		t.Fatalf("%s does not load:\n%s", file, data)
	}
	return inv
}
