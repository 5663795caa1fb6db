package grammar_test

import (
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

const memoryConfig = `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
runner:
  seq_length: 28672
  enable_dynamic_batch_size: False
  max_tokens_per_mbs: 28672
algorithm:
  training_batch_size_per_gpu: 2
  logprob_forward_micro_batch_size: null
  sampling_params:
    max_new_tokens: ${subtract:${runner.seq_length}, ${data.max_prompt_length}}
data:
  max_prompt_length: 1024
rollout:
  gpu_memory_utilization: 0.45
  tensor_parallel_size: 2
  model:
    model_path: /path/to/model/DeepSeek-R1-Distill-Qwen-7B
    model_type: qwen2.5
    precision: ${actor.model.precision}
  enforce_eager: False
  rollout_backend: sglang
  max_running_requests: 64
actor:
  offload_optimizer: True
  offload_weight: True
  model:
    precision: fp16
    tensor_model_parallel_size: 4
    sequence_parallel: True
    recompute_method: block
    recompute_granularity: full
    recompute_num_layers: 20
  optim:
    use_distributed_optimizer: True
critic:
  use_critic_model: false
`

func TestMemorySettings(t *testing.T) {
	cfg, _ := mustLoad(t, memoryConfig)
	m := cfg.Memory
	if m == nil {
		t.Fatal("no memory settings")
	}
	a := m.Actor
	tests := []struct {
		name string
		ok   bool
	}{
		{"model", m.ModelPath.Value == "/path/to/model/DeepSeek-R1-Distill-Qwen-7B" && m.ModelType.Value == "qwen2.5" && m.Framework == "rlinf"},
		{"trainer", a.Backend.Value == "megatron" && !a.Backend.Set && a.TP.Value == 4 && a.SequenceParallel.Value && a.DistributedOptimizer.Value},
		{"recompute", a.RecomputeGranularity.Value == "full" && a.RecomputeMethod.Value == "block" && a.RecomputeNumLayers.Value == 20},
		{"micro-batch", a.MicroBatch.Value == 2 && a.MicroBatch.Key == "algorithm.training_batch_size_per_gpu"},
		{"null is the default", !a.LogprobMicroBatch.Set && a.LogprobMicroBatch.Value == 0},
		{"offloads", a.OffloadOptimizer.Value && a.OffloadWeight.Value && !a.OffloadGrad.Value && !a.OffloadGrad.Set},
		{"engine", m.Rollout.MemFraction.Value == 0.45 && m.Rollout.TP.Value == 2 && m.Rollout.Backend.Value == "sglang" && m.Rollout.MaxRunningRequests.Value == 64},
		{"interpolated precision", m.Rollout.Precision.Value == "fp16"},
		{"batch", m.Batch.SeqLength.Value == 28672 && m.Batch.MaxPromptLength.Value == 1024 && !m.Batch.DynamicBatch.Value},
		{"no inference section", m.Inference == nil && !m.Critic.Value},
		// RLinf's resolvers are evaluated: ${subtract:${runner.seq_length}, ${data.max_prompt_length}}.
		{"resolver interpolation read", len(m.Unread) == 0 && m.Batch.MaxResponseLength.Set && m.Batch.MaxResponseLength.Value == 28672-1024},
	}
	for _, tt := range tests {
		if !tt.ok {
			t.Errorf("%s: %+v", tt.name, m)
		}
	}
	line, col := posOf(t, memoryConfig, "0.45", 0)
	if sp := m.Rollout.MemFraction.Span; sp.Line != line || sp.Col != col || m.Rollout.MemFraction.Key != "rollout.gpu_memory_utilization" {
		t.Errorf("fraction at %v (%s), want %d:%d", sp, m.Rollout.MemFraction.Key, line, col)
	}
}

func TestMemorySettingsDefaults(t *testing.T) {
	cfg, _ := mustLoad(t, "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout,reward: all\n")
	m := cfg.Memory
	if m.Rollout.MemFraction.Value != 0.65 || m.Rollout.MemFraction.Set || m.Actor.TP.Value != 1 || m.Actor.MicroBatch.Value != 1 ||
		m.Actor.ShardingStrategy.Value != "full_shard" || m.Actor.MicroBatch.Key != "algorithm.training_batch_size_per_gpu" {
		t.Errorf("RLinf's defaults: %+v", m)
	}
	bare, _ := mustLoad(t, "num_nodes: 1\ncomponent_placement:\n  actor: all\n")
	if bare.Memory != nil {
		t.Error("a bare cluster section has no memory settings")
	}
}

func TestMemorySettingsEngines(t *testing.T) {
	src := `cluster:
  num_nodes: 1
  component_placement:
    actor,reward: all
    rollout: 0-3
    rollout_judge: 4-7
rollout:
  model:
    model_path: /m/Qwen3-4B
rollout_judge:
  gpu_memory_utilization: 0.5
  rollout_backend: vllm
  tensor_parallel_size: 2
  model:
    model_path: /m/Qwen3-8B
inference:
  model:
    tensor_model_parallel_size: 2
actor:
  training_backend: fsdp
  micro_batch_size: 16
  enable_offload: true
  fsdp_config:
    sharding_strategy: no_shard
`
	cfg, _ := mustLoad(t, src)
	m := cfg.Memory
	j, ok := m.OtherEngines["rollout_judge"]
	if !ok || j.MemFraction.Value != 0.5 || j.Backend.Value != "vllm" || j.TP.Value != 2 || j.ModelPath.Value != "/m/Qwen3-8B" {
		t.Errorf("judge engine: %+v", m.OtherEngines)
	}
	if m.Inference == nil || m.Inference.TP.Value != 2 {
		t.Errorf("inference worker: %+v", m.Inference)
	}
	if a := m.Actor; a.Backend.Value != "fsdp" || a.MicroBatch.Value != 16 || a.MicroBatch.Key != "actor.micro_batch_size" ||
		!a.EnableOffload.Value || a.ShardingStrategy.Value != "no_shard" {
		t.Errorf("FSDP actor: %+v", a)
	}
}

func TestMemorySettingsErrors(t *testing.T) {
	src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout,reward: all\nrollout:\n  gpu_memory_utilization: lots\n"
	_, ds := load(src)
	d := wantDiag(t, ds, model.CodeWrongType, model.SeverityError)
	if d.Primary.Line != 6 || d.Primary.Col != 27 {
		t.Errorf("error at %v, want 6:27", d.Primary)
	}
}

// VLLM_USE_V1 in env_configs picks vLLM's engine for the memory model.
func TestMemorySettingsVLLMEnv(t *testing.T) {
	placed := func(through, vars string) string {
		return "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout,reward:\n      node_group: " + through +
			"\n      placement: all\n  node_groups:\n    - label: a\n      node_ranks: 0\n      env_configs:\n" + vars
	}
	group := func(vars string) string { return placed("a", vars) }
	one := func(v string) string {
		return "        - node_ranks: 0\n          env_vars:\n            - VLLM_USE_V1: " + v + "\n"
	}
	tests := []struct {
		name     string
		src      string
		set, val bool
	}{
		{"absent", "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout,reward: all\n", false, true},
		{"V0", group(one("0")), true, false},
		{"V0 quoted", group(one(`"0"`)), true, false},
		{"V1", group(one("1")), true, true},
		{"not a number", group(one(`"yes"`)), false, true},
		{"disagreeing entries keep V1", group(one("0") + one("1")), true, true},
		{"placed through the default group: none applies", placed("node", one("0")), false, true},
		{"other variables", group("        - node_ranks: 0\n          env_vars:\n            - VLLM_USE_V2: 0\n"), false, true},
	}
	for _, tt := range tests {
		cfg, _ := mustLoad(t, tt.src)
		v := cfg.Memory.Rollout.V1
		if v.Set != tt.set || v.Value != tt.val || v.Key != "VLLM_USE_V1" || tt.set && v.Span.Line == 0 {
			t.Errorf("%s: %+v, want set %v value %v", tt.name, v, tt.set, tt.val)
		}
	}
}
