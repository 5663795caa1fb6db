package memory

import (
	"math"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// The spec's check of the full-recompute formula (memory.md §1.2): RLinf's
// qwen2.5-7b config, seq 28672, TP4 with SP, block recompute of 20 of 28
// layers: about 1.0 + 7.5 + 0.9 + 4.1 ≈ 13.5 GiB.
func TestFullRecomputeSpecExample(t *testing.T) {
	a, _ := LookupTable("DeepSeek-R1-Distill-Qwen-7B", "")
	ts := &model.TrainerSettings{TP: model.IntFact{Value: 4}, SequenceParallel: model.BoolFact{Value: true}}
	args := MegatronArgsFor(a, ts, 128, false, 28672, 1)
	got := FullRecomputeBytes(args, "block", 20, 0) / GiB
	if !near(got, 13.5, 0.15) {
		t.Errorf("full recompute %.2f GiB, the spec's estimate 13.5", got)
	}
	if out := outputLayerBytes(args) / GiB; !near(out, 4.1, 0.1) {
		t.Errorf("fp32 logits %.2f GiB, want 4.1", out)
	}
	// Recomputing every layer keeps less than recomputing 20 of them.
	if u := FullRecomputeBytes(args, "uniform", 1, 0) / GiB; u >= got {
		t.Errorf("uniform recompute %.2f GiB, not below block's %.2f", u, got)
	}
	act, formula := TrainActivation(args, "full", "block", 20, 2, 0)
	if !near(act/GiB, got/2, 1e-9) || formula == "" {
		t.Errorf("CP 2 halves the activations: %.2f GiB (%s)", act/GiB, formula)
	}
}

// Megatron's activation formulas are linear in the micro-batch (memory.md
// §4.5, corpus cases qwen2.5-7b mbs 1-8).
func TestActivationLinearInMicroBatch(t *testing.T) {
	a, _ := LookupTable("qwen2.5-7b", "")
	ts := &model.TrainerSettings{TP: model.IntFact{Value: 2}, SequenceParallel: model.BoolFact{Value: true}}
	one := MegatronArgsFor(a, ts, 8, true, 4096, 1)
	four := MegatronArgsFor(a, ts, 8, true, 4096, 4)
	for name, f := range map[string]func(MegatronArgs, int) float64{"sp": ActivationBytes, "no sp": ActivationBytesWithoutSP} {
		if r := f(four, 0) / f(one, 0); !near(r, 4, 1e-9) {
			t.Errorf("%s: 4 sequences take %.6f× one", name, r)
		}
	}
}

func TestLogitsBytes(t *testing.T) {
	// slime #1767: 108k packed tokens of Qwen3-4B at TP 1: 61.34 GiB.
	if got := LogitsBytes(108_400, 151936, 1, 1) / GiB; !near(got, 61.35, 0.1) {
		t.Errorf("logits %.2f GiB, the issue's 61.34", got)
	}
	if LogitsBytes(100, 1000, 2, 2) != 50*500*4 {
		t.Error("TP and CP must divide the logits")
	}
}

func TestFSDPAndZeRO(t *testing.T) {
	const p = 1_000_000_000
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"full_shard fp32: 16P/N", fsdpTotal(FSDPStateBytes(p, p, 0, 4, 8, 8, "full_shard", false)), 16 * p / 8},
		{"full_shard bf16: 2+2+12", fsdpTotal(FSDPStateBytes(p, p, 0, 2, 8, 8, "full_shard", false)), 16 * p / 8},
		{"no_shard: 16P", fsdpTotal(FSDPStateBytes(p, p, 0, 4, 8, 8, "no_shard", false)), 16 * p},
		{"shard_grad_op: 4P + 12P/N", fsdpTotal(FSDPStateBytes(p, p, 0, 4, 8, 8, "shard_grad_op", false)), 4*p + 12*p/8},
		{"hybrid_shard within a node of 4", fsdpTotal(FSDPStateBytes(p, p, 0, 4, 16, 4, "hybrid_shard", false)), 16 * p / 4},
		{"frozen weights need no optimizer", fsdpTotal(FSDPStateBytes(p, 0, 0, 2, 1, 8, "no_shard", false)), 2 * p},
		{"CPU offload keeps only the gathered units", fsdpTotal(FSDPStateBytes(p, p, 1000, 4, 8, 8, "full_shard", true)), 0},
		{"ZeRO-2", ZeRO2StateBytes(p, 8, false), 2*p + 18*p/8},
		{"ZeRO-2 offload", ZeRO2StateBytes(p, 8, true), 2 * p},
		{"ZeRO-3", ZeRO3StateBytes(p, 1000, 8, false, false), 4000 + 18*p/8},
		{"ZeRO-3 offload optimizer", ZeRO3StateBytes(p, 1000, 8, true, false), 4000 + 2*p/8},
		{"ZeRO-3 offload all", ZeRO3StateBytes(p, 1000, 8, true, true), 4000},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want, 1) {
			t.Errorf("%s: %.0f, want %.0f", tt.name, tt.got, tt.want)
		}
	}
	if g := FSDPStateBytes(p, p, 1000, 4, 8, 8, "full_shard", false).Gathered; g != 4000 {
		t.Errorf("gathered units %.0f, want 2 units × 1000 × 2 B", g)
	}
}

func fsdpTotal(s FSDPState) float64 { return s.Weights + s.Grads + s.Optimizer }

func TestKVCell(t *testing.T) {
	moon, _ := LookupTable("moonlight-16b-a3b", "")
	if c := KVCellBytes(moon, 8, 1, 2); c != (512+64)*27*2 {
		t.Errorf("MLA cell %d: not TP-sharded, latent + rope per layer", c)
	}
	q, _ := LookupTable("qwen2.5-7b", "")
	if KVCellBytes(q, 8, 1, 2) != KVCellBytes(q, 4, 1, 2) {
		t.Error("KV heads are replicated, not split, when TP exceeds them")
	}
	if KVCellBytes(q, 1, 2, 2)*2 != KVCellBytes(q, 1, 1, 2) {
		t.Error("PP splits the layers")
	}
	pool := SGLangKVPool(79.11, 0.45, 61.03*GiB, 262144, 1)
	if pool.OK() {
		t.Error("Qwen2.5-32B at TP1 on an H100 with mfs 0.45 must not start (memory.md §1.4)")
	}
	if p := SGLangKVPool(79.11, 0.65, 7.09*GiB, 28672, 64); p.Tokens%64 != 0 || p.Tokens == 0 {
		t.Errorf("page rounding: %d tokens", p.Tokens)
	}
}

func TestEngineFractions(t *testing.T) {
	h100 := int64(80 * GiB)
	if f := SGLangDefaultFraction(h100, 1, 1, 0, 0); !(f > 0.8 && f < 0.88) {
		t.Errorf("SGLang's default fraction on an H100: %g", f)
	}
	if f := SGLangDefaultFraction(24*GiB, 1, 1, 0, 0); !(f > 0.4 && f < 0.6) {
		t.Errorf("SGLang's default fraction on a 24 GiB GPU: %g", f)
	}
	if b := VLLMBudget(h100, 0.5); b != 40*GiB {
		t.Errorf("vLLM budget %d", b)
	}
}
