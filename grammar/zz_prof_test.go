package grammar_test

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
)

func TestZZProf(t *testing.T) {
	src := cluster1 + "x:\n" + strings.Repeat("  - 1\n", 400_000)
	_, ds := grammar.LoadConfig("s.yaml", []byte(src), grammar.DefaultLimits)
	t.Log(diagText(ds))
}
