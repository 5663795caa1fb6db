package memory

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// slime's flags that decide memory (spec/memory.md §2.2): Megatron's own
// flags for the trainer, --sglang-* for the engines, slime's for offload
// and batches. Flags are keyed by name without the leading dashes.

// slimeModelFlags are Megatron's model flags that describe the
// architecture (MODEL_ARGS of slime's scripts/models/*.sh).
var slimeModelFlags = []string{"num-layers", "hidden-size", "ffn-hidden-size", "num-attention-heads",
	"group-query-attention", "num-query-groups", "kv-channels", "vocab-size", "untie-embeddings-and-output-weights",
	"swiglu", "normalization", "add-qkv-bias", "qk-layernorm", "num-experts", "moe-ffn-hidden-size", "moe-router-topk",
	"moe-layer-freq", "moe-shared-expert-intermediate-size", "multi-latent-attention", "kv-lora-rank", "q-lora-rank",
	"qk-head-dim", "qk-pos-emb-head-dim", "v-head-dim"}

// SlimeSettings maps slime's flags to the memory settings. Values that are
// not numbers where numbers are needed are reported at their flag
// (RLS-E1006, as the model flags are).
func SlimeSettings(flags map[string]model.FlagValue) (*model.MemorySettings, model.Diagnostics) {
	s := &model.MemorySettings{Source: "--slime", Framework: "slime", PadVocab: true, Defaults: map[string]string{}}
	r := slimeReader{flags: flags, defaults: s.Defaults}
	s.ModelPath = r.str("hf-checkpoint", "")
	s.ModelArgs = map[string]model.FlagValue{}
	for _, k := range slimeModelFlags {
		if v, ok := flags[k]; ok {
			s.ModelArgs[k] = v
		}
	}
	r.trainer(&s.Actor)
	s.Critic = r.boolFact("advantage-estimator", false)
	s.Critic.Value = flags["advantage-estimator"].Text == "ppo"
	s.Rollout = r.engine()
	r.offloads(s)
	s.Batch = model.BatchSettings{
		MaxPromptLength: r.int("rollout-max-prompt-len", 0), MaxResponseLength: r.int("rollout-max-response-len", 0),
		DynamicBatch: r.boolFact("use-dynamic-batch-size", false), MaxTokensPerMicroBatch: r.int("max-tokens-per-gpu", 0),
		LogprobMaxTokens: r.int("log-probs-max-tokens-per-gpu", 0), MaxContextLength: r.int("rollout-max-context-len", 0),
		MultiTurn: r.boolFact("custom-generate-function-path", false),
	}
	// slime: a context cap without a prompt cap sets the prompt cap to the
	// context less one (arguments.py, slime_validate_args).
	if c := s.Batch.MaxContextLength; c.Value > 0 && !s.Batch.MaxPromptLength.Set {
		s.Batch.MaxPromptLength = model.IntFact{Value: c.Value - 1, Set: true, Span: c.Span, Key: c.Key}
	}
	s.Batch.PromptUnbounded = !s.Batch.MaxPromptLength.Set
	s.Batch.SeqLength.Key = "--seq-length"
	return s, r.diags
}

