package grammar_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// Hydra's override grammar: prefixes, keys with packages, and values typed
// by Hydra (not YAML 1.1: 0x10 and 1:0 stay strings, 1_000 is an int).
func TestParseOverrides(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		kind grammar.OverrideKind
		key  string
		pkg  string
		// value as YAML 1.1 reads the node built for it (Python's type and str)
		typ yamlpos.Kind
		str string
	}{
		{"cluster.num_nodes=2", grammar.OverrideSet, "cluster.num_nodes", "", yamlpos.Int, "2"},
		{"+x.y=1_000", grammar.OverrideAdd, "x.y", "", yamlpos.Int, "1000"},
		{"++a=TrUe", grammar.OverrideForce, "a", "", yamlpos.Bool, "True"},
		{"a=0x10", grammar.OverrideSet, "a", "", yamlpos.Str, "0x10"},
		{"a=1:0", grammar.OverrideSet, "a", "", yamlpos.Str, "1:0"},
		{"a=0-3", grammar.OverrideSet, "a", "", yamlpos.Str, "0-3"},
		{"a=yes", grammar.OverrideSet, "a", "", yamlpos.Str, "yes"},
		{"a=null", grammar.OverrideSet, "a", "", yamlpos.Null, "None"},
		{"a=1e5", grammar.OverrideSet, "a", "", yamlpos.Float, "100000.0"},
		{"a='0,1'", grammar.OverrideSet, "a", "", yamlpos.Str, "0,1"},
		{`a="it's"`, grammar.OverrideSet, "a", "", yamlpos.Str, "it's"},
		{"a=/path/to/x y", grammar.OverrideSet, "a", "", yamlpos.Str, "/path/to/x y"},
		{"a=${b.c}", grammar.OverrideSet, "a", "", yamlpos.Str, "${b.c}"},
		{"a=", grammar.OverrideSet, "a", "", yamlpos.Str, ""},
		{"model@actor.model=pi0", grammar.OverrideSet, "model", "actor.model", yamlpos.Str, "pi0"},
		{"hydra/job_logging=stdout", grammar.OverrideSet, "hydra/job_logging", "", yamlpos.Str, "stdout"},
	} {
		ovs, err := grammar.ParseOverrides([]string{"first=1", tc.arg})
		if err != nil {
			t.Errorf("%s: %v", tc.arg, err)
			continue
		}
		o := ovs.List[1]
		pkg := ""
		if o.Package != nil {
			pkg = *o.Package
		}
		if o.Kind != tc.kind || o.Key != tc.key || pkg != tc.pkg || o.Off != len("first=1 ") {
			t.Errorf("%s: kind %v key %q pkg %q off %d", tc.arg, o.Kind, o.Key, pkg, o.Off)
		}
		v := o.Value
		py := yamlpos.ResolvePlain(v.Value)
		if yamlpos.Quoted(v) {
			py = yamlpos.PyValue{Kind: yamlpos.Str, Str: v.Value}
		}
		if v.Kind != yaml.ScalarNode || py.Kind != tc.typ || py.Str != tc.str {
			t.Errorf("%s: value %v %q, want %v %q", tc.arg, py.Kind, py.Str, tc.typ, tc.str)
		}
	}
	ovs, err := grammar.ParseOverrides([]string{"a=[1, [x, y], {k: v}]", "~b", "~c=3"})
	if err != nil {
		t.Fatal(err)
	}
	if v := ovs.List[0].Value; v.Kind != yaml.SequenceNode || len(v.Content) != 3 || v.Content[1].Kind != yaml.SequenceNode || v.Content[2].Kind != yaml.MappingNode {
		t.Errorf("list value %+v", v)
	}
	if ovs.List[1].Kind != grammar.OverrideDelete || ovs.List[1].Value != nil || ovs.List[2].Value == nil {
		t.Errorf("deletions %+v", ovs.List[1:])
	}
	if ovs.Text != "a=[1, [x, y], {k: v}] ~b ~c=3" {
		t.Errorf("text %q", ovs.Text)
	}
}

func TestParseOverridesRejected(t *testing.T) {
	for _, tc := range []struct{ arg, says string }{
		{"a=1,2", "sweep"},
		{"a=choice(1,2)", "sweep"},
		{"novalue", "KEY=VALUE"},
		{"a b=1", "not a key"},
		{"=1", "not a key"},
		{"a='open", "not closed"},
		{"a=[1, 2", "not closed"},
		{"a={k 1}", "key: value"},
		{"a=x#y", "unexpected"},
		{"a=b\nc", "one line"},
	} {
		_, err := grammar.ParseOverrides([]string{tc.arg})
		var oe *grammar.OverrideError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: %v, want an OverrideError saying %q", tc.arg, err, tc.says)
		}
	}
}

// loadWith reads src as test.yaml with overrides.
func loadWith(t *testing.T, src string, args ...string) (*model.Config, model.Diagnostics) {
	t.Helper()
	ovs, err := grammar.ParseOverrides(args)
	if err != nil {
		t.Fatal(err)
	}
	return grammar.LoadConfigWith("test.yaml", []byte(src), grammar.ConfigOptions{Overrides: ovs})
}

// Overrides change the composed config as Hydra's struct-mode rules say,
// and what they set points at the command line.
func TestApplyOverrides(t *testing.T) {
	src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: all\nactor:\n  model:\n    tensor_model_parallel_size: 1\nruner: {x: 1}\n"
	cfg, ds := loadWith(t, src, "cluster.num_nodes=2", "+rollout.tensor_parallel_size=2", "++actor.model.tensor_model_parallel_size=4", "~runer")
	if ds.HasErrors() || cfg.NumNodes != 2 || cfg.ModelParallel.RolloutTP.Value != 2 || cfg.ModelParallel.ActorTP.Value != 4 {
		t.Fatalf("not applied: %+v%s", cfg, diagText(ds))
	}
	if sp := cfg.NumNodesSpan; sp.File != grammar.OverrideSource || sp.Line != 1 || sp.Col != 19 || sp.EndCol != 20 {
		t.Errorf("num_nodes span %+v, want the command line's 1:19", sp)
	}
	for _, tc := range []struct {
		args []string
		col  int
		says string
	}{
		{[]string{"cluster.nodes=2"}, 1, "no such key"},
		{[]string{"+cluster.num_nodes=2"}, 2, "already sets it"},
		{[]string{"~cluster.nope"}, 2, "no such key"},
		{[]string{"~cluster.num_nodes=3"}, 20, "its value is `1`, not `3`"},
		{[]string{"+x=1", "model@a.b=c"}, 6, "no group model"},
	} {
		_, ds := loadWith(t, src, tc.args...)
		d := wantDiag(t, ds, model.CodeOverride, model.SeverityError)
		if d.Primary.File != grammar.OverrideSource || d.Primary.Col != tc.col || !strings.Contains(d.Summary, tc.says) {
			t.Errorf("%v: %s %s, want column %d saying %q", tc.args, d.Primary, d.Summary, tc.col, tc.says)
		}
	}
	// A value the override sets is read as Hydra typed it: 0x2 is a string.
	_, ds = loadWith(t, src, "cluster.num_nodes=0x2")
	if d := wantDiag(t, ds, model.CodeWrongType, model.SeverityError); d.Primary.File != grammar.OverrideSource || d.Primary.Col != 19 {
		t.Errorf("at %s", d.Primary)
	}
}
