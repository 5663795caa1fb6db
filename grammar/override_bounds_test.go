package grammar_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
)

// manyOverrides adds n keys to x (one not ASCII), sets each to a mapping,
// merges n keys into y one override at a time, then deletes x's keys.
func manyOverrides(n int) []string {
	var args []string
	for i := 0; i < n; i++ {
		args = append(args, fmt.Sprintf("+x.k%d='é%d'", i, i))
	}
	for i := 0; i < n; i++ {
		args = append(args, fmt.Sprintf("x.k%d={a: %d}", i, i))
	}
	for i := 0; i < n; i++ {
		args = append(args, fmt.Sprintf("++y={k%d: %d}", i, i))
	}
	for i := 0; i < n; i++ {
		args = append(args, fmt.Sprintf("~x.k%d", i))
	}
	return args
}

// composeOverrides parses and applies args, returning the bytes allocated.
func composeOverrides(t *testing.T, args []string) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ovs, err := grammar.ParseOverrides(args)
	if err != nil {
		t.Fatal(err)
	}
	d := grammar.Compose("c.yaml", []byte("x: {}\n"+cluster1), grammar.ConfigOptions{Overrides: ovs})
	runtime.ReadMemStats(&after)
	if d.Root == nil || d.Diags.HasErrors() {
		t.Fatalf("overrides do not apply:%s", diagText(d.Diags))
	}
	if x, y := d.Path("x"), d.Path("y"); x == nil || len(x.Content) != 0 || y == nil || len(y.Content) != 2*len(args)/4 {
		t.Fatalf("x has %d nodes (want none left), y %v", len(x.Content), y)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// Overrides are applied in time and memory linear in their number: four
// times as many allocate about four times the bytes (a copy of the config
// per override made 5,000 of them allocate 16 times what 1,250 did).
func TestOverridesLinear(t *testing.T) {
	small := composeOverrides(t, manyOverrides(1250))
	large := composeOverrides(t, manyOverrides(5000))
	t.Logf("%d then %d bytes", small, large)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Errorf("4x the overrides allocate %.1fx the bytes (%d, then %d), want about 4x", ratio, small, large)
	}
}

// Their count is bounded before anything is parsed.
func TestOverridesBounded(t *testing.T) {
	args := make([]string, 100_001)
	for i := range args {
		args[i] = "a=1"
	}
	if _, err := grammar.ParseOverrides(args); err == nil {
		t.Fatal("100,001 overrides parsed, want an error")
	}
}
