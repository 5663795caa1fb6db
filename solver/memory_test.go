package solver

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// The GPU memory rule judged by the solver: each memory error is a minimal
// set of located facts (the model, the placement parts, the settings
// written in the config), the settings the numbers depend on are labelled,
// and each fix offered removes the error when the edited config is checked
// again.

// memInv is one node of n GPUs of gib GiB.
func memInv(n int, gib float64) *model.Inventory {
	return &model.Inventory{Source: "test", Nodes: []model.Node{{Rank: 0, AccelType: model.AccelNVGPU, AccelCount: n, MemoryGiB: gib}}}
}

// memSet is the rule set of a config with the memory rule, as the
// pipeline builds it (no config.json is read: the built-in table).
func memSet(t *testing.T, yaml string, inv *model.Inventory, class model.PlacementClass) *rules.Set {
	t.Helper()
	cfg := stLoad(t, yaml)
	mem, ds := rules.NewMemory(cfg.Memory, inv.Nodes, cfg.ComponentsSpan, rules.MemoryOptions{
		ReadFile: func(string) ([]byte, error) { return nil, fs.ErrNotExist }})
	if mem == nil {
		t.Fatalf("memory not checked: %v", ds)
	}
	return rules.Build(cfg, inv, rules.Options{Class: class, Memory: mem})
}

const memOOM = `cluster:
  num_nodes: 1
  component_placement:
    actor,reward: 0-3
    rollout: 4-7
runner:
  seq_length: 8192
rollout:
  gpu_memory_utilization: 0.7
  tensor_parallel_size: 2
  model:
    model_path: /models/Qwen2.5-14B-Instruct
actor:
  model:
    tensor_model_parallel_size: 2
    sequence_parallel: true
    recompute_granularity: full
    recompute_method: uniform
    recompute_num_layers: 1
`

const memPool = `cluster:
  num_nodes: 1
  component_placement:
    actor,reward: 0-3
    rollout: 4-7
rollout:
  gpu_memory_utilization: 0.5
  tensor_parallel_size: 1
  model:
    model_path: /models/Qwen2.5-32B
actor:
  model:
    tensor_model_parallel_size: 4
`

