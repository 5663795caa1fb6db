package memory

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// slimeQwen3 is slime's retool example (Qwen3-4B, TP 2, packed micro-batches
// of 9,216 tokens, colocated) with extra flags.
func slimeQwen3(t *testing.T, extra ...string) (*model.MemorySettings, Arch) {
	t.Helper()
	words := append([]string{"tensor-model-parallel-size=2", "sequence-parallel", "recompute-granularity=full",
		"recompute-method=uniform", "recompute-num-layers=1", "use-dynamic-batch-size", "max-tokens-per-gpu=9216",
		"rollout-num-gpus-per-engine=2", "sglang-mem-fraction-static=0.7", "colocate", "rollout-max-response-len=8192"}, extra...)
	s, ds := SlimeSettings(flags(words...))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	a, ok := LookupTable("qwen3-4b", "")
	if !ok {
		t.Fatal("qwen3-4b is not in the table")
	}
	return s, a
}

func TestLongestSample(t *testing.T) {
	tests := []struct {
		name    string
		extra   []string
		maxPos  int
		tokens  int
		open    bool
		because string
	}{
		{"no prompt cap, no model context: unbounded", nil, 0, 8192, true, "no prompt cap"},
		{"no prompt cap: the model's context", nil, 40960, 40960, false, "max_position_embeddings"},
		{"no prompt cap: the engine's context", []string{"sglang-context-length=16384"}, 40960, 16384, false, "--sglang-context-length"},
		{"prompt and response caps", []string{"rollout-max-prompt-len=1024"}, 40960, 9216, false, "prompt --rollout-max-prompt-len"},
		{"a context cap stops the sample", []string{"rollout-max-prompt-len=30000", "rollout-max-context-len=32768"}, 0, 32768, false, "context cap"},
		{"multi-turn: the context cap, not the response cap", []string{"custom-generate-function-path=retool.generate",
			"rollout-max-context-len=65536"}, 40960, 65536, false, "multi-turn context cap"},
		{"multi-turn without a context cap: unbounded, whatever the model's context", []string{"custom-generate-function-path=retool.generate",
			"rollout-max-prompt-len=1024"}, 40960, 9216, true, "multi-turn"},
		{"multi-turn without any cap: unbounded", []string{"custom-generate-function-path=retool.generate",
			"rollout-max-prompt-len=1024"}, 0, 9216, true, "multi-turn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, a := slimeQwen3(t, tt.extra...)
			a.MaxPositions = tt.maxPos
			lb := Input{Settings: s, Arch: a}.longestSample()
			if lb.tokens != tt.tokens || lb.open != tt.open || !strings.Contains(lb.why, tt.because) {
				t.Errorf("got %d tokens, open %v (%s); want %d, %v (%s)", lb.tokens, lb.open, lb.why, tt.tokens, tt.open, tt.because)
			}
		})
	}
}

// checkRetool runs the retool example on four H200s as slime places it.
func checkRetool(t *testing.T, s *model.MemorySettings, a Arch) ([]Finding, GPUReport) {
	t.Helper()
	ws := Workers(Input{Settings: s, Arch: a, Profile: DefaultProfile(),
		Layout: Layout{Collocated: true, ActorGPUs: 4, RolloutGPUs: 4, GPUsPerNode: 4, ActorLogprob: true}})
	r := Aggregate(GPU{Label: "node 0 GPUs 0-3", CapacityBytes: 150117524316, Workers: []Worker{ws["actor"], ws["rollout"]}})
	return Check([]GPUReport{r}, DefaultProfile()), r
}

// slime#1951: the retool example OOMs with the fp32 logits of a ~205k-token
// micro-batch under a cap of 9,216. A sample nothing bounds is warned of,
// with the length that runs out; a bound that fits silences it; a bound
// that does not is sized in the phases.
func TestOpenMicroBatch(t *testing.T) {
	s, a := slimeQwen3(t)
	fs, _ := checkRetool(t, s, a)
	if len(fs) != 1 || fs[0].Code != model.WarnMemoryLogits || !strings.Contains(fs[0].Summary, "nothing bounds") ||
		len(fs[0].Fixes) == 0 || fs[0].Fixes[0].Key != "--rollout-max-context-len" {
		t.Fatalf("unbounded samples: %+v", fs)
	}
	if n := tokensOf(fs[0].Summary); n < 100_000 || n > 250_000 {
		t.Errorf("the length that runs out: %q", fs[0].Summary)
	}
	s, a = slimeQwen3(t, "rollout-max-prompt-len=1024")
	if fs, _ := checkRetool(t, s, a); len(fs) != 0 {
		t.Errorf("prompt 1024 + response 8192 under a cap of 9216: %+v", fs)
	}
	s, a = slimeQwen3(t, "rollout-max-context-len=262144")
	fs, r := checkRetool(t, s, a)
	lp := r.Phase(PhaseLogprob)
	if len(fs) == 0 || lp.SpikeBytes+lp.Bytes <= r.CapacityBytes {
		t.Fatalf("a 262144-token context: logprob %d + spike %d bytes, findings %+v", lp.Bytes, lp.SpikeBytes, fs)
	}
	shorter := false
	for _, f := range fs {
		for _, fx := range f.Fixes {
			shorter = shorter || fx.Key == "--rollout-max-context-len" && fx.Value != "262144"
		}
	}
	if !shorter {
		t.Errorf("no shorter context proposed: %+v", fs)
	}
}

// tokensOf reads the N of "a sample of N tokens" in a summary.
func tokensOf(summary string) int {
	_, rest, _ := strings.Cut(summary, "a sample of ")
	num, _, _ := strings.Cut(rest, " ")
	n, _ := strconv.Atoi(num)
	return n
}
