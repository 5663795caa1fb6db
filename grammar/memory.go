package grammar

import (
	"strconv"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// memorySettings reads the keys that decide GPU memory (spec/memory.md
// §2.1) from a whole RLinf training config, with RLinf's defaults
// (rlinf/config.py) for absent keys. A null value is RLinf's default. A
// value rlsolve cannot resolve (an interpolation with a resolver) is
// listed in Unread instead of being an error: memory keys never make a
// placement check fail. The model-parallel sizes are the ones
// modelParallel read.
func (d *doc) memorySettings(cfg *model.Config) *model.MemorySettings {
	r := memReader{d: d, s: &model.MemorySettings{Source: d.File(), Framework: "rlinf", Defaults: map[string]string{}}}
	s := r.s
	s.ModelPath = r.str("", "rollout.model.model_path", "actor.model.model_path")
	s.ModelType = r.str("", "rollout.model.model_type", "actor.model.model_type")
	mp := cfg.ModelParallel
	// RLinf requires actor.training_backend; its embodied runner trains
	// its policies with FSDP only, which is what a config without the key
	// means there (and Megatron elsewhere).
	embodied := r.str("", "runner.task_type").Value == "embodied"
	r.backend = "megatron"
	if embodied {
		r.backend = "fsdp"
	}
	s.Actor = r.trainer("actor", mp.ActorTP, mp.ActorPP, mp.ActorCP)
	if d.Path("inference") != nil {
		inf := r.trainer("inference", mp.InferenceTP, r.integer(1, "inference.model.pipeline_model_parallel_size"), mp.ActorCP)
		s.Inference = &inf
	}
	s.Critic = r.boolean(false, "critic.use_critic_model")
	s.Rollout = r.engine("rollout", mp.RolloutTP, mp.RolloutPP)
	s.Rollout.V1 = vllmV1(cfg, "rollout")
	if !s.Rollout.Backend.Set && embodied {
		s.Rollout.Backend.Value = "huggingface" // embodied runs generate with the policy itself
	}
	for _, c := range cfg.Components {
		for _, name := range c.Names {
			if name == "rollout" || d.Path(name+".gpu_memory_utilization") == nil && d.Path(name+".rollout_backend") == nil {
				continue
			}
			if s.OtherEngines == nil {
				s.OtherEngines = map[string]model.EngineSettings{}
			}
			e := r.engine(name, r.integer(1, name+".tensor_parallel_size"), r.integer(1, name+".pipeline_parallel_size"))
			e.ModelPath = r.str("", name+".model.model_path")
			e.V1 = vllmV1(cfg, name)
			s.OtherEngines[name] = e
		}
	}
	s.Batch = model.BatchSettings{
		SeqLength: r.integer(0, "runner.seq_length"), MaxPromptLength: r.integer(0, "data.max_prompt_length"),
		MaxResponseLength: r.integer(0, "algorithm.sampling_params.max_new_tokens"),
		DynamicBatch:      r.boolean(false, "runner.enable_dynamic_batch_size"), MaxTokensPerMicroBatch: r.integer(0, "runner.max_tokens_per_mbs"),
	}
	return s
}

// engine reads a rollout engine's keys under prefix.
// An engine without a precision loads the checkpoint's dtype.
func (r *memReader) engine(prefix string, tp, pp model.IntFact) model.EngineSettings {
	return model.EngineSettings{
		Backend:     r.str("sglang", prefix+".rollout_backend", prefix+".generation_backend", prefix+".backend"),
		MemFraction: r.float(0.65, prefix+".gpu_memory_utilization"),
		TP:          r.keyed(tp, prefix+".tensor_parallel_size"), PP: r.keyed(pp, prefix+".pipeline_parallel_size"),
		MaxRunningRequests: r.integer(0, prefix+".max_running_requests"), CUDAGraphMaxBS: r.integer(0, prefix+".cuda_graph_max_bs"),
		EnforceEager: r.boolean(false, prefix+".enforce_eager"), Offload: r.boolean(false, prefix+".enable_offload"),
		Precision: r.str("", prefix+".model.precision"),
	}
}

// trainer reads a Megatron or FSDP worker's keys under prefix.
func (r *memReader) trainer(prefix string, tp, pp, cp model.IntFact) model.TrainerSettings {
	m, o, f := prefix+".model.", prefix+".optim.", prefix+".fsdp_config."
	return model.TrainerSettings{
		Backend: r.str(r.backend, prefix+".training_backend"),
		TP:      r.keyed(tp, m+"tensor_model_parallel_size"), PP: r.keyed(pp, m+"pipeline_model_parallel_size"),
		CP: r.keyed(cp, m+"context_parallel_size"), EP: r.integer(1, m+"expert_model_parallel_size"),
		ETP: r.integer(tp.Value, m+"expert_tensor_parallel_size"), VPP: r.integer(0, m+"virtual_pipeline_model_parallel_size"),
		SequenceParallel: r.boolean(false, m+"sequence_parallel"), DistributedOptimizer: r.boolean(false, o+"use_distributed_optimizer"),
		RecomputeGranularity: r.str("", m+"recompute_granularity"), RecomputeMethod: r.str("", m+"recompute_method"),
		RecomputeNumLayers: r.integer(1, m+"recompute_num_layers"), Precision: r.str("fp32", m+"precision"),
		MicroBatch:        r.integer(1, "algorithm.training_batch_size_per_gpu", prefix+".micro_batch_size"),
		LogprobMicroBatch: r.integer(0, "algorithm.logprob_forward_micro_batch_size"),
		OffloadWeight:     r.boolean(false, prefix+".offload_weight"), OffloadGrad: r.boolean(false, prefix+".offload_grad"),
		OffloadOptimizer: r.boolean(false, prefix+".offload_optimizer"), OptimizerCPUOffload: r.boolean(false, o+"optimizer_cpu_offload"),
		OptimizerOffloadFraction: r.float(0, o+"optimizer_offload_fraction"), EnableOffload: r.boolean(false, prefix+".enable_offload"),
		FSDPCPUOffload: r.boolean(false, f+"cpu_offload"), ShardingStrategy: r.str("full_shard", f+"sharding_strategy"),
		GradientCheckpointing: r.boolean(false, f+"gradient_checkpointing"), LoRA: r.boolean(false, m+"is_lora"),
		LoRARank: r.integer(0, m+"lora_rank"), TrainExpertOnly: r.boolean(false, m+"openpi.train_expert_only"),
	}
}

// keyed names a fact that modelParallel read (a size: 1 by default).
func (r *memReader) keyed(f model.IntFact, key string) model.IntFact {
	f.Key = key
	r.s.Defaults[key] = "1"
	return f
}

// memReader reads memory keys; see memorySettings.
type memReader struct {
	d *doc
	s *model.MemorySettings
	// backend is the trainers' default training backend.
	backend string
}

// value finds the first of paths that is set and not null, and reads it
// with read; a value that cannot be resolved goes to Unread. It returns
// the key used (the first path when none is set).
func (r *memReader) value(paths []string, read func(n *yaml.Node, key string) bool) (string, model.Span, bool) {
	for _, p := range paths {
		n := r.d.Path(p)
		if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			continue
		}
		mark := len(r.d.Diags)
		ok := read(n, p)
		if !ok && len(r.d.Diags) > mark && yamlpos.Unresolved(r.d.Diags[len(r.d.Diags)-1]) {
			r.s.Unread = append(r.s.Unread, model.UnreadKey{Key: p, Span: r.d.Span(n), Reason: r.d.Diags[len(r.d.Diags)-1].Summary})
			r.d.Diags = r.d.Diags[:mark]
		}
		return p, r.d.Span(n), ok
	}
	return paths[0], model.Span{}, false
}

