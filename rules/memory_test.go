package rules_test

import (
	"io/fs"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

func load(t *testing.T, yaml string) *model.Config {
	t.Helper()
	cfg, ds := grammar.LoadConfig("t.yaml", []byte(yaml), grammar.DefaultLimits)
	if cfg == nil || ds.HasErrors() {
		t.Fatalf("config: %v", ds)
	}
	return cfg
}

func h100(n int) *model.Inventory {
	return &model.Inventory{Nodes: []model.Node{{Rank: 0, AccelType: model.AccelNVGPU, AccelCount: n, MemoryGiB: 80}}}
}

var noFiles = rules.MemoryOptions{ReadFile: func(string) ([]byte, error) { return nil, fs.ErrNotExist }}

const collocated = `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
runner:
  task_type: reasoning
  seq_length: 28672
rollout:
  gpu_memory_utilization: 0.65
  tensor_parallel_size: 2
  model:
    model_path: /models/DeepSeek-R1-Distill-Qwen-7B
actor:
  offload_weight: true
  offload_grad: true
  offload_optimizer: true
  model:
    tensor_model_parallel_size: 4
    sequence_parallel: true
    recompute_granularity: full
    recompute_method: block
    recompute_num_layers: 20
  optim:
    use_distributed_optimizer: true
`

// Set.Memory groups identical GPUs, and Need gives solve the same numbers
// for one GPU of the layout: each phase summed over its components.
func TestMemoryGroupsAndNeed(t *testing.T) {
	cfg := load(t, collocated)
	inv := h100(8)
	mem, _ := rules.NewMemory(cfg.Memory, inv.Nodes, cfg.ComponentsSpan, noFiles)
	if mem == nil {
		t.Fatal("memory not checked")
	}
	set := rules.Build(cfg, inv, rules.Options{Class: model.ClassModelParallel, Memory: mem})
	res := set.Memory()
	if res == nil || len(res.Groups) != 1 || res.Groups[0].GPUCount() != 8 {
		t.Fatalf("want one layout of 8 GPUs: %+v", res)
	}
	g := res.Groups[0]
	if len(res.Warnings) != 0 {
		t.Errorf("RLinf's own layout warns: %v", res.Warnings)
	}
	c := rules.Candidate{GPUs: map[string]int{"actor": 8, "rollout": 8, "reward": 8}, Collocated: true, ActorLogprob: true}
	r, findings := mem.Need(cfg.Memory, c, []string{"actor", "rollout", "reward"}, g.CapacityBytes)
	if len(findings) != 0 {
		t.Errorf("Need finds %v", findings)
	}
	for i, p := range r.Phases {
		if p.Bytes != g.Phases[i].Bytes {
			t.Errorf("%s: Need %d bytes, the check's layout %d", p.Phase, p.Bytes, g.Phases[i].Bytes)
		}
	}
	actor, _ := mem.Need(cfg.Memory, c, []string{"actor"}, g.CapacityBytes)
	rollout, _ := mem.Need(cfg.Memory, c, []string{"rollout"}, g.CapacityBytes)
	if r.PeakBytes < actor.PeakBytes || r.PeakBytes < rollout.PeakBytes || r.PeakBytes >= actor.PeakBytes+rollout.PeakBytes+2*memory.GiB {
		t.Errorf("collocated peak %d is not between each component's (%d, %d) and their sum", r.PeakBytes, actor.PeakBytes, rollout.PeakBytes)
	}
}

// Without memory_gib, or without a model, nothing is checked: a note says
// why, and the rule set has no memory.
func TestMemoryNotChecked(t *testing.T) {
	cfg := load(t, collocated)
	inv := h100(8)
	inv.Nodes[0].MemoryGiB = 0
	mem, ds := rules.NewMemory(cfg.Memory, inv.Nodes, cfg.ComponentsSpan, noFiles)
	if mem != nil || len(ds) != 1 || ds[0].Code != model.NoteMemoryUnchecked {
		t.Errorf("no memory_gib: %v %v", mem, ds)
	}
	if set := rules.Build(cfg, inv, rules.Options{Class: model.ClassModelParallel}); set.Memory() != nil {
		t.Error("a rule set without memory reports memory")
	}
	bare := load(t, "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: all\n")
	if mem, ds := rules.NewMemory(bare.Memory, h100(8).Nodes, bare.ComponentsSpan, noFiles); mem != nil || ds != nil {
		t.Errorf("a bare cluster section: %v %v", mem, ds)
	}
}

// slime: --colocate puts the actor and the engines on the same bundles;
// without it the engines have GPUs of their own.
func TestMemorySlime(t *testing.T) {
	for _, c := range []struct {
		flags  string
		groups int
	}{
		{"--actor-num-nodes 1 --actor-num-gpus-per-node 8 --colocate --hf-checkpoint /m/Qwen3-4B --bf16", 1},
		{"--actor-num-nodes 1 --actor-num-gpus-per-node 4 --rollout-num-gpus 4 --hf-checkpoint /m/Qwen3-4B --bf16", 2},
	} {
		cfg, ds := grammar.ParseSlimeFlags(c.flags, grammar.DefaultLimits)
		if cfg == nil || ds.HasErrors() {
			t.Fatal(ds)
		}
		inv := h100(8)
		s, _ := memory.SlimeSettings(cfg.Flags)
		mem, _ := rules.NewMemory(s, inv.Nodes, cfg.Span, noFiles)
		if mem == nil {
			t.Fatal("memory not checked")
		}
		set := rules.Slime(cfg, model.NewSlimeTopology(inv.Nodes, nil), rules.SlimeOptions{Memory: mem})
		res := set.Memory()
		if res == nil || len(res.Groups) != c.groups {
			t.Fatalf("%s: want %d GPU layouts: %+v", c.flags, c.groups, res)
		}
		for _, g := range res.Groups {
			if g.GPUCount()*c.groups != 8 {
				t.Errorf("%s: %s holds %d GPUs", c.flags, g.Label, g.GPUCount())
			}
		}
	}
}
