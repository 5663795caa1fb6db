package pipeline_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// Configs shaped like RLinf's own examples for one node of eight H100s
// (reasoning with Megatron and FSDP, collocated and disaggregated, an MoE,
// embodied OpenVLA-OFT and pi0) run there: their memory is checked, with
// no memory error or warning. RLinf's example files themselves are checked
// by proptest's TestMemoryRLinfExamples (RLSOLVE_RLINF_DIR).
func TestMemoryH100Configs(t *testing.T) {
	files, _ := filepath.Glob("testdata/memory/*.yaml")
	if len(files) < 6 {
		t.Fatalf("%d configs", len(files))
	}
	inv := &model.Inventory{Source: "test", Nodes: []model.Node{{Rank: 0, IP: "10.0.0.1", AccelType: model.AccelNVGPU,
		AccelModel: "H100-SXM-80GB", AccelCount: 8, MemoryGiB: 80}}}
	for _, f := range files {
		o := pipeline.CheckFile(f, pipeline.Options{Inventory: inv, GPUsPerNode: -1})
		if o.Memory == nil || len(o.Memory.Groups) == 0 {
			t.Errorf("%s: memory not checked: %v", f, o.Diagnostics)
			continue
		}
		arch := false
		for _, d := range o.Diagnostics {
			arch = arch || d.Code == model.NoteMemoryArch
			if strings.HasPrefix(d.Code, "RLS-E") || strings.HasPrefix(d.Code, "RLS-W10") {
				t.Errorf("%s: %s %s", f, d.Code, d.Summary)
			}
		}
		if !arch {
			t.Errorf("%s: no note names the architecture's source", f)
		}
		for _, g := range o.Memory.Groups {
			if g.PeakBytes > g.CapacityBytes {
				t.Errorf("%s: %s peaks at %d bytes", f, g.Label, g.PeakBytes)
			}
		}
	}
}

// VLLM_USE_V1 in the env_configs of the group the rollout is placed through
// reaches the memory model (a placement class that honours node_group): the
// notes say which vLLM engine was assumed and from where.
func TestMemoryVLLMEngineFromEnv(t *testing.T) {
	const base = `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward:
      node_group: gpu
      placement: all
  node_groups:
    - label: gpu
      node_ranks: 0
`
	const rest = `rollout:
  rollout_backend: vllm
  gpu_memory_utilization: 0.5
  model:
    model_path: /models/Qwen2.5-1.5B
`
	env := func(v string) string {
		return "      env_configs:\n        - node_ranks: 0\n          env_vars:\n            - VLLM_USE_V1: " + v + "\n"
	}
	inv := &model.Inventory{Source: "test", Nodes: []model.Node{{Rank: 0, IP: "10.0.0.1", AccelType: model.AccelNVGPU,
		AccelModel: "H100-SXM-80GB", AccelCount: 8, MemoryGiB: 80}}}
	tests := []struct {
		name, src, want, not string
	}{
		{"unset: V1 assumed", base + rest, "vLLM's V1 engine", "vLLM V0"},
		{"V0 from env_configs", base + env("0") + rest, "vLLM V0 (VLLM_USE_V1: 0 at c.yaml:13:28)", "vLLM's V1 engine"},
		{"V1 from env_configs", base + env("1") + rest, "", "vLLM"},
		// Model-parallel placement ignores node_group: the variable reaches no engine.
		{"V0 under model-parallel placement", base + env("0") + rest + "actor:\n  model:\n    tensor_model_parallel_size: 2\n",
			"vLLM's V1 engine", "vLLM V0"},
	}
	for _, tt := range tests {
		o := pipeline.CheckBytes("c.yaml", []byte(tt.src), pipeline.Options{Inventory: inv, GPUsPerNode: -1})
		if o.Memory == nil {
			t.Fatalf("%s: memory not checked: %v", tt.name, o.Diagnostics)
		}
		var all strings.Builder
		for _, d := range o.Diagnostics {
			all.WriteString(d.Summary + "\n" + d.Why + "\n")
		}
		for _, g := range o.Memory.Groups {
			all.WriteString(strings.Join(g.Notes, "\n") + "\n")
		}
		if tt.want != "" && !strings.Contains(all.String(), tt.want) {
			t.Errorf("%s: diagnostics lack %q:\n%s", tt.name, tt.want, all.String())
		}
		if strings.Contains(all.String(), tt.not) {
			t.Errorf("%s: diagnostics have %q:\n%s", tt.name, tt.not, all.String())
		}
	}
}
