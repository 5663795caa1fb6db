package grammar_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
)

// tree writes files (path: content) under a new folder and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// compose composes dir/train.yaml with overrides and no environment.
func compose(t *testing.T, dir string, args ...string) *yamlpos.Doc {
	t.Helper()
	ovs, err := grammar.ParseOverrides(args)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "train.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return grammar.Compose(file, data, grammar.ConfigOptions{Overrides: ovs, Getenv: func(string) (string, bool) { return "", false }})
}

// at reads the scalar at a dotted path of a composed document: its text
// and the file (base name) and line it came from.
func at(t *testing.T, d *yamlpos.Doc, path string) (string, string, int) {
	t.Helper()
	if d.Root == nil {
		t.Fatalf("not composed:%s", diagText(d.Diags))
	}
	n := d.Path(path)
	if n == nil {
		t.Fatalf("no %s in the composed config", path)
	}
	v, _ := d.Scalar(n, path)
	return v.Py.Str, filepath.Base(v.Span.File), v.Span.Line
}

const cluster1 = "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: all\n"

// Hydra 1.1 and later merge a config over its defaults (an implicit _self_
// comes last); a listed _self_ first lets the defaults win. Every value
// keeps the file and line it came from.
func TestComposeSelfOrder(t *testing.T) {
	files := map[string]string{
		"base.yaml":   "cluster:\n  num_nodes: 4\n  component_placement:\n    actor: all\nrunner: {epochs: 1}\n",
		"train.yaml":  "defaults:\n  - base\ncluster:\n  num_nodes: 2\n",
		"first.yaml":  "defaults:\n  - _self_\n  - base\ncluster:\n  num_nodes: 2\n",
		"nested.yaml": "x: 1\n",
	}
	dir := tree(t, files)
	d := compose(t, dir)
	if v, file, line := at(t, d, "cluster.num_nodes"); v != "2" || file != "train.yaml" || line != 4 {
		t.Errorf("num_nodes %s from %s:%d, want 2 from train.yaml:4", v, file, line)
	}
	if v, file, _ := at(t, d, "cluster.component_placement.actor"); v != "all" || file != "base.yaml" {
		t.Errorf("actor %s from %s, want base.yaml's", v, file)
	}
	if err := os.Rename(filepath.Join(dir, "first.yaml"), filepath.Join(dir, "train.yaml")); err != nil {
		t.Fatal(err)
	}
	if v, file, _ := at(t, compose(t, dir), "cluster.num_nodes"); v != "4" || file != "base.yaml" {
		t.Errorf("with _self_ first, num_nodes %s from %s, want base.yaml's 4", v, file)
	}
}

// Config groups relative to the config's folder, at their default package
// or an @package; nested defaults in a group's config; a # @package header;
// an options list; optional entries that are absent.
func TestComposeGroupsAndPackages(t *testing.T) {
	dir := tree(t, map[string]string{
		"train.yaml":          "defaults:\n  - model: small\n  - env/maniskill@env.train\n  - optional missing_group: x\n  - extras: [a, b]\n  - glob\n" + cluster1,
		"model/small.yaml":    "defaults:\n  - sub: deep\nhidden: 128\n",
		"model/sub/deep.yaml": "layers: 4\n",
		"env/maniskill.yaml":  "num_envs: 64\n",
		"extras/a.yaml":       "a: 1\n",
		"extras/b.yaml":       "b: 2\n",
		"glob.yaml":           "# @package _global_\nrollout: {tensor_parallel_size: 2}\n",
	})
	d := compose(t, dir)
	for path, want := range map[string]string{
		"model.hidden":                 "128",
		"model.sub.layers":             "4",
		"env.train.num_envs":           "64",
		"extras.a":                     "1",
		"extras.b":                     "2",
		"rollout.tensor_parallel_size": "2",
	} {
		if v, _, _ := at(t, d, path); v != want {
			t.Errorf("%s = %s, want %s", path, v, want)
		}
	}
	if _, file, _ := at(t, d, "model.sub.layers"); file != "deep.yaml" {
		t.Errorf("model.sub.layers from %s", file)
	}
	if d.Path("missing_group") != nil || d.Path("defaults") != nil {
		t.Error("an absent optional group or a defaults list reached the config")
	}
}

