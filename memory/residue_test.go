package memory

import (
	"strings"
	"testing"
)

func TestInputsTheRunSays(t *testing.T) {
	a, _ := LookupTable("qwen3-30b-a3b", "")
	in := func(words ...string) Input {
		s, ds := SlimeSettings(flags(append([]string{"colocate", "tensor-model-parallel-size=4", "rollout-num-gpus-per-engine=4",
			"rollout-max-prompt-len=1024", "rollout-max-response-len=4096", "micro-batch-size=1"}, words...)...))
		if len(ds) > 0 {
			t.Fatal(ds)
		}
		return Input{Settings: s, Arch: a, Profile: DefaultProfile(), Layout: Layout{Collocated: true, ActorGPUs: 8, RolloutGPUs: 8, ActorLogprob: true}}
	}
	bf16 := EngineWorker(in(), "rollout", in().Settings.Rollout)
	fp8In := in("sglang-quantization=fp8")
	fp8 := EngineWorker(fp8In, "rollout", fp8In.Settings.Rollout)
	if (fp8.Engine.WeightsBytes-sglangLoadExtra)*2 != bf16.Engine.WeightsBytes-sglangLoadExtra || fp8.Engine.CellBytes != bf16.Engine.CellBytes {
		t.Errorf("FP8 weights %g, bf16 %g: want half, the KV cache unchanged", fp8.Engine.WeightsBytes, bf16.Engine.WeightsBytes)
	}
	if !strings.Contains(strings.Join(bf16.Notes, " "), "a Linux server GPU") || strings.Contains(strings.Join(fp8.Notes, " "), "checkpoint's dtype") {
		t.Errorf("assumption notes: %q / %q", bf16.Notes, fp8.Notes)
	}

	flash := Workers(in())["actor"].Phases[PhaseTrain]
	local := Workers(in("transformer-impl=local", "recompute-granularity=full"))["actor"].Phases[PhaseTrain]
	full := Workers(in("recompute-granularity=full"))["actor"].Phases[PhaseTrain]
	// One layer's 5·a·s²·b/t: 32 heads, 5120 tokens, TP 4.
	want := 5.0 * 32 * 5120 * 5120 / 4 / GiB
	if got := usageOf(local, KindActivations) - usageOf(full, KindActivations); !near(got, want, 0.01) {
		t.Errorf("attention scores without flash: %.3f GiB, want %.3f", got, want)
	}
	if usageOf(flash, KindActivations) == 0 {
		t.Error("no activations")
	}

	dense := Workers(in("expert-model-parallel-size=1"))["actor"].Phases[PhaseRollout]
	moe := Workers(in("expert-model-parallel-size=4"))["actor"].Phases[PhaseRollout]
	got := usageOf(moe, KindNCCL) + usageOf(moe, KindContext)
	if !near(got, 5e9/GiB, 0.01) || usageOf(dense, KindNCCL)+usageOf(dense, KindContext) != 1.5 {
		t.Errorf("offloaded MoE actor leaves %.2f GiB (slime's 3-5 GB), dense %.2f", got, usageOf(dense, KindNCCL)+usageOf(dense, KindContext))
	}
}

// DeepEP on either side is named in the notes with the measured size to
// declare, and changes no byte of the estimate.
func TestDeepEPNoted(t *testing.T) {
	a, _ := LookupTable("qwen3-30b-a3b", "")
	in := func(words ...string) Input {
		s, ds := SlimeSettings(flags(append([]string{"colocate", "tensor-model-parallel-size=4", "expert-model-parallel-size=4",
			"rollout-num-gpus-per-engine=4", "rollout-max-prompt-len=1024", "rollout-max-response-len=4096", "micro-batch-size=1"}, words...)...))
		if len(ds) > 0 {
			t.Fatal(ds)
		}
		return Input{Settings: s, Arch: a, Profile: DefaultProfile(), Layout: Layout{Collocated: true, ActorGPUs: 8, RolloutGPUs: 8, ActorLogprob: true}}
	}
	plain := Workers(in())
	tests := []struct {
		name, flag, component, note string
	}{
		{"trainer", "moe-enable-deepep", "actor", "actor: DeepEP's buffers are not modelled (about 3.1 GB"},
		{"engine", "sglang-moe-a2a-backend=deepep", "rollout", "rollout assumes"},
		{"engine", "sglang-moe-a2a-backend=deepep", "rollout", "deepseek-ai/DeepEP#510; declare them with component_gib.rollout"},
		{"trainer", "moe-enable-deepep", "actor", "declare them with component_gib.actor"},
	}
	for _, tt := range tests {
		ws := Workers(in(tt.flag))
		w := ws[tt.component]
		notes := strings.Join(w.Notes, "\n")
		if !strings.Contains(notes, tt.note) {
			t.Errorf("%s: notes lack %q:\n%s", tt.name, tt.note, notes)
		}
		if strings.Contains(strings.Join(plain[tt.component].Notes, "\n"), "DeepEP") {
			t.Errorf("%s: DeepEP noted without %s", tt.name, tt.flag)
		}
		for p := range w.Phases {
			if w.Phases[p].Total() != plain[tt.component].Phases[p].Total() {
				t.Errorf("%s: %s phase %d bytes with DeepEP, %d without: counted, not noted", tt.name, Phase(p), w.Phases[p].Total(), plain[tt.component].Phases[p].Total())
			}
		}
	}
}
