package pipeline_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/pipeline"
)

// Compose gives the composed values with a position for each key path,
// the override's pointing at the command line.
func TestCompose(t *testing.T) {
	file := filepath.Join("..", "examples", "composed-defaults", "train.yaml")
	ovs, err := grammar.ParseOverrides([]string{"rollout.tensor_parallel_size=4"})
	if err != nil {
		t.Fatal(err)
	}
	c := pipeline.Compose(file, nil, ovs)
	if c.Doc == nil || c.ReadFailed || len(c.Data) == 0 {
		t.Fatalf("compose: %v", c.Diagnostics)
	}
	r := c.Doc.Positions["rollout.tensor_parallel_size"]
	if r == nil || r.Filename != grammar.OverrideSource {
		t.Errorf("the override's position: %+v", r)
	}
	var b bytes.Buffer
	if err := c.Doc.WriteJSON(&b); err != nil || !strings.Contains(b.String(), `"format_version": "1"`) || strings.Contains(b.String(), `\u003c`) {
		t.Errorf("JSON %v:\n%s", err, b.String())
	}
	stdin := pipeline.Compose("-", strings.NewReader("a: [1\n"), grammar.Overrides{})
	if stdin.File != grammar.StdinName || stdin.Doc != nil || stdin.ReadFailed || !stdin.Diagnostics.HasErrors() {
		t.Errorf("bad YAML on stdin: %+v", stdin)
	}
	if missing := pipeline.Compose(filepath.Join(t.TempDir(), "none.yaml"), nil, grammar.Overrides{}); !missing.ReadFailed {
		t.Errorf("a missing file: %+v", missing)
	}
}
