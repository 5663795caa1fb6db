package grammar_test

import (
	"reflect"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// ParseNames splits component keys and node_group strings on every comma
// and strips each name, keeping byte offsets (semantics §2.2).
func TestParseNames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []grammar.Name
	}{
		{"actor", []grammar.Name{{Text: "actor", Off: 0, EndOff: 5}}},
		{"actor, env,rollout", []grammar.Name{{"actor", 0, 5}, {"env", 7, 10}, {"rollout", 11, 18}}},
		{" a , b ", []grammar.Name{{"a", 1, 2}, {"b", 5, 6}}},
		// A trailing comma makes an empty name in RLinf.
		{"actor,", []grammar.Name{{"actor", 0, 5}, {"", 6, 6}}},
		{",a", []grammar.Name{{"", 0, 0}, {"a", 1, 2}}},
		{"a,,b", []grammar.Name{{"a", 0, 1}, {"", 2, 2}, {"b", 3, 4}}},
		{"a800,4090", []grammar.Name{{"a800", 0, 4}, {"4090", 5, 9}}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := grammar.ParseNames(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Component keys in a config: spaces around names are dropped, a trailing
// comma warns at the empty name, and a name placed twice is an error at its
// second occurrence.
func TestComponentNamesInConfig(t *testing.T) {
	t.Run("spaces", func(t *testing.T) {
		cfg, _ := mustLoad(t, "cluster:\n  num_nodes: 1\n  component_placement:\n    actor, env, rollout: 0-7\n")
		if got := cfg.Components[0].Names; !reflect.DeepEqual(got, []string{"actor", "env", "rollout"}) {
			t.Errorf("names %v", got)
		}
	})
	t.Run("trailing comma", func(t *testing.T) {
		src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,: all\n"
		cfg, ds := mustLoad(t, src)
		d := wantDiag(t, ds, model.WarnEmptyComponent, model.SeverityWarning)
		if d.Primary.Line != 4 || d.Primary.Col != 11 {
			t.Errorf("warning at %s, want 4:11 (after the comma)", d.Primary)
		}
		if got := cfg.Components[0].Names; !reflect.DeepEqual(got, []string{"actor"}) {
			t.Errorf("names %v", got)
		}
	})
	t.Run("placed twice", func(t *testing.T) {
		src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: all\n    env, actor: 0\n"
		_, ds := load(src)
		d := wantDiag(t, ds, model.CodeDuplicateComponent, model.SeverityError)
		wantAt(t, d, src, "actor", 1)
		if len(d.Labels) != 1 || d.Labels[0].Span.Line != 4 {
			t.Errorf("labels %+v should point at the first placement", d.Labels)
		}
	})
	t.Run("node_group names", func(t *testing.T) {
		src := "cluster:\n  num_nodes: 2\n  node_groups:\n    - {label: a800, node_ranks: 0}\n    - {label: 4090, node_ranks: 1}\n" +
			"  component_placement:\n    actor: {node_group: \" a800 , 4090\", placement: 0}\n"
		cfg, _ := mustLoad(t, src)
		ce := cfg.Components[0]
		if !reflect.DeepEqual(ce.NodeGroups, []string{"a800", "4090"}) {
			t.Fatalf("node groups %v", ce.NodeGroups)
		}
		line, col := posOf(t, src, "4090", 1)
		if sp := ce.NodeGroupSpans[1]; sp.Line != line || sp.Col != col || sp.EndCol != col+4 {
			t.Errorf("4090 span %+v, want %d:%d-%d", sp, line, col, col+4)
		}
	})
}