// `override` entries change a choice an earlier entry (here in another
// file) made; the command line overrides both, appends groups and deletes
// them.
func TestComposeOverrides(t *testing.T) {
	files := map[string]string{
		"base.yaml":        "defaults:\n  - model: small\n" + cluster1,
		"train.yaml":       "defaults:\n  - base\n  - override model: large\n",
		"model/small.yaml": "size: 1\n",
		"model/large.yaml": "size: 2\n",
		"model/huge.yaml":  "size: 3\n",
		"extra/x.yaml":     "on: true\n",
	}
	dir := tree(t, files)
	if v, file, _ := at(t, compose(t, dir), "model.size"); v != "2" || file != "large.yaml" {
		t.Errorf("model.size %s from %s, want large's 2", v, file)
	}
	d := compose(t, dir, "model=huge", "+extra=x")
	if v, _, _ := at(t, d, "model.size"); v != "3" {
		t.Errorf("command-line choice: model.size %s, want 3", v)
	}
	if d.Path("extra") == nil {
		t.Error("+extra=x did not append the group")
	}
	if d := compose(t, dir, "~model"); d.Root == nil || d.Path("model") != nil {
		t.Errorf("~model kept the group:%s", diagText(d.Diags))
	}
}

// Composition failures are errors at the entry that causes them.
func TestComposeErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		code  string
		file  string
		line  int
		says  string
	}{
		{"missing config", map[string]string{"train.yaml": "defaults:\n  - _self_\n  - env/maniskil@env.train\n" + cluster1, "env/maniskill.yaml": "a: 1\n"},
			nil, model.CodeDefaultsNotFound, "train.yaml", 3, "env/maniskil.yaml is not in"},
		{"missing nested", map[string]string{"train.yaml": "defaults:\n  - model: m\n" + cluster1, "model/m.yaml": "defaults:\n  - sub: nope\n"},
			nil, model.CodeDefaultsNotFound, "m.yaml", 2, "model/sub/nope.yaml"},
		{"group left ???", map[string]string{"train.yaml": "defaults:\n  - model: ???\n" + cluster1, "model/a.yaml": "x: 1\n"},
			nil, model.CodeMandatoryMissing, "train.yaml", 2, "a config must be chosen"},
		{"two choices", map[string]string{"train.yaml": "defaults:\n  - base\n  - model: b\n" + cluster1, "base.yaml": "defaults:\n  - model: a\n", "model/a.yaml": "x: 1\n", "model/b.yaml": "x: 2\n"},
			nil, model.CodeDefaultsConflict, "base.yaml", 2, "chosen twice, as a and as b"},
		{"override without target", map[string]string{"train.yaml": "defaults:\n  - override model: a\n" + cluster1, "model/a.yaml": "x: 1\n"},
			nil, model.CodeDefaultsConflict, "train.yaml", 2, "no earlier entry"},
		{"override not last", map[string]string{"train.yaml": "defaults:\n  - model: a\n  - override model: b\n  - base\n" + cluster1, "model/a.yaml": "x: 1\n", "model/b.yaml": "x: 2\n", "base.yaml": "y: 1\n"},
			nil, model.CodeDefaultsEntry, "train.yaml", 3, "overrides must end"},
		{"unknown keyword", map[string]string{"train.yaml": "defaults:\n  - optionl model: a\n" + cluster1},
			nil, model.CodeDefaultsEntry, "train.yaml", 2, "unsupported keyword"},
		{"self twice", map[string]string{"train.yaml": "defaults:\n  - _self_\n  - _self_\n" + cluster1},
			nil, model.CodeDefaultsEntry, "train.yaml", 3, "twice"},
		{"defaults not a list", map[string]string{"train.yaml": "defaults:\n  model: a\n" + cluster1},
			nil, model.CodeDefaultsEntry, "train.yaml", 2, "must be a list"},
		{"config names itself", map[string]string{"train.yaml": "defaults:\n  - train\n" + cluster1},
			nil, model.CodeDefaultsConflict, "train.yaml", 2, "form a cycle: train -> train (train.yaml:2)"},
		{"command-line group not chosen", map[string]string{"train.yaml": cluster1, "model/a.yaml": "x: 1\n"},
			[]string{"model=a"}, model.CodeOverride, grammar.OverrideSource, 1, "does not choose it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := compose(t, tree(t, tc.files), tc.args...)
			var got *model.Diagnostic
			for i := range d.Diags {
				if d.Diags[i].Code == tc.code {
					got = &d.Diags[i]
					break
				}
			}
			if got == nil {
				t.Fatalf("no %s:%s", tc.code, diagText(d.Diags))
			}
			if filepath.Base(got.Primary.File) != tc.file || got.Primary.Line != tc.line || !strings.Contains(got.Summary, tc.says) {
				t.Errorf("%s at %s: %s; want %s:%d saying %q", got.Code, got.Primary, got.Summary, tc.file, tc.line, tc.says)
			}
			if d.Root != nil {
				t.Error("a failed composition returned a config")
			}
		})
	}
}

