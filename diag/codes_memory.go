package diag

import "github.com/rlsolve/rlsolve/model"

// GPU memory (E10, W10, N10): the memory package's per-phase model
// (spec/memory.md). Memory is checked only where the inventory gives
// memory_gib; the examples carry such an inventory.
func init() {
	explanations = append(explanations, memoryExplanations...)
}

var memoryExplanations = []Explanation{
	{
		Code:  model.CodeMemoryState,
		Title: "model state larger than the GPU",
		Text: "The weights, gradients and optimizer state that one GPU holds in some phase exceed its memory, before " +
			"any activation is counted. For a Megatron trainer this is Megatron-LM's own bookkeeping " +
			"(compute_weight_and_optimizer_memory: bf16 weights, fp32 gradients, fp32 master weights and Adam, 18 bytes " +
			"per parameter, or 6 + 12/DP with the distributed optimizer, on the most-loaded rank); for FSDP its shards. " +
			"Raise tensor or pipeline parallelism, use the distributed optimizer, or offload what the phase does not use.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
rollout:
  model:
    model_path: /models/Qwen2.5-32B
actor:
  model:
    tensor_model_parallel_size: 1
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8, memory_gib: 80}
`,
	},
	{
		Code:  model.CodeMemoryPool,
		Title: "SGLang KV pool empty",
		Text: "SGLang keeps mem_fraction_static of the memory free when it starts for its weights and KV cache; the KV " +
			"pool is what the weights leave (rest = free·mfs − weights). When the weights of one tensor-parallel rank take " +
			"it all, SGLang stops with \"Not enough memory. Please try to increase --mem-fraction-static\". RLinf passes " +
			"rollout.gpu_memory_utilization as the fraction. Raise the fraction or the engine's tensor parallelism.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor,reward: 0-7
    rollout: 8-15
rollout:
  gpu_memory_utilization: 0.45
  tensor_parallel_size: 1
  model:
    model_path: /models/Qwen2.5-32B
actor:
  model:
    tensor_model_parallel_size: 8
  optim:
    use_distributed_optimizer: true
inventory:
  nodes:
    - ranks: 0-1
      accelerators: {count: 8, memory_gib: 80}
`,
	},
	{
		Code:  model.CodeMemoryVLLMInit,
		Title: "vLLM budget over free memory",
		Text: "vLLM reserves gpu_memory_utilization of the GPU's total memory, not of what is free, and refuses to " +
			"start when less is free than that. On a GPU shared with a process that holds memory when vLLM starts (one " +
			"not offloaded first), the fraction must leave room for it.",
		Example: `# the judge starts after the rollout, which keeps its CUDA context and graphs
cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,rollout_judge,reward: all
rollout:
  model:
    model_path: /models/Qwen3-1.7B
rollout_judge:
  rollout_backend: vllm
  gpu_memory_utilization: 0.9
  model:
    model_path: /models/Qwen3-1.7B
actor:
  optim:
    use_distributed_optimizer: true
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8, memory_gib: 24}
`,
	},
	{
		Code:  model.CodeMemoryFractions,
		Title: "engine fractions over 1 on one GPU",
		Text: "Two rollout engines on one GPU each reserve their fraction when they start; when both are resident at " +
			"once, fractions summing to more than 1 ask for more memory than the GPU has.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,rollout_judge,reward: all
rollout:
  gpu_memory_utilization: 0.6
  model:
    model_path: /models/Qwen3-1.7B
rollout_judge:
  gpu_memory_utilization: 0.6
  model:
    model_path: /models/Qwen3-1.7B
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8, memory_gib: 80}
`,
	},
	{
		Code:  model.CodeMemoryKVSeq,
		Title: "KV pool smaller than one sequence",
		Text: "The engine's KV pool holds fewer tokens than one sequence of runner.seq_length (prompt and response): " +
			"such a request can never be scheduled. Raise the fraction or the engine's tensor parallelism, or shorten " +
			"the sequences.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,reward: 0-3
    rollout: 4-7
runner:
  seq_length: 131072
rollout:
  gpu_memory_utilization: 0.3
  model:
    model_path: /models/Qwen3-8B
actor:
  model:
    tensor_model_parallel_size: 4
  optim:
    use_distributed_optimizer: true
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8, memory_gib: 80}
`,
	},
	{
		Code:  model.CodeMemoryInput,
		Title: "unusable model config or memory profile",
		Text: "A model's config.json (beside the model path, or given with --model-config) or a --mem-profile file " +
			"cannot be read: invalid JSON, a missing key such as hidden_size, a value of the wrong type, or an unknown " +
			"profile key; or a slime flag that memory reads (a model flag, --micro-batch-size, " +
			"--sglang-mem-fraction-static, ...) is not a number in its range. The message points at the file, line and column.",
		Example: `# with --mem-profile bad.yaml holding "cuda_context: 1"
cluster:
  num_nodes: 1
  component_placement:
    actor,rollout: all
`,
	},
	{
		Code:  model.WarnMemoryPeak,
		Title: "estimated peak over the GPU",
		Text: "By rlsolve's estimate (Megatron's activation formulas or the full-recompute formula, engine budgets, " +
			"CUDA context and NCCL from the memory profile) some phase needs more memory than the GPU has. Activations " +
			"are estimates, so this is a warning; the fixes shrink a micro-batch, recompute, or shard further.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
runner:
  seq_length: 65536
algorithm:
  training_batch_size_per_gpu: 4
rollout:
  model:
    model_path: /models/Qwen2.5-7B
actor:
  model:
    tensor_model_parallel_size: 1
  optim:
    use_distributed_optimizer: true
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8, memory_gib: 80}
`,
	},
	{
		Code:  model.WarnMemoryHeadroom,
		Title: "thin memory headroom",
		Text: "A phase leaves less free than max(2 GiB, 8% of the GPU) by default (headroom_min_gib and " +
			"headroom_fraction in --mem-profile): allocator fragmentation and unmodelled buffers usually take that much.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,reward: 0-3
    rollout: 4-7
rollout:
  gpu_memory_utilization: 0.93
  model:
    model_path: /models/Qwen2.5-7B
actor:
  model:
    tensor_model_parallel_size: 4
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8, memory_gib: 80}
`,
	},
	{
		Code:  model.WarnMemoryLogits,
		Title: "logits spike beyond the headroom",
		Text: "Log-probs, entropy and KL materialise the micro-batch's logits in fp32 over the vocabulary (tokens/CP × " +
			"vocab/TP × 4 bytes), often copied two or three times. slime #1767 crashed after 37 steps allocating 61 GiB " +
			"for 108k packed tokens next to SGLang's 48.8 GiB. Lower the tokens per micro-batch or raise TP or CP. " +
			"The same code names the token count that runs out when nothing bounds a micro-batch: a token cap packs " +
			"samples up to it but never splits one, so a sample longer than the cap (a long response, or a multi-turn " +
			"trajectory bounded only by the context length) forms a micro-batch of its own (slime #1951: 58 GiB of " +
			"logits at ~205k tokens under a cap of 9,216). Cap every sample's length (prompt, turns and response) " +
			"below that count.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
runner:
  enable_dynamic_batch_size: true
  max_tokens_per_mbs: 80000
rollout:
  tensor_parallel_size: 2
  model:
    model_path: /models/Qwen3-4B
actor:
  model:
    tensor_model_parallel_size: 2
    recompute_granularity: full
    recompute_method: uniform
    recompute_num_layers: 1
  optim:
    use_distributed_optimizer: true
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8, memory_gib: 80}
`,
	},
	{
		Code:  model.NoteMemoryUnchecked,
		Title: "memory not checked",
		Text: "GPU memory is checked only when the inventory gives each GPU's memory_gib and the model's architecture " +
			"is known (config.json beside the model path, --model-config, or the built-in table of common models).",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout: all
rollout:
  model:
    model_path: /models/my-own-model
`,
	},
	{
		Code:  model.NoteMemoryArch,
		Title: "where the model's architecture came from",
		Text: "The memory estimates use the model's architecture from, in order: the config.json beside the model " +
			"path, the --model-config file, slime's model flags, or the built-in table (by the model path's last element " +
			"or model_type). The note names the source used.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
rollout:
  model:
    model_path: /models/DeepSeek-R1-Distill-Qwen-7B
actor:
  offload_weight: true
  offload_grad: true
  offload_optimizer: true
  model:
    tensor_model_parallel_size: 4
  optim:
    use_distributed_optimizer: true
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8, memory_gib: 80}
`,
	},
}