// read reads the first set path with parse into a value of type T.
func read[T any](r *memReader, def T, paths []string, parse func(n *yaml.Node, key string) (T, bool)) (T, string, model.Span, bool) {
	v := def
	key, span, set := r.value(paths, func(n *yaml.Node, key string) bool {
		x, ok := parse(n, key)
		if ok {
			v = x
		}
		return ok
	})
	return v, key, span, set
}

func (r *memReader) integer(def int, paths ...string) model.IntFact {
	v, key, span, set := read(r, def, paths, func(n *yaml.Node, key string) (int, bool) {
		x, _, ok := r.d.Integer(n, key)
		return x, ok
	})
	r.s.Defaults[key] = strconv.Itoa(def)
	return model.IntFact{Value: v, Key: key, Span: span, Set: set}
}

func (r *memReader) boolean(def bool, paths ...string) model.BoolFact {
	v, key, span, set := read(r, def, paths, func(n *yaml.Node, key string) (bool, bool) {
		x, _, ok := r.d.Boolean(n, key)
		return x, ok
	})
	r.s.Defaults[key] = strconv.FormatBool(def)
	return model.BoolFact{Value: v, Key: key, Span: span, Set: set}
}

func (r *memReader) str(def string, paths ...string) model.StringFact {
	v, key, span, set := read(r, def, paths, func(n *yaml.Node, key string) (string, bool) {
		x, ok := r.d.Scalar(n, key)
		return x.Py.Str, ok
	})
	r.s.Defaults[key] = def
	return model.StringFact{Value: v, Key: key, Span: span, Set: set}
}

func (r *memReader) float(def float64, paths ...string) model.FloatFact {
	v, key, span, set := read(r, def, paths, r.d.number)
	r.s.Defaults[key] = strconv.FormatFloat(def, 'g', -1, 64)
	return model.FloatFact{Value: v, Key: key, Span: span, Set: set}
}