// hydra.searchpath folders: from the environment, or, when the variable is
// unset, the nearest folder above the config that holds the rest (with a
// note), as RLinf's e2e configs need.
func TestComposeSearchPath(t *testing.T) {
	dir := tree(t, map[string]string{
		"tests/e2e/train.yaml":                    "defaults:\n  - env/pick@env.train\nhydra:\n  searchpath:\n    - file://${oc.env:REPO_X}/examples/config\n" + cluster1,
		"examples/config/env/pick.yaml":           "num_envs: 8\n",
		"elsewhere/examples/config/env/pick.yaml": "num_envs: 16\n",
	})
	file := filepath.Join(dir, "tests", "e2e", "train.yaml")
	data, _ := os.ReadFile(file)
	read := func(env map[string]string) *yamlpos.Doc {
		return grammar.Compose(file, data, grammar.ConfigOptions{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}
	d := read(nil)
	if v, _, _ := at(t, d, "env.train.num_envs"); v != "8" {
		t.Errorf("guessed folder gave %s", v)
	}
	if n := findDiag(d.Diags, model.NoteSearchPath); n == nil || !strings.Contains(n.Summary, "REPO_X is not set") {
		t.Errorf("no note naming the variable:%s", diagText(d.Diags))
	}
	d = read(map[string]string{"REPO_X": filepath.Join(dir, "elsewhere")})
	if v, _, _ := at(t, d, "env.train.num_envs"); v != "16" || findDiag(d.Diags, model.NoteSearchPath) != nil {
		t.Errorf("with REPO_X set: %s:%s", v, diagText(d.Diags))
	}
	if d.Path("hydra") != nil {
		t.Error("Hydra's own settings reached the config")
	}
}

// The cluster section can come from a defaults list, and a diagnostic
// about it points into the file it is in, with that file's text.
func TestComposedClusterDiagnostics(t *testing.T) {
	dir := tree(t, map[string]string{
		"train.yaml":           "defaults:\n  - cluster_cfg@cluster: two\nrunner: {}\n",
		"cluster_cfg/two.yaml": "num_nodes: 2\ncomponent_placement:\n  actor: 1:0\n",
	})
	file := filepath.Join(dir, "train.yaml")
	data, _ := os.ReadFile(file)
	cfg, ds := grammar.LoadConfig(file, data, grammar.DefaultLimits)
	d := wantDiag(t, ds, model.CodeYAML11, model.SeverityError)
	if filepath.Base(d.Primary.File) != "two.yaml" || d.Primary.Line != 3 || d.Primary.Col != 10 {
		t.Errorf("D3 at %s, want two.yaml:3:10", d.Primary)
	}
	if cfg == nil || cfg.NumNodes != 2 {
		t.Errorf("num_nodes from the group config not read: %+v", cfg)
	}
}
