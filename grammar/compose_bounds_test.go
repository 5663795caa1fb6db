package grammar_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// fanOut writes n configs c0..c(n-1), each listing the next twice (at two
// packages), under a train.yaml listing c0: the tree composes 2^n configs.
func fanOut(t *testing.T, n int) string {
	files := map[string]string{"train.yaml": "defaults:\n  - c0\n  - _self_\n" + cluster1}
	for i := 0; i < n-1; i++ {
		files[fmt.Sprintf("c%d.yaml", i)] = fmt.Sprintf("defaults:\n  - c%d\n  - c%d@p%d\n  - _self_\nv%d: 1\n", i+1, i+1, i, i)
	}
	files[fmt.Sprintf("c%d.yaml", n-1)] = "x: 1\n"
	return tree(t, files)
}

func composeWith(t *testing.T, dir string, lim grammar.Limits) model.Diagnostics {
	t.Helper()
	file := filepath.Join(dir, "train.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return grammar.Compose(file, data, grammar.ConfigOptions{Limits: lim, Getenv: func(string) (string, bool) { return "", false }}).Diags
}

// A defaults tree is counted as it grows: exactly at the limit it
// composes, one config over it is a located RLS-E0107 and nothing more is
// composed (the 16-file tree of 65,536 configs stops at the default limit).
func TestComposeFanOutLimit(t *testing.T) {
	dir := fanOut(t, 6) // 2^6 = 64 configs, train.yaml included
	lim := grammar.DefaultLimits
	lim.MaxComposedConfigs = 64
	if ds := composeWith(t, dir, lim); ds.HasErrors() {
		t.Fatalf("64 configs at a limit of 64:%s", diagText(ds))
	}
	lim.MaxComposedConfigs = 63
	ds := composeWith(t, dir, lim)
	d := wantDiag(t, ds, model.CodeLimit, model.SeverityError)
	if !strings.HasPrefix(filepath.Base(d.Primary.File), "c") || d.Primary.Line == 0 {
		t.Errorf("the limit is reported at %s, want a defaults entry of a cN.yaml", d.Primary)
	}
	if n := ds.Count(model.SeverityError); n != 1 {
		t.Errorf("%d errors, want the limit once:%s", n, diagText(ds))
	}
	wantDiag(t, composeWith(t, fanOut(t, 16), grammar.DefaultLimits), model.CodeLimit, model.SeverityError)
}

// A config that is its own ancestor is named as a cycle, each link with
// the file and line that lists it.
func TestComposeCycleNamed(t *testing.T) {
	dir := tree(t, map[string]string{
		"train.yaml": "defaults:\n  - a\n  - _self_\n" + cluster1,
		"a.yaml":     "defaults:\n  - b\n",
		"b.yaml":     "x: 1\ndefaults:\n  - a\n",
	})
	d := wantDiag(t, composeWith(t, dir, grammar.DefaultLimits), model.CodeDefaultsConflict, model.SeverityError)
	want := "a (train.yaml:2) -> b (a.yaml:2) -> a (b.yaml:3)"
	if !strings.Contains(d.Summary, want) {
		t.Errorf("summary %q does not name the cycle %q", d.Summary, want)
	}
	if filepath.Base(d.Primary.File) != "b.yaml" || d.Primary.Line != 3 {
		t.Errorf("cycle reported at %s, want b.yaml:3", d.Primary)
	}
}

// Past the limit on config files, composition stops with the limit said
// once: the files it did not read are not reported missing (each was, one
// error per override, 2,976 for 2,000 overrides).
func TestComposeFileLimitOnce(t *testing.T) {
	files := map[string]string{"train.yaml": "defaults:\n  - _self_\n" + cluster1}
	var args []string
	for i := 0; i < 530; i++ {
		files[fmt.Sprintf("g%d/a.yaml", i)] = fmt.Sprintf("v%d: 1\n", i)
		args = append(args, fmt.Sprintf("+g%d=a", i))
	}
	d := compose(t, tree(t, files), args...)
	if d.Root != nil || len(d.Diags) != 1 || d.Diags[0].Code != model.CodeLimit {
		t.Fatalf("530 group configs: want the file limit once, got:%s", diagText(d.Diags))
	}
}
