package memory

import (
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func usageOf(u Usage, k Kind) float64 {
	var n int64
	for _, p := range u {
		if p.Kind == k {
			n += p.Bytes
		}
	}
	return float64(n) / GiB
}

// RLinf's qwen2.5-7b-grpo-megatron.yaml on a collocated H100 node: the
// spec's budget table (memory.md §4.3): W+O 11.3 GiB and ≈13.5 GiB of
// activations in training (full recompute), SGLang TP2 at 0.65 reserving
// ≈51 GiB, everything of the actor offloaded during rollout.
func TestWorkersRLinfQwen7B(t *testing.T) {
	b := func(v bool) model.BoolFact { return model.BoolFact{Value: v, Set: true} }
	i := func(v int) model.IntFact { return model.IntFact{Value: v, Set: true} }
	s := &model.MemorySettings{Framework: "rlinf", ModelPath: model.StringFact{Value: "/path/to/model/DeepSeek-R1-Distill-Qwen-7B", Set: true},
		Actor: model.TrainerSettings{Backend: model.StringFact{Value: "megatron"}, TP: i(4), PP: i(1), CP: i(1), EP: i(1),
			SequenceParallel: b(true), DistributedOptimizer: b(true), RecomputeGranularity: model.StringFact{Value: "full"},
			RecomputeMethod: model.StringFact{Value: "block"}, RecomputeNumLayers: i(20), MicroBatch: i(1),
			OffloadWeight: b(true), OffloadGrad: b(true), OffloadOptimizer: b(true), Precision: model.StringFact{Value: "fp16"}},
		Rollout: model.EngineSettings{Backend: model.StringFact{Value: "sglang"}, MemFraction: model.FloatFact{Value: 0.65, Set: true},
			TP: i(2), PP: i(1), Precision: model.StringFact{Value: "fp16"}},
		Batch: model.BatchSettings{SeqLength: i(28672)},
	}
	a, src, err := ResolveArch(s, ResolveOptions{ReadFile: func(string) ([]byte, error) { return nil, errNotExist }})
	if err != nil || src.Kind != SourceTable {
		t.Fatal(src, err)
	}
	prof := DefaultProfile()
	prof.Fragmentation = 0
	ws := Workers(Input{Settings: s, Arch: a, Source: src, Profile: prof, Layout: Layout{Collocated: true, ActorGPUs: 128, RolloutGPUs: 128, GPUsPerNode: 8}})
	actor := ws["actor"]
	train := actor.Phases[PhaseTrain]
	if wo := usageOf(train, KindWeights) + usageOf(train, KindGradients) + usageOf(train, KindOptimizer); !near(wo, 11.3, 0.1) {
		t.Errorf("W+O %.2f GiB, the spec's 11.3", wo)
	}
	if act := usageOf(train, KindActivations); !near(act, 13.5, 0.15) {
		t.Errorf("activations %.2f GiB, the spec's 13.5", act)
	}
	if st := actor.Phases[PhaseRollout].State(); st != 0 {
		t.Errorf("offloaded actor keeps %d bytes of state during rollout", st)
	}
	r := Aggregate(GPU{CapacityBytes: 80 * GiB, Workers: []Worker{ws["rollout"], actor}})
	// 0.65 of what is free once the engine's process has its context
	// (engine_preload_gib, 0.4 GiB): the spec's ≈51 GiB.
	if e := r.Engines[0]; !near(float64(e.Budget)/GiB, 0.65*(80-0.4), 0.05) || e.Tokens < 1_600_000 {
		t.Errorf("SGLang budget %s, %d tokens", gib(e.Budget), e.Tokens)
	}
	if fs := Check([]GPUReport{r}, prof); len(fs) != 0 {
		t.Errorf("RLinf's own example gives findings: %+v", fs)
	}
}

// slime #1767: Qwen3-4B at TP1 with long packed micro-batches: the fp32
// logits do not fit beside the rest; a warning, not an error.
func TestWorkersSlimeLogitsSpike(t *testing.T) {
	s, ds := SlimeSettings(flags("hf-checkpoint=/root/Qwen3-4B", "colocate", "use-dynamic-batch-size", "max-tokens-per-gpu=65536",
		"sglang-mem-fraction-static=0.7", "use-distributed-optimizer", "recompute-granularity=full", "recompute-method=uniform", "bf16"))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	a, src, err := ResolveArch(s, ResolveOptions{ReadFile: func(string) ([]byte, error) { return nil, errNotExist }})
	if err != nil {
		t.Fatal(err)
	}
	ws := Workers(Input{Settings: s, Arch: a, Source: src, Profile: DefaultProfile(), Layout: Layout{Collocated: true, ActorGPUs: 8, RolloutGPUs: 8, ActorLogprob: true}})
	fs := Check([]GPUReport{Aggregate(GPU{Label: "g", CapacityBytes: 80 * GiB, Workers: []Worker{ws["rollout"], ws["actor"]}})}, DefaultProfile())
	warned := false
	for _, f := range fs {
		if f.Severity == model.SeverityError {
			t.Errorf("error %s %s", f.Code, f.Summary)
		}
		warned = warned || f.Code == model.WarnMemoryLogits || f.Code == model.WarnMemoryPeak
	}
	if !warned {
		t.Errorf("no logits warning: %+v", fs)
	}
}

// An offloaded FSDP actor leaves its context and NCCL buffers during
// rollout and nothing more (RLinf's full offload since its PR #1095, which
// fixed the flat-parameter views RLinf#1094 found left on the GPU); without
// offload its whole state stays.
func TestOffloadedFSDPLeavesItsFloor(t *testing.T) {
	a, _ := LookupTable("qwen2.5-7b", "")
	floor := float64((Input{Profile: DefaultProfile()}).context().Total()) / GiB
	tests := []struct {
		sharding string
		offload  bool
		state    bool // whether state stays during rollout
	}{
		{"full_shard", true, false},
		{"no_shard", true, false},
		{"shard_grad_op", true, false},
		{"full_shard", false, true},
		{"no_shard", false, true},
	}
	for _, tt := range tests {
		tr := model.TrainerSettings{Backend: model.StringFact{Value: "fsdp", Set: true}, EnableOffload: model.BoolFact{Value: tt.offload, Set: true},
			ShardingStrategy: model.StringFact{Value: tt.sharding, Set: true}, Precision: model.StringFact{Value: "bf16", Set: true},
			MicroBatch: model.IntFact{Value: 1, Set: true}}
		s := &model.MemorySettings{Framework: "rlinf", Actor: tr, Batch: model.BatchSettings{SeqLength: model.IntFact{Value: 4096, Set: true}}}
		in := Input{Settings: s, Arch: a, Profile: DefaultProfile(), Layout: Layout{Collocated: true, ActorGPUs: 8, RolloutGPUs: 8, GPUsPerNode: 8}}
		w := fsdpTrainer(in, &s.Actor, "actor", 0)
		roll := w.Phases[PhaseRollout]
		kept := roll.State() > 0
		if kept != tt.state {
			t.Errorf("%s offload %v: state kept during rollout %v (%d bytes), want %v", tt.sharding, tt.offload, kept, roll.State(), tt.state)
		}
		if !tt.state && !near(float64(roll.Total())/GiB, floor, 0.001) {
			t.Errorf("%s offloaded: rollout %.3f GiB, want the context and NCCL floor %.3f", tt.sharding, float64(roll.Total())/GiB, floor)
		}
	}
}
