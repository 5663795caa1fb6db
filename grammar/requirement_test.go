package grammar_test

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// TestRequirementBesidePlacement: a component mapping with a placement
// and requirement keys (what solve --write leaves, issue 25 item 7) is a
// placed entry that keeps its requirement, not an error; without a
// placement it is a requirement; the kept requirement is read as strictly
// as one alone, and Placed locates the placement solve writes over.
func TestRequirementBesidePlacement(t *testing.T) {
	const head = "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: "
	for _, c := range []struct {
		name, entry string
		kept, req   bool   // Kept / Requirement set
		placement   string // the entry's placement as read
		placed      string // the text at Kept.Placed
		groups      string
		code        string // an error expected, else none
	}{
		{"a requirement alone", "{gpus: 8}", false, true, "", "", "", ""},
		{"a placement alone", `{placement: "0-7"}`, false, false, "0-7", "", "", ""},
		{"a placement before the keys", `{placement: "0-7", gpus: 8}`, true, false, "0-7", `"0-7"`, "", ""},
		{"a placement after the keys", "{gpus: 8, placement: 0-7}", true, false, "0-7", "0-7", "", ""},
		{"with a node group", "{node_group: g, placement: '0-3', gpus: 4}", true, false, "0-3", "'0-3'", "g", ""},
		{"a block mapping", "\n      placement: \"0-3\"\n      gpus: 4\n      apart_from: [x]", true, false, "0-3", `"0-3"`, "", ""},
		{"an unknown key beside a placement, which RLinf ignores", `{placement: "0-7", gpuz: 8}`, false, false, "0-7", "", "", ""},
		{"a kept count that cannot be", `{placement: "0-7", gpus: 0}`, true, false, "0-7", `"0-7"`, "", model.CodeInvalidValue},
		{"a kept with of two names", `{placement: "0-7", with: "x,y"}`, true, false, "0-7", `"0-7"`, "", model.CodeRequirementInvalid},
		{"a misspelt key in a kept requirement", `{placement: "0-7", gpus: 8, gpuz: 1}`, true, false, "0-7", `"0-7"`, "", model.CodeUnknownField},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + c.entry + "\n"
			if c.groups != "" {
				src = strings.Replace(src, "  num_nodes: 1\n", "  num_nodes: 1\n  node_groups:\n    - {label: g, node_ranks: 0}\n", 1)
			}
			cfg, ds := load(src)
			if c.code != "" {
				if findDiag(ds, c.code) == nil {
					t.Fatalf("want %s, got %s", c.code, diagText(ds))
				}
			} else if ds.HasErrors() {
				t.Fatalf("want no error, got %s", diagText(ds))
			}
			if cfg == nil || len(cfg.Components) != 1 {
				t.Fatalf("want the actor's entry, got %+v", cfg)
			}
			e := cfg.Components[0]
			if (e.Kept != nil) != c.kept || (e.Requirement != nil) != c.req {
				t.Fatalf("kept %v, requirement %v; want %v, %v", e.Kept != nil, e.Requirement != nil, c.kept, c.req)
			}
			if e.Placement != c.placement || c.placement != "" && (e.Invalid || len(e.Segments) == 0) {
				t.Errorf("placement %q (invalid %v, %d segments), want %q read", e.Placement, e.Invalid, len(e.Segments), c.placement)
			}
			if strings.Join(e.NodeGroups, ",") != c.groups {
				t.Errorf("node groups %v, want %q", e.NodeGroups, c.groups)
			}
			if c.kept {
				sp := e.Kept.Placed
				line := strings.Split(src, "\n")[sp.Line-1]
				if sp.EndLine != sp.Line || line[sp.Col-1:sp.EndCol-1] != c.placed {
					t.Errorf("Placed %+v holds %q, want %q", sp, line[sp.Col-1:sp.EndCol-1], c.placed)
				}
			}
		})
	}
}

// TestReplan: solve makes each kept requirement the entry's requirement
// again, its placement set aside and its position kept.
func TestReplan(t *testing.T) {
	cfg, _ := mustLoad(t, "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: {placement: \"0-7\", gpus: 8}\n    reward: 0-7\n")
	cfg.Replan()
	a, r := cfg.Components[0], cfg.Components[1]
	if a.Requirement == nil || a.Kept != nil || !a.Invalid || len(a.Segments) != 0 || !a.Requirement.Placed.Known() || a.Requirement.GPUs.Value != 8 {
		t.Errorf("actor after Replan: %+v", a)
	}
	if r.Requirement != nil || r.Invalid || len(r.Segments) == 0 {
		t.Errorf("reward, placed only, changed: %+v", r)
	}
}