func TestMemoryConflicts(t *testing.T) {
	for _, c := range []struct {
		name, yaml, code string
		facts            []string // the texts of the conflict's facts
		labels           []string // texts that must be labelled (facts or context)
		fix              stFix
	}{
		{name: "model state over the GPU", yaml: memOOM, code: model.CodeMemoryState,
			facts:  []string{"0-3", "/models/Qwen2.5-14B-Instruct"},
			labels: []string{"2"},
			fix:    stFix{message: "set actor.model.tensor_model_parallel_size to 4", old: "2", new: "4"}},
		{name: "SGLang pool empty", yaml: memPool, code: model.CodeMemoryPool,
			facts:  []string{"4-7", "0.5", "/models/Qwen2.5-32B"},
			labels: []string{"1"},
			fix:    stFix{message: "raise the fraction", old: "0.5", new: "0.77"}}, // (weights + one sequence) / 79.6 GiB free after 0.4 GiB of pre-load usage
	} {
		t.Run(c.name, func(t *testing.T) {
			set := memSet(t, c.yaml, memInv(8, 80), model.ClassModelParallel)
			res, err := Check(set, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var d *model.Diagnostic
			for i := range res.Diagnostics {
				if res.Diagnostics[i].Code == c.code {
					d = &res.Diagnostics[i]
				}
			}
			if d == nil {
				t.Fatalf("no %s: %v", c.code, res.Diagnostics)
			}
			shown := []string{stText(c.yaml, d.Primary)}
			for _, l := range d.Labels {
				if l.Span.File == "t.yaml" {
					shown = append(shown, stText(c.yaml, l.Span))
				}
			}
			for _, want := range append(append([]string(nil), c.facts...), c.labels...) {
				if !slices.Contains(shown, want) {
					t.Errorf("%q is not pointed at: %q", want, shown)
				}
			}
			if !strings.Contains(d.Summary, "(node 0 GPUs") {
				t.Errorf("the summary does not name the GPUs: %s", d.Summary)
			}
			memFixChecks(t, c.yaml, d, c.fix)
		})
	}
}

// memFixChecks finds the fix, applies its edit, and checks the edited
// config again: the error is gone.
func memFixChecks(t *testing.T, yaml string, d *model.Diagnostic, want stFix) {
	t.Helper()
	for _, f := range d.Help {
		if !strings.Contains(f.Message, want.message) {
			continue
		}
		if len(f.Edits) != 1 || stText(yaml, f.Edits[0].Span) != want.old || f.Edits[0].NewText != want.new {
			t.Fatalf("fix %q edits %+v, want %q -> %q", f.Message, f.Edits, want.old, want.new)
		}
		fixed := stApply(yaml, f.Edits)
		res, err := Check(memSet(t, fixed, memInv(8, 80), model.ClassModelParallel), Options{NoFixes: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, nd := range res.Diagnostics {
			if nd.Code == d.Code {
				t.Errorf("after %q: still %s %s", f.Message, nd.Code, nd.Summary)
			}
		}
		return
	}
	t.Errorf("no fix %q among %+v", want.message, d.Help)
}

// Each memory conflict is a minimal set: its facts alone violate the rule,
// and without any one of them it holds (a setting back at its default, a
// placement part gone).
func TestMemoryConflictsMinimal(t *testing.T) {
	for _, yaml := range []string{memOOM, memPool} {
		set := memSet(t, yaml, memInv(8, 80), model.ClassModelParallel)
		p := newProblem(set)
		for _, inst := range set.Rules {
			if inst.Check(rules.All) != nil {
				p.add(inst, nil)
			}
		}
		fresh := newProblem(set)
		for _, inst := range set.Rules {
			if inst.Check(rules.All) != nil {
				fresh.add(inst, nil)
			}
		}
		conflicts, err := p.solve(20, cpuDeadlineIn(10*time.Second))
		if err != nil || len(conflicts) == 0 {
			t.Fatalf("solve: %v, %d conflicts", err, len(conflicts))
		}
		for _, c := range conflicts {
			ri := -1
			for i, r := range p.rules {
				if r == c.rule {
					ri = i
				}
			}
			if got := musAssume(t, fresh, ri, c.facts); got != -1 {
				t.Errorf("%s: its facts alone do not violate it", c.rule.inst.Name)
			}
			for k := range c.facts {
				rest := append(append([]int(nil), c.facts[:k]...), c.facts[k+1:]...)
				if got := musAssume(t, fresh, ri, rest); got != 1 {
					t.Errorf("%s: still violated without %q", c.rule.inst.Name, set.Facts[c.facts[k]].What)
				}
			}
		}
	}
}

// A removed memory setting is back at its default: without the fraction
// written (RLinf's default 0.65), the 32B engine's pool is still empty, so
// the fraction is in the conflict only when its value matters.
func TestMemorySettingDefaults(t *testing.T) {
	yaml := strings.Replace(memPool, "gpu_memory_utilization: 0.5", "gpu_memory_utilization: 0.9", 1)
	set := memSet(t, yaml, memInv(8, 80), model.ClassModelParallel)
	res, err := Check(set, Options{NoFixes: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		if d.Code == model.CodeMemoryPool {
			t.Fatalf("0.9 leaves a pool: %s", d.Summary)
		}
	}
	// 0.5 is a conflict with the fraction, 0.65 (the default) without a
	// written fraction too.
	yaml = strings.Replace(memPool, "  gpu_memory_utilization: 0.5\n", "", 1)
	res, err = Check(memSet(t, yaml, memInv(8, 80), model.ClassModelParallel), Options{NoFixes: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range res.Diagnostics {
		found = found || d.Code == model.CodeMemoryPool && strings.Contains(d.Summary, "0.65")
	}
	if !found {
		t.Errorf("the default fraction's pool is not empty: %v", res.Diagnostics)
	}
}
