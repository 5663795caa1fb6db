package model

// The run settings that decide GPU memory (spec/memory.md §2), read from an
// RLinf config (grammar) or from slime's flags (memory.SlimeSettings). Every
// value keeps the position of the key that set it, so that a memory
// diagnostic can point at the keys that drive it; a value whose Set is false
// holds the framework's default and no position. Key names the key that set
// it (or, unset, the key that would), for messages and fixes.

// FlagValue is one command-line flag as written: its value text ("" for a
// switch) and the position of the whole `--flag value`.
type FlagValue struct {
	Text string
	Span Span
}

// MemorySettings are the memory-relevant settings of one run.
type MemorySettings struct {
	// Source names the input: the config file, or "--slime".
	Source string
	// Framework is "rlinf" or "slime".
	Framework string
	// ModelPath is the Hugging Face checkpoint directory (its config.json
	// gives the architecture); ModelType RLinf's model_type (qwen2.5, ...).
	ModelPath StringFact
	ModelType StringFact
	// ModelArgs are slime's Megatron model flags by name without dashes
	// (num-layers, hidden-size, ...): the architecture Megatron builds.
	ModelArgs map[string]FlagValue
	// PadVocab is true when the trainer pads the vocabulary to a multiple of
	// 128·TP as Megatron's own argument parsing does (slime); RLinf copies
	// vocab_size unpadded.
	PadVocab bool
	Actor    TrainerSettings
	// Inference is RLinf's dedicated log-prob worker (inference.model.*),
	// nil when the config has none.
	Inference *TrainerSettings
	// Critic is true when a critic model is trained (RLinf
	// critic.use_critic_model, slime --advantage-estimator ppo).
	Critic  BoolFact
	Rollout EngineSettings
	// OtherEngines are further rollout engines by component name (RLinf's
	// rollout_judge): sections of the config with engine keys.
	OtherEngines map[string]EngineSettings
	Batch        BatchSettings
	// Unread lists memory keys whose values could not be used (an
	// interpolation rlsolve cannot resolve); their defaults stand.
	Unread []UnreadKey
	// Defaults holds each key's default as text (what the framework uses
	// when the key is absent), so that a setting can be taken back to it
	// (Unset).
	Defaults map[string]string
}

// UnreadKey is a memory key whose value was not used, and why.
type UnreadKey struct {
	Key    string
	Span   Span
	Reason string
}

// TrainerSettings are a training (or log-prob) worker's settings.
type TrainerSettings struct {
	// Backend is "megatron" or "fsdp".
	Backend                  StringFact
	TP, PP, CP, EP, ETP, VPP IntFact
	SequenceParallel         BoolFact
	DistributedOptimizer     BoolFact
	// RecomputeGranularity is "full", "selective" or "" (none).
	RecomputeGranularity StringFact
	RecomputeMethod      StringFact // "block" or "uniform"
	RecomputeNumLayers   IntFact
	// Precision is "bf16", "fp16" or "fp32".
	Precision         StringFact
	MicroBatch        IntFact
	LogprobMicroBatch IntFact
	// Offload flags of RLinf's Megatron actor (they act in collocated mode
	// only); slime's offload_train sets all three.
	OffloadWeight, OffloadGrad, OffloadOptimizer BoolFact
	OptimizerCPUOffload                          BoolFact
	OptimizerOffloadFraction                     FloatFact
	// FSDP: EnableOffload moves params, grads and optimizer off the GPU
	// between phases; FSDPCPUOffload is FSDP's own CPUOffload in training.
	EnableOffload         BoolFact
	FSDPCPUOffload        BoolFact
	ShardingStrategy      StringFact
	GradientCheckpointing BoolFact
	LoRA                  BoolFact
	LoRARank              IntFact
	// TrainExpertOnly trains only a VLA's action expert (openpi).
	TrainExpertOnly BoolFact
	// TransformerImpl is Megatron's --transformer-impl: "local" computes
	// attention without flash, holding s² scores.
	TransformerImpl StringFact
	// DeepEP is Megatron's DeepEP dispatcher (--moe-enable-deepep).
	DeepEP BoolFact
}

// EngineSettings are the rollout engine's settings.
type EngineSettings struct {
	// ModelPath is the engine's own model when it differs from the
	// run's (a judge model); unset for the main rollout.
	ModelPath StringFact
	// Backend is "sglang", "vllm" or "huggingface".
	Backend StringFact
	// MemFraction is SGLang's mem_fraction_static or vLLM's
	// gpu_memory_utilization (RLinf passes gpu_memory_utilization to both).
	// Not Set with Value 0 means SGLang's own default.
	MemFraction        FloatFact
	TP, PP             IntFact
	MaxRunningRequests IntFact
	CUDAGraphMaxBS     IntFact
	ChunkedPrefill     IntFact
	EnforceEager       BoolFact
	// Offload is true when the engine releases its memory between rollouts
	// (slime --offload-rollout, RLinf rollout.enable_offload). RLinf's
	// SGLang and vLLM engines release whenever they are collocated, which
	// the placement decides, not a key.
	Offload   BoolFact
	Precision StringFact
	// Quantization is the engine's weight quantization (slime
	// --sglang-quantization: fp8 halves bf16 weights).
	Quantization StringFact
	// DeepEP is the engine's DeepEP all-to-all (--sglang-moe-a2a-backend
	// deepep).
	DeepEP BoolFact
	// V1 is vLLM's engine: V1 (true) or V0, from VLLM_USE_V1 in RLinf's
	// env_configs; not Set means vLLM's default, V1.
	V1 BoolFact
	// ContextLength is the engine's context (slime --sglang-context-length);
	// 0 means the model's max_position_embeddings.
	ContextLength IntFact
}

// BatchSettings size the tokens of one micro-batch and one sequence.
type BatchSettings struct {
	SeqLength         IntFact
	MaxPromptLength   IntFact
	MaxResponseLength IntFact
	DynamicBatch      BoolFact
	// MaxTokensPerMicroBatch caps a packed micro-batch (RLinf
	// runner.max_tokens_per_mbs, slime --max-tokens-per-gpu).
	MaxTokensPerMicroBatch IntFact
	// LogprobMaxTokens caps a log-prob micro-batch (slime
	// --log-probs-max-tokens-per-gpu; 0 means MaxTokensPerMicroBatch).
	LogprobMaxTokens IntFact
	// MaxContextLength caps a whole sample, prompt and response (slime
	// --rollout-max-context-len); 0 when not given.
	MaxContextLength IntFact
	// MultiTurn is true when a custom generation function builds each
	// sample over several turns (slime --custom-generate-function-path):
	// the response cap then bounds one turn, not the sample.
	MultiTurn BoolFact
	// PromptUnbounded is true when nothing in the input caps a prompt (slime
	// without --rollout-max-prompt-len or --rollout-max-context-len): the
	// longest sample is then bounded by the model's context only.
	PromptUnbounded bool
}
