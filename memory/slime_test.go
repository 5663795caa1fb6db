package memory

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// flags builds a flag map from "name=value" words ("name" alone is a
// switch), each at its own column of line 1.
func flags(words ...string) map[string]model.FlagValue {
	out := map[string]model.FlagValue{}
	for i, w := range words {
		name, val, _ := strings.Cut(w, "=")
		out[name] = model.FlagValue{Text: val, Span: model.Span{File: "run.sh", Line: 1, Col: 1 + 10*i, EndLine: 1, EndCol: 9 + 10*i}}
	}
	return out
}

func TestSlimeSettings(t *testing.T) {
	tests := []struct {
		name  string
		flags map[string]model.FlagValue
		check func(s *model.MemorySettings) string
	}{
		{"run-qwen3-4B.sh", flags("hf-checkpoint=/root/Qwen3-4B", "tensor-model-parallel-size=2", "sequence-parallel",
			"recompute-granularity=full", "recompute-method=uniform", "recompute-num-layers=1", "use-dynamic-batch-size",
			"max-tokens-per-gpu=9216", "rollout-num-gpus-per-engine=2", "sglang-mem-fraction-static=0.7", "colocate",
			"rollout-max-response-len=8192", "bf16"), func(s *model.MemorySettings) string {
			a := s.Actor
			switch {
			case s.ModelPath.Value != "/root/Qwen3-4B" || a.TP.Value != 2 || !a.SequenceParallel.Value || a.RecomputeGranularity.Value != "full":
				return "trainer"
			case !s.Batch.DynamicBatch.Value || s.Batch.MaxTokensPerMicroBatch.Value != 9216 || s.Batch.MaxTokensPerMicroBatch.Key != "--max-tokens-per-gpu":
				return "batch"
			case s.Rollout.TP.Value != 2 || s.Rollout.MemFraction.Value != 0.7 || !s.Rollout.MemFraction.Set:
				return "engine"
			case !a.OffloadWeight.Value || !s.Rollout.Offload.Value || a.OffloadWeight.Span.Col != 101:
				return "colocate implies both offloads, located at --colocate"
			case a.Precision.Value != "bf16" || !s.PadVocab || s.Framework != "slime":
				return "precision"
			}
			return ""
		}},
		{"--no-offload-train wins over --colocate", flags("colocate", "no-offload-train"), func(s *model.MemorySettings) string {
			if s.Actor.OffloadWeight.Value || !s.Rollout.Offload.Value || s.Actor.OffloadWeight.Key != "--no-offload-train" {
				return "offloads"
			}
			return ""
		}},
		{"defaults", flags(), func(s *model.MemorySettings) string {
			if s.Actor.TP.Value != 1 || s.Actor.MicroBatch.Value != 1 || s.Rollout.MemFraction.Value != 0 || s.Actor.OffloadWeight.Value ||
				s.Actor.OptimizerOffloadFraction.Value != 1 || s.Critic.Value {
				return "defaults"
			}
			return ""
		}},
		{"ppo trains a critic, which forces offload_train", flags("advantage-estimator=ppo"), func(s *model.MemorySettings) string {
			if !s.Critic.Value || !s.Actor.OffloadOptimizer.Value {
				return "critic"
			}
			return ""
		}},
		{"model flags are kept for the architecture", flags("num-layers=36", "hidden-size=2560", "rotary-base=1000000"), func(s *model.MemorySettings) string {
			if len(s.ModelArgs) != 2 || s.ModelArgs["num-layers"].Text != "36" {
				return "model args"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ds := SlimeSettings(tt.flags)
			if len(ds) > 0 {
				t.Fatalf("unexpected diagnostics %v", ds)
			}
			if why := tt.check(s); why != "" {
				t.Errorf("%s: %+v", why, s)
			}
		})
	}
}

// TestSlimeDefaults holds slime's own defaults (slime/utils/arguments.py
// and megatron_utils/arguments.py at THUDM/slime 624b824) to the settings.
func TestSlimeDefaults(t *testing.T) {
	tests := []struct {
		name  string
		flags map[string]model.FlagValue
		check func(s *model.MemorySettings) string
	}{
		{"slime forces the distributed optimizer and bf16 (_set_default_megatron_args)", flags(), func(s *model.MemorySettings) string {
			if !s.Actor.DistributedOptimizer.Value || s.Actor.DistributedOptimizer.Set || s.Actor.Precision.Value != "bf16" {
				return "slime's forced defaults"
			}
			return ""
		}},
		{"--fp16 is the one precision slime does not turn into bf16", flags("fp16"), func(s *model.MemorySettings) string {
			if s.Actor.Precision.Value != "fp16" || !s.Actor.Precision.Set {
				return "fp16"
			}
			return ""
		}},
		{"--offload wins over --no-offload-train", flags("offload", "no-offload-train"), func(s *model.MemorySettings) string {
			if !s.Actor.OffloadWeight.Value || !s.Rollout.Offload.Value || s.Actor.OffloadWeight.Key != "--offload" {
				return "offloads"
			}
			return ""
		}},
		{"--release-train releases the colocated trainer instead of offloading it", flags("colocate", "release-train"), func(s *model.MemorySettings) string {
			if s.Actor.OffloadWeight.Value || !s.Rollout.Offload.Value {
				return "offloads"
			}
			return ""
		}},
		{"--debug-rollout-only turns both offloads off", flags("colocate", "debug-rollout-only"), func(s *model.MemorySettings) string {
			if s.Actor.OffloadWeight.Value || s.Rollout.Offload.Value {
				return "offloads"
			}
			return ""
		}},
		{"ppo forces train offload over --no-offload-train", flags("advantage-estimator=ppo", "no-offload-train"), func(s *model.MemorySettings) string {
			if !s.Actor.OffloadWeight.Value {
				return "offloads"
			}
			return ""
		}},
		{"a context cap sets the prompt cap to the context less one", flags("rollout-max-context-len=32768", "custom-generate-function-path=x.generate"),
			func(s *model.MemorySettings) string {
				b := s.Batch
				if b.MaxPromptLength.Value != 32767 || b.PromptUnbounded || !b.MultiTurn.Value || b.MaxContextLength.Value != 32768 {
					return "batch"
				}
				return ""
			}},
		{"no prompt cap leaves the prompt unbounded", flags("rollout-max-response-len=8192"), func(s *model.MemorySettings) string {
			if !s.Batch.PromptUnbounded {
				return "prompt"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ds := SlimeSettings(tt.flags)
			if len(ds) > 0 {
				t.Fatalf("unexpected diagnostics %v", ds)
			}
			if why := tt.check(s); why != "" {
				t.Errorf("%s: %+v", why, s)
			}
		})
	}
}

func TestSlimeSettingsErrors(t *testing.T) {
	_, ds := SlimeSettings(flags("tensor-model-parallel-size=${TP}", "sglang-mem-fraction-static=1.5", "micro-batch-size=2"))
	if len(ds) != 2 {
		t.Fatalf("got %d diagnostics, want 2: %v", len(ds), ds)
	}
	for _, d := range ds {
		if d.Code != model.CodeMemoryInput || !d.Primary.Known() {
			t.Errorf("diagnostic %+v", d)
		}
	}
}

func TestArchFromMegatronFlags(t *testing.T) {
	// slime's scripts/models/qwen3-30B-A3B.sh and moonlight.sh.
	moe := flags("num-layers=48", "hidden-size=2048", "ffn-hidden-size=6144", "num-attention-heads=32", "group-query-attention",
		"num-query-groups=4", "kv-channels=128", "vocab-size=151936", "untie-embeddings-and-output-weights", "swiglu", "qk-layernorm",
		"num-experts=128", "moe-ffn-hidden-size=768", "moe-router-topk=8", "moe-layer-freq=[1, 1, 1]")
	a, ok, err := ArchFromMegatronFlags(moe)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want, _ := LookupTable("qwen3-30b-a3b", "")
	if a.Params() != want.Params() || KVCellBytes(a, 4, 1, 2) != KVCellBytes(want, 4, 1, 2) {
		t.Errorf("qwen3-30B-A3B from flags: %d params, want %d", a.Params(), want.Params())
	}
	mla := flags("num-layers=27", "hidden-size=2048", "ffn-hidden-size=11264", "num-attention-heads=16", "kv-channels=128",
		"vocab-size=163840", "untie-embeddings-and-output-weights", "swiglu", "multi-latent-attention", "kv-lora-rank=512",
		"qk-head-dim=128", "qk-pos-emb-head-dim=64", "v-head-dim=128", "num-experts=64", "moe-ffn-hidden-size=1408",
		"moe-router-topk=6", "moe-shared-expert-intermediate-size=2816", "moe-layer-freq=[0, 1, 1, 1]")
	a, ok, err = ArchFromMegatronFlags(mla)
	want, _ = LookupTable("moonlight-16b-a3b", "")
	if err != nil || !ok || !a.MLA || a.FirstDense != 1 || KVCellBytes(a, 8, 1, 2) != KVCellBytes(want, 8, 1, 2) {
		t.Errorf("moonlight from flags: %+v, %v", a, err)
	}
	if _, ok, _ := ArchFromMegatronFlags(flags("num-layers=2")); ok {
		t.Error("incomplete flags gave an architecture")
	}
	if _, _, err := ArchFromMegatronFlags(flags("num-layers=x", "hidden-size=8", "num-attention-heads=2", "vocab-size=8")); err == nil {
		t.Error("a bad number was accepted")
	}
}