// offloads applies slime's offload rules (slime/utils/arguments.py,
// slime_validate_args, at THUDM/slime 624b824): --offload sets both
// offloads whatever else is written; --debug-rollout-only turns both off;
// --colocate turns on what is not written, except that --release-train
// releases the trainer instead of offloading it; PPO's critic forces train
// offload.
func (r *slimeReader) offloads(s *model.MemorySettings) {
	colocate := r.boolFact("colocate", false)
	both := r.boolFact("offload", false)
	release := r.boolFact("release-train", false)
	rolloutOnly := r.boolFact("debug-rollout-only", false)
	offTrain := r.switchPair("offload-train", colocate.Value, colocate)
	offRollout := r.switchPair("offload-rollout", colocate.Value, colocate)
	if both.Value {
		offTrain = model.BoolFact{Value: true, Set: true, Span: both.Span, Key: both.Key}
		offRollout = offTrain
	}
	if colocate.Value && release.Value {
		offTrain = model.BoolFact{Value: false, Set: true, Span: release.Span, Key: release.Key}
		offRollout = model.BoolFact{Value: true, Set: true, Span: release.Span, Key: release.Key}
	}
	if rolloutOnly.Value {
		offTrain = model.BoolFact{Value: false, Set: true, Span: rolloutOnly.Span, Key: rolloutOnly.Key}
		offRollout = offTrain
	}
	if s.Critic.Value {
		offTrain = model.BoolFact{Value: true, Set: true, Span: r.flags["advantage-estimator"].Span, Key: "--advantage-estimator"}
	}
	s.Actor.OffloadWeight, s.Actor.OffloadGrad, s.Actor.OffloadOptimizer = offTrain, offTrain, offTrain
	s.Rollout.Offload = offRollout
}

type slimeReader struct {
	flags    map[string]model.FlagValue
	diags    model.Diagnostics
	defaults map[string]string
}

func (r *slimeReader) trainer(t *model.TrainerSettings) {
	t.Backend = model.StringFact{Value: "megatron", Key: "--train-backend"}
	if v, ok := r.flags["train-backend"]; ok && v.Text == "fsdp" {
		t.Backend = model.StringFact{Value: "fsdp", Set: true, Span: v.Span, Key: "--train-backend"}
	}
	t.TP, t.PP, t.CP = r.int("tensor-model-parallel-size", 1), r.int("pipeline-model-parallel-size", 1), r.int("context-parallel-size", 1)
	t.EP, t.ETP = r.int("expert-model-parallel-size", 1), r.int("expert-tensor-parallel-size", 0)
	t.ETP.Set = t.ETP.Set && t.ETP.Value > 0
	t.SequenceParallel = r.boolFact("sequence-parallel", false)
	// slime always turns on the distributed optimizer and bf16 (unless
	// --fp16), whatever the command says (_set_default_megatron_args in
	// slime/backends/megatron_utils/arguments.py).
	t.DistributedOptimizer = r.boolFact("use-distributed-optimizer", true)
	t.DistributedOptimizer.Value = true
	t.RecomputeGranularity = r.str("recompute-granularity", "")
	t.RecomputeMethod = r.str("recompute-method", "")
	t.RecomputeNumLayers = r.int("recompute-num-layers", 1)
	r.defaults["--bf16"] = "true"
	t.Precision = model.StringFact{Value: "bf16", Key: "--bf16"}
	if v, ok := r.flags["bf16"]; ok {
		t.Precision = model.StringFact{Value: "bf16", Set: true, Span: v.Span, Key: "--bf16"}
	}
	if v, ok := r.flags["fp16"]; ok {
		t.Precision = model.StringFact{Value: "fp16", Set: true, Span: v.Span, Key: "--fp16"}
	}
	t.MicroBatch = r.int("micro-batch-size", 1)
	t.LogprobMicroBatch = r.int("log-probs-micro-batch-size", 0)
	t.OptimizerCPUOffload = r.boolFact("optimizer-cpu-offload", false)
	t.OptimizerOffloadFraction = r.float("optimizer-offload-fraction", 1.0)
	t.TransformerImpl = r.str("transformer-impl", "transformer_engine")
	t.DeepEP = r.boolFact("moe-enable-deepep", false)
}

func (r *slimeReader) engine() model.EngineSettings {
	return model.EngineSettings{
		Backend:     model.StringFact{Value: "sglang", Key: "--rollout-backend"},
		MemFraction: r.float("sglang-mem-fraction-static", 0),
		TP:          r.int("rollout-num-gpus-per-engine", 1), PP: r.int("sglang-pp-size", 1),
		MaxRunningRequests: r.int("sglang-max-running-requests", 0), CUDAGraphMaxBS: r.int("sglang-cuda-graph-max-bs", 0),
		ChunkedPrefill: r.int("sglang-chunked-prefill-size", 0), EnforceEager: r.boolFact("sglang-disable-cuda-graph", false),
		Precision: r.str("sglang-dtype", ""), Quantization: r.str("sglang-quantization", ""),
		DeepEP: r.a2aDeepEP(), ContextLength: r.int("sglang-context-length", 0),
	}
}

