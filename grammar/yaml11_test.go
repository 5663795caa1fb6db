package grammar_test

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// D3: RLinf loads YAML 1.1, where some unquoted scalars are numbers or
// booleans. rlsolve refuses them at their line:col with a fix that check
// accepts: the text quoted, or, where RLinf's int() would not take the
// quoted text (1_0, 0x10, 0b11), the number RLinf reads.
func TestD3_YAML11ScalarsFlagged(t *testing.T) {
	for _, tc := range []struct{ value, reads, fix string }{
		{"1:0", "60", `"1:0"`},
		{"2:15", "135", `"2:15"`},
		{"12:30", "750", `"12:30"`},
		{"010", "8", `"010"`},
		{"1_0", "10", `"10"`},
		{"0x10", "16", `"16"`},
		{"0b11", "3", `"3"`},
		{"yes", "True", `"yes"`},
		{"no", "False", `"no"`},
		{"on", "True", `"on"`},
		{"Off", "False", `"Off"`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: " + tc.value + "\n"
			cfg, ds := load(src)
			d := wantDiag(t, ds, model.CodeYAML11, model.SeverityError)
			if d.Primary.Line != 4 || d.Primary.Col != 12 || d.Primary.EndCol != 12+len(tc.value) {
				t.Errorf("at %d:%d-%d, want 4:12-%d", d.Primary.Line, d.Primary.Col, d.Primary.EndCol, 12+len(tc.value))
			}
			if !strings.Contains(d.Summary, "as "+tc.reads) {
				t.Errorf("summary %q should say RLinf reads %s", d.Summary, tc.reads)
			}
			if len(d.Help) == 0 || len(d.Help[0].Edits) == 0 || d.Help[0].Edits[0].NewText != tc.fix {
				t.Errorf("help %+v should write %s", d.Help, tc.fix)
			}
			if cfg != nil && len(cfg.Components) != 0 {
				t.Errorf("flagged placement became a component: %+v", cfg.Components)
			}
		})
	}
}

// A number or a switch that YAML 1.1 reads as RLinf means it gets the
// value written plainly, not quoted (quoting num_nodes makes it a string).
func TestD3_YAML11TypedFixes(t *testing.T) {
	for _, tc := range []struct{ name, src, at, fix string }{
		{"num_nodes hex", "cluster:\n  num_nodes: 0x2\n  component_placement: {}\n", "0x2", "2"},
		{"num_nodes octal", "cluster:\n  num_nodes: 010\n  component_placement: {}\n", "010", "8"},
		{"switch yes", groupsYAML(1, "    - {label: a, node_ranks: 0, ignore_hardware: yes}\n"), "yes", "true"},
		{"tp underscore", "cluster: {num_nodes: 1, component_placement: {actor: all}}\nactor: {model: {tensor_model_parallel_size: 1_0}}\n", "1_0", "10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ds := load(tc.src)
			d := wantDiag(t, ds, model.CodeYAML11, model.SeverityError)
			wantAt(t, d, tc.src, tc.at, 0)
			if len(d.Help) != 1 || len(d.Help[0].Edits) != 1 || d.Help[0].Edits[0].NewText != tc.fix {
				t.Errorf("help %+v, want the edit %s", d.Help, tc.fix)
			}
		})
	}
	// A boolean where a number is read has no value to write: no edit.
	_, ds := load("cluster:\n  num_nodes: yes\n  component_placement: {}\n")
	if d := wantDiag(t, ds, model.CodeYAML11, model.SeverityError); len(d.Help) != 0 {
		t.Errorf("help %+v, want none", d.Help)
	}
}

// Quoted values and scalars that stay strings in YAML 1.1 (`0:5` starts
// with 0, so it is not sexagesimal) are not flagged.
func TestD3_YAML11StringsAccepted(t *testing.T) {
	for _, tc := range []struct{ value, placement string }{
		{`"1:0"`, "1:0"},
		{`'1:0'`, "1:0"},
		{"0:5", "0:5"},
		{"0:0-1", "0:0-1"},
		{"0-1:0", "0-1:0"},
		{`"010"`, "010"},
		{"10", "10"},
		{"0", "0"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			cfg, ds := load("cluster:\n  num_nodes: 1\n  component_placement:\n    actor: " + tc.value + "\n")
			if d := findDiag(ds, model.CodeYAML11); d != nil {
				t.Fatalf("flagged: %s", d.Summary)
			}
			if cfg == nil || len(cfg.Components) != 1 || cfg.Components[0].Placement != tc.placement {
				t.Fatalf("placement not read as %q: %s", tc.placement, diagText(ds))
			}
		})
	}
}

// D3 applies wherever RLinf str()s a value: labels, node_ranks, num_nodes.
func TestD3_YAML11OtherKeys(t *testing.T) {
	for _, tc := range []struct{ name, src, at string }{
		{"num_nodes", "cluster:\n  num_nodes: 0x2\n  component_placement: {}\n", "0x2"},
		{"node_ranks", groupsYAML(2, "    - {label: a, node_ranks: 1:0}\n"), "1:0"},
		{"label", groupsYAML(1, "    - {label: yes, node_ranks: 0}\n"), "yes"},
		{"component key", "cluster:\n  num_nodes: 1\n  component_placement:\n    1_0: 0\n", "1_0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ds := load(tc.src)
			wantAt(t, wantDiag(t, ds, model.CodeYAML11, model.SeverityError), tc.src, tc.at, 0)
		})
	}
	// true/false read the same in YAML 1.1 and 1.2: str(True) is the label.
	cfg, _ := mustLoad(t, groupsYAML(1, "    - {label: true, node_ranks: 0}\n"))
	if cfg.NodeGroups[0].Label != "True" {
		t.Errorf("label %q, want Python's str(True)", cfg.NodeGroups[0].Label)
	}
}
