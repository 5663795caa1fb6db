package yamlpos

import (
	"runtime"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// A text with more tokens than the document has values left is refused
// before it is decoded, at the token that crosses the limit, without
// blaming aliases it does not have; the bytes allocated are a small part
// of the text's (decoding 100,000 entries allocated over 30 MB).
func TestFlatListRefusedBeforeDecoding(t *testing.T) {
	src := []byte("x:\n" + strings.Repeat("  - 1\n", 100_000))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := Parse("flat.yaml", src, testLimits)
	runtime.ReadMemStats(&after)
	if d.Root != nil || len(d.Diags) != 1 || d.Diags[0].Code != model.CodeLimit {
		t.Fatalf("a flat list of 100,000 values at a limit of 10,000: %v", d.Diags)
	}
	diag := d.Diags[0]
	if strings.Contains(diag.Summary, "alias") || !strings.Contains(diag.Summary, "tokens") {
		t.Errorf("summary %q, want the tokens counted and no aliases", diag.Summary)
	}
	// x, :, then a `-` and a 1 per entry: the 10,001st token is the
	// `-` of entry 5,000, on line 5,001.
	if diag.Primary.Line != 5001 || diag.Primary.Col != 3 {
		t.Errorf("limit reported at %s, want flat.yaml:5001:3", diag.Primary)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(src)/10) {
		t.Errorf("refusing allocated %d bytes for a text of %d", n, len(src))
	}
}

// Within the token count, the node count still holds: a list of nulls has
// one more node than tokens, and the error names the file, not aliases.
func TestNodeLimitWithoutAliases(t *testing.T) {
	lim := testLimits
	lim.MaxNodes = 100
	d := Parse("nulls.yaml", []byte(strings.Repeat("-\n", 100)), lim)
	if d.Root != nil || len(d.Diags) != 1 {
		t.Fatalf("101 nodes at a limit of 100: %v", d.Diags)
	}
	if want := "the YAML of nulls.yaml is over the limit; rlsolve reads at most 100 values"; d.Diags[0].Summary != want {
		t.Errorf("summary %q, want %q", d.Diags[0].Summary, want)
	}
	if d := Parse("nulls.yaml", []byte(strings.Repeat("-\n", 99)), lim); d.Root == nil {
		t.Errorf("100 nodes at a limit of 100: %v", d.Diags)
	}
}

// Tokens are where a value can start: words (quoted or not, comments
// too), `-`, `[`, `{`, and a `:` with nothing after it.
func TestTokenCount(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{"a: 1\n", 2},
		{"a:\nb: # c\n", 6},
		{"- [1, 2]\n", 4},
		{"k: \"a b\" # c d\n", 6},
		{"x: &a {y: *a, t: 1:0}\n", 7},
		{"[a:, b: ]", 5},
		{"", 0},
	} {
		if n, _ := tokenCount([]byte(c.src), 100); n != c.want {
			t.Errorf("%q: %d tokens, want %d", c.src, n, c.want)
		}
	}
}