// a2aDeepEP: SGLang's DeepEP all-to-all, --sglang-moe-a2a-backend deepep
// (or the older --sglang-enable-deepep-moe switch).
func (r *slimeReader) a2aDeepEP() model.BoolFact {
	f := r.boolFact("sglang-enable-deepep-moe", false)
	if v, ok := r.flags["sglang-moe-a2a-backend"]; ok {
		f = model.BoolFact{Value: v.Text == "deepep", Set: true, Span: v.Span, Key: "--sglang-moe-a2a-backend"}
	}
	return f
}

func (r *slimeReader) str(name, def string) model.StringFact {
	r.defaults["--"+name] = def
	f := model.StringFact{Value: def, Key: "--" + name}
	if v, ok := r.flags[name]; ok {
		f.Value, f.Set, f.Span = v.Text, true, v.Span
	}
	return f
}

// flag reads a flag's value with parse; a value parse refuses is
// reported at the flag, described by want.
func flag[T any](r *slimeReader, name string, def T, want string, parse func(string) (T, bool)) (T, bool, model.Span) {
	v, ok := r.flags[name]
	if !ok {
		return def, false, model.Span{}
	}
	x, good := parse(strings.TrimSpace(v.Text))
	if !good {
		// A memory input that cannot be used, as the model flags are.
		err := &InputError{Span: v.Span, Msg: fmt.Sprintf("--%s must be %s, but got %q", name, want, clip(v.Text))}
		r.diags = append(r.diags, Diagnostic(err, v.Span))
		return def, false, model.Span{}
	}
	return x, true, v.Span
}

func (r *slimeReader) int(name string, def int) model.IntFact {
	r.defaults["--"+name] = strconv.Itoa(def)
	v, set, span := flag(r, name, def, fmt.Sprintf("a whole number from 0 to %d", archMax), func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0 && n <= archMax
	})
	return model.IntFact{Value: v, Set: set, Span: span, Key: "--" + name}
}

func (r *slimeReader) float(name string, def float64) model.FloatFact {
	r.defaults["--"+name] = strconv.FormatFloat(def, 'g', -1, 64)
	v, set, span := flag(r, name, def, "a number from 0 to 1", func(s string) (float64, bool) {
		x, err := strconv.ParseFloat(s, 64)
		return x, err == nil && x >= 0 && x <= 1
	})
	return model.FloatFact{Value: v, Set: set, Span: span, Key: "--" + name}
}

// boolFact is a switch: present means true (argparse store_true).
func (r *slimeReader) boolFact(name string, def bool) model.BoolFact {
	r.defaults["--"+name] = strconv.FormatBool(def)
	f := model.BoolFact{Value: def, Key: "--" + name}
	if v, ok := r.flags[name]; ok {
		f.Value, f.Set, f.Span = true, true, v.Span
	}
	return f
}

// switchPair reads --name / --no-name, defaulting to def (which the
// implying flags set: --colocate and --offload turn offloads on).
func (r *slimeReader) switchPair(name string, def bool, implied ...model.BoolFact) model.BoolFact {
	r.defaults["--"+name], r.defaults["--no-"+name] = strconv.FormatBool(def), strconv.FormatBool(def)
	f := model.BoolFact{Value: def, Key: "--" + name}
	for _, im := range implied {
		if im.Value && im.Set {
			f.Span = im.Span
		}
	}
	if v, ok := r.flags[name]; ok {
		f = model.BoolFact{Value: true, Set: true, Span: v.Span, Key: "--" + name}
	}
	if v, ok := r.flags["no-"+name]; ok {
		f = model.BoolFact{Value: false, Set: true, Span: v.Span, Key: "--no-" + name}
	}
	return f
}
